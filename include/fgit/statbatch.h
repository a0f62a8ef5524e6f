/*
 * lstat() of many paths in one system call: io_uring IORING_OP_STATX
 * batches (raw system calls, no liburing).  On this project's VM a system
 * call costs ~4.5 us of entry and exit (PTI, virtualisation) against ~2 us
 * of path lookup, so a status that lstats 100,000 files spends most of its
 * time entering the kernel; one io_uring_enter per batch removes that.
 *
 * A batch is not thread-safe: one per thread.
 */
#ifndef FGIT_STATBATCH_H
#define FGIT_STATBATCH_H

#include <stddef.h>
#include <sys/stat.h>

struct fgit_statbatch;

/*
 * A batch of up to `depth` stats, run by at most `max_workers` kernel
 * threads at a time (0: the kernel's choice, 4 per CPU; 1: one path after
 * the other, for core.preloadIndex=false), or NULL where io_uring is unavailable
 * (kernel without it or without IORING_OP_STATX, kernel.io_uring_disabled,
 * seccomp) or the environment sets FGIT_NO_IO_URING: callers then lstat
 * one path at a time.  Free with fgit_statbatch_free (NULL is fine).
 */
struct fgit_statbatch *fgit_statbatch_new(unsigned depth, unsigned max_workers);
void fgit_statbatch_free(struct fgit_statbatch *sb);

/* The batch size fgit_statbatch_new granted (n of one call at most). */
size_t fgit_statbatch_depth(const struct fgit_statbatch *sb);

/*
 * fstatat(dirfd, paths[i], &out[i], AT_SYMLINK_NOFOLLOW) for i < n
 * (n <= depth): err[i] is 0 or the errno lstat would have set.  A path
 * the kernel's batch could not stat is stat'ed again on its own, so the
 * answers are lstat's exactly.  The paths must stay valid for the call.
 */
void fgit_statbatch_lstat(struct fgit_statbatch *sb, int dirfd,
			  const char *const *paths, size_t n,
			  struct stat *out, int *err);

#endif
