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
