/* lib/index internals: the layout of struct fgit_index and helpers. */
#ifndef FGIT_INDEX_INTERNAL_H
#define FGIT_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "fgit/ewah.h"
#include "fgit/index.h"

/* entry->internal bits */
#define ENTRY_IN_ARENA	0x1	/* memory belongs to an arena, not malloc */
#define ENTRY_ONDISK_EXT 0x2	/* had the extended bit on disk */
#define ENTRY_FROM_BASE	0x4	/* replaced in the shared index (split index) */

/* Bump allocator for entries loaded from a file: one free for all. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char *data;
	int mapped;
};
struct arena {
	struct arena_chunk *head;
};
void *arena_alloc(struct arena *a, size_t n);
/* Make sure the next n bytes come from one chunk (a guess; 0 or -1). */
int arena_reserve(struct arena *a, size_t n);
void arena_release(struct arena *a);
/* Move all chunks of src to the front of dst. */
/* Unmap what the mapped chunks reserved past their use (no more
 * allocations are expected from them; they would get a new chunk). */
void arena_trim(struct arena *a);
void arena_merge(struct arena *dst, struct arena *src);

/* A cache-tree node; children sorted by (name length, name), as git. */
struct ct_node {
	int entry_count;		/* -1: invalid */
	struct fgit_oid oid;		/* valid when entry_count >= 0 */
	struct ct_node **down;
	size_t nr, alloc;
	size_t namelen;
	char name[];
};

struct reuc_list {
	struct fgit_index_reuc **items;	/* sorted by path (strcmp) */
	size_t nr, alloc;
	int present;			/* write REUC, even empty (as git) */
};

struct fgit_index {
	int algo;
	unsigned int version;
	struct fgit_index_entry **entries;
	size_t nr, alloc;
	struct arena arena;
	size_t heap_entries;		/* entries added, malloc'd one by one */

	int have_file;
	uint32_t mtime_sec, mtime_nsec;
	unsigned char checksum[FGIT_MAX_RAWSZ];

	struct ct_node *tree;		/* NULL: no cache tree */
	struct reuc_list reuc;
	struct fgit_untr *untr;		/* untracked cache, NULL if none */
	int was_split;
	unsigned int load_threads;
	int unsorted;			/* fgit_index_append() since the last sort */
	int changed;			/* modified since loaded or written */
	int has_base;			/* split: base_oid names our shared index */
	unsigned char base_oid[FGIT_MAX_RAWSZ];
	char (*ignored)[5];		/* unknown optional extensions dropped */
	size_t ignored_nr;
};

/* lib/index/tree.c */
void ct_free(struct ct_node *n);
/* Parse a TREE payload; NULL (no error) when it is malformed, as git. */
struct ct_node *ct_read(const unsigned char *p, size_t len, int algo);
/* Append the TREE payload; FGIT_ENOMEM. */
struct fgit_buf;
int ct_write(struct fgit_buf *out, const struct ct_node *root, int algo);
void ct_invalidate(struct ct_node *root, const char *path);
/* A subdirectory name, not NUL-terminated. */
struct ct_name {
	const char *name;
	size_t len;
};
/*
 * Drop the children of directory dir's node ("" for the root) not named in
 * keep[0..n), as git's cache_tree_update discards the subtrees of a
 * rebuilt directory that it did not meet (directories gone from the
 * index).  FGIT_ENOMEM.
 */
int ct_prune(struct fgit_index *idx, const char *dir, const struct ct_name *keep, size_t n);

/* lib/index/reuc.c */
int reuc_read(struct reuc_list *l, const unsigned char *p, size_t len, int algo);
int reuc_write(struct fgit_buf *out, const struct reuc_list *l, int algo);
int reuc_record(struct reuc_list *l, const struct fgit_index_entry *e);
void reuc_release(struct reuc_list *l);

/* lib/index/untr.c: would git accept this UNTR payload? */
int untr_valid(const unsigned char *data, size_t sz, int algo);
/* Parse a valid payload (FGIT_ENOTFOUND when git would drop it). */
int untr_parse(struct fgit_untr **out, const unsigned char *data, size_t sz, int algo);
int untr_new(struct fgit_untr **out, const char *ident, uint32_t dir_flags, int algo);

/* lib/index/index.c */
int index_entry_cmp(const char *p1, size_t l1, unsigned s1,
		    const char *p2, size_t l2, unsigned s2);
void index_entry_release(struct fgit_index_entry *e);

/* Big-endian helpers. */
static inline uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint16_t get_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}
static inline void put_be16(unsigned char *p, uint16_t v)
{
	p[0] = v >> 8; p[1] = v;
}

#endif
