/*
 * git commit: record the index (or, with -a or paths, an updated one) as
 * a new commit on HEAD.
 *
 * The order of git's builtin/commit.c shows in what users and hooks see,
 * so it is kept: the index is prepared under index.lock (as-is: refreshed
 * and written at once; -a: updated and written to index.lock, which the
 * hooks get as GIT_INDEX_FILE and which replaces the index only when the
 * commit is made; paths: git's "only" semantics, the real index updated
 * for those paths under index.lock and the commit made from a temporary
 * index "next-index-<pid>.lock" holding HEAD plus those paths); then the
 * pre-commit hook, the message (-m paragraphs, -F, or the editor),
 * COMMIT_EDITMSG, the "nothing to commit" check, prepare-commit-msg, the
 * editor, commit-msg, cleanup; then the tree (from the cache tree: only
 * directories on changed paths are rebuilt), the commit object, HEAD
 * through a ref transaction with its reflog entry, the index, post-commit
 * and the summary.
 *
 * After the commit, `gc --auto` runs in process (auto_maintenance).
 * Not done here: the post-rewrite hook after
 * --amend, the full status
 * listing in the editor template (a short version is written).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "untr_setup.h"
#include "add_setup.h"
#include "wt_setup.h"
#include "fgit/add.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/gc.h"
#include "fgit/date.h"
#include "fgit/diff.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/lockfile.h"
#include "fgit/message.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/run.h"
#include "fgit/worktree.h"

static const char *const commit_usage[] = {
	"git commit [<options>] [--] <pathspec>...",
	NULL
};

static struct fgit_buf opt_msg = FGIT_BUF_INIT;
static int have_m;

static int opt_message(const struct cli_option *opt, const char *arg, int unset)
{
	have_m = 1;
	if (opt_msg.len)
		fgit_buf_addch(&opt_msg, '\n');
	fgit_buf_adds(&opt_msg, arg);
	if (opt_msg.len && opt_msg.ptr[opt_msg.len - 1] != '\n')
		fgit_buf_addch(&opt_msg, '\n');
	return 0;
}

struct commit_state {
	struct fgit_repo *repo;
	struct fgit_config *cfg;
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	const char *top;
	int use_editor, no_verify, quiet, hook_ran;
	const char *editmsg_arg;	/* COMMIT_EDITMSG as git names it to hooks */
};

/* ---- hooks ---- */

/* A path under the work tree as git names it after moving to the top
 * (".git/index"); others as they are.  malloc'd. */
static char *git_path_for_hooks(struct commit_state *s, const char *path)
{
	size_t tl = strlen(s->top);
	if (!strncmp(path, s->top, tl) && path[tl] == '/')
		return strdup(path + tl + 1);
	return strdup(path);
}


/* The hook's path in *out: 1 when it can run, 0 when absent (or not
 * executable: git's advice is printed then). */
