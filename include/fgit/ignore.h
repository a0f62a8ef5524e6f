/*
 * fgit_ignore — gitignore rules (gitignore(5)) with git's precedence.
 *
 * Sources, highest precedence first:
 *   1. patterns given on the command line (ls-files --exclude);
 *   2. per-directory files (".gitignore"), the deepest directory first;
 *   3. exclude files added with fgit_ignore_add_buffer/_add_file, the one
 *      added last first: add core.excludesFile, then .git/info/exclude.
 * Inside one source the last matching line wins; the first source with a
 * matching line decides, and a "!" line there means "not ignored".
 *
 * The rules are used during a directory walk through a stack: push a
 * directory when entering it (its per-directory file is read then, through
 * the read_file callback or from `workdir`), look up its entries by name and
 * type, pop when leaving.  A directory that is itself ignored when pushed
 * keeps its per-directory file unread, and everything below it reports the
 * pattern that ignored the directory: a file cannot be re-included when a
 * parent directory is excluded.
 *
 * Patterns are compiled once when read: literal names, "*suffix" and
 * "prefix*" basenames, and anchored literal paths are compared directly;
 * only the rest reach wildmatch.  Each list is indexed at its first
 * lookup (literal names and paths hashed, suffixes and literal-led
 * patterns bucketed by a byte), so a lookup probes a few places instead
 * of trying every line: about 0.2 us per path against 200 patterns
 * (bench/micro/worktree-match.c).
 *
 * Paths are relative to the top of the work tree, '/'-separated, without a
 * trailing slash ("" is the top).  The library does not discover
 * repositories or read config: the caller passes file names and contents.
 *
 * Not thread-safe: one struct fgit_ignore per walking thread.
 * NEEDSWORK: share the compiled lists between threads for parallel walks.
 */
#ifndef FGIT_IGNORE_H
#define FGIT_IGNORE_H

#include <stddef.h>
#include "fgit/buf.h"

struct fgit_ignore;
struct fgit_ignore_pattern;

enum fgit_ignore_flags {
	/* core.ignorecase: compare ASCII case-insensitively */
	FGIT_IGNORE_ICASE = 1 << 0,
};

/* Type of the path looked up (a struct dirent's d_type, translated). */
enum fgit_ignore_dtype {
	FGIT_IGNORE_DT_UNKNOWN = 0,
	FGIT_IGNORE_DT_FILE = 1,	/* anything that is not a directory */
	FGIT_IGNORE_DT_DIR = 2,
};

struct fgit_ignore_options {
	unsigned version;		/* FGIT_IGNORE_OPTIONS_VERSION */
	unsigned flags;			/* enum fgit_ignore_flags */
	/* name of per-directory files, NULL for none (ls-files without
	 * --exclude-per-directory) */
	const char *per_dir_name;
	/*
	 * Read the per-directory file `path` (relative to the top) into
	 * `out`; return 0, FGIT_ENOTFOUND when there is none, or another
	 * negative code to fail the push.  When NULL, files are read from
	 * `workdir` + "/" + path (a missing file is no error, an unreadable
	 * one fails the push).  Git warns about an unreadable file and goes
	 * on: a callback that prints and returns FGIT_ENOTFOUND does that.
	 */
	int (*read_file)(struct fgit_buf *out, const char *path, void *payload);
	/*
	 * Resolve the type of `path` when a lookup was given
	 * FGIT_IGNORE_DT_UNKNOWN and a directory-only pattern needs to know
	 * (git uses the index, then lstat).  NULL: unknown is "not a dir".
	 */
	enum fgit_ignore_dtype (*resolve_dtype)(const char *path, void *payload);
	void *payload;
	const char *workdir;		/* may be NULL; copied */
};

#define FGIT_IGNORE_OPTIONS_VERSION 1
#define FGIT_IGNORE_OPTIONS_INIT \
	{ FGIT_IGNORE_OPTIONS_VERSION, 0, ".gitignore", NULL, NULL, NULL, NULL }

