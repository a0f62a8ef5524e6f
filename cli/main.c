/*
 * fgit's entry point: git's global options, then dispatch to a subcommand.
 * Commands git has and fgit does not yet are refused with exit 129; names
 * that are no git command get git's own answer and exit 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "commands.h"	/* generated from cli/cmd_*.c by the Makefile */
#include "fgit/buf.h"

struct cli_globals cli_globals;

#define DECLARE(n, id) CLI_CMD(id);
FGIT_COMMANDS(DECLARE)
#undef DECLARE

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
};

#define ENTRY(n, id) { n, cmd_##id },
static const struct command commands[] = { FGIT_COMMANDS(ENTRY) };
#undef ENTRY

/* Other names git accepts for a command. */
static const struct {
	const char *alias, *name;
} command_aliases[] = {
	{ "init-db", "init" },
	{ "fsck-objects", "fsck" },
};

/* Every command git 2.39 has (git --list-cmds=main): known but not built yet. */
static const char *const git_commands[] = {
	"add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch",
	"bugreport", "bundle", "cat-file", "check-attr", "check-ignore",
	"check-mailmap", "check-ref-format", "checkout", "checkout-index",
	"cherry", "cherry-pick", "clean", "clone", "column", "commit",
	"commit-graph", "commit-tree", "config", "count-objects", "credential",
	"credential-cache", "credential-store", "daemon", "describe",
	"diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
	"fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch",
	"fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck",
	"fsck-objects", "gc", "get-tar-commit-id", "grep", "hash-object", "help",
	"hook", "http-backend", "http-fetch", "http-push", "imap-send",
	"index-pack", "init", "init-db", "instaweb", "interpret-trailers", "log",
	"ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit",
	"maintenance", "merge", "merge-base", "merge-file", "merge-index",
	"merge-octopus", "merge-one-file", "merge-ours", "merge-recursive",
	"merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag",
	"mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects",
	"pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed",
	"pull", "push", "quiltimport", "range-diff", "read-tree", "rebase",
	"receive-pack", "reflog", "remote", "repack", "replace",
	"request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse",
	"revert", "rm", "send-pack", "shell", "shortlog", "show", "show-branch",
	"show-index", "show-ref", "sparse-checkout", "stage", "stash", "status",
	"stripspace", "submodule", "subtree", "switch", "symbolic-ref", "tag",
	"unpack-file", "unpack-objects", "update-index", "update-ref",
	"update-server-info", "upload-archive", "upload-pack", "var",
	"verify-commit", "verify-pack", "verify-tag", "version", "whatchanged",
	"worktree", "write-tree",
	NULL
};

static const char main_usage[] =
	"git [--version] [--help] [-C <path>] [-c <name>=<value>]\n"
	"           [--exec-path[=<path>]] [--html-path] [--man-path] [--info-path]\n"
	"           [-p | --paginate | -P | --no-pager] [--no-replace-objects] [--bare]\n"
	"           [--git-dir=<path>] [--work-tree=<path>] [--namespace=<name>]\n"
	"           [--super-prefix=<path>] [--config-env=<name>=<envvar>]\n"
	"           <command> [<args>]";

/* Append 'key'='value' (git's sq-quoting) to GIT_CONFIG_PARAMETERS. */
static void sq_quote(struct fgit_buf *b, const char *s, size_t n)
{
	size_t i;
	fgit_buf_addch(b, '\'');
	for (i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '!') {
			fgit_buf_addf(b, "'\\%c'", s[i]);
		} else {
			fgit_buf_addch(b, s[i]);
		}
	}
	fgit_buf_addch(b, '\'');
}

static void add_config_param(const char *kv)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char *old = getenv("GIT_CONFIG_PARAMETERS");
	const char *eq = strchr(kv, '=');

	if (eq == kv)
		die("invalid config format: %s", kv);
	if (old && *old) {
		fgit_buf_adds(&b, old);
		fgit_buf_addch(&b, ' ');
	}
	if (eq) {
		sq_quote(&b, kv, (size_t)(eq - kv));
		fgit_buf_addch(&b, '=');
		sq_quote(&b, eq + 1, strlen(eq + 1));
	} else {
		sq_quote(&b, kv, strlen(kv));
	}
	setenv("GIT_CONFIG_PARAMETERS", b.ptr, 1);
	fgit_buf_release(&b);
}

