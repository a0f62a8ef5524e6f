/*
 * git reflog: show (its plain form: `git log -g --oneline` of one ref;
 * log options exit 129), expire, delete, exists.  The expiry policy is
 * fgit_reflog_expire() (lib/ops).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "fgit/config.h"
#include "fgit/date.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/reflog.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const reflog_usage[] = {
	"git reflog [show] [<log-options>] [<ref>]",
	"git reflog expire [--expire=<time>] [--expire-unreachable=<time>]\n"
	"                         [--rewrite] [--updateref] [--stale-fix]\n"
	"                         [--dry-run | -n] [--verbose] [--all [--single-worktree] | <refs>...]",
	"git reflog delete [--rewrite] [--updateref]\n"
	"                         [--dry-run | -n] [--verbose] <ref>@{<specifier>}...",
	"git reflog exists <ref>",
	NULL
};

static const char *const expire_usage[] = {
	"git reflog expire [--expire=<time>] [--expire-unreachable=<time>]\n"
	"                         [--rewrite] [--updateref] [--stale-fix]\n"
	"                         [--dry-run | -n] [--verbose] [--all [--single-worktree] | <refs>...]",
	NULL
};

static const char *const delete_usage[] = {
	"git reflog delete [--rewrite] [--updateref]\n"
	"                         [--dry-run | -n] [--verbose] <ref>@{<specifier>}...",
	NULL
};

static const char *const exists_usage[] = {
	"git reflog exists <ref>",
	NULL
};

static struct fgit_reflog_expire_opts opts;

/* The options expire and delete share (local variables of both). */
#define REWRITE_OPTIONS \
	OPT_BOOL(0, "dry-run", &dry_run, "do not actually prune any entries"), \
	OPT_BOOL(0, "rewrite", &rewrite, \
		 "rewrite the old SHA1 with the new SHA1 of the entry that now precedes it"), \
	OPT_BOOL(0, "updateref", &updateref, \
		 "update the reference to the value of the top reflog entry"), \
	OPT_BOOL(0, "verbose", &verbose, "print extra information on screen")
static int64_t now;

/* git says "would prune" for --dry-run only with --all and in delete */
static int would;

static void report(const char *kind, const char *msg, void *payload)
{
	printf("%s%s %s\n", would && !strcmp(kind, "prune") ? "would " : "", kind, msg);
}

static int opt_expire(const struct cli_option *opt, const char *arg, int unset)
{
	int unreach = opt->long_name[6] != '\0';

	if (fgit_date_parse_expiry(unreach ? &opts.expire_unreachable : &opts.expire_total, arg, now))
		die("invalid timestamp '%s' given to '--%s'", arg, opt->long_name);
	opts.flags |= unreach ? FGIT_EXPIRE_EXPLICIT_UNREACH : FGIT_EXPIRE_EXPLICIT_TOTAL;
	return 0;
}

static int expire_one(struct fgit_repo *repo, const char *ref)
{
	struct fgit_reflog_expire_opts o = opts;

	if (fgit_reflog_expire_config(&o, fgit_repo_config(repo), ref, now, NULL))
		die_last();
	if (fgit_reflog_expire(repo, ref, &o))
		return error("%s", fgit_error_last());
	return 0;
}

/* git reads (and checks) the gc.*reflogExpire* values first. */
static void check_config(struct fgit_repo *repo)
{
	struct fgit_reflog_expire_opts o = opts;
	struct fgit_config *cfg = fgit_repo_config(repo);
	const char *file = NULL;
	char *key = NULL;
	int line = 0;

	if (!fgit_reflog_expire_config(&o, cfg, "HEAD", now, &key))
		return;
	error("%s", fgit_error_last());
	if (!key)
		die_last();
	if (!fgit_config_origin(&file, &line, cfg, key) && file && line > 0)
		die("bad config variable '%s' in file '%s' at line %d", key, file, line);
	die("unable to parse '%s' from command-line config", key);
}

struct names {
	char **v;
	size_t nr, alloc;
};

static int collect(const char *name, void *payload)
{
	struct names *n = payload;

	if (n->nr == n->alloc) {
		n->alloc = n->alloc ? 2 * n->alloc : 32;
		n->v = realloc(n->v, n->alloc * sizeof(*n->v));
		if (!n->v)
			die("out of memory");
	}
	n->v[n->nr++] = strdup(name);
	return 0;
}