static int find_hook(struct fgit_buf *out, struct commit_state *s, const char *name)
{
	const char *dir = NULL;
	struct stat st;

	fgit_buf_reset(out);
	if (!fgit_config_get_string(&dir, s->cfg, "core.hookspath") && dir)
		fgit_buf_addf(out, "%s/%s", dir, name);
	else
		fgit_buf_addf(out, "%s/hooks/%s", fgit_repo_common_dir(s->repo), name);
	fgit_error_clear();
	if (stat(out->ptr, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (access(out->ptr, X_OK)) {
		int advice = 1;
		if (fgit_config_get_bool(&advice, s->cfg, "advice.ignoredhook"))
			advice = 1;
		fgit_error_clear();
		if (advice) {
			char *shown = git_path_for_hooks(s, out->ptr);
			fflush(stdout);
			fprintf(stderr, "hint: The '%s' hook was ignored because it's not set as executable.\n"
				"hint: You can disable this warning with `git config advice.ignoredHook false`.\n",
				shown);
			free(shown);
		}
		return 0;
	}
	return 1;
}

/* Run hook `name` with args; its exit code (0 when there is none). */
static int run_hook(struct commit_state *s, const char *index_file, const char *name,
		    const char *a1, const char *a2, const char *a3)
{
	struct fgit_buf path = FGIT_BUF_INIT, envi = FGIT_BUF_INIT;
	struct fgit_child c = FGIT_CHILD_INIT;
	const char *argv[5], *env[3];
	int r, n = 0, ne = 0;

	if (!find_hook(&path, s, name)) {
		fgit_buf_release(&path);
		return 0;
	}
	s->hook_ran = 1;
	argv[n++] = path.ptr;
	if (a1)
		argv[n++] = a1;
	if (a2)
		argv[n++] = a2;
	if (a3)
		argv[n++] = a3;
	argv[n] = NULL;
	fgit_buf_addf(&envi, "GIT_INDEX_FILE=%s", index_file);
	env[ne++] = envi.ptr;
	if (!s->use_editor)
		env[ne++] = "GIT_EDITOR=:";
	env[ne] = NULL;
	c.argv = argv;
	c.env = env;
	c.in = FGIT_CHILD_NULL;
	c.out = 2;	/* hooks' output goes to stderr, as in git */
	fflush(stdout);
	if ((r = fgit_child_start(&c)) < 0) {
		error_last();
		r = 1;
	} else {
		r = fgit_child_finish(&c);
	}
	fgit_buf_release(&path);
	fgit_buf_release(&envi);
	return r;
}

/* ---- editor ---- */

static int terminal_is_dumb(void)
{
	const char *t = getenv("TERM");
	return !t || !strcmp(t, "dumb");
}

/* git's editor resolution; NULL when the terminal is dumb and none is set. */
static const char *resolve_editor(struct commit_state *s)
{
	const char *e = getenv("GIT_EDITOR");

	if (!e && (fgit_config_get_string(&e, s->cfg, "core.editor") || !e))
		e = NULL;
	fgit_error_clear();
	if (!e && !terminal_is_dumb())
		e = getenv("VISUAL");
	if (!e)
		e = getenv("EDITOR");
	if (!e && terminal_is_dumb())
		return NULL;
	return e ? e : "vi";
}

static int launch_editor(struct commit_state *s, const char *path, const char *index_file)
{
	const char *ed = resolve_editor(s), *argv[3], *env[2];
	struct fgit_child c = FGIT_CHILD_INIT;
	struct fgit_buf envi = FGIT_BUF_INIT;
	int r;

	if (!ed)
		return error("Terminal is dumb, but EDITOR unset");
	if (!strcmp(ed, ":"))
		return 0;
	argv[0] = ed;
	argv[1] = path;
	argv[2] = NULL;
	fgit_buf_addf(&envi, "GIT_INDEX_FILE=%s", index_file);
	env[0] = envi.ptr;
	env[1] = NULL;
	c.argv = argv;
	c.env = env;
	c.use_shell = 1;
	fflush(stdout);
	if ((r = fgit_child_start(&c)) < 0) {
		error_last();
		error("unable to start editor '%s'", ed);
		fgit_buf_release(&envi);
		return -1;
	}
	r = fgit_child_finish(&c);
	fgit_buf_release(&envi);
	if (r)
		return error("There was a problem with the editor '%s'.", ed);
	return 0;
}

/* ---- identities ---- */

static int env_or_config(struct commit_state *s, const char *env, const char *key1,
			 const char *key2)
{
	const char *v = getenv(env);
	if (v)
		return 1;
	if ((!fgit_config_get_string(&v, s->cfg, key1) && v) ||
	    (!fgit_config_get_string(&v, s->cfg, key2) && v)) {
		fgit_error_clear();
		return 1;
	}
	fgit_error_clear();
	return 0;
}

/*
 * git's strict ident check: an e-mail address neither configured nor in
 * the environment is guessed from the user and host names, and a host
 * name without a domain makes it "bogus": git refuses to commit.
 */
static void check_ident(struct commit_state *s, const char *who)
{
	char host[256] = "";
	struct passwd *pw;
	int author = who[0] == 'a';

	if (env_or_config(s, author ? "GIT_AUTHOR_EMAIL" : "GIT_COMMITTER_EMAIL",
			  author ? "author.email" : "committer.email", "user.email") ||
	    getenv("EMAIL"))
		return;
	gethostname(host, sizeof(host) - 1);
	if (strchr(host, '.'))
		return;
	pw = getpwuid(getuid());
	fflush(stdout);
	fprintf(stderr, "%s identity unknown\n\n"
		"*** Please tell me who you are.\n\n"
		"Run\n\n"
		"  git config --global user.email \"you@example.com\"\n"
		"  git config --global user.name \"Your Name\"\n\n"
		"to set your account's default identity.\n"
		"Omit --global to set the identity only in this repository.\n\n",
		author ? "Author" : "Committer");
	die("unable to auto-detect email address (got '%s@%s.(none)')",
	    pw ? pw->pw_name : "unknown", host);
}

/* Replace the date part of an ident line with the --date value. */
static void set_ident_date(struct fgit_buf *ident, const char *date)
{
	struct fgit_ident id;
	struct fgit_buf n = FGIT_BUF_INIT;
	int64_t t;
	int tz;

	if (fgit_date_parse(&t, &tz, date))
		die("invalid date format: %s", date);
	if (fgit_ident_split(&id, ident->ptr, ident->len))
		die("malformed ident %s", ident->ptr);
	fgit_buf_add(&n, ident->ptr, (size_t)(id.email + id.email_len - ident->ptr) + 1);
	fgit_buf_addf(&n, " %lld %c%04d", (long long)t, tz < 0 ? '-' : '+', tz < 0 ? -tz : tz);
	fgit_buf_release(ident);
	*ident = n;
}

/* git's default date format: "Thu Apr 7 15:13:13 2005 -0700". */
static void add_date(struct fgit_buf *b, int64_t t, int tz)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int off = (tz < 0 ? -1 : 1) * ((abs(tz) / 100) * 3600 + (abs(tz) % 100) * 60);
	time_t local = (time_t)(t + off);
	struct tm tm;

	gmtime_r(&local, &tm);
	fgit_buf_addf(b, "%s %s %d %02d:%02d:%02d %d %c%04d", days[tm.tm_wday], months[tm.tm_mon],
		      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year + 1900,
		      tz < 0 ? '-' : '+', abs(tz));
}

/*
 * git's run_auto_maintenance() after a commit: `maintenance run --auto`,
 * whose default task is `gc --auto` (thresholds gc.auto, gc.autoPackLimit),
 * unless maintenance.auto is false.  In process, with gc's messages.
 */
static void gc_report(int level, const char *msg, void *payload)
{
	fflush(stdout);
	fprintf(stderr, "%s%s\n", level == 0 ? "warning: " : level == 1 ? "error: " : "", msg);
}

static void auto_maintenance(struct commit_state *s)
{
	struct fgit_gc_options go = FGIT_GC_OPTIONS_INIT;
	int on = 1;

	if (!fgit_config_get_bool(&on, fgit_repo_config(s->repo), "maintenance.auto") && !on)
		return;
	fgit_error_clear();
	go.auto_gc = 1;
	go.quiet = s->quiet;
	go.report = gc_report;
	if (fgit_gc(s->repo, &go) < 0) {
		/* git reports a failed maintenance run and keeps the commit */
		error("%s", fgit_error_last());
		fgit_error_clear();
	}
}

/* The status command: git prints its long format when there is nothing to commit. */
int cmd_status(int argc, const char **argv);

/* ---- index preparation ---- */

static int report_add(enum fgit_add_event ev, const char *path, const char *msg, void *payload)
{
	if (cli_add_report_common(ev, path, msg))
		die("updating files failed");
	return 0;
}

/* Write idx into lk (smudging racy entries first), keeping the lock. */
static void write_into_lock(struct fgit_index *idx, struct fgit_lockfile *lk,
			    struct commit_state *s, const struct fgit_wt_stat_options *so)
{
	struct fgit_index_write_opts wo;

	fgit_add_smudge_racy(idx, ".", so);
	cli_index_write_opts(&wo, s->repo);
	if (fgit_index_write_fd(idx, fgit_lockfile_fd(lk), &wo))
		die("unable to write new_index file");
}

/* Stage paths (re-hash changed ones, drop missing ones) into idx. */
static void update_paths(struct fgit_index *idx, const char *const *paths, size_t n,
			 struct fgit_add_options *ao)
{
	if (fgit_add_paths(idx, paths, n, ao, NULL) < 0)
		die_last();
}

/* The head commit and what the summary calls the branch. */
struct head {
	int exists;
	struct fgit_oid oid;
	char *ref;		/* "refs/heads/main", or "HEAD" when detached */
	void *commit;		/* raw commit object, when exists */
	size_t commit_len;
	struct fgit_commit parsed;
};

static void read_head(struct head *h, struct commit_state *s)
{
	unsigned int flags = 0;
	enum fgit_object_type t;
	int r;

	memset(h, 0, sizeof(*h));
	r = fgit_refdb_resolve(&h->oid, &h->ref, &flags, s->refdb, "HEAD");
	if (r == FGIT_ENOTFOUND) {
		fgit_error_clear();
		if (!h->ref)
			h->ref = strdup("HEAD");
		return;
	}
	if (r < 0)
		die_last();
	if (fgit_odb_read(&h->commit, &h->commit_len, &t, s->odb, &h->oid) < 0 ||
	    t != FGIT_OBJ_COMMIT ||
	    fgit_commit_parse(&h->parsed, h->commit, h->commit_len, fgit_repo_algo(s->repo)) < 0) {
		char hex[FGIT_MAX_HEXSZ + 1];
		die("could not parse HEAD commit %s", fgit_oid_to_hex(hex, &h->oid));
	}
	h->exists = 1;
}

static const char *branch_name(const struct head *h)
{
	if (!strcmp(h->ref, "HEAD"))
		return NULL;
	return !strncmp(h->ref, "refs/heads/", 11) ? h->ref + 11 : h->ref;
}

static enum fgit_cleanup_mode parse_cleanup(const char *v, int use_editor)
{
	if (!v || !strcmp(v, "default"))
		return use_editor ? FGIT_CLEANUP_STRIP : FGIT_CLEANUP_WHITESPACE;
	if (!strcmp(v, "verbatim"))
		return FGIT_CLEANUP_VERBATIM;
	if (!strcmp(v, "whitespace"))
		return FGIT_CLEANUP_WHITESPACE;
	if (!strcmp(v, "strip"))
		return FGIT_CLEANUP_STRIP;
	if (!strcmp(v, "scissors"))
		return use_editor ? FGIT_CLEANUP_SCISSORS : FGIT_CLEANUP_WHITESPACE;
	die("Invalid cleanup mode %s", v);
}

CLI_CMD(commit)
{
	struct commit_state s;
	struct head head;
	struct fgit_add_options ao = FGIT_ADD_OPTIONS_INIT;
	struct fgit_lockfile *lk = NULL, *false_lk = NULL;
	struct fgit_index *idx = NULL, *cidx;
	struct fgit_pathspec *ps = NULL;
	struct fgit_buf msg = FGIT_BUF_INIT, author = FGIT_BUF_INIT, committer = FGIT_BUF_INIT;
	struct fgit_buf obj = FGIT_BUF_INIT, reflog = FGIT_BUF_INIT, editmsg = FGIT_BUF_INIT;
	struct fgit_buf false_path = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	struct fgit_oid tree, commit_oid, parent_tree, *parents = NULL;
	const char *logfile = NULL, *author_arg = NULL, *date_arg = NULL, *cleanup_arg = NULL;
	const char *pathspec_from_file = NULL, *hook_index, *commit_index_path;
	const char **args;
	char *index_path, hex[FGIT_MAX_HEXSZ + 1];
	size_t nargs, nparents = 0, i;
	int all = 0, allow_empty = 0, allow_empty_msg = 0, amend = 0, signoff = 0, edit = -1;
	int only = 0, include = 0, reset_author = 0, pathspec_nul = 0, status_opt = 1;
	int commitable, have_parent_tree = 0;
	char comment_char = '#';
	struct cli_option opts[] = {
		OPT__QUIET(&s.quiet, "suppress summary after successful commit"),
		OPT_UNIMPLEMENTED('v', "verbose"),
		OPT_GROUP("Commit message options"),
		OPT_STRING('F', "file", &logfile, "file", "read message from file"),
		OPT_STRING(0, "author", &author_arg, "author", "override author for commit"),
		OPT_STRING(0, "date", &date_arg, "date", "override date for commit"),
		OPT_CALLBACK_F('m', "message", NULL, "message", "commit message", CLI_OPT_NONEG,
			       opt_message),
		OPT_UNIMPLEMENTED('c', "reedit-message"),
		OPT_UNIMPLEMENTED('C', "reuse-message"),
		OPT_UNIMPLEMENTED(0, "fixup"),
		OPT_UNIMPLEMENTED(0, "squash"),
		OPT_BOOL(0, "reset-author", &reset_author, "the commit is authored by me now (used with -C/-c/--amend)"),
		OPT_UNIMPLEMENTED(0, "trailer"),
		OPT_BOOL('s', "signoff", &signoff, "add a Signed-off-by trailer"),
		OPT_UNIMPLEMENTED('t', "template"),
		OPT_BOOL('e', "edit", &edit, "force edit of commit"),
		OPT_STRING(0, "cleanup", &cleanup_arg, "mode", "how to strip spaces and #comments from message"),
		OPT_BOOL(0, "status", &status_opt, "include status in commit message template"),
		OPT_UNIMPLEMENTED('S', "gpg-sign"),
		OPT_GROUP("Commit contents options"),
		OPT_BOOL('a', "all", &all, "commit all changed files"),
		OPT_BOOL('i', "include", &include, "add specified files to index for commit"),
		OPT_UNIMPLEMENTED(0, "interactive"),
		OPT_UNIMPLEMENTED('p', "patch"),
		OPT_BOOL('o', "only", &only, "commit only specified files"),
		OPT_BOOL('n', "no-verify", &s.no_verify, "bypass pre-commit and commit-msg hooks"),
		{ CLI_OPT_SET_INT, 0, "verify", &s.no_verify, NULL, "opposite of --no-verify",
		  CLI_OPT_HIDDEN, 0, NULL },
		OPT_UNIMPLEMENTED(0, "dry-run"),
		OPT_UNIMPLEMENTED(0, "short"),
		OPT_UNIMPLEMENTED(0, "branch"),
		OPT_UNIMPLEMENTED(0, "ahead-behind"),
		OPT_UNIMPLEMENTED(0, "porcelain"),
		OPT_UNIMPLEMENTED(0, "long"),
		OPT_UNIMPLEMENTED('z', "null"),
		OPT_BOOL(0, "amend", &amend, "amend previous commit"),
		OPT_UNIMPLEMENTED(0, "no-post-rewrite"),
		OPT_UNIMPLEMENTED('u', "untracked-files"),
		OPT_STRING(0, "pathspec-from-file", &pathspec_from_file, "file", "read pathspec from file"),
		OPT_BOOL(0, "pathspec-file-nul", &pathspec_nul, "with --pathspec-from-file, pathspec elements are separated with NUL character"),
		OPT_BOOL(0, "allow-empty", &allow_empty, "ok to record an empty change"),
		OPT_BOOL(0, "allow-empty-message", &allow_empty_msg, "ok to record a change with an empty message"),
		OPT_END(),
	};

	memset(&s, 0, sizeof(s));
	nargs = (size_t)cli_parse_options(argc, argv, "commit", opts, commit_usage, 0);
	args = argv;
	if (include)
		die_unimplemented("commit", "--include");
	if (have_m && logfile)
		die("options '%s' and '%s' cannot be used together", "-m", "-F");
	s.repo = cli_repo();
	cli_require_work_tree(s.repo);
	s.cfg = fgit_repo_config(s.repo);
	s.top = fgit_repo_work_tree(s.repo);
	if (fgit_repo_odb(&s.odb, s.repo) || fgit_repo_refdb(&s.refdb, s.repo))
		die_last();
	args = cli_pathspec_args(&nargs, args, pathspec_from_file, pathspec_nul);
	if (all && nargs)
		die("paths '%s ...' with -a does not make sense", args[0]);
	if (only && !nargs && !amend)
		die("No paths with --include/--only does not make sense.");
	{
		const char *cc;
		if (!fgit_config_get_string(&cc, s.cfg, "core.commentchar") && cc && cc[0] && !cc[1])
			comment_char = cc[0];
		fgit_error_clear();
	}
	read_head(&head, &s);
	if (amend && !head.exists)
		die("You have nothing to amend.");
	if (nargs && fgit_pathspec_new(&ps, fgit_repo_prefix(s.repo), args, nargs,
				       cli_pathspec_flags(), s.top))
		die_last();
	/* the message source decides the editor before anything is touched */
	s.use_editor = !have_m && !logfile;
	if (edit >= 0)
		s.use_editor = edit;
	if (logfile && !strcmp(logfile, "-") && s.use_editor)
		s.use_editor = 0;
	if (logfile) {
		char *p = strcmp(logfile, "-") ? cli_prefix_path(cli_globals.prefix, logfile) : NULL;
		if (!p) {
			if (fgit_buf_read_fd(&opt_msg, 0, 0) < 0)
				die_errno("could not read log from standard input");
		} else if (fgit_buf_read_file(&opt_msg, p) < 0) {
			die_errno("could not read log file '%s'", logfile);
		}
		free(p);
	}
	if (chdir(s.top))
		die_errno("cannot chdir to '%s'", s.top);
	{
		struct fgit_buf p = FGIT_BUF_INIT;
		fgit_buf_addf(&p, "%s/COMMIT_EDITMSG", fgit_repo_git_dir(s.repo));
		s.editmsg_arg = git_path_for_hooks(&s, p.ptr);
		fgit_buf_release(&p);
	}

	/* prepare the index */
	index_path = cli_index_path(s.repo);
	if (fgit_lockfile_acquire(&lk, index_path, 0))
		die_last();
	idx = cli_index_load(s.repo, index_path);
	cli_add_options(&ao, s.repo, ".");
	ao.report = report_add;
	cidx = idx;
	commit_index_path = index_path;
	hook_index = index_path = git_path_for_hooks(&s, index_path);
	if (all) {
		if (fgit_add_update(idx, NULL, NULL, &ao, NULL) < 0)
			die_last();
		if (fgit_index_write_tree(&tree, NULL, idx, s.odb, 0) < 0)
			die_last();
		write_into_lock(idx, lk, &s, &ao.stat);
		/* git names this one by its absolute path */
		hook_index = fgit_lockfile_lock_path(lk);
	} else if (nargs) {
		/* git's "only" commit: the listed paths, nothing else staged */
		const char **tracked;
		size_t nt, np = fgit_pathspec_count(ps);
		unsigned char *seen = calloc(np + 1, 1);
		struct fgit_index *tmp = NULL;

		if (!seen || fgit_add_tracked_paths(&tracked, &nt, idx, ps, seen))
			die_last();
		/* NEEDSWORK: paths only in HEAD (removed from the index) are not listed */
		for (i = 0; i < np; i++)
			if (!seen[i] && !(fgit_pathspec_item_magic(ps, i) & FGIT_PATHSPEC_EXCLUDE)) {
				error("pathspec '%s' did not match any file(s) known to git",
				      fgit_pathspec_item_original(ps, i));
				fgit_lockfile_rollback(lk);
				exit(1);
			}
		update_paths(idx, tracked, nt, &ao);
		if (fgit_index_write_tree(&tree, NULL, idx, s.odb, 0) < 0)
			die_last();
		write_into_lock(idx, lk, &s, &ao.stat);
		fgit_buf_addf(&false_path, "%s/next-index-%ld", fgit_repo_git_dir(s.repo),
			      (long)getpid());
		if (fgit_lockfile_acquire(&false_lk, false_path.ptr, 0))
			die_last();
		if (fgit_index_new(&tmp, fgit_repo_algo(s.repo)))
			die_last();
		if (head.exists && fgit_index_read_tree(tmp, s.odb, &head.parsed.tree) < 0)
			die_last();
		update_paths(tmp, tracked, nt, &ao);
		if (fgit_index_write_tree(&tree, NULL, tmp, s.odb, 0) < 0)
			die_last();
		write_into_lock(tmp, false_lk, &s, &ao.stat);
		free(tracked);
		free(seen);
		cidx = tmp;
		hook_index = git_path_for_hooks(&s, fgit_lockfile_lock_path(false_lk));
		commit_index_path = hook_index;
	} else {
		/* as-is: refresh stat data, write the index now, hooks see it */
		struct fgit_index_write_opts wo;
		int changed = 0;
		ao.flags |= FGIT_ADD_REFRESH_ONLY;
		if (fgit_add_update(idx, NULL, NULL, &ao, &changed) < 0)
			die_last();
		ao.flags &= ~FGIT_ADD_REFRESH_ONLY;
		if (fgit_index_write_tree(&tree, &changed, idx, s.odb, 0) < 0) {
			/* unmerged entries: git says so later; keep going to its message */
			if (fgit_error_last_code() != FGIT_EINVALID)
				die_last();
			fgit_error_clear();
		}
		if (changed || fgit_index_is_changed(idx)) {
			cli_index_write_opts(&wo, s.repo);
			fgit_add_smudge_racy(idx, ".", &ao.stat);
			if (fgit_index_write_locked(idx, lk, &wo))
				die("unable to write new_index file");
		} else {
			fgit_lockfile_rollback(lk);
		}
		lk = NULL;
	}

	/* pre-commit, then reread what the hook may have changed */
	if (!s.no_verify) {
		if (run_hook(&s, hook_index, "pre-commit", NULL, NULL, NULL)) {
			if (false_lk)
				fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			exit(1);
		}
		if (s.hook_ran) {
			/* the hook may have staged more: read its index again */
			struct fgit_index *re = cli_index_load(s.repo, hook_index);
			if (cidx == idx) {
				fgit_index_free(idx);
				cidx = idx = re;
			} else {
				fgit_index_free(cidx);
				cidx = re;
			}
		}
	}
	for (i = 0; i < fgit_index_entrycount(cidx); i++)
		if (fgit_index_get(cidx, i)->stage) {
			fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			error("Committing is not possible because you have unmerged files.");
			fprintf(stderr, "hint: Fix them up in the work tree, and then use 'git add/rm <file>'\n"
				"hint: as appropriate to mark resolution and make a commit.\n");
			die("Exiting because of an unresolved conflict.");
		}
	if (fgit_index_write_tree(&tree, NULL, cidx, s.odb, 0) < 0)
		die_last();

	/* the message */
	if (have_m || logfile) {
		fgit_buf_add(&msg, opt_msg.ptr, opt_msg.len);
	} else if (amend) {
		const char *body = (const char *)head.commit + head.parsed.message_offset;
		fgit_buf_add(&msg, body, head.commit_len - head.parsed.message_offset);
	}
	{
		enum fgit_cleanup_mode cm;
		const char *cfgmode = NULL;
		if (!cleanup_arg && !fgit_config_get_string(&cfgmode, s.cfg, "commit.cleanup"))
			cleanup_arg = cfgmode;
		fgit_error_clear();
		cm = parse_cleanup(cleanup_arg, s.use_editor);
		if (signoff) {
			struct fgit_buf sob = FGIT_BUF_INIT;
			struct fgit_ident id;
			cli_ident(&sob, s.cfg, "committer", 1);
			if (!fgit_ident_split(&id, sob.ptr, sob.len)) {
				struct fgit_buf who = FGIT_BUF_INIT;
				fgit_buf_add(&who, sob.ptr, (size_t)(id.email + id.email_len - sob.ptr) + 1);
				fgit_message_add_signoff(&msg, who.ptr, comment_char);
				fgit_buf_release(&who);
			}
			fgit_buf_release(&sob);
		}
		if (cm != FGIT_CLEANUP_VERBATIM)
			fgit_message_cleanup(&msg, FGIT_CLEANUP_WHITESPACE, comment_char);
		fgit_buf_add(&editmsg, msg.ptr, msg.len);
		if (s.use_editor && status_opt) {
			fgit_buf_addch(&editmsg, '\n');
			if (cm == FGIT_CLEANUP_STRIP)
				fgit_buf_addf(&editmsg,
					      "%c Please enter the commit message for your changes. Lines starting\n"
					      "%c with '%c' will be ignored, and an empty message aborts the commit.\n",
					      comment_char, comment_char, comment_char);
			else
				fgit_buf_addf(&editmsg,
					      "%c Please enter the commit message for your changes. Lines starting\n"
					      "%c with '%c' will be kept; you may remove them yourself if you want to.\n"
					      "%c An empty message aborts the commit.\n",
					      comment_char, comment_char, comment_char, comment_char);
			fgit_buf_addf(&editmsg, "%c\n", comment_char);
			if (branch_name(&head))
				fgit_buf_addf(&editmsg, "%c On branch %s\n", comment_char, branch_name(&head));
			fgit_buf_addf(&editmsg, "%c\n", comment_char);
		}
		{
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s/COMMIT_EDITMSG", fgit_repo_git_dir(s.repo));
			{
				int fd = open(p.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
				if (fd < 0 || write(fd, editmsg.ptr, editmsg.len) != (ssize_t)editmsg.len ||
				    close(fd))
					die_errno("could not write commit template");
			}
			fgit_buf_release(&p);
		}

		/* anything to commit? */
		if (amend) {
			if (head.parsed.nparents) {
				struct fgit_oid p1;
				void *pb;
				size_t pl;
				enum fgit_object_type t;
				struct fgit_commit pc;
				fgit_commit_parent(&p1, &head.parsed, 0);
				if (fgit_odb_read(&pb, &pl, &t, s.odb, &p1) < 0 ||
				    fgit_commit_parse(&pc, pb, pl, fgit_repo_algo(s.repo)) < 0)
					die_last();
				parent_tree = pc.tree;
				have_parent_tree = 1;
				free(pb);
			}
		} else if (head.exists) {
			parent_tree = head.parsed.tree;
			have_parent_tree = 1;
		}
		if (have_parent_tree)
			commitable = !fgit_oid_equal(&parent_tree, &tree);
		else
			commitable = fgit_index_entrycount(cidx) > 0;
		if (!commitable && !allow_empty && !(amend && head.parsed.nparents > 1)) {
			fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			/* git prints the long status here: the status command's own */
			{
				const char *sargv[] = { "status", NULL };
				/* git's commit does not write what its status
				 * walk puts in the untracked cache */
				cli_untr_status_readonly = 1;
				cmd_status(1, sargv);
			}
			cli_flush_stdout();
			exit(1);
		}
		{
			const char *src = have_m || logfile ? "message" : amend ? "commit" : NULL;
			if (run_hook(&s, hook_index, "prepare-commit-msg", s.editmsg_arg, src,
				     amend && !have_m && !logfile ? fgit_oid_to_hex(hex, &head.oid) : NULL)) {
				fgit_lockfile_rollback(false_lk);
				fgit_lockfile_rollback(lk);
				exit(1);
			}
		}
		if (s.use_editor) {
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s/COMMIT_EDITMSG", fgit_repo_git_dir(s.repo));
			if (launch_editor(&s, p.ptr, hook_index)) {
				fgit_lockfile_rollback(false_lk);
				fgit_lockfile_rollback(lk);
				fflush(stdout);
				fprintf(stderr, "Please supply the message using either -m or -F option.\n");
				exit(1);
			}
			fgit_buf_release(&p);
		}
		if (!s.no_verify &&
		    run_hook(&s, hook_index, "commit-msg", s.editmsg_arg, NULL, NULL)) {
			fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			exit(1);
		}
		{
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s/COMMIT_EDITMSG", fgit_repo_git_dir(s.repo));
			fgit_buf_reset(&msg);
			if (fgit_buf_read_file(&msg, p.ptr) < 0)
				die_errno("could not read commit message: %s", p.ptr);
			fgit_buf_release(&p);
		}
		if (cm != FGIT_CLEANUP_VERBATIM)
			fgit_message_cleanup(&msg, cm, comment_char);
		if (!msg.len && !allow_empty_msg) {
			fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			fflush(stdout);
			fprintf(stderr, "Aborting commit due to empty commit message.\n");
			exit(1);
		}
	}

	/* identities */
	check_ident(&s, "author");
	if (author_arg) {
		const char *lt = strchr(author_arg, '<'), *gt = lt ? strchr(lt, '>') : NULL;
		if (!lt || !gt)
			die("--author '%s' is not 'Name <email>' and matches no existing author",
			    author_arg);
		{
			struct fgit_buf tmp = FGIT_BUF_INIT;
			struct fgit_ident id;
			size_t nl = (size_t)(lt - author_arg);
			while (nl && author_arg[nl - 1] == ' ')
				nl--;
			cli_ident(&tmp, s.cfg, "author", 1);
			if (fgit_ident_split(&id, tmp.ptr, tmp.len))
				die("malformed ident");
			fgit_buf_add(&author, author_arg, nl);
			fgit_buf_adds(&author, " <");
			fgit_buf_add(&author, lt + 1, (size_t)(gt - lt - 1));
			fgit_buf_adds(&author, "> ");
			fgit_buf_add(&author, id.date, id.date_len);
			fgit_buf_release(&tmp);
		}
	} else if (amend && !reset_author) {
		fgit_buf_add(&author, head.parsed.author, head.parsed.author_len);
	} else {
		cli_ident(&author, s.cfg, "author", 1);
	}
	if (date_arg)
		set_ident_date(&author, date_arg);
	check_ident(&s, "committer");
	cli_ident(&committer, s.cfg, "committer", 1);

	/* the commit */
	if (amend) {
		nparents = head.parsed.nparents;
		parents = calloc(nparents + 1, sizeof(*parents));
		for (i = 0; i < nparents; i++)
			fgit_commit_parent(&parents[i], &head.parsed, i);
	} else if (head.exists) {
		nparents = 1;
		parents = calloc(1, sizeof(*parents));
		parents[0] = head.oid;
	}
	if (fgit_commit_serialize(&obj, &tree, parents, nparents, author.ptr, committer.ptr,
				  NULL, msg.ptr) ||
	    fgit_odb_write(&commit_oid, s.odb, FGIT_OBJ_COMMIT, obj.ptr, obj.len)) {
		fgit_lockfile_rollback(false_lk);
		fgit_lockfile_rollback(lk);
		die_last();
	}
	{
		size_t sl = strcspn(msg.ptr, "\n");
		struct fgit_oid zero;
		fgit_oid_zero(&zero, fgit_repo_algo(s.repo));
		fgit_buf_addf(&reflog, "%s: %.*s", amend ? "commit (amend)" :
			      !head.exists ? "commit (initial)" : "commit", (int)sl, msg.ptr);
		if (fgit_refdb_update(s.refdb, "HEAD", &commit_oid, head.exists ? &head.oid : &zero,
				      0, reflog.ptr, committer.ptr)) {
			fgit_lockfile_rollback(false_lk);
			fgit_lockfile_rollback(lk);
			die_last();
		}
	}
	{
		static const char *const gone[] = { "CHERRY_PICK_HEAD", "REVERT_HEAD", "MERGE_HEAD",
						    "MERGE_MSG", "MERGE_MODE", "SQUASH_MSG", NULL };
		for (i = 0; gone[i]; i++) {
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s/%s", fgit_repo_git_dir(s.repo), gone[i]);
			unlink(p.ptr);
			fgit_buf_release(&p);
		}
	}
	if (lk && fgit_lockfile_commit(lk))
		die("unable to write new index file");
	if (false_lk)
		fgit_lockfile_rollback(false_lk);
	(void)commit_index_path;
	auto_maintenance(&s);
	run_hook(&s, index_path, "post-commit", NULL, NULL, NULL);

	if (!s.quiet) {
		struct fgit_rename_opts ro = FGIT_RENAME_OPTS_INIT;
		struct fgit_ident a, c;
		int abbrev = fgit_repo_default_abbrev(s.repo);
		const char *b = branch_name(&head);

		abbrev = fgit_odb_abbrev_len(s.odb, &commit_oid, abbrev);
		fgit_oid_to_hex(hex, &commit_oid);
		printf("[%s%s %.*s] ", b ? b : "detached HEAD", head.exists ? "" : " (root-commit)",
		       abbrev, hex);
		{
			/* %s: the first paragraph, its lines joined by spaces */
			const char *p = msg.ptr;
			while (*p && *p != '\n') {
				size_t l = strcspn(p, "\n");
				if (p != msg.ptr)
					putchar(' ');
				fwrite(p, 1, l, stdout);
				p += l;
				if (*p == '\n')
					p++;
			}
			putchar('\n');
		}
		if (!fgit_ident_split(&a, author.ptr, author.len) &&
		    !fgit_ident_split(&c, committer.ptr, committer.len) &&
		    (a.name_len != c.name_len || memcmp(a.name, c.name, a.name_len) ||
		     a.email_len != c.email_len || memcmp(a.email, c.email, a.email_len)))
			printf(" Author: %.*s <%.*s>\n", (int)a.name_len, a.name, (int)a.email_len, a.email);
		if ((amend || date_arg) && !fgit_ident_split(&a, author.ptr, author.len)) {
			struct fgit_buf d = FGIT_BUF_INIT;
			add_date(&d, a.time, a.tz);
			printf(" Date: %s\n", d.ptr);
			fgit_buf_release(&d);
		}
		fgit_buf_reset(&out);
		/*
		 * git's summary detects renames whatever diff.renames says, and
		 * with the default limit whatever diff.renameLimit says (t7501)
		 */
		if (fgit_diff_commit_summary(&out, s.odb, nparents ? &parent_tree : NULL, &tree, &ro) < 0)
			die_last();
		if (nparents && !have_parent_tree)
			die("could not read the parent tree");
		fputs(out.ptr, stdout);
	}
	cli_flush_stdout();
	return 0;
}
