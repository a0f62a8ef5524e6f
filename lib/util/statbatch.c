/*
 * lstat batches through io_uring (see fgit/statbatch.h).
 *
 * One ring per batch object: a submission queue of `depth` IORING_OP_STATX
 * requests, each a path relative to a directory fd with
 * AT_SYMLINK_NOFOLLOW, then one io_uring_enter that submits them all and
 * waits for all their completions.  The kernel (6.18 here) hands statx to
 * its io-wq workers, which run the lookups in parallel on every CPU
 * without any user/kernel transition per path.
 *
 * Anything unusual falls back to fstatat for that path (a failed
 * request: missing file, but also -EAGAIN, -ECANCELED or -EINVAL on a
 * kernel without the opcode), and a ring that fails as a whole is given
 * up for the rest of the process's use of this object, so the results
 * are always lstat's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include "fgit/statbatch.h"

#if defined(__linux__) && defined(SYS_io_uring_setup) && defined(STATX_BASIC_STATS)
#include <linux/io_uring.h>
#define HAVE_URING 1
#else
#define HAVE_URING 0
#endif

struct fgit_statbatch {
	int fd;			/* the ring; -1 once given up */
	unsigned depth;
#if HAVE_URING
	void *ring;		/* SQ and CQ rings, one mapping */
	size_t ring_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
	struct statx *stx;	/* depth */
#endif
};

static void stat_one(int dirfd, const char *path, struct stat *st, int *err)
{
	*err = fstatat(dirfd, path, st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
}

#if HAVE_URING
static void ring_release(struct fgit_statbatch *sb)
{
	if (sb->sqes)
		munmap(sb->sqes, sb->sqes_len);
	if (sb->ring)
		munmap(sb->ring, sb->ring_len);
	if (sb->fd >= 0)
		close(sb->fd);
	sb->sqes = NULL;
	sb->ring = NULL;
	sb->fd = -1;
}

static int ring_setup(struct fgit_statbatch *sb, unsigned depth, unsigned max_workers)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *r;

	memset(&p, 0, sizeof(p));
	sb->fd = (int)syscall(SYS_io_uring_setup, depth, &p);
	if (sb->fd < 0)
		return -1;
	/* one mapping for both rings (5.4+); older kernels: no batches */
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		return -1;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sb->ring_len = sq_len > cq_len ? sq_len : cq_len;
	r = mmap(NULL, sb->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 sb->fd, IORING_OFF_SQ_RING);
	if (r == MAP_FAILED) {
		sb->ring = NULL;
		return -1;
	}
	sb->ring = r;
	sb->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	sb->sqes = mmap(NULL, sb->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			sb->fd, IORING_OFF_SQES);
	if (sb->sqes == MAP_FAILED) {
		sb->sqes = NULL;
		return -1;
	}
	sb->sq_tail = (unsigned *)(r + p.sq_off.tail);
	sb->sq_mask = (unsigned *)(r + p.sq_off.ring_mask);
	sb->sq_array = (unsigned *)(r + p.sq_off.array);
	sb->cq_head = (unsigned *)(r + p.cq_off.head);
	sb->cq_tail = (unsigned *)(r + p.cq_off.tail);
	sb->cq_mask = (unsigned *)(r + p.cq_off.ring_mask);
	sb->cqes = (struct io_uring_cqe *)(r + p.cq_off.cqes);
	if (max_workers) {
		/* 5.15+; an older kernel keeps its own limit */
		unsigned mw[2] = { max_workers, max_workers };
		syscall(SYS_io_uring_register, sb->fd, IORING_REGISTER_IOWQ_MAX_WORKERS, mw, 2);
	}
	/* the kernel may round up; never queue more than the CQ holds */
	sb->depth = p.sq_entries < depth ? p.sq_entries : depth;
	if (p.cq_entries < sb->depth)
		sb->depth = p.cq_entries;
	return 0;
}