static int cmd_expire(int argc, const char **argv)
{
	int dry_run = 0, rewrite = 0, updateref = 0, verbose = 0, stale_fix = 0, all = 0;
	int single = 0, i, status = 0;
	struct fgit_repo *repo;
	struct fgit_refdb *db;
	struct cli_option o[] = {
		REWRITE_OPTIONS,
		OPT_CALLBACK_F(0, "expire", NULL, "timestamp",
			       "prune entries older than the specified time", CLI_OPT_NONEG,
			       opt_expire),
		OPT_CALLBACK_F(0, "expire-unreachable", NULL, "timestamp",
			       "prune entries older than <time> that are not reachable from the current tip of the branch",
			       CLI_OPT_NONEG, opt_expire),
		OPT_BOOL(0, "stale-fix", &stale_fix, "prune any reflog entries that point to broken commits"),
		OPT_BOOL(0, "all", &all, "process the reflogs of all references"),
		OPT_BOOL(0, "single-worktree", &single, "limits processing to reflogs from the current worktree only"),
		OPT_END(),
	};

	repo = cli_repo();
	check_config(repo);
	argc = cli_parse_options(argc, argv, "reflog expire", o, expire_usage, 0);
	if (stale_fix)
		die_unimplemented("reflog expire", "--stale-fix");
	opts.flags |= (dry_run ? FGIT_EXPIRE_DRY_RUN : 0) | (rewrite ? FGIT_EXPIRE_REWRITE : 0) |
		      (updateref ? FGIT_EXPIRE_UPDATEREF : 0) | (verbose ? FGIT_EXPIRE_VERBOSE : 0);
	opts.report = report;
	if (fgit_repo_refdb(&db, repo))
		die_last();
	if (all) {
		struct names n = { NULL, 0, 0 };
		would = dry_run;
		size_t k;
		/* git 2.39's --single-worktree sets the variable it should
		 * clear: every worktree is processed either way */
		if (fgit_reflog_foreach_name(db, FGIT_REFLOG_ALL_WORKTREES, collect, &n))
			die_last();
		for (k = 0; k < n.nr; k++) {
			status |= expire_one(repo, n.v[k]);
			free(n.v[k]);
		}
		free(n.v);
		would = 0;
	}
	for (i = 0; i < argc; i++) {
		char *ref = NULL;
		if (!fgit_refdb_dwim_log(&ref, db, argv[i], strlen(argv[i]))) {
			status |= error("%s points nowhere!", argv[i]);
			continue;
		}
		status |= expire_one(repo, ref);
		free(ref);
	}
	return status;
}

static int delete_one(struct fgit_repo *repo, struct fgit_refdb *db, const char *rev)
{
	const char *spec = strstr(rev, "@{");
	struct fgit_reflog_expire_opts o = opts;
	char *ref = NULL, *ep;
	unsigned long recno;
	long total;
	int r = 0;

	if (!spec)
		return error("not a reflog: %s", rev);
	if (!fgit_refdb_dwim_log(&ref, db, rev, (size_t)(spec - rev)))
		return error("no reflog for '%s'", rev);
	recno = strtoul(spec + 2, &ep, 10);
	if (*ep == '}') {
		total = fgit_reflog_count(repo, ref, NULL);
		o.recno = total - (long)recno;
	} else {
		char *date = strdup(spec + 2), *close = strchr(date, '}');
		int64_t t = 0;
		if (close)
			*close = '\0';
		if (fgit_date_parse_expiry(&t, date, now))
			t = 0;
		free(date);
		o.recno = fgit_reflog_count(repo, ref, &t);
	}
	if (o.recno < 0)
		o.recno = 0;
	o.expire_total = 0;
	o.expire_unreachable = 0;
	if (fgit_reflog_expire(repo, ref, &o))
		r = error("%s", fgit_error_last());
	free(ref);
	return r;
}

static int cmd_delete(int argc, const char **argv)
{
	int dry_run = 0, rewrite = 0, updateref = 0, verbose = 0, i, status = 0;
	struct fgit_repo *repo;
	struct fgit_refdb *db;
	struct cli_option o[] = {
		REWRITE_OPTIONS,
		OPT_END(),
	};

	repo = cli_repo();
	argc = cli_parse_options(argc, argv, "reflog delete", o, delete_usage, 0);
	would = dry_run;
	opts.flags |= (dry_run ? FGIT_EXPIRE_DRY_RUN : 0) | (rewrite ? FGIT_EXPIRE_REWRITE : 0) |
		      (updateref ? FGIT_EXPIRE_UPDATEREF : 0) | (verbose ? FGIT_EXPIRE_VERBOSE : 0);
	opts.report = report;
	if (argc < 1)
		return error("no reflog specified to delete");
	if (fgit_repo_refdb(&db, repo))
		die_last();
	for (i = 0; i < argc; i++)
		status |= delete_one(repo, db, argv[i]);
	return status;
}

