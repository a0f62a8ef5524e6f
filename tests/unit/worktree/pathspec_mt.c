/*
 * A compiled pathspec is immutable: several threads match with it at once
 * (run under `make tsan`).  Each thread must get the single-threaded
 * answers.
 */
#include <pthread.h>
#include "unit.h"
#include "fgit/pathspec.h"

#define NPATHS 20000
#define NTHREADS 4

static char *paths[NPATHS];
static unsigned char want[NPATHS];
static struct fgit_pathspec *ps;

static void *worker(void *arg)
{
	size_t i, bad = 0;
	int round;
	for (round = 0; round < 3; round++)
		for (i = 0; i < NPATHS; i++) {
			unsigned char seen[8] = { 0 };
			if (fgit_pathspec_match(ps, paths[i], strlen(paths[i]), 0,
						(i & 1) ? seen : NULL) != want[i])
				bad++;
			fgit_pathspec_could_match_under(ps, paths[i],
							strlen(paths[i]));
		}
	*(size_t *)arg = bad;
	return NULL;
}

TEST(pathspec_mt, shared_matching)
{
	const char *args[] = { "d1", "d2/f3", "*.c", ":(glob)d3/**/x*",
			       ":!d1/f7", ":(icase)D4" };
	pthread_t th[NTHREADS];
	size_t bad[NTHREADS], i;
	CHECK(fgit_pathspec_new(&ps, "", args, 6, 0, NULL) == 0);
	for (i = 0; i < NPATHS; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "d%zu/%s%zu%s", i % 7,
			 (i % 3) ? "f" : "x", i % 11, (i % 5) ? "" : ".c");
		paths[i] = strdup(buf);
		want[i] = (unsigned char)fgit_pathspec_match(ps, paths[i],
							    strlen(paths[i]), 0,
							    NULL);
	}
	for (i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&th[i], NULL, worker, &bad[i]) == 0);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		CHECK(bad[i] == 0);
	}
	fgit_pathspec_free(ps);
	for (i = 0; i < NPATHS; i++)
		free(paths[i]);
}
