/*
 * The delta-base cache: inflated bases keyed by (pack, offset), so a delta
 * chain shared by many objects is resolved once.  It is split into shards,
 * each with its own lock, hash chains and LRU list, so threads reading
 * different objects rarely meet on a lock.  Entries are reference counted:
 * a reader keeps using a base after another thread evicted it.
 *
 * The limit is on all shards together (an atomic byte count), not a
 * sixteenth per shard: with per-shard limits of 6 MiB the kernel's 8 bases
 * over 6 MiB (91 MB together) were never kept and were inflated again for
 * every delta on them.  An entry over half the limit is not kept.
 */
#include <stdlib.h>
#include <string.h>
#include "odb/bufpool.h"
#include "odb/odb_internal.h"

#define SHARDS 16
#define BUCKETS 4096

struct shard {
	pthread_mutex_t lock;
	struct odb_cache_entry *bucket[BUCKETS];
	struct odb_cache_entry *head, *tail;	/* head: most recently used */
	size_t bytes;
};

struct odb_cache {
	size_t limit;
	atomic_size_t bytes;		/* in all shards */
	struct shard shard[SHARDS];
};

static unsigned hash_key(const struct pack *p, uint64_t off)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull ^ off * 0xff51afd7ed558ccdull;
	return (unsigned)(h >> 32);
}

struct odb_cache *odb_cache_new(size_t limit)
{
	struct odb_cache *c = calloc(1, sizeof(*c));
	int i;
	if (!c)
		return NULL;
	c->limit = limit;
	for (i = 0; i < SHARDS; i++)
		pthread_mutex_init(&c->shard[i].lock, NULL);
	return c;
}

void odb_cache_set_limit(struct odb_cache *c, size_t limit)
{
	c->limit = limit;	/* entries over it go as the cache is added to */
}

int odb_cache_keeps(const struct odb_cache *c, size_t size)
{
	return size <= c->limit / 2;
}

void odb_cache_put(struct odb_cache_entry *e)
{
	if (e && atomic_fetch_sub(&e->refs, 1) == 1) {
		odb_buf_free(e->data, e->size);
		free(e);
	}
}

static void unlink_entry(struct shard *s, struct odb_cache_entry *e, unsigned b)
{
	struct odb_cache_entry **pp = &s->bucket[b];
	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		s->head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		s->tail = e->lprev;
	s->bytes -= e->size;
}

void odb_cache_clear(struct odb_cache *c)
{
	int i;
	for (i = 0; i < SHARDS; i++) {
		struct shard *s = &c->shard[i];
		struct odb_cache_entry *e, *n;
		pthread_mutex_lock(&s->lock);
		e = s->head;
		memset(s->bucket, 0, sizeof(s->bucket));
		s->head = s->tail = NULL;
		atomic_fetch_sub(&c->bytes, s->bytes);
		s->bytes = 0;
		pthread_mutex_unlock(&s->lock);
		for (; e; e = n) {
			n = e->lnext;
			odb_cache_put(e);
		}
	}
}

/* Drop shard s's least recently used entries (not keep) while all shards
 * together hold more than the limit; s locked. */
static void evict(struct odb_cache *c, struct shard *s, const struct odb_cache_entry *keep)
{
	while (s->tail && s->tail != keep && atomic_load(&c->bytes) > c->limit) {
		struct odb_cache_entry *victim = s->tail;
		unlink_entry(s, victim, (hash_key(victim->pack, victim->off) / SHARDS) % BUCKETS);
		atomic_fetch_sub(&c->bytes, victim->size);
		odb_cache_put(victim);
	}
}

void odb_cache_free(struct odb_cache *c)
{
	int i;
	if (!c)
		return;
	for (i = 0; i < SHARDS; i++) {
		struct odb_cache_entry *e = c->shard[i].head, *n;
		for (; e; e = n) {
			n = e->lnext;
			odb_cache_put(e);
		}
		pthread_mutex_destroy(&c->shard[i].lock);
	}
	free(c);
}

struct odb_cache_entry *odb_cache_get(struct odb_cache *c, struct pack *p, uint64_t off)
{
	unsigned h = hash_key(p, off);
	struct shard *s = &c->shard[h % SHARDS];
	struct odb_cache_entry *e;

	pthread_mutex_lock(&s->lock);
	for (e = s->bucket[(h / SHARDS) % BUCKETS]; e; e = e->hnext)
		if (e->pack == p && e->off == off)
			break;
	if (e) {
		atomic_fetch_add(&e->refs, 1);
		if (e != s->head) {	/* move to front */
			e->lprev->lnext = e->lnext;
			if (e->lnext)
				e->lnext->lprev = e->lprev;
			else
				s->tail = e->lprev;
			e->lprev = NULL;
			e->lnext = s->head;
			s->head->lprev = e;
			s->head = e;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return e;
}

struct odb_cache_entry *odb_cache_wrap(enum fgit_object_type type, unsigned char *data,
				       size_t size)
{
	struct odb_cache_entry *e = calloc(1, sizeof(*e));

	if (!e) {
		odb_buf_free(data, size);
		return NULL;
	}
	e->type = type;
	e->data = data;
	e->size = size;
	atomic_init(&e->refs, 1);
	return e;
}

struct odb_cache_entry *odb_cache_add(struct odb_cache *c, struct pack *p, uint64_t off,
				      enum fgit_object_type type, unsigned char *data,
				      size_t size, int depth)
{
	unsigned h = hash_key(p, off), b = (h / SHARDS) % BUCKETS;
	struct shard *s = &c->shard[h % SHARDS];
	struct odb_cache_entry *e = odb_cache_wrap(type, data, size), *old;
	unsigned i;

	if (!e)
		return NULL;
	e->pack = p;
	e->off = off;
	e->depth = depth;
	if (!odb_cache_keeps(c, size))
		return e;		/* too big to keep: the caller's only */
	atomic_fetch_add(&e->refs, 1);
	pthread_mutex_lock(&s->lock);
	for (old = s->bucket[b]; old; old = old->hnext)
		if (old->pack == p && old->off == off)
			break;
	if (old) {			/* another thread was first */
		pthread_mutex_unlock(&s->lock);
		atomic_fetch_sub(&e->refs, 1);
		return e;
	}
	e->hnext = s->bucket[b];
	s->bucket[b] = e;
	e->lnext = s->head;
	if (s->head)
		s->head->lprev = e;
	s->head = e;
	if (!s->tail)
		s->tail = e;
	s->bytes += size;
	atomic_fetch_add(&c->bytes, size);
	evict(c, s, e);
	pthread_mutex_unlock(&s->lock);
	/* still over: the others give way, one shard locked at a time */
	for (i = 1; i < SHARDS && atomic_load(&c->bytes) > c->limit; i++) {
		struct shard *t = &c->shard[(h + i) % SHARDS];
		pthread_mutex_lock(&t->lock);
		evict(c, t, NULL);
		pthread_mutex_unlock(&t->lock);
	}
	return e;
}
