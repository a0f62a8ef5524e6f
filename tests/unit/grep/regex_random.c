/*
 * grep: random BRE/ERE patterns over random text, in the C and a UTF-8
 * locale, against plain per-line regexec: the whole-buffer search (literal
 * prefixes, the PCRE2 candidate filter) must select exactly the lines that
 * POSIX matching selects.
 */
#include <locale.h>
#include <regex.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/grep.h"

static unsigned seed = 4242;
static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 16) % n;
}

static void expected(struct fgit_buf *out, const char *pat, int ere, int icase,
		     const char *text, size_t len)
{
	regex_t re;
	const char *bol = text, *end = text + len;
	unsigned lno = 1;

	if (regcomp(&re, pat, REG_NEWLINE | (ere ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0)))
		return;
	while (bol < end) {
		const char *eol = memchr(bol, '\n', end - bol);
		regmatch_t m[1];
		if (!eol)
			eol = end;
		m[0].rm_so = 0;
		m[0].rm_eo = eol - bol;
		if (!regexec(&re, bol, 1, m, REG_STARTEND))
			fgit_buf_addf(out, "%u\n", lno);
		bol = eol + 1;
		lno++;
	}
	regfree(&re);
}

static int run_locale(const char *loc, int utf8)
{
	static const char *const atoms_bre[] = { "a", "b", "ab", "ba", ".", "a*", ".*", "^a",
		"b$", "\\(ab\\)*", "a\\{2\\}", "x", "\303\251", "a\\+", "b\\?", "ab\\|ba", "_b" };
	static const char *const atoms_ere[] = { "a", "b", "ab", ".", "a*", ".*", "^a", "b$",
		"(ab)*", "a{2}", "(a|b)", "a+", "b?", "ab|ba", "\303\251", "x.y", ".+" };
	static const char alphabet[] = "aabbxy_.\n\303\251\377";
	char text[600], pat[64];
	int round, fails = 0;

	if (!setlocale(LC_CTYPE, loc))
		return 0;
	for (round = 0; round < 1500; round++) {
		int ere = rnd(2), icase = rnd(4) == 0, k, n = 1 + rnd(3);
		size_t len = rnd(sizeof(text)), i;
		struct fgit_grep_options o;
		struct fgit_grep *g;
		struct fgit_buf got = FGIT_BUF_INIT, want = FGIT_BUF_INIT;
		struct fgit_grep_source src;
		regex_t check;

		pat[0] = 0;
		for (k = 0; k < n; k++)
			strcat(pat, ere ? atoms_ere[rnd(17)] : atoms_bre[rnd(17)]);
		if (regcomp(&check, pat, REG_NEWLINE | (ere ? REG_EXTENDED : 0)))
			continue;
		regfree(&check);
		for (i = 0; i < len; i++)
			text[i] = alphabet[rnd(sizeof(alphabet) - 1)];
		fgit_grep_options_init(&o);
		o.pattern_type = ere ? FGIT_GREP_ERE : FGIT_GREP_BRE;
		o.ignore_case = icase;
		o.linenum = 1;
		o.pathname = 0;
		o.utf8_locale = utf8;
		o.only_matching = 0;
		if (fgit_grep_new(&g, &o) || fgit_grep_add(g, FGIT_GREP_PATTERN, pat, strlen(pat)) ||
		    fgit_grep_compile(g)) {
			fgit_grep_free(g);
			continue;
		}
		src.name = "f";
		src.path = NULL;
		src.buf = text;
		src.size = len;
		/* -c style check: collect the line numbers fgit prints */
		fgit_grep_buffer(&got, NULL, g, &src);
		fgit_grep_free(g);
		{
			/* keep "N" from "N:line" */
			struct fgit_buf nums = FGIT_BUF_INIT;
			const char *p = got.ptr, *e = got.ptr + got.len;
			while (p < e) {
				const char *c = memchr(p, ':', e - p);
				const char *nl;
				if (!c)
					break;
				fgit_buf_add(&nums, p, c - p);
				fgit_buf_addch(&nums, '\n');
				nl = memchr(c, '\n', e - c);
				p = nl ? nl + 1 : e;
			}
			expected(&want, pat, ere, icase, text, len);
			/* a binary buffer prints one line instead: skip those */
			if (!memchr(text, 0, len) && strcmp(nums.ptr, want.ptr)) {
				printf("  %s: pattern '%s' (%s%s): got\n%s  want\n%s", loc, pat,
				       ere ? "ERE" : "BRE", icase ? ", -i" : "", nums.ptr, want.ptr);
				fails++;
			}
			fgit_buf_release(&nums);
		}
		fgit_buf_release(&got);
		fgit_buf_release(&want);
		if (fails > 3)
			break;
	}
	return fails;
}

