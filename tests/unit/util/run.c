#include <stdlib.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/run.h"

TEST(run, pipe_through_cat)
{
	struct fgit_child c = FGIT_CHILD_INIT;
	struct fgit_buf out = FGIT_BUF_INIT;
	const char *argv[] = { "cat", NULL };
	static char big[1 << 20];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	c.argv = argv;
	/* bigger than a pipe buffer both ways: must not deadlock */
	CHECK(fgit_run_pipe(&c, big, sizeof(big), &out) == 0);
	CHECK(out.len == sizeof(big) && !memcmp(out.ptr, big, sizeof(big)));
	fgit_buf_release(&out);
}

TEST(run, shell_and_env_and_exit_code)
{
	struct fgit_child c = FGIT_CHILD_INIT;
	struct fgit_buf out = FGIT_BUF_INIT;
	const char *argv[] = { "printf '%s|%s' \"$FGIT_T\" \"$1\"; exit 3", "arg one", NULL };
	const char *env[] = { "FGIT_T=val", "HOME", NULL };

	c.argv = argv;
	c.env = env;
	c.use_shell = 1;
	CHECK(fgit_run_pipe(&c, NULL, 0, &out) == 3);
	CHECK_MSG(!strcmp(out.ptr, "val|arg one"), "got '%s'", out.ptr);
	fgit_buf_release(&out);
}

TEST(run, missing_program)
{
	struct fgit_child c = FGIT_CHILD_INIT;
	const char *argv[] = { "/nonexistent/prog", NULL };
	c.argv = argv;
	CHECK(fgit_child_start(&c) == FGIT_ENOTFOUND);
	CHECK(strstr(fgit_error_last(), "cannot run /nonexistent/prog"));
}
