/* Test tool: print git's abbreviated rename name for two paths. */
#include <stdio.h>
#include "fgit/buf.h"
#include "fgit/diff.h"

int main(int argc, char **argv)
{
	struct fgit_buf o = FGIT_BUF_INIT;
	if (argc != 3)
		return 2;
	fgit_diff_rename_name(&o, argv[1], argv[2]);
	printf(" rename %s (100%%)\n", o.ptr);
	return 0;
}
