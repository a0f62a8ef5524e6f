/*
 * Paths as git prints them: C-style quoting when needed (core.quotePath),
 * and paths relative to the current directory's prefix.
 */
#ifndef FGIT_QUOTE_H
#define FGIT_QUOTE_H

#include <stddef.h>

struct fgit_buf;

/*
 * Append s[0..n) to out, in double quotes with C escapes (\t, \n, \",
 * \\, \ooo) when it holds a control character, '"', '\\', DEL, or (with
 * quote_high, git's core.quotePath=true default) a byte >= 0x80; as it is
 * otherwise.  Returns 0 or FGIT_ENOMEM.
 */
int fgit_quote_c_style(struct fgit_buf *out, const char *s, size_t n, int quote_high);

/* Does s[0..n) need quoting under the rule above? */
int fgit_quote_needed(const char *s, size_t n, int quote_high);

/*
 * Undo fgit_quote_c_style: in starts with '"'; the unquoted bytes are
 * appended to out and *end_out points after the closing quote.
 * FGIT_EINVALID for a bad escape or a missing closing quote (no message).
 */
int fgit_unquote_c_style(struct fgit_buf *out, const char *in, const char **end_out);

/*
 * Append `path` (relative to the top of the worktree) as seen from the
 * directory `prefix` ("" or "dir/sub/"): "x", "../y/x", "./" for the
 * prefix itself.  Returns 0 or FGIT_ENOMEM.
 */
int fgit_relative_path(struct fgit_buf *out, const char *path, const char *prefix);

#endif
