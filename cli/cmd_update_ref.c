/*
 * git update-ref: set, check or delete refs, one on the command line or a
 * transaction of many read from standard input (--stdin, with -z for
 * NUL-separated fields), in git's command language:
 *   update SP <ref> SP <new> [SP <old>] LF     create SP <ref> SP <new> LF
 *   delete SP <ref> [SP <old>] LF              verify SP <ref> [SP <old>] LF
 *   option SP no-deref LF    start LF    prepare LF    commit LF    abort LF
 * The writing itself is fgit_ref_transaction_* in lib/refs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/quote.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const update_ref_usage[] = {
	"git update-ref [<options>] -d <refname> [<old-val>]",
	"git update-ref [<options>]    <refname> <new-val> [<old-val>]",
	"git update-ref [<options>] --stdin [-z]",
	NULL
};

static struct fgit_repo *repo;
static struct fgit_refdb *db;
static char *committer;
static const char *msg;
static char term = '\n';
static unsigned int default_flags, update_flags, create_reflog_flag;

enum state { ST_OPEN, ST_STARTED, ST_PREPARED, ST_CLOSED };

static void get_oid(struct fgit_oid *out, const char *arg)
{
	if (fgit_revparse_single(out, repo, arg))
		die("%s: not a valid SHA1", arg);
}

/* An argument without -z: C-quoted, or up to the next space. */
static const char *parse_arg(const char *next, struct fgit_buf *arg)
{
	if (*next == '"') {
		const char *orig = next;
		if (fgit_unquote_c_style(arg, next, &next))
			die("badly quoted argument: %s", orig);
		if (*next && !isspace((unsigned char)*next))
			die("unexpected character after quoted argument: %s", orig);
	} else {
		while (*next && !isspace((unsigned char)*next))
			fgit_buf_addch(arg, *next++);
	}
	return next;
}

static char *parse_refname(const char **next)
{
	struct fgit_buf ref = FGIT_BUF_INIT;

	if (term) {
		*next = parse_arg(*next, &ref);
	} else {
		fgit_buf_adds(&ref, *next);
		*next += ref.len;
	}
	if (!ref.len) {
		fgit_buf_release(&ref);
		return NULL;
	}
	if (fgit_refname_check(ref.ptr, FGIT_REFNAME_ALLOW_ONELEVEL))
		die("invalid ref format: %s", ref.ptr);
	return fgit_buf_detach(&ref, NULL);
}

enum { OID_ALLOW_EMPTY = 1, OID_OLD = 2 };

/* 0: *oid read; 1: absent (unspecified). */
static int parse_next_oid(const char **next, const char *end, struct fgit_oid *oid,
			  const char *command, const char *refname, int flags)
{
	struct fgit_buf arg = FGIT_BUF_INIT;
	int ret = 0;

	if (*next == end)
		goto eof;
	if (term) {
		if (!**next || **next == term)
			return 1;
		if (**next != ' ')
			die("%s %s: expected SP but got: %s", command, refname, *next);
		(*next)++;
		*next = parse_arg(*next, &arg);
		if (arg.len) {
			if (fgit_revparse_single(oid, repo, arg.ptr))
				goto invalid;
		} else {
			fgit_oid_zero(oid, fgit_repo_algo(repo));
		}
	} else {
		if (**next)
			die("%s %s: expected NUL but got: %s", command, refname, *next);
		(*next)++;
		if (*next == end)
			goto eof;
		fgit_buf_adds(&arg, *next);
		*next += arg.len;
		if (arg.len) {
			if (fgit_revparse_single(oid, repo, arg.ptr))
				goto invalid;
		} else if (flags & OID_ALLOW_EMPTY) {
			warning("%s %s: missing <newvalue>, treating as zero", command, refname);
			fgit_oid_zero(oid, fgit_repo_algo(repo));
		} else {
			ret = 1;
		}
	}
	fgit_buf_release(&arg);
	return ret;
invalid:
	die(flags & OID_OLD ? "%s %s: invalid <oldvalue>: %s" : "%s %s: invalid <newvalue>: %s",
	    command, refname, arg.ptr);
eof:
	die(flags & OID_OLD ? "%s %s: unexpected end of input when reading <oldvalue>"
			    : "%s %s: unexpected end of input when reading <newvalue>",
	    command, refname);
}

static void extra_input(const char *next, const char *what, const char *refname)
{
	if (*next == term)
		return;
	if (refname)
		die("%s %s: extra input: %s", what, refname, next);
	die("%s: extra input: %s", what, next);
}

