/*
 * git status: long format, -s, --porcelain[=v1|v2], -b, -z, -u<mode>,
 * --ignored[=mode], --[no-]renames, pathspecs; the index refresh written
 * back as git does it (only when the lock can be taken and something was
 * refreshed or an entry is racy).  The work is fgit_status_collect(); this
 * file finds the branch and its upstream and prints git 2.39's bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "cli.h"
#include "wt_setup.h"
#include "untr_setup.h"
#include "attr_setup.h"
#include "fgit/attr.h"
#include "fgit/convert.h"
#include "fgit/hash.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/diff.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"
#include "fgit/status.h"
#include "fgit/worktree.h"

static const char *const status_usage[] = {
	"git status [<options>] [--] [<pathspec>...]",
	NULL
};

enum fmt { F_UNSPEC, F_LONG, F_SHORT, F_PORCELAIN, F_PORCELAIN2 };

static int fmt = F_UNSPEC;
static int show_branch = -1;
static int nul_term;
static const char *untracked_arg;
static int untracked_given;
static const char *ignored_arg;
static int ignored_given;
static int renames = -1;
static int ahead_behind = -1;
static int find_renames_score;
static int verbose;

static int opt_short(const struct cli_option *o, const char *arg, int unset)
{
	fmt = unset ? F_UNSPEC : F_SHORT;
	return 0;
}

static int opt_long(const struct cli_option *o, const char *arg, int unset)
{
	fmt = unset ? F_UNSPEC : F_LONG;
	return 0;
}

static int opt_porcelain(const struct cli_option *o, const char *arg, int unset)
{
	if (unset) {
		fmt = F_UNSPEC;
		return 0;
	}
	if (!arg || !strcmp(arg, "v1") || !strcmp(arg, "1"))
		fmt = F_PORCELAIN;
	else if (!strcmp(arg, "v2") || !strcmp(arg, "2"))
		fmt = F_PORCELAIN2;
	else
		die("unsupported porcelain version '%s'", arg);
	return 0;
}

static int opt_untracked(const struct cli_option *o, const char *arg, int unset)
{
	untracked_given = 1;
	untracked_arg = unset ? "no" : arg ? arg : "all";
	return 0;
}

static int opt_ignored(const struct cli_option *o, const char *arg, int unset)
{
	ignored_given = 1;
	ignored_arg = unset ? "no" : arg ? arg : "traditional";
	return 0;
}

static int opt_find_renames(const struct cli_option *o, const char *arg, int unset)
{
	if (unset) {
		renames = 0;
		return 0;
	}
	renames = 1;
	if (arg) {
		/* git's parse_rename_score: "n" is n0%, "n%" percent, "0.n" */
		const char *p = arg;
		long num = 0, scale = 1;
		int dot = 0;
		for (; *p; p++) {
			if (*p >= '0' && *p <= '9') {
				if (scale < 100000) {
					scale *= 10;
					num = num * 10 + (*p - '0');
				}
			} else if (*p == '.' && !dot) {
				scale = 1;
				dot = 1;
			} else if (*p == '%' && !p[1]) {
				scale = dot ? scale * 100 : 100;
				break;
			} else {
				die("invalid argument to %s", "--find-renames");
			}
		}
		if (num >= scale)
			find_renames_score = FGIT_RENAME_MAX_SCORE;
		else
			find_renames_score = (int)((double)num / scale * FGIT_RENAME_MAX_SCORE);
	}
	return 0;
}

static const struct cli_option options[] = {
	OPT_COUNT('v', "verbose", &verbose, "be verbose"),
	OPT_CALLBACK_F('s', "short", NULL, NULL, "show status concisely", CLI_OPT_NOARG, opt_short),
	OPT_BOOL('b', "branch", &show_branch, "show branch information"),
	OPT_UNIMPLEMENTED(0, "show-stash"),
	OPT_BOOL(0, "ahead-behind", &ahead_behind, "compute full ahead/behind values"),
	OPT_CALLBACK_F(0, "porcelain", NULL, "version", "machine-readable output",
		       CLI_OPT_OPTARG, opt_porcelain),
	OPT_CALLBACK_F(0, "long", NULL, NULL, "show status in long format (default)",
		       CLI_OPT_NOARG, opt_long),
	OPT_BOOL('z', "null", &nul_term, "terminate entries with NUL"),
	OPT_CALLBACK_F('u', "untracked-files", NULL, "mode",
		       "show untracked files, optional modes: all, normal, no. (Default: all)",
		       CLI_OPT_OPTARG, opt_untracked),
	OPT_CALLBACK_F(0, "ignored", NULL, "mode",
		       "show ignored files, optional modes: traditional, matching, no. (Default: traditional)",
		       CLI_OPT_OPTARG, opt_ignored),
	OPT_UNIMPLEMENTED(0, "ignore-submodules"),
	OPT_UNIMPLEMENTED(0, "column"),
	OPT_UNIMPLEMENTED(0, "no-column"),
	OPT_BOOL(0, "renames", &renames, "do not detect renames"),
	OPT_CALLBACK_F('M', "find-renames", NULL, "n", "detect renames, optionally set similarity index",
		       CLI_OPT_OPTARG, opt_find_renames),
	OPT_END()
};

/* ---- state ---- */

struct st {
	struct fgit_repo *repo;
	struct fgit_config *cfg;
	struct fgit_refdb *db;
	struct fgit_odb *odb;
	struct fgit_status *s;
	const char *prefix;		/* for relative names, or NULL */
	int quote_path;
	int hints;
	int advice_uoption;		/* advice.statusUoption */
	int untracked_mode;
	int ignored_mode;
	/* branch */
	char *branch;			/* "main" (NULL: detached) */
	char *branch_ref;		/* "refs/heads/main" */
	int initial;			/* no commit yet */
	struct fgit_oid head;
	char *upstream;			/* short name, or NULL */
	int upstream_gone;
	size_t ahead, behind;
	int ab_done;
	int in_merge;
	int not_from_commit;		/* git's whence: a merge or cherry-pick */
	int pick;			/* 1 cherry-pick, 2 revert in progress */
	char *pick_abbrev;		/* its commit, abbreviated (NULL: none) */
	int bisect;
	char *bisect_from;		/* BISECT_START's branch */
	struct fgit_buf out;
};

static int starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

struct fetch_map {
	const char *merge;
	char *res;
};

/* One remote.<r>.fetch refspec: does it map fm->merge? */
static int fetch_cb(const char *rs, void *payload)
{
	struct fetch_map *fm = payload;
	const char *colon, *star, *dstar, *merge = fm->merge;
	size_t sl, pre, suf, ml = strlen(merge);
	struct fgit_buf r = FGIT_BUF_INIT;

	if (!rs || fm->res)
		return 0;
	if (*rs == '+')
		rs++;
	if (*rs == '^' || !(colon = strchr(rs, ':')))
		return 0;
	sl = (size_t)(colon - rs);
	star = memchr(rs, '*', sl);
	dstar = strchr(colon + 1, '*');
	if (!star || !dstar) {
		if (ml == sl && !memcmp(rs, merge, sl))
			fm->res = strdup(colon + 1);
		return 0;
	}
	pre = (size_t)(star - rs);
	suf = sl - pre - 1;
	if (ml < pre + suf || memcmp(merge, rs, pre) || memcmp(merge + ml - suf, star + 1, suf))
		return 0;
	fgit_buf_add(&r, colon + 1, (size_t)(dstar - colon - 1));
	fgit_buf_add(&r, merge + pre, ml - pre - suf);
	fgit_buf_adds(&r, dstar + 1);
	fm->res = fgit_buf_detach(&r, NULL);
	return 0;
}