static void fill_stat(struct stat *st, const struct statx *x)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	st->st_ino = x->stx_ino;
	st->st_mode = x->stx_mode;
	st->st_nlink = x->stx_nlink;
	st->st_uid = x->stx_uid;
	st->st_gid = x->stx_gid;
	st->st_rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor);
	st->st_size = (off_t)x->stx_size;
	st->st_blksize = x->stx_blksize;
	st->st_blocks = (blkcnt_t)x->stx_blocks;
	st->st_atim.tv_sec = x->stx_atime.tv_sec;
	st->st_atim.tv_nsec = x->stx_atime.tv_nsec;
	st->st_mtim.tv_sec = x->stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x->stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x->stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x->stx_ctime.tv_nsec;
}

/* Submit n requests already queued and wait for their n completions. */
static int ring_run(struct fgit_statbatch *sb, unsigned n, struct stat *out, int *err,
		    int dirfd, const char *const *paths)
{
	unsigned submitted = 0, done = 0, head;

	while (done < n) {
		long r = syscall(SYS_io_uring_enter, sb->fd, n - submitted, n - done,
				 IORING_ENTER_GETEVENTS, NULL, 0);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EBUSY)
				continue;
			return -1;
		}
		submitted += (unsigned)r;
		head = *sb->cq_head;
		while (head != __atomic_load_n(sb->cq_tail, __ATOMIC_ACQUIRE)) {
			const struct io_uring_cqe *c = &sb->cqes[head & *sb->cq_mask];
			size_t i = (size_t)c->user_data;

			if (i < n) {
				if (c->res < 0) {
					if (c->res == -EINVAL || c->res == -EOPNOTSUPP)
						sb->depth = 0;	/* no statx op: give up */
					stat_one(dirfd, paths[i], &out[i], &err[i]);
				} else {
					fill_stat(&out[i], &sb->stx[i]);
					err[i] = 0;
				}
				done++;
			}
			head++;
		}
		__atomic_store_n(sb->cq_head, head, __ATOMIC_RELEASE);
	}
	return 0;
}
#endif

struct fgit_statbatch *fgit_statbatch_new(unsigned depth, unsigned max_workers)
{
#if HAVE_URING
	struct fgit_statbatch *sb;
	const char *env = getenv("FGIT_NO_IO_URING");

	if ((env && *env && strcmp(env, "0")) || !depth)
		return NULL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->fd = -1;
	if (ring_setup(sb, depth, max_workers) ||
	    !(sb->stx = calloc(sb->depth, sizeof(*sb->stx)))) {
		fgit_statbatch_free(sb);
		return NULL;
	}
	return sb;
#else
	(void)depth;
	(void)max_workers;
	return NULL;
#endif
}

void fgit_statbatch_free(struct fgit_statbatch *sb)
{
	if (!sb)
		return;
#if HAVE_URING
	ring_release(sb);
	free(sb->stx);
#endif
	free(sb);
}

size_t fgit_statbatch_depth(const struct fgit_statbatch *sb)
{
	return sb ? sb->depth : 0;
}

void fgit_statbatch_lstat(struct fgit_statbatch *sb, int dirfd,
			  const char *const *paths, size_t n,
			  struct stat *out, int *err)
{
	size_t i;

#if HAVE_URING
	if (sb && sb->fd >= 0 && sb->depth && n <= sb->depth) {
		unsigned tail = *sb->sq_tail;

		for (i = 0; i < n; i++) {
			unsigned slot = (tail + (unsigned)i) & *sb->sq_mask;
			struct io_uring_sqe *e = &sb->sqes[slot];

			memset(e, 0, sizeof(*e));
			e->opcode = IORING_OP_STATX;
			e->fd = dirfd;
			e->addr = (unsigned long)paths[i];
			e->len = STATX_BASIC_STATS;
			e->off = (unsigned long)&sb->stx[i];
			e->statx_flags = AT_SYMLINK_NOFOLLOW;
			e->user_data = i;
			sb->sq_array[slot] = slot;
		}
		__atomic_store_n(sb->sq_tail, tail + (unsigned)n, __ATOMIC_RELEASE);
		if (!ring_run(sb, (unsigned)n, out, err, dirfd, paths))
			return;
		/*
		 * The ring failed as a whole: requests may still be in flight
		 * and write into stx later, so it is left allocated (leaked)
		 * and the ring dropped; everything is stat'ed here.
		 */
		ring_release(sb);
		sb->stx = NULL;
	}
#endif
	for (i = 0; i < n; i++)
		stat_one(dirfd, paths[i], &out[i], &err[i]);
}
