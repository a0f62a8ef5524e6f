/*
 * git prune (include/fgit/prune.h): unreachable loose objects.
 *
 * Reachability is the object walk of lib/revwalk from every ref, HEAD, the
 * reflogs, the index (entries and cache tree) and the given heads; its ids
 * are collected in one array, sorted once and searched.  As in git, the
 * walk runs only when a loose object old enough to go is found, and
 * unreachable objects newer than the expiry keep what they reach: those
 * get a second walk (rare: only when such objects exist).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/hash.h"
#include "fgit/index.h"
#include "fgit/odb.h"
#include "fgit/prune.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

struct oidset {
	struct fgit_oid *v;
	size_t nr, alloc;
	int sorted;
};

static int set_add(struct oidset *s, const struct fgit_oid *oid)
{
	if (s->nr == s->alloc) {
		size_t na = s->alloc ? 2 * s->alloc : 4096;
		struct fgit_oid *nv = realloc(s->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		s->v = nv;
		s->alloc = na;
	}
	s->v[s->nr++] = *oid;
	s->sorted = 0;
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return fgit_oid_cmp(a, b);
}

static int set_has(struct oidset *s, const struct fgit_oid *oid)
{
	if (!s->sorted) {
		qsort(s->v, s->nr, sizeof(*s->v), oid_cmp);
		s->sorted = 1;
	}
	return s->nr && bsearch(oid, s->v, s->nr, sizeof(*s->v), oid_cmp) != NULL;
}

struct prune_ctx {
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	const struct fgit_prune_options *o;
	struct oidset reachable;
	int walked;
	int removed;
	struct fgit_buf line;
};

static int collect(const struct fgit_oid *oid, enum fgit_object_type type, const char *name,
		   size_t name_len, void *payload)
{
	return set_add(payload, oid);
}

int fgit_reachability_tips(struct fgit_objwalk *w, struct fgit_repo *repo,
			   const char *index_path)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;
	struct fgit_refdb *refs;
	const char *env = getenv("GIT_INDEX_FILE");
	int r;

	if ((r = fgit_repo_refdb(&refs, repo)) < 0 ||
	    (r = fgit_objwalk_add_all_refs(w, refs, 0)) < 0 ||
	    (r = fgit_objwalk_add_reflogs(w, fgit_repo_git_dir(repo),
					  fgit_repo_common_dir(repo), 0)) < 0)
		return r;
	if (index_path)
		fgit_buf_adds(&path, index_path);
	else if (env && *env)
		fgit_buf_adds(&path, env);
	else
		fgit_buf_addf(&path, "%s/index", fgit_repo_git_dir(repo));
	lo.flags = FGIT_INDEX_LOAD_MISSING_OK;
	r = fgit_index_load(&idx, path.ptr, &lo);
	fgit_buf_release(&path);
	if (r < 0)
		return r;
	r = fgit_objwalk_add_index(w, idx, 0);
	fgit_index_free(idx);
	return r;
}

/* Objects newer than the expiry that the first walk did not reach. */
struct recent_ctx {
	struct prune_ctx *c;
	struct fgit_objwalk *w;
	size_t added;
};

static int add_recent_loose(struct recent_ctx *rc)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	size_t hexsz = fgit_hash_hexsz(fgit_odb_algo(rc->c->odb)), base;
	int d, r = 0;

	for (d = 0; d < 256 && !r; d++) {
		struct dirent *de;
		DIR *dir;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/%02x/", fgit_odb_path(rc->c->odb), d);
		base = path.len;
		if (!(dir = opendir(path.ptr)))
			continue;
		while (!r && (de = readdir(dir))) {
			char hex[FGIT_MAX_HEXSZ + 1];
			struct fgit_oid oid;
			struct stat st;
			if (strlen(de->d_name) != hexsz - 2)
				continue;
			snprintf(hex, sizeof(hex), "%02x%.62s", d, de->d_name);
			if (fgit_oid_from_hex(&oid, hex, fgit_odb_algo(rc->c->odb)) < 0)
				continue;
			fgit_buf_setlen(&path, base);
			fgit_buf_adds(&path, de->d_name);
			if (lstat(path.ptr, &st) < 0 || (int64_t)st.st_mtime <= rc->c->o->expire)
				continue;
			if (set_has(&rc->c->reachable, &oid))
				continue;
			if ((r = fgit_objwalk_add(rc->w, &oid, NULL, 0)) == 0)
				rc->added++;
			else if (r == FGIT_ENOTFOUND || r == FGIT_EINVALID) {
				fgit_error_clear();
				r = 0;
			}
		}
		closedir(dir);
	}
	fgit_buf_release(&path);
	return r;
}