/* Map refs/heads/x through remote.<r>.fetch refspecs (git's remote tracking ref). */
static char *map_fetch(struct fgit_config *cfg, const char *remote, const char *merge)
{
	struct fgit_buf key = FGIT_BUF_INIT;
	struct fetch_map fm = { merge, NULL };

	fgit_buf_addf(&key, "remote.%s.fetch", remote);
	fgit_config_get_all(cfg, key.ptr, fetch_cb, &fm);
	fgit_error_clear();
	fgit_buf_release(&key);
	return fm.res;
}

static int read_commit_tree(struct fgit_oid *tree, struct st *s, const struct fgit_oid *commit)
{
	void *buf;
	size_t len;
	enum fgit_object_type type;
	struct fgit_commit c;
	char hex[FGIT_MAX_HEXSZ + 1];

	if (fgit_odb_read(&buf, &len, &type, s->odb, commit) < 0)
		return -1;
	if (type != FGIT_OBJ_COMMIT || fgit_commit_parse(&c, buf, len, fgit_repo_algo(s->repo))) {
		free(buf);
		return fgit_error_set(FGIT_EINVALID, "could not parse HEAD commit %s",
				      fgit_oid_to_hex(hex, commit));
	}
	*tree = c.tree;
	free(buf);
	return 0;
}

static void find_upstream(struct st *s)
{
	struct fgit_buf key = FGIT_BUF_INIT;
	const char *remote = NULL, *merge = NULL;
	char *full = NULL;
	struct fgit_oid up;

	if (!s->branch)
		return;
	fgit_buf_addf(&key, "branch.%s.remote", s->branch);
	if (fgit_config_get_string(&remote, s->cfg, key.ptr) || !remote)
		goto out;
	fgit_buf_reset(&key);
	fgit_buf_addf(&key, "branch.%s.merge", s->branch);
	if (fgit_config_get_string(&merge, s->cfg, key.ptr) || !merge)
		goto out;
	if (!strcmp(remote, "."))
		full = strdup(merge);
	else
		full = map_fetch(s->cfg, remote, merge);
	if (!full)
		goto out;
	s->upstream = fgit_refdb_shorten(s->db, full, 0);
	if (fgit_refdb_resolve(&up, NULL, NULL, s->db, full) < 0) {
		s->upstream_gone = 1;
		goto out;
	}
	if (s->initial)
		goto out;
	if (ahead_behind == 0) {
		s->ab_done = -1;
		if (!fgit_oid_equal(&up, &s->head))
			s->ahead = s->behind = 1;
		goto out;
	}
	{
		struct fgit_revwalk *w;
		if (fgit_revwalk_new(&w, s->odb) == 0) {
			if (fgit_revwalk_ahead_behind(&s->ahead, &s->behind, w, &s->head, &up) == 0)
				s->ab_done = 1;
			fgit_revwalk_free(w);
		}
	}
out:
	fgit_error_clear();
	free(full);
	fgit_buf_release(&key);
}

/* ---- paths ---- */

/* git's quote_path: relative to the prefix, C-quoted when needed, and in
 * double quotes when it holds a space and quote_sp is set. */
static void add_path(struct st *s, struct fgit_buf *b, const char *path, int quote_sp)
{
	struct fgit_buf rel = FGIT_BUF_INIT;
	size_t start = b->len;

	if (s->prefix)
		cli_add_relative(&rel, path, s->prefix);
	else
		fgit_buf_adds(&rel, path);
	cli_add_c_quoted(b, rel.ptr, rel.len, s->quote_path);
	if (quote_sp && b->len - start == rel.len && memchr(rel.ptr, ' ', rel.len)) {
		fgit_buf_setlen(b, start);
		fgit_buf_addch(b, '"');
		fgit_buf_add(b, rel.ptr, rel.len);
		fgit_buf_addch(b, '"');
	}
	fgit_buf_release(&rel);
}

static void add_raw_or_quoted(struct st *s, struct fgit_buf *b, const char *path, int quote_sp)
{
	if (nul_term)
		fgit_buf_adds(b, path);
	else
		add_path(s, b, path, quote_sp);
}

/* ---- colours (git's defaults for color.status.<slot>) ---- */

#define C_GREEN "\033[32m"
#define C_RED "\033[31m"
static int use_color;

static void col_on(struct fgit_buf *b, const char *c)
{
	if (use_color)
		fgit_buf_adds(b, c);
}

static void col_off(struct fgit_buf *b)
{
	if (use_color)
		fgit_buf_adds(b, "\033[m");
}

/* text in colour c (reset after it) */
static void cadd(struct fgit_buf *b, const char *c, const char *text)
{
	col_on(b, c);
	fgit_buf_adds(b, text);
	col_off(b);
}

static void caddch(struct fgit_buf *b, const char *c, char ch)
{
	char t[2] = { ch, 0 };
	cadd(b, c, t);
}

/* ---- short and porcelain v1 ---- */

static const char *unmerged_xy(unsigned mask)
{
	switch (mask) {
	case 1: return "DD";
	case 2: return "AU";
	case 3: return "UD";
	case 4: return "UA";
	case 5: return "DU";
	case 6: return "AA";
	case 7: return "UU";
	}
	return "??";
}

static void short_branch(struct st *s)
{
	struct fgit_buf *b = &s->out;
	char n[32];

	fgit_buf_adds(b, "## ");
	if (s->initial) {
		fgit_buf_adds(b, "No commits yet on ");
		cadd(b, C_GREEN, s->branch ? s->branch : "HEAD");
		fgit_buf_addch(b, nul_term ? 0 : '\n');
		return;
	}
	if (!s->branch) {
		cadd(b, C_RED, "HEAD (no branch)");
		fgit_buf_addch(b, nul_term ? 0 : '\n');
		return;
	}
	cadd(b, C_GREEN, s->branch);
	if (s->upstream) {
		fgit_buf_adds(b, "...");
		cadd(b, C_RED, s->upstream);
		if (s->upstream_gone) {
			fgit_buf_adds(b, " [gone]");
		} else if (s->ab_done < 0 && (s->ahead || s->behind)) {
			fgit_buf_adds(b, " [different]");
		} else if (s->ahead || s->behind) {
			fgit_buf_adds(b, " [");
			if (s->ahead) {
				fgit_buf_adds(b, "ahead ");
				snprintf(n, sizeof(n), "%zu", s->ahead);
				cadd(b, C_GREEN, n);
			}
			if (s->ahead && s->behind)
				fgit_buf_adds(b, ", ");
			if (s->behind) {
				fgit_buf_adds(b, "behind ");
				snprintf(n, sizeof(n), "%zu", s->behind);
				cadd(b, C_RED, n);
			}
			fgit_buf_addch(b, ']');
		}
	}
	fgit_buf_addch(b, nul_term ? 0 : '\n');
}

