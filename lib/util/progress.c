/*
 * Progress meters (see include/fgit/progress.h).  Counters are atomics so
 * worker threads can report without locks; whichever thread notices that a
 * redraw is due takes a try-lock and draws, the others carry on.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fgit/progress.h"

struct fgit_progress {
	char *title;
	uint64_t total;
	int fd;
	unsigned int flags;
	_Atomic uint64_t n;
	_Atomic uint64_t bytes;
	_Atomic uint64_t next_ns;	/* earliest time for the next redraw */
	uint64_t start_ns;
	int shown;
	size_t last_len;
	pthread_mutex_t draw;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "<whole>.<hundredths> <unit>", rounding MiB and KiB to the nearest
 * hundredth as git's meters do; GiB are truncated. */
static void fmt_unit(char *out, size_t outsz, uint64_t v, unsigned shift,
		     uint64_t round, const char *unit)
{
	uint64_t mask = ((uint64_t)1 << shift) - 1;
	v += round;
	snprintf(out, outsz, "%" PRIu64 ".%02u %s", v >> shift,
		 (unsigned)(((v & mask) * 100) >> shift), unit);
}

void fgit_human_bytes(char *out, size_t outsz, uint64_t bytes)
{
	if (bytes > (1u << 30))
		fmt_unit(out, outsz, bytes, 30, 0, "GiB");
	else if (bytes > (1u << 20))
		fmt_unit(out, outsz, bytes, 20, 5243, "MiB");
	else if (bytes > (1u << 10))
		fmt_unit(out, outsz, bytes, 10, 5, "KiB");
	else
		snprintf(out, outsz, "%u byte%s", (unsigned)bytes, bytes == 1 ? "" : "s");
}

struct fgit_progress *fgit_progress_new(const char *title, uint64_t total, int fd,
					unsigned int flags)
{
	struct fgit_progress *p;

	if (!title || fd < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->title = strdup(title);
	if (!p->title) {
		free(p);
		return NULL;
	}
	p->total = total;
	p->fd = fd;
	p->flags = flags;
	p->start_ns = now_ns();
	atomic_init(&p->n, 0);
	atomic_init(&p->bytes, 0);
	atomic_init(&p->next_ns, p->start_ns +
		    (flags & FGIT_PROGRESS_DELAYED ? 2000000000u : 0));
	pthread_mutex_init(&p->draw, NULL);
	return p;
}

static void draw(struct fgit_progress *p, int done, const char *msg)
{
	char line[512], tp[128] = "";
	uint64_t n = atomic_load(&p->n);
	size_t len;
	int k;

	if (p->flags & FGIT_PROGRESS_THROUGHPUT) {
		uint64_t b = atomic_load(&p->bytes), el = now_ns() - p->start_ns;
		char h1[32], h2[32];
		fgit_human_bytes(h1, sizeof(h1), b);
		fgit_human_bytes(h2, sizeof(h2), el ? b * 1000000000u / el : 0);
		snprintf(tp, sizeof(tp), ", %s | %s/s", h1, h2);
	}
	if (p->total)
		k = snprintf(line, sizeof(line), "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s",
			     p->title, (unsigned)(n * 100 / p->total), n, p->total, tp);
	else
		k = snprintf(line, sizeof(line), "%s: %" PRIu64 "%s", p->title, n, tp);
	if (k < 0)
		return;
	len = (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1;
	{
		char out[700];
		int m;
		size_t pad = p->last_len > len ? p->last_len - len : 0;
		if (done)
			m = snprintf(out, sizeof(out), "%s, %s.%*s\n", line, msg ? msg : "done",
				     (int)pad, "");
		else
			m = snprintf(out, sizeof(out), "%s%*s\r", line, (int)pad, "");
		if (m > 0 && write(p->fd, out, (size_t)m) < 0)
			return;
	}
	p->last_len = len;
	p->shown = 1;
}

static void maybe_draw(struct fgit_progress *p)
{
	uint64_t t = now_ns();
	if (t < atomic_load_explicit(&p->next_ns, memory_order_relaxed))
		return;
	if (pthread_mutex_trylock(&p->draw))
		return;
	if (t >= atomic_load(&p->next_ns)) {
		atomic_store(&p->next_ns, t + 100000000u);
		draw(p, 0, NULL);
	}
	pthread_mutex_unlock(&p->draw);
}

void fgit_progress_set(struct fgit_progress *p, uint64_t n)
{
	if (!p)
		return;
	atomic_store_explicit(&p->n, n, memory_order_relaxed);
	maybe_draw(p);
}

void fgit_progress_add(struct fgit_progress *p, uint64_t n)
{
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->n, n, memory_order_relaxed);
	maybe_draw(p);
}

void fgit_progress_bytes(struct fgit_progress *p, uint64_t bytes)
{
	if (p)
		atomic_store_explicit(&p->bytes, bytes, memory_order_relaxed);
}

void fgit_progress_done(struct fgit_progress *p)
{
	fgit_progress_done_msg(p, NULL);
}

void fgit_progress_abandon(struct fgit_progress *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->draw);
	free(p->title);
	free(p);
}

void fgit_progress_done_msg(struct fgit_progress *p, const char *msg)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->draw);
	/* A delayed meter that never showed stays silent, as git's does. */
	if (p->shown || !(p->flags & FGIT_PROGRESS_DELAYED))
		draw(p, 1, msg);
	pthread_mutex_unlock(&p->draw);
	pthread_mutex_destroy(&p->draw);
	free(p->title);
	free(p);
}
