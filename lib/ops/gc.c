/*
 * git gc in one process (include/fgit/gc.h).
 *
 * Where git runs `repack`, `pack-objects`, `prune` and `commit-graph` as
 * children talking through pipes (seed 003), this calls the packer, the
 * object walk, prune and the commit-graph writer directly, and shares their
 * work: the set of objects the repack packed is exactly what prune must
 * keep, so prune does not walk the history a second time.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/commit_graph.h"
#include "fgit/config.h"
#include "fgit/date.h"
#include "fgit/gc.h"
#include "fgit/reflog.h"
#include "fgit/refs.h"
#include "fgit/hash.h"
#include "fgit/index.h"
#include "fgit/lockfile.h"
#include "fgit/midx.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "fgit/prune.h"
#include "fgit/refs.h"
#include "fgit/repack.h"
#include "fgit/worktree.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

#define report(o, level, ...) \
	do { \
		if ((o)->report) { \
			struct fgit_buf b_ = FGIT_BUF_INIT; \
			fgit_buf_addf(&b_, __VA_ARGS__); \
			(o)->report(level, b_.ptr, (o)->payload); \
			fgit_buf_release(&b_); \
		} \
	} while (0)

struct gc {
	struct fgit_repo *repo;
	const struct fgit_gc_options *o;
	struct fgit_config *cfg;
	struct fgit_odb *odb;
	const char *objdir;
	struct fgit_buf objdir_buf;
	int64_t now;
	/* what the repack packed: sorted ids, for prune */
	struct fgit_oid *packed;
	size_t npacked, apacked;
};

static int cfg_int(struct gc *g, const char *key, int def)
{
	int v;
	if (fgit_config_get_int(&v, g->cfg, key) == 0)
		return v;
	fgit_error_clear();
	return def;
}

static int cfg_bool(struct gc *g, const char *key, int def)
{
	int v;
	if (fgit_config_get_bool(&v, g->cfg, key) == 0)
		return v;
	fgit_error_clear();
	return def;
}

static const char *cfg_str(struct gc *g, const char *key, const char *def)
{
	const char *v;
	if (fgit_config_get_string(&v, g->cfg, key) == 0 && v)
		return v;
	fgit_error_clear();
	return def;
}

/* ---- the gc.pid lock ---- */

static int lock_gc(struct gc *g, char **pidfile)
{
	struct fgit_buf path = FGIT_BUF_INIT, content = FGIT_BUF_INIT;
	struct fgit_lockfile *lk = NULL;
	char host[256];
	struct stat st;
	int r;

	if (gethostname(host, sizeof(host)) < 0)
		strcpy(host, "unknown");
	host[sizeof(host) - 1] = 0;
	fgit_buf_addf(&path, "%s/gc.pid", fgit_repo_common_dir(g->repo));
	if ((r = fgit_lockfile_acquire(&lk, path.ptr, 0)) < 0)
		goto out;
	if (!g->o->force && stat(path.ptr, &st) == 0 &&
	    g->now - (int64_t)st.st_mtime <= 12 * 3600 &&
	    fgit_buf_read_file(&content, path.ptr) == 0) {
		unsigned long pid = 0;
		char other[256];
		if (sscanf(content.ptr, "%lu %255s", &pid, other) == 2 &&
		    (strcmp(other, host) || kill((pid_t)pid, 0) == 0 || errno != ESRCH)) {
			fgit_lockfile_rollback(lk);
			r = fgit_error_set(FGIT_ELOCKED, "gc is already running on machine '%s'"
					   " pid %lu (use --force if not)", other, pid);
			goto out;
		}
	}
	fgit_error_clear();
	fgit_buf_reset(&content);
	fgit_buf_addf(&content, "%lu %s", (unsigned long)getpid(), host);
	if ((r = fgit_lockfile_write(lk, content.ptr, content.len)) < 0) {
		fgit_lockfile_rollback(lk);
		goto out;
	}
	if ((r = fgit_lockfile_commit(lk)) < 0)
		goto out;
	*pidfile = fgit_buf_detach(&path, NULL);
out:
	fgit_buf_release(&path);
	fgit_buf_release(&content);
	return r;
}

/* ---- --auto thresholds ---- */

