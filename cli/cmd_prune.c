/* git prune: remove unreachable loose objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/date.h"
#include "fgit/prune.h"
#include "fgit/repo.h"

static const char *const prune_usage[] = {
	"git prune [-n] [-v] [--progress] [--expire <time>] [--] [<head>...]",
	NULL
};

static void out_line(const char *line, void *payload)
{
	printf("%s\n", line);
}

static void err_line(const char *line, void *payload)
{
	fflush(stdout);
	fprintf(stderr, "%s\n", line);
}

CLI_CMD(prune)
{
	int dry_run = 0, verbose = 0, progress = -1, promisor = 0, n, i;
	const char *expire = NULL;
	struct cli_option opts[] = {
		OPT_BOOL('n', "dry-run", &dry_run, "do not remove, show only"),
		OPT_BOOL('v', "verbose", &verbose, "report pruned objects"),
		OPT_BOOL(0, "progress", &progress, "show progress"),
		OPT_STRING(0, "expire", &expire, "expiry-date", "expire objects older than <time>"),
		OPT_BOOL(0, "exclude-promisor-objects", &promisor,
			 "limit traversal to objects outside promisor packfiles"),
		OPT_END(),
	};
	struct fgit_prune_options po = FGIT_PRUNE_OPTIONS_INIT;
	struct fgit_repo *repo = cli_repo();
	struct fgit_buf disp = FGIT_BUF_INIT;
	struct fgit_oid *tips = NULL;

	n = cli_parse_options(argc, argv, "prune", opts, prune_usage, 0);
	if (promisor)
		die_unimplemented("prune", "--exclude-promisor-objects");
	if (expire && fgit_date_parse_expiry(&po.expire, expire, (int64_t)time(NULL)) < 0)
		die("malformed expiration date '%s'", expire);
	if (n) {
		tips = calloc((size_t)n, sizeof(*tips));
		if (!tips)
			die("out of memory");
		for (i = 0; i < n; i++)
			if (fgit_revparse_single(&tips[i], repo, argv[i]) < 0)
				die("unrecognized argument: %s", argv[i]);
	}
	po.tips = tips;
	po.ntips = (size_t)n;
	po.dry_run = dry_run;
	po.verbose = verbose;
	if (progress < 0)
		progress = isatty(2);
	po.progress_fd = progress ? 2 : -1;
	po.out = out_line;
	po.err = err_line;
	if (!getenv("GIT_OBJECT_DIRECTORY")) {
		fgit_buf_addf(&disp, "%s/objects", fgit_repo_common_dir_display(repo));
		po.display_objects_dir = disp.ptr;
	}
	if (fgit_prune(repo, &po) < 0)
		die_last();
	fgit_buf_release(&disp);
	free(tips);
	return 0;
}
