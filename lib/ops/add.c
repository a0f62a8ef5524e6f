/*
 * Staging files (see include/fgit/add.h).
 *
 * Two phases.  The parallel phase does everything that touches the file
 * system or burns CPU, one path per job, on every core: lstat, the stat
 * comparison against a snapshot of the old entry (taken before any thread
 * starts, so nobody reads the index while it changes), read(), the
 * to-git conversion, collision-detecting SHA-1, deflate and the loose
 * object write.  The sequential phase then walks the jobs in order on the
 * calling thread and applies them to the index: the only writer.
 *
 * Small files are read() into a buffer sized from lstat (seed 000: read
 * beats mmap for small files); the object is named and stored from that
 * one private copy.  A file that changes size under us is an error, as a
 * short read is in git.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fgit/add.h"
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/refs.h"
#include "fgit/statbatch.h"
#include "fgit/thread.h"

enum result {
	R_NOTHING = 0,		/* unchanged */
	R_SAME,			/* stat data changed, content the same */
	R_ADDED,
	R_REMOVED,
	R_FAILED,
	R_EMBEDDED,		/* a new gitlink */
	R_FATAL,		/* git dies of this one */
};

struct job {
	const char *path;
	/* the index's entry: the index does not change while jobs run */
	const struct fgit_index_entry *old;
	/* results: the new entry, or (R_FAILED, R_FATAL) the error */
	union {
		struct fgit_index_entry *e;
		char *err;
	};
	char *msgs;			/* "W<msg>\0" / "E<msg>\0" records, or NULL */
	uint32_t msgs_len;
	/* 40 bytes a job, 100,000 jobs for add -A of the small corpus: the
	 * flags below are narrow and e/err share a word so its peak RSS stays
	 * under git's */
	unsigned char tracked;
	unsigned char res;		/* enum result */
};

struct run {
	const struct fgit_add_options *o;
	struct job *jobs;
	struct fgit_buf *fs;		/* per worker: workdir + "/" */
	struct fgit_buf *data;		/* per worker: file content */
	struct fgit_buf *conv;		/* per worker: converted content */
	size_t fs_base;
	struct fgit_oid empty_blob;
	const struct fgit_index *idx;
	int algo;
	int fatal;			/* a negative error that stops everything */
	struct statq *q;		/* per worker, or NULL */
	struct fgit_linkcheck *links;	/* per worker: git's has_symlink_leading_path */
	int wdfd;			/* the work tree, for the batches */
};

/*
 * The jobs' lstats in io_uring batches (fgit/statbatch.h), from
 * BATCH_MIN paths on: commit -a of the 100,000-file corpus spent most of
 * its time entering the kernel for them.
 */
#define BATCH_DEPTH 64
#define BATCH_MIN 1000

struct statq {
	struct fgit_statbatch *sb;	/* NULL: one lstat per job */
	const char **paths;
	struct stat *st;
	int *err;
	size_t *slot;			/* per path: job number, or DIR_REQ | offset in dirs */
	struct fgit_buf dirs;		/* leading directories to check, NUL-ended */
};

#define DIR_REQ ((size_t)1 << (sizeof(size_t) * 8 - 1))


struct msg_ctx {
	struct job *j;
	char kind;
};

static void add_msg(struct job *j, char kind, const char *msg)
{
	size_t n = strlen(msg) + 2;
	char *p = realloc(j->msgs, j->msgs_len + n);
	if (!p)
		return;
	p[j->msgs_len] = kind;
	memcpy(p + j->msgs_len + 1, msg, n - 1);
	j->msgs = p;
	j->msgs_len += n;
}

struct hook_ctx {
	struct run *rn;
	struct job *j;
};

static void conv_warn(const char *msg, void *payload)
{
	add_msg(((struct hook_ctx *)payload)->j, 'W', msg);
}

static void conv_error(const char *msg, void *payload)
{
	add_msg(((struct hook_ctx *)payload)->j, 'E', msg);
}

/* text=auto: content staged with a CR stays as it is.  The index is not
 * modified during the parallel phase, so reading it here is safe. */
static int index_has_cr(const char *path, void *payload)
{
	struct hook_ctx *hc = payload;
	enum fgit_object_type type;
	void *buf = NULL;
	size_t size;
	int has;

	if (!hc->j->tracked || hc->j->old->stage || !hc->rn->o->odb)
		return 0;
	if (fgit_odb_read(&buf, &size, &type, hc->rn->o->odb, &hc->j->old->oid) < 0) {
		fgit_error_clear();
		return 0;
	}
	has = type == FGIT_OBJ_BLOB && memchr(buf, '\r', size) != NULL;
	free(buf);
	return has;
}

