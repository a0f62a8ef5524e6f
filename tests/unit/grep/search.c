/* grep: the -i literal search against a naive search; matcher basics. */
#include <ctype.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/grep.h"
#include "grep/grep_internal.h"

static const char *naive(const char *h, size_t hl, const char *n, size_t nl)
{
	size_t i, j;
	for (i = 0; i + nl <= hl; i++) {
		for (j = 0; j < nl; j++)
			if (tolower((unsigned char)h[i + j]) != (unsigned char)n[j])
				break;
		if (j == nl)
			return h + i;
	}
	return NULL;
}

TEST(search, icase_random)
{
	static char hay[4096];
	char needle[8];
	unsigned seed = 12345;
	int round;

	for (round = 0; round < 3000; round++) {
		size_t hl = (seed = seed * 1103515245 + 12345) % sizeof(hay);
		size_t nl = 1 + (seed = seed * 1103515245 + 12345) % 6, i;
		const char *a, *b;
		for (i = 0; i < hl; i++)
			hay[i] = "aAbB_ \n\xc3"[(seed = seed * 1103515245 + 12345) >> 16 & 7];
		for (i = 0; i < nl; i++)
			needle[i] = "ab_ "[(seed = seed * 1103515245 + 12345) >> 16 & 3];
		a = grep_memmem_icase(hay, hl, needle, nl);
		b = naive(hay, hl, needle, nl);
		CHECK_MSG(a == b, "round %d: %p vs %p", round, (void *)a, (void *)b);
		/* case-sensitive: against libc memmem */
		if (round & 1)
			needle[0] = toupper((unsigned char)needle[0]);
		a = grep_memmem(hay, hl, needle, nl);
		b = memmem(hay, hl, needle, nl);
		CHECK_MSG(a == b, "exact round %d: %p vs %p", round, (void *)a, (void *)b);
	}
}

static int run(const char *pat, int type, int icase, const char *text, struct fgit_buf *out)
{
	struct fgit_grep_options o;
	struct fgit_grep *g;
	struct fgit_grep_source src = { "f", NULL, text, strlen(text) };
	int r;

	fgit_grep_options_init(&o);
	o.pattern_type = type;
	o.ignore_case = icase;
	o.linenum = 1;
	if (fgit_grep_new(&g, &o) || fgit_grep_add(g, FGIT_GREP_PATTERN, pat, strlen(pat)) ||
	    fgit_grep_compile(g))
		return -1;
	r = fgit_grep_buffer(out, NULL, g, &src);
	fgit_grep_free(g);
	return r;
}

TEST(grep, lines_and_prefixes)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	CHECK(run("foo.*bar", FGIT_GREP_BRE, 0, "x\nfoo bar\nfoo\nbar foo\nfoobar", &b) == 1);
	CHECK(!strcmp(b.ptr, "f:2:foo bar\nf:5:foobar\n"));
	fgit_buf_reset(&b);
	CHECK(run("a.*b", FGIT_GREP_ERE, 0, "b a\nab\n\na\nb", &b) == 1);
	CHECK(!strcmp(b.ptr, "f:2:ab\n"));
	fgit_buf_reset(&b);
	CHECK(run("HELLO", FGIT_GREP_FIXED, 1, "say hello\nno\nHeLLo", &b) == 1);
	CHECK(!strcmp(b.ptr, "f:1:say hello\nf:3:HeLLo\n"));
	fgit_buf_reset(&b);
	CHECK(run("zz", FGIT_GREP_BRE, 0, "a\nb\n", &b) == 0);
	CHECK(b.len == 0);
	fgit_buf_release(&b);
}
