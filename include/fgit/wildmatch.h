/*
 * fgit_wildmatch — git's glob matcher (gitignore(5), gitglossary(7) "pathspec").
 *
 * Pattern syntax:
 *   ?        any one character (not '/' with FGIT_WM_PATHNAME)
 *   *        any run of characters (not crossing '/' with FGIT_WM_PATHNAME)
 *   **       with FGIT_WM_PATHNAME, when it is a whole path component
 *            ("**" + "/" at the start, "/" + "**" + "/", or "/" + "**" at
 *            the end) it matches across slashes, and a leading or middle
 *            "**" + "/" may match zero directories; anywhere else it is '*'
 *   [...]    a set: ranges a-z, negation [!...] or [^...], a ']' right after
 *            '[' (or after the negation) is literal, backslash escapes a
 *            character, POSIX classes [:alpha:] [:digit:] etc.; a set never
 *            matches '/' with FGIT_WM_PATHNAME
 *   \c       the character c literally
 * A malformed pattern (unterminated set, unknown [:class:]) matches nothing.
 *
 * FGIT_WM_CASEFOLD folds ASCII case in both pattern and text.
 *
 * Pure functions on caller-owned memory: thread-safe.
 */
#ifndef FGIT_WILDMATCH_H
#define FGIT_WILDMATCH_H

#include <stddef.h>

enum fgit_wildmatch_flags {
	FGIT_WM_CASEFOLD = 1 << 0,
	FGIT_WM_PATHNAME = 1 << 1,
};

/* 1 if the NUL-terminated `text` matches `pattern`, else 0. */
int fgit_wildmatch(const char *pattern, const char *text, unsigned flags);

/*
 * The same on counted strings (neither needs a NUL terminator; a NUL byte
 * inside is an ordinary character).
 */
int fgit_wildmatch_mem(const char *pattern, size_t patlen,
		       const char *text, size_t textlen, unsigned flags);

/*
 * Length of the leading part of `pattern` (of `patlen` bytes) that holds no
 * glob special character (*, ?, [ or backslash): the part that can be
 * compared with memcmp before any wildcard matching.
 */
size_t fgit_wildmatch_literal_prefix(const char *pattern, size_t patlen);

#endif
