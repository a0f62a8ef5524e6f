#include "unit.h"
#include "fgit/buf.h"

TEST(buf, empty_is_nul_terminated)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	CHECK(b.ptr && b.ptr[0] == '\0' && b.len == 0);
	fgit_buf_release(&b);
}

TEST(buf, add_and_format)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int i;
	for (i = 0; i < 1000; i++)
		CHECK(fgit_buf_addf(&b, "%d,", i) == 0);
	CHECK(b.len == strlen(b.ptr));
	CHECK(!strncmp(b.ptr, "0,1,2,", 6));
	CHECK(!strcmp(b.ptr + b.len - 4, "999,"));
	fgit_buf_release(&b);
}

TEST(buf, embedded_nul)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	CHECK(fgit_buf_add(&b, "a\0b", 3) == 0);
	CHECK(b.len == 3 && b.ptr[1] == '\0' && b.ptr[3] == '\0');
	fgit_buf_release(&b);
}