static void print_short(struct st *s, int porcelain)
{
	struct fgit_buf *b = &s->out;
	size_t i;

	if (show_branch > 0)
		short_branch(s);
	for (i = 0; i < s->s->nr; i++) {
		const struct fgit_status_item *it = &s->s->items[i];
		if (it->x == 'U') {
			cadd(b, C_RED, unmerged_xy(it->stagemask));
			fgit_buf_addch(b, ' ');
			add_raw_or_quoted(s, b, it->path, 1);
		} else {
			char y = it->y;
			/* -s (not --porcelain) tells submodule states apart */
			if (!porcelain && y == 'M' && (it->sub & FGIT_STATUS_SUB) &&
			    !(it->sub & FGIT_STATUS_SUB_COMMIT))
				y = it->sub & FGIT_STATUS_SUB_MODIFIED ? 'm' :
				    it->sub & FGIT_STATUS_SUB_UNTRACKED ? '?' : y;
			if (it->x)
				caddch(b, C_GREEN, it->x);
			else
				fgit_buf_addch(b, ' ');
			if (y)
				caddch(b, C_RED, y);
			else
				fgit_buf_addch(b, ' ');
			fgit_buf_addch(b, ' ');
			if (it->orig_path && !nul_term) {
				add_path(s, b, it->orig_path, 1);
				fgit_buf_adds(b, " -> ");
			}
			add_raw_or_quoted(s, b, it->path, 1);
			if (it->orig_path && nul_term) {
				fgit_buf_addch(b, 0);
				fgit_buf_adds(b, it->orig_path);
			}
		}
		fgit_buf_addch(b, nul_term ? 0 : '\n');
	}
	for (i = 0; i < s->s->nr_untracked; i++) {
		cadd(b, C_RED, "??");
		fgit_buf_addch(b, ' ');
		add_raw_or_quoted(s, b, s->s->untracked[i], 1);
		fgit_buf_addch(b, nul_term ? 0 : '\n');
	}
	for (i = 0; i < s->s->nr_ignored; i++) {
		cadd(b, C_RED, "!!");
		fgit_buf_addch(b, ' ');
		add_raw_or_quoted(s, b, s->s->ignored[i], 1);
		fgit_buf_addch(b, nul_term ? 0 : '\n');
	}
}

/* ---- porcelain v2 ---- */

static void add_hex(struct fgit_buf *b, const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_buf_adds(b, fgit_oid_to_hex(hex, oid));
}

static void v2_sub(struct fgit_buf *b, const struct fgit_status_item *it)
{
	if (!(it->sub & FGIT_STATUS_SUB)) {
		fgit_buf_adds(b, "N...");
		return;
	}
	fgit_buf_addch(b, 'S');
	fgit_buf_addch(b, it->sub & FGIT_STATUS_SUB_COMMIT ? 'C' : '.');
	fgit_buf_addch(b, it->sub & FGIT_STATUS_SUB_MODIFIED ? 'M' : '.');
	fgit_buf_addch(b, it->sub & FGIT_STATUS_SUB_UNTRACKED ? 'U' : '.');
}

static void print_v2(struct st *s)
{
	struct fgit_buf *b = &s->out;
	char term = nul_term ? 0 : '\n';
	size_t i;

	if (show_branch > 0) {
		fgit_buf_adds(b, "# branch.oid ");
		if (s->initial)
			fgit_buf_adds(b, "(initial)");
		else
			add_hex(b, &s->head);
		fgit_buf_addch(b, term);
		fgit_buf_addf(b, "# branch.head %s", s->branch ? s->branch : "(detached)");
		fgit_buf_addch(b, term);
		if (s->upstream) {
			fgit_buf_addf(b, "# branch.upstream %s", s->upstream);
			fgit_buf_addch(b, term);
			if (!s->upstream_gone && s->ab_done > 0) {
				fgit_buf_addf(b, "# branch.ab +%zu -%zu", s->ahead, s->behind);
				fgit_buf_addch(b, term);
			} else if (!s->upstream_gone && s->ab_done < 0) {
				fgit_buf_adds(b, s->ahead ? "# branch.ab +? -?" : "# branch.ab +0 -0");
				fgit_buf_addch(b, term);
			}
		}
	}
	for (i = 0; i < s->s->nr; i++) {
		const struct fgit_status_item *it = &s->s->items[i];
		if (it->x == 'U') {
			int k;
			fgit_buf_addf(b, "u %s ", unmerged_xy(it->stagemask));
			v2_sub(b, it);
			for (k = 0; k < 3; k++)
				fgit_buf_addf(b, " %06o", it->stage_mode[k]);
			fgit_buf_addf(b, " %06o", it->mode_wt);
			for (k = 0; k < 3; k++) {
				struct fgit_oid z;
				fgit_buf_addch(b, ' ');
				if (it->stagemask & (1u << k)) {
					add_hex(b, &it->stage_oid[k]);
				} else {
					fgit_oid_zero(&z, fgit_repo_algo(s->repo));
					add_hex(b, &z);
				}
			}
			fgit_buf_addch(b, ' ');
			add_raw_or_quoted(s, b, it->path, 0);
			fgit_buf_addch(b, term);
			continue;
		}
		fgit_buf_addch(b, it->orig_path ? '2' : '1');
		fgit_buf_addch(b, ' ');
		fgit_buf_addch(b, it->x ? it->x : '.');
		fgit_buf_addch(b, it->y ? it->y : '.');
		fgit_buf_addch(b, ' ');
		v2_sub(b, it);
		fgit_buf_addf(b, " %06o %06o %06o ", it->mode_head, it->mode_index, it->mode_wt);
		add_hex(b, &it->oid_head);
		fgit_buf_addch(b, ' ');
		add_hex(b, &it->oid_index);
		if (it->orig_path)
			fgit_buf_addf(b, " %c%d", it->x, it->score * 100 / FGIT_RENAME_MAX_SCORE);
		fgit_buf_addch(b, ' ');
		add_raw_or_quoted(s, b, it->path, 0);
		if (it->orig_path) {
			fgit_buf_addch(b, nul_term ? 0 : '\t');
			add_raw_or_quoted(s, b, it->orig_path, 0);
		}
		fgit_buf_addch(b, term);
	}
	for (i = 0; i < s->s->nr_untracked; i++) {
		fgit_buf_adds(b, "? ");
		add_raw_or_quoted(s, b, s->s->untracked[i], 0);
		fgit_buf_addch(b, term);
	}
	for (i = 0; i < s->s->nr_ignored; i++) {
		fgit_buf_adds(b, "! ");
		add_raw_or_quoted(s, b, s->s->ignored[i], 0);
		fgit_buf_addch(b, term);
	}
}

/* ---- long format ---- */

