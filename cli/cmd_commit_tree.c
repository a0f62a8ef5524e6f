/*
 * git commit-tree: write a commit object for a tree, with parents (-p), a
 * message (-m, -F, or standard input), and identities from GIT_AUTHOR_*,
 * GIT_COMMITTER_* and user.name/user.email as git builds them, so the
 * same inputs give byte-identical commits.
 * NEEDSWORK: -S (signing), i18n.commitEncoding headers, the full
 * gecos/hostname fallbacks of git's ident.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/date.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/repo.h"

static const char *const commit_tree_usage[] = {
	"git commit-tree [(-p <parent>)...] [-S[<keyid>]] [(-m <message>)...] [(-F <file>)...] <tree>",
	NULL
};

static struct fgit_buf msg = FGIT_BUF_INIT;
static const char *parent_args[1024];
static size_t nparent_args;

static int opt_parent(const struct cli_option *opt, const char *arg, int unset)
{
	if (nparent_args == sizeof(parent_args) / sizeof(parent_args[0]))
		die("too many parents");
	parent_args[nparent_args++] = arg;
	return 0;
}

static int opt_message(const struct cli_option *opt, const char *arg, int unset)
{
	if (msg.len)
		fgit_buf_addch(&msg, '\n');
	fgit_buf_adds(&msg, arg);
	if (msg.len && msg.ptr[msg.len - 1] != '\n')
		fgit_buf_addch(&msg, '\n');
	return 0;
}

static void read_fd(struct fgit_buf *b, int fd, const char *name)
{
	char tmp[65536];
	ssize_t n;

	while ((n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (name)
				die_errno("git commit-tree: failed to read '%s'", name);
			die_errno("git commit-tree: failed to read");
		}
		fgit_buf_add(b, tmp, (size_t)n);
	}
}

static int opt_file(const struct cli_option *opt, const char *arg, int unset)
{
	int fd;

	if (msg.len)
		fgit_buf_addch(&msg, '\n');
	if (!strcmp(arg, "-")) {
		fd = 0;
	} else {
		fd = open(arg, O_RDONLY);
		if (fd < 0)
			die_errno("git commit-tree: failed to open '%s'", arg);
	}
	read_fd(&msg, fd, arg);
	if (fd)
		close(fd);
	return 0;
}

static void resolve_type(struct fgit_oid *out, struct fgit_repo *repo, struct fgit_odb *odb,
			 const char *spec, enum fgit_object_type want)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_object_info info;
	char hex[FGIT_MAX_HEXSZ + 1];

	/* git's get_oid_tree/get_oid_commit only hint; they do not peel */
	fgit_buf_adds(&b, spec);
	if (fgit_revparse_single(out, repo, b.ptr))
		die("not a valid object name %s", spec);
	fgit_error_clear();
	if (fgit_odb_read_info(&info, odb, out, 0) || info.type != want)
		die("%s is not a valid '%s' object", fgit_oid_to_hex(hex, out),
		    fgit_object_type_name(want));
	fgit_buf_release(&b);
}

CLI_CMD(commit_tree)
{
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	struct fgit_oid tree, *parents, oid;
	struct fgit_buf author = FGIT_BUF_INIT, committer = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	size_t i, j, np = 0;
	char hex[FGIT_MAX_HEXSZ + 1];
	int n;
	struct cli_option opts[] = {
		OPT_CALLBACK_F('p', NULL, NULL, "parent", "id of a parent commit object",
			       CLI_OPT_NONEG, opt_parent),
		OPT_CALLBACK_F('m', NULL, NULL, "message", "commit message", CLI_OPT_NONEG, opt_message),
		OPT_CALLBACK_F('F', NULL, NULL, "file", "read commit log message from file",
			       CLI_OPT_NONEG, opt_file),
		OPT_UNIMPLEMENTED('S', "gpg-sign"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "commit-tree", opts, commit_tree_usage, 0);
	repo = cli_repo();
	if (fgit_repo_odb(&odb, repo))
		die_last();
	parents = calloc(nparent_args + 1, sizeof(*parents));
	if (!parents)
		die("out of memory");
	/* git resolves the parents while parsing, before the tree */
	for (i = 0; i < nparent_args; i++) {
		int dup = 0;
		resolve_type(&parents[np], repo, odb, parent_args[i], FGIT_OBJ_COMMIT);
		for (j = 0; j < np; j++)
			if (fgit_oid_equal(&parents[j], &parents[np]))
				dup = 1;
		if (dup)
			error("duplicate parent %s ignored", fgit_oid_to_hex(hex, &parents[np]));
		else
			np++;
	}
	if (n != 1)
		die("must give exactly one tree");
	resolve_type(&tree, repo, odb, argv[0], FGIT_OBJ_TREE);
	if (!msg.len)
		read_fd(&msg, 0, NULL);
	cli_ident(&author, fgit_repo_config(repo), "author", 1);
	cli_ident(&committer, fgit_repo_config(repo), "committer", 1);
	if (fgit_commit_serialize(&out, &tree, parents, np, author.ptr, committer.ptr, NULL, msg.ptr) ||
	    fgit_odb_write(&oid, odb, FGIT_OBJ_COMMIT, out.ptr, out.len))
		die_last();
	printf("%s\n", fgit_oid_to_hex(hex, &oid));
	free(parents);
	fgit_buf_release(&author);
	fgit_buf_release(&committer);
	fgit_buf_release(&out);
	return 0;
}