struct recent_packed {
	struct recent_ctx *rc;
	unsigned char *recent;		/* by pack number */
	size_t npacks;
};

static int recent_packed_cb(const struct fgit_oid *oid, int pack, uint64_t off, void *payload)
{
	struct recent_packed *rp = payload;
	int r;
	if (pack < 0 || (size_t)pack >= rp->npacks || !rp->recent[pack] ||
	    set_has(&rp->rc->c->reachable, oid))
		return 0;
	if ((r = fgit_objwalk_add(rp->rc->w, oid, NULL, 0)) == 0)
		rp->rc->added++;
	else if (r == FGIT_ENOTFOUND || r == FGIT_EINVALID) {
		fgit_error_clear();
		r = 0;
	}
	return r;
}

/* Objects of packs newer than the expiry (a pack's mtime is its objects'). */
static int add_recent_packed(struct recent_ctx *rc)
{
	struct recent_packed rp = { rc, NULL, fgit_odb_pack_count(rc->c->odb) };
	size_t i, any = 0;
	int r;

	if (!rp.npacks || !(rp.recent = calloc(rp.npacks, 1)))
		return rp.npacks ? fgit_error_set(FGIT_ENOMEM, "out of memory") : 0;
	for (i = 0; i < rp.npacks; i++) {
		const char *pp = fgit_odb_pack_path(rc->c->odb, i);
		struct stat st;
		if (pp && stat(pp, &st) == 0 && (int64_t)st.st_mtime > rc->c->o->expire)
			any += rp.recent[i] = 1;
	}
	r = any ? fgit_odb_foreach_located(rc->c->odb, FGIT_FOREACH_PACKED |
					   FGIT_FOREACH_LOCAL_ONLY, recent_packed_cb, &rp) : 0;
	free(rp.recent);
	return r;
}

static int walk(struct prune_ctx *c)
{
	struct fgit_objwalk *w = NULL;
	size_t i;
	int r;

	c->walked = 1;
	if (c->o->reachable) {
		for (i = 0; i < c->o->nreachable; i++)
			if ((r = set_add(&c->reachable, &c->o->reachable[i])) < 0)
				return r;
		goto recent;
	}
	if ((r = fgit_objwalk_new(&w, c->odb, FGIT_OBJWALK_OBJECTS)) < 0)
		return r;
	if ((r = fgit_reachability_tips(w, c->repo, c->o->index_path)) < 0)
		goto out;
	for (i = 0; i < c->o->ntips; i++)
		if ((r = fgit_objwalk_add(w, &c->o->tips[i], NULL, 0)) < 0)
			goto out;
	if ((r = fgit_objwalk_run(w, collect, &c->reachable)) < 0)
		goto out;
	fgit_objwalk_free(w);
	w = NULL;
recent:
	if (c->o->expire != INT64_MAX) {
		struct recent_ctx rc = { c, NULL, 0 };
		if ((r = fgit_objwalk_new(&rc.w, c->odb, FGIT_OBJWALK_OBJECTS)) < 0)
			goto out;
		w = rc.w;
		if ((r = add_recent_loose(&rc)) < 0 || (r = add_recent_packed(&rc)) < 0)
			goto out;
		if (rc.added && (r = fgit_objwalk_run(w, collect, &c->reachable)) < 0)
			goto out;
	}
	r = 0;
out:
	fgit_objwalk_free(w);
	return r;
}

static void emit(struct prune_ctx *c, int to_err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct prune_ctx *c, int to_err, const char *fmt, ...)
{
	void (*cb)(const char *, void *) = to_err ? c->o->err : c->o->out;
	va_list ap;
	if (!cb)
		return;
	fgit_buf_reset(&c->line);
	va_start(ap, fmt);
	fgit_buf_vaddf(&c->line, fmt, ap);
	va_end(ap);
	cb(c->line.ptr, c->o->payload);
}

/* The path as git shows it: the objects directory under its spelling. */
static const char *shown(struct prune_ctx *c, const char *path, struct fgit_buf *tmp)
{
	const char *od = fgit_odb_path(c->odb);
	size_t n = strlen(od);
	if (!c->o->display_objects_dir || strncmp(path, od, n) || path[n] != '/')
		return path;
	fgit_buf_reset(tmp);
	fgit_buf_addf(tmp, "%s%s", c->o->display_objects_dir, path + n);
	return tmp->ptr;
}

