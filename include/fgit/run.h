/*
 * Running other programs: hooks, editors, filter drivers, pagers.
 * A command given "with shell" runs the way git runs such commands: directly
 * when it is a plain word, else as  sh -c '<command> "$@"' <command> <args>.
 */
#ifndef FGIT_RUN_H
#define FGIT_RUN_H

#include <sys/types.h>

#define FGIT_CHILD_INHERIT (-1)
#define FGIT_CHILD_PIPE (-2)
#define FGIT_CHILD_NULL (-3)

struct fgit_child {
	const char *const *argv;	/* argv[0] is the program or shell command */
	const char *const *env;		/* "K=V" sets, "K" unsets; NULL-terminated; may be NULL */
	const char *dir;		/* working directory; NULL: unchanged */
	int use_shell;
	int in, out, err;		/* FGIT_CHILD_INHERIT / _PIPE / _NULL, or an fd to use */
	/* filled by fgit_child_start */
	pid_t pid;
	int in_pipe;			/* write end when in == FGIT_CHILD_PIPE, else -1 */
	int out_pipe;			/* read end when out == FGIT_CHILD_PIPE, else -1 */
};

#define FGIT_CHILD_INIT { NULL, NULL, NULL, 0, FGIT_CHILD_INHERIT, FGIT_CHILD_INHERIT, \
			  FGIT_CHILD_INHERIT, -1, -1, -1 }

/* Start the child.  FGIT_ENOTFOUND if the program does not exist (message
 * "cannot run <prog>: No such file or directory"). */
int fgit_child_start(struct fgit_child *c);
/*
 * Wait for the child; closes any pipe ends still open.  Returns its exit
 * code (0..255), or 128+signal if it was killed, or a negative error.
 */
int fgit_child_finish(struct fgit_child *c);

/* Start, feed `in` (may be NULL) to its stdin, collect its stdout into
 * `out` (may be NULL: inherit), wait.  Returns the exit code as above. */
struct fgit_buf;
int fgit_run_pipe(struct fgit_child *c, const char *in, size_t inlen, struct fgit_buf *out);

#endif
