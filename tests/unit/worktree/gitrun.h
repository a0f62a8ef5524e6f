/*
 * Helpers for worktree unit tests that ask git itself for the expected
 * answers: run git with an argv (no shell quoting), feed stdin, collect
 * stdout; make a scratch directory and remove it.
 */
#ifndef FGIT_TEST_GITRUN_H
#define FGIT_TEST_GITRUN_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fgit/buf.h"

/* When set, gitrun() puts git's stderr here instead of discarding it. */
static struct fgit_buf *gitrun_err;

/*
 * Run `git argv...` in `dir` with `in` (may be NULL) on stdin; stdout is
 * appended to `out`, stderr discarded.  Returns git's exit code, -1 if it
 * could not run.
 */
static int gitrun(const char *dir, const char *const *argv, const char *in,
		  size_t inlen, struct fgit_buf *out)
{
	int inp[2], outp[2], status;
	pid_t pid;
	const char **av;
	size_t n = 0;

	while (argv[n])
		n++;
	av = calloc(n + 2, sizeof(*av));
	if (!av)
		return -1;
	av[0] = "git";
	memcpy(av + 1, argv, n * sizeof(*av));
	char errpath[64];
	int errfd = -1;
	strcpy(errpath, "/tmp/fgit-unit-err.XXXXXX");
	if (gitrun_err && (errfd = mkstemp(errpath)) < 0)
		return -1;
	if (pipe(inp) || pipe(outp))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int devnull = errfd >= 0 ? errfd : open("/dev/null", O_WRONLY);
		dup2(inp[0], 0);
		dup2(outp[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(inp[1]);
		close(outp[0]);
		if (dir && chdir(dir))
			_exit(127);
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
		setenv("HOME", "/nonexistent", 1);
		setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
		unsetenv("GIT_DIR");
		unsetenv("GIT_WORK_TREE");
		unsetenv("GIT_INDEX_FILE");
		execvp("git", (char *const *)av);
		_exit(127);
	}
	close(inp[0]);
	close(outp[1]);
	/* feed stdin and drain stdout together (non-blocking), since
	 * check-ignore --stdin answers while it still reads */
	{
		size_t off = 0;
		char tmp[65536];
		int fl = fcntl(inp[1], F_GETFL);
		fcntl(inp[1], F_SETFL, fl | O_NONBLOCK);
		fcntl(outp[0], F_SETFL, fcntl(outp[0], F_GETFL) | O_NONBLOCK);
		for (;;) {
			int progress = 0;
			if (inp[1] >= 0) {
				if (off < inlen) {
					ssize_t w = write(inp[1], in + off, inlen - off);
					if (w > 0) {
						off += w;
						progress = 1;
					} else if (w < 0 && errno != EAGAIN) {
						close(inp[1]);
						inp[1] = -1;
					}
				}
				if (inp[1] >= 0 && off >= inlen) {
					close(inp[1]);
					inp[1] = -1;
				}
			}
			ssize_t r = read(outp[0], tmp, sizeof(tmp));
			if (r > 0) {
				fgit_buf_add(out, tmp, r);
				progress = 1;
			} else if (r == 0) {
				break;
			} else if (errno != EAGAIN && errno != EINTR) {
				break;
			}
			if (!progress)
				usleep(200);
		}
		if (inp[1] >= 0)
			close(inp[1]);
		close(outp[0]);
	}
	free(av);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (errfd >= 0) {
		fgit_buf_reset(gitrun_err);
		fgit_buf_read_file(gitrun_err, errpath);
		close(errfd);
		unlink(errpath);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A fresh scratch directory (malloc'd path), or NULL. */
static char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *d;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	d = malloc(strlen(tmp) + 32);
	if (!d)
		return NULL;
	sprintf(d, "%s/fgit-unit.XXXXXX", tmp);
	if (!mkdtemp(d)) {
		free(d);
		return NULL;
	}
	return d;
}

static void scratch_remove(char *d)
{
	if (d) {
		pid_t pid = fork();
		if (!pid) {
			execlp("rm", "rm", "-rf", d, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	free(d);
}

/* Write `len` bytes to dir/rel, creating leading directories. */
static __attribute__((unused)) int write_file_at(const char *dir, const char *rel, const char *data,
			 size_t len)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	size_t i;
	int fd, ret = -1;
	fgit_buf_addf(&path, "%s/%s", dir, rel);
	for (i = strlen(dir) + 1; i < path.len; i++) {
		if (path.ptr[i] == '/') {
			path.ptr[i] = '\0';
			mkdir(path.ptr, 0777);
			path.ptr[i] = '/';
		}
	}
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd >= 0) {
		if (write(fd, data, len) == (ssize_t)len)
			ret = 0;
		close(fd);
	}
	fgit_buf_release(&path);
	return ret;
}

#endif
