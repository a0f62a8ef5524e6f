/* Private to lib/grep: fast search and the function-name drivers. */
#ifndef FGIT_GREP_INTERNAL_H
#define FGIT_GREP_INTERNAL_H

#include <stddef.h>
#include <string.h>
#include <regex.h>

struct fgit_config;

/*
 * ASCII case-insensitive substring search: the first occurrence of
 * needle (lower-cased already, nlen > 0) in hay, or NULL.  Scans for a
 * rare byte of the needle in both cases 16 bytes at a time (SSE2).
 */
const char *grep_memmem_icase(const char *hay, size_t hlen,
			      const char *needle_lower, size_t nlen);

/* The same, case-sensitive (needle as is). */
const char *grep_memmem(const char *hay, size_t hlen, const char *needle, size_t nlen);

/* Does a[0..n) equal lower[0..n) with a's ASCII letters lower-cased? */
static inline int grep_eq_icase(const char *a, const char *lower, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = a[i];
		if (c - 'A' < 26u)
			c += 'a' - 'A';
		if (c != (unsigned char)lower[i])
			return 0;
	}
	return 1;
}

/*
 * The vector part of the search with AVX2 (lib/grep/x86/search_avx2.c):
 * candidate starts pos, 32 at a time while pos + 32 <= last + 1, are
 * those where hay[pos + a] is anchor[0] or anchor[1] and hay[pos + b] is
 * anchor[2] or anchor[3]; each is compared in full.  Returns the first
 * match, or NULL with *next set to the first start not yet looked at.
 * Only call when grep_have_avx2().
 */
const char *grep_scan_avx2(const char *hay, size_t last, const char *needle,
			   size_t nlen, size_t a, size_t b,
			   const unsigned char anchor[4], int icase, size_t *next);
int grep_have_avx2(void);

/* A diff driver as grep uses it: binary flag and function-line regexes. */
struct grep_driver {
	char *name;
	int binary;		/* -1 auto, 0, 1 */
	char *funcname;		/* newline-separated regexes; NULL: none */
	int cflags;		/* regcomp flags for funcname */
	/* compiled lazily */
	int compiled;
	size_t nre;
	regex_t *re;
	unsigned char *negate;
};

/*
 * The driver named `name` (builtin, with diff.<name>.* from config
 * applied), or NULL when neither knows it.  Returned value is owned by
 * the caller (grep_driver_free).
 */
struct grep_driver *grep_driver_load(const char *name, const struct fgit_config *cfg);
void grep_driver_free(struct grep_driver *d);
/* Does line [bol, eol) start a function by d's patterns?  -1 on a bad
 * regex (message set: "Invalid regexp to look for hunk header: %s"). */
int grep_driver_match(struct grep_driver *d, const char *bol, const char *eol);

#endif
