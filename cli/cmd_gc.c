/* git gc: housekeeping, in-process (lib/ops/gc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/gc.h"
#include "fgit/repo.h"

static const char *const gc_usage[] = {
	"git gc [<options>]",
	NULL
};

static struct fgit_gc_options go = FGIT_GC_OPTIONS_INIT;

static int prune_cb(const struct cli_option *opt, const char *arg, int unset)
{
	if (unset) {
		go.no_prune = 1;
		go.prune_expire = NULL;
	} else {
		go.no_prune = 0;
		go.prune_expire = arg ? arg : "2.weeks.ago";
	}
	return 0;
}

static void report(int level, const char *msg, void *payload)
{
	fflush(stdout);
	fprintf(stderr, "%s%s\n", level == 0 ? "warning: " : level == 1 ? "error: " : "", msg);
}

CLI_CMD(gc)
{
	int quiet = 0, r, cruft = 0;
	struct cli_option opts[] = {
		OPT__QUIET(&quiet, "suppress progress reporting"),
		OPT_CALLBACK_F(0, "prune", NULL, "date", "prune unreferenced objects",
			       CLI_OPT_OPTARG, prune_cb),
		OPT_BOOL(0, "cruft", &cruft, "pack unreferenced objects separately"),
		OPT_BOOL(0, "aggressive", &go.aggressive, "be more thorough (increased runtime)"),
		OPT_BOOL(0, "auto", &go.auto_gc, "enable auto-gc mode"),
		OPT_BOOL(0, "force", &go.force,
			 "force running gc even if there may be another gc running"),
		OPT_UNIMPLEMENTED(0, "keep-largest-pack"),
		OPT_END(),
	};

	if (cli_parse_options(argc, argv, "gc", opts, gc_usage, 0))
		cli_usage_with_options(gc_usage, opts, 0);
	if (cruft)
		die_unimplemented("gc", "--cruft");
	go.quiet = quiet > 0;
	go.progress_fd = !go.quiet && isatty(2) ? 2 : -1;
	go.report = report;
	r = fgit_gc(cli_repo(), &go);
	if (r == FGIT_ENOTSUPP) {
		fprintf(stderr, "fatal: %s\n", fgit_error_last());
		exit(129);
	}
	if (r < 0)
		die_last();
	return 0;
}
