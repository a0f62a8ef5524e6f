/*
 * wildmatch: git's glob semantics, written from gitignore(5) and checked
 * case by case against git 2.39 itself (tests/unit/worktree/wildmatch.c).
 *
 * The matcher walks pattern and text together and recurses only at '*'.
 * Two early exits keep it from going exponential on patterns such as
 * "*a*a*a*b" (both are pure pruning, they never change an answer):
 *
 *  - ABORT_ALL: the text ran out (or the pattern is malformed); a star
 *    further left cannot help, since moving it only shortens the text left
 *    for the rest of the pattern.
 *  - ABORT_TO_STARSTAR: a single '*' (which cannot cross '/') failed for
 *    every start up to the next '/'; outer single stars are confined to
 *    their own components too, so only a '**' further left can still help.
 *
 * Quirks kept from git because its users see them:
 *  - with FGIT_WM_CASEFOLD, a single character inside [...] is compared
 *    with the lower-cased text character as written, so "[A]" matches
 *    neither "a" nor "A" while "[A-Z]" and "[a]" match both;
 *  - without FGIT_WM_PATHNAME every star matches '/', "**" is just "*".
 */
#include <string.h>
#include "fgit/wildmatch.h"

typedef unsigned char uchar;

enum {
	WM_MATCH = 0,
	WM_NOMATCH = 1,
	WM_ABORT_ALL = 2,
	WM_ABORT_TO_STARSTAR = 3,
};

static inline int is_upper(uchar c) { return c >= 'A' && c <= 'Z'; }
static inline int is_lower(uchar c) { return c >= 'a' && c <= 'z'; }
static inline int is_digit(uchar c) { return c >= '0' && c <= '9'; }
static inline uchar to_lower(uchar c) { return is_upper(c) ? c + 32 : c; }
static inline uchar to_upper(uchar c) { return is_lower(c) ? c - 32 : c; }

/* POSIX class `name` (len bytes) against text char tc; -1: unknown class. */
static int class_match(const uchar *name, size_t len, uchar tc, unsigned flags)
{
#define IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
	if (IS("alnum"))
		return is_upper(tc) || is_lower(tc) || is_digit(tc);
	if (IS("alpha"))
		return is_upper(tc) || is_lower(tc);
	if (IS("blank"))
		return tc == ' ' || tc == '\t';
	if (IS("cntrl"))
		return tc < 32 || tc == 127;
	if (IS("digit"))
		return is_digit(tc);
	if (IS("graph"))
		return tc > 32 && tc < 127;
	if (IS("lower"))
		return is_lower(tc);
	if (IS("print"))
		return tc >= 32 && tc < 127;
	if (IS("punct"))
		return tc > 32 && tc < 127 && !is_upper(tc) && !is_lower(tc) &&
		       !is_digit(tc);
	if (IS("space"))
		return tc == ' ' || (tc >= '\t' && tc <= '\r');
	if (IS("upper"))
		return is_upper(tc) ||
		       ((flags & FGIT_WM_CASEFOLD) && is_lower(tc));
	if (IS("xdigit"))
		return is_digit(tc) || (tc >= 'a' && tc <= 'f') ||
		       (tc >= 'A' && tc <= 'F');
#undef IS
	return -1;
}

/*
 * Match text char `tc` (already case-folded when asked) against the set
 * starting at *pp ('['); leaves *pp on the closing ']'.  Returns 1 or 0, or
 * -1 for a malformed set.
 */
static int match_set(const uchar **pp, const uchar *pe, uchar tc,
		     unsigned flags)
{
	const uchar *p = *pp + 1;
	int negated = 0, matched = 0, first = 1, have_prev = 0;
	uchar prev = 0;

	if (p < pe && (*p == '!' || *p == '^')) {
		negated = 1;
		p++;
	}
	for (;; p++, first = 0) {
		uchar pc;

		if (p >= pe)
			return -1;
		pc = *p;
		if (pc == ']' && !first)
			break;
		if (pc == '\\') {
			if (++p >= pe)
				return -1;
			pc = *p;
			if (tc == pc)
				matched = 1;
			prev = pc;
			have_prev = 1;
		} else if (pc == '-' && have_prev && p + 1 < pe && p[1] != ']') {
			pc = *++p;
			if (pc == '\\') {
				if (++p >= pe)
					return -1;
				pc = *p;
			}
			if (tc >= prev && tc <= pc)
				matched = 1;
			else if ((flags & FGIT_WM_CASEFOLD) && is_lower(tc)) {
				uchar up = to_upper(tc);
				if (up >= prev && up <= pc)
					matched = 1;
			}
			have_prev = 0;
		} else if (pc == '[' && p + 1 < pe && p[1] == ':') {
			const uchar *s = p + 2, *q = s;
			while (q < pe && *q != ']')
				q++;
			if (q >= pe)
				return -1;
			if (q - s < 1 || q[-1] != ':') {
				/* no ":]": the '[' is an ordinary member */
				if (tc == '[')
					matched = 1;
				prev = '[';
				have_prev = 1;
			} else {
				int r = class_match(s, q - 1 - s, tc, flags);
				if (r < 0)
					return -1;
				if (r)
					matched = 1;
				p = q;
				have_prev = 0;
			}
		} else {
			if (tc == pc)
				matched = 1;
			prev = pc;
			have_prev = 1;
		}
	}
	*pp = p;
	if ((flags & FGIT_WM_PATHNAME) && tc == '/')
		return 0;
	return matched != negated;
}

