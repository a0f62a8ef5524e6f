/*
 * Content conversion on the way into the object database for commands
 * (hash-object, and add/update-index when they want it): the path's
 * attributes and core.* config looked up, a clean filter driver run, then
 * the library's eol/ident conversion, with git's messages on failure.
 */
#ifndef FGIT_CLI_CONVERT_SETUP_H
#define FGIT_CLI_CONVERT_SETUP_H

#include <stddef.h>

struct fgit_repo;
struct fgit_buf;

enum cli_convert_flags {
	/* what is converted will be stored: core.safecrlf applies */
	CLI_CONVERT_WRITE = 1 << 0,
};

/*
 * Set up for `repo` (NULL outside a repository: config only, no
 * attributes) and the command `cmd` (named in "not built yet" messages).
 * Call once before the functions below.
 */
void cli_convert_setup(struct fgit_repo *repo, const char *cmd);

/* Could converting `path` (relative to the top) change its content? */
int cli_would_convert(const char *path);

/*
 * Convert src[0..len) as git's convert_to_git does for `path`: the clean
 * filter (filter.<driver>.clean), then line endings and ident.  Returns 1
 * with the result in out, 0 when the content stays as it is.  Dies as git
 * does (a required filter failing, core.safecrlf=true refusing).
 * working-tree-encoding and filter.<driver>.process are not built yet:
 * exit 129 naming them.
 */
int cli_convert_to_git(struct fgit_buf *out, const char *path, const char *src,
		       size_t len, unsigned int flags);

#endif
