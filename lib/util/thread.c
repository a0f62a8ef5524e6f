/*
 * Parallel-for with an atomic cursor: each worker claims the next chunk, so
 * uneven items (a big file among small ones) balance themselves.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "fgit/common.h"
#include "fgit/thread.h"

int fgit_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

struct pf_state {
	size_t count, chunk;
	_Atomic size_t next;
	_Atomic int result;
	int (*fn)(size_t, size_t, int, void *);
	void *payload;
};

struct pf_worker {
	struct pf_state *st;
	int id;
	pthread_t tid;
};

static void *pf_run(void *arg)
{
	struct pf_worker *w = arg;
	struct pf_state *st = w->st;

	while (!atomic_load_explicit(&st->result, memory_order_relaxed)) {
		size_t b = atomic_fetch_add(&st->next, st->chunk), e;
		int r;
		if (b >= st->count)
			break;
		e = b + st->chunk < st->count ? b + st->chunk : st->count;
		r = st->fn(b, e, w->id, st->payload);
		if (r) {
			int zero = 0;
			atomic_compare_exchange_strong(&st->result, &zero, r);
		}
	}
	return NULL;
}

int fgit_parallel_for(size_t count, size_t chunk, int nthreads,
		      int (*fn)(size_t, size_t, int, void *), void *payload)
{
	struct pf_state st;
	struct pf_worker *w;
	int i, started;

	if (!count)
		return 0;
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > count)
		nthreads = (int)count;
	if (!chunk) {
		chunk = count / ((size_t)nthreads * 16);
		if (!chunk)
			chunk = 1;
	}
	if (nthreads == 1)
		return fn(0, count, 0, payload);

	st.count = count;
	st.chunk = chunk;
	atomic_init(&st.next, 0);
	atomic_init(&st.result, 0);
	st.fn = fn;
	st.payload = payload;
	w = calloc((size_t)nthreads, sizeof(*w));
	if (!w)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (started = 1; started < nthreads; started++) {
		w[started].st = &st;
		w[started].id = started;
		if (pthread_create(&w[started].tid, NULL, pf_run, &w[started]))
			break;
	}
	w[0].st = &st;
	w[0].id = 0;
	pf_run(&w[0]);
	for (i = 1; i < started; i++)
		pthread_join(w[i].tid, NULL);
	free(w);
	return atomic_load(&st.result);
}