static int too_many_loose(struct gc *g)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	int limit = cfg_int(g, "gc.auto", 6700), n = 0;
	size_t hexsz = fgit_hash_hexsz(fgit_odb_algo(g->odb));
	struct dirent *de;
	DIR *dir;

	if (limit <= 0)
		return 0;
	limit = (limit + 255) / 256;
	fgit_buf_addf(&path, "%s/17", g->objdir);
	if ((dir = opendir(path.ptr))) {
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name), i;
			if (len != hexsz - 2)
				continue;
			for (i = 0; i < len && strchr("0123456789abcdef", de->d_name[i]); i++)
				;
			if (i == len && ++n > limit)
				break;
		}
		closedir(dir);
	}
	fgit_buf_release(&path);
	return n > limit;
}

static int too_many_packs(struct gc *g)
{
	int limit = cfg_int(g, "gc.autoPackLimit", 50), n = 0;
	size_t i, np;
	if (limit <= 0)
		return 0;
	np = fgit_odb_pack_count(g->odb);
	for (i = 0; i < np; i++) {
		const char *pp = fgit_odb_pack_path(g->odb, i);
		struct fgit_buf keep = FGIT_BUF_INIT;
		if (!pp)
			continue;
		fgit_buf_add(&keep, pp, strlen(pp) - 5);
		fgit_buf_adds(&keep, ".keep");
		if (access(keep.ptr, F_OK) != 0)
			n++;
		fgit_buf_release(&keep);
	}
	return n > limit;
}

/* ---- repack -d -l [-a | -A [--unpack-unreachable=<date>]] ---- */

struct old_pack {
	char *path;			/* .../pack-X.pack */
	uint64_t mtime;
	int keep;
};

static int collect(const struct fgit_oid *oid, enum fgit_object_type type, const char *name,
		   size_t name_len, void *payload)
{
	struct gc *g = payload;
	if (g->npacked == g->apacked) {
		size_t na = g->apacked ? 2 * g->apacked : 4096;
		struct fgit_oid *nv = realloc(g->packed, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		g->packed = nv;
		g->apacked = na;
	}
	g->packed[g->npacked++] = *oid;
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return fgit_oid_cmp(a, b);
}

static int is_packed(struct gc *g, const struct fgit_oid *oid)
{
	return g->npacked && bsearch(oid, g->packed, g->npacked, sizeof(*g->packed), oid_cmp);
}

/* The walk both adds to the packer and records the ids. */
struct tee {
	struct gc *g;
	struct fgit_packer *pk;
	struct fgit_progress *pr;
	uint64_t n;
};

static int tee_cb(const struct fgit_oid *oid, enum fgit_object_type type, const char *name,
		  size_t name_len, void *payload)
{
	struct tee *t = payload;
	int r = fgit_packer_add(t->pk, oid, type, name, name_len);
	if (r < 0)
		return r;
	fgit_progress_set(t->pr, ++t->n);
	return collect(oid, type, name, name_len, t->g);
}

static void unlink_pack_files(const char *pack_path)
{
	static const char *const exts[] = { ".pack", ".idx", ".rev", ".bitmap", ".promisor",
					    ".mtimes" };
	struct fgit_buf p = FGIT_BUF_INIT;
	size_t base, i;
	fgit_buf_add(&p, pack_path, strlen(pack_path) - 5);
	base = p.len;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		fgit_buf_setlen(&p, base);
		fgit_buf_adds(&p, exts[i]);
		unlink(p.ptr);
	}
	fgit_buf_release(&p);
}


struct loosen_ctx {
	struct gc *g;
	struct old_pack *old;
	size_t nold;
	int64_t expire;			/* INT64_MIN: loosen every unreachable object */
	int r;
};

static int loosen_cb(const struct fgit_oid *oid, int pack, uint64_t off, void *payload)
{
	struct loosen_ctx *l = payload;
	const char *pp;
	size_t i;

	if (pack < 0 || is_packed(l->g, oid))
		return 0;
	pp = fgit_odb_pack_path(l->g->odb, (size_t)pack);
	for (i = 0; pp && i < l->nold; i++)
		if (!strcmp(l->old[i].path, pp))
			break;
	if (!pp || i == l->nold || l->old[i].keep)
		return 0;
	if (l->expire != INT64_MIN && (int64_t)l->old[i].mtime <= l->expire)
		return 0;	/* prune would drop it anyway: not worth writing */
	return fgit_odb_force_loose(l->g->odb, oid, (int64_t)l->old[i].mtime);
}

