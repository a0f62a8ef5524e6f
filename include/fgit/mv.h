/*
 * git mv's decisions and moves: sources (files or directories of tracked
 * files) checked one by one as git checks them, with git's reasons for a
 * refusal ("bad source", "not under version control", "destination
 * exists", ...); then each source renamed in the work tree and its index
 * entries renamed.  Writing the index is the caller's (index.lock).
 * Sparse checkouts and submodules are not handled (FGIT_ENOTSUPP).
 */
#ifndef FGIT_MV_H
#define FGIT_MV_H

#include <stddef.h>

struct fgit_repo;
struct fgit_index;

enum fgit_mv_flags {
	FGIT_MV_FORCE = 1 << 0,		/* -f: overwrite a destination file */
	FGIT_MV_SKIP_ERRORS = 1 << 1,	/* -k: drop a bad source and go on */
	FGIT_MV_VERBOSE = 1 << 2,	/* -v */
	FGIT_MV_DRY_RUN = 1 << 3,	/* -n */
};

struct fgit_mv_item {
	char *src, *dst;	/* relative to the top */
	int is_dir;		/* a directory: renamed once, entries follow */
	int index_only;		/* moved with its directory: index entry only */
};

struct fgit_mv_plan {
	struct fgit_mv_item *items;
	size_t nr, alloc;
};

/* What the CLI prints while checking (-n: "Checking rename of ..."),
 * and warnings ("overwriting '<dst>'" with -f -v). */
struct fgit_mv_report {
	void (*checking)(const char *src, const char *dst, void *payload);
	void (*overwriting)(const char *dst, void *payload);
	void *payload;
};

/*
 * Check moving srcs[0..n) (top-relative, trailing slashes removed) to
 * dst (top-relative, trailing slash kept; "" for the top) as git does,
 * filling *out with every move (a directory's tracked files after it).
 * A refusal fails with FGIT_EINVALID and git's message
 * ("<reason>, source=<src>, destination=<dst>"), unless
 * FGIT_MV_SKIP_ERRORS drops that source; "destination '<d>' is not a
 * directory" for several sources and a non-directory destination.
 * Release *out with fgit_mv_plan_release() (also after a failure).
 */
int fgit_mv_plan(struct fgit_mv_plan *out, struct fgit_repo *repo, struct fgit_index *idx,
		 const char *const *srcs, size_t n, const char *dst, unsigned int flags,
		 const struct fgit_mv_report *report);
void fgit_mv_plan_release(struct fgit_mv_plan *plan);

/*
 * Do the moves of a plan: rename(2) in the work tree (not for index-only
 * items), then rename the index entries.  renamed(src, dst) is called
 * before each (for "Renaming <src> to <dst>").  "renaming '<src>' failed:
 * <strerror>" on a failed rename, unless FGIT_MV_SKIP_ERRORS.
 */
int fgit_mv_apply(struct fgit_repo *repo, struct fgit_index *idx,
		  const struct fgit_mv_plan *plan, unsigned int flags,
		  void (*renamed)(const char *src, const char *dst, void *payload), void *payload);

#endif
