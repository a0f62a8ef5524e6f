/* Test tool: print "<added>\t<deleted>" between two files, as numstat. */
#include <stdio.h>
#include "fgit/buf.h"
#include "fgit/diff.h"

int main(int argc, char **argv)
{
	struct fgit_buf a = FGIT_BUF_INIT, b = FGIT_BUF_INIT;
	size_t add, del;
	if (argc != 3 || fgit_buf_read_file(&a, argv[1]) || fgit_buf_read_file(&b, argv[2]))
		return 2;
	if (fgit_diff_count(a.ptr, a.len, b.ptr, b.len, &add, &del))
		return 1;
	if (add || del)
		printf("%zu\t%zu\n", add, del);
	return 0;
}
