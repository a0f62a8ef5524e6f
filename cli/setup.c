/*
 * How commands get their repository: one discovery per process, with git's
 * messages for the failures.  The library does the work
 * (fgit_repo_discover); this file only turns errors into git's words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "fgit/config.h"
#include "fgit/lockfile.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static struct fgit_repo *the_repo;
static int tried;
static struct fgit_config *nongit_config;

/* git checks some core settings whenever it reads its config. */
static void check_core_config(struct fgit_config *cfg, int algo)
{
	const char *v, *file;
	int n, line;

	if (fgit_config_get_string(&v, cfg, "core.abbrev") == 0 && v &&
	    strcasecmp(v, "auto") && fgit_config_parse_bool(v) != 0) {
		if (fgit_config_get_int(&n, cfg, "core.abbrev"))
			die_last();
		if (n < 4 || n > (int)fgit_hash_hexsz(algo)) {
			fflush(stdout);
			fprintf(stderr, "error: abbrev length out of range: %d\n", n);
			if (fgit_config_origin(&file, &line, cfg, "core.abbrev") == 0 && file)
				die("bad config variable 'core.abbrev' in file '%s' at line %d",
				    file, line);
			die("unable to parse 'core.abbrev' from command-line config");
		}
	}
	fgit_error_clear();
}

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
		cli_die_setup_error();
	if (the_repo) {
		cli_globals.prefix = fgit_repo_prefix(the_repo);
		check_core_config(fgit_repo_config(the_repo), fgit_repo_algo(the_repo));
	}
out:
	if (!the_repo && !gently)
		die("not a git repository (or any of the parent directories): .git");
	return the_repo;
}

void cli_die_setup_error(void)
{
	const char *msg = fgit_error_last(), *fatal = strstr(msg, "\nfatal: ");

	if (!fatal)
		die_last();
	fflush(stdout);
	fprintf(stderr, "error: %.*s\n%s\n", (int)(fatal - msg), msg, fatal + 1);
	exit(128);
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
		cli_die_setup_error();
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

void cli_revparse_warnings(struct fgit_repo *repo, const struct fgit_revparse_info *info)
{
	if (info->broken) {
		struct fgit_refdb *db;
		unsigned int flags = 0;
		/* git says nothing of an unborn HEAD, nor of a broken
		 * top-level name */
		if (fgit_repo_refdb(&db, repo) == 0 &&
		    fgit_refdb_read_raw(NULL, NULL, &flags, db, info->broken) == 0 &&
		    (flags & FGIT_REF_SYMBOLIC)) {
			if (strcmp(info->broken, "HEAD"))
				warning("ignoring dangling symref %s", info->broken);
		} else if (strchr(info->broken, '/')) {
			warning("ignoring broken ref %s", info->broken);
		}
		fgit_error_clear();
	}
	if (info->ambiguous)
		warning("refname '%s' is ambiguous.", info->ambiguous);
}
