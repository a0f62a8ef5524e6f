/* git pack-refs: [--all] [--no-prune]; the work is fgit_repo_pack_refs(). */
#include <stdlib.h>
#include "cli.h"
#include "fgit/reflog.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const pack_refs_usage[] = {
	"git pack-refs [--all] [--no-prune]",
	NULL
};

static void missing(const char *name, void *payload)
{
	error("%s does not point to a valid object!", name);
}

CLI_CMD(pack_refs)
{
	int all = 0, prune = 1, r;
	struct fgit_repo *repo;
	struct cli_option opts[] = {
		OPT_BOOL(0, "all", &all, "pack everything"),
		OPT_BOOL(0, "prune", &prune, "prune loose refs (default)"),
		OPT_END(),
	};

	if (cli_parse_options(argc, argv, "pack-refs", opts, pack_refs_usage, 0))
		cli_usage_with_options(pack_refs_usage, opts, 0);
	repo = cli_repo();
	r = fgit_repo_pack_refs(repo, (all ? FGIT_PACK_REFS_ALL : 0) | (prune ? FGIT_PACK_REFS_PRUNE : 0),
				missing, NULL);
	if (r == FGIT_ELOCKED)
		die_last();
	if (r)
		die("unable to write new packed-refs: %s", fgit_error_last());
	return 0;
}