static int cmd_exists(int argc, const char **argv)
{
	struct fgit_refdb *db;
	struct cli_option o[] = { OPT_END() };
	struct fgit_repo *repo = cli_repo();

	argc = cli_parse_options(argc, argv, "reflog exists", o, exists_usage, 0);
	if (!argc) {
		fprintf(stderr, "usage: %s\n\n", exists_usage[0]);
		exit(129);
	}
	if (fgit_refname_check(argv[0], FGIT_REFNAME_ALLOW_ONELEVEL))
		die("invalid ref format: %s", argv[0]);
	if (fgit_repo_refdb(&db, repo))
		die_last();
	return !fgit_reflog_exists(db, argv[0]);
}

struct show_ctx {
	struct fgit_odb *odb;
	const char *name;
	long n;
	int abbrev;
	long skip;		/* entries before <ref>@{<n>} */
};

static int show_entry(const struct fgit_reflog_entry *e, void *payload)
{
	struct show_ctx *c = payload;
	struct fgit_object_info info;
	char hex[FGIT_MAX_HEXSZ + 1];
	long n = c->n++;
	int len;

	if (n < c->skip)
		return 0;
	/* git log -g shows only entries whose new value is a commit */
	if (fgit_odb_read_info(&info, c->odb, &e->new_oid, 0) || info.type != FGIT_OBJ_COMMIT) {
		fgit_error_clear();
		return 0;
	}
	len = fgit_odb_abbrev_len(c->odb, &e->new_oid, c->abbrev);
	fgit_oid_to_hex(hex, &e->new_oid);
	printf("%.*s %s@{%ld}: %s\n", len, hex, c->name, n, e->msg);
	return 0;
}

static int cmd_show(int argc, const char **argv)
{
	struct fgit_repo *repo = cli_repo();
	struct show_ctx c = { NULL, "HEAD", 0, 7, 0 };
	struct fgit_refdb *db;
	struct fgit_oid oid;
	char *log = NULL;

	char *name = NULL;
	long start = 0;

	if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
		die_unimplemented("reflog", "show with log options");
	if (argc == 1) {
		/* <ref>@{<n>}: start at that entry */
		const char *at = strstr(argv[0], "@{");
		char *end;
		if (at) {
			start = strtol(at + 2, &end, 10);
			if (end == at + 2 || strcmp(end, "}") || start < 0)
				die_unimplemented("reflog", "show <ref>@{<date>}");
			name = strndup(argv[0], (size_t)(at - argv[0]));
			c.name = name;
			if (!*name) {
				/* "@{n}": the current branch, by its full name */
				struct fgit_refdb *hdb;
				char *branch = NULL;
				unsigned int fl = 0;
				if (fgit_repo_refdb(&hdb, repo) ||
				    fgit_refdb_read_raw(NULL, &branch, &fl, hdb, "HEAD") ||
				    !(fl & FGIT_REF_SYMBOLIC))
					die_unimplemented("reflog", "show @{<n>} on a detached HEAD");
				free(name);
				c.name = name = branch;
			}
		} else {
			c.name = argv[0];
		}
	}
	c.skip = start;
	if (fgit_repo_refdb(&db, repo) || fgit_repo_odb(&c.odb, repo))
		die_last();
	c.abbrev = fgit_repo_default_abbrev(repo);
	if (!fgit_refdb_dwim_log(&log, db, c.name, strlen(c.name))) {
		if (fgit_revparse_single(&oid, repo, c.name))
			die("ambiguous argument '%s': unknown revision or path not in the working tree.\n"
			    "Use '--' to separate paths from revisions, like this:\n"
			    "'git <command> [<revision>...] -- [<file>...]'", c.name);
		free(name);
		return 0;
	}
	if (start && fgit_reflog_count(repo, log, NULL) <= start)
		die("log for '%s' only has %ld entries", c.name, fgit_reflog_count(repo, log, NULL));
	if (fgit_reflog_foreach(db, log, 1, show_entry, &c))
		die_last();
	free(log);
	free(name);
	cli_flush_stdout();
	return 0;
}

CLI_CMD(reflog)
{
	now = (int64_t)time(NULL);
	if (argc > 1 && !strcmp(argv[1], "expire"))
		return cmd_expire(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "delete"))
		return cmd_delete(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "exists"))
		return cmd_exists(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help-all"))) {
		struct cli_option o[] = { OPT_END() };
		cli_usage_with_options(reflog_usage, o, 1);
	}
	if (argc > 1 && !strcmp(argv[1], "show"))
		return cmd_show(argc - 2, argv + 2);
	return cmd_show(argc - 1, argv + 1);
}
