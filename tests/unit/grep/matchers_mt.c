/*
 * grep: one compiled matcher per thread (fgit_grep_dup), each searching
 * the same buffers; every thread must produce what one thread does.
 * Run under ThreadSanitizer by `make test`.
 */
#include <pthread.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/grep.h"

static struct fgit_grep *base;
static char text[1 << 16];
static struct fgit_buf expect = FGIT_BUF_INIT;

static void *worker(void *arg)
{
	struct fgit_grep *g;
	struct fgit_buf out = FGIT_BUF_INIT;
	struct fgit_grep_source src = { "t", NULL, text, sizeof(text) - 1 };
	long ok = 0;
	int i;

	if (fgit_grep_dup(&g, base))
		return (void *)0;
	for (i = 0; i < 20; i++) {
		fgit_buf_reset(&out);
		if (fgit_grep_buffer(&out, NULL, g, &src) < 0)
			break;
		if (out.len != expect.len || memcmp(out.ptr, expect.ptr, out.len))
			break;
	}
	ok = i == 20;
	fgit_buf_release(&out);
	fgit_grep_free(g);
	return (void *)ok;
}

TEST(grep, dup_per_thread)
{
	struct fgit_grep_options o;
	struct fgit_grep_source src = { "t", NULL, text, sizeof(text) - 1 };
	pthread_t th[4];
	size_t i;
	int k;

	for (i = 0; i + 1 < sizeof(text); i++)
		text[i] = i % 61 == 60 ? '\n' : "abcfoxyz b.a"[(i * 7919) % 12];
	fgit_grep_options_init(&o);
	o.linenum = 1;
	o.pattern_type = FGIT_GREP_ERE;
	CHECK(!fgit_grep_new(&base, &o));
	CHECK(!fgit_grep_add(base, FGIT_GREP_PATTERN, "fo+x|z b", 8));
	CHECK(!fgit_grep_add(base, FGIT_GREP_PATTERN, "a.*c", 4));
	CHECK(!fgit_grep_compile(base));
	CHECK(fgit_grep_buffer(&expect, NULL, base, &src) == 1);
	for (k = 0; k < 4; k++)
		CHECK(!pthread_create(&th[k], NULL, worker, NULL));
	for (k = 0; k < 4; k++) {
		void *r;
		pthread_join(th[k], &r);
		CHECK(r == (void *)1);
	}
	fgit_grep_free(base);
	fgit_buf_release(&expect);
}
