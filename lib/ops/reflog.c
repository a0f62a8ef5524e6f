/*
 * Reflog expiry (include/fgit/reflog.h): git's policy over
 * fgit_reflog_rewrite().  Reachability from the tip is computed once per
 * reflog, and only when an entry is old enough for it to matter: a full
 * walk from the tip (every ref for HEAD) into a set of commits.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/reflog.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"
#include "fgit/date.h"
#include "fgit/wildmatch.h"

/* ---- configuration ---- */

struct cfg_ctx {
	const char *refname;
	int64_t now;
	int matched;		/* a gc.<pattern>.* matched: its values only */
	char *pattern;		/* the first matching pattern */
	int64_t total, unreach;
	int have_total, have_unreach;
	int err;
	const char *bad_key;
};

static int cfg_value(int64_t *out, const char *key, const char *value, int64_t now)
{
	if (!value)
		return fgit_error_set(FGIT_EINVALID, "missing value for '%s'", key);
	if (fgit_date_parse_expiry(out, value, now))
		return fgit_error_set(FGIT_EINVALID, "'%s' for '%s' is not a valid timestamp",
				      value, key);
	return 0;
}

static int cfg_cb(const char *key, const char *value, enum fgit_config_scope scope,
		  void *payload)
{
	struct cfg_ctx *c = payload;
	const char *rest, *dot;
	int64_t v;
	size_t plen;
	int unreach;

	if (strncmp(key, "gc.", 3))
		return 0;
	rest = key + 3;
	dot = strrchr(rest, '.');
	if (!strcmp(dot ? dot + 1 : rest, "reflogexpire"))
		unreach = 0;
	else if (!strcmp(dot ? dot + 1 : rest, "reflogexpireunreachable"))
		unreach = 1;
	else
		return 0;
	/* git parses every such value when reading the config */
	if ((c->err = cfg_value(&v, key, value, c->now))) {
		c->bad_key = key;
		return c->err;
	}
	if (!dot)
		return 0;	/* gc.reflogExpire itself is read directly */
	plen = (size_t)(dot - rest);
	/* the first pattern (in config order) that matches wins */
	if (c->pattern && (strlen(c->pattern) != plen || strncmp(c->pattern, rest, plen)))
		return 0;
	if (!c->pattern) {
		char *pat = strndup(rest, plen);
		if (!pat)
			return c->err = fgit_error_set(FGIT_ENOMEM, "out of memory");
		if (!fgit_wildmatch(pat, c->refname, 0)) {
			free(pat);
			return 0;
		}
		c->pattern = pat;
	}
	if (unreach) {
		c->unreach = v;
		c->have_unreach = 1;
	} else {
		c->total = v;
		c->have_total = 1;
	}
	c->matched = 1;
	return 0;
}

static int default_value(int64_t *out, struct fgit_config *cfg, const char *key,
			 const char *def, int64_t now)
{
	const char *v = NULL;

	if (fgit_config_get_string(&v, cfg, key)) {
		fgit_error_clear();
		return fgit_date_parse_expiry(out, def, now);
	}
	return cfg_value(out, key, v, now);
}

int fgit_reflog_expire_config(struct fgit_reflog_expire_opts *opts, struct fgit_config *cfg,
			      const char *refname, int64_t now, char **bad_key_out)
{
	struct cfg_ctx c;
	int64_t total, unreach;
	int r;

	memset(&c, 0, sizeof(c));
	c.refname = refname;
	c.now = now;
	if (cfg)
		fgit_config_foreach(cfg, cfg_cb, &c);
	free(c.pattern);
	if (c.err) {
		if (bad_key_out && c.bad_key)
			*bad_key_out = strdup(c.bad_key);
		return c.err;
	}
	if (c.matched) {
		/* an unset half of a matching pattern stays 0 ("never"), as in git */
		total = c.have_total ? c.total : 0;
		unreach = c.have_unreach ? c.unreach : 0;
	} else if (!strcmp(refname, "refs/stash")) {
		total = unreach = FGIT_EXPIRE_NEVER;
	} else {
		if ((r = default_value(&total, cfg, "gc.reflogexpire", "90.days.ago", now)) ||
		    (r = default_value(&unreach, cfg, "gc.reflogexpireunreachable",
				       "30.days.ago", now)))
			return r;
	}
	if (!(opts->flags & FGIT_EXPIRE_EXPLICIT_TOTAL))
		opts->expire_total = total;
	if (!(opts->flags & FGIT_EXPIRE_EXPLICIT_UNREACH))
		opts->expire_unreachable = unreach;
	return 0;
}

/* ---- expiry ---- */

enum unreach_kind { UE_ALWAYS, UE_NORMAL, UE_HEAD };

struct expire_ctx {
	struct fgit_repo *repo;
	struct fgit_refdb *db;
	struct fgit_odb *odb;
	struct fgit_revwalk *walk;
	const struct fgit_reflog_expire_opts *opts;
	const char *refname;
	enum unreach_kind kind;
	struct fgit_oid tip;
	struct fgit_oidmap reachable;	/* of struct fgit_commit_node */
	int marked;
	long recno;
	int err;
};

