/*
 * Recycled blocks for big object buffers (bufpool.c).  Internal to lib/odb.
 */
#ifndef FGIT_ODB_BUFPOOL_H
#define FGIT_ODB_BUFPOOL_H

#include <stddef.h>

/* The most bytes the pool keeps (for the whole process). */
#define ODB_BUF_POOL_CAP ((size_t)8 << 20)

/*
 * A block of at least `size` bytes for object data: one the pool kept if
 * one fits, else a fresh one.  Every block is malloc memory: free() may
 * release it (a read result handed to a caller who owns it), and
 * odb_buf_free recycles it.  NULL if out of memory.  Thread-safe.
 */
void *odb_buf_alloc(size_t size);

/*
 * Give back a block from malloc or odb_buf_alloc (NULL is ignored), of
 * at least `size` bytes (what was asked for, or any lower bound): kept
 * for a later odb_buf_alloc if it is big and the pool has room, the
 * longest-kept blocks freed to make it, else freed.  Thread-safe.
 */
void odb_buf_free(void *p, size_t size);

/*
 * Fresh blocks of a megabyte and more on transparent huge pages (on) or
 * not (off, the default), for the whole process.  Only where malloc maps
 * big blocks apart (a fixed M_MMAP_THRESHOLD of 128 KiB, as cat-file
 * --batch-all-objects sets): in malloc's heap the huge pages stay after
 * the block is freed.  Thread-safe.
 */
void odb_buf_huge_pages(int on);

/* Free every kept block.  Thread-safe. */
void odb_buf_trim(void);

/* Bytes kept now (all blocks together).  Thread-safe. */
size_t odb_buf_kept(void);

#endif
