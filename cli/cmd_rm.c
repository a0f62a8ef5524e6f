/*
 * git rm: remove paths from the index and the work tree.  The decisions
 * are fgit_rm_plan() (lib/ops/rm.c); here: options, index.lock held from
 * the start as git holds it, the messages, and the index write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/lockfile.h"
#include "fgit/pathspec.h"
#include "fgit/quote.h"
#include "fgit/repo.h"
#include "fgit/rm.h"

static const char *const rm_usage[] = {
	"git rm [-f | --force] [-n] [-r] [--cached] [--ignore-unmatch]\n"
	"              [--quiet] [--pathspec-from-file=<file> [--pathspec-file-nul]]\n"
	"              [--] [<pathspec>...]",
	NULL
};

/*
 * git's parse_pathspec_file(): one element per line (or NUL-terminated
 * with nul), "-" for standard input, C-quoted lines unquoted (not with
 * nul).  Returns a NULL-terminated array; *n its length.
 */
static const char **read_pathspec_file(const char *file, int nul, int *n)
{
	struct fgit_buf all = FGIT_BUF_INIT, item = FGIT_BUF_INIT;
	const char **v = NULL;
	size_t pos = 0, nr = 0;
	char term = nul ? '\0' : '\n';

	if (!strcmp(file, "-")) {
		if (fgit_buf_read_fd(&all, 0, 0))
			die_last();
	} else if (fgit_buf_read_file(&all, file)) {
		die_errno("could not open '%s' for reading", file);
	}
	while (pos < all.len) {
		const char *line = all.ptr + pos, *end = memchr(line, term, all.len - pos);
		size_t len = end ? (size_t)(end - line) : all.len - pos;
		pos += len + 1;
		fgit_buf_reset(&item);
		fgit_buf_add(&item, line, len);
		if (!nul && item.len && item.ptr[item.len - 1] == '\r')
			fgit_buf_setlen(&item, item.len - 1);
		if (!nul && item.ptr[0] == '"') {
			struct fgit_buf u = FGIT_BUF_INIT;
			const char *e;
			if (fgit_unquote_c_style(&u, item.ptr, &e) || *e)
				die("line is badly quoted: %s", item.ptr);
			fgit_buf_set(&item, u.ptr, u.len);
			fgit_buf_release(&u);
		}
		v = realloc(v, (nr + 2) * sizeof(*v));
		if (!v)
			die("out of memory");
		v[nr++] = fgit_buf_detach(&item, NULL);
	}
	if (!v && !(v = calloc(1, sizeof(*v))))
		die("out of memory");
	v[nr] = NULL;
	fgit_buf_release(&all);
	*n = (int)nr;
	return v;
}

static int print_error_files(char **files, size_t nr, const char *one, const char *many,
			     const char *hint, int hints)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t i;

	if (!nr)
		return 0;
	fgit_buf_adds(&b, nr == 1 ? one : many);
	for (i = 0; i < nr; i++)
		fgit_buf_addf(&b, "\n    %s", files[i]);
	if (hints)
		fgit_buf_adds(&b, hint);
	error("%s", b.ptr);
	fgit_buf_release(&b);
	return 1;
}