static int mark_from(struct expire_ctx *c, const struct fgit_oid *start)
{
	struct fgit_commit_node **stack = NULL, *n;
	size_t nr = 0, alloc = 0;
	int r = 0, err = 0;

	if (fgit_revwalk_commit(&n, c->walk, start)) {
		fgit_error_clear();
		return 0;	/* not a commit: nothing to mark */
	}
	if (fgit_oidmap_get(&c->reachable, &n->oid))
		return 0;
	fgit_oidmap_put(&c->reachable, n, &err);
	if (err)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (;;) {
		uint32_t i;
		for (i = 0; i < n->nparents; i++) {
			struct fgit_commit_node *p = n->parents[i];
			if (fgit_oidmap_get(&c->reachable, &p->oid))
				continue;
			fgit_oidmap_put(&c->reachable, p, &err);
			if (nr == alloc) {
				size_t na = alloc ? 2 * alloc : 256;
				struct fgit_commit_node **s = realloc(stack, na * sizeof(*s));
				if (!s)
					err = 1;
				else {
					stack = s;
					alloc = na;
				}
			}
			if (err) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
			stack[nr++] = p;
		}
		if (!nr)
			break;
		n = stack[--nr];
		/* parents are parsed on demand: fetch them through the walker */
		if (fgit_revwalk_commit(&n, c->walk, &n->oid)) {
			fgit_error_clear();
			continue;
		}
	}
out:
	free(stack);
	return r;
}

static int tip_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		  void *payload)
{
	struct expire_ctx *c = payload;

	if (flags & FGIT_REF_BROKEN)
		return 0;
	return mark_from(c, oid);
}

static int mark_reachable(struct expire_ctx *c)
{
	if (c->marked)
		return 0;
	c->marked = 1;
	if (c->kind == UE_HEAD)
		return fgit_refdb_foreach(c->db, "refs/", tip_cb, c);
	return mark_from(c, &c->tip);
}

/* 1 if oid is a commit not reachable from the tip(s). */
static int unreachable(struct expire_ctx *c, const struct fgit_oid *oid)
{
	struct fgit_commit_node *n;

	if (fgit_oid_is_zero(oid))
		return 0;
	if (fgit_revwalk_commit(&n, c->walk, oid)) {
		fgit_error_clear();
		return 0;	/* missing or not a commit: git keeps it */
	}
	if ((c->err = mark_reachable(c)))
		return 0;
	return !fgit_oidmap_get(&c->reachable, oid);
}

static int should_prune(struct expire_ctx *c, const struct fgit_reflog_entry *e)
{
	const struct fgit_reflog_expire_opts *o = c->opts;

	if (e->time < o->expire_total)
		return 1;
	if (e->time < o->expire_unreachable) {
		if (c->kind == UE_ALWAYS)
			return 1;
		if (unreachable(c, &e->old_oid) || unreachable(c, &e->new_oid))
			return 1;
	}
	if (c->recno && --c->recno == 0)
		return 1;
	return 0;
}

static int keep_cb(const struct fgit_reflog_entry *e, void *payload)
{
	struct expire_ctx *c = payload;
	const struct fgit_reflog_expire_opts *o = c->opts;
	int prune = should_prune(c, e);

	if (c->err)
		return c->err;
	if (o->report && (o->flags & FGIT_EXPIRE_VERBOSE))
		o->report(prune ? "prune" : "keep", e->msg, o->payload);
	return !prune;
}

/* "HEAD" for "main-worktree/HEAD" and "worktrees/<id>/HEAD" */
static const char *strip_worktree(const char *name)
{
	const char *slash;

	if (!strncmp(name, "main-worktree/", 14))
		return name + 14;
	if (!strncmp(name, "worktrees/", 10) && (slash = strchr(name + 10, '/')))
		return slash + 1;
	return name;
}

int fgit_reflog_expire(struct fgit_repo *repo, const char *refname,
		       const struct fgit_reflog_expire_opts *opts)
{
	struct expire_ctx c;
	struct fgit_oidmap empty = FGIT_OIDMAP_INIT;
	unsigned int flags = 0;
	int r;

	memset(&c, 0, sizeof(c));
	c.repo = repo;
	c.opts = opts;
	c.refname = refname;
	c.recno = opts->recno;
	c.reachable = empty;
	if ((r = fgit_repo_refdb(&c.db, repo)) || (r = fgit_repo_odb(&c.odb, repo)) ||
	    (r = fgit_revwalk_new(&c.walk, c.odb)))
		goto out;

	if (!opts->expire_unreachable || !strcmp(strip_worktree(refname), "HEAD")) {
		c.kind = UE_HEAD;
	} else {
		struct fgit_commit_node *n;
		c.kind = UE_ALWAYS;
		if (!fgit_refdb_resolve(&c.tip, NULL, NULL, c.db, refname) &&
		    !fgit_oid_is_zero(&c.tip) && !fgit_revwalk_commit(&n, c.walk, &c.tip))
			c.kind = UE_NORMAL;
		fgit_error_clear();
	}
	if (opts->expire_unreachable <= opts->expire_total)
		c.kind = UE_ALWAYS;

	if (opts->flags & FGIT_EXPIRE_REWRITE)
		flags |= FGIT_REFLOG_REWRITE;
	if (opts->flags & FGIT_EXPIRE_UPDATEREF)
		flags |= FGIT_REFLOG_UPDATEREF;
	if (opts->flags & FGIT_EXPIRE_DRY_RUN)
		flags |= FGIT_REFLOG_DRY_RUN;
	r = fgit_reflog_rewrite(c.db, refname, flags, keep_cb, &c);
out:
	fgit_oidmap_release(&c.reachable);
	fgit_revwalk_free(c.walk);
	return r;
}

struct count_ctx {
	const int64_t *before;
	long n;
};

static int count_cb(const struct fgit_reflog_entry *e, void *payload)
{
	struct count_ctx *c = payload;

	if (!c->before || e->time < *c->before)
		c->n++;
	return 0;
}

long fgit_reflog_count(struct fgit_repo *repo, const char *refname, const int64_t *before)
{
	struct fgit_refdb *db;
	struct count_ctx c = { before, 0 };

	if (fgit_repo_refdb(&db, repo))
		return 0;
	fgit_reflog_foreach(db, refname, 0, count_cb, &c);
	return c.n;
}
