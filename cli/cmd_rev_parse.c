/*
 * git rev-parse: where the repository is (--git-dir, --show-toplevel, ...)
 * and what revisions name (see cli/revision helpers in lib/repo).
 * Arguments are handled in order, as git does, so output lines follow them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/repo.h"

static void put_bool(int b)
{
	puts(b ? "true" : "false");
}

/* Repository-location options; 1 if arg was one. */
static int location_option(struct fgit_repo *repo, const char *arg)
{
	if (!strcmp(arg, "--git-dir")) {
		puts(fgit_repo_git_dir_display(repo));
	} else if (!strcmp(arg, "--absolute-git-dir")) {
		puts(fgit_repo_git_dir(repo));
	} else if (!strcmp(arg, "--git-common-dir")) {
		puts(fgit_repo_common_dir_display(repo));
	} else if (!strcmp(arg, "--show-toplevel")) {
		if (!fgit_repo_work_tree(repo))
			die("this operation must be run in a work tree");
		puts(fgit_repo_work_tree(repo));
	} else if (!strcmp(arg, "--is-inside-work-tree")) {
		put_bool(fgit_repo_inside_work_tree(repo));
	} else if (!strcmp(arg, "--is-inside-git-dir")) {
		put_bool(fgit_repo_inside_git_dir(repo));
	} else if (!strcmp(arg, "--is-bare-repository")) {
		put_bool(fgit_repo_is_bare(repo));
	} else if (!strcmp(arg, "--is-shallow-repository")) {
		struct fgit_buf p = FGIT_BUF_INIT;
		fgit_buf_addf(&p, "%s/shallow", fgit_repo_common_dir(repo));
		put_bool(access(p.ptr, F_OK) == 0);
		fgit_buf_release(&p);
	} else if (!strcmp(arg, "--show-prefix")) {
		puts(fgit_repo_inside_work_tree(repo) ? fgit_repo_prefix(repo) : "");
	} else if (!strcmp(arg, "--show-cdup")) {
		const char *p;
		if (!fgit_repo_inside_work_tree(repo)) {
			if (fgit_repo_work_tree(repo))
				puts(fgit_repo_work_tree(repo));
			return 1;
		}
		for (p = fgit_repo_prefix(repo); *p; p++)
			if (*p == '/')
				fputs("../", stdout);
		putchar('\n');
	} else {
		return 0;
	}
	return 1;
}

CLI_CMD(rev_parse)
{
	struct fgit_repo *repo;
	int i;

	if (argc > 1 && (!strcmp(argv[1], "--parseopt") || !strcmp(argv[1], "--sq-quote")))
		die_unimplemented("rev-parse", argv[1]);
	repo = cli_repo();
	for (i = 1; i < argc; i++) {
		if (location_option(repo, argv[i]))
			continue;
		die_unimplemented("rev-parse", argv[i]);
	}
	return 0;
}