static int job_failed(const struct job *j)
{
	return j->res == R_FAILED || j->res == R_FATAL;
}

static void fail(struct job *j, const char *fmt, const char *a, const char *b)
{
	struct fgit_buf m = FGIT_BUF_INIT;
	fgit_buf_addf(&m, fmt, a, b);
	if (!job_failed(j))
		fgit_index_entry_free(j->e);
	else
		free(j->err);
	j->err = fgit_buf_detach(&m, NULL);
	j->res = R_FAILED;
}

static int read_exact(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Files from STREAM_MIN bytes on are never held whole: hashed in 64 KiB
 * reads and, when the object is new, hashed again while zlib deflates
 * them in 64 KiB pieces (fgit_odb_write_fd), so a thread holds two small
 * buffers instead of the file, a copy with the object header and the
 * deflated result.  Measured on the kernel corpus (add -A of 78,000
 * files, 29 of them over 4 MB, the biggest 24 MB; /usr/bin/time %M):
 * peak RSS 59.2 -> 35.4 MiB with every object present (git 40.6), 87.8 ->
 * 34.9 MiB into a fresh object database (git 38.7); CPU time unchanged
 * (12.4 s fresh: zlib is slower than libdeflate on these files, but they
 * are no longer copied twice).  The second
 * hash names what was stored; if it differs from the first, the file
 * changed under us and the add fails (a stray but well-named loose
 * object may be left).
 */
#define STREAM_MIN (1u << 20)

static int stream_file(struct run *rn, struct fgit_oid *out, const char *fspath,
		       const char *path, const struct stat *st)
{
	const struct fgit_add_options *o = rn->o;
	struct fgit_oid stored;
	int fd, r;

	if (fgit_worktree_hash_file(out, fspath, st, rn->algo) < 0)
		return -1;
	if (o->flags & (FGIT_ADD_DRY_RUN | FGIT_ADD_HASH_ONLY | FGIT_ADD_REFRESH_ONLY))
		return 0;
	if (fgit_odb_freshen(o->odb, out))
		return 0;
	fd = open(fspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgit_error_errno(FGIT_ERROR, "open(\"%s\")", fspath);
	r = fgit_odb_write_fd(&stored, o->odb, FGIT_OBJ_BLOB, fd, (uint64_t)st->st_size);
	close(fd);
	if (r < 0)
		return r;
	if (!fgit_oid_equal(&stored, out))
		return fgit_error_set(FGIT_ERROR, "%s: file changed while indexing", path);
	return 0;
}

/* The HEAD commit of the repository in directory fspath, for a gitlink. */
static int gitlink_head(struct fgit_oid *out, const char *fspath, int algo)
{
	struct fgit_buf gd = FGIT_BUF_INIT;
	struct fgit_refdb *db = NULL;
	int r;

	fgit_buf_addf(&gd, "%s/.git", fspath);
	if ((r = fgit_refdb_open(&db, gd.ptr, gd.ptr, algo)) == 0)
		r = fgit_refdb_resolve(out, NULL, NULL, db, "HEAD");
	fgit_refdb_free(db);
	fgit_buf_release(&gd);
	return r;
}

/* Job j, its file lstat'ed already as *pre (error pre_err) unless pre is NULL. */
/* Tracked job j's file is not there (any more). */
static void job_gone(struct run *rn, struct job *j)
{
	if (!(rn->o->flags & FGIT_ADD_REFRESH_ONLY))
		j->res = (rn->o->flags & FGIT_ADD_IGNORE_REMOVAL) ? R_NOTHING : R_REMOVED;
}

/* Is tracked job j below a symlinked directory?  One lstat per directory
 * not checked yet (fs: the worker's path buffer). */
static int job_below_link(struct run *rn, struct fgit_linkcheck *lk, struct fgit_buf *fs,
			  const char *path)
{
	size_t dlen = fgit_path_dir_len(path, strlen(path)), p;
	struct stat st;

	for (p = fgit_linkcheck_unseen(lk, path, dlen); p < dlen; p++) {
		if (path[p] != '/')
			continue;
		fgit_buf_setlen(fs, rn->fs_base);
		fgit_buf_add(fs, path, p);
		if (!lstat(fs->ptr, &st) && S_ISLNK(st.st_mode))
			fgit_linkcheck_found(lk, path, p);
	}
	fgit_linkcheck_seen(lk, path, dlen);
	return fgit_linkcheck_below(lk, path);
}

static void do_job(struct run *rn, struct job *j, int worker, const struct stat *pre,
		   int pre_err)
{
	const struct fgit_add_options *o = rn->o;
	struct fgit_buf *fs = &rn->fs[worker], *data = &rn->data[worker];
	struct fgit_index_entry *e = NULL;
	struct stat st;
	const char *content;
	size_t len;
	int r;

	fgit_buf_setlen(fs, rn->fs_base);
	fgit_buf_adds(fs, j->path);
	if (pre) {
		st = *pre;
		errno = pre_err;
	}
	if (pre ? pre_err != 0 : lstat(fs->ptr, &st) != 0) {
		if (o->flags & FGIT_ADD_REFRESH_ONLY)
			return;
		if (j->tracked && (errno == ENOENT || errno == ENOTDIR)) {
			job_gone(rn, j);
			return;
		}
		fail(j, "unable to stat '%s': %s", j->path, strerror(errno));
		return;
	}
	if (j->tracked && !j->old->stage &&
	    !(j->old->flags & FGIT_INDEX_INTENT_TO_ADD)) {
		struct fgit_wt_stat_options so = o->stat;
		so.stat_only = 1;
		if (!fgit_worktree_stat_differs(j->old, &st, &so) &&
		    !fgit_index_entry_is_racy(rn->idx, j->old))
			return;		/* R_NOTHING */
		if ((j->old->flags & FGIT_INDEX_ASSUME_VALID))
			return;
	}
	if ((o->flags & FGIT_ADD_REFRESH_ONLY) &&
	    (!j->tracked || j->old->stage || (j->old->flags & FGIT_INDEX_INTENT_TO_ADD) ||
	     S_ISDIR(st.st_mode)))
		return;
	if (S_ISDIR(st.st_mode)) {
		if (j->tracked && (j->old->mode & 0170000) != 0160000) {
			/* a file replaced by a directory: the file is gone */
			j->res = (o->flags & FGIT_ADD_IGNORE_REMOVAL) ? R_NOTHING : R_REMOVED;
			return;
		}
		if (fgit_index_entry_new(&e, j->path, strlen(j->path)) < 0) {
			fail(j, "%s%s", fgit_error_last(), "");
			return;
		}
		if (gitlink_head(&e->oid, fs->ptr, rn->algo) < 0) {
			fgit_index_entry_free(e);
			fgit_error_clear();
			fail(j, "'%s/' does not have a commit checked out", j->path, NULL);
			return;
		}
		fgit_worktree_fill_stat(e, &st, &o->stat);
		e->mode = 0160000;
		j->e = e;
		j->res = j->tracked ? R_ADDED : R_EMBEDDED;
		if (j->tracked && fgit_oid_equal(&e->oid, &j->old->oid))
			j->res = R_SAME;
		return;
	}
	/* add -N leaves tracked content alone (git's ADD_CACHE_NEW_ONLY) */
	if (j->tracked && (o->flags & FGIT_ADD_INTENT_TO_ADD))
		return;
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		fail(j, "%s: can only add regular files, symbolic links or git-directories",
		     j->path, NULL);
		return;
	}
	if (fgit_index_entry_new(&e, j->path, strlen(j->path)) < 0) {
		fail(j, "%s%s", fgit_error_last(), "");
		return;
	}
	if (j->tracked)
		e->mode = j->old->mode;
	fgit_worktree_fill_stat(e, &st, &o->stat);
	e->flags = FGIT_ADD_UPTODATE;
	if (!j->tracked && (o->flags & FGIT_ADD_INTENT_TO_ADD)) {
		/* git records no stat data for these, only the mode */
		unsigned int mode = e->mode;
		memset(e, 0, offsetof(struct fgit_index_entry, oid));
		e->mode = mode;
		e->flags = 0;
		e->oid = rn->empty_blob;
		if (!(o->flags & (FGIT_ADD_DRY_RUN | FGIT_ADD_HASH_ONLY)) &&
		    fgit_odb_write(&e->oid, o->odb, FGIT_OBJ_BLOB, "", 0) < 0) {
			fail(j, "%s%s", fgit_error_last(), "");
			goto fail;
		}
		e->flags = FGIT_INDEX_INTENT_TO_ADD;
		j->e = e;
		j->res = R_ADDED;
		return;
	}
	fgit_buf_reset(data);
	if (S_ISLNK(st.st_mode)) {
		ssize_t n;
		size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 256;
		if (fgit_buf_grow(data, cap) < 0 ||
		    (n = readlink(fs->ptr, data->ptr, cap)) < 0) {
			fail(j, "readlink(\"%s\"): %s", j->path, strerror(errno));
			goto fail;
		}
		fgit_buf_setlen(data, (size_t)n);
		content = data->ptr;
		len = data->len;
	} else {
		struct fgit_conv_attrs ca;
		int convert = 0, fd;
		size_t size = (size_t)st.st_size;

		if (o->attrs) {
			if (fgit_convert_attrs_lookup(&ca, o->attrs, o->config, j->path) < 0) {
				fail(j, "%s%s", fgit_error_last(), "");
				goto fail;
			}
			convert = fgit_convert_may_change(&ca, &o->conv);
		}
		if (!convert && (uint64_t)st.st_size >= STREAM_MIN) {
			if (stream_file(rn, &e->oid, fs->ptr, j->path, &st) < 0) {
				fail(j, "%s%s", fgit_error_last(), "");
				goto fail;
			}
			goto named;
		}
		fd = open(fs->ptr, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fail(j, "open(\"%s\"): %s", j->path, strerror(errno));
			goto fail;
		}
		if ((off_t)size != st.st_size || fgit_buf_grow(data, size) < 0) {
			close(fd);
			fail(j, "%s: file too large to index%s", j->path, "");
			goto fail;
		}
		if (read_exact(fd, data->ptr, size) < 0) {
			close(fd);
			fail(j, "read error while indexing %s%s", j->path, "");
			goto fail;
		}
		close(fd);
		fgit_buf_setlen(data, size);
		content = data->ptr;
		len = size;
		if (convert) {
			struct fgit_buf *cv = &rn->conv[worker];
			struct hook_ctx hc = { rn, j };
			struct fgit_conv_hooks hooks = {
				.index_has_cr = index_has_cr, .warn = conv_warn,
				.error = conv_error, .payload = &hc,
			};
			r = fgit_convert_to_git(cv, j->path, content, len, &ca, &o->conv,
						(o->flags & (FGIT_ADD_DRY_RUN | FGIT_ADD_HASH_ONLY | FGIT_ADD_REFRESH_ONLY))
						? 0 : FGIT_CONV_CHECK_ROUNDTRIP, &hooks);
			if (r == FGIT_ENOTSUPP) {
				rn->fatal = r;
				goto fail;
			}
			if (r < 0) {
				/* a required filter, core.safecrlf=true: git dies */
				fail(j, "%s%s", fgit_error_last(), "");
				j->res = R_FATAL;
				goto fail;
			}
			if (r > 0) {
				content = cv->ptr;
				len = cv->len;
			}
		}
	}
	if (o->flags & (FGIT_ADD_DRY_RUN | FGIT_ADD_HASH_ONLY | FGIT_ADD_REFRESH_ONLY))
		r = fgit_hash_object(&e->oid, rn->algo, FGIT_OBJ_BLOB, content, len);
	else
		r = fgit_odb_write(&e->oid, o->odb, FGIT_OBJ_BLOB, content, len);
	if (r < 0) {
		fail(j, "%s%s", fgit_error_last(), "");
		goto fail;
	}
named:
	j->e = e;
	j->res = R_ADDED;
	if (j->tracked && !j->old->stage && fgit_oid_equal(&e->oid, &j->old->oid) &&
	    e->mode == j->old->mode && !(j->old->flags & FGIT_INDEX_INTENT_TO_ADD))
		j->res = R_SAME;
	if ((o->flags & FGIT_ADD_REFRESH_ONLY) && j->res != R_SAME) {
		j->e = NULL;
		j->res = R_NOTHING;
		goto fail;
	}
	if (j->res == R_SAME)
		e->flags |= j->old->flags & FGIT_INDEX_ONDISK_FLAGS;
	return;
fail:
	fgit_index_entry_free(e);
}

/* Job j alone: its leading directories, then its own lstat. */
static void one_job(struct run *rn, struct job *j, int worker)
{
	if (j->tracked && job_below_link(rn, &rn->links[worker], &rn->fs[worker], j->path))
		job_gone(rn, j);
	else
		do_job(rn, j, worker, NULL, 0);
}

/*
 * Jobs [begin, end) in batches of one io_uring submission each: the
 * tracked jobs' leading directories not checked yet go to the kernel
 * with the jobs' own paths, then each result is taken in order.
 */
static void work_batched(struct run *rn, struct statq *q, struct fgit_linkcheck *lk,
			 size_t begin, size_t end, int worker)
{
	size_t depth = fgit_statbatch_depth(q->sb), i = begin, k, m;

	while (i < end && !rn->fatal) {
		fgit_buf_reset(&q->dirs);
		for (k = 0; i < end; i++) {
			struct job *j = &rn->jobs[i];
			size_t dlen, c = 0, p, need = 1;

			dlen = j->tracked ? fgit_path_dir_len(j->path, strlen(j->path)) : 0;

			if (j->tracked)
				for (p = c = fgit_linkcheck_unseen(lk, j->path, dlen); p < dlen; p++)
					need += j->path[p] == '/';
			if (k + need > depth) {
				if (k)
					break;
				one_job(rn, j, worker);	/* deeper than a whole batch */
				continue;
			}
			for (p = c; p < dlen; p++) {
				if (j->path[p] != '/')
					continue;
				q->slot[k++] = DIR_REQ | q->dirs.len;
				fgit_buf_add(&q->dirs, j->path, p);
				fgit_buf_addch(&q->dirs, '\0');
			}
			if (j->tracked)
				fgit_linkcheck_seen(lk, j->path, dlen);
			q->slot[k] = i;
			q->paths[k++] = j->path;
		}
		for (m = 0; m < k; m++)
			if (q->slot[m] & DIR_REQ)
				q->paths[m] = q->dirs.ptr + (q->slot[m] & ~DIR_REQ);
		fgit_statbatch_lstat(q->sb, rn->wdfd, q->paths, k, q->st, q->err);
		for (m = 0; m < k && !rn->fatal; m++) {
			struct job *j;

			if (q->slot[m] & DIR_REQ) {
				if (!q->err[m] && S_ISLNK(q->st[m].st_mode))
					fgit_linkcheck_found(lk, q->paths[m], strlen(q->paths[m]));
				continue;
			}
			j = &rn->jobs[q->slot[m]];
			if (j->tracked && fgit_linkcheck_below(lk, j->path))
				job_gone(rn, j);
			else
				do_job(rn, j, worker, &q->st[m], q->err[m]);
		}
	}
}

static int work(size_t begin, size_t end, int worker, void *payload)
{
	struct run *rn = payload;
	struct statq *q = rn->q ? &rn->q[worker] : NULL;
	size_t i;

	if (q && q->sb) {
		work_batched(rn, q, &rn->links[worker], begin, end, worker);
		return 0;
	}
	for (i = begin; i < end && !rn->fatal; i++)
		one_job(rn, &rn->jobs[i], worker);
	return 0;
}

/* A batch per worker (none when io_uring is unavailable). */
static void statq_init(struct run *rn, int threads)
{
	int k;

	rn->wdfd = open(rn->o->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rn->wdfd < 0 || !(rn->q = calloc((size_t)threads, sizeof(*rn->q))))
		return;
	for (k = 0; k < threads; k++) {
		struct statq *q = &rn->q[k];

		if (!(q->sb = fgit_statbatch_new(BATCH_DEPTH, 0)))
			break;
		q->paths = calloc(BATCH_DEPTH, sizeof(*q->paths));
		q->st = calloc(BATCH_DEPTH, sizeof(*q->st));
		q->err = calloc(BATCH_DEPTH, sizeof(*q->err));
		q->slot = calloc(BATCH_DEPTH, sizeof(*q->slot));
		fgit_buf_init(&q->dirs, 0);
		if (!q->paths || !q->st || !q->err || !q->slot) {
			fgit_statbatch_free(q->sb);
			q->sb = NULL;
			break;
		}
	}
}

static void statq_release(struct run *rn, int threads)
{
	int k;

	for (k = 0; rn->q && k < threads; k++) {
		fgit_statbatch_free(rn->q[k].sb);
		free(rn->q[k].paths);
		free(rn->q[k].st);
		free(rn->q[k].err);
		free(rn->q[k].slot);
		fgit_buf_release(&rn->q[k].dirs);
	}
	free(rn->q);
	rn->q = NULL;
	if (rn->wdfd >= 0)
		close(rn->wdfd);
	rn->wdfd = -1;
}

/*
 * The workers' buffers and stat rings, released as soon as the jobs are
 * done: the index grows while their results go in, and add -A of 100,000
 * files peaks there (its peak RSS must stay under git's).
 */
static void release_workers(struct run *rn, int threads)
{
	for (int i = 0; rn->fs && i < threads; i++) {
		fgit_buf_release(&rn->fs[i]);
		fgit_buf_release(&rn->data[i]);
		fgit_buf_release(&rn->conv[i]);
		if (rn->links)
			fgit_linkcheck_release(&rn->links[i]);
	}
	statq_release(rn, threads);
}

/*
 * Is path the first entry at position pos?  Paths listed from the index
 * itself (commit -a, add -u) come in its order, so the entry after the
 * last one found is checked before a binary search: commit -a of the
 * kernel tree spent ~8% of its time in those searches' memcmp.
 */
static int tracked_at(const struct fgit_index *idx, size_t pos, const char *path)
{
	if (pos >= fgit_index_entrycount(idx) || strcmp(fgit_index_get(idx, pos)->path, path))
		return 0;
	return !pos || strcmp(fgit_index_get(idx, pos - 1)->path, path);
}

/* Hand a job's messages to the report callback, in order. */
static int report_msgs(const struct fgit_add_options *o, struct job *j)
{
	size_t off = 0;
	int r;

	while (off < j->msgs_len) {
		const char *m = j->msgs + off;
		size_t n = strlen(m);
		if (o->report && (r = o->report(m[0] == 'W' ? FGIT_ADD_WARNING : FGIT_ADD_ERROR,
						j->path, m + 1, o->payload)))
			return r;
		off += n + 1;
	}
	return 0;
}

/*
 * Run jobs[0..n) (their path, tracked and old set) and apply them to idx;
 * takes jobs.  A job's path may point into its own index entry (add -u):
 * it is not used once that entry has been replaced or removed.
 */
static int run_jobs(struct fgit_index *idx, struct job *jobs, size_t n,
		    const struct fgit_add_options *o, int *changed_out)
{
	struct run rn;
	struct fgit_buf gone = FGIT_BUF_INIT;
	int threads = o->threads, ret = 0, changed = 0, append;
	size_t i;

	memset(&rn, 0, sizeof(rn));
	rn.wdfd = -1;
	rn.o = o;
	rn.idx = idx;
	rn.algo = fgit_index_algo(idx);
	rn.jobs = jobs;
	if (threads <= 0)
		threads = fgit_online_cpus();
	/* thread start-up costs more than a few files take */
	if (n < 16)
		threads = 1;
	rn.fs = calloc((size_t)threads, sizeof(*rn.fs));
	rn.data = calloc((size_t)threads, sizeof(*rn.data));
	rn.conv = calloc((size_t)threads, sizeof(*rn.conv));
	rn.links = calloc((size_t)threads, sizeof(*rn.links));
	if (!rn.fs || !rn.data || !rn.conv || !rn.links) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = fgit_hash_object(&rn.empty_blob, rn.algo, FGIT_OBJ_BLOB, "", 0)) < 0)
		goto out;
	for (i = 0; i < (size_t)threads; i++) {
		fgit_buf_init(&rn.fs[i], 256);
		fgit_buf_init(&rn.data[i], 0);
		fgit_buf_init(&rn.conv[i], 0);
		fgit_buf_adds(&rn.fs[i], o->workdir);
		fgit_buf_addch(&rn.fs[i], '/');
	}
	rn.fs_base = rn.fs[0].len;
	if (n >= BATCH_MIN)
		statq_init(&rn, threads);
	if ((ret = fgit_parallel_for(n, 0, threads, work, &rn)) < 0)
		goto out;
	if (rn.fatal) {
		ret = rn.fatal;
		goto out;
	}
	release_workers(&rn, threads);

	/* a whole tree into an empty index: append, sort once */
	append = fgit_index_entrycount(idx) == 0;
	for (i = 0; i < n; i++) {
		struct job *j = &rn.jobs[i];
		enum fgit_add_event ev = 0;

		if (j->msgs && (ret = report_msgs(o, j)))
			goto out;
		switch (j->res) {
		case R_NOTHING:
			continue;
		case R_FAILED:
			if (o->report && (ret = o->report(FGIT_ADD_FAILED, j->path, j->err,
							  o->payload)))
				goto out;
			continue;
		case R_FATAL:
			if (o->report)
				o->report(FGIT_ADD_FATAL, j->path, j->err, o->payload);
			ret = fgit_error_set(FGIT_ERROR, "%s", j->err);
			goto out;
		case R_REMOVED:
			ev = FGIT_ADD_REMOVED;
			if (!(o->flags & FGIT_ADD_DRY_RUN)) {
				/* the path may be the removed entry's own */
				fgit_buf_reset(&gone);
				fgit_buf_adds(&gone, j->path);
				j->path = gone.ptr;
				fgit_index_remove_path(idx, j->path);
				fgit_error_clear();
				changed = 1;
			}
			break;
		case R_SAME:
		case R_ADDED:
		case R_EMBEDDED:
			ev = j->res == R_EMBEDDED ? FGIT_ADD_EMBEDDED : FGIT_ADD_ADDED;
			if (o->flags & FGIT_ADD_DRY_RUN) {
				if (j->res == R_SAME)
					continue;
				break;
			}
			/* the new entry's path outlives the one it replaces */
			j->path = j->e->path;
			if (append) {
				ret = fgit_index_append(idx, j->e);
			} else {
				ret = fgit_index_add_ex(idx, j->e, FGIT_INDEX_ADD_OK_TO_REPLACE);
			}
			j->e = NULL;
			if (ret < 0)
				goto out;
			changed = 1;
			if (j->res == R_SAME)
				continue;
			break;
		}
		if (o->report && (ret = o->report(ev, j->path, NULL, o->payload)))
			goto out;
	}
	if (append && changed && (ret = fgit_index_sort(idx)) < 0)
		goto out;
	if (changed_out)
		*changed_out = changed;
