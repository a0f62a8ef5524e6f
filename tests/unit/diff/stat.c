#include "unit.h"
#include "fgit/buf.h"
#include "fgit/diff.h"

static int summary_is(size_t f, size_t i, size_t d, const char *want)
{
	struct fgit_buf o = FGIT_BUF_INIT;
	int ok;
	fgit_diffstat_summary(&o, f, i, d);
	ok = !strcmp(o.ptr, want);
	if (!ok)
		printf("  got '%s', want '%s'\n", o.ptr, want);
	fgit_buf_release(&o);
	return ok;
}

TEST(diffstat, summary_line)
{
	CHECK(summary_is(1, 0, 0, " 1 file changed, 0 insertions(+), 0 deletions(-)\n"));
	CHECK(summary_is(2, 3, 1, " 2 files changed, 3 insertions(+), 1 deletion(-)\n"));
	CHECK(summary_is(1, 1, 0, " 1 file changed, 1 insertion(+)\n"));
	CHECK(summary_is(3, 0, 5, " 3 files changed, 5 deletions(-)\n"));
	CHECK(summary_is(0, 0, 0, " 0 files changed\n"));
}
