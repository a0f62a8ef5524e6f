/*
 * Per-thread inflaters.  Allocating a libdeflate decompressor or a zlib
 * stream per object would cost more than inflating a small object, and
 * sharing one would need a lock; so each thread keeps its own, freed by a
 * pthread key destructor when the thread exits.
 */
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "odb/odb_internal.h"

struct tls_inflaters {
	struct libdeflate_decompressor *ld;
	z_stream zs;
	int zs_ready;
	unsigned char *scratch[ODB_SCRATCH_BUFS];
	size_t scratch_cap[ODB_SCRATCH_BUFS];
};

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void destroy(void *v)
{
	struct tls_inflaters *t = v;
	if (t->ld)
		libdeflate_free_decompressor(t->ld);
	if (t->zs_ready)
		inflateEnd(&t->zs);
	for (int i = 0; i < ODB_SCRATCH_BUFS; i++)
		free(t->scratch[i]);
	free(t);
}

static void make_key(void)
{
	pthread_key_create(&key, destroy);
}

static struct tls_inflaters *tls(void)
{
	struct tls_inflaters *t;
	pthread_once(&key_once, make_key);
	t = pthread_getspecific(key);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		pthread_setspecific(key, t);
	}
	return t;
}

struct libdeflate_decompressor *odb_libdeflate(void)
{
	struct tls_inflaters *t = tls();
	if (!t)
		return NULL;
	if (!t->ld)
		t->ld = libdeflate_alloc_decompressor();
	return t->ld;
}

z_stream *odb_zstream(void)
{
	struct tls_inflaters *t = tls();
	if (!t)
		return NULL;
	if (!t->zs_ready) {
		memset(&t->zs, 0, sizeof(t->zs));
		if (inflateInit(&t->zs) != Z_OK)
			return NULL;
		t->zs_ready = 1;
	} else {
		inflateReset(&t->zs);
	}
	return &t->zs;
}

unsigned char *odb_scratch(int i, size_t need)
{
	struct tls_inflaters *t = tls();
	if (!t || need > ODB_SCRATCH_MAX)
		return NULL;
	if (t->scratch_cap[i] < need) {
		size_t cap = t->scratch_cap[i] ? t->scratch_cap[i] : 4096;
		while (cap < need)
			cap *= 2;
		free(t->scratch[i]);
		t->scratch[i] = malloc(cap);
		t->scratch_cap[i] = t->scratch[i] ? cap : 0;
	}
	return t->scratch[i];
}

unsigned char *odb_into_buf(struct fgit_buf *into, uint64_t size)
{
	if (size >= SIZE_MAX - 1) {
		fgit_error_set(FGIT_ENOMEM, "object too large (%llu bytes)",
			       (unsigned long long)size);
		return NULL;
	}
	/* growing: a fresh block, not a realloc that copies the old object */
	if (into->alloc && into->alloc < (size_t)size + 1)
		fgit_buf_release(into);
	fgit_buf_reset(into);
	if (fgit_buf_grow(into, (size_t)size) < 0)
		return NULL;
	return (unsigned char *)into->ptr;
}
