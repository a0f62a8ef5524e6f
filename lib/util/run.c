/*
 * Child processes (see include/fgit/run.h).  fork+exec rather than
 * posix_spawn so that the working directory and fd plumbing can be set in
 * the child; feeding stdin and draining stdout use poll() so that neither
 * side can block the other on a full pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/run.h"

extern char **environ;

static int needs_shell(const char *cmd)
{
	return strcspn(cmd, "|&;<>()$`\\\"' \t\n*?[#~=%") != strlen(cmd);
}

/* environ with the "K=V" / "K" edits applied; the strings are borrowed. */
static char **make_env(const char *const *edits)
{
	size_t n = 0, ne = 0, i, j, k = 0;
	char **env;

	while (environ[n])
		n++;
	while (edits && edits[ne])
		ne++;
	env = calloc(n + ne + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t kl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int drop = 0;
		for (j = 0; j < ne; j++) {
			size_t el = strcspn(edits[j], "=");
			if (el == kl && !strncmp(edits[j], environ[i], kl))
				drop = 1;
		}
		if (!drop)
			env[k++] = environ[i];
	}
	for (j = 0; j < ne; j++)
		if (strchr(edits[j], '='))
			env[k++] = (char *)edits[j];
	env[k] = NULL;
	return env;
}

static void child_fd(int want, int target, int pipe_end)
{
	if (want == FGIT_CHILD_PIPE) {
		dup2(pipe_end, target);
	} else if (want == FGIT_CHILD_NULL) {
		int fd = open("/dev/null", target ? O_WRONLY : O_RDONLY);
		if (fd >= 0) {
			dup2(fd, target);
			close(fd);
		}
	} else if (want >= 0) {
		dup2(want, target);
	}
}

int fgit_child_start(struct fgit_child *c)
{
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	const char **argv = NULL;
	char **envp = NULL;
	size_t n = 0, i;
	pid_t pid;

	c->in_pipe = c->out_pipe = -1;
	while (c->argv[n])
		n++;
	argv = calloc(n + 4, sizeof(*argv));
	if (!argv)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (c->use_shell && needs_shell(c->argv[0])) {
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_adds(&b, c->argv[0]);
		if (n > 1)
			fgit_buf_adds(&b, " \"$@\"");
		argv[0] = "sh";
		argv[1] = "-c";
		argv[2] = fgit_buf_detach(&b, NULL);
		for (i = 0; i < n; i++)
			argv[3 + i] = c->argv[i];
	} else {
		for (i = 0; i < n; i++)
			argv[i] = c->argv[i];
	}
	/* the child's environment is built here: after fork() only
	 * async-signal-safe calls are allowed in a threaded program */
	if (!(envp = make_env(c->env))) {
		fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto fail;
	}
	/* a pipe reports exec failure: the child writes errno and exits */
	if (pipe2(errp, O_CLOEXEC) ||
	    (c->in == FGIT_CHILD_PIPE && pipe2(inp, O_CLOEXEC)) ||
	    (c->out == FGIT_CHILD_PIPE && pipe2(outp, O_CLOEXEC))) {
		fgit_error_errno(FGIT_ERROR, "cannot create pipe");
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		fgit_error_errno(FGIT_ERROR, "cannot fork");
		goto fail;
	}
	if (!pid) {
		int e;
		signal(SIGPIPE, SIG_DFL);
		child_fd(c->in, 0, inp[0]);
		child_fd(c->out, 1, outp[1]);
		child_fd(c->err, 2, -1);
		if (c->dir && chdir(c->dir)) {
			e = errno;
			if (write(errp[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		execvpe(argv[0], (char *const *)argv, envp);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errp[1]);
	{
		int e = 0;
		ssize_t r = read(errp[0], &e, sizeof(e));
		close(errp[0]);
		if (r == sizeof(e)) {
			waitpid(pid, NULL, 0);
			errno = e;
			fgit_error_errno(e == ENOENT ? FGIT_ENOTFOUND : FGIT_ERROR,
					 "cannot run %s", c->argv[0]);
			errp[0] = errp[1] = -1;
			goto fail;
		}
	}
	if (inp[0] >= 0)
		close(inp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	c->in_pipe = inp[1];
	c->out_pipe = outp[0];
	c->pid = pid;
	if (argv[0] != c->argv[0])
		free((char *)argv[2]);
	free(argv);
	free(envp);
	return 0;
fail:
	for (i = 0; i < 2; i++) {
		if (inp[i] >= 0)
			close(inp[i]);
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (argv && argv[0] != c->argv[0])
		free((char *)argv[2]);
	free(argv);
	free(envp);
	return fgit_error_last_code() ? fgit_error_last_code() : FGIT_ERROR;
}

int fgit_child_finish(struct fgit_child *c)
{
	int st;
	if (c->in_pipe >= 0) {
		close(c->in_pipe);
		c->in_pipe = -1;
	}
	if (c->out_pipe >= 0) {
		close(c->out_pipe);
		c->out_pipe = -1;
	}
	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return fgit_error_errno(FGIT_ERROR, "waitpid failed");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return FGIT_ERROR;
}

int fgit_run_pipe(struct fgit_child *c, const char *in, size_t inlen, struct fgit_buf *out)
{
	size_t off = 0;
	int r;

	c->in = in ? FGIT_CHILD_PIPE : c->in;
	c->out = out ? FGIT_CHILD_PIPE : c->out;
	if ((r = fgit_child_start(c)) < 0)
		return r;
	if (c->in_pipe >= 0 && !inlen) {
		close(c->in_pipe);
		c->in_pipe = -1;
	}
	/* a blocking write of a big buffer would wait for the child, which
	 * may itself wait for us to read: write only what fits */
	if (c->in_pipe >= 0)
		fcntl(c->in_pipe, F_SETFL, fcntl(c->in_pipe, F_GETFL) | O_NONBLOCK);
	while (c->in_pipe >= 0 || c->out_pipe >= 0) {
		struct pollfd p[2];
		int np = 0;
		if (c->in_pipe >= 0) {
			p[np].fd = c->in_pipe;
			p[np++].events = POLLOUT;
		}
		if (c->out_pipe >= 0) {
			p[np].fd = c->out_pipe;
			p[np++].events = POLLIN;
		}
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < np; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == c->in_pipe) {
				ssize_t w = write(c->in_pipe, in + off, inlen - off);
				if (w > 0)
					off += (size_t)w;
				if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == inlen) {
					close(c->in_pipe);
					c->in_pipe = -1;
				}
			} else {
				ssize_t got;
				if (fgit_buf_grow(out, 65536))
					break;
				got = read(c->out_pipe, out->ptr + out->len, 65536);
				if (got > 0) {
					out->len += (size_t)got;
					out->ptr[out->len] = '\0';
				} else if (got == 0 || errno != EINTR) {
					close(c->out_pipe);
					c->out_pipe = -1;
				}
			}
		}
	}
	return fgit_child_finish(c);
}
