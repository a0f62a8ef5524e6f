/*
 * A pool of big object buffers, kept for reuse.
 *
 * Reading objects makes and drops buffers all the time: inflated objects,
 * delta results, delta-base cache entries, views lent to callers.  Small
 * ones are recycled by malloc's heap.  Big ones (POOL_MIN and more) are
 * mmap'd by glibc (cat-file --batch-all-objects fixes its threshold at
 * 128 KiB, or the heap fragments), so each is a fresh mapping that faults
 * in page by page and is unmapped when freed, and a page fault costs
 * ~10-25 us on this project's VM.  cat-file --batch-all-objects --batch
 * --unordered on the history corpus malloc'd 753 such blocks, 579 MiB:
 * ~148,000 of its ~158,000 minor faults.
 *
 * So a freed big block is kept, up to POOL_CAP bytes for the process, and
 * handed out again for a request it fits without wasting much (best fit,
 * at most half again the size a fresh block would have); the blocks kept
 * longest go first when the pool is full.  Fresh blocks are rounded up to
 * a step of 1/16 to 1/8 of their size, so they fit later requests of about
 * the same size.  Blocks of HUGE_MIN and more are made on 2 MiB transparent
 * huge pages where the system grants them (transparent_hugepage=madvise
 * here): one fault per 2 MiB instead of 512.  A block is rounded up to
 * whole huge pages only if that adds at most an eighth; else its last
 * part short of a huge page stays on small pages (rounding every block
 * up made peak RSS vary from 407 to 458 MB below; none rounded, 408-409
 * MB but 71-72k faults, 88k in id order).  Only when asked
 * (odb_buf_huge_pages), where malloc maps every big block apart: a block
 * carved from malloc's heap (grep raises the mmap threshold to 32 MiB)
 * leaves its pages huge once freed, and the heap grew: grep --cached on
 * the kernel corpus, peak RSS 371-375 MB before, 498-581 MB with huge
 * pages always, system time 0.4 s -> 1.2-1.4 s.
 *
 * Same command, faults and peak RSS (pool cap / huge pages from): none
 * (before) 158k, 400 MB; pool 32 MiB alone 122k; huge pages alone 60k;
 * 32 MiB / 1 MiB 56-58k, 423-437 MB; 16 MiB / 1 MiB 54-56k, 414-440 MB;
 * 64 MiB / 1 MiB 57k, 456 MB; 32 MiB / 2 MiB 59k; 32 MiB / 4 MiB 65k;
 * 8 MiB / 1 MiB 53k, 408 MB (git 456 MB).  The same without --unordered
 * (id order): 400k faults before, 45-60k after, peak RSS 459-465 MB before,
 * 474-482 MB with 16 MiB kept, 473 MB with 8 MiB (git 478 MB): so 8 MiB.
 * As built (8 MiB, huge pages rounded by at most an eighth), 3 runs
 * interleaved with the binary before, load average 5-7: --unordered
 * user+sys 10.9 s against 14.6 s, faults 64-68k against 154-158k, peak
 * RSS 408-412 MB against 400; id order (2 runs) 20.6 s against 30.1 s,
 * faults 78-80k against 396-403k, 466-467 MB against 462-464.  Most of
 * the faults left are the arenas of malloc's heap growing (small objects,
 * delta-base cache entries) and the pack mapping.
 *
 * Blocks are plain malloc memory (posix_memalign for the huge ones), so a
 * buffer that leaves the odb as a caller's own read result is released
 * with free() like any other.  One mutex guards the pool: it is taken only
 * for big blocks (about 1,500 times in the command above).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "odb/bufpool.h"

#define POOL_MIN ((size_t)128 << 10)	/* below: malloc's heap recycles well */
#define POOL_CAP ODB_BUF_POOL_CAP
#define POOL_KEEP_MAX (POOL_CAP / 4)	/* a bigger block would crowd out the rest */
#define POOL_SLOTS (POOL_CAP / POOL_MIN)
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)1 << 20)

struct block {
	void *p;
	size_t cap;		/* malloc_usable_size */
};

static atomic_int use_huge;

static struct {
	pthread_mutex_t lock;
	size_t n, bytes;
	struct block blk[POOL_SLOTS];	/* oldest first */
} pool = { PTHREAD_MUTEX_INITIALIZER, 0, 0, { { NULL, 0 } } };

/* The size of a fresh block for `size` bytes (>= POOL_MIN); 0 on overflow. */
static size_t block_size(size_t size)
{
	size_t step = 4096;

	if (size > SIZE_MAX / 2)
		return 0;
	while (step <= size / 16)
		step *= 2;
	return (size + step - 1) & ~(step - 1);
}

/* Take blk[i] out of the pool; pool locked. */
static void *take(size_t i)
{
	void *p = pool.blk[i].p;

	pool.bytes -= pool.blk[i].cap;
	memmove(&pool.blk[i], &pool.blk[i + 1], (pool.n - i - 1) * sizeof(pool.blk[0]));
	pool.n--;
	return p;
}

void *odb_buf_alloc(size_t size)
{
	size_t want, i, best = SIZE_MAX;
	void *p = NULL;

	if (size < POOL_MIN)
		return malloc(size ? size : 1);
	if (!(want = block_size(size)))
		return NULL;
	pthread_mutex_lock(&pool.lock);
	for (i = 0; i < pool.n; i++)
		if (pool.blk[i].cap >= size && pool.blk[i].cap <= want + want / 2 &&
		    (best == SIZE_MAX || pool.blk[i].cap < pool.blk[best].cap))
			best = i;
	if (best != SIZE_MAX)
		p = take(best);
	pthread_mutex_unlock(&pool.lock);
	if (p)
		return p;
	if (want >= HUGE_MIN && atomic_load_explicit(&use_huge, memory_order_relaxed)) {
		size_t up = (want + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		if (up - want <= want / 8)
			want = up;	/* the last huge page is mostly used */
		if (want >= HUGE_PAGE) {
			if (posix_memalign(&p, HUGE_PAGE, want))
				return NULL;
			madvise(p, want & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
			return p;
		}
	}
	return malloc(want);
}

void odb_buf_free(void *p, size_t size)
{
	void *victim[POOL_SLOTS];
	size_t cap, nv = 0, i;

	if (!p)
		return;
	if (size < POOL_MIN / 2) {	/* no malloc_usable_size for most objects */
		free(p);
		return;
	}
	cap = malloc_usable_size(p);
	if (cap < POOL_MIN || cap > POOL_KEEP_MAX) {
		free(p);
		return;
	}
	pthread_mutex_lock(&pool.lock);
	while (pool.n && (pool.n == POOL_SLOTS || pool.bytes + cap > POOL_CAP))
		victim[nv++] = take(0);
	pool.blk[pool.n].p = p;
	pool.blk[pool.n++].cap = cap;
	pool.bytes += cap;
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < nv; i++)		/* munmap outside the lock */
		free(victim[i]);
}

void odb_buf_huge_pages(int on)
{
	atomic_store_explicit(&use_huge, on, memory_order_relaxed);
}

void odb_buf_trim(void)
{
	void *victim[POOL_SLOTS];
	size_t nv = 0, i;

	pthread_mutex_lock(&pool.lock);
	while (pool.n)
		victim[nv++] = take(0);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < nv; i++)
		free(victim[i]);
}

size_t odb_buf_kept(void)
{
	size_t n;

	pthread_mutex_lock(&pool.lock);
	n = pool.bytes;
	pthread_mutex_unlock(&pool.lock);
	return n;
}