static char *detached_from(struct st *s, int *at)
{
	struct fgit_buf log = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	char *target = NULL, *res = NULL, *line, *end;
	struct fgit_oid noid;
	int have = 0;

	*at = 0;
	fgit_buf_addf(&p, "%s/logs/HEAD", fgit_repo_git_dir(s->repo));
	if (fgit_buf_read_file(&log, p.ptr) < 0)
		goto out;
	for (line = log.ptr; line < log.ptr + log.len; line = end + 1) {
		char *tab, *mv, *to, *nl;
		size_t hexsz = fgit_hash_hexsz(fgit_repo_algo(s->repo));
		end = memchr(line, '\n', log.ptr + log.len - line);
		if (!end)
			end = log.ptr + log.len;
		nl = end;
		tab = memchr(line, '\t', nl - line);
		if (!tab || (size_t)(nl - line) < 2 * hexsz + 2)
			continue;
		*nl = 0;
		mv = tab + 1;
		if (!starts_with(mv, "checkout: moving from "))
			continue;
		to = strstr(mv + 22, " to ");
		{
			char *t2;
			while (to && (t2 = strstr(to + 4, " to ")))
				to = t2;
		}
		if (!to)
			continue;
		if (fgit_oid_from_hex(&noid, line + hexsz + 1, fgit_repo_algo(s->repo)))
			continue;
		free(target);
		target = strdup(to + 4);
		have = 1;
	}
	if (!have)
		goto out;
	{
		struct fgit_oid oid;
		char *ref = NULL;
		/* "HEAD" is relative: git names the commit it was then */
		int n = strcmp(target, "HEAD") ?
			fgit_refdb_dwim(&oid, &ref, NULL, s->db, target, strlen(target)) : 0;
		int match = 0;
		if (n == 1) {
			if (fgit_oid_equal(&oid, &noid)) {
				match = 1;
			} else {
				struct fgit_oid peeled;
				if (fgit_revparse_single(&peeled, s->repo, ref) == 0) {
					/* a tag: compare the commit it points at */
					struct fgit_buf spec = FGIT_BUF_INIT;
					fgit_buf_addf(&spec, "%s^{commit}", ref);
					if (fgit_revparse_single(&peeled, s->repo, spec.ptr) == 0 &&
					    fgit_oid_equal(&peeled, &noid))
						match = 1;
					fgit_buf_release(&spec);
				}
			}
		}
		if (match) {
			const char *from = ref;
			if (starts_with(from, "refs/tags/"))
				from += 10;
			else if (starts_with(from, "refs/remotes/"))
				from += 13;
			res = strdup(from);
		} else {
			char hex[FGIT_MAX_HEXSZ + 1];
			int len = 7;
			if (fgit_repo_odb(&s->odb, s->repo) == 0)
				len = fgit_odb_abbrev_len(s->odb, &noid, fgit_repo_default_abbrev(s->repo));
			fgit_oid_to_hex(hex, &noid);
			if (len > 0 && (size_t)len < strlen(hex))
				hex[len] = 0;
			res = strdup(hex);
		}
		free(ref);
		*at = !s->initial && fgit_oid_equal(&s->head, &noid);
	}
out:
	fgit_error_clear();
	free(target);
	fgit_buf_release(&log);
	fgit_buf_release(&p);
	return res;
}

static void long_tracking(struct st *s)
{
	struct fgit_buf *b = &s->out;

	if (!s->upstream || !s->branch)
		return;
	if (s->upstream_gone) {
		fgit_buf_addf(b, "Your branch is based on '%s', but the upstream is gone.\n", s->upstream);
		if (s->hints)
			fgit_buf_adds(b, "  (use \"git branch --unset-upstream\" to fixup)\n");
	} else if (s->ab_done < 0 && (s->ahead || s->behind)) {
		fgit_buf_addf(b, "Your branch and '%s' refer to different commits.\n", s->upstream);
		if (s->hints)
			fgit_buf_addf(b, "  (use \"%s\" for details)\n", "git status --ahead-behind");
	} else if (!s->ahead && !s->behind) {
		fgit_buf_addf(b, "Your branch is up to date with '%s'.\n", s->upstream);
	} else if (!s->behind) {
		fgit_buf_addf(b, "Your branch is ahead of '%s' by %zu commit%s.\n", s->upstream,
			      s->ahead, s->ahead == 1 ? "" : "s");
		if (s->hints)
			fgit_buf_adds(b, "  (use \"git push\" to publish your local commits)\n");
	} else if (!s->ahead) {
		fgit_buf_addf(b, "Your branch is behind '%s' by %zu commit%s, and can be fast-forwarded.\n",
			      s->upstream, s->behind, s->behind == 1 ? "" : "s");
		if (s->hints)
			fgit_buf_adds(b, "  (use \"git pull\" to update your local branch)\n");
	} else {
		fgit_buf_addf(b, "Your branch and '%s' have diverged,\n"
			      "and have %zu and %zu different commits each, respectively.\n",
			      s->upstream, s->ahead, s->behind);
		if (s->hints)
			fgit_buf_adds(b, "  (use \"git pull\" to merge the remote branch into yours)\n");
	}
	fgit_buf_addch(b, '\n');
}

/* The operation in progress, for the long format (git's wt_status_get_state). */
static void read_state(struct st *s)
{
	const char *gd = fgit_repo_git_dir(s->repo);
	struct fgit_buf p = FGIT_BUF_INIT, v = FGIT_BUF_INIT;
	struct stat st;
	static const char *const refused[] = { "rebase-merge", "rebase-apply" };
	size_t i;

	for (i = 0; i < 2; i++) {
		fgit_buf_reset(&p);
		fgit_buf_addf(&p, "%s/%s", gd, refused[i]);
		if (!stat(p.ptr, &st) && S_ISDIR(st.st_mode))
			die_unimplemented("status", "a rebase or am in progress (long format)");
	}
	if (!s->in_merge) {
		static const char *const heads[] = { "CHERRY_PICK_HEAD", "REVERT_HEAD" };
		for (i = 0; i < 2 && !s->pick; i++) {
			fgit_buf_reset(&p);
			fgit_buf_addf(&p, "%s/%s", gd, heads[i]);
			fgit_buf_reset(&v);
			if (fgit_buf_read_file(&v, p.ptr) == 0) {
				struct fgit_oid oid;
				char hex[FGIT_MAX_HEXSZ + 1];
				int len = 7;
				s->pick = (int)i + 1;
				fgit_buf_rtrim(&v);
				if (!fgit_oid_from_hex(&oid, v.ptr, fgit_repo_algo(s->repo)) &&
				    !fgit_oid_is_zero(&oid)) {
					len = fgit_odb_abbrev_len(s->odb, &oid, fgit_repo_default_abbrev(s->repo));
					fgit_oid_to_hex(hex, &oid);
					if (len > 0 && (size_t)len < strlen(hex))
						hex[len] = 0;
					s->pick_abbrev = strdup(hex);
				}
			}
		}
		if (!s->pick) {
			/* a sequence of picks without a current one */
			fgit_buf_reset(&p);
			fgit_buf_addf(&p, "%s/sequencer/todo", gd);
			if (!stat(p.ptr, &st))
				die_unimplemented("status", "a cherry-pick or revert sequence (long format)");
		}
	}
	fgit_buf_reset(&p);
	fgit_buf_addf(&p, "%s/BISECT_LOG", gd);
	if (!stat(p.ptr, &st)) {
		s->bisect = 1;
		fgit_buf_reset(&p);
		fgit_buf_addf(&p, "%s/BISECT_START", gd);
		fgit_buf_reset(&v);
		if (fgit_buf_read_file(&v, p.ptr) == 0) {
			fgit_buf_rtrim(&v);
			if (v.len && !strchr(v.ptr, '\n')) {
				const char *b = starts_with(v.ptr, "refs/heads/") ? v.ptr + 11 : v.ptr;
				struct fgit_oid o;
				/* a detached start is recorded as a commit id: abbreviated */
				if (b == v.ptr && !fgit_oid_from_hex(&o, b, fgit_repo_algo(s->repo))) {
					char hex[FGIT_MAX_HEXSZ + 1];
					int len = fgit_odb_abbrev_len(s->odb, &o, fgit_repo_default_abbrev(s->repo));
					fgit_oid_to_hex(hex, &o);
					if (len > 0 && (size_t)len < strlen(hex))
						hex[len] = 0;
					s->bisect_from = strdup(hex);
				} else {
					s->bisect_from = strdup(b);
				}
			}
		}
	}
	fgit_error_clear();
	fgit_buf_release(&p);
	fgit_buf_release(&v);
}

