/*
 * How commands get their repository: one discovery per process, with git's
 * messages for the failures.  The library does the work
 * (fgit_repo_discover); this file only turns errors into git's words.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/config.h"
#include "fgit/lockfile.h"
#include "fgit/repo.h"

static struct fgit_repo *the_repo;
static int tried;
static struct fgit_config *nongit_config;

static struct fgit_repo *setup(int gently)
{
	int r;

	if (tried)
		goto out;
	tried = 1;
	fgit_lockfile_install_signal_cleanup();
	r = fgit_repo_discover(&the_repo, NULL, cli_globals.bare ? FGIT_REPO_BARE : 0);
	if (r == FGIT_ENOTFOUND && gently)
		the_repo = NULL;
	else if (r)
		die_last();
	if (the_repo)
		cli_globals.prefix = fgit_repo_prefix(the_repo);
out:
	if (!the_repo && !gently)
		die("not a git repository (or any of the parent directories): .git");
	return the_repo;
}

struct fgit_repo *cli_repo(void)
{
	return setup(0);
}

struct fgit_repo *cli_repo_gently(void)
{
	return setup(1);
}

struct fgit_config *cli_config(void)
{
	if (the_repo)
		return fgit_repo_config(the_repo);
	if (!nongit_config && fgit_config_load(&nongit_config, NULL, NULL, 0))
		die_last();
	return nongit_config;
}

void cli_require_work_tree(struct fgit_repo *repo)
{
	if (!fgit_repo_work_tree(repo) || !fgit_repo_inside_work_tree(repo))
		die("this operation must be run in a work tree");
}

char *cli_prefix_path(const char *prefix, const char *path)
{
	size_t a = prefix ? strlen(prefix) : 0, b = strlen(path);
	char *out;

	if (path[0] == '/' || !a)
		return strdup(path);
	out = malloc(a + b + 1);
	if (!out)
		die("out of memory");
	memcpy(out, prefix, a);
	memcpy(out + a, path, b + 1);
	return out;
}
