/*
 * --strict for index-pack and unpack-objects: fsck's rules on each object
 * and the links between objects.  Links are gathered from any number of
 * threads into one array (sorted and deduplicated whenever it doubles, so
 * it holds about one entry per distinct linked object), then matched
 * against the pack's sorted names and, for what remains, the repository.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "pack_internal.h"

struct fgit_pack_checker {
	int algo;
	void (*warn)(const char *msg, void *payload);
	void *payload;
	pthread_mutex_t lock;
	struct fgit_oid *links;
	size_t nr, alloc, nr_sorted;
};

int fgit_pack_checker_new(struct fgit_pack_checker **out, int algo,
			  void (*warn)(const char *msg, void *payload), void *payload)
{
	struct fgit_pack_checker *c = calloc(1, sizeof(*c));

	if (!c)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	c->algo = algo ? algo : FGIT_HASH_SHA1;
	c->warn = warn;
	c->payload = payload;
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return 0;
}

void fgit_pack_checker_free(struct fgit_pack_checker *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->links);
	free(c);
}

static int cmp_oid(const void *a, const void *b)
{
	return fgit_oid_cmp(a, b);
}

/* Sort and drop duplicates; the caller holds the lock. */
static void compact(struct fgit_pack_checker *c)
{
	size_t i, n = 0;

	qsort(c->links, c->nr, sizeof(*c->links), cmp_oid);
	for (i = 0; i < c->nr; i++)
		if (!n || !fgit_oid_equal(&c->links[n - 1], &c->links[i]))
			c->links[n++] = c->links[i];
	c->nr = c->nr_sorted = n;
}

struct gather {
	struct fgit_oid *v;
	size_t nr, alloc;
};

static int gather_link(const struct fgit_oid *oid, enum fgit_object_type type, void *payload)
{
	struct gather *g = payload;

	(void)type;
	if (g->nr == g->alloc) {
		size_t na = g->alloc ? 2 * g->alloc : 64;
		struct fgit_oid *nv = realloc(g->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		g->v = nv;
		g->alloc = na;
	}
	g->v[g->nr++] = *oid;
	return 0;
}

/*
 * fsck's rules as --strict applies them (index-pack and unpack-objects):
 * fsck's warnings are errors, set as "object <id>: <msgId>: <message>";
 * its infos go to warn (may be NULL) in the same words.
 */
int pack_fsck_object(const struct fgit_oid *oid, enum fgit_object_type type, const void *data,
		     size_t size, int algo, void (*warn)(const char *msg, void *payload),
		     void *payload)
{
	char hex[FGIT_MAX_HEXSZ + 1], msg[600];

	fgit_oid_to_hex(hex, oid);
	if (fgit_object_check(type, data, size, algo, FGIT_CHECK_STRICT | FGIT_CHECK_NO_INFO) < 0) {
		snprintf(msg, sizeof(msg), "%s", fgit_error_last());
		return fgit_error_set(FGIT_EINVALID, "object %s: %s", hex, msg);
	}
	if (fgit_object_check(type, data, size, algo, FGIT_CHECK_STRICT) < 0 && warn) {
		snprintf(msg, sizeof(msg), "object %s: %s", hex, fgit_error_last());
		warn(msg, payload);
	}
	return 0;
}

int fgit_pack_checker_object(struct fgit_pack_checker *c, const struct fgit_oid *oid,
			     enum fgit_object_type type, const void *data, size_t size)
{
	struct gather g = { NULL, 0, 0 };
	int r;

	if (pack_fsck_object(oid, type, data, size, c->algo, c->warn, c->payload))
		return FGIT_EINVALID;
	r = fgit_object_foreach_link(type, data, size, c->algo, gather_link, &g);
	if (r < 0) {
		free(g.v);
		return r;
	}
	if (!g.nr)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (c->nr + g.nr > c->alloc) {
		size_t na = c->alloc ? c->alloc : 1024;
		struct fgit_oid *nv;
		while (na < c->nr + g.nr)
			na *= 2;
		nv = realloc(c->links, na * sizeof(*nv));
		if (!nv) {
			pthread_mutex_unlock(&c->lock);
			free(g.v);
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		c->links = nv;
		c->alloc = na;
	}
	memcpy(c->links + c->nr, g.v, g.nr * sizeof(*g.v));
	c->nr += g.nr;
	if (c->nr > 2 * c->nr_sorted + 4096)
		compact(c);
	pthread_mutex_unlock(&c->lock);
	free(g.v);
	return 0;
}

int fgit_pack_checker_missing(struct fgit_oid *out, struct fgit_pack_checker *c,
			      const struct fgit_indexer *ix, struct fgit_odb *odb)
{
	struct fgit_oid *have = NULL;
	uint32_t nr_have = 0, i;
	size_t k, h = 0;
	int found = 0;

	compact(c);
	if (ix && (nr_have = fgit_indexer_count(ix))) {
		struct fgit_pack_entry_info e;
		have = malloc((size_t)nr_have * sizeof(*have));
		if (!have)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		for (i = 0; i < nr_have; i++) {
			fgit_indexer_entry(&e, ix, i);
			have[i] = e.oid;
		}
		qsort(have, nr_have, sizeof(*have), cmp_oid);
	}
	for (k = 0; k < c->nr && !found; k++) {
		const struct fgit_oid *want = &c->links[k];
		while (h < nr_have && fgit_oid_cmp(&have[h], want) < 0)
			h++;
		if (h < nr_have && fgit_oid_equal(&have[h], want))
			continue;
		if (odb && fgit_odb_exists(odb, want) == 1)
			continue;
		*out = *want;
		found = 1;
	}
	free(have);
	return found;
}
