/*
 * CLI helpers shared by the subcommands: git's ways of reporting errors,
 * option parsing in git's style (parse-options), and the command table.
 */
#ifndef FGIT_CLI_H
#define FGIT_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "fgit/common.h"

/* Global state set by cli/main.c from git's global options. */
struct cli_globals {
	const char *git_dir;		/* --git-dir or GIT_DIR */
	const char *work_tree;		/* --work-tree or GIT_WORK_TREE */
	int bare;			/* --bare */
	const char *prefix;		/* cwd relative to the worktree top, set by setup */
	int argc_config;		/* -c key=value pairs, kept in GIT_CONFIG_PARAMETERS */
	char *original_cwd;		/* the cwd before -C (git's startup_info->original_cwd) */
};
extern struct cli_globals cli_globals;

/* "fatal: <msg>\n" to stderr, exit 128. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fatal: <msg>: <strerror>\n", exit 128. */
_Noreturn void die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fatal: <last library error>\n", exit 128. */
_Noreturn void die_last(void);
/* "error: <msg>\n" to stderr; returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "error: <last library error>\n"; returns -1. */
int error_last(void);
/* "warning: <msg>\n" to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Refuse an option or mode not built yet: message naming it, exit 129. */
_Noreturn void die_unimplemented(const char *cmd, const char *what);
/* Flush stdout, dying as git does on write errors (EPIPE etc.). */
void cli_flush_stdout(void);

/* ---- parse-options ---- */

enum cli_opt_type {
	CLI_OPT_END = 0,
	CLI_OPT_BOOL,		/* int: 1 when given, 0 with --no- */
	CLI_OPT_COUNT,		/* int: incremented; --no- resets to 0 */
	CLI_OPT_SET_INT,	/* int: set to defval; --no- sets 0 */
	CLI_OPT_STRING,		/* const char *: the argument */
	CLI_OPT_INTEGER,	/* int: the argument as an integer */
	CLI_OPT_CALLBACK,	/* cb(opt, arg, unset) */
	CLI_OPT_UNIMPLEMENTED,	/* accepted by git, not built yet: exit 129 */
	CLI_OPT_GROUP,		/* heading in the usage text */
};

enum cli_opt_flags {
	CLI_OPT_NONEG = 1 << 0,		/* no --no-<name> form */
	CLI_OPT_OPTARG = 1 << 1,	/* argument optional (only --name=arg) */
	CLI_OPT_HIDDEN = 1 << 2,
	CLI_OPT_NOARG = 1 << 3,		/* callback takes no argument */
};

struct cli_option;
typedef int (*cli_opt_cb)(const struct cli_option *opt, const char *arg, int unset);

struct cli_option {
	enum cli_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;
	const char *help;
	int flags;
	intptr_t defval;
	cli_opt_cb cb;
};

#define OPT_END() { CLI_OPT_END, 0, NULL, NULL, NULL, NULL, 0, 0, NULL }
#define OPT_BOOL(s, l, v, h) { CLI_OPT_BOOL, (s), (l), (v), NULL, (h), 0, 1, NULL }
#define OPT__QUIET(v, h) OPT_COUNT('q', "quiet", (v), (h))
#define OPT_COUNT(s, l, v, h) { CLI_OPT_COUNT, (s), (l), (v), NULL, (h), 0, 0, NULL }
#define OPT_SET_INT(s, l, v, h, i) { CLI_OPT_SET_INT, (s), (l), (v), NULL, (h), 0, (i), NULL }
#define OPT_CMDMODE(s, l, v, h, i) { CLI_OPT_SET_INT, (s), (l), (v), NULL, (h), CLI_OPT_NONEG, (i), NULL }
#define OPT_STRING(s, l, v, a, h) { CLI_OPT_STRING, (s), (l), (v), (a), (h), 0, 0, NULL }
#define OPT_INTEGER(s, l, v, h) { CLI_OPT_INTEGER, (s), (l), (v), "n", (h), 0, 0, NULL }
#define OPT_CALLBACK(s, l, v, a, h, f) { CLI_OPT_CALLBACK, (s), (l), (v), (a), (h), 0, 0, (f) }
#define OPT_CALLBACK_F(s, l, v, a, h, fl, f) { CLI_OPT_CALLBACK, (s), (l), (v), (a), (h), (fl), 0, (f) }
/*
 * git's OPT__ABBREV: --abbrev[=<n>] into an int: 0 when negated, -1 (the
 * repository's default, core.abbrev or automatic) when bare, else n clamped
 * to 4..40.
 */
