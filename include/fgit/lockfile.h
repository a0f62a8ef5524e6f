/*
 * Lock files in git's protocol: to replace <file>, create <file>.lock with
 * O_CREAT|O_EXCL (so only one writer, git or fgit, holds it), write the new
 * content there, then rename it over <file>.  Readers always see the old or
 * the new file, never half of one.  A lock still held when the process exits
 * (normally or by SIGINT/SIGTERM/SIGHUP/SIGPIPE) is removed.
 *
 * Thread safety: different lock files may be used from different threads;
 * one lock file belongs to one thread at a time.
 */
#ifndef FGIT_LOCKFILE_H
#define FGIT_LOCKFILE_H

#include <stddef.h>

struct fgit_lockfile;

enum fgit_lockfile_flags {
	FGIT_LOCK_FSYNC = 1 << 0,	/* fsync the lock file before renaming */
};

/*
 * Take the lock for `path` by creating "<path>.lock" (mode 0666 & ~umask).
 * FGIT_ELOCKED when it exists, with git's message ("Unable to create
 * '<abs>.lock': File exists." and its advice paragraph); FGIT_ERROR with
 * "Unable to create '<abs>.lock': <strerror>" otherwise.  *out is owned by
 * the caller until fgit_lockfile_commit() or fgit_lockfile_rollback(),
 * which both free it.
 */
int fgit_lockfile_acquire(struct fgit_lockfile **out, const char *path, unsigned int flags);

/*
 * fgit_lockfile_acquire(), retrying for up to timeout_ms while the lock is
 * held by someone else (with growing, randomized waits), as git does for
 * refs (core.filesRefLockTimeout, 100 ms) and packed-refs
 * (core.packedRefsTimeout, 1000 ms).  timeout_ms 0: one attempt; negative:
 * retry forever.
 */
int fgit_lockfile_acquire_timeout(struct fgit_lockfile **out, const char *path,
				  unsigned int flags, long timeout_ms);

/* The open descriptor of the lock file (for writing). */
int fgit_lockfile_fd(const struct fgit_lockfile *lk);
/* "<path>.lock" and "<path>" (borrowed). */
const char *fgit_lockfile_lock_path(const struct fgit_lockfile *lk);
const char *fgit_lockfile_target(const struct fgit_lockfile *lk);

/* Write all of data, retrying short writes. */
int fgit_lockfile_write(struct fgit_lockfile *lk, const void *data, size_t len);

/*
 * Close (fsync first with FGIT_LOCK_FSYNC) and rename the lock file over
 * the target.  On failure the lock file is removed.  Frees lk either way.
 */
int fgit_lockfile_commit(struct fgit_lockfile *lk);

/* Close and remove the lock file, leaving the target untouched; frees lk.
 * NULL is accepted. */
void fgit_lockfile_rollback(struct fgit_lockfile *lk);

/*
 * Remove held locks on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE too,
 * then die of the signal.  For programs (the CLI) that own their signal
 * handling; the library itself only registers an atexit() cleanup.
 */
void fgit_lockfile_install_signal_cleanup(void);

/* Write a whole file through its lock: acquire, write, commit. */
int fgit_write_file_locked(const char *path, const void *data, size_t len,
			   unsigned int flags);

#endif
