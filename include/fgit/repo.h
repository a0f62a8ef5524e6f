/*
 * The repository handle: discovery (walking up from a directory, a `.git`
 * file pointing elsewhere, GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES,
 * bare repositories), its configuration, object database and refs, opened
 * lazily.  A handle may be shared by threads for reading once opened.
 */
#ifndef FGIT_REPO_H
#define FGIT_REPO_H

#include "oid.h"

struct fgit_repo;
struct fgit_odb;
struct fgit_config;

enum fgit_repo_discover_flags {
	FGIT_REPO_NO_SEARCH = 1 << 0,	/* start_dir itself must be the repository */
	FGIT_REPO_NO_ENV = 1 << 1,	/* ignore GIT_DIR etc. */
};

/*
 * Find the repository containing start_dir (NULL: the current directory),
 * as git's setup does.  FGIT_ENOTFOUND (message in git's words: "not a git
 * repository (or any of the parent directories): .git") when there is none.
 */
int fgit_repo_discover(struct fgit_repo **out, const char *start_dir, unsigned int flags);
void fgit_repo_free(struct fgit_repo *repo);

/* Absolute paths, borrowed from the handle. */
const char *fgit_repo_git_dir(const struct fgit_repo *repo);
const char *fgit_repo_common_dir(const struct fgit_repo *repo);
/* NULL for a bare repository. */
const char *fgit_repo_work_tree(const struct fgit_repo *repo);
/* The start directory relative to the worktree top: "" or "sub/dir/". */
const char *fgit_repo_prefix(const struct fgit_repo *repo);
int fgit_repo_is_bare(const struct fgit_repo *repo);
int fgit_repo_algo(const struct fgit_repo *repo);

/* Borrowed; loaded at discovery. */
struct fgit_config *fgit_repo_config(struct fgit_repo *repo);
/* Borrowed; opened on first use with options from the config. */
int fgit_repo_odb(struct fgit_odb **out, struct fgit_repo *repo);

/*
 * Resolve a revision as `git rev-parse --verify` does: names, full and
 * abbreviated ids, ~N, ^N, ^{type}, ^{}, <rev>:<path>, @.
 */
int fgit_revparse_single(struct fgit_oid *out, struct fgit_repo *repo, const char *spec);

#endif
