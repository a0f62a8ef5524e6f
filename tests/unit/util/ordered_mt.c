/* fgit_ordered_run: every item emitted once, in order, whatever the threads. */
#include "unit.h"
#include <stdatomic.h>
#include "fgit/ordered.h"

struct slot { size_t i; unsigned long v; };
struct ctx { size_t next; int bad; unsigned long sum; };

static void work(size_t i, void *slot, void *payload)
{
	struct slot *s = slot;
	unsigned long v = i, k;
	for (k = 0; k < (i % 7) * 100; k++)	/* uneven work */
		v = v * 6364136223846793005ul + 1;
	s->i = i;
	s->v = v;
}

static int emit(size_t i, void *slot, void *payload)
{
	struct slot *s = slot;
	struct ctx *c = payload;
	if (s->i != i || c->next != i)
		c->bad = 1;
	c->next++;
	c->sum += s->v;
	return 0;
}

static int stop_at_100(size_t i, void *slot, void *payload)
{
	struct ctx *c = payload;
	c->next++;
	return i == 100 ? 42 : 0;
}

TEST(ordered_mt, in_order_for_all_thread_counts)
{
	size_t n = 20000;
	unsigned long ref = 0;
	int t;
	for (t = 1; t <= 4; t++) {
		struct ctx c = { 0, 0, 0 };
		CHECK(fgit_ordered_run(n, t, sizeof(struct slot), work, emit, &c) == 0);
		CHECK(!c.bad && c.next == n);
		if (t == 1)
			ref = c.sum;
		CHECK(c.sum == ref);
	}
}

TEST(ordered_mt, emit_can_stop)
{
	struct ctx c = { 0, 0, 0 };
	CHECK(fgit_ordered_run(5000, 3, sizeof(struct slot), work, stop_at_100, &c) == 42);
	CHECK(c.next == 101);
}

/* fgit_ordered_run_bytes: items weigh their index's share of big ones */
static _Atomic long held_now, held_peak;

static size_t work_bytes(size_t i, void *slot, void *payload)
{
	size_t w = i % 97 == 0 ? 1 << 20 : 100;
	long h;
	work(i, slot, payload);
	h = atomic_fetch_add(&held_now, (long)w) + (long)w;
	for (long p = atomic_load(&held_peak); h > p && !atomic_compare_exchange_weak(&held_peak, &p, h);)
		;
	return w;
}

static int emit_bytes(size_t i, void *slot, void *payload)
{
	atomic_fetch_sub(&held_now, i % 97 == 0 ? 1 << 20 : 100);
	return emit(i, slot, payload);
}

TEST(ordered_mt, byte_bound_in_order_and_held)
{
	size_t n = 20000;
	int t;
	for (t = 1; t <= 4; t++) {
		/* a bound of one byte: every worker is stopped after each
		 * chunk, and the emitter, asleep for half a window, must be
		 * woken all the same */
		size_t bound[] = { 1, 2 << 20, 64 << 20 };
		for (size_t b = 0; b < 3; b++) {
			struct ctx c = { 0, 0, 0 };
			atomic_store(&held_now, 0);
			atomic_store(&held_peak, 0);
			CHECK(fgit_ordered_run_bytes(n, t, 4096, bound[b], sizeof(struct slot),
						     work_bytes, emit_bytes, &c) == 0);
			CHECK(!c.bad && c.next == n);
			/* claimed chunks (16 items) still finish past the bound */
			CHECK(atomic_load(&held_peak) <= (long)bound[b] + t * 16 * (1 << 20) + 16 * 100 * t);
		}
	}
}
