/* fgit_ordered_run: every item emitted once, in order, whatever the threads. */
#include "unit.h"
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