static void prune_tmp(struct prune_ctx *c, const char *path)
{
	struct fgit_buf tmp = FGIT_BUF_INIT;
	struct stat st;
	if (lstat(path, &st) < 0 || (int64_t)st.st_mtime > c->o->expire)
		return;
	if (c->o->dry_run || c->o->verbose)
		emit(c, 0, "Removing stale temporary file %s", shown(c, path, &tmp));
	if (!c->o->dry_run)
		unlink(path);
	fgit_buf_release(&tmp);
}

static int prune_dir(struct prune_ctx *c, int d, struct fgit_buf *path)
{
	size_t hexsz = fgit_hash_hexsz(fgit_odb_algo(c->odb)), base;
	struct fgit_buf tmp = FGIT_BUF_INIT;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	fgit_buf_reset(path);
	fgit_buf_addf(path, "%s/%02x", fgit_odb_path(c->odb), d);
	if (!(dir = opendir(path->ptr)))
		return 0;
	fgit_buf_addch(path, '/');
	base = path->len;
	while (!r && (de = readdir(dir))) {
		char hex[FGIT_MAX_HEXSZ + 1];
		struct fgit_oid oid;
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		fgit_buf_setlen(path, base);
		fgit_buf_adds(path, de->d_name);
		if (strlen(de->d_name) != hexsz - 2 ||
		    (snprintf(hex, sizeof(hex), "%02x%.62s", d, de->d_name),
		     fgit_oid_from_hex(&oid, hex, fgit_odb_algo(c->odb)) < 0)) {
			if (!strncmp(de->d_name, "tmp_obj_", 8))
				prune_tmp(c, path->ptr);
			else
				emit(c, 1, "bad sha1 file: %s", shown(c, path->ptr, &tmp));
			continue;
		}
		if (!c->walked && (r = walk(c)) < 0)
			break;
		if (set_has(&c->reachable, &oid))
			continue;
		if (lstat(path->ptr, &st) < 0) {
			emit(c, 1, "error: Could not stat '%s'", shown(c, path->ptr, &tmp));
			continue;
		}
		if ((int64_t)st.st_mtime > c->o->expire)
			continue;
		if (c->o->dry_run || c->o->verbose) {
			struct fgit_object_info info;
			const char *t = "unknown";
			if (fgit_odb_read_info(&info, c->odb, &oid, FGIT_INFO_TYPE) == 0 &&
			    fgit_object_type_name(info.type))
				t = fgit_object_type_name(info.type);
			fgit_error_clear();
			emit(c, 0, "%s %s", hex, t);
		}
		if (!c->o->dry_run)
			unlink(path->ptr);
		c->removed++;
	}
	closedir(dir);
	if (!r && !c->o->dry_run) {
		fgit_buf_setlen(path, base - 1);
		rmdir(path->ptr);
	}
	fgit_buf_release(&tmp);
	return r;
}

static void pp_show(const char *path, void *payload)
{
	struct prune_ctx *c = payload;
	struct fgit_buf tmp = FGIT_BUF_INIT;
	emit(c, 0, "rm -f %s", shown(c, path, &tmp));
	fgit_buf_release(&tmp);
}

/* tmp_* files in objects/pack older than the expiry. */
static void remove_pack_tmp(struct prune_ctx *c)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	size_t base;
	DIR *dir;

	fgit_buf_addf(&path, "%s/pack/", fgit_odb_path(c->odb));
	base = path.len;
	if (!(dir = opendir(path.ptr)))
		goto out;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "tmp_", 4))
			continue;
		fgit_buf_setlen(&path, base);
		fgit_buf_adds(&path, de->d_name);
		prune_tmp(c, path.ptr);
	}
	closedir(dir);
out:
	fgit_buf_release(&path);
}

int fgit_prune(struct fgit_repo *repo, const struct fgit_prune_options *o)
{
	struct prune_ctx c;
	struct fgit_buf path = FGIT_BUF_INIT;
	int d, r = 0;

	memset(&c, 0, sizeof(c));
	c.repo = repo;
	c.o = o;
	if ((r = fgit_repo_odb(&c.odb, repo)) < 0)
		return r;
	for (d = 0; d < 256 && !r; d++)
		r = prune_dir(&c, d, &path);
	if (r >= 0) {
		int n = fgit_odb_prune_packed(c.odb, o->dry_run ? FGIT_PRUNE_PACKED_DRY_RUN : 0,
					      o->progress_fd, o->dry_run ? pp_show : NULL, &c);
		if (n < 0)
			r = n;
	}
	if (r >= 0) {
		remove_pack_tmp(&c);
		r = c.removed;
	}
	free(c.reachable.v);
	fgit_buf_release(&c.line);
	fgit_buf_release(&path);
	return r;
}
