/*
 * The pool of big object buffers (lib/odb/bufpool.c): reuse, its byte cap,
 * blocks from several threads at once, and a pack of big deltified objects
 * read by several threads in every way the odb lends or gives them,
 * compared with git.  Run under ThreadSanitizer by `make tsan`.
 */
#include <pthread.h>
#include <stdint.h>
#include "unit.h"
#include "helper.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/odb.h"
#include "odb/bufpool.h"

static int (*const keep_make_repo)(const char *) __attribute__((unused)) = make_repo;

TEST(bufpool, big_blocks_are_reused)
{
	unsigned char *a, *b;

	odb_buf_trim();
	CHECK((a = odb_buf_alloc(300 << 10)) != NULL);
	memset(a, 'a', 300 << 10);
	odb_buf_free(a, 300 << 10);
	CHECK(odb_buf_kept() >= (300u << 10));
	/* a little smaller fits the same block; the pool gives it back */
	CHECK((b = odb_buf_alloc(290 << 10)) == a);
	CHECK(odb_buf_kept() == 0);
	CHECK(b[0] == 'a');
	free(b);	/* a block may also leave through free() */
	/* much smaller does not take a big block */
	CHECK((a = odb_buf_alloc(3 << 20)) != NULL);
	memset(a, 'x', 3 << 20);
	odb_buf_free(a, 3 << 20);
	CHECK((b = odb_buf_alloc(200 << 10)) != a);
	odb_buf_free(b, 200 << 10);
	odb_buf_trim();
	CHECK(odb_buf_kept() == 0);
}

TEST(bufpool, small_and_huge_blocks_are_not_kept)
{
	void *p;

	odb_buf_trim();
	CHECK((p = odb_buf_alloc(1000)) != NULL);
	odb_buf_free(p, 1000);
	CHECK(odb_buf_kept() == 0);
	CHECK((p = odb_buf_alloc(ODB_BUF_POOL_CAP)) != NULL);
	odb_buf_free(p, ODB_BUF_POOL_CAP);
	CHECK(odb_buf_kept() == 0);
	/* plain malloc memory is accepted */
	CHECK((p = malloc(200 << 10)) != NULL);
	odb_buf_free(p, 200 << 10);
	CHECK(odb_buf_kept() >= (200u << 10));
	odb_buf_trim();
	CHECK(odb_buf_kept() == 0);
}

TEST(bufpool, cap_holds_and_oldest_go_first)
{
	enum { N = 64, B = 256 << 10 };
	void *p[N];
	size_t i;

	odb_buf_trim();
	for (i = 0; i < N; i++)
		CHECK((p[i] = odb_buf_alloc(B)) != NULL);
	for (i = 0; i < N; i++) {
		memset(p[i], (int)i, B);
		odb_buf_free(p[i], B);
		CHECK(odb_buf_kept() <= ODB_BUF_POOL_CAP);
	}
	CHECK(odb_buf_kept() > ODB_BUF_POOL_CAP / 2);
	/* the newest blocks were kept */
	{
		unsigned char *q = odb_buf_alloc(B);
		CHECK(q != NULL);
		CHECK(q[0] >= N - ODB_BUF_POOL_CAP / B);
		odb_buf_free(q, B);
	}
	odb_buf_trim();
}

#define NTHREADS 4

static void *churn(void *arg)
{
	uintptr_t id = (uintptr_t)arg, failures = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull * (id + 1);
	unsigned char *held[8] = { NULL };
	size_t held_size[8] = { 0 }, k;

	for (k = 0; k < 400; k++) {
		size_t slot = k % 8, size, j;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size = 1000 + (size_t)(x % (3u << 19));
		if (held[slot]) {	/* still what this thread wrote */
			for (j = 0; j < held_size[slot]; j += 4093)
				if (held[slot][j] != (unsigned char)(id * 31 + slot))
					failures++;
			if (x & 1)
				odb_buf_free(held[slot], held_size[slot]);
			else if (x & 2)
				free(held[slot]);
			else
				odb_buf_free(held[slot], 0);
		}
		if (!(held[slot] = odb_buf_alloc(size)))
			return (void *)(failures + 1000000);
		for (j = 0; j < size; j += 4093)
			held[slot][j] = (unsigned char)(id * 31 + slot);
		held_size[slot] = size;
	}
	for (k = 0; k < 8; k++)
		odb_buf_free(held[k], held_size[k]);
	return (void *)failures;
}

