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
/*
 * Each shard keeps its entries on RANKS lists, each most recently used
 * first.  Entries without counted reads are all on rank 0, a plain LRU
 * list.  An entry whose reads to come are counted (FGIT_ODB_ACCESS_ALL_BY_ID)
 * is on the rank of its worth: reads to come resting on it, times its
 * chain depth + 1 (what rebuilding it costs those reads, in levels), per
 * byte, on a log2 scale.  Eviction takes the least recently used entry of
 * the lowest rank; as reads are done the worth of an entry only falls,
 * so an entry found on too high a rank is moved down first.
 *
 * cat-file --batch-all-objects --batch (id order) on the history corpus,
 * a 96 MiB cache, counters in pack_read: one LRU list 2.54M delta
 * applications (12.8 GB built) and 2.56 GB inflated; evicting the least
 * worth of the 16 least recently used 2.30M (11.6 GB), as new entries of
 * little worth stayed until they aged; the ranks 1.94M (9.7 GB), with
 * 2.9 GB inflated.  Worth per byte (reads times depth over size) cut the
 * count to 1.59M but built 10.4 GB: what a rebuild costs grows with the
 * bytes, so size cancels out of the worth.  Weighting chain bases more
 * (inflating a byte costs ~12 times applying one) inflated less but built
 * more: wall time the same.
 */
#define RANKS 48

struct rank_list {
	struct odb_cache_entry *head, *tail;	/* head: most recently used */
};

