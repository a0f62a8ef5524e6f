/*
 * Revision arguments for the commands that walk objects (rev-list,
 * pack-objects --revs): rev, ^rev, A..B, --not, --all, --reflog,
 * --indexed-objects, added to an object walk.
 */
#ifndef FGIT_CLI_REV_ARGS_H
#define FGIT_CLI_REV_ARGS_H

struct fgit_objwalk;
struct fgit_repo;

/*
 * Add one argument to the walk; *not holds the --not state.  Returns 1 if
 * arg was a revision or one of the options above, 0 if it is another
 * option (starting with '-').  Dies as git does on a bad revision.
 */
int cli_walk_add_arg(struct fgit_objwalk *w, struct fgit_repo *repo, const char *arg,
		     unsigned int *not);

#endif
