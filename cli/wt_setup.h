/*
 * Helpers shared by the index and work-tree commands (ls-files,
 * check-ignore, write-tree, update-index): the index file, git's path
 * quoting and relative names, the standard exclude files, stat options
 * from the config.
 */
#ifndef FGIT_CLI_WT_SETUP_H
#define FGIT_CLI_WT_SETUP_H

#include "fgit/buf.h"
#include "fgit/index.h"
#include "fgit/ignore.h"
#include "fgit/worktree.h"

struct fgit_repo;

/* $GIT_INDEX_FILE or <git-dir>/index (malloc'd). */
char *cli_index_path(struct fgit_repo *repo);
/*
 * The options git's index write takes from the configuration: index.version
 * (and GIT_INDEX_VERSION, feature.manyFiles) for an index not read from a
 * file, index.threads, index.recordEndOfIndexEntries,
 * index.recordOffsetTable, core.splitIndex (unset: keep a split index
 * split), splitIndex.maxPercentChange, splitIndex.sharedIndexExpire.  Every
 * command that writes the index starts from these.
 */
void cli_index_write_options(struct fgit_index_write_opts *wo, struct fgit_repo *repo,
			     const struct fgit_index *idx);
/* Load the index (a missing file is an empty index); dies as git does. */
struct fgit_index *cli_index_load(struct fgit_repo *repo, const char *path);
struct fgit_lockfile;
/* Write idx into the index.lock the command took at its start (git's
 * hold_locked_index), racily clean entries whose file changed smudged as
 * git does, and rename it into place; dies "Unable to write new index
 * file" on failure. */
void cli_index_commit_locked(struct fgit_repo *repo, struct fgit_index *idx,
			     struct fgit_lockfile *lk);
/* core.excludesFile, or its XDG default (appended; empty when unset). */
void cli_excludes_file_path(struct fgit_buf *out, struct fgit_repo *repo);
/* core.quotePath (default true). */
int cli_quote_path(struct fgit_repo *repo);
/* git's quote_c_style: quoted only when needed. */
void cli_add_c_quoted(struct fgit_buf *b, const char *s, size_t len, int quote_path);
/* path relative to prefix ("" or "d/"), as git's relative_path(). */
void cli_add_relative(struct fgit_buf *b, const char *path, const char *prefix);
/* core.excludesFile (or XDG default) then <git-dir>/info/exclude. */
int cli_add_standard_excludes(struct fgit_ignore *ig, struct fgit_repo *repo);
/*
 * Stat comparison options from core.filemode etc.; content checks hash
 * through the to-git conversion (clean filter, eol, ident) of each path.
 */
void cli_wt_stat_options(struct fgit_wt_stat_options *o, struct fgit_repo *repo);

#endif
