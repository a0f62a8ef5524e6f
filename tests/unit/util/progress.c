#include <unistd.h>
#include "unit.h"
#include "fgit/progress.h"

TEST(progress, human_bytes)
{
	char b[64];
	fgit_human_bytes(b, sizeof(b), 1);
	CHECK(!strcmp(b, "1 byte"));
	fgit_human_bytes(b, sizeof(b), 1000);
	CHECK(!strcmp(b, "1000 bytes"));
	fgit_human_bytes(b, sizeof(b), 1536);
	CHECK(!strcmp(b, "1.50 KiB"));
	fgit_human_bytes(b, sizeof(b), 3 * 1048576 + 1048576 / 4);
	CHECK(!strcmp(b, "3.25 MiB"));
	fgit_human_bytes(b, sizeof(b), (uint64_t)5 << 30 | (1 << 29));
	CHECK(!strcmp(b, "5.50 GiB"));
}

TEST(progress, final_line)
{
	int fds[2];
	char out[256] = "";
	ssize_t n;
	struct fgit_progress *p;

	CHECK(pipe(fds) == 0);
	p = fgit_progress_new("Counting objects", 40, fds[1], 0);
	fgit_progress_set(p, 40);
	fgit_progress_done(p);
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	CHECK(n > 0);
	out[n] = 0;
	{
		const char *last = strrchr(out, '\r');
		last = last ? last + 1 : out;
		CHECK_MSG(!strcmp(last, "Counting objects: 100% (40/40), done.\n"), "got '%s'", last);
	}
}