static void add_label(struct fgit_buf *b, const char *label, size_t width)
{
	size_t n = strlen(label);
	fgit_buf_adds(b, label);
	while (n++ < width)
		fgit_buf_addch(b, ' ');
}

static const char *staged_label(char x)
{
	switch (x) {
	case 'A': return "new file:";
	case 'D': return "deleted:";
	case 'M': return "modified:";
	case 'R': return "renamed:";
	case 'T': return "typechange:";
	case 'C': return "copied:";
	}
	return "unknown:";
}

static void sub_suffix(struct fgit_buf *b, const struct fgit_status_item *it)
{
	if (!(it->sub & FGIT_STATUS_SUB) || !(it->sub & (FGIT_STATUS_SUB_COMMIT |
	    FGIT_STATUS_SUB_MODIFIED | FGIT_STATUS_SUB_UNTRACKED)))
		return;
	fgit_buf_adds(b, " (");
	if (it->sub & FGIT_STATUS_SUB_COMMIT)
		fgit_buf_adds(b, "new commits, ");
	if (it->sub & FGIT_STATUS_SUB_MODIFIED)
		fgit_buf_adds(b, "modified content, ");
	if (it->sub & FGIT_STATUS_SUB_UNTRACKED)
		fgit_buf_adds(b, "untracked content, ");
	fgit_buf_setlen(b, b->len - 2);
	fgit_buf_addch(b, ')');
}

static const char *unmerged_label(unsigned mask)
{
	switch (mask) {
	case 1: return "both deleted:";
	case 2: return "added by us:";
	case 3: return "deleted by them:";
	case 4: return "added by them:";
	case 5: return "deleted by us:";
	case 6: return "both added:";
	case 7: return "both modified:";
	}
	return "unknown:";
}

