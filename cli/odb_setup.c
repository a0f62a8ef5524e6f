/* See odb_setup.h. */
#include "cli.h"
#include "odb_setup.h"
#include "fgit/repo.h"

const char *cli_git_dir(int required)
{
	struct fgit_repo *repo = required ? cli_repo() : cli_repo_gently();
	return repo ? fgit_repo_git_dir(repo) : NULL;
}

struct fgit_odb *cli_odb(void)
{
	struct fgit_odb *odb;
	if (fgit_repo_odb(&odb, cli_repo()) < 0)
		die_last();
	return odb;
}

int cli_resolve(struct fgit_oid *out, struct fgit_odb *odb, const char *spec)
{
	(void)odb;
	return fgit_revparse_single(out, cli_repo(), spec);
}