static int dowild(const uchar *pstart, const uchar *p, const uchar *pe,
		  const uchar *t, const uchar *te, unsigned flags)
{
	const int fold = flags & FGIT_WM_CASEFOLD;
	const int pathname = flags & FGIT_WM_PATHNAME;

	for (; p < pe; p++, t++) {
		uchar pc = *p, tc;
		int r;

		if (pc == '*')
			goto star;
		if (t >= te)
			return WM_ABORT_ALL;
		tc = *t;
		if (fold)
			tc = to_lower(tc);
		switch (pc) {
		case '?':
			if (pathname && tc == '/')
				return WM_NOMATCH;
			continue;
		case '[':
			r = match_set(&p, pe, tc, flags);
			if (r < 0)
				return WM_ABORT_ALL;
			if (!r)
				return WM_NOMATCH;
			continue;
		case '\\':
			if (++p >= pe)
				return WM_NOMATCH;
			pc = *p;
			/* fall through */
		default:
			if (fold)
				pc = to_lower(pc);
			if (tc != pc)
				return WM_NOMATCH;
			continue;
		}
	}
	return t == te ? WM_MATCH : WM_NOMATCH;

star:
	{
		const uchar *star = p;
		int cross;	/* may this star match '/'? */

		while (++p < pe && *p == '*')
			;
		if (!pathname) {
			cross = 1;
		} else if (p - star >= 2 &&
			   (star == pstart || star[-1] == '/') &&
			   (p == pe || *p == '/' ||
			    (*p == '\\' && p + 1 < pe && p[1] == '/'))) {
			/* "**" + "/" may also match no directory at all */
			if (p < pe && *p == '/' &&
			    dowild(pstart, p + 1, pe, t, te, flags) == WM_MATCH)
				return WM_MATCH;
			cross = 1;
		} else {
			cross = 0;
		}

		if (p == pe) {
			/* trailing star: the rest of the text, if allowed */
			if (!cross && memchr(t, '/', te - t))
				return WM_ABORT_TO_STARSTAR;
			return WM_MATCH;
		}
		if (!cross && *p == '/') {
			/* "*" + "/": the star eats up to the next slash */
			const uchar *slash = memchr(t, '/', te - t);
			if (!slash)
				return WM_ABORT_ALL;
			return dowild(pstart, p, pe, slash, te, flags);
		}
		for (;; t++) {
			int r;

			if (t >= te)
				return WM_ABORT_ALL;
			/*
			 * Literal next pattern char: skip text positions that
			 * cannot start the rest of the match.
			 */
			if (*p != '*' && *p != '?' && *p != '[' && *p != '\\') {
				uchar want = fold ? to_lower(*p) : *p;
				while (t < te) {
					uchar c = fold ? to_lower(*t) : *t;
					if (c == want)
						break;
					if (!cross && c == '/')
						return WM_ABORT_TO_STARSTAR;
					t++;
				}
				if (t >= te)
					return WM_ABORT_ALL;
			}
			r = dowild(pstart, p, pe, t, te, flags);
			if (r != WM_NOMATCH) {
				if (!cross || r != WM_ABORT_TO_STARSTAR)
					return r;
			} else if (!cross && *t == '/') {
				return WM_ABORT_TO_STARSTAR;
			}
		}
	}
}

int fgit_wildmatch_mem(const char *pattern, size_t patlen,
		       const char *text, size_t textlen, unsigned flags)
{
	const uchar *p = (const uchar *)pattern;
	const uchar *t = (const uchar *)text;
	return dowild(p, p, p + patlen, t, t + textlen, flags) == WM_MATCH;
}

int fgit_wildmatch(const char *pattern, const char *text, unsigned flags)
{
	return fgit_wildmatch_mem(pattern, strlen(pattern), text, strlen(text),
				  flags);
}

size_t fgit_wildmatch_literal_prefix(const char *pattern, size_t patlen)
{
	size_t i;
	for (i = 0; i < patlen; i++) {
		char c = pattern[i];
		if (c == '*' || c == '?' || c == '[' || c == '\\')
			break;
	}
	return i;
}
