/* Open-addressing oid set (see include/fgit/oidmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/oidmap.h"

static inline size_t oid_hash(const struct fgit_oid *o)
{
	uint64_t h;
	memcpy(&h, o->hash, sizeof(h));
	return (size_t)h;
}

void *fgit_oidmap_get(const struct fgit_oidmap *m, const struct fgit_oid *oid)
{
	size_t mask, i;
	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = oid_hash(oid) & mask;; i = (i + 1) & mask) {
		struct fgit_oid *e = m->slots[i];
		if (!e)
			return NULL;
		if (!memcmp(e->hash, oid->hash, FGIT_MAX_RAWSZ))
			return e;
	}
}

static void insert_slot(void **slots, size_t mask, void *entry)
{
	size_t i = oid_hash(entry) & mask;
	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = entry;
}

static int grow(struct fgit_oidmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	void **ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return fgit_error_set(FGIT_ENOMEM, "out of memory growing an oid map");
	for (i = 0; i < m->cap; i++)
		if (m->slots[i])
			insert_slot(ns, ncap - 1, m->slots[i]);
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

void *fgit_oidmap_put(struct fgit_oidmap *m, void *entry, int *err)
{
	size_t mask, i;

	if (err)
		*err = 0;
	if ((m->count + 1) * 2 > m->cap && grow(m)) {
		if (err)
			*err = FGIT_ENOMEM;
		return NULL;
	}
	mask = m->cap - 1;
	for (i = oid_hash(entry) & mask;; i = (i + 1) & mask) {
		struct fgit_oid *e = m->slots[i];
		if (!e) {
			m->slots[i] = entry;
			m->count++;
			return NULL;
		}
		if (!memcmp(e->hash, ((struct fgit_oid *)entry)->hash, FGIT_MAX_RAWSZ)) {
			m->slots[i] = entry;
			return e;
		}
	}
}

void fgit_oidmap_release(struct fgit_oidmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
