/* Private to lib/grep: fast search and the function-name drivers. */
#ifndef FGIT_GREP_INTERNAL_H
#define FGIT_GREP_INTERNAL_H

#include <stddef.h>
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