static void print_long(struct st *s)
{
	struct fgit_buf *b = &s->out;
	size_t i;
	int have_unmerged = 0, have_staged = 0, have_changed = 0, del_in_wt = 0, dirty_sub = 0;
	int del_mod_conflict = 0, committable = 0, workdir_dirty = 0;

	for (i = 0; i < s->s->nr; i++) {
		const struct fgit_status_item *it = &s->s->items[i];
		if (it->x == 'U') {
			have_unmerged = 1;
			workdir_dirty = 1;
			if (it->stagemask == 1 || it->stagemask == 3 || it->stagemask == 5)
				del_mod_conflict = 1;
			continue;
		}
		if (it->x) {
			have_staged = 1;
			committable = 1;
		}
		if (it->y) {
			have_changed = 1;
			workdir_dirty = 1;
			if (it->y == 'D')
				del_in_wt = 1;
			if (it->sub & (FGIT_STATUS_SUB_MODIFIED | FGIT_STATUS_SUB_UNTRACKED))
				dirty_sub = 1;
		}
	}

	if (s->branch) {
		fgit_buf_addf(b, "On branch %s\n", s->branch);
	} else {
		int at;
		char *from = detached_from(s, &at);
		if (from) {
			cadd(b, C_RED, at ? "HEAD detached at " : "HEAD detached from ");
			fgit_buf_addf(b, "%s\n", from);
		} else {
			cadd(b, C_RED, "Not currently on any branch.");
			fgit_buf_addch(b, '\n');
		}
		free(from);
	}
	long_tracking(s);
	if (s->in_merge) {
		if (have_unmerged) {
			fgit_buf_adds(b, "You have unmerged paths.\n");
			if (s->hints)
				fgit_buf_adds(b, "  (fix conflicts and run \"git commit\")\n"
					      "  (use \"git merge --abort\" to abort the merge)\n");
		} else {
			fgit_buf_adds(b, "All conflicts fixed but you are still merging.\n");
			if (s->hints)
				fgit_buf_adds(b, "  (use \"git commit\" to conclude merge)\n");
		}
		fgit_buf_addch(b, '\n');
	} else if (s->pick) {
		const char *what = s->pick == 1 ? "cherry-pick" : "revert";
		if (!s->pick_abbrev)
			fgit_buf_adds(b, s->pick == 1 ? "Cherry-pick currently in progress.\n" :
				      "Revert currently in progress.\n");
		else
			fgit_buf_addf(b, "You are currently %s commit %s.\n",
				      s->pick == 1 ? "cherry-picking" : "reverting", s->pick_abbrev);
		if (s->hints) {
			if (have_unmerged)
				fgit_buf_addf(b, "  (fix conflicts and run \"git %s --continue\")\n", what);
			else if (!s->pick_abbrev)
				fgit_buf_addf(b, "  (run \"git %s --continue\" to continue)\n", what);
			else
				fgit_buf_addf(b, "  (all conflicts fixed: run \"git %s --continue\")\n", what);
			fgit_buf_addf(b, "  (use \"git %s --skip\" to skip this patch)\n", what);
			fgit_buf_addf(b, "  (use \"git %s --abort\" to cancel the %s operation)\n", what, what);
		}
		fgit_buf_addch(b, '\n');
	}
	if (s->bisect) {
		if (s->bisect_from)
			fgit_buf_addf(b, "You are currently bisecting, started from branch '%s'.\n",
				      s->bisect_from);
		else
			fgit_buf_adds(b, "You are currently bisecting.\n");
		if (s->hints)
			fgit_buf_adds(b, "  (use \"git bisect reset\" to get back to the original branch)\n");
		fgit_buf_addch(b, '\n');
	}
	if (s->initial)
		fgit_buf_adds(b, "\nNo commits yet\n\n");

	if (have_staged) {
		fgit_buf_adds(b, "Changes to be committed:\n");
		if (s->hints) {
			if (s->not_from_commit)
				;
			else if (!s->initial)
				fgit_buf_adds(b, "  (use \"git restore --staged <file>...\" to unstage)\n");
			else
				fgit_buf_adds(b, "  (use \"git rm --cached <file>...\" to unstage)\n");
		}
		for (i = 0; i < s->s->nr; i++) {
			const struct fgit_status_item *it = &s->s->items[i];
			if (!it->x || it->x == 'U')
				continue;
			fgit_buf_addch(b, '\t');
			col_on(b, C_GREEN);
			add_label(b, staged_label(it->x), 12);
			if (it->orig_path) {
				add_path(s, b, it->orig_path, 0);
				fgit_buf_adds(b, " -> ");
			}
			add_path(s, b, it->path, 0);
			col_off(b);
			fgit_buf_addch(b, '\n');
		}
		fgit_buf_addch(b, '\n');
	}
	if (have_unmerged) {
		fgit_buf_adds(b, "Unmerged paths:\n");
		if (s->hints) {
			if (s->not_from_commit)
				;
			else if (!s->initial)
				fgit_buf_adds(b, "  (use \"git restore --staged <file>...\" to unstage)\n");
			else
				fgit_buf_adds(b, "  (use \"git rm --cached <file>...\" to unstage)\n");
			if (!del_mod_conflict)
				fgit_buf_adds(b, "  (use \"git add <file>...\" to mark resolution)\n");
			else
				fgit_buf_adds(b, "  (use \"git add/rm <file>...\" as appropriate to mark resolution)\n");
		}
		for (i = 0; i < s->s->nr; i++) {
			const struct fgit_status_item *it = &s->s->items[i];
			if (it->x != 'U')
				continue;
			fgit_buf_addch(b, '\t');
			col_on(b, C_RED);
			add_label(b, unmerged_label(it->stagemask), 17);
			add_path(s, b, it->path, 0);
			col_off(b);
			fgit_buf_addch(b, '\n');
		}
		fgit_buf_addch(b, '\n');
	}
	if (have_changed) {
		fgit_buf_adds(b, "Changes not staged for commit:\n");
		if (s->hints) {
			fgit_buf_addf(b, "  (use \"git %s <file>...\" to update what will be committed)\n",
				      del_in_wt ? "add/rm" : "add");
			fgit_buf_adds(b, "  (use \"git restore <file>...\" to discard changes in working directory)\n");
			if (dirty_sub)
				fgit_buf_adds(b, "  (commit or discard the untracked or modified content in submodules)\n");
		}
		for (i = 0; i < s->s->nr; i++) {
			const struct fgit_status_item *it = &s->s->items[i];
			if (!it->y || it->x == 'U')
				continue;
			fgit_buf_addch(b, '\t');
			col_on(b, C_RED);
			add_label(b, it->y == 'A' ? "new file:" : staged_label(it->y), 12);
			add_path(s, b, it->path, 0);
			col_off(b);
			sub_suffix(b, it);
			fgit_buf_addch(b, '\n');
		}
		fgit_buf_addch(b, '\n');
	}
	if (s->untracked_mode) {
		if (s->s->nr_untracked) {
			fgit_buf_adds(b, "Untracked files:\n");
			if (s->hints)
				fgit_buf_adds(b, "  (use \"git add <file>...\" to include in what will be committed)\n");
			for (i = 0; i < s->s->nr_untracked; i++) {
				fgit_buf_addch(b, '\t');
				col_on(b, C_RED);
				add_path(s, b, s->s->untracked[i], 0);
				col_off(b);
				fgit_buf_addch(b, '\n');
			}
			fgit_buf_addch(b, '\n');
		}
		if (s->ignored_mode && s->s->nr_ignored) {
			fgit_buf_adds(b, "Ignored files:\n");
			if (s->hints)
				fgit_buf_adds(b, "  (use \"git add -f <file>...\" to include in what will be committed)\n");
			for (i = 0; i < s->s->nr_ignored; i++) {
				fgit_buf_addch(b, '\t');
				col_on(b, C_RED);
				add_path(s, b, s->s->ignored[i], 0);
				col_off(b);
				fgit_buf_addch(b, '\n');
			}
			fgit_buf_addch(b, '\n');
		}
		/* git's threshold: more than two seconds, in whole ms */
		if (s->advice_uoption && s->s->untracked_ms > 2000)
			fgit_buf_addf(b, "\nIt took %.2f seconds to enumerate untracked files. "
				      "'status -uno'\nmay speed it up, but you have to be careful "
				      "not to forget to add\nnew files yourself (see 'git help status').\n",
				      s->s->untracked_ms / 1000.0);
	} else if (committable) {
		fgit_buf_addf(b, "Untracked files not listed%s\n",
			      s->hints ? " (use -u option to show untracked files)" : "");
	}
	if (!committable) {
		if (workdir_dirty)
			fgit_buf_adds(b, s->hints ?
				      "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n" :
				      "no changes added to commit\n");
		else if (s->s->nr_untracked)
			fgit_buf_adds(b, s->hints ?
				      "nothing added to commit but untracked files present (use \"git add\" to track)\n" :
				      "nothing added to commit but untracked files present\n");
		else if (s->initial)
			fgit_buf_adds(b, s->hints ?
				      "nothing to commit (create/copy files and use \"git add\" to track)\n" :
				      "nothing to commit\n");
		else if (!s->untracked_mode)
			fgit_buf_adds(b, s->hints ?
				      "nothing to commit (use -u to show untracked files)\n" :
				      "nothing to commit\n");
		else
			fgit_buf_adds(b, "nothing to commit, working tree clean\n");
	}
}

/* ---- setup ---- */

static int parse_untracked(const char *v)
{
	if (!strcmp(v, "no"))
		return FGIT_STATUS_UNTRACKED_NO;
	if (!strcmp(v, "normal"))
		return FGIT_STATUS_UNTRACKED_NORMAL;
	if (!strcmp(v, "all"))
		return FGIT_STATUS_UNTRACKED_ALL;
	return -1;
}

/* An advice.* setting: on unless false; a bad value is fatal, as in git. */
static int advice(struct fgit_config *cfg, const char *key)
{
	int on;

	if (!fgit_config_get_bool(&on, cfg, key))
		return on;
	if (fgit_error_last_code() == FGIT_EINVALID)
		die_last();
	return 1;
}