static void cmd_update(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	struct fgit_oid new_oid, old_oid;
	char *refname = parse_refname(&next);
	int have_old;

	if (!refname)
		die("update: missing <ref>");
	if (parse_next_oid(&next, end, &new_oid, "update", refname, OID_ALLOW_EMPTY))
		die("update %s: missing <newvalue>", refname);
	have_old = !parse_next_oid(&next, end, &old_oid, "update", refname, OID_OLD);
	extra_input(next, "update", refname);
	if (fgit_ref_transaction_update(tx, refname, &new_oid, have_old ? &old_oid : NULL,
					update_flags | create_reflog_flag, msg))
		die_last();
	update_flags = default_flags;
	free(refname);
}

static void cmd_create(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	struct fgit_oid new_oid, zero;
	char *refname = parse_refname(&next);

	if (!refname)
		die("create: missing <ref>");
	if (parse_next_oid(&next, end, &new_oid, "create", refname, 0))
		die("create %s: missing <newvalue>", refname);
	if (fgit_oid_is_zero(&new_oid))
		die("create %s: zero <newvalue>", refname);
	extra_input(next, "create", refname);
	fgit_oid_zero(&zero, fgit_repo_algo(repo));
	if (fgit_ref_transaction_update(tx, refname, &new_oid, &zero,
					update_flags | create_reflog_flag, msg))
		die_last();
	update_flags = default_flags;
	free(refname);
}

static void cmd_delete(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	struct fgit_oid old_oid;
	char *refname = parse_refname(&next);
	int have_old;

	if (!refname)
		die("delete: missing <ref>");
	if (parse_next_oid(&next, end, &old_oid, "delete", refname, OID_OLD)) {
		have_old = 0;
	} else {
		if (fgit_oid_is_zero(&old_oid))
			die("delete %s: zero <oldvalue>", refname);
		have_old = 1;
	}
	extra_input(next, "delete", refname);
	if (fgit_ref_transaction_update(tx, refname, NULL, have_old ? &old_oid : NULL,
					update_flags, msg))
		die_last();
	update_flags = default_flags;
	free(refname);
}

static void cmd_verify(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	struct fgit_oid old_oid;
	char *refname = parse_refname(&next);

	if (!refname)
		die("verify: missing <ref>");
	if (parse_next_oid(&next, end, &old_oid, "verify", refname, OID_OLD))
		fgit_oid_zero(&old_oid, fgit_repo_algo(repo));
	extra_input(next, "verify", refname);
	if (fgit_ref_transaction_verify(tx, refname, &old_oid, update_flags))
		die_last();
	update_flags = default_flags;
	free(refname);
}

static void cmd_option(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	if (strncmp(next, "no-deref", 8) || next[8] != term)
		die("option unknown: %s", next);
	update_flags |= FGIT_REF_NO_DEREF;
}

static void report_ok(const char *command)
{
	printf("%s: ok\n", command);
	cli_flush_stdout();
}

static void cmd_start(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	extra_input(next, "start", NULL);
	report_ok("start");
}

static void cmd_prepare(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	extra_input(next, "prepare", NULL);
	if (fgit_ref_transaction_prepare(tx))
		die_last();
	report_ok("prepare");
}

static void cmd_abort(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	extra_input(next, "abort", NULL);
	fgit_ref_transaction_abort(tx);
	report_ok("abort");
}

static void cmd_commit(struct fgit_ref_transaction *tx, const char *next, const char *end)
{
	extra_input(next, "commit", NULL);
	if (fgit_ref_transaction_commit(tx, committer))
		die_last();
	report_ok("commit");
}

static const struct stdin_cmd {
	const char *prefix;
	void (*fn)(struct fgit_ref_transaction *tx, const char *next, const char *end);
	unsigned int args;
	enum state state;
} commands[] = {
	{ "update", cmd_update, 3, ST_OPEN },
	{ "create", cmd_create, 2, ST_OPEN },
	{ "delete", cmd_delete, 2, ST_OPEN },
	{ "verify", cmd_verify, 2, ST_OPEN },
	{ "option", cmd_option, 1, ST_OPEN },
	{ "start", cmd_start, 0, ST_STARTED },
	{ "prepare", cmd_prepare, 0, ST_PREPARED },
	{ "abort", cmd_abort, 0, ST_CLOSED },
	{ "commit", cmd_commit, 0, ST_CLOSED },
};

/* One line (or NUL-terminated field), terminator included; 0 at EOF. */
static int read_field(struct fgit_buf *b, int append)
{
	int c, any = 0;

	if (!append)
		fgit_buf_reset(b);
	while ((c = getchar()) != EOF) {
		any = 1;
		fgit_buf_addch(b, c);
		if (c == (unsigned char)term)
			break;
	}
	return any;
}