/*
 * all: 0 incremental (loose reachable objects into a new pack), 1 -a,
 * 2 -A.  unpack_expire (with -A): unreachable objects of packs newer than
 * this become loose; INT64_MIN: all of them.
 */
static int repack(struct gc *g, int all, int64_t unpack_expire)
{
	struct fgit_pack_objects_options po = FGIT_PACK_OBJECTS_OPTIONS_INIT;
	struct fgit_packer *pk = NULL;
	struct fgit_objwalk *w = NULL;
	struct old_pack *old = NULL;
	struct fgit_buf base = FGIT_BUF_INIT;
	size_t nold = 0, i, np;
	char hex[FGIT_MAX_HEXSZ + 1];
	int r, v, write_rev = cfg_bool(g, "pack.writeReverseIndex", 0);
	/* repack's reachability bitmaps: -1 unset (then only for -a/-A in a
	 * bare repository, kept packs left out), else as configured.
	 * NEEDSWORK: git's repack dies for an incremental repack with
	 * writeBitmaps set; here that repack just writes none. */
	int bitmaps = cfg_bool(g, "repack.writeBitmaps", cfg_bool(g, "pack.writeBitmaps", -1));

	/* the configuration pack-objects would read */
	po.window = cfg_int(g, "pack.window", 10);
	po.depth = cfg_int(g, "pack.depth", 50);
	po.nthreads = cfg_int(g, "pack.threads", 0);
	if (fgit_config_get_int(&v, g->cfg, "core.compression") == 0)
		po.compression = v;
	if (fgit_config_get_int(&v, g->cfg, "pack.compression") == 0)
		po.compression = v;
	fgit_error_clear();
	po.delta_base_offset = cfg_bool(g, "repack.useDeltaBaseOffset", 1);
	if (g->o->aggressive) {
		po.window = cfg_int(g, "gc.aggressiveWindow", 250);
		po.depth = cfg_int(g, "gc.aggressiveDepth", 50);
		po.reuse_delta = 0;	/* -f */
	}
	if (bitmaps < 0)
		bitmaps = all && fgit_repo_is_bare(g->repo) == 1 ? -1 : 0;
	po.skip = FGIT_PACK_SKIP_NONLOCAL | (bitmaps > 0 && all ? 0 : FGIT_PACK_SKIP_KEPT);
	if (!all)
		po.skip |= FGIT_PACK_SKIP_PACKED;
	po.progress = g->o->quiet || g->o->progress_fd < 0 ? 0 : 2;
	po.progress_fd = g->o->progress_fd;

	np = fgit_odb_pack_count(g->odb);
	if (!(old = calloc(np ? np : 1, sizeof(*old)))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < np; i++) {
		const char *pp = fgit_odb_pack_path(g->odb, i);
		struct fgit_buf keep = FGIT_BUF_INIT;
		struct stat st;
		if (!pp || strncmp(pp, g->objdir, strlen(g->objdir)))
			continue;
		fgit_buf_add(&keep, pp, strlen(pp) - 5);
		fgit_buf_adds(&keep, ".keep");
		old[nold].keep = access(keep.ptr, F_OK) == 0;
		fgit_buf_release(&keep);
		old[nold].mtime = stat(pp, &st) == 0 ? (uint64_t)st.st_mtime : 0;
		if (!(old[nold].path = strdup(pp))) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		nold++;
	}
	if ((r = fgit_packer_new(&pk, g->odb, &po)) < 0 ||
	    (r = fgit_objwalk_new(&w, g->odb, FGIT_OBJWALK_OBJECTS)) < 0 ||
	    (r = fgit_reachability_tips(w, g->repo, NULL)) < 0)
		goto out;
	{
		struct tee t = { g, pk, NULL, 0 };
		t.pr = po.progress ? fgit_progress_new("Enumerating objects", 0,
						       po.progress_fd, 0) : NULL;
		r = fgit_objwalk_run(w, tee_cb, &t);
		fgit_progress_done(t.pr);
		if (r < 0)
			goto out;
	}
	{
		struct fgit_refdb *refs;
		if ((r = fgit_repo_refdb(&refs, g->repo)) < 0 ||
		    (r = fgit_packer_mark_tags(pk, refs)) < 0)
			goto out;
	}
	qsort(g->packed, g->npacked, sizeof(*g->packed), oid_cmp);
	if (fgit_packer_count(pk)) {
		struct fgit_idx_options io = FGIT_IDX_OPTIONS_INIT;
		struct fgit_pack_objects_stats st;
		fgit_buf_addf(&base, "%s/pack/pack", g->objdir);
		if ((r = fgit_packer_write_files(hex, pk, base.ptr, write_rev, &io)) < 0)
			goto out;
		if (bitmaps && all) {
			struct fgit_refdb *refs;
			if ((r = fgit_repo_refdb(&refs, g->repo)) < 0 ||
			    (r = fgit_packer_write_bitmap(pk, base.ptr, hex, refs,
							  cfg_bool(g, "pack.writeBitmapHashCache", 1) ?
							  FGIT_PACKER_BITMAP_HASH_CACHE : 0)) < 0)
				goto out;
		}
		fgit_packer_stats(&st, pk);
		if (po.progress)
			report(g->o, 2, "Total %u (delta %u), reused %u (delta %u), pack-reused %u",
			       st.written, st.written_delta, st.reused, st.reused_delta, 0u);
	} else {
		hex[0] = 0;
	}
	if (all == 2) {
		struct loosen_ctx l = { g, old, nold, unpack_expire, 0 };
		if ((r = fgit_odb_foreach_located(g->odb, FGIT_FOREACH_PACKED |
						  FGIT_FOREACH_LOCAL_ONLY, loosen_cb, &l)) < 0)
			goto out;
	}
	if (all) {
		/* -d: the old packs go (not kept ones, not the one just written),
		 * and the midx with the first one it names */
		for (i = 0; i < nold; i++) {
			const char *nm = strrchr(old[i].path, '/') + 1;
			if (old[i].keep || (hex[0] && strstr(nm, hex)))
				continue;
			if ((r = fgit_midx_drop_if_names(g->objdir, fgit_odb_algo(g->odb),
							 old[i].path)) < 0)
				goto out;
			unlink_pack_files(old[i].path);
		}
	}
	if ((r = fgit_odb_refresh(g->odb)) < 0)
		goto out;
	if ((r = fgit_odb_prune_packed(g->odb, 0, -1, NULL, NULL)) < 0)
		goto out;
	r = fgit_update_server_info(g->repo, 0);
out:
	for (i = 0; i < nold; i++)
		free(old[i].path);
	free(old);
	fgit_objwalk_free(w);
	fgit_packer_free(pk);
	fgit_buf_release(&base);
	return r;
}

