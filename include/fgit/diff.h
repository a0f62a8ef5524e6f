/*
 * Line diffs (Myers' O(ND) algorithm, git's default) and the numbers a
 * diffstat needs.  Pure functions over caller-owned buffers; thread-safe.
 */
#ifndef FGIT_DIFF_H
#define FGIT_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

/* One hunk of a line diff: lines [old_start, old_start+old_count) of the
 * old text became [new_start, new_start+new_count) of the new (0-based). */
struct fgit_diff_hunk {
	size_t old_start, old_count;
	size_t new_start, new_count;
};

/*
 * Diff two texts line by line (a final line without newline is a line) and
 * call cb for each changed region in order; cb returning non-zero stops the
 * walk and that value is returned.  Returns 0 or a negative error
 * (FGIT_ENOMEM).
 */
int fgit_diff_lines(const char *a, size_t alen, const char *b, size_t blen,
		    int (*cb)(const struct fgit_diff_hunk *h, void *payload),
		    void *payload);

/* Lines added and deleted between the two texts (what a diffstat shows). */
int fgit_diff_count(const char *a, size_t alen, const char *b, size_t blen,
		    size_t *added, size_t *deleted);

/* git's binary heuristic: a NUL byte in the first 8000 bytes. */
int fgit_buffer_is_binary(const char *buf, size_t len);


/* ---- diffstat and summary lines, as `git commit` and `diff --stat` print ---- */

struct fgit_buf;

/* " N file(s) changed, N insertion(s)(+), N deletion(s)(-)\n" */
int fgit_diffstat_summary(struct fgit_buf *out, size_t files, size_t insertions,
			  size_t deletions);

/*
 * A rename shown the way git abbreviates it: the common leading directories
 * and trailing components outside braces, "a/{b => c}/d"; "x => y" when
 * nothing is shared.
 */
int fgit_diff_rename_name(struct fgit_buf *out, const char *from, const char *to);


/* ---- tree diffs ---- */

struct fgit_odb;

enum fgit_diff_status {
	FGIT_DIFF_ADDED = 'A',
	FGIT_DIFF_DELETED = 'D',
	FGIT_DIFF_MODIFIED = 'M',
	FGIT_DIFF_TYPECHANGE = 'T',
};

struct fgit_tree_change {
	enum fgit_diff_status status;
	const char *path;		/* full path, borrowed for the callback */
	size_t path_len;
	unsigned int old_mode, new_mode; /* 0 on the absent side */
	struct fgit_oid old_oid, new_oid; /* zero on the absent side */
};

enum fgit_diff_tree_flags {
	FGIT_DIFF_TREE_RECURSIVE = 1 << 0,	/* descend into changed subtrees (-r) */
	FGIT_DIFF_TREE_SHOW_TREES = 1 << 1,	/* with RECURSIVE: report trees too (-t) */
};

/*
 * Compare two trees (either may be NULL: the empty tree) in git's order,
 * calling cb for each change; identical subtrees are skipped by id without
 * being read.  A mode change between file and symlink is a typechange; a
 * file replaced by a directory (or the reverse) is a deletion and an
 * addition.  `prefix` (may be NULL) is prepended to every path.
 */
int fgit_diff_trees(struct fgit_odb *odb, const struct fgit_oid *old_tree,
		    const struct fgit_oid *new_tree, const char *prefix,
		    unsigned int flags,
		    int (*cb)(const struct fgit_tree_change *c, void *payload),
		    void *payload);

/* ---- rename detection (lib/diff/rename.c) ---- */

/* Scores run from 0 to this (git's MAX_SCORE); percent = score * 100 / it. */
#define FGIT_RENAME_MAX_SCORE 60000

/* A side of a rename: a deleted (source) or added (destination) path. */
struct fgit_rename_file {
	const char *path;		/* borrowed */
	uint32_t mode;
	struct fgit_oid oid;		/* a blob in the object database */
};

struct fgit_rename_opts {
	/* Minimum similarity, 0 for git's default (50%, 30000). */
	int min_score;
	/*
	 * diff.renameLimit / status.renameLimit: inexact detection is skipped
	 * when remaining sources x destinations > limit^2; <= 0 is no limit.
	 * git's default is 1000.
	 */
	int limit;
};
#define FGIT_RENAME_OPTS_INIT { 0, 1000 }

/* Per destination: the source paired with it (-1: none) and the score. */
struct fgit_rename_result {
	int src;
	int score;
};

/*
 * Find renames among nsrc deleted and ndst added paths, as git's
 * diffcore-rename does without copies: exact ids first, then unique
 * basenames, then the similarity matrix (limits as above).  res has ndst
 * slots.  *too_many (may be NULL) is set to the limit that would have been
 * needed when the matrix was skipped, else 0.  Blobs that cannot be read
 * score 0.  Returns 0 or FGIT_ENOMEM.  Thread-safe for distinct inputs.
 */
int fgit_diff_renames(struct fgit_rename_result *res, int *too_many,
		      const struct fgit_rename_file *src, size_t nsrc,
		      const struct fgit_rename_file *dst, size_t ndst,
		      struct fgit_odb *odb, const struct fgit_rename_opts *opts);


/*
 * What `git commit` prints under its "[branch id] subject" line: the
 * --shortstat line and the --summary lines ("create mode", "delete mode",
 * "mode change", "rename a => b (100%)") of the change from old_tree (NULL:
 * the empty tree, a root commit) to new_tree, appended to out.  Nothing
 * when the trees are equal.  With `renames` non-NULL, deletions and
 * additions are paired as fgit_diff_renames() does (exact, then by
 * similarity, within its limit) and shown as "rename a => b (NN%)".
 */
int fgit_diff_commit_summary(struct fgit_buf *out, struct fgit_odb *odb,
			     const struct fgit_oid *old_tree, const struct fgit_oid *new_tree,
			     const struct fgit_rename_opts *renames);

#endif
