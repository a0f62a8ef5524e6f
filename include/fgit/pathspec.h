/*
 * fgit_pathspec — git's pathspecs (gitglossary(7) "pathspec"): parse the
 * magic, make each element relative to the top, compile once, match paths.
 *
 * Magic, long form ":(word,...)rest" or short form ":" + "/!^" + ":"?:
 *   top ("/")       the pattern is from the top, taken as written
 *   exclude ("!", "^")  remove what it matches from the positive matches
 *   icase           ASCII case-insensitive (the prefix part stays exact)
 *   literal         no wildcards
 *   glob            wildmatch with FGIT_WM_PATHNAME ("*" stops at '/')
 *   attr:...        refused with FGIT_ENOTSUPP (not implemented yet)
 * Without glob, "*" and "?" match '/' too.  An element names a path, a
 * directory with everything below it, or a wildcard pattern.
 *
 * Speed (seed 002: git grep 25x slower with thousands of literal paths):
 * positive, case-sensitive elements without wildcards go into a hash table
 * keyed by path; a path is matched by hashing itself and each of its
 * leading directories in one pass over it, so the cost does not grow with
 * the number of literal elements.  Only wildcard, icase and exclude
 * elements are tried one by one.
 *
 * A compiled pathspec is immutable: matching is thread-safe.
 */
#ifndef FGIT_PATHSPEC_H
#define FGIT_PATHSPEC_H

#include <stddef.h>

struct fgit_pathspec;

enum fgit_pathspec_flags {
	/* GIT_LITERAL_PATHSPECS / --literal-pathspecs: no magic, no wildcards */
	FGIT_PATHSPEC_LITERAL_ALL = 1 << 0,
	/* GIT_GLOB_PATHSPECS / --glob-pathspecs: glob unless :(literal) */
	FGIT_PATHSPEC_GLOB_ALL = 1 << 1,
	/* GIT_NOGLOB_PATHSPECS / --noglob-pathspecs: literal unless :(glob) */
	FGIT_PATHSPEC_NOGLOB_ALL = 1 << 2,
	/* GIT_ICASE_PATHSPECS / --icase-pathspecs */
	FGIT_PATHSPEC_ICASE_ALL = 1 << 3,
	/*
	 * When every element is an exclusion, the implicit positive element
	 * is the prefix (ls-files, grep) rather than the whole tree.
	 */
	FGIT_PATHSPEC_PREFER_CWD = 1 << 4,
};

enum fgit_pathspec_magic {
	FGIT_PATHSPEC_TOP = 1 << 0,
	FGIT_PATHSPEC_EXCLUDE = 1 << 1,
	FGIT_PATHSPEC_ICASE = 1 << 2,
	FGIT_PATHSPEC_LITERAL = 1 << 3,
	FGIT_PATHSPEC_GLOB = 1 << 4,
};

/*
 * Parse and compile `nargs` elements.  `prefix` is the current directory
 * relative to the top ("" or NULL at the top; with or without a trailing
 * slash).  `worktree` (may be NULL) is the absolute path of the top, used
 * for absolute elements and in the "outside repository" message.
 * Zero elements match every path.
 *
 * Errors (message as git words it, without "fatal: "): FGIT_EINVALID for
 * an empty element, unknown or unimplemented magic, a missing ')',
 * 'literal' with 'glob', a path outside the repository; FGIT_ENOTSUPP for
 * :(attr:...).  *out is owned by the caller (fgit_pathspec_free).
 */
int fgit_pathspec_new(struct fgit_pathspec **out, const char *prefix,
		      const char *const *args, size_t nargs, unsigned flags,
		      const char *worktree);
void fgit_pathspec_free(struct fgit_pathspec *ps);

struct fgit_buf;
/*
 * git's prefix_path(): prefix ("" or "d/", may be NULL) + path with "",
 * "." and ".." components resolved, into out (reset first).  An absolute
 * path must lie inside `worktree` and drops the prefix.  A trailing slash
 * is kept when path ends in '/', '.' or '..' (and the result is not
 * empty).  FGIT_EINVALID "'<path>' is outside repository at '<worktree>'"
 * for a path that leaves the top.
 */
int fgit_path_normalize(struct fgit_buf *out, const char *prefix, const char *path,
			const char *worktree);

/* Number of elements, including an implicit one added for exclusions. */
size_t fgit_pathspec_count(const struct fgit_pathspec *ps);
/* Element i as given (borrowed; "" for the implicit one). */
const char *fgit_pathspec_item_original(const struct fgit_pathspec *ps,
					size_t i);
/* Element i's pattern relative to the top (borrowed). */
const char *fgit_pathspec_item_match(const struct fgit_pathspec *ps, size_t i);
/* Element i's enum fgit_pathspec_magic bits. */
unsigned fgit_pathspec_item_magic(const struct fgit_pathspec *ps, size_t i);

enum fgit_pathspec_match_flags {
	/* the path is a directory: "dir/" matches "dir" itself */
	FGIT_PATHSPEC_MATCH_DIR = 1 << 0,
};

/*
 * Does `path` (len bytes, relative to the top, no trailing slash) match:
 * some positive element and no exclude element?  Returns 1 or 0.
 * `seen`, if not NULL, has fgit_pathspec_count() bytes; those of the
 * positive elements that match the path are set to 1 (for
 * --error-unmatch), which makes the call try every element.
 */
int fgit_pathspec_match(const struct fgit_pathspec *ps, const char *path,
			size_t len, unsigned flags, unsigned char *seen);

/*
 * Could any path below directory `dir` (len bytes, no trailing slash; ""
 * is the top) match?  0 only when none can, so a walk may prune it.
 */
int fgit_pathspec_could_match_under(const struct fgit_pathspec *ps,
				    const char *dir, size_t len);

#endif