int cli_opt_abbrev(const struct cli_option *opt, const char *arg, int unset);
#define OPT__ABBREV(v) OPT_CALLBACK_F(0, "abbrev", (v), "n", \
	"use <n> digits to display object names", CLI_OPT_OPTARG, cli_opt_abbrev)
#define OPT_UNIMPLEMENTED(s, l) { CLI_OPT_UNIMPLEMENTED, (s), (l), NULL, NULL, NULL, CLI_OPT_HIDDEN, 0, NULL }
#define OPT_GROUP(h) { CLI_OPT_GROUP, 0, NULL, NULL, NULL, (h), 0, 0, NULL }

enum cli_parse_flags {
	CLI_PARSE_STOP_AT_NON_OPTION = 1 << 0,
	CLI_PARSE_KEEP_DASHDASH = 1 << 1,
	CLI_PARSE_KEEP_UNKNOWN = 1 << 2,
};

/*
 * Parse argv[1..argc) (argv[0] is the command name) in git's style:
 * bundled short options, --long=value and --long value, unique prefixes of
 * long options, --no-<long>, "--" ending options, options anywhere unless
 * STOP_AT_NON_OPTION.  Leaves the non-option arguments in argv[0..n) and
 * returns n.  `-h` prints the usage to stdout and exits 129; an unknown or
 * malformed option prints git's error and the usage to stderr and exits 129.
 * `cmd` names the command for CLI_OPT_UNIMPLEMENTED messages.
 */
int cli_parse_options(int argc, const char **argv, const char *cmd,
		      const struct cli_option *opts, const char *const *usage,
		      unsigned int flags);

/* Print usage and the option list to stderr (or stdout) and exit 129. */
_Noreturn void cli_usage_with_options(const char *const *usage,
				      const struct cli_option *opts, int to_stdout);
/* Print "usage: <line>" and exit 129. */
_Noreturn void cli_usage(const char *line);

/* ---- repository setup (cli/setup.c) ---- */

struct fgit_repo;
/*
 * The repository this command runs in, discovered once (GIT_DIR,
 * GIT_WORK_TREE, --bare and -C already applied by main.c), as git's
 * setup_git_directory() does: "fatal: not a git repository ..." and exit
 * 128 when there is none, fatal on a bad config or repository format.
 * Sets cli_globals.prefix.  The handle lives until exit.
 */
struct fgit_repo *cli_repo(void);
/* Die with the last library error from discovery or config loading, as
 * git words it ("error: X" then "fatal: Y" where git prints both). */
_Noreturn void cli_die_setup_error(void);
/* The same, but NULL when there is no repository (git's nongit_ok). */
struct fgit_repo *cli_repo_gently(void);
/* Configuration outside any repository (system, global, -c), for commands
 * that may run without one; the repository's when one was set up. */
struct fgit_config *cli_config(void);
/* "fatal: this operation must be run in a work tree" unless inside one. */
void cli_require_work_tree(struct fgit_repo *repo);
struct fgit_revparse_info;
/* git's warnings about what resolving a revision met: "ignoring broken
 * ref X", "ignoring dangling symref X", "refname 'X' is ambiguous." */
void cli_revparse_warnings(struct fgit_repo *repo, const struct fgit_revparse_info *info);
/* prefix + path (git's prefix_filename); malloc'd. */
char *cli_prefix_path(const char *prefix, const char *path);

/* ---- identities (cli/ident.c) ---- */
struct fgit_buf;
/*
 * Append "Name <email> <time> <tz>" for who ("author" or "committer") as
 * git builds it (environment, config, passwd).  strict: die on an empty
 * name, as for commits ("empty ident name (for <email>) not allowed");
 * reflogs are written with whatever there is.
 */
void cli_ident(struct fgit_buf *b, struct fgit_config *cfg, const char *who, int strict);
/* The committer ident for reflog entries (not strict); malloc'd. */
char *cli_reflog_ident(struct fgit_config *cfg);

/* ---- subcommands ---- */
#define CLI_CMD(name) int cmd_##name(int argc, const char **argv)

#endif