static int handle_options(int argc, const char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-')
			break;
		if (!strcmp(a, "-C")) {
			if (++i >= argc) {
				fprintf(stderr, "error: no directory given for -C\n\n");
				fprintf(stderr, "usage: %s\n", main_usage);
				exit(129);
			}
			if (*argv[i] && chdir(argv[i]))
				die_errno("cannot change to '%s'", argv[i]);
		} else if (!strcmp(a, "-c")) {
			if (++i >= argc) {
				fprintf(stderr, "error: -c expects a configuration string\n\n");
				fprintf(stderr, "usage: %s\n", main_usage);
				exit(129);
			}
			add_config_param(argv[i]);
		} else if (!strcmp(a, "--git-dir") || !strcmp(a, "--work-tree") ||
			   !strcmp(a, "--namespace")) {
			const char *env = a[2] == 'g' ? "GIT_DIR" :
					  a[2] == 'w' ? "GIT_WORK_TREE" : "GIT_NAMESPACE";
			if (++i >= argc) {
				fprintf(stderr, "error: no directory given for %s\n\n", a);
				fprintf(stderr, "usage: %s\n", main_usage);
				exit(129);
			}
			setenv(env, argv[i], 1);
		} else if (!strncmp(a, "--git-dir=", 10)) {
			setenv("GIT_DIR", a + 10, 1);
		} else if (!strncmp(a, "--work-tree=", 12)) {
			setenv("GIT_WORK_TREE", a + 12, 1);
		} else if (!strncmp(a, "--namespace=", 12)) {
			setenv("GIT_NAMESPACE", a + 12, 1);
		} else if (!strcmp(a, "--bare")) {
			char cwd[4096];
			if (getcwd(cwd, sizeof(cwd)))
				setenv("GIT_DIR", cwd, 0);
			cli_globals.bare = 1;
		} else if (!strcmp(a, "-P") || !strcmp(a, "--no-pager") ||
			   !strcmp(a, "-p") || !strcmp(a, "--paginate")) {
			/* fgit does not page yet; both leave output unpaged. */
		} else if (!strcmp(a, "--no-replace-objects")) {
			setenv("GIT_NO_REPLACE_OBJECTS", "1", 1);
		} else if (!strcmp(a, "--literal-pathspecs")) {
			setenv("GIT_LITERAL_PATHSPECS", "1", 1);
		} else if (!strcmp(a, "--glob-pathspecs")) {
			setenv("GIT_GLOB_PATHSPECS", "1", 1);
		} else if (!strcmp(a, "--noglob-pathspecs")) {
			setenv("GIT_NOGLOB_PATHSPECS", "1", 1);
		} else if (!strcmp(a, "--icase-pathspecs")) {
			setenv("GIT_ICASE_PATHSPECS", "1", 1);
		} else if (!strcmp(a, "--no-optional-locks")) {
			setenv("GIT_OPTIONAL_LOCKS", "0", 1);
		} else if (!strcmp(a, "--version") || !strcmp(a, "-v")) {
			argv[i] = "version";
			return i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: %s\n", main_usage);
			exit(0);
		} else {
			fprintf(stderr, "unknown option: %s\n", a);
			fprintf(stderr, "usage: %s\n", main_usage);
			exit(129);
		}
	}
	return i;
}

int main(int argc, const char **argv)
{
	const char *name;
	size_t k;
	int i, rc;

	signal(SIGPIPE, SIG_DFL);
	cli_globals.original_cwd = getcwd(NULL, 0);	/* before -C */
	i = handle_options(argc, argv);
	if (i >= argc) {
		printf("usage: %s\n", main_usage);
		return 1;
	}
	name = argv[i];
	for (k = 0; k < sizeof(command_aliases) / sizeof(command_aliases[0]); k++)
		if (!strcmp(name, command_aliases[k].alias))
			name = command_aliases[k].name;
	for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
		if (!strcmp(commands[k].name, name)) {
			rc = commands[k].fn(argc - i, argv + i);
			cli_flush_stdout();
			return rc;
		}
	}
	for (k = 0; git_commands[k]; k++)
		if (!strcmp(git_commands[k], name))
			die_unimplemented(name, NULL);
	fprintf(stderr, "git: '%s' is not a git command. See 'git --help'.\n", name);
	return 1;
}
