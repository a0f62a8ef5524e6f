/* git prune-packed: remove loose objects that are also in a pack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/odb.h"
#include "fgit/buf.h"
#include "fgit/prune.h"
#include "fgit/repo.h"

static const char *const prune_packed_usage[] = {
	"git prune-packed [-n | --dry-run] [-q | --quiet]",
	NULL
};

struct pctx {
	const char *abs;		/* the library's objects path */
	const char *display;		/* git's */
};

static void show(const char *path, void *payload)
{
	struct pctx *p = payload;
	size_t n = strlen(p->abs);
	if (p->display && !strncmp(path, p->abs, n) && path[n] == '/')
		printf("rm -f %s%s\n", p->display, path + n);
	else
		printf("rm -f %s\n", path);
}

CLI_CMD(prune_packed)
{
	int dry_run = 0, quiet = 0, r;
	struct cli_option opts[] = {
		OPT_BOOL('n', "dry-run", &dry_run, "dry run"),
		OPT__QUIET(&quiet, "be quiet"),
		OPT_END(),
	};
	struct fgit_buf disp = FGIT_BUF_INIT;
	struct fgit_odb *odb;
	struct pctx p;

	if (cli_parse_options(argc, argv, "prune-packed", opts, prune_packed_usage, 0))
		cli_usage_with_options(prune_packed_usage, opts, 0);
	if (fgit_repo_odb(&odb, cli_repo()) < 0)
		die_last();
	p.abs = fgit_odb_path(odb);
	p.display = getenv("GIT_OBJECT_DIRECTORY");
	if (!p.display) {
		fgit_buf_addf(&disp, "%s/objects", fgit_repo_common_dir_display(cli_repo()));
		p.display = disp.ptr;
	}
	r = fgit_odb_prune_packed(odb, dry_run ? FGIT_PRUNE_PACKED_DRY_RUN : 0,
				  !quiet && isatty(2) ? 2 : -1, dry_run ? show : NULL, &p);
	if (r < 0)
		die_last();
	fgit_buf_release(&disp);
	return 0;
}