CLI_CMD(rm)
{
	int dry_run = 0, quiet = 0, cached = 0, force = 0, recursive = 0, ignore_unmatch = 0;
	int sparse = 0, n, errs = 0, hints = 1, file_nul = 0;
	unsigned int flags;
	const char *from_file = NULL;
	struct fgit_repo *repo;
	struct fgit_pathspec *ps = NULL;
	struct fgit_index *idx;
	struct fgit_rm_plan plan;
	struct fgit_wt_stat_options so;
	struct fgit_lockfile *lk = NULL;
	char *index_path, *keep_dir = NULL;
	size_t i;
	struct cli_option opts[] = {
		OPT_BOOL('n', "dry-run", &dry_run, "dry run"),
		OPT__QUIET(&quiet, "do not list removed files"),
		OPT_BOOL(0, "cached", &cached, "only remove from the index"),
		OPT_BOOL('f', "force", &force, "override the up-to-date check"),
		OPT_BOOL('r', NULL, &recursive, "allow recursive removal"),
		OPT_BOOL(0, "ignore-unmatch", &ignore_unmatch,
			 "exit with a zero status even if nothing matched"),
		OPT_BOOL(0, "sparse", &sparse,
			 "allow updating entries outside of the sparse-checkout cone"),
		OPT_STRING(0, "pathspec-from-file", &from_file, "file", "read pathspec from file"),
		OPT_BOOL(0, "pathspec-file-nul", &file_nul,
			 "with --pathspec-from-file, pathspec elements are separated with NUL character"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "rm", opts, rm_usage, 0);
	if (sparse)
		die_unimplemented("rm", "--sparse");
	repo = cli_repo();
	if (from_file) {
		if (n)
			die("'--pathspec-from-file' and pathspec arguments cannot be used together");
		argv = read_pathspec_file(from_file, file_nul, &n);
	} else if (file_nul) {
		die("the option '--pathspec-file-nul' requires '--pathspec-from-file'");
	}
	if (fgit_pathspec_new(&ps, cli_globals.prefix, argv, (size_t)n, FGIT_PATHSPEC_PREFER_CWD,
			      fgit_repo_work_tree(repo)))
		die_last();
	if (!n)
		die("No pathspec was given. Which files should I remove?");
	if (!cached)
		cli_require_work_tree(repo);

	index_path = cli_index_path(repo);
	if (fgit_lockfile_acquire(&lk, index_path, 0))
		die_last();
	idx = cli_index_load(repo, index_path);
	cli_wt_stat_options(&so, repo);
	flags = (cached ? FGIT_RM_CACHED : 0) | (force ? FGIT_RM_FORCE : 0) |
		(recursive ? FGIT_RM_RECURSIVE : 0) | (ignore_unmatch ? FGIT_RM_IGNORE_UNMATCH : 0);
	if (fgit_rm_plan(&plan, repo, idx, ps, flags, &so)) {
		if (fgit_error_last_code() == FGIT_ENOTSUPP)
			die_unimplemented("rm", "removing submodules");
		die_last();
	}
	if (!plan.matched_any)
		return 0;
	if (fgit_config_get_bool(&hints, fgit_repo_config(repo), "advice.rmhints"))
		hints = 1;
	fgit_error_clear();
	errs |= print_error_files(plan.staged, plan.nstaged,
		"the following file has staged content different from both the\nfile and the HEAD:",
		"the following files have staged content different from both the\nfile and the HEAD:",
		"\n(use -f to force removal)", hints);
	errs |= print_error_files(plan.cached, plan.ncached,
		"the following file has changes staged in the index:",
		"the following files have changes staged in the index:",
		"\n(use --cached to keep the file, or -f to force removal)", hints);
	errs |= print_error_files(plan.local, plan.nlocal,
		"the following file has local modifications:",
		"the following files have local modifications:",
		"\n(use --cached to keep the file, or -f to force removal)", hints);
	if (errs)
		exit(1);
	for (i = 0; i < plan.nr; i++)
		if (!quiet)
			printf("rm '%s'\n", plan.paths[i]);
	if (dry_run) {
		cli_flush_stdout();
		return 0;
	}
	{
		/* git never removes the directory it was started in */
		const char *top = fgit_repo_work_tree(repo), *cwd = cli_globals.original_cwd;
		size_t tl = top ? strlen(top) : 0;
		if (cwd && top && !strncmp(cwd, top, tl) && cwd[tl] == '/')
			keep_dir = strdup(cwd + tl + 1);
	}
	cli_flush_stdout();
	if (fgit_rm_apply(repo, idx, &plan, flags, keep_dir))
		die_last();
	cli_index_commit_locked(repo, idx, lk);
	fgit_rm_plan_release(&plan);
	fgit_pathspec_free(ps);
	free(keep_dir);
	free(index_path);
	return 0;
}