static void read_config(struct st *s)
{
	struct fgit_config *cfg = s->cfg;
	const char *v;
	int bv;

	if (fmt == F_UNSPEC) {
		if (!fgit_config_get_bool(&bv, cfg, "status.short") && bv)
			fmt = F_SHORT;
	}
	if (show_branch < 0) {
		if (!fgit_config_get_bool(&bv, cfg, "status.branch"))
			show_branch = bv;
	}
	if (!untracked_given && !fgit_config_get_string(&v, cfg, "status.showuntrackedfiles") && v) {
		int m = parse_untracked(v);
		if (m < 0) {
			bv = fgit_config_parse_bool(v);
			if (bv == 0)
				m = FGIT_STATUS_UNTRACKED_NO;
			else if (bv == 1)
				m = FGIT_STATUS_UNTRACKED_NORMAL;
			else
				die("bad config variable 'status.showuntrackedfiles'");
		}
		s->untracked_mode = m;
	}
	if (renames < 0) {
		if ((!fgit_config_get_string(&v, cfg, "status.renames") && v) ||
		    (!fgit_config_get_string(&v, cfg, "diff.renames") && v)) {
			if (!strcasecmp(v, "copies") || !strcasecmp(v, "copy"))
				die_unimplemented("status", "status.renames=copies (copy detection)");
			bv = fgit_config_parse_bool(v);
			renames = bv < 0 ? 1 : bv;
		}
	}
	/* settings that change the output in ways not built yet */
	if (!fgit_config_get_bool(&bv, cfg, "status.displaycommentprefix") && bv)
		die_unimplemented("status", "status.displayCommentPrefix");
	if (!fgit_config_get_bool(&bv, cfg, "status.showstash") && bv)
		die_unimplemented("status", "status.showStash");
	if (!fgit_config_get_string(&v, cfg, "status.submodulesummary") && v &&
	    fgit_config_parse_bool(v) != 0 && strcmp(v, "0"))
		die_unimplemented("status", "status.submoduleSummary");
	if (ahead_behind < 0 && !fgit_config_get_bool(&bv, cfg, "status.aheadbehind"))
		ahead_behind = bv;
	s->hints = advice(cfg, "advice.statushints");
	s->advice_uoption = advice(cfg, "advice.statusuoption");
	fgit_error_clear();
}

static int rename_limit(struct st *s)
{
	int n;
	if (!fgit_config_get_int(&n, s->cfg, "status.renamelimit"))
		return n;
	if (!fgit_config_get_int(&n, s->cfg, "diff.renamelimit"))
		return n;
	fgit_error_clear();
	return 1000;
}

static void check_color(struct st *s)
{
	const char *v = NULL;
	int on = 0;
	if (fgit_config_get_string(&v, s->cfg, "color.status") || !v)
		if (fgit_config_get_string(&v, s->cfg, "color.ui"))
			v = NULL;
	fgit_error_clear();
	if (!v || !strcasecmp(v, "auto"))
		on = isatty(1) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
	else if (!strcasecmp(v, "always"))
		on = 1;
	else if (!strcasecmp(v, "never"))
		on = 0;
	else
		on = fgit_config_parse_bool(v) > 0 && isatty(1);
	/* the default colours; color.status.<slot> is not read yet */
	use_color = on && (fmt == F_LONG || fmt == F_SHORT);
}

static void write_index_back(struct st *s, struct fgit_index *idx, const char *path)
{
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	const char *ol = getenv("GIT_OPTIONAL_LOCKS");
	size_t i, n = fgit_index_entrycount(idx);
	int racy = fgit_index_is_changed(idx), bv;	/* e.g. the untracked cache */

	if (ol && !fgit_config_parse_bool(ol))
		return;
	for (i = 0; i < n && !racy; i++)
		racy = fgit_index_entry_is_racy(idx, fgit_index_get(idx, i));
	fgit_error_clear();
	if (!s->s->refreshed && !racy)
		return;
	if (fgit_index_was_split(idx) ||
	    (!fgit_config_get_bool(&bv, s->cfg, "core.splitindex") && bv))
		wo.flags |= FGIT_INDEX_WRITE_SPLIT;
	wo.shared_index_dir = fgit_repo_git_dir(s->repo);
	wo.flags |= FGIT_INDEX_WRITE_IF_UNCHANGED;
	fgit_error_clear();
	if (fgit_index_write(idx, path, &wo))
		fgit_error_clear();	/* opportunistic, as git's update_index_if_able */
}

/* A submodule's own status, as git asks `git status --porcelain=2` there. */
static int sub_cb(unsigned *flags, const char *path, void *payload)
{
	const char *base = payload;
	struct fgit_buf wd = FGIT_BUF_INIT, ip = FGIT_BUF_INIT;
	struct fgit_repo *r = NULL;
	struct fgit_index *idx = NULL;
	struct fgit_ignore *ig = NULL;
	struct fgit_ignore_options io = FGIT_IGNORE_OPTIONS_INIT;
	struct fgit_status_options so = FGIT_STATUS_OPTIONS_INIT;
	struct fgit_wt_stat_options sto;
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_status *st = NULL;
	struct fgit_odb *odb;
	struct fgit_refdb *db;
	struct fgit_oid head, tree;
	int initial = 0;

	fgit_buf_addf(&wd, "%s%s", base, path);
	if (fgit_repo_discover(&r, wd.ptr, FGIT_REPO_NO_ENV) || !fgit_repo_work_tree(r))
		goto out;
	if (fgit_repo_odb(&odb, r) || fgit_repo_refdb(&db, r))
		goto out;
	if (fgit_refdb_resolve(&head, NULL, NULL, db, "HEAD") < 0)
		initial = 1;
	else {
		struct st tmp;
		memset(&tmp, 0, sizeof(tmp));
		tmp.repo = r;
		tmp.odb = odb;
		if (read_commit_tree(&tree, &tmp, &head))
			goto out;
	}
	fgit_buf_addf(&ip, "%s/index", fgit_repo_git_dir(r));
	lo.algo = fgit_repo_algo(r);
	lo.shared_index_dir = fgit_repo_git_dir(r);
	lo.flags = FGIT_INDEX_LOAD_MISSING_OK;
	if (fgit_index_load(&idx, ip.ptr, &lo))
		goto out;
	io.workdir = wd.ptr;
	if (fgit_ignore_new(&ig, &io) || cli_add_standard_excludes(ig, r))
		goto out;
	cli_wt_stat_options(&sto, r);
	fgit_buf_addch(&wd, '/');
	so.index = idx;
	so.head_tree = initial ? NULL : &tree;
	so.odb = odb;
	so.workdir = wd.ptr;
	so.ignore = ig;
	so.untracked = FGIT_STATUS_UNTRACKED_NORMAL;
	so.renames = 0;
	so.stat = &sto;
	so.submodule_cb = sub_cb;
	so.submodule_payload = wd.ptr;
	if (fgit_status_collect(&st, &so))
		goto out;
	if (st->nr)
		*flags |= FGIT_STATUS_SUB_MODIFIED;
	if (st->nr_untracked)
		*flags |= FGIT_STATUS_SUB_UNTRACKED;
out:
	fgit_error_clear();
	fgit_status_free(st);
	if (ig)
		fgit_ignore_free(ig);
	if (idx)
		fgit_index_free(idx);
	if (r)
		fgit_repo_free(r);
	fgit_buf_release(&wd);
	fgit_buf_release(&ip);
	return 0;
}

