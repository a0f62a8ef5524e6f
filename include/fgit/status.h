/*
 * fgit_status — what `git status` reports: the staged changes (HEAD tree
 * against the index, with rename detection), the unstaged ones (the index
 * against the work tree) and the untracked and ignored paths.
 *
 * One lstat per index entry, spread over threads for big indexes; entries
 * whose stat data is stale but whose content matches are refreshed in the
 * index (the caller writes it back, as git status does).  The HEAD
 * comparison skips every directory whose cache-tree node is valid and
 * equal to HEAD's subtree, so a clean tree costs no tree reads at all.
 *
 * Not thread-safe on one index; uses threads of its own.
 */
#ifndef FGIT_STATUS_H
#define FGIT_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

struct fgit_index;
struct fgit_odb;
struct fgit_ignore;
struct fgit_pathspec;
struct fgit_wt_stat_options;
struct fgit_untr;

enum fgit_status_untracked_mode {
	FGIT_STATUS_UNTRACKED_NO = 0,
	FGIT_STATUS_UNTRACKED_NORMAL = 1,	/* wholly untracked dirs as "dir/" */
	FGIT_STATUS_UNTRACKED_ALL = 2,
};

enum fgit_status_ignored_mode {
	FGIT_STATUS_IGNORED_NO = 0,
	FGIT_STATUS_IGNORED_TRADITIONAL = 1,
	FGIT_STATUS_IGNORED_MATCHING = 2,
};

struct fgit_status_options {
	unsigned version;			/* FGIT_STATUS_OPTIONS_VERSION */
	/* Refreshed in place (stat data of clean entries); the caller writes it. */
	struct fgit_index *index;
	const struct fgit_oid *head_tree;	/* NULL: no commit yet */
	struct fgit_odb *odb;
	const char *workdir;			/* top of the work tree; "" or NULL: cwd */
	const struct fgit_pathspec *pathspec;	/* NULL: everything */
	struct fgit_ignore *ignore;		/* empty stack; NULL: nothing ignored */
	int untracked;				/* enum fgit_status_untracked_mode */
	int ignored;				/* enum fgit_status_ignored_mode */
	int renames;				/* detect renames among staged changes */
	int rename_limit;			/* as fgit_rename_opts.limit */
	const struct fgit_wt_stat_options *stat;
	int threads;				/* lstat threads; 0: choose */
	int rename_score;			/* minimum, 0: git's default (50%) */
	/*
	 * For each populated submodule (path relative to the top): add
	 * FGIT_STATUS_SUB_MODIFIED / _UNTRACKED to *flags as its own status
	 * says.  Called from the calling thread.  NULL: not looked at.
	 */
	int (*submodule_cb)(unsigned *flags, const char *path, void *payload);
	void *submodule_payload;
	/* The index's untracked cache, checked by the caller (see
	 * fgit_dirwalk_options.untracked_cache); NULL: walk everything. */
	struct fgit_untr *untracked_cache;
};
#define FGIT_STATUS_OPTIONS_VERSION 1
#define FGIT_STATUS_OPTIONS_INIT { FGIT_STATUS_OPTIONS_VERSION, NULL, NULL, NULL, NULL, \
	NULL, NULL, FGIT_STATUS_UNTRACKED_NORMAL, 0, 1, 1000, NULL, 0, 0, NULL, NULL, NULL }

enum fgit_status_sub_flags {
	FGIT_STATUS_SUB = 1 << 0,		/* a submodule (gitlink) */
	FGIT_STATUS_SUB_COMMIT = 1 << 1,	/* its HEAD is not the recorded commit */
	FGIT_STATUS_SUB_MODIFIED = 1 << 2,	/* tracked changes inside */
	FGIT_STATUS_SUB_UNTRACKED = 1 << 3,	/* untracked files inside */
};

/*
 * One changed path.  x: the staged status (0 none, 'A', 'D', 'M', 'T',
 * 'R'; 'U' unmerged), y: the unstaged one (0, 'A' intent-to-add, 'D',
 * 'M', 'T').  Unmerged paths have x == 'U' and stagemask bits 1 << (s-1)
 * for the stages s present.
 */
struct fgit_status_item {
	char *path;
	char *orig_path;		/* rename source, or NULL */
	char x, y;
	int score;			/* rename score, 0..FGIT_RENAME_MAX_SCORE */
	unsigned stagemask;
	unsigned sub;			/* enum fgit_status_sub_flags */
	uint32_t mode_head, mode_index, mode_wt;
	struct fgit_oid oid_head, oid_index;
	uint32_t stage_mode[3];
	struct fgit_oid stage_oid[3];
};

struct fgit_status {
	struct fgit_status_item *items;	/* sorted by path */
	size_t nr;
	char **untracked;		/* sorted; directories end in '/' */
	size_t nr_untracked;
	char **ignored;
	size_t nr_ignored;
	size_t refreshed;		/* entries whose stat data was refreshed */
	int rename_limit_needed;	/* matrix skipped; this limit would do */
	int has_racy;			/* some entry is racily clean */
	/* How long the untracked and ignored walk took, in whole
	 * milliseconds of the monotonic clock (0 when there was none): git's
	 * untracked_in_ms, behind its advice to try "status -uno". */
	uint64_t untracked_ms;
};

/*
 * Collect the status.  *out is the caller's (fgit_status_free).  Returns 0
 * or a negative error (a corrupt tree, FGIT_ENOMEM).
 */
int fgit_status_collect(struct fgit_status **out, const struct fgit_status_options *opts);
void fgit_status_free(struct fgit_status *st);

/*
 * Submodule HEAD at `dir` (its .git directory or gitfile): 0 and *out, or
 * FGIT_ENOTFOUND when it is not a populated repository.
 */
int fgit_status_submodule_head(struct fgit_oid *out, const char *dir, int algo);

#endif
