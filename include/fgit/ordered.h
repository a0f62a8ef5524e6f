/*
 * Ordered parallel work: n items are processed by `work` on several
 * threads, and handed to `emit` on the calling thread strictly in index
 * order, so output stays deterministic (e.g. cat-file --batch-all-objects:
 * objects inflated on every core, printed in id order).  At most `window`
 * items are in flight, bounding memory.
 */
#ifndef FGIT_ORDERED_H
#define FGIT_ORDERED_H

#include <stddef.h>

/*
 * work(i, slot, payload) runs on a worker thread and fills slot (slot_size
 * bytes, zeroed first); emit(i, slot, payload) runs on the caller's thread
 * in order i = 0, 1, ...; a non-zero return from emit stops the run and is
 * returned.  nthreads <= 1 runs everything on the caller's thread.
 * Returns 0, emit's non-zero value, or FGIT_ENOMEM / FGIT_ERROR if threads
 * could not be started.
 */
int fgit_ordered_run(size_t n, int nthreads, size_t slot_size,
		     void (*work)(size_t i, void *slot, void *payload),
		     int (*emit)(size_t i, void *slot, void *payload),
		     void *payload);

/*
 * The same with at most `window` items in flight (fgit_ordered_run: 1024),
 * for work whose results are big: less memory held waiting for emit.
 */
int fgit_ordered_run_window(size_t n, int nthreads, size_t window, size_t slot_size,
			    void (*work)(size_t i, void *slot, void *payload),
			    int (*emit)(size_t i, void *slot, void *payload),
			    void *payload);

/*
 * The same, with the memory held by finished items bounded too: work
 * returns the bytes item i holds until it is emitted, and no new item is
 * started while those of finished, unemitted items exceed max_bytes (an
 * item bigger than that still runs).  For results of very different sizes
 * in an order that mixes them: a window of many items keeps every thread
 * busy past a slow one, the bound keeps a run of big ones from piling up.
 */
int fgit_ordered_run_bytes(size_t n, int nthreads, size_t window, size_t max_bytes,
			   size_t slot_size,
			   size_t (*work)(size_t i, void *slot, void *payload),
			   int (*emit)(size_t i, void *slot, void *payload),
			   void *payload);

/* Worker threads worth using here: online CPUs (at most 8), or FGIT_THREADS. */
int fgit_ordered_threads(void);

#endif
