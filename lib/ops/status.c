/*
 * git status, the computation (see fgit/status.h); printing is the CLI's.
 *
 * Three passes, each done once:
 *   - the work tree: one lstat per index entry, split over threads for big
 *     indexes (see STAT_THREADS below), each entry compared with
 *     fgit_worktree_entry_changed (racy entries by content) and refreshed
 *     in place when only its stat data was stale;
 *   - HEAD: a merge walk of the HEAD tree against the sorted index that
 *     skips any directory whose cache-tree node is valid and names the same
 *     tree as HEAD, then rename detection over the additions and deletions;
 *   - untracked (and ignored) paths: fgit_dirwalk.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/diff.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/refs.h"
#include "fgit/statbatch.h"
#include "fgit/status.h"
#include "fgit/thread.h"
#include "fgit/worktree.h"

/*
 * lstat threads: one per STAT_PER_THREAD entries, at most the CPUs (2 here).
 * Measured with `status -uno` (perf stat -r 15, warm cache, this 2-core
 * machine at load average ~15 from the other sessions), 1 thread vs 2:
 *   kernel corpus (78,000 entries): 94 vs 90 ms CPU, 375 vs 378 ms wall;
 *   small corpus (100,000 entries): 117 vs 114 ms CPU, 398 vs 429 ms wall.
 * The second thread costs no CPU (the work is ~75% kernel: path lookup and
 * getattr, the same for any split), so it is kept for the quiet machine
 * where it halves the stat pass; under this load wall times are within
 * noise either way.  A thread costs ~50 us to start against ~1 us per
 * lstat, so below 5,000 entries one thread does it.  NEEDSWORK: re-measure
 * on a quiet machine.
 */
#define STAT_PER_THREAD 5000

/*
 * Stat batches (fgit/statbatch.h): BATCH_DEPTH paths per io_uring_enter,
 * from BATCH_MIN entries on (a ring costs a few system calls to set up).
 */
#define BATCH_DEPTH 256
#define BATCH_MIN 1000

struct vec {
	struct fgit_status_item *v;
	size_t nr, alloc;
};

static struct fgit_status_item *vec_push(struct vec *a)
{
	if (a->nr == a->alloc) {
		size_t na = a->alloc ? a->alloc * 2 : 64;
		struct fgit_status_item *nv = realloc(a->v, na * sizeof(*nv));
		if (!nv)
			return NULL;
		a->v = nv;
		a->alloc = na;
	}
	memset(&a->v[a->nr], 0, sizeof(a->v[0]));
	return &a->v[a->nr++];
}

static void item_release(struct fgit_status_item *it)
{
	free(it->path);
	free(it->orig_path);
}

