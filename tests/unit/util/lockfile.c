#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/common.h"
#include "fgit/lockfile.h"

static char dir[64];

static void mkdir_tmp(void)
{
	strcpy(dir, "/tmp/fgit-unit-lock-XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

TEST(lockfile, commit_replaces_the_file)
{
	char path[128], lock[140];
	struct fgit_lockfile *lk;
	char buf[16] = { 0 };
	int fd;
	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(lock, sizeof(lock), "%s/f.lock", dir);
	CHECK(fgit_write_file_locked(path, "old", 3, 0) == 0);
	CHECK(fgit_lockfile_acquire(&lk, path, FGIT_LOCK_FSYNC) == 0);
	CHECK(access(lock, F_OK) == 0);
	CHECK(fgit_lockfile_write(lk, "new", 3) == 0);
	CHECK(fgit_lockfile_commit(lk) == 0);
	CHECK(access(lock, F_OK) != 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 3 && !strcmp(buf, "new"));
	close(fd);
	unlink(path);
	rmdir(dir);
}

TEST(lockfile, held_lock_is_refused_with_gits_message)
{
	char path[128];
	struct fgit_lockfile *a, *b;
	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/f", dir);
	CHECK(fgit_lockfile_acquire(&a, path, 0) == 0);
	CHECK(fgit_lockfile_acquire(&b, path, 0) == FGIT_ELOCKED);
	CHECK(strstr(fgit_error_last(), "Unable to create '") &&
	      strstr(fgit_error_last(), "/f.lock': File exists."));
	fgit_lockfile_rollback(a);
	CHECK(access(path, F_OK) != 0);
	CHECK(fgit_lockfile_acquire(&b, path, 0) == 0);
	fgit_lockfile_rollback(b);
	rmdir(dir);
}

TEST(lockfile, removed_at_exit)
{
	char path[128], lock[140];
	pid_t pid;
	int status;
	mkdir_tmp();
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(lock, sizeof(lock), "%s/f.lock", dir);
	pid = fork();
	if (pid == 0) {
		struct fgit_lockfile *lk;
		if (fgit_lockfile_acquire(&lk, path, 0))
			_exit(2);
		exit(0);	/* without commit or rollback */
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(access(lock, F_OK) != 0);
	rmdir(dir);
}
