/*
 * The smallest <file>.lock protocol that interoperates with git: create
 * "<path>.lock" with O_CREAT|O_EXCL, write it, rename it over <path>.  The
 * lock file is removed on every failure path.
 *
 * NEEDSWORK: lib/util/lockfile.c (branch `repo`) is the general version;
 * switch to it when both are merged and delete this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fgit/common.h"
#include "index/index_internal.h"

static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	size_t n;
	char *r;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	n = strlen(cwd) + 1 + strlen(path) + 1;
	r = malloc(n);
	if (r)
		snprintf(r, n, "%s/%s", cwd, path);
	return r;
}

int index_lock_acquire(struct index_lock *lk, const char *path)
{
	size_t n = strlen(path);
	char *abs;

	lk->fd = -1;
	lk->path = strdup(path);
	lk->lock_path = malloc(n + 6);
	if (!lk->path || !lk->lock_path) {
		index_lock_rollback(lk);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	memcpy(lk->lock_path, path, n);
	memcpy(lk->lock_path + n, ".lock", 6);
	lk->fd = open(lk->lock_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (lk->fd < 0) {
		int e = errno, code = e == EEXIST ? FGIT_ELOCKED : FGIT_ERROR;
		abs = absolute(path);
		fgit_error_set(code, "Unable to create '%s.lock': %s.",
			       abs ? abs : path, strerror(e));
		free(abs);
		free(lk->lock_path);
		lk->lock_path = NULL;	/* not ours: never unlink it */
		index_lock_rollback(lk);
		return code;
	}
	return 0;
}

int index_lock_commit(struct index_lock *lk)
{
	int ret = 0;
	if (close(lk->fd) < 0) {
		lk->fd = -1;
		ret = fgit_error_errno(FGIT_ERROR, "could not close '%s'", lk->lock_path);
		index_lock_rollback(lk);
		return ret;
	}
	lk->fd = -1;
	if (rename(lk->lock_path, lk->path) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to rename '%s' to '%s'",
				       lk->lock_path, lk->path);
		index_lock_rollback(lk);
		return ret;
	}
	free(lk->lock_path);
	free(lk->path);
	lk->lock_path = lk->path = NULL;
	return 0;
}

void index_lock_rollback(struct index_lock *lk)
{
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
	if (lk->lock_path)
		unlink(lk->lock_path);
	free(lk->lock_path);
	free(lk->path);
	lk->lock_path = lk->path = NULL;
}
