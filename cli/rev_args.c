/* Revision arguments for object walks: see rev_args.h. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "rev_args.h"
#include "wt_setup.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

_Noreturn static void bad_revision(const char *arg)
{
	die("ambiguous argument '%s': unknown revision or path not in the working tree.\n"
	    "Use '--' to separate paths from revisions, like this:\n"
	    "'git <command> [<revision>...] -- [<file>...]'", arg);
}

static void add_rev(struct fgit_objwalk *w, struct fgit_repo *repo, const char *arg,
		    unsigned int flags)
{
	struct fgit_oid oid;
	int ret = fgit_revparse_single(&oid, repo, arg);
	const char *colon = strchr(arg, ':');

	if (ret == FGIT_ENOTFOUND)
		bad_revision(arg);
	if (ret < 0)
		die_last();
	/* <rev>:<path> names the object by its path, as git */
	if (colon && arg[0] == ':' && colon == arg && arg[1] >= '0' && arg[1] <= '3' &&
	    arg[2] == ':')
		colon = arg + 2;
	if (fgit_objwalk_add(w, &oid, colon ? colon + 1 : NULL, flags) < 0)
		die_last();
}

int cli_walk_add_arg(struct fgit_objwalk *w, struct fgit_repo *repo, const char *a,
		     unsigned int *not)
{
	unsigned int fl = *not;
	const char *dots;
	int ret = 0;

	if (!strcmp(a, "--not")) {
		*not ^= FGIT_OBJWALK_EXCLUDE;
		return 1;
	}
	if (!strcmp(a, "--all")) {
		struct fgit_refdb *refdb;
		if (fgit_repo_refdb(&refdb, repo) < 0)
			die_last();
		ret = fgit_objwalk_add_all_refs(w, refdb, fl);
	} else if (!strcmp(a, "--reflog")) {
		ret = fgit_objwalk_add_reflogs(w, fgit_repo_git_dir(repo),
					       fgit_repo_common_dir(repo), fl);
	} else if (!strcmp(a, "--indexed-objects")) {
		char *path = cli_index_path(repo);
		struct fgit_index *idx = cli_index_load(repo, path);
		ret = fgit_objwalk_add_index(w, idx, fl);
		fgit_index_free(idx);
		free(path);
	} else if (a[0] == '^' && a[1]) {
		add_rev(w, repo, a + 1, fl ^ FGIT_OBJWALK_EXCLUDE);
	} else if (a[0] == '-') {
		return 0;
	} else if ((dots = strstr(a, "..")) != NULL) {
		char *left;
		const char *right = dots + 2;
		if (*right == '.')
			die_unimplemented("rev-list", "A...B");
		left = strndup(a, (size_t)(dots - a));
		if (!left)
			die("out of memory");
		add_rev(w, repo, *left ? left : "HEAD", fl ^ FGIT_OBJWALK_EXCLUDE);
		add_rev(w, repo, *right ? right : "HEAD", fl);
		free(left);
	} else {
		add_rev(w, repo, a, fl);
	}
	if (ret < 0)
		die_last();
	return 1;
}
