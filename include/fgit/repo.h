/*
 * The repository handle: discovery (walking up from a directory, a `.git`
 * file pointing elsewhere, GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES,
 * bare repositories), its configuration, object database and refs, opened
 * lazily.  A handle may be shared by threads for reading once opened.
 */
#ifndef FGIT_REPO_H
#define FGIT_REPO_H

#include "oid.h"
#include "config.h"

struct fgit_repo;
struct fgit_odb;
struct fgit_config;

enum fgit_repo_discover_flags {
	FGIT_REPO_NO_SEARCH = 1 << 0,	/* start_dir itself must be the repository */
	FGIT_REPO_NO_ENV = 1 << 1,	/* ignore GIT_DIR etc. */
	FGIT_REPO_BARE = 1 << 2,	/* git --bare: no worktree, whatever the config */
};

/*
 * Find the repository containing start_dir (NULL: the current directory),
 * as git's setup does: $GIT_DIR (a directory or a gitfile) with
 * $GIT_WORK_TREE or core.worktree or the start directory as worktree
 * (none under core.bare); otherwise walking up from start_dir, checking
 * "<dir>/.git" (directory or "gitdir: <path>" file) and then <dir> itself
 * (bare), stopping below the $GIT_CEILING_DIRECTORIES.  The configuration
 * is loaded (fgit_config_load) and the repository format checked
 * (core.repositoryformatversion <= 1, known extensions,
 * extensions.objectFormat).
 *
 * FGIT_ENOTFOUND when there is none, with git's message ("not a git
 * repository (or any of the parent directories): .git", "not a git
 * repository: '<GIT_DIR>'"); FGIT_EINVALID for a bad gitfile, a bad config
 * file ("bad config line N in file F") or an unsupported format ("Expected
 * git repo version <= 1, found N").  *out is owned by the caller.
 * Discovery itself is not thread-safe (it reads the environment and cwd).
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
/* git's is_bare_repository(): no worktree and core.bare not false. */
int fgit_repo_is_bare(const struct fgit_repo *repo);
/* Whether the start directory is inside the worktree. */
int fgit_repo_inside_work_tree(const struct fgit_repo *repo);
/* Whether the start directory is inside the git directory. */
int fgit_repo_inside_git_dir(const struct fgit_repo *repo);
/*
 * The git and common directories as `git rev-parse --git-dir` and
 * `--git-common-dir` print them from the start directory (".git", ".",
 * "../../.git", $GIT_DIR as given, or absolute, by git's rules).
 */
const char *fgit_repo_git_dir_display(const struct fgit_repo *repo);
const char *fgit_repo_common_dir_display(const struct fgit_repo *repo);
int fgit_repo_algo(const struct fgit_repo *repo);

/*
 * The abbreviation length git uses by default: core.abbrev, or for "auto"
 * (the default) one growing with the number of packed objects as git's
 * approximation does (7 up to 16383 objects, 8 up to 2^17-1, ...).
 * NEEDSWORK: objects in a multi-pack-index are not counted yet.
 */
int fgit_repo_default_abbrev(struct fgit_repo *repo);

/* Borrowed; loaded at discovery. */
struct fgit_config *fgit_repo_config(struct fgit_repo *repo);
/* Borrowed; opened on first use with options from the config.
 * Thread-safe. */
int fgit_repo_odb(struct fgit_odb **out, struct fgit_repo *repo);
struct fgit_refdb;
/* Borrowed; opened on first use.  Thread-safe. */
int fgit_repo_refdb(struct fgit_refdb **out, struct fgit_repo *repo);

/*
 * Resolve a revision as `git rev-parse --verify` does: full ids (not
 * checked for existence, as git), ref names by git's dwim rules (refs
 * before abbreviated ids), abbreviated ids of 4+ digits, "@" for HEAD,
 * <rev>~N, <rev>^N, <rev>^{type}, <rev>^{}, <rev>:<path> (a path starting
 * with "./" or "../" is relative to fgit_repo_prefix()).  Abbreviated ids
 * under ~, ^N, ^{commit} look at commits (and tags) only, under :<path>
 * at tree-ish objects, as git disambiguates.  :<path> and :<n>:<path> look
 * in the index ($GIT_INDEX_FILE or <git dir>/index).  Not yet: @{...},
 * ^{/regex}, :/regex (FGIT_ERROR, "not implemented").
 *
 * Errors: FGIT_ENOTFOUND (no such revision; no message needed),
 * FGIT_EAMBIGUOUS ("short object ID <hex> is ambiguous"), FGIT_EINVALID
 * with git's message for a peel to the wrong type ("<spec>: expected
 * blob type, but the object dereferences to tree type") or a missing path
 * ("path 'x' does not exist in 'HEAD'", FGIT_EINVALID with why
 * FGIT_REVPARSE_PATH_ERROR in fgit_revparse_ext's info).
 * Thread-safe once the repository is discovered.
 */
enum fgit_revparse_why {
	FGIT_REVPARSE_BAD = 1,		/* unknown revision */
	FGIT_REVPARSE_PEEL_ERROR = 2,	/* ^{type} did not reach that type */
	FGIT_REVPARSE_PATH_ERROR = 3,	/* <rev>:<path>, no such path */
};
int fgit_revparse_single(struct fgit_oid *out, struct fgit_repo *repo, const char *spec);

/* What fgit_revparse_ext found out besides the id; strings malloc'd. */
struct fgit_revparse_info {
	char *ref;		/* the ref spec names (after symrefs), if spec is just a ref name */
	char *ambiguous;	/* a name that matched several dwim rules (git warns
				 * "refname '<name>' is ambiguous.") */
	char *broken;		/* a broken ref met on the way ("ignoring broken ref") */
	int why;		/* on failure: enum fgit_revparse_why */
};
#define FGIT_REVPARSE_INFO_INIT { NULL, NULL, NULL, 0 }
void fgit_revparse_info_release(struct fgit_revparse_info *info);
/* fgit_revparse_single, filling *info (may be NULL) also on failure. */
int fgit_revparse_ext(struct fgit_oid *out, struct fgit_revparse_info *info,
		      struct fgit_repo *repo, const char *spec);

#endif