static int nomem(void)
{
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

/* ---- the work tree ---- */

struct wt {
	const struct fgit_status_options *o;
	struct fgit_index *idx;
	unsigned char *res;	/* per entry: 0, 'M', 'D', 'T', 'A' */
	uint32_t *wmode;	/* per entry: work tree mode */
	unsigned char *subf;	/* per entry: submodule flags */
	size_t *refreshed;	/* per worker */
	int *racy;		/* per worker */
	struct fgit_buf *paths;	/* per worker */
	struct dircache *dirs;	/* per worker */
	struct stat_batch *batches;	/* per worker */
	struct fgit_linkcheck *links;	/* per worker: git's has_symlink_leading_path */
	int wdfd;		/* the work tree, for batches */
	size_t wdlen;
};

/*
 * Each worker keeps the directory of its last entry open (O_PATH) and
 * stats names relative to it: the index is sorted, so consecutive entries
 * share it, and the kernel resolves one component instead of the whole
 * path (on the 100,000-file corpus, ~20% of status's CPU was path lookup).
 */

#define DIR_REQ ((size_t)1 << (sizeof(size_t) * 8 - 1))

struct stat_batch {
	struct fgit_statbatch *sb;	/* NULL: one fstatat per entry */
	size_t depth;
	size_t *idx;		/* depth: entry number, or DIR_REQ | offset in dirs */
	const char **paths;	/* depth */
	struct stat *st;	/* depth */
	int *err;		/* depth */
	struct fgit_buf dirs;	/* leading directories to check, NUL-ended */
};

struct dircache {
	struct fgit_buf dir;	/* "a/b/" of the open directory */
	int fd;			/* -1: none; AT_FDCWD for the top */
};

static int stat_entry(struct dircache *dc, struct wt *w, const char *fspath, size_t fslen,
		      struct stat *st)
{
	const char *slash = memrchr(fspath, '/', fslen);
	size_t dlen = slash ? (size_t)(slash - fspath) + 1 : 0;

	if (dc->fd == -1 || dc->dir.len != dlen || memcmp(dc->dir.ptr, fspath, dlen)) {
		if (dc->fd >= 0)
			close(dc->fd);
		fgit_buf_set(&dc->dir, fspath, dlen);
		if (!dlen) {
			dc->fd = AT_FDCWD;
		} else {
			dc->fd = open(dc->dir.ptr, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (dc->fd < 0) {
				dc->fd = -1;
				return lstat(fspath, st);
			}
		}
	}
	return fstatat(dc->fd, fspath + dlen, st, AT_SYMLINK_NOFOLLOW);
}

#define SUB_POPULATED 0x80

static uint32_t git_mode(const struct stat *st, const struct fgit_index_entry *e,
			 const struct fgit_wt_stat_options *so)
{
	if (S_ISLNK(st->st_mode))
		return so->has_symlinks || (e->mode & 0170000) == 0120000 ? 0120000 :
			(e->mode ? e->mode : 0100644);
	if (S_ISDIR(st->st_mode))
		return 0160000;
	if (S_ISREG(st->st_mode)) {
		if (!so->trust_exec_bit && (e->mode & 0170000) == 0100000)
			return e->mode;
		if (!so->has_symlinks && (e->mode & 0170000) == 0120000)
			return 0120000;
		return (st->st_mode & 0100) ? 0100755 : 0100644;
	}
	return 0;
}

int fgit_status_submodule_head(struct fgit_oid *out, const char *dir, int algo)
{
	struct fgit_buf p = FGIT_BUF_INIT, g = FGIT_BUF_INIT;
	struct fgit_refdb *db = NULL;
	struct stat st;
	int r = FGIT_ENOTFOUND;

	fgit_buf_addf(&p, "%s%s.git", dir, *dir ? "/" : "");
	if (lstat(p.ptr, &st))
		goto out;
	if (S_ISREG(st.st_mode)) {
		const char *s;
		if (fgit_buf_read_file(&g, p.ptr) < 0)
			goto out;
		fgit_buf_rtrim(&g);
		if (strncmp(g.ptr, "gitdir: ", 8))
			goto out;
		s = g.ptr + 8;
		fgit_buf_reset(&p);
		if (*s != '/')
			fgit_buf_addf(&p, "%s%s", dir, *dir ? "/" : "");
		fgit_buf_adds(&p, s);
	} else if (!S_ISDIR(st.st_mode)) {
		goto out;
	}
	if (fgit_refdb_open(&db, p.ptr, p.ptr, algo) < 0)
		goto out;
	if (fgit_refdb_resolve(out, NULL, NULL, db, "HEAD") < 0)
		r = FGIT_ENOTFOUND;
	else
		r = 0;
out:
	fgit_error_clear();
	if (db)
		fgit_refdb_free(db);
	fgit_buf_release(&p);
	fgit_buf_release(&g);
	return r;
}


/*
 * The verdict on entry i, stat'ed as st (NULL: lstat failed) at the path
 * in b: its result, work tree mode, submodule flags, and its stat data
 * refreshed in place when only that was stale.
 */
static void check_entry(struct wt *w, int worker, size_t i, struct fgit_index_entry *e,
			const struct stat *st, struct fgit_buf *b)
{
	const struct fgit_status_options *o = w->o;
	int c;

	if (!st) {
		if (!(e->flags & FGIT_INDEX_ASSUME_VALID) ||
		    (e->flags & FGIT_INDEX_INTENT_TO_ADD))
			w->res[i] = 'D';
		return;
	}
	if (S_ISDIR(st->st_mode) && (e->mode & 0170000) != 0160000) {
		/* git's check_removed: a blob turned into a directory was
		 * removed, unless the directory is a repository */
		struct fgit_oid h;
		if (fgit_status_submodule_head(&h, b->ptr, o->stat->algo)) {
			check_entry(w, worker, i, e, NULL, b);
			return;
		}
	}
	w->wmode[i] = git_mode(st, e, o->stat);
	if (e->flags & FGIT_INDEX_INTENT_TO_ADD) {
		w->res[i] = 'A';
		return;
	}
	if ((e->mode & 0170000) == 0160000) {
		struct fgit_oid h;
		if (!S_ISDIR(st->st_mode)) {
			w->res[i] = 'T';
			return;
		}
		w->subf[i] = FGIT_STATUS_SUB;
		if (!fgit_status_submodule_head(&h, b->ptr, o->stat->algo)) {
			w->subf[i] |= SUB_POPULATED;
			if (!fgit_oid_equal(&h, &e->oid)) {
				w->subf[i] |= FGIT_STATUS_SUB_COMMIT;
				w->res[i] = 'M';
			}
		}
		return;
	}
	c = fgit_worktree_entry_changed(w->idx, e, st, b->ptr, o->stat);
	if (c < 0)
		c = FGIT_WT_DATA;
	if (!c) {
		if (e->flags & FGIT_INDEX_ASSUME_VALID)
			return;
		if (fgit_worktree_stat_differs(e, st, o->stat)) {
			/* the stat fields only: the untracked walk may be
			 * reading this entry's path and mode meanwhile */
			fgit_worktree_fill_stat_data(e, st);
			w->refreshed[worker]++;
		} else if (fgit_index_entry_is_racy(w->idx, e)) {
			w->racy[worker] = 1;
		}
		return;
	}
	if ((w->wmode[i] & 0170000) != (e->mode & 0170000))
		w->res[i] = 'T';
	else
		w->res[i] = 'M';
	if (fgit_index_entry_is_racy(w->idx, e)) {
		w->racy[worker] = 1;
		/* racily clean but changed: smudge it, as git does
		 * before writing, so a later stat cannot pass it */
		if (!fgit_worktree_stat_differs(e, st, o->stat))
			e->size = 0;
	}
}

/* Set b to the work tree path of e. */
static void entry_path(struct wt *w, struct fgit_buf *b, const struct fgit_index_entry *e)
{
	fgit_buf_setlen(b, w->wdlen);
	fgit_buf_add(b, e->path, e->path_len);
}

/* Is e compared with the work tree (stage 0, not skipped, in the pathspec)? */
static int wanted(const struct wt *w, const struct fgit_index_entry *e)
{
	return !(e->flags & FGIT_INDEX_SKIP_WORKTREE) &&
		(!w->o->pathspec ||
		 fgit_pathspec_match(w->o->pathspec, e->path, e->path_len, 0, NULL));
}

/* An unmerged entry: only the work tree mode is wanted. */
static void check_unmerged(struct wt *w, struct fgit_buf *b, size_t i,
			   const struct fgit_index_entry *e)
{
	struct stat st;

	entry_path(w, b, e);
	if (!lstat(b->ptr, &st))
		w->wmode[i] = git_mode(&st, e, w->o->stat);
}

/* The non-batched check of e's leading directories (b: its path). */
static int leading_link(struct wt *w, struct fgit_linkcheck *lc, struct fgit_buf *b,
			const struct fgit_index_entry *e)
{
	size_t dlen = fgit_path_dir_len(e->path, e->path_len), p;
	struct stat st;

	for (p = fgit_linkcheck_unseen(lc, e->path, dlen); p < dlen; p++) {
		if (e->path[p] != '/')
			continue;
		b->ptr[w->wdlen + p] = '\0';
		if (!lstat(b->ptr, &st) && S_ISLNK(st.st_mode))
			fgit_linkcheck_found(lc, e->path, p);
		b->ptr[w->wdlen + p] = '/';
	}
	fgit_linkcheck_seen(lc, e->path, dlen);
	return fgit_linkcheck_below(lc, e->path);
}

/* Entry i alone: its leading directories, then one fstatat. */
static void wt_one(struct wt *w, int worker, size_t i, struct fgit_index_entry *e)
{
	struct fgit_buf *b = &w->paths[worker];
	struct stat st;

	entry_path(w, b, e);
	if (leading_link(w, &w->links[worker], b, e) ||
	    stat_entry(&w->dirs[worker], w, b->ptr, b->len, &st))
		check_entry(w, worker, i, e, NULL, b);
	else
		check_entry(w, worker, i, e, &st, b);
}

/*
 * Entries [begin, end) in batches of one io_uring submission each: the
 * wanted entries' paths relative to the work tree's fd, and before them
 * the leading directories not checked yet, go to the kernel together,
 * then each result is checked in index order.
 */
static void wt_batched(struct wt *w, struct stat_batch *bt, struct fgit_linkcheck *lc,
		       size_t begin, size_t end, int worker)
{
	struct fgit_buf *b = &w->paths[worker];
	size_t i = begin, k, m;

	while (i < end) {
		fgit_buf_reset(&bt->dirs);
		for (k = 0; i < end; i++) {
			struct fgit_index_entry *e = fgit_index_get_mut(w->idx, i);
			size_t dlen, c, p, need = 1;

			if (e->stage) {
				check_unmerged(w, b, i, e);
				continue;
			}
			if (!wanted(w, e))
				continue;
			dlen = fgit_path_dir_len(e->path, e->path_len);
			c = fgit_linkcheck_unseen(lc, e->path, dlen);
			for (p = c; p < dlen; p++)
				need += e->path[p] == '/';
			if (k + need > bt->depth) {
				if (k)
					break;
				/* deeper than a whole batch: alone */
				wt_one(w, worker, i, e);
				continue;
			}
			for (p = c; p < dlen; p++) {
				if (e->path[p] != '/')
					continue;
				bt->idx[k++] = DIR_REQ | bt->dirs.len;
				fgit_buf_add(&bt->dirs, e->path, p);
				fgit_buf_addch(&bt->dirs, '\0');
			}
			fgit_linkcheck_seen(lc, e->path, dlen);
			bt->idx[k] = i;
			bt->paths[k++] = e->path;
		}
		for (m = 0; m < k; m++)
			if (bt->idx[m] & DIR_REQ)
				bt->paths[m] = bt->dirs.ptr + (bt->idx[m] & ~DIR_REQ);
		fgit_statbatch_lstat(bt->sb, w->wdfd, bt->paths, k, bt->st, bt->err);
		for (m = 0; m < k; m++) {
			struct fgit_index_entry *e;

			if (bt->idx[m] & DIR_REQ) {
				if (!bt->err[m] && S_ISLNK(bt->st[m].st_mode))
					fgit_linkcheck_found(lc, bt->paths[m], strlen(bt->paths[m]));
				continue;
			}
			e = fgit_index_get_mut(w->idx, bt->idx[m]);
			entry_path(w, b, e);
			check_entry(w, worker, bt->idx[m], e,
				    bt->err[m] || fgit_linkcheck_below(lc, e->path) ? NULL : &bt->st[m], b);
		}
	}
}

static int wt_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct wt *w = payload;
	struct fgit_buf *b = &w->paths[worker];
	size_t i;

	if (w->batches[worker].sb) {
		wt_batched(w, &w->batches[worker], &w->links[worker], begin, end, worker);
		return 0;
	}
	for (i = begin; i < end; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(w->idx, i);

		if (e->stage) {
			check_unmerged(w, b, i, e);
			continue;
		}
		if (!wanted(w, e))
			continue;
		wt_one(w, worker, i, e);
	}
	return 0;
}

/*
 * One stat batch per worker when the index is big enough to pay for the
 * ring (BATCH_MIN, below); the workers then stat relative to the work
 * tree's fd.  Any failure leaves a worker without one: one fstatat each.
 */
static void batches_init(struct wt *w, int threads, const char *wd)
{
	int k;

	w->wdfd = *wd ? open(wd, O_PATH | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
	if (w->wdfd == -1)
		return;
	for (k = 0; k < threads; k++) {
		struct stat_batch *bt = &w->batches[k];
		size_t d;

		bt->sb = fgit_statbatch_new(BATCH_DEPTH, w->o->threads == 1 ? 1 : 0);
		d = fgit_statbatch_depth(bt->sb);
		if (!bt->sb)
			break;
		bt->idx = calloc(d, sizeof(*bt->idx));
		bt->paths = calloc(d, sizeof(*bt->paths));
		bt->st = calloc(d, sizeof(*bt->st));
		bt->err = calloc(d, sizeof(*bt->err));
		if (!bt->idx || !bt->paths || !bt->st || !bt->err || !d) {
			fgit_statbatch_free(bt->sb);
			bt->sb = NULL;
			break;
		}
		bt->depth = d;
	}
}

static void batches_release(struct wt *w, int threads)
{
	int k;

	for (k = 0; w->links && k < threads; k++) {
		fgit_linkcheck_release(&w->links[k]);
	}
	free(w->links);
	for (k = 0; w->batches && k < threads; k++) {
		fgit_buf_release(&w->batches[k].dirs);
		fgit_statbatch_free(w->batches[k].sb);
		free(w->batches[k].idx);
		free(w->batches[k].paths);
		free(w->batches[k].st);
		free(w->batches[k].err);
	}
	free(w->batches);
	if (w->wdfd >= 0)
		close(w->wdfd);
}

static int collect_worktree(struct vec *out, struct fgit_status *st,
			    const struct fgit_status_options *o)
{
	struct wt w;
	size_t n = fgit_index_entrycount(o->index), i;
	int threads = o->threads, r = 0, k;
	const char *wd = o->workdir ? o->workdir : "";

	memset(&w, 0, sizeof(w));
	if (threads <= 0) {
		int cpus = fgit_online_cpus();
		threads = (int)(n / STAT_PER_THREAD);
		if (threads > cpus)
			threads = cpus;
		if (threads < 1)
			threads = 1;
	}
	w.o = o;
	w.idx = o->index;
	w.res = calloc(n + 1, 1);
	w.subf = calloc(n + 1, 1);
	w.wmode = calloc(n + 1, sizeof(*w.wmode));
	w.refreshed = calloc((size_t)threads, sizeof(*w.refreshed));
	w.racy = calloc((size_t)threads, sizeof(*w.racy));
	w.paths = calloc((size_t)threads, sizeof(*w.paths));
	w.dirs = calloc((size_t)threads, sizeof(*w.dirs));
	w.batches = calloc((size_t)threads, sizeof(*w.batches));
	w.links = calloc((size_t)threads, sizeof(*w.links));
	w.wdfd = -1;
	if (!w.res || !w.subf || !w.wmode || !w.refreshed || !w.racy || !w.paths || !w.dirs ||
	    !w.batches || !w.links) {
		r = nomem();
		goto out;
	}
	for (k = 0; k < threads; k++) {
		fgit_buf_init(&w.batches[k].dirs, 0);
		fgit_buf_init(&w.dirs[k].dir, 64);
		w.dirs[k].fd = -1;
		fgit_buf_init(&w.paths[k], 256);
		if (*wd) {
			fgit_buf_adds(&w.paths[k], wd);
			if (w.paths[k].ptr[w.paths[k].len - 1] != '/')
				fgit_buf_addch(&w.paths[k], '/');
		}
	}
	w.wdlen = w.paths[0].len;
	if (n >= BATCH_MIN)
		batches_init(&w, threads, wd);
	r = fgit_parallel_for(n, 512, threads, wt_chunk, &w);
	if (r)
		goto out;
	for (k = 0; k < threads; k++) {
		st->refreshed += w.refreshed[k];
		st->has_racy |= w.racy[k];
	}
	if (st->refreshed)
		fgit_index_mark_changed(o->index);
	for (i = 0; o->submodule_cb && i < n; i++) {
		unsigned f = 0;
		if (!(w.subf[i] & SUB_POPULATED))
			continue;
		if ((r = o->submodule_cb(&f, fgit_index_get(o->index, i)->path, o->submodule_payload)))
			goto out;
		f &= FGIT_STATUS_SUB_MODIFIED | FGIT_STATUS_SUB_UNTRACKED;
		w.subf[i] |= (unsigned char)f;
		if (f && !w.res[i])
			w.res[i] = 'M';
	}
	for (i = 0; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(o->index, i);
		struct fgit_status_item *it;

		if (e->stage) {
			size_t j = i;
			if (o->pathspec && !fgit_pathspec_match(o->pathspec, e->path, e->path_len, 0, NULL)) {
				while (i + 1 < n && !strcmp(fgit_index_get(o->index, i + 1)->path, e->path))
					i++;
				continue;
			}
			if (!(it = vec_push(out)) || !(it->path = strdup(e->path))) {
				r = nomem();
				goto out;
			}
			it->x = 'U';
			it->mode_wt = w.wmode[i];
			for (; j < n; j++) {
				const struct fgit_index_entry *s = fgit_index_get(o->index, j);
				if (strcmp(s->path, e->path))
					break;
				if (s->stage >= 1 && s->stage <= 3) {
					it->stagemask |= 1u << (s->stage - 1);
					it->stage_mode[s->stage - 1] = s->mode;
					it->stage_oid[s->stage - 1] = s->oid;
				}
			}
			i = j - 1;
			continue;
		}
		if (!w.res[i])
			continue;
		if (!(it = vec_push(out)) || !(it->path = strdup(e->path))) {
			r = nomem();
			goto out;
		}
		it->y = (char)w.res[i];
		it->mode_index = e->mode;
		it->oid_index = e->oid;
		it->mode_wt = it->y == 'D' ? 0 : w.wmode[i];
		if (it->y == 'A') {
			/* git shows an intent-to-add entry as absent from the index */
			it->mode_index = 0;
			fgit_oid_zero(&it->oid_index, fgit_index_algo(o->index));
		}
		it->sub = w.subf[i] & ~SUB_POPULATED;
		if ((e->mode & 0170000) == 0160000)
			it->sub |= FGIT_STATUS_SUB;
	}
out:
	if (w.paths)
		for (k = 0; k < threads; k++)
			fgit_buf_release(&w.paths[k]);
	if (w.dirs)
		for (k = 0; k < threads; k++) {
			if (w.dirs[k].fd >= 0)
				close(w.dirs[k].fd);
			fgit_buf_release(&w.dirs[k].dir);
		}
	batches_release(&w, threads);
	free(w.paths);
	free(w.dirs);
	free(w.res);
	free(w.subf);
	free(w.wmode);
	free(w.refreshed);
	free(w.racy);
	return r;
}

/* ---- HEAD against the index ---- */

struct hw {
	const struct fgit_status_options *o;
	const struct fgit_index *idx;
	struct vec *out;
	struct fgit_buf path;
	int algo;
};

static int emit_change(struct hw *h, char x, const char *path, size_t len,
		       uint32_t mode_head, const struct fgit_oid *oid_head,
		       const struct fgit_index_entry *e)
{
	struct fgit_status_item *it;

	if (h->o->pathspec && !fgit_pathspec_match(h->o->pathspec, path, len, 0, NULL))
		return 0;
	if (!(it = vec_push(h->out)))
		return nomem();
	if (!(it->path = strndup(path, len)))
		return nomem();
	it->x = x;
	it->mode_head = mode_head;
	if (oid_head)
		it->oid_head = *oid_head;
	else
		fgit_oid_zero(&it->oid_head, h->algo);
	if (e) {
		it->mode_index = e->mode;
		it->oid_index = e->oid;
		if ((e->mode & 0170000) == 0160000)
			it->sub |= FGIT_STATUS_SUB;
	} else {
		fgit_oid_zero(&it->oid_index, h->algo);
	}
	if ((mode_head & 0170000) == 0160000)
		it->sub |= FGIT_STATUS_SUB;
	return 0;
}

static int read_tree(void **buf, size_t *len, struct fgit_odb *odb, const struct fgit_oid *oid)
{
	enum fgit_object_type type;
	char hex[FGIT_MAX_HEXSZ + 1];
	int r = fgit_odb_read(buf, len, &type, odb, oid);
	if (r < 0)
		return r;
	if (type != FGIT_OBJ_TREE) {
		free(*buf);
		return fgit_error_set(FGIT_EINVALID, "object %s is not a tree",
				      fgit_oid_to_hex(hex, oid));
	}
	return 0;
}

/* Every blob under tree `oid` (path in h->path, ending in '/') was deleted. */
static int all_deleted(struct hw *h, const struct fgit_oid *oid)
{
	void *buf;
	size_t len, base = h->path.len;
	struct fgit_tree_iter it;
	struct fgit_tree_entry te;
	int r;

	if (h->o->pathspec &&
	    !fgit_pathspec_could_match_under(h->o->pathspec, h->path.ptr, base ? base - 1 : 0))
		return 0;
	if ((r = read_tree(&buf, &len, h->o->odb, oid)))
		return r;
	fgit_tree_iter_init(&it, buf, len, h->algo);
	while ((r = fgit_tree_iter_next(&te, &it)) > 0) {
		fgit_buf_setlen(&h->path, base);
		fgit_buf_add(&h->path, te.name, te.name_len);
		if (fgit_mode_is_tree(te.mode)) {
			fgit_buf_addch(&h->path, '/');
			r = all_deleted(h, &te.oid);
		} else {
			r = emit_change(h, 'D', h->path.ptr, h->path.len,
					fgit_mode_canon(te.mode), &te.oid, NULL);
		}
		if (r)
			break;
	}
	fgit_buf_setlen(&h->path, base);
	free(buf);
	return r < 0 ? r : 0;
}

/* Index entries [lo, hi) are additions (ITA and unmerged ones aside). */
static int all_added(struct hw *h, size_t lo, size_t hi)
{
	size_t i;
	int r;
	for (i = lo; i < hi; i++) {
		const struct fgit_index_entry *e = fgit_index_get(h->idx, i);
		if (e->stage || (e->flags & FGIT_INDEX_INTENT_TO_ADD))
			continue;
		if ((r = emit_change(h, 'A', e->path, e->path_len, 0, NULL, e)))
			return r;
	}
	return 0;
}

/* Compare an index component (name, is_dir) with a tree entry, in tree order. */
static int comp_cmp(const char *a, size_t alen, int adir, const struct fgit_tree_entry *te)
{
	size_t n = alen < te->name_len ? alen : te->name_len;
	int c = memcmp(a, te->name, n);
	unsigned ca, cb;
	if (c)
		return c;
	ca = n < alen ? (unsigned char)a[n] : adir ? '/' : 0;
	cb = n < te->name_len ? (unsigned char)te->name[n] : fgit_mode_is_tree(te->mode) ? '/' : 0;
	return (int)ca - (int)cb;
}

/*
 * Tree `oid` (NULL: none) against index entries [lo, hi), all under the
 * directory in h->path ("" or "a/b/").
 */
static int walk_head(struct hw *h, const struct fgit_oid *oid, size_t lo, size_t hi)
{
	void *buf = NULL;
	size_t len = 0, base = h->path.len, i = lo;
	struct fgit_tree_iter it;
	struct fgit_tree_entry te;
	int r = 0, have;

	if (h->o->pathspec &&
	    !fgit_pathspec_could_match_under(h->o->pathspec, h->path.ptr, base ? base - 1 : 0))
		return 0;
	if (!oid)
		return all_added(h, lo, hi);
	{
		int cnt;
		struct fgit_oid ct;
		char *dir = strndup(h->path.ptr, base ? base - 1 : 0);
		if (!dir)
			return nomem();
		r = fgit_index_cache_tree_get(&cnt, NULL, &ct, h->idx, dir);
		free(dir);
		if (!r && cnt >= 0 && fgit_oid_equal(&ct, oid))
			return 0;
		r = 0;
	}
	if ((r = read_tree(&buf, &len, h->o->odb, oid)))
		return r;
	fgit_tree_iter_init(&it, buf, len, h->algo);
	have = fgit_tree_iter_next(&te, &it);
	for (;;) {
		const struct fgit_index_entry *e = i < hi ? fgit_index_get(h->idx, i) : NULL;
		const char *name = NULL, *slash;
		size_t nlen = 0;
		int isdir = 0, c;

		if (have < 0) {
			r = have;
			break;
		}
		if (!e && have <= 0)
			break;
		if (e) {
			name = e->path + base;
			slash = memchr(name, '/', e->path_len - base);
			isdir = slash != NULL;
			nlen = isdir ? (size_t)(slash - name) : e->path_len - base;
		}
		c = !e ? 1 : have <= 0 ? -1 : comp_cmp(name, nlen, isdir, &te);
		if (c < 0) {
			/* only in the index */
			size_t j = i + 1;
			if (isdir) {
				fgit_buf_setlen(&h->path, base);
				fgit_buf_add(&h->path, name, nlen + 1);
				j = fgit_index_prefix_end(h->idx, i, hi, h->path.ptr, h->path.len);
			} else {
				while (j < hi && !strcmp(fgit_index_get(h->idx, j)->path, e->path))
					j++;
			}
			r = all_added(h, i, j);
			i = j;
		} else if (c > 0) {
			/* only in HEAD */
			fgit_buf_setlen(&h->path, base);
			fgit_buf_add(&h->path, te.name, te.name_len);
			if (fgit_mode_is_tree(te.mode)) {
				fgit_buf_addch(&h->path, '/');
				r = all_deleted(h, &te.oid);
			} else {
				r = emit_change(h, 'D', h->path.ptr, h->path.len,
						fgit_mode_canon(te.mode), &te.oid, NULL);
			}
			have = fgit_tree_iter_next(&te, &it);
		} else if (isdir) {
			size_t j;
			fgit_buf_setlen(&h->path, base);
			fgit_buf_add(&h->path, name, nlen + 1);
			j = fgit_index_prefix_end(h->idx, i, hi, h->path.ptr, h->path.len);
			r = walk_head(h, &te.oid, i, j);
			i = j;
			have = fgit_tree_iter_next(&te, &it);
		} else {
			/* the same file name on both sides */
			uint32_t hm = fgit_mode_canon(te.mode);
			size_t j = i + 1;
			while (j < hi && !strcmp(fgit_index_get(h->idx, j)->path, e->path))
				j++;
			if (e->stage) {
				/* unmerged: reported from the index */
			} else if (e->flags & FGIT_INDEX_INTENT_TO_ADD) {
				r = emit_change(h, 'D', e->path, e->path_len, hm, &te.oid, NULL);
			} else if ((hm & 0170000) != (e->mode & 0170000)) {
				r = emit_change(h, 'T', e->path, e->path_len, hm, &te.oid, e);
			} else if (hm != e->mode || !fgit_oid_equal(&te.oid, &e->oid)) {
				r = emit_change(h, 'M', e->path, e->path_len, hm, &te.oid, e);
			}
			i = j;
			have = fgit_tree_iter_next(&te, &it);
		}
		if (r)
			break;
	}
	fgit_buf_setlen(&h->path, base);
	free(buf);
	return r;
}

static int item_cmp(const void *a, const void *b)
{
	const struct fgit_status_item *x = a, *y = b;
	return strcmp(x->path, y->path);
}

static int detect_renames(struct vec *head, struct fgit_status *st,
			  const struct fgit_status_options *o)
{
	struct fgit_rename_file *src = NULL, *dst = NULL;
	size_t *si = NULL, *di = NULL, ns = 0, nd = 0, i, k;
	struct fgit_rename_result *res = NULL;
	struct fgit_rename_opts ro = FGIT_RENAME_OPTS_INIT;
	int r = 0, any = 0;

	for (i = 0; i < head->nr; i++) {
		ns += head->v[i].x == 'D';
		nd += head->v[i].x == 'A';
	}
	if (!ns || !nd)
		return 0;
	src = calloc(ns, sizeof(*src));
	dst = calloc(nd, sizeof(*dst));
	si = calloc(ns, sizeof(*si));
	di = calloc(nd, sizeof(*di));
	res = calloc(nd, sizeof(*res));
	if (!src || !dst || !si || !di || !res) {
		r = nomem();
		goto out;
	}
	ns = nd = 0;
	for (i = 0; i < head->nr; i++) {
		struct fgit_status_item *it = &head->v[i];
		if (it->x == 'D') {
			src[ns].path = it->path;
			src[ns].mode = it->mode_head;
			src[ns].oid = it->oid_head;
			si[ns++] = i;
		} else if (it->x == 'A') {
			dst[nd].path = it->path;
			dst[nd].mode = it->mode_index;
			dst[nd].oid = it->oid_index;
			di[nd++] = i;
		}
	}
	ro.limit = o->rename_limit;
	ro.min_score = o->rename_score;
	if ((r = fgit_diff_renames(res, &st->rename_limit_needed, src, ns, dst, nd, o->odb, &ro)))
		goto out;
	for (k = 0; k < nd; k++) {
		struct fgit_status_item *d, *s;
		if (res[k].src < 0)
			continue;
		d = &head->v[di[k]];
		s = &head->v[si[res[k].src]];
		d->x = 'R';
		d->score = res[k].score;
		d->orig_path = s->path;
		d->mode_head = s->mode_head;
		d->oid_head = s->oid_head;
		s->path = NULL;
		s->x = 0;
		any = 1;
	}
	if (any) {
		size_t o2 = 0;
		for (i = 0; i < head->nr; i++) {
			if (!head->v[i].x && !head->v[i].path)
				continue;
			head->v[o2++] = head->v[i];
		}
		head->nr = o2;
	}
out:
	free(src);
	free(dst);
	free(si);
	free(di);
	free(res);
	return r;
}

/* Merge the staged list (sorted) into the unstaged one (sorted). */
static int merge_lists(struct fgit_status *st, struct vec *head, struct vec *wt)
{
	size_t i = 0, j = 0, n = 0;
	struct fgit_status_item *v = malloc((head->nr + wt->nr + 1) * sizeof(*v));

	if (!v)
		return nomem();
	while (i < head->nr || j < wt->nr) {
		int c = i == head->nr ? 1 : j == wt->nr ? -1 : strcmp(head->v[i].path, wt->v[j].path);
		if (c < 0) {
			v[n++] = head->v[i++];
		} else if (c > 0) {
			v[n++] = wt->v[j++];
		} else {
			struct fgit_status_item *a = &head->v[i++], *b = &wt->v[j++];
			if (b->x == 'U') {
				/* unmerged: the index side wins */
				item_release(a);
				v[n++] = *b;
				continue;
			}
			a->y = b->y;
			a->mode_wt = b->mode_wt;
			a->sub |= b->sub;
			free(b->path);
			v[n++] = *a;
		}
	}
	head->nr = wt->nr = 0;
	for (i = 0; i < n; i++) {
		/* porcelain v2 shows HEAD = index and work tree = index for
		 * the side that did not change */
		if (v[i].x == 'U')
			continue;
		if (!v[i].x) {
			v[i].mode_head = v[i].mode_index;
			v[i].oid_head = v[i].oid_index;
		}
		if (!v[i].y)
			v[i].mode_wt = v[i].mode_index;
	}
	st->items = v;
	st->nr = n;
	return 0;
}

/* ---- untracked ---- */

struct strs {
	char **v;
	size_t nr, alloc;
};

static int strs_add(struct strs *s, const char *p, size_t len, int is_dir)
{
	char *c;
	if (s->nr == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 64;
		char **nv = realloc(s->v, na * sizeof(*nv));
		if (!nv)
			return nomem();
		s->v = nv;
		s->alloc = na;
	}
	if (!(c = malloc(len + 2)))
		return nomem();
	memcpy(c, p, len);
	if (is_dir)
		c[len++] = '/';
	c[len] = 0;
	s->v[s->nr++] = c;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct walk_out {
	struct strs *v;
	const struct fgit_index *idx;
};

/*
 * A directory whose name is an index entry (a tracked file replaced by a
 * directory) is not listed: git's index_name_is_other, which shows the
 * entry as deleted and nothing more.
 */
static int walk_cb(const char *path, size_t len, int is_dir, void *payload)
{
	struct walk_out *w = payload;
	size_t pos;

	if (is_dir && fgit_index_find_any_stage(&pos, w->idx, path, len))
		return 0;
	return strs_add(w->v, path, len, is_dir);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static int collect_untracked(struct fgit_status *st, const struct fgit_status_options *o)
{
	struct fgit_dirwalk_options wo = FGIT_DIRWALK_OPTIONS_INIT;
	struct strs u = { 0 }, g = { 0 };
	struct walk_out wu = { &u, o->index }, wg = { &g, o->index };
	uint64_t start = monotonic_ns();
	int r = 0;

	wo.index = o->index;
	wo.ignore = o->ignore;
	wo.pathspec = o->pathspec;
	if (o->untracked == FGIT_STATUS_UNTRACKED_NORMAL)
		wo.flags = FGIT_DIRWALK_DIRECTORY | FGIT_DIRWALK_NO_EMPTY_DIRECTORY;
	wo.cb = walk_cb;
	wo.payload = &wu;
	if (o->untracked != FGIT_STATUS_UNTRACKED_NO) {
		wo.untracked_cache = o->untracked_cache;
		r = fgit_dirwalk(o->workdir, &wo);
		wo.untracked_cache = NULL;
		if (r > 0)
			r = 0;
		if (r)
			goto out;
		if (o->untracked_cache && u.nr > 1) {
			/* cached names come in the cache's order, maybe twice */
			size_t i, k = 1;
			qsort(u.v, u.nr, sizeof(*u.v), str_cmp);
			for (i = 1; i < u.nr; i++) {
				if (!strcmp(u.v[i], u.v[k - 1]))
					free(u.v[i]);
				else
					u.v[k++] = u.v[i];
			}
			u.nr = k;
		}
	}
	/* git collects no ignored paths either under -uno */
	if (o->ignored && o->ignore && o->untracked != FGIT_STATUS_UNTRACKED_NO) {
		wo.flags |= FGIT_DIRWALK_SHOW_IGNORED;
		if (o->ignored == FGIT_STATUS_IGNORED_MATCHING)
			wo.flags = FGIT_DIRWALK_SHOW_IGNORED | FGIT_DIRWALK_IGNORED_MATCHING;
		else if (o->untracked == FGIT_STATUS_UNTRACKED_ALL)
			wo.flags &= ~(unsigned)(FGIT_DIRWALK_DIRECTORY | FGIT_DIRWALK_NO_EMPTY_DIRECTORY);
		else
			wo.flags |= FGIT_DIRWALK_DIRECTORY | FGIT_DIRWALK_NO_EMPTY_DIRECTORY |
				    FGIT_DIRWALK_IGNORED_TOO;
		wo.payload = &wg;
		r = fgit_dirwalk(o->workdir, &wo);
		if (r > 0)
			r = 0;
	}
out:
	st->untracked = u.v;
	st->nr_untracked = u.nr;
	st->ignored = g.v;
	st->nr_ignored = g.nr;
	if (o->untracked != FGIT_STATUS_UNTRACKED_NO)
		st->untracked_ms = (monotonic_ns() - start) / 1000000;
	return r;
}

struct untracked_job {
	const struct fgit_status_options *o;
	struct fgit_status *st;
	int r;
	char msg[256];
};

static void *untracked_thread(void *arg)
{
	struct untracked_job *j = arg;
	j->r = collect_untracked(j->st, j->o);
	if (j->r)
		snprintf(j->msg, sizeof(j->msg), "%s", fgit_error_last());
	return NULL;
}

int fgit_status_collect(struct fgit_status **out, const struct fgit_status_options *o)
{
	struct fgit_status *st = calloc(1, sizeof(*st));
	struct untracked_job ut;
	pthread_t tid;
	int threaded = 0;
	struct vec head = { 0 }, wt = { 0 };
	struct hw h;
	size_t i;
	int r;

	*out = NULL;
	if (!st)
		return nomem();
	/*
	 * The untracked walk (readdir, ignore rules) runs on its own thread
	 * while the lstat pass and the HEAD comparison run here: it only
	 * reads the index's paths and modes, which neither changes.
	 */
	ut.o = o;
	ut.st = st;
	ut.r = 0;
	if (o->untracked || o->ignored)
		threaded = fgit_online_cpus() > 1 && !pthread_create(&tid, NULL, untracked_thread, &ut);
	if (!threaded && (o->untracked || o->ignored) && (r = collect_untracked(st, o)))
		goto out;
	if ((r = collect_worktree(&wt, st, o)))
		goto out;
	memset(&h, 0, sizeof(h));
	h.o = o;
	h.idx = o->index;
	h.out = &head;
	h.algo = fgit_index_algo(o->index);
	fgit_buf_init(&h.path, 256);
	r = walk_head(&h, o->head_tree, 0, fgit_index_entrycount(o->index));
	fgit_buf_release(&h.path);
	if (r)
		goto out;
	if (o->renames && (r = detect_renames(&head, st, o)))
		goto out;
	qsort(head.v, head.nr, sizeof(*head.v), item_cmp);
	if ((r = merge_lists(st, &head, &wt)))
		goto out;
out:
	if (threaded) {
		pthread_join(tid, NULL);
		threaded = 0;
		if (!r && ut.r) {
			fgit_error_set(ut.r, "%s", ut.msg);
			r = ut.r;
		}
	}
	if (!r) {
		*out = st;
		st = NULL;
	}
	for (i = 0; i < head.nr; i++)
		item_release(&head.v[i]);
	for (i = 0; i < wt.nr; i++)
		item_release(&wt.v[i]);
	free(head.v);
	free(wt.v);
	fgit_status_free(st);
	return r;
}

void fgit_status_free(struct fgit_status *st)
{
	size_t i;
	if (!st)
		return;
	for (i = 0; i < st->nr; i++)
		item_release(&st->items[i]);
	for (i = 0; i < st->nr_untracked; i++)
		free(st->untracked[i]);
	for (i = 0; i < st->nr_ignored; i++)
		free(st->ignored[i]);
	free(st->items);
	free(st->untracked);
	free(st->ignored);
	free(st);
}