TEST(bufpool_mt, threads_share_the_pool)
{
	pthread_t t[NTHREADS];
	uintptr_t i, failures = 0;
	void *r;

	for (i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, churn, (void *)i) == 0);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], &r);
		failures += (uintptr_t)r;
	}
	CHECK(failures == 0);
	CHECK(odb_buf_kept() <= ODB_BUF_POOL_CAP);
	odb_buf_trim();
	CHECK(odb_buf_kept() == 0);
}

/* A history of big files: versions of ~150 KiB to ~2 MiB, deltified. */
static int make_big_repo(void)
{
	char cmd[2048];
	snprintf(test_repo, sizeof(test_repo), "/tmp/fgit-unit-bufpool-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent "
		 "GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 "rm -rf %s; git init -q %s; cd %s;"
		 "for i in $(seq 1 8); do seq 1 $((20000 + i * 3000)) > small;"
		 " seq $i $((i * 20000 + 150000)) > big; git add -A; git commit -qm c$i; done;"
		 "git repack -adq --depth=50 --window=10",
		 test_repo, test_repo, test_repo);
	return system(cmd) == 0 ? 0 : -1;
}

static struct ref_obj *ref;
static size_t nref;
static struct fgit_odb *odb;

static void *read_all(void *arg)
{
	uintptr_t id = (uintptr_t)arg, failures = 0;
	size_t k, i;

	for (k = 0; k < nref; k++) {
		i = id % 2 ? nref - 1 - k : k;
		if (id < 2) {
			struct fgit_odb_view v;
			if (fgit_odb_read_located_view(&v, odb, &ref[i].oid, -1, 0, UINT64_MAX)) {
				failures++;
				continue;
			}
			if (v.type != ref[i].type || v.size != ref[i].size ||
			    memcmp(v.data, ref[i].data, v.size) || v.data[v.size])
				failures++;
			fgit_odb_view_release(&v);
		} else {
			void *buf;
			size_t size;
			enum fgit_object_type type;
			if (fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) < 0) {
				failures++;
				continue;
			}
			if (type != ref[i].type || size != ref[i].size ||
			    memcmp(buf, ref[i].data, size))
				failures++;
			free(buf);	/* the caller's own: plain free() */
		}
	}
	return (void *)failures;
}

TEST(bufpool_mt, big_objects_read_by_threads_match_git)
{
	char path[512];
	pthread_t t[NTHREADS];
	uintptr_t i, failures = 0;
	size_t big = 0;
	void *r;

	CHECK(make_big_repo() == 0);
	CHECK(load_reference(&ref, &nref) == 0);
	for (i = 0; i < nref; i++)
		big += ref[i].size >= (1u << 20);
	CHECK(big > 0);
	snprintf(path, sizeof(path), "%s/.git/objects", test_repo);
	for (int access = 0; access < 3; access++) {
		static const enum fgit_odb_access how[] = {
			FGIT_ODB_ACCESS_NORMAL, FGIT_ODB_ACCESS_PACK_ORDER,
			FGIT_ODB_ACCESS_ONCE_EACH,
		};
		struct fgit_odb_options opts = FGIT_ODB_OPTIONS_INIT;
		opts.delta_base_cache_limit = access == 1 ? 4 << 20 : 0;
		CHECK(fgit_odb_open(&odb, path, &opts) == 0);
		fgit_odb_set_access(odb, how[access]);
		for (i = 0; i < NTHREADS; i++)
			CHECK(pthread_create(&t[i], NULL, read_all, (void *)i) == 0);
		for (i = 0; i < NTHREADS; i++) {
			pthread_join(t[i], &r);
			failures += (uintptr_t)r;
		}
		fgit_odb_free(odb);
		CHECK(odb_buf_kept() <= ODB_BUF_POOL_CAP);
	}
	free_reference(ref, nref);
	remove_repo();
	odb_buf_trim();
	CHECK(failures == 0);
}