CLI_CMD(status)
{
	struct st s;
	struct fgit_index *idx;
	struct fgit_pathspec *ps = NULL;
	struct fgit_ignore *ig = NULL;
	struct fgit_status_options so = FGIT_STATUS_OPTIONS_INIT;
	struct fgit_wt_stat_options sto;
	struct fgit_untr *uc;
	struct fgit_oid tree;
	char *index_path;
	char *resolved = NULL;
	unsigned int flags = 0;
	int nargs;
	struct stat stt;

	memset(&s, 0, sizeof(s));
	nargs = cli_parse_options(argc, argv, "status", options, status_usage, 0);
	if (verbose)
		die_unimplemented("status", "-v");
	s.repo = cli_repo();
	cli_require_work_tree(s.repo);
	s.cfg = fgit_repo_config(s.repo);
	s.untracked_mode = FGIT_STATUS_UNTRACKED_NORMAL;
	read_config(&s);
	if (untracked_given) {
		s.untracked_mode = parse_untracked(untracked_arg);
		if (s.untracked_mode < 0)
			die("Invalid untracked files mode '%s'", untracked_arg);
	}
	if (ignored_given) {
		if (!strcmp(ignored_arg, "traditional"))
			s.ignored_mode = FGIT_STATUS_IGNORED_TRADITIONAL;
		else if (!strcmp(ignored_arg, "matching"))
			s.ignored_mode = FGIT_STATUS_IGNORED_MATCHING;
		else if (!strcmp(ignored_arg, "no"))
			s.ignored_mode = FGIT_STATUS_IGNORED_NO;
		else
			die("Invalid ignored mode '%s'", ignored_arg);
	}
	if (s.ignored_mode == FGIT_STATUS_IGNORED_MATCHING && s.untracked_mode == FGIT_STATUS_UNTRACKED_NO)
		die("Unsupported combination of ignored and untracked-files arguments");
	if (fmt == F_UNSPEC)
		fmt = F_LONG;
	if (nul_term && fmt == F_LONG)
		fmt = F_PORCELAIN;
	if (fmt == F_LONG || fmt == F_SHORT)
		check_color(&s);
	if (renames < 0)
		renames = 1;
	s.quote_path = cli_quote_path(s.repo);
	/* porcelain v1 names paths from the top; v2 and the others relative */
	s.prefix = fmt == F_PORCELAIN ? NULL : cli_globals.prefix;
	if (s.prefix && fmt != F_PORCELAIN) {
		int bv;
		if (!fgit_config_get_bool(&bv, s.cfg, "status.relativepaths") && !bv)
			s.prefix = NULL;
		fgit_error_clear();
	}
	if (fgit_repo_odb(&s.odb, s.repo) || fgit_repo_refdb(&s.db, s.repo))
		die_last();

	/* HEAD */
	{
		char *target = NULL;
		unsigned int rf = 0;
		if (fgit_refdb_read_raw(NULL, &target, &rf, s.db, "HEAD") == 0 &&
		    (rf & FGIT_REF_SYMBOLIC) && target) {
			s.branch_ref = target;
			s.branch = strdup(starts_with(target, "refs/heads/") ? target + 11 : target);
		} else {
			free(target);
		}
		if (fgit_refdb_resolve(&s.head, &resolved, &flags, s.db, "HEAD") < 0)
			s.initial = 1;
		fgit_error_clear();
	}
	if (!s.initial && read_commit_tree(&tree, &s, &s.head))
		die_last();
	if (show_branch > 0 || fmt == F_LONG)
		find_upstream(&s);
	{
		struct fgit_buf p = FGIT_BUF_INIT;
		fgit_buf_addf(&p, "%s/MERGE_HEAD", fgit_repo_git_dir(s.repo));
		s.in_merge = !stat(p.ptr, &stt);
		if (fmt == F_LONG)
			read_state(&s);
		s.not_from_commit = s.in_merge || s.pick == 1;
		fgit_buf_release(&p);
	}

	if (nargs && fgit_pathspec_new(&ps, cli_globals.prefix, argv, (size_t)nargs, 0,
				       fgit_repo_work_tree(s.repo)))
		die_last();
	if (fgit_repo_work_tree(s.repo) && chdir(fgit_repo_work_tree(s.repo)))
		die_errno("cannot chdir to '%s'", fgit_repo_work_tree(s.repo));

	index_path = cli_index_path(s.repo);
	idx = cli_index_load(s.repo, index_path);

	if (s.untracked_mode || s.ignored_mode) {
		struct fgit_ignore_options io = FGIT_IGNORE_OPTIONS_INIT;
		int bv;
		io.workdir = ".";	/* we are at the top */
		if (!fgit_config_get_bool(&bv, s.cfg, "core.ignorecase") && bv)
			io.flags |= FGIT_IGNORE_ICASE;
		fgit_error_clear();
		if (fgit_ignore_new(&ig, &io) || cli_add_standard_excludes(ig, s.repo))
			die_last();
	}
	cli_wt_stat_options(&sto, s.repo);
	so.index = idx;
	so.head_tree = s.initial ? NULL : &tree;
	so.odb = s.odb;
	so.workdir = "";
	so.pathspec = ps;
	so.ignore = ig;
	so.untracked = s.untracked_mode;
	so.ignored = s.ignored_mode;
	so.renames = renames;
	so.rename_limit = rename_limit(&s);
	so.stat = &sto;
	so.rename_score = find_renames_score;
	{
		/* core.preloadIndex (default true): several lstat threads */
		int bv;
		if (!fgit_config_get_bool(&bv, s.cfg, "core.preloadindex") && !bv)
			so.threads = 1;
		fgit_error_clear();
	}
	so.submodule_cb = sub_cb;
	so.submodule_payload = "";
	/* git's validate_untracked_cache: a plain whole-tree status, -unormal
	 * (walk flags 6) or -uall (0) */
	uc = (s.untracked_mode == FGIT_STATUS_UNTRACKED_NORMAL ||
	      s.untracked_mode == FGIT_STATUS_UNTRACKED_ALL) && !s.ignored_mode && !ps ?
		cli_untr_for_status(s.repo, idx, s.untracked_mode == FGIT_STATUS_UNTRACKED_ALL ? 0 : 6) :
		NULL;
	so.untracked_cache = uc;
	if (fgit_status_collect(&s.s, &so))
		die_last();
	cli_untr_after_walk(s.repo, idx, uc);
	write_index_back(&s, idx, index_path);
	if (s.s->rename_limit_needed) {
		/* git's diff_warn_rename_limit */
		fflush(stdout);
		fprintf(stderr, "warning: exhaustive rename detection was skipped due to too many files.\n");
		fprintf(stderr, "warning: you may want to set your %s variable to at least %d and retry the command.\n",
			"status.renameLimit", s.s->rename_limit_needed);
	}

	fgit_buf_init(&s.out, 4096);
	switch (fmt) {
	case F_SHORT:
	case F_PORCELAIN:
		print_short(&s, fmt == F_PORCELAIN);
		break;
	case F_PORCELAIN2:
		print_v2(&s);
		break;
	default:
		print_long(&s);
		break;
	}
	fwrite(s.out.ptr, 1, s.out.len, stdout);
	cli_flush_stdout();
	return 0;
}
