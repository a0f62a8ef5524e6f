/*
 * Progress meters in git's format on a file descriptor (stderr):
 *
 *   Counting objects:  42% (420/1000)\r
 *   Receiving objects: 100% (1000/1000), 1.23 MiB | 4.56 MiB/s, done.\n
 *
 * Updates are throttled to one redraw per 100 ms (git redraws on a 1 s
 * timer; the final line is what scripts and tests read).  fgit_progress_set
 * and _add may be called from any thread; the redraw is taken by one thread
 * at a time without blocking the others.
 */
#ifndef FGIT_PROGRESS_H
#define FGIT_PROGRESS_H

#include <stdint.h>

struct fgit_progress;

enum fgit_progress_flags {
	FGIT_PROGRESS_THROUGHPUT = 1 << 0,	/* show bytes and rate */
	FGIT_PROGRESS_DELAYED = 1 << 1,		/* show only after 2 s, as git's delayed meters */
};

/* NULL title or fd < 0 gives a silent meter (all calls are no-ops). */
struct fgit_progress *fgit_progress_new(const char *title, uint64_t total, int fd,
					unsigned int flags);
/* Set the count (monotonic), and the byte count for throughput. */
void fgit_progress_set(struct fgit_progress *p, uint64_t n);
void fgit_progress_add(struct fgit_progress *p, uint64_t n);
void fgit_progress_bytes(struct fgit_progress *p, uint64_t bytes);
/* Print the final ", done." line (if the meter was shown) and free it. */
void fgit_progress_done(struct fgit_progress *p);
/* The same with ", <msg>." instead of ", done." (git's stop_progress_msg). */
void fgit_progress_done_msg(struct fgit_progress *p, const char *msg);
/* Free without a final line: a command that fails leaves its meter as it
 * was, as git's die() does. */
void fgit_progress_abandon(struct fgit_progress *p);

/* Format a byte count the way git's progress does ("1.23 MiB"). */
void fgit_human_bytes(char *out, size_t outsz, uint64_t bytes);

#endif
