/*
 * Hashing from several threads at once (run under ThreadSanitizer by
 * `make tsan`): the implementation is chosen once, counters are atomic, the
 * two-thread pipeline of a big update shares nothing with other callers.
 */
#include "unit.h"
#include <pthread.h>
#include <openssl/sha.h>
#include "fgit/hash.h"
#include "fgit/common.h"

#define BIG (5u << 20)
static unsigned char *data;
static unsigned char want_small[20], want_big[20];

static void *worker(void *arg)
{
	long id = (long)arg, i;
	struct fgit_hash_ctx c;
	struct fgit_oid oid;

	for (i = 0; i < 4; i++) {
		size_t n = (id + i) % 2 ? BIG : 4096;
		fgit_objname_init(&c, FGIT_HASH_SHA1);
		fgit_objname_update(&c, data, n);
		if (fgit_objname_final(&oid, &c) ||
		    memcmp(oid.hash, n == BIG ? want_big : want_small, 20))
			return (void *)1;
	}
	return NULL;
}

TEST(sha1dc_mt, concurrent_hashing)
{
	pthread_t t[4];
	void *ret;
	long i;
	int bad = 0;

	data = malloc(BIG);
	CHECK(data);
	for (i = 0; i < (long)BIG; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	SHA1(data, 4096, want_small);
	SHA1(data, BIG, want_big);
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &ret);
		bad |= ret != NULL;
	}
	free(data);
	CHECK(!bad);
}