out:
	for (i = 0; i < n; i++) {
		if (job_failed(&rn.jobs[i]))
			free(rn.jobs[i].err);
		else
			fgit_index_entry_free(rn.jobs[i].e);
		free(rn.jobs[i].msgs);
	}
	release_workers(&rn, threads);
	fgit_buf_release(&gone);
	free(rn.jobs);
	free(rn.fs);
	free(rn.data);
	free(rn.conv);
	free(rn.links);
	return ret;
}

int fgit_add_paths(struct fgit_index *idx, const char *const *paths, size_t n,
		   const struct fgit_add_options *o, int *changed_out)
{
	struct job *jobs;
	size_t i, next;

	if (changed_out)
		*changed_out = 0;
	if (!n)
		return 0;
	if (!(jobs = fgit_calloc_huge(n, sizeof(*jobs))))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0, next = 0; i < n; i++) {
		size_t pos;
		struct job *j = &jobs[i];
		j->path = paths[i];
		if (tracked_at(idx, next, paths[i]))
			pos = next;
		else if (!fgit_index_find_any_stage(&pos, idx, paths[i], strlen(paths[i])))
			continue;
		j->tracked = 1;
		j->old = fgit_index_get(idx, pos);
		next = pos + 1;
	}
	fgit_error_clear();
	return run_jobs(idx, jobs, n, o, changed_out);
}

