/*
 * The untracked cache as git's commands drive it: the core.untrackedCache
 * setting applied after every index read (git's tweak_untracked_cache),
 * the checks status makes before using the cache (validate_untracked_cache)
 * and the decision to write it back.
 */
#ifndef FGIT_CLI_UNTR_SETUP_H
#define FGIT_CLI_UNTR_SETUP_H

#include <stdint.h>

struct fgit_repo;
struct fgit_index;
struct fgit_untr;

enum cli_untr_setting { CLI_UNTR_KEEP, CLI_UNTR_REMOVE, CLI_UNTR_WRITE };
/* core.untrackedCache (true: write, false: remove, else keep), whose
 * default feature.manyFiles=true turns into write. */
enum cli_untr_setting cli_untr_setting(struct fgit_repo *repo);
/* The flags a new cache gets: 0 with status.showUntrackedFiles=all, else
 * DIR_SHOW_OTHER_DIRECTORIES|DIR_HIDE_EMPTY_DIRECTORIES (6). */
uint32_t cli_untr_new_flags(struct fgit_repo *repo);
/* Add a new empty cache, or replace one made elsewhere (git's
 * add_untracked_cache); dies on allocation failure. */
void cli_untr_add(struct fgit_repo *repo, struct fgit_index *idx);
/* After loading idx: create (write) or drop (remove) its cache. */
void cli_untr_tweak(struct fgit_repo *repo, struct fgit_index *idx);
/*
 * status, whole tree, no pathspec, no ignored paths, walk flags
 * `want_flags`: the cache to walk with (borrowed from idx), or NULL.  Its
 * exclude-file records are brought up to date (the tree invalidated when
 * they changed); a cache built with other flags is replaced when the
 * configuration asks for these flags.
 */
struct fgit_untr *cli_untr_for_status(struct fgit_repo *repo, struct fgit_index *idx,
				      uint32_t want_flags);
/* Set by commit before it shows its status: the cache is not used. */
extern int cli_untr_status_readonly;
/* After the walk: mark idx changed when git would write the cache back. */
void cli_untr_after_walk(struct fgit_repo *repo, struct fgit_index *idx,
			 const struct fgit_untr *uc);

#endif
