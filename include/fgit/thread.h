/*
 * Threads where they pay (DESIGN.md "Threads and I/O"): a parallel-for over
 * an index range with dynamic chunking, and the CPU count.  Callers pick the
 * thread count from measurements written beside the call site; nthreads <= 1
 * runs inline on the calling thread without spawning anything.
 */
#ifndef FGIT_THREAD_H
#define FGIT_THREAD_H

#include <stddef.h>

/* Online CPUs (at least 1). */
int fgit_online_cpus(void);

/*
 * Call fn(begin, end, worker, payload) over [0, count) in chunks of `chunk`
 * items (0: automatic) from `nthreads` threads (the caller is one of them).
 * `worker` is 0..nthreads-1, for per-thread scratch.  Returns the first
 * non-zero value any call returned (remaining chunks are then skipped), or
 * a negative error if threads could not be started.
 */
int fgit_parallel_for(size_t count, size_t chunk, int nthreads,
		      int (*fn)(size_t begin, size_t end, int worker, void *payload),
		      void *payload);

#endif
