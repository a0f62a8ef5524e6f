/*
 * Reading reflogs (logs/<refname> files: "<old> <new> <ident>\t<msg>"
 * lines, oldest first).  Read only; thread-safe (no shared state).
 * NEEDSWORK: the object walk's reader, by directory; the refs database
 * (refs.h: fgit_reflog_foreach, fgit_reflog_foreach_name) reads the same
 * files.  Fold this into it.
 */
#ifndef FGIT_REFLOG_DIR_H
#define FGIT_REFLOG_DIR_H

#include "oid.h"

/*
 * Call cb for every entry of every reflog, file by file, in directory
 * order (as git 2.39's unsorted reflog iterator); in a linked worktree
 * logs/HEAD of git_dir first, then the logs under common_dir/logs/refs.  refname is the log's
 * ref ("HEAD", "refs/heads/main").  Malformed lines are skipped, as git
 * does.  Stops when cb returns non-zero and returns that.
 */
typedef int (*fgit_reflog_dir_cb)(const char *refname, const struct fgit_oid *old_oid,
			      const struct fgit_oid *new_oid, void *payload);
int fgit_reflog_dir_foreach_all(const char *git_dir, const char *common_dir, int algo,
			    fgit_reflog_dir_cb cb, void *payload);

/* The entries of one reflog (logs/<refname> under dir); 0 if it has none. */
int fgit_reflog_dir_foreach(const char *dir, const char *refname, int algo,
			fgit_reflog_dir_cb cb, void *payload);

#endif