/* ---- the whole ---- */

/*
 * git gc's first two steps: `pack-refs --all --prune` unless gc.packRefs
 * says no ("notbare": only with a worktree), then `reflog expire --all`
 * unless both gc.reflogExpire and gc.reflogExpireUnreachable are "never".
 */
static int ref_steps(struct gc *g)
{
	const char *pr = cfg_str(g, "gc.packRefs", "true");
	const char *re = cfg_str(g, "gc.reflogExpire", NULL);
	const char *ru = cfg_str(g, "gc.reflogExpireUnreachable", NULL);
	int pack_refs = strcmp(pr, "notbare") ? fgit_config_parse_bool(pr) != 0
					     : !fgit_repo_is_bare(g->repo);
	int r;

	fgit_error_clear();
	if (pack_refs && (r = fgit_repo_pack_refs(g->repo, FGIT_PACK_REFS_ALL | FGIT_PACK_REFS_PRUNE,
						  NULL, NULL)) < 0)
		return r;
	if (!re || !ru || strcmp(re, "never") || strcmp(ru, "never")) {
		struct fgit_reflog_expire_opts eo;
		memset(&eo, 0, sizeof(eo));
		if ((r = fgit_reflog_expire_all(g->repo, &eo, g->now, NULL, NULL)) < 0)
			return r;
	}
	return 0;
}