static void update_refs_stdin(void)
{
	struct fgit_buf in = FGIT_BUF_INIT;
	struct fgit_ref_transaction *tx = NULL;
	enum state state = ST_OPEN;
	size_t i, j;

	if (fgit_ref_transaction_begin(&tx, db))
		die_last();
	while (read_field(&in, 0)) {
		const struct stdin_cmd *cmd = NULL;

		if (in.ptr[0] == term)
			die("empty command in input");
		if (isspace((unsigned char)in.ptr[0]))
			die("whitespace before command: %s", in.ptr);
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			size_t n = strlen(commands[i].prefix);
			char c = commands[i].args ? ' ' : term;
			if (strncmp(in.ptr, commands[i].prefix, n) || in.ptr[n] != c)
				continue;
			cmd = &commands[i];
			break;
		}
		if (!cmd)
			die("unknown command: %s", in.ptr);
		for (j = 1; !term && j < cmd->args; j++)
			if (!read_field(&in, 1))
				break;
		switch (state) {
		case ST_OPEN:
		case ST_STARTED:
			if (state == ST_STARTED && cmd->state == ST_STARTED)
				die("cannot restart ongoing transaction");
			if (cmd->state >= state)
				state = cmd->state;
			break;
		case ST_PREPARED:
			if (cmd->state != ST_CLOSED)
				die("prepared transactions can only be closed");
			state = cmd->state;
			break;
		case ST_CLOSED:
			if (cmd->state != ST_STARTED)
				die("transaction is closed");
			state = cmd->state;
			fgit_ref_transaction_free(tx);
			if (fgit_ref_transaction_begin(&tx, db))
				die_last();
			break;
		}
		cmd->fn(tx, in.ptr + strlen(cmd->prefix) + !!cmd->args, in.ptr + in.len);
	}
	if (state == ST_OPEN && fgit_ref_transaction_commit(tx, committer))
		die_last();
	fgit_ref_transaction_free(tx);
	fgit_buf_release(&in);
}

CLI_CMD(update_ref)
{
	int del = 0, no_deref = 0, read_stdin = 0, end_null = 0, create_reflog = 0, n;
	const char *refname, *value = NULL, *oldval = NULL;
	struct fgit_oid oid, oldoid;
	struct cli_option opts[] = {
		OPT_STRING('m', NULL, &msg, "reason", "reason of the update"),
		OPT_BOOL('d', NULL, &del, "delete the reference"),
		OPT_BOOL(0, "no-deref", &no_deref, "update <refname> not the one it points to"),
		OPT_BOOL('z', NULL, &end_null, "stdin has NUL-terminated arguments"),
		OPT_BOOL(0, "stdin", &read_stdin, "read updates from stdin"),
		OPT_BOOL(0, "create-reflog", &create_reflog, "create a reflog"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "update-ref", opts, update_ref_usage, 0);
	if (msg && !*msg)
		die("Refusing to perform update with empty message.");
	repo = cli_repo();
	if (fgit_repo_refdb(&db, repo))
		die_last();
	committer = cli_reflog_ident(fgit_repo_config(repo));
	create_reflog_flag = create_reflog ? FGIT_REF_CREATE_REFLOG : 0;
	if (no_deref)
		default_flags = FGIT_REF_NO_DEREF;
	update_flags = default_flags;

	if (read_stdin) {
		if (del || n > 0)
			cli_usage_with_options(update_ref_usage, opts, 0);
		if (end_null)
			term = '\0';
		update_refs_stdin();
		return 0;
	}
	if (end_null)
		cli_usage_with_options(update_ref_usage, opts, 0);
	if (del) {
		if (n < 1 || n > 2)
			cli_usage_with_options(update_ref_usage, opts, 0);
		refname = argv[0];
		oldval = n > 1 ? argv[1] : NULL;
	} else {
		if (n < 2 || n > 3)
			cli_usage_with_options(update_ref_usage, opts, 0);
		refname = argv[0];
		value = argv[1];
		oldval = n > 2 ? argv[2] : NULL;
		get_oid(&oid, value);
	}
	if (oldval) {
		if (!*oldval)
			fgit_oid_zero(&oldoid, fgit_repo_algo(repo));
		else if (fgit_revparse_single(&oldoid, repo, oldval))
			die("%s: not a valid old SHA1", oldval);
	}
	if (del) {
		if (!fgit_refname_is_safe(refname)) {
			error("refusing to update ref with bad name '%s'", refname);
			return 1;
		}
		/* as git: a zero old value means no check */
		if (fgit_refdb_update(db, refname, NULL,
				      oldval && !fgit_oid_is_zero(&oldoid) ? &oldoid : NULL,
				      default_flags, msg, committer)) {
			error_last();
			return 1;
		}
		return 0;
	}
	if (fgit_refdb_update(db, refname, &oid, oldval ? &oldoid : NULL,
			      default_flags | create_reflog_flag, msg, committer))
		die("update_ref failed for ref '%s': %s", refname, fgit_error_last());
	return 0;
}