struct shard {
	pthread_mutex_t lock;
	struct odb_cache_entry *bucket[BUCKETS];
	struct rank_list rank[RANKS];
	int low;				/* no entries on ranks below */
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

/* 0 without counted reads, else 1 + log2 of the worth scaled by 2^20
 * (capped): a dead entry (no reads to come) on rank 1. */
static int rank_of(const struct odb_cache_entry *e)
{
	uint64_t n, w;
	int r;

	if (!e->pending)
		return 0;
	n = atomic_load_explicit(e->pending, memory_order_relaxed);
	w = n * (uint64_t)(e->depth + 10);
	r = 2 + (w ? 63 - __builtin_clzll(w) : -1);
	return r < RANKS ? r : RANKS - 1;
}

static void list_unlink(struct shard *s, struct odb_cache_entry *e)
{
	struct rank_list *l = &s->rank[e->rank];
	if (e->lprev)
		e->lprev->lnext = e->lnext;
	else
		l->head = e->lnext;
	if (e->lnext)
		e->lnext->lprev = e->lprev;
	else
		l->tail = e->lprev;
}

static void list_push(struct shard *s, struct odb_cache_entry *e, int rank)
{
	struct rank_list *l = &s->rank[rank];
	e->rank = rank;
	e->lprev = NULL;
	e->lnext = l->head;
	if (l->head)
		l->head->lprev = e;
	l->head = e;
	if (!l->tail)
		l->tail = e;
	if (rank < s->low)
		s->low = rank;
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

/* The entry of (p, off) in hash bucket b of shard s (locked), or NULL. */
static struct odb_cache_entry *find(const struct shard *s, unsigned b, const struct pack *p,
				    uint64_t off)
{
	struct odb_cache_entry *e;
	for (e = s->bucket[b]; e; e = e->hnext)
		if (e->pack == p && e->off == off)
			break;
	return e;
}

static void unlink_entry(struct shard *s, struct odb_cache_entry *e, unsigned b)
{
	struct odb_cache_entry **pp = &s->bucket[b];
	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	list_unlink(s, e);
	s->bytes -= e->size;
}

/* Unhook every entry of shard s (locked) into one list through lnext. */
static struct odb_cache_entry *take_all(struct shard *s)
{
	struct odb_cache_entry *all = NULL, *e, *n;
	int r;
	for (r = 0; r < RANKS; r++) {
		for (e = s->rank[r].head; e; e = n) {
			n = e->lnext;
			e->lnext = all;
			all = e;
		}
		s->rank[r].head = s->rank[r].tail = NULL;
	}
	memset(s->bucket, 0, sizeof(s->bucket));
	s->low = 0;
	return all;
}

void odb_cache_clear(struct odb_cache *c)
{
	int i;
	for (i = 0; i < SHARDS; i++) {
		struct shard *s = &c->shard[i];
		struct odb_cache_entry *e, *n;
		pthread_mutex_lock(&s->lock);
		e = take_all(s);
		atomic_fetch_sub(&c->bytes, s->bytes);
		s->bytes = 0;
		pthread_mutex_unlock(&s->lock);
		for (; e; e = n) {
			n = e->lnext;
			odb_cache_put(e);
		}
	}
}

/* The entry to evict from shard s (locked), not keep: the least recently
 * used of the lowest rank, after moving down any whose worth fell. */
static struct odb_cache_entry *victim_of(struct shard *s, const struct odb_cache_entry *keep)
{
	int r;

	for (r = s->low; r < RANKS; r++) {
		struct odb_cache_entry *e = s->rank[r].tail;
		while (e) {
			int now = e == keep ? r : rank_of(e);
			if (now >= r) {
				if (e != keep)
					return e;
				e = e->lprev;
				continue;
			}
			list_unlink(s, e);
			list_push(s, e, now);
			r = now;
			e = s->rank[r].tail;
		}
		if (!s->rank[r].head)
			s->low = r + 1;
	}
	s->low = 0;
	return NULL;
}

/* Drop shard s's entries (not keep) while all shards together hold more
 * than the limit, lowest rank and least recently used first; s locked. */
static void evict(struct odb_cache *c, struct shard *s, const struct odb_cache_entry *keep)
{
	struct odb_cache_entry *victim;

	while (atomic_load(&c->bytes) > c->limit && (victim = victim_of(s, keep))) {
		unlink_entry(s, victim, (hash_key(victim->pack, victim->off) / SHARDS) % BUCKETS);
		atomic_fetch_sub(&c->bytes, victim->size);
		odb_cache_put(victim);
	}
}

void odb_cache_drop(struct odb_cache *c, struct pack *p, uint64_t off)
{
	unsigned h = hash_key(p, off), b = (h / SHARDS) % BUCKETS;
	struct shard *s = &c->shard[h % SHARDS];
	struct odb_cache_entry *e;

	pthread_mutex_lock(&s->lock);
	if ((e = find(s, b, p, off))) {
		unlink_entry(s, e, b);
		atomic_fetch_sub(&c->bytes, e->size);
	}
	pthread_mutex_unlock(&s->lock);
	odb_cache_put(e);
}

void odb_cache_free(struct odb_cache *c)
{
	int i;
	if (!c)
		return;
	for (i = 0; i < SHARDS; i++) {
		struct odb_cache_entry *e = take_all(&c->shard[i]), *n;
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
	if ((e = find(s, (h / SHARDS) % BUCKETS, p, off))) {
		atomic_fetch_add(&e->refs, 1);
		if (e->lprev) {	/* to the front of its list */
			list_unlink(s, e);
			list_push(s, e, e->rank);
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
				      size_t size, int depth, const _Atomic uint32_t *pending)
{
	unsigned h = hash_key(p, off), b = (h / SHARDS) % BUCKETS;
	struct shard *s = &c->shard[h % SHARDS];
	struct odb_cache_entry *e = odb_cache_wrap(type, data, size);
	unsigned i;

	if (!e)
		return NULL;
	e->pack = p;
	e->off = off;
	e->depth = depth;
	e->pending = pending;
	if (!odb_cache_keeps(c, size))
		return e;		/* too big to keep: the caller's only */
	atomic_fetch_add(&e->refs, 1);
	pthread_mutex_lock(&s->lock);
	if (find(s, b, p, off)) {	/* another thread was first */
		pthread_mutex_unlock(&s->lock);
		atomic_fetch_sub(&e->refs, 1);
		return e;
	}
	e->hnext = s->bucket[b];
	s->bucket[b] = e;
	list_push(s, e, rank_of(e));
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
