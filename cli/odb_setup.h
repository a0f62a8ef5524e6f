/*
 * Temporary repository setup for the object commands (cat-file,
 * hash-object, count-objects) until the `repo` branch's fgit_repo_discover,
 * fgit_repo_odb and fgit_revparse_single are in main.
 *
 * NEEDSWORK: replace with fgit_repo_* after merging `repo`; this finds the
 * git dir (GIT_DIR, .git dir or gitfile, bare), reads no config, and
 * resolves only full or abbreviated ids, HEAD and ref names.
 */
#ifndef FGIT_CLI_ODB_SETUP_H
#define FGIT_CLI_ODB_SETUP_H

#include "fgit/odb.h"

/* The git dir, or NULL when not in a repository (quiet) and !required. */
const char *cli_git_dir(int required);
/* The repository's object database (dies like git when there is none). */
struct fgit_odb *cli_odb(void);
/*
 * Resolve an object name: FGIT_ENOTFOUND, FGIT_EAMBIGUOUS, or 0.
 * Quiet: callers print git's message.
 */
int cli_resolve(struct fgit_oid *out, struct fgit_odb *odb, const char *spec);

#endif
