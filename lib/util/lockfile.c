/*
 * Lock files (see include/fgit/lockfile.h).  Every held lock sits on a
 * process-wide list so that exit() and fatal signals remove it: a crashed
 * writer must not leave a stale <file>.lock behind when we can help it.
 * The list is guarded by a mutex; the signal handler walks it without the
 * mutex (it only reads the paths and unlinks, then re-raises the signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fgit/common.h"
#include "fgit/lockfile.h"

struct fgit_lockfile {
	struct fgit_lockfile *prev, *next;
	char *target;
	char *lock_path;
	int fd;
	unsigned int flags;
	pid_t owner;
};

static pthread_mutex_t lock_list_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct fgit_lockfile *volatile lock_list;
static pthread_once_t cleanup_once = PTHREAD_ONCE_INIT;

static void remove_all_locks(void)
{
	struct fgit_lockfile *lk;
	pid_t me = getpid();

	for (lk = lock_list; lk; lk = lk->next) {
		if (lk->owner != me)
			continue;
		if (lk->fd >= 0)
			close(lk->fd);
		unlink(lk->lock_path);
	}
}

static void remove_locks_at_exit(void)
{
	pthread_mutex_lock(&lock_list_mutex);
	remove_all_locks();
	lock_list = NULL;
	pthread_mutex_unlock(&lock_list_mutex);
}

static void remove_locks_on_signal(int sig)
{
	remove_all_locks();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_cleanup(void)
{
	atexit(remove_locks_at_exit);
}

void fgit_lockfile_install_signal_cleanup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		signal(sigs[i], remove_locks_on_signal);
	}
}

static void list_add(struct fgit_lockfile *lk)
{
	pthread_once(&cleanup_once, install_cleanup);
	pthread_mutex_lock(&lock_list_mutex);
	lk->prev = NULL;
	lk->next = lock_list;
	if (lock_list)
		lock_list->prev = lk;
	lock_list = lk;
	pthread_mutex_unlock(&lock_list_mutex);
}

static void list_del(struct fgit_lockfile *lk)
{
	pthread_mutex_lock(&lock_list_mutex);
	if (lk->prev)
		lk->prev->next = lk->next;
	else if (lock_list == lk)
		lock_list = lk->next;
	if (lk->next)
		lk->next->prev = lk->prev;
	pthread_mutex_unlock(&lock_list_mutex);
}

static void lockfile_free(struct fgit_lockfile *lk)
{
	free(lk->target);
	free(lk->lock_path);
	free(lk);
}

/* git names the lock by its absolute path in its messages. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *out;
	size_t n;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	n = strlen(cwd) + strlen(path) + 2;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", cwd, path);
	return out;
}

int fgit_lockfile_acquire(struct fgit_lockfile **out, const char *path, unsigned int flags)
{
	struct fgit_lockfile *lk = NULL;
	size_t n = strlen(path);
	int ret;

	lk = calloc(1, sizeof(*lk));
	if (!lk)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	lk->fd = -1;
	lk->flags = flags;
	lk->owner = getpid();
	lk->target = strdup(path);
	lk->lock_path = malloc(n + 6);
	if (!lk->target || !lk->lock_path) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(lk->lock_path, path, n);
	memcpy(lk->lock_path + n, ".lock", 6);

	/* On the list before it exists, so a signal between open and
	 * list_add cannot leave the file behind. */
	list_add(lk);
	lk->fd = open(lk->lock_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (lk->fd < 0) {
		int e = errno;
		char *abs = absolute(lk->lock_path);
		list_del(lk);
		if (e == EEXIST)
			ret = fgit_error_set(FGIT_ELOCKED,
				"Unable to create '%s': File exists.\n\n"
				"Another git process seems to be running in this repository, e.g.\n"
				"an editor opened by 'git commit'. Please make sure all processes\n"
				"are terminated then try again. If it still fails, a git process\n"
				"may have crashed in this repository earlier:\n"
				"remove the file manually to continue.",
				abs ? abs : lk->lock_path);
		else
			ret = fgit_error_set(FGIT_ERROR, "Unable to create '%s': %s",
					     abs ? abs : lk->lock_path, strerror(e));
		free(abs);
		goto fail;
	}
	*out = lk;
	return 0;
fail:
	lockfile_free(lk);
	return ret;
}

int fgit_lockfile_fd(const struct fgit_lockfile *lk)
{
	return lk->fd;
}

const char *fgit_lockfile_lock_path(const struct fgit_lockfile *lk)
{
	return lk->lock_path;
}

const char *fgit_lockfile_target(const struct fgit_lockfile *lk)
{
	return lk->target;
}

int fgit_lockfile_write(struct fgit_lockfile *lk, const void *data, size_t len)
{
	if (fgit_write_all(lk->fd, data, len) < 0)
		return fgit_error_errno(FGIT_ERROR, "could not write to '%s'",
					lk->lock_path);
	return 0;
}

void fgit_lockfile_rollback(struct fgit_lockfile *lk)
{
	if (!lk)
		return;
	list_del(lk);
	if (lk->fd >= 0)
		close(lk->fd);
	unlink(lk->lock_path);
	lockfile_free(lk);
}

int fgit_lockfile_commit(struct fgit_lockfile *lk)
{
	int ret = 0;

	if ((lk->flags & FGIT_LOCK_FSYNC) && fsync(lk->fd) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "fsync error on '%s'", lk->lock_path);
		goto fail;
	}
	if (close(lk->fd) < 0) {
		lk->fd = -1;
		ret = fgit_error_errno(FGIT_ERROR, "could not close '%s'", lk->lock_path);
		goto fail;
	}
	lk->fd = -1;
	if (rename(lk->lock_path, lk->target) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "could not rename '%s' to '%s'",
				       lk->lock_path, lk->target);
		goto fail;
	}
	list_del(lk);
	lockfile_free(lk);
	return 0;
fail:
	fgit_lockfile_rollback(lk);
	return ret;
}

int fgit_write_file_locked(const char *path, const void *data, size_t len,
			   unsigned int flags)
{
	struct fgit_lockfile *lk;
	int ret = fgit_lockfile_acquire(&lk, path, flags);

	if (ret)
		return ret;
	ret = fgit_lockfile_write(lk, data, len);
	if (ret) {
		fgit_lockfile_rollback(lk);
		return ret;
	}
	return fgit_lockfile_commit(lk);
}

int fgit_lockfile_acquire_timeout(struct fgit_lockfile **out, const char *path,
				  unsigned int flags, long timeout_ms)
{
	struct timespec start, now;
	long wait_us = 1000, elapsed_ms;
	unsigned int seed = (unsigned int)getpid();
	int r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = fgit_lockfile_acquire(out, path, flags);
		if (r != FGIT_ELOCKED || timeout_ms == 0)
			return r;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000;
		if (timeout_ms > 0 && elapsed_ms >= timeout_ms)
			return r;
		/* git's backoff: growing, randomized waits */
		{
			long us = wait_us / 2 + (long)(rand_r(&seed) % (unsigned int)(wait_us + 1));
			struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		}
		if (wait_us < 100000)
			wait_us *= 2;
	}
}