int fgit_gc(struct fgit_repo *repo, const struct fgit_gc_options *o)
{
	struct gc g;
	char *pidfile = NULL;
	const char *prune_expire = NULL;
	int64_t expire = 0;
	int r, all = 2;

	memset(&g, 0, sizeof(g));
	g.repo = repo;
	g.o = o;
	g.cfg = fgit_repo_config(repo);
	g.now = (int64_t)time(NULL);
	if ((r = fgit_repo_odb(&g.odb, repo)) < 0)
		return r;
	fgit_buf_addf(&g.objdir_buf, "%s", fgit_odb_path(g.odb));
	g.objdir = g.objdir_buf.ptr;

	if (!o->no_prune)
		prune_expire = o->prune_expire ? o->prune_expire
					       : cfg_str(&g, "gc.pruneExpire", "2.weeks.ago");
	if (prune_expire && fgit_date_parse_expiry(&expire, prune_expire, g.now) < 0) {
		r = fgit_error_set(FGIT_EINVALID, "failed to parse prune expiry value %s",
				   prune_expire);
		goto out;
	}
	if (o->auto_gc) {
		int detach = cfg_bool(&g, "gc.autoDetach", 1);
		if (cfg_int(&g, "gc.auto", 6700) <= 0)
			goto out;
		if (too_many_packs(&g))
			all = 2;
		else if (too_many_loose(&g))
			all = 0;
		else
			goto out;
		if (!o->quiet) {
			report(o, 2, "%s", detach ? "Auto packing the repository in background for"
			       " optimum performance." : "Auto packing the repository for"
			       " optimum performance.");
			report(o, 2, "See \"git help gc\" for manual housekeeping.");
		}
	}
	if (all == 2 && prune_expire && expire == INT64_MAX)
		all = 1;	/* --prune=now: -a, nothing to loosen */
	if ((r = lock_gc(&g, &pidfile)) < 0) {
		if (o->auto_gc && r == FGIT_ELOCKED) {
			fgit_error_clear();
			r = 0;
		}
		goto out;
	}
	if ((r = ref_steps(&g)) < 0)
		goto out;
	if ((r = repack(&g, all, prune_expire ? expire : INT64_MIN)) < 0)
		goto out;
	if (prune_expire) {
		struct fgit_prune_options po = FGIT_PRUNE_OPTIONS_INIT;
		po.expire = expire;
		po.progress_fd = o->quiet ? -1 : o->progress_fd;
		/* everything reachable is in the pack just written: no second walk
		 * (an incremental repack packed only loose objects, so walk) */
		if (all) {
			po.reachable = g.packed;
			po.nreachable = g.npacked;
		}
		if ((r = fgit_prune(repo, &po)) < 0)
			goto out;
	}
	{
		/* git's `worktree prune --expire <gc.worktreePruneExpire>` */
		const char *wx = cfg_str(&g, "gc.worktreePruneExpire", "3.months.ago");
		int64_t wexp;
		if (fgit_date_parse_expiry(&wexp, wx, g.now) < 0) {
			r = fgit_error_set(FGIT_EINVALID, "failed to parse worktree expiry value %s",
					   wx);
			goto out;
		}
		/* "never" still prunes what is not a worktree at all, as git */
		if ((r = fgit_worktree_prune(fgit_repo_common_dir(repo), wexp, 0, NULL, NULL)) < 0)
			goto out;
	}
	if (cfg_bool(&g, "gc.writeCommitGraph", 1) && cfg_bool(&g, "core.commitGraph", 1)) {
		struct fgit_commit_graph_options co = FGIT_COMMIT_GRAPH_OPTIONS_INIT;
		struct fgit_refdb *refs;
		struct fgit_oid *tips = NULL;
		size_t n = 0;
		co.algo = fgit_odb_algo(g.odb);
		if ((r = fgit_repo_refdb(&refs, repo)) < 0 ||
		    (r = fgit_commit_graph_ref_tips(&tips, &n, refs)) < 0)
			goto out;
		r = fgit_commit_graph_write(g.objdir, g.odb, tips, n, &co);
		free(tips);
		if (r < 0)
			goto out;
	}
	if (o->auto_gc && too_many_loose(&g))
		report(o, 0, "There are too many unreachable loose objects; run 'git prune'"
		       " to remove them.");
	r = 0;
out:
	if (pidfile) {
		unlink(pidfile);
		free(pidfile);
	}
	free(g.packed);
	fgit_buf_release(&g.objdir_buf);
	return r;
}
