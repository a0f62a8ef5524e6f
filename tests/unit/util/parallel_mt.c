#include <stdatomic.h>
#include "unit.h"
#include "fgit/thread.h"

static _Atomic unsigned long long sum;
static unsigned char seen[100000];

static int add_range(size_t b, size_t e, int worker, void *payload)
{
	unsigned long long s = 0;
	for (; b < e; b++) {
		seen[b]++;
		s += b;
	}
	atomic_fetch_add(&sum, s);
	return 0;
}

TEST(parallel, covers_each_item_once)
{
	int t;
	size_t i;
	for (t = 1; t <= 4; t++) {
		memset(seen, 0, sizeof(seen));
		atomic_store(&sum, 0);
		CHECK(fgit_parallel_for(100000, 0, t, add_range, NULL) == 0);
		CHECK(atomic_load(&sum) == 100000ull * 99999ull / 2);
		for (i = 0; i < 100000; i++)
			CHECK(seen[i] == 1);
	}
}

static int fail_at(size_t b, size_t e, int worker, void *payload)
{
	return b <= 500 && 500 < e ? 7 : 0;
}

TEST(parallel, error_stops)
{
	CHECK(fgit_parallel_for(1000, 10, 3, fail_at, NULL) == 7);
	CHECK(fgit_parallel_for(1000, 10, 1, fail_at, NULL) == 7);
}