/* Walks the entries add -u takes (tracked_next). */
struct tracked_iter {
	const struct fgit_index *idx;
	size_t pos;
	const struct fgit_index_entry *last;	/* the one taken before */
	const struct fgit_pathspec *ps;		/* NULL: every path */
	unsigned char *seen;			/* per item of ps, or NULL */
	unsigned char *tmp;			/* scratch as big as seen */
};

static int tracked_iter_init(struct tracked_iter *it, const struct fgit_index *idx,
			     const struct fgit_pathspec *ps, unsigned char *seen)
{
	size_t np = ps ? fgit_pathspec_count(ps) : 0;

	memset(it, 0, sizeof(*it));
	it->idx = idx;
	it->ps = ps;
	it->seen = seen;
	if (seen && np && !(it->tmp = calloc(np, 1)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	return 0;
}

/*
 * The next entry add -u takes: the first stage of its path, matching ps
 * (seen[k] set for each item k that matched), not skip-worktree.  NULL
 * when none is left.
 */
static const struct fgit_index_entry *tracked_next(struct tracked_iter *it)
{
	size_t n = fgit_index_entrycount(it->idx), np = it->ps ? fgit_pathspec_count(it->ps) : 0;

	while (it->pos < n) {
		const struct fgit_index_entry *e = fgit_index_get(it->idx, it->pos++);

		/* another stage of the path taken before */
		if (it->last && it->last->path_len == e->path_len &&
		    !memcmp(it->last->path, e->path, e->path_len))
			continue;
		if (it->ps) {
			if (it->tmp)
				memset(it->tmp, 0, np);
			if (!fgit_pathspec_match(it->ps, e->path, e->path_len, 0, it->tmp))
				continue;
			if (it->tmp)
				for (size_t s = 0; s < np; s++)
					it->seen[s] |= it->tmp[s];
		}
		if (e->flags & FGIT_INDEX_SKIP_WORKTREE)
			continue;
		return it->last = e;
	}
	return NULL;
}

int fgit_add_tracked_paths(const char ***out, size_t *nout, const struct fgit_index *idx,
			   const struct fgit_pathspec *ps, unsigned char *seen)
{
	size_t i, n = fgit_index_entrycount(idx), k = 0, bytes = 0;
	const struct fgit_index_entry *e;
	struct tracked_iter it;
	const char **list;
	char *p;

	if (tracked_iter_init(&it, idx, ps, seen))
		return -1;
	for (i = 0; i < n; i++)
		bytes += fgit_index_get(idx, i)->path_len + 1;
	if (n > (SIZE_MAX - bytes) / sizeof(*list) - 1) {
		free(it.tmp);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	list = malloc((n + 1) * sizeof(*list) + bytes);
	if (!list) {
		free(it.tmp);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	p = (char *)(list + n + 1);
	while ((e = tracked_next(&it))) {
		memcpy(p, e->path, e->path_len + 1);
		list[k++] = p;
		p += e->path_len + 1;
	}
	list[k] = NULL;
	free(it.tmp);
	*out = list;
	*nout = k;
	return 0;
}

int fgit_add_update(struct fgit_index *idx, const struct fgit_pathspec *ps,
		    unsigned char *seen, const struct fgit_add_options *o, int *changed_out)
{
	size_t n = fgit_index_entrycount(idx), k = 0;
	const struct fgit_index_entry *e;
	struct tracked_iter it;
	struct job *jobs;

	if (changed_out)
		*changed_out = 0;
	if (tracked_iter_init(&it, idx, ps, seen))
		return -1;
	if (!n || !(jobs = fgit_calloc_huge(n, sizeof(*jobs)))) {
		free(it.tmp);
		return n ? fgit_error_set(FGIT_ENOMEM, "out of memory") : 0;
	}
	while ((e = tracked_next(&it))) {
		struct job *j = &jobs[k++];
		j->old = e;
		j->path = e->path;
		j->tracked = 1;
	}
	free(it.tmp);
	if (!k) {
		free(jobs);
		return 0;
	}
	return run_jobs(idx, jobs, k, o, changed_out);
}

size_t fgit_add_smudge_racy(struct fgit_index *idx, const char *workdir,
			    const struct fgit_wt_stat_options *so)
{
	struct fgit_buf fs = FGIT_BUF_INIT;
	struct fgit_wt_stat_options o = *so;
	size_t i, n = fgit_index_entrycount(idx), base, smudged = 0;

	fgit_buf_adds(&fs, workdir);
	fgit_buf_addch(&fs, '/');
	base = fs.len;
	o.stat_only = 1;
	for (i = 0; i < n; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(idx, i);
		struct fgit_oid oid;
		struct stat st;

		if ((e->flags & FGIT_ADD_UPTODATE) || !fgit_index_entry_is_racy(idx, e))
			continue;
		fgit_buf_setlen(&fs, base);
		fgit_buf_adds(&fs, e->path);
		if (lstat(fs.ptr, &st) || fgit_worktree_stat_differs(e, &st, &o))
			continue;
		if (fgit_worktree_hash_file(&oid, fs.ptr, &st, o.algo) < 0) {
			fgit_error_clear();
			continue;
		}
		if (!fgit_oid_equal(&oid, &e->oid)) {
			e->size = 0;
			smudged++;
		}
	}
	if (smudged)
		fgit_index_mark_changed(idx);
	fgit_buf_release(&fs);
	return smudged;
}
