/* The repository's attributes, set up as git does for its commands. */
#ifndef FGIT_CLI_ATTR_SETUP_H
#define FGIT_CLI_ATTR_SETUP_H

struct fgit_repo;
struct fgit_attrs;

/*
 * Attributes of the repository: /etc/gitattributes (unless
 * GIT_ATTR_NOSYSTEM), core.attributesFile or $XDG_CONFIG_HOME/git/attributes
 * (~/.config/git/attributes), per-directory .gitattributes from the worktree
 * (or, with from_index, from the index — not built yet), and
 * $GIT_DIR/info/attributes.  Dies on failure.  Lives until exit.
 */
struct fgit_attrs *cli_attrs(struct fgit_repo *repo);

#endif
