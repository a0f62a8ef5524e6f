/*
 * The chunk table shared by git's multi-pack-index and commit-graph files
 * (gitformat-chunk): after a file's header, (n + 1) entries of a 4-byte id
 * and an 8-byte offset; the last entry has id 0 and marks where the last
 * chunk ends.  Reading checks what git checks (offsets non-decreasing and
 * before the trailing checksum, no early terminator, no duplicate id, a
 * zero final id) and reports it in git's words, so every chunk found lies
 * inside the file.  Writing lays out a table for chunks of known sizes.
 *
 * Thread-safe: plain functions over caller memory.
 */
#ifndef FGIT_CHUNK_H
#define FGIT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

struct fgit_buf;

struct fgit_chunk {
	uint32_t id;
	uint64_t offset;		/* from the start of the file */
	uint64_t size;
};

/*
 * Parse the table of `n` chunks at data + table_off in a file of `len`
 * bytes whose last `trailer` bytes are its checksum.  out has room for n
 * entries.  FGIT_EINVALID with git's message on a malformed table.
 */
int fgit_chunk_table_read(struct fgit_chunk *out, const unsigned char *data, size_t len,
			  size_t table_off, unsigned n, size_t trailer);
/* The chunk with this id, or NULL. */
const struct fgit_chunk *fgit_chunk_find(const struct fgit_chunk *c, unsigned n, uint32_t id);
/*
 * Append the table for chunks of the given ids and sizes, laid out one
 * after another from `start` (the offset of the first chunk), to out.
 */
int fgit_chunk_table_write(struct fgit_buf *out, const uint32_t *ids, const uint64_t *sizes,
			   unsigned n, uint64_t start);

/* Big-endian loads for the tables of these files. */
static inline uint32_t fgit_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t fgit_be64(const unsigned char *p)
{
	return (uint64_t)fgit_be32(p) << 32 | fgit_be32(p + 4);
}

struct fgit_oid;
/*
 * Binary search of a sorted table of raw ids (rawsz bytes each) under a
 * 256-entry big-endian fan-out: 1 and *pos if found, else 0.  The caller
 * has checked the fan-out against the table's size.
 */
int fgit_chunk_oid_find(uint32_t *pos, const unsigned char *fanout, const unsigned char *oids,
			size_t rawsz, const struct fgit_oid *oid);

/*
 * The writers and verifiers of these files report problems through a
 * callback (level 0 warning, 1 error, 2 a bare line, as git prints them):
 * format the message and call cb (if not NULL).
 */
void fgit_chunk_reportf(void (*cb)(int level, const char *msg, void *payload),
			void *payload, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define FGIT_CHUNK_ID(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

#endif
