/*
 * update-index --test-untracked-cache: the untracked cache skips reading a
 * directory whose stat data is unchanged, which is only sound where adding
 * or removing an entry changes the directory's stat data and nothing else
 * does.  This checks that, in a scratch directory, with the same six steps
 * and the same one-second pauses as git 2.39 (observed with strace), so
 * that both print the same progress and reach the same verdict.
 *
 * The comparison is the one the cache itself makes (see uc_valid in
 * dirwalk.c): whole-second ctime and mtime, inode, owner, group and size.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/worktree.h"

static int same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ino == b->st_ino && a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	       a->st_size == b->st_size;
}

/* fs = "<dir>/mtime-test-XXXXXX" + sub */
static const char *at(struct fgit_buf *fs, size_t base, const char *sub)
{
	fgit_buf_setlen(fs, base);
	fgit_buf_adds(fs, sub);
	return fs->ptr;
}

int fgit_untr_test_mtime(const char **why, const char *dir,
			 void (*step)(int n, void *payload), void *payload)
{
	/* what each change must do to the directory: change it or not */
	static const struct {
		int changes;
		const char *msg;
	} checks[] = {
		{ 1, "directory stat info does not change after adding a new file" },
		{ 1, "directory stat info does not change after adding a new directory" },
		{ 0, "directory stat info changes after updating a file" },
		{ 0, "directory stat info changes after adding a file inside subdirectory" },
		{ 1, "directory stat info does not change after deleting a file" },
		{ 1, "directory stat info does not change after deleting a directory" },
	};
	struct fgit_buf fs = FGIT_BUF_INIT;
	struct stat base, st;
	size_t top = 0;
	int fd = -1, made = 0, r = 1, i;

	*why = NULL;
	if (dir && *dir) {
		fgit_buf_adds(&fs, dir);
		fgit_buf_addch(&fs, '/');
	}
	fgit_buf_adds(&fs, "mtime-test-XXXXXX");
	if (!mkdtemp(fs.ptr)) {
		r = fgit_error_errno(FGIT_ERROR, "Could not make temporary directory");
		goto out;
	}
	made = 1;
	top = fs.len;
	step(0, payload);
	if (stat(fs.ptr, &base)) {
		r = fgit_error_errno(FGIT_ERROR, "failed to stat '%s'", fs.ptr);
		goto out;
	}
	step(1, payload);
	for (i = 0; i < 6; i++) {
		int ok = 0;

		sleep(1);
		switch (i) {
		case 0:
			fd = open(at(&fs, top, "/newfile"), O_RDWR | O_CREAT, 0644);
			ok = fd >= 0;
			break;
		case 1:
			ok = !mkdir(at(&fs, top, "/new-dir"), 0700);
			break;
		case 2:
			ok = write(fd, "data", 4) == 4;
			ok = !close(fd) && ok;
			fd = -1;
			break;
		case 3: {
			int f = open(at(&fs, top, "/new-dir/new"), O_RDWR | O_CREAT, 0644);
			ok = f >= 0 && !close(f);
			break;
		}
		case 4:
			ok = !unlink(at(&fs, top, "/newfile"));
			break;
		case 5:
			ok = !unlink(at(&fs, top, "/new-dir/new")) && !rmdir(at(&fs, top, "/new-dir"));
			break;
		}
		if (!ok) {
			r = fgit_error_errno(FGIT_ERROR, "cannot change '%s'", fs.ptr);
			goto out;
		}
		fgit_buf_setlen(&fs, top);
		if (stat(fs.ptr, &st)) {
			r = fgit_error_errno(FGIT_ERROR, "failed to stat '%s'", fs.ptr);
			goto out;
		}
		if (same_stat(&base, &st) == checks[i].changes) {
			*why = checks[i].msg;
			r = 0;
			goto out;
		}
		base = st;
		if (i < 5)
			step(i + 2, payload);
	}
	made = 0;
	if (rmdir(fs.ptr))
		r = fgit_error_errno(FGIT_ERROR, "cannot remove '%s'", fs.ptr);
out:
	if (fd >= 0)
		close(fd);
	if (made) {
		/* leave nothing behind: whatever of the scratch entries exists */
		fgit_buf_setlen(&fs, top);
		unlink(at(&fs, top, "/newfile"));
		unlink(at(&fs, top, "/new-dir/new"));
		rmdir(at(&fs, top, "/new-dir"));
		rmdir(at(&fs, top, ""));
	}
	fgit_buf_release(&fs);
	return r;
}
