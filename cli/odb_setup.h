/*
 * The object commands' (cat-file, hash-object, count-objects) way to the
 * repository: thin wrappers over cli_repo() and the library, so the three
 * commands say the same things when something is missing.
 */
#ifndef FGIT_CLI_ODB_SETUP_H
#define FGIT_CLI_ODB_SETUP_H

#include "fgit/odb.h"

/* The git dir, or NULL when not in a repository (quiet) and !required. */
const char *cli_git_dir(int required);
/* The repository's object database (dies like git when there is none). */
struct fgit_odb *cli_odb(void);
/*
 * Resolve a revision (fgit_revparse_single): 0, FGIT_ENOTFOUND,
 * FGIT_EAMBIGUOUS, or FGIT_EINVALID with git's message (a missing path,
 * a peel to the wrong type).  Quiet: callers print git's message.
 */
int cli_resolve(struct fgit_oid *out, struct fgit_odb *odb, const char *spec);

#endif
