/*
 * git mv: move or rename files and directories, in the work tree and the
 * index.  The checks and moves are fgit_mv_plan()/fgit_mv_apply()
 * (lib/ops/mv.c); here: arguments made relative to the top as git's
 * prefix_path() does, index.lock held from the start, the messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/lockfile.h"
#include "fgit/mv.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"

static const char *const mv_usage[] = {
	"git mv [<options>] <source>... <destination>",
	NULL
};

/*
 * prefix + arg, with "." and ".." resolved and (unless keep_slash) trailing
 * slashes dropped, as git's prefix_path(); dies outside the work tree.
 */
static char *top_path(struct fgit_repo *repo, const char *arg, int keep_slash)
{
	struct fgit_buf out = FGIT_BUF_INIT;
	size_t n = strlen(arg);

	if (fgit_path_normalize(&out, cli_globals.prefix, arg, fgit_repo_work_tree(repo)))
		die_last();
	if (!(keep_slash && n && arg[n - 1] == '/'))
		while (out.len && out.ptr[out.len - 1] == '/')
			fgit_buf_setlen(&out, out.len - 1);
	return fgit_buf_detach(&out, NULL);
}

static void checking(const char *src, const char *dst, void *payload)
{
	printf("Checking rename of '%s' to '%s'\n", src, dst);
}

static void overwriting(const char *dst, void *payload)
{
	cli_flush_stdout();
	warning("overwriting '%s'", dst);
}

static void renaming(const char *src, const char *dst, void *payload)
{
	int *show = payload;
	if (*show)
		printf("Renaming %s to %s\n", src, dst);
}

CLI_CMD(mv)
{
	int verbose = 0, dry_run = 0, force = 0, skip = 0, sparse = 0, n, i, show;
	unsigned int flags;
	struct fgit_repo *repo;
	struct fgit_index *idx;
	struct fgit_lockfile *lk = NULL;
	struct fgit_mv_plan plan;
	struct fgit_mv_report report = { checking, overwriting, NULL };
	const char **srcs;
	char *dst, *index_path;
	struct cli_option opts[] = {
		OPT_BOOL('v', "verbose", &verbose, "be verbose"),
		OPT_BOOL('n', "dry-run", &dry_run, "dry run"),
		OPT_BOOL('f', "force", &force, "force move/rename even if target exists"),
		OPT_BOOL('k', NULL, &skip, "skip move/rename errors"),
		OPT_BOOL(0, "sparse", &sparse, "allow updating entries outside of the sparse-checkout cone"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "mv", opts, mv_usage, 0);
	if (sparse)
		die_unimplemented("mv", "--sparse");
	if (n < 2)
		cli_usage_with_options(mv_usage, opts, 0);
	repo = cli_repo();
	cli_require_work_tree(repo);
	index_path = cli_index_path(repo);
	if (fgit_lockfile_acquire(&lk, index_path, 0))
		die_last();
	idx = cli_index_load(repo, index_path);

	srcs = calloc((size_t)n, sizeof(*srcs));
	if (!srcs)
		die("out of memory");
	for (i = 0; i < n - 1; i++)
		srcs[i] = top_path(repo, argv[i], 0);
	{
		/* "git mv dir/ dir2/" keeps no slash when the source is a
		 * directory and the destination is not one */
		struct fgit_buf probe = FGIT_BUF_INIT;
		char *d0 = top_path(repo, argv[n - 1], 0);
		struct stat st;
		int keep = 1;
		if (n == 2) {
			int src_dir, dst_dir;
			fgit_buf_addf(&probe, "%s/%s", fgit_repo_work_tree(repo), srcs[0]);
			src_dir = !stat(probe.ptr, &st) && S_ISDIR(st.st_mode);
			fgit_buf_reset(&probe);
			fgit_buf_addf(&probe, "%s/%s", fgit_repo_work_tree(repo), d0);
			dst_dir = !stat(probe.ptr, &st) && S_ISDIR(st.st_mode);
			if (src_dir && !dst_dir)
				keep = 0;
		}
		free(d0);
		fgit_buf_release(&probe);
		dst = top_path(repo, argv[n - 1], keep);
	}
	flags = (force ? FGIT_MV_FORCE : 0) | (skip ? FGIT_MV_SKIP_ERRORS : 0) |
		(verbose ? FGIT_MV_VERBOSE : 0) | (dry_run ? FGIT_MV_DRY_RUN : 0);
	if (fgit_mv_plan(&plan, repo, idx, srcs, (size_t)(n - 1), dst, flags, &report)) {
		cli_flush_stdout();
		if (fgit_error_last_code() == FGIT_ENOTSUPP)
			die_unimplemented("mv", "moving submodules");
		die_last();
	}
	show = dry_run || verbose;
	if (fgit_mv_apply(repo, idx, &plan, flags, renaming, &show)) {
		cli_flush_stdout();
		die_last();
	}
	cli_flush_stdout();
	if (!dry_run)
		cli_index_commit_locked(repo, idx, lk);
	fgit_mv_plan_release(&plan);
	free(dst);
	free(index_path);
	return 0;
}
