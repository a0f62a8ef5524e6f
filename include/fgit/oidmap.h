/*
 * A hash set of entries keyed by object id.  Entries are caller-owned
 * structs whose FIRST member is a struct fgit_oid; the map stores pointers.
 * Object ids are already uniformly distributed, so the hash is simply their
 * leading bytes.  Open addressing with linear probing, load <= 1/2.
 * Not synchronised: one writer, or many readers.
 */
#ifndef FGIT_OIDMAP_H
#define FGIT_OIDMAP_H

#include <stddef.h>
#include "oid.h"

struct fgit_oidmap {
	void **slots;
	size_t cap;	/* power of two, or 0 */
	size_t count;
};

#define FGIT_OIDMAP_INIT { NULL, 0, 0 }

/* The entry with this id, or NULL. */
void *fgit_oidmap_get(const struct fgit_oidmap *m, const struct fgit_oid *oid);
/* Insert entry (keyed by its leading oid); replaces and returns an existing
 * entry with the same id, else returns NULL.  *err set to FGIT_ENOMEM on
 * allocation failure (entry not inserted). */
void *fgit_oidmap_put(struct fgit_oidmap *m, void *entry, int *err);
/* Free the slot table (not the entries). */
void fgit_oidmap_release(struct fgit_oidmap *m);

#endif