TEST(regex, random_c_locale)
{
	CHECK(run_locale("C", 0) == 0);
}

TEST(regex, random_utf8_locale)
{
	CHECK(run_locale("C.UTF-8", 1) == 0);
}

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Reference for -F / -P / literals: PCRE2 per line with git's options. */
static void expected_pcre(struct fgit_buf *out, const char *pat, int icase, int utf8,
			  int literal, const char *text, size_t len)
{
	int err;
	PCRE2_SIZE off;
	uint32_t opt = PCRE2_MULTILINE | (icase ? PCRE2_CASELESS : 0) |
		       (utf8 && !(literal && !icase) ? PCRE2_UTF | PCRE2_MATCH_INVALID_UTF : 0);
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, strlen(pat), opt, &err, &off, NULL);
	pcre2_match_data *md;
	const char *bol = text, *end = text + len;
	unsigned lno = 1;

	if (!re)
		return;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	while (bol < end) {
		const char *eol = memchr(bol, '\n', end - bol);
		if (!eol)
			eol = end;
		if (pcre2_match(re, (PCRE2_SPTR)bol, eol - bol, 0, 0, md, NULL) >= 0)
			fgit_buf_addf(out, "%u\n", lno);
		bol = eol + 1;
		lno++;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
}

static int run_pcre_locale(const char *loc, int utf8)
{
	static const char *const atoms[] = { "a", "b", "ab", "k", "s", "S", "K", "_", "xy",
		"\303\251", "a\\w", "b+", "(?:ab)?", "\\d", "a.b", "bb" };
	static const char alphabet[] = "aAbBkKsSxy_1\n\303\251\342\204\252\305\277";
	char text[600], pat[64];
	int round, fails = 0;

	if (!setlocale(LC_CTYPE, loc))
		return 0;
	for (round = 0; round < 1500; round++) {
		int perl = rnd(2), icase = rnd(2), k, n = 1 + rnd(3), literal = 1;
		size_t len = rnd(sizeof(text)), i;
		struct fgit_grep_options o;
		struct fgit_grep *g;
		struct fgit_buf got = FGIT_BUF_INIT, want = FGIT_BUF_INIT, nums = FGIT_BUF_INIT;
		struct fgit_grep_source src = { "f", NULL, text, 0 };
		const char *p, *e;

		pat[0] = 0;
		for (k = 0; k < n; k++) {
			const char *a = atoms[rnd(perl ? 16 : 10)];
			strcat(pat, a);
		}
		for (i = 0; pat[i]; i++)
			if (strchr("$()*+.?[\\^{|", pat[i]))
				literal = 0;
		for (i = 0; i < len; i++)
			text[i] = alphabet[rnd(sizeof(alphabet) - 1)];
		src.size = len;
		fgit_grep_options_init(&o);
		o.pattern_type = perl ? FGIT_GREP_PCRE : FGIT_GREP_FIXED;
		o.ignore_case = icase;
		o.linenum = 1;
		o.pathname = 0;
		o.utf8_locale = utf8;
		if (fgit_grep_new(&g, &o) || fgit_grep_add(g, FGIT_GREP_PATTERN, pat, strlen(pat)) ||
		    fgit_grep_compile(g)) {
			fgit_grep_free(g);
			continue;
		}
		fgit_grep_buffer(&got, NULL, g, &src);
		fgit_grep_free(g);
		for (p = got.ptr, e = got.ptr + got.len; p < e;) {
			const char *c = memchr(p, ':', e - p), *nl;
			if (!c)
				break;
			fgit_buf_add(&nums, p, c - p);
			fgit_buf_addch(&nums, '\n');
			nl = memchr(c, '\n', e - c);
			p = nl ? nl + 1 : e;
		}
		expected_pcre(&want, pat, icase, utf8, literal || !perl, text, len);
		if (strcmp(nums.ptr, want.ptr)) {
			printf("  %s: pattern '%s' (%s%s): got\n%s  want\n%s", loc, pat,
			       perl ? "-P" : "-F", icase ? ", -i" : "", nums.ptr, want.ptr);
			fails++;
		}
		fgit_buf_release(&nums);
		fgit_buf_release(&got);
		fgit_buf_release(&want);
		if (fails > 3)
			break;
	}
	return fails;
}

TEST(pcre, random_c_locale)
{
	CHECK(run_pcre_locale("C", 0) == 0);
}

TEST(pcre, random_utf8_locale)
{
	CHECK(run_pcre_locale("C.UTF-8", 1) == 0);
}