/*
 * Create an empty rule set with an empty directory stack.  `opts` may be
 * NULL for the defaults.  *out is owned by the caller (fgit_ignore_free).
 */
int fgit_ignore_new(struct fgit_ignore **out,
		    const struct fgit_ignore_options *opts);
void fgit_ignore_free(struct fgit_ignore *ig);

/*
 * Add one command-line pattern (highest precedence; later ones win).
 * `src` names it in fgit_ignore_pattern_source() (git uses "--exclude
 * option"); copied.
 */
int fgit_ignore_add_pattern(struct fgit_ignore *ig, const char *pattern,
			    const char *src);

/*
 * Add the lines of an exclude file as one list below the per-directory
 * files; a list added later takes precedence over earlier ones.  `src` is
 * the name check-ignore -v prints (e.g. ".git/info/exclude"); copied.
 */
int fgit_ignore_add_buffer(struct fgit_ignore *ig, const char *buf,
			   size_t len, const char *src);

/*
 * The same, reading the file at `path` (a filesystem path).  A missing
 * file is not an error (returns 0, as git does for core.excludesFile).
 */
int fgit_ignore_add_file(struct fgit_ignore *ig, const char *path,
			 const char *src);

/*
 * Enter directory `dir` (len bytes, no trailing slash; "" for the top,
 * which must be pushed first).  `dir` must be a direct child of the
 * directory on top of the stack.  Reads its per-directory file unless the
 * directory is itself excluded.  Returns 0 or a negative error.
 */
int fgit_ignore_push_dir(struct fgit_ignore *ig, const char *dir, size_t len);

enum fgit_ignore_push_flags {
	/* The caller knows the directory has no per-directory file (it just
	 * read the directory): do not try to open one. */
	FGIT_IGNORE_PUSH_NO_FILE = 1 << 0,
};
/* fgit_ignore_push_dir with enum fgit_ignore_push_flags. */
int fgit_ignore_push_dir_ex(struct fgit_ignore *ig, const char *dir, size_t len,
			    unsigned flags);
/* The per-directory file name (".gitignore"), or NULL (borrowed). */
const char *fgit_ignore_per_dir_name(const struct fgit_ignore *ig);

/* Leave the directory on top of the stack. */
void fgit_ignore_pop_dir(struct fgit_ignore *ig);

/* Depth of the stack (0: nothing pushed, 1: the top only). */
size_t fgit_ignore_depth(const struct fgit_ignore *ig);

/*
 * Look up `path` (len bytes), an entry of the directory on top of the
 * stack.  Returns 1 if it is ignored, 0 if not.  When `out` is not NULL it
 * receives the deciding pattern or NULL (a "!" pattern that re-included the
 * path is returned with 0).  The pattern is borrowed from `ig` and lives
 * until fgit_ignore_free (popping never frees patterns that were returned).
 */
int fgit_ignore_lookup(const struct fgit_ignore_pattern **out,
		       struct fgit_ignore *ig, const char *path, size_t len,
		       enum fgit_ignore_dtype dtype);

/*
 * For single paths in any order (check-ignore): moves the stack to the
 * parent directory of `path` (popping and pushing as needed, so sorted
 * input reuses most of it), then looks it up.  Same results as above;
 * negative on error (a per-directory file that could not be read).
 */
int fgit_ignore_check_path(const struct fgit_ignore_pattern **out,
			   struct fgit_ignore *ig, const char *path,
			   enum fgit_ignore_dtype dtype);

/* The pattern as check-ignore -v prints it ("!" and trailing "/" kept). */
const char *fgit_ignore_pattern_text(const struct fgit_ignore_pattern *p);
/* Its source (per-directory file path relative to the top, or the name
 * given when adding it). */
const char *fgit_ignore_pattern_source(const struct fgit_ignore_pattern *p);
/* Its line number in the source (1-based; command-line patterns count
 * up from 1 in the order added). */
unsigned fgit_ignore_pattern_lineno(const struct fgit_ignore_pattern *p);
/* 1 if it is a "!" pattern. */
int fgit_ignore_pattern_negated(const struct fgit_ignore_pattern *p);

#endif
