/*
 * Reading a multi-pack-index (include/fgit/midx.h) and looking objects up
 * through it for the object database.
 *
 * The file is mapped read-only and shared by every thread.  Everything the
 * lookups read is validated once at open (chunk bounds, chunk sizes against
 * the object and pack counts, fan-out order, pack-name order), so a lookup
 * is a fan-out load and a binary search with no further checks, and a
 * hostile file gives a clean error at open instead of a wild read later.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/chunk.h"
#include "fgit/hash.h"
#include "fgit/midx.h"
#include "odb/odb_internal.h"

#define MIDX_SIGNATURE 0x4d494458u	/* "MIDX" */
#define MIDX_HEADER_SIZE 12
#define MIDX_MAX_CHUNKS 64

#define be32 fgit_be32
#define be64 fgit_be64

static int parse(struct fgit_midx *m)
{
	struct fgit_chunk chunks[MIDX_MAX_CHUNKS];
	const struct fgit_chunk *c;
	const unsigned char *d = m->map;
	unsigned nchunks, i;
	uint64_t n;
	int r;

	if (m->size < MIDX_HEADER_SIZE + m->rawsz)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index file %s is too small",
				      m->path);
	if (be32(d) != MIDX_SIGNATURE)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index signature 0x%08x does not"
				      " match signature 0x%08x", be32(d), MIDX_SIGNATURE);
	if (d[4] != 1)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index version %d not recognized",
				      d[4]);
	if (d[5] != (unsigned)m->algo)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index hash version %u does not"
				      " match version %u", d[5], (unsigned)m->algo);
	nchunks = d[6];
	m->npacks = be32(d + 8);
	if (nchunks > MIDX_MAX_CHUNKS)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index has too many chunks");
	if ((r = fgit_chunk_table_read(chunks, d, m->size, MIDX_HEADER_SIZE, nchunks,
				       m->rawsz)) < 0)
		return r;
	if (!(c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('P', 'N', 'A', 'M'))))
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index missing required pack-name chunk");
	m->pnam = d + c->offset;
	m->pnam_size = c->size;
	if (!(c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('O', 'I', 'D', 'F'))))
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index missing required OID fanout chunk");
	if (c->size != 256 * 4)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index OID fanout is of the wrong size");
	m->fanout = d + c->offset;
	for (i = 1; i < 256; i++)
		if (be32(m->fanout + 4 * i) < be32(m->fanout + 4 * (i - 1)))
			return fgit_error_set(FGIT_EINVALID, "oid fanout out of order: fanout[%u] ="
					      " %x > %x = fanout[%u]", i - 1,
					      be32(m->fanout + 4 * (i - 1)),
					      be32(m->fanout + 4 * i), i);
	n = m->nr = be32(m->fanout + 4 * 255);
	if (!(c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('O', 'I', 'D', 'L'))))
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index missing required OID lookup chunk");
	if (c->size != n * m->rawsz)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index OID lookup chunk is the wrong size");
	m->oids = d + c->offset;
	if (!(c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('O', 'O', 'F', 'F'))))
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index missing required object offsets chunk");
	if (c->size != n * 8)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index object offset chunk is the wrong size");
	m->ooff = d + c->offset;
	if ((c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('L', 'O', 'F', 'F')))) {
		if (c->size % 8)
			return fgit_error_set(FGIT_EINVALID, "multi-pack-index large offset chunk is the wrong size");
		m->loff = d + c->offset;
		m->nloff = c->size / 8;
	}
	if ((c = fgit_chunk_find(chunks, nchunks, FGIT_CHUNK_ID('R', 'I', 'D', 'X'))) &&
	    c->size == n * 4)
		m->ridx = d + c->offset;
	/* pack names: npacks NUL-terminated names inside PNAM, sorted */
	if (m->npacks > m->pnam_size)
		return fgit_error_set(FGIT_EINVALID, "multi-pack-index pack-name chunk is too short");
	m->names = calloc(m->npacks ? m->npacks : 1, sizeof(*m->names));
	if (!m->names)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	{
		const char *p = (const char *)m->pnam, *end = p + m->pnam_size;
		for (i = 0; i < m->npacks; i++) {
			const char *z = memchr(p, 0, (size_t)(end - p));
			if (!z || z == p)
				return fgit_error_set(FGIT_EINVALID,
						      "multi-pack-index pack-name chunk is too short");
			if (i && strcmp(m->names[i - 1], p) >= 0)
				return fgit_error_set(FGIT_EINVALID, "multi-pack-index pack names out"
						      " of order: '%s' before '%s'", m->names[i - 1], p);
			m->names[i] = p;
			p = z + 1;
		}
	}
	return 0;
}

int fgit_midx_open(struct fgit_midx **out, const char *path, int algo)
{
	struct fgit_midx *m;
	struct stat st;
	void *map;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgit_error_errno(errno == ENOENT ? FGIT_ENOTFOUND : FGIT_ERROR,
					"failed to read %s", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fgit_error_errno(FGIT_ERROR, "failed to stat %s", path);
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		close(fd);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	m->algo = algo ? algo : FGIT_HASH_SHA1;
	m->rawsz = fgit_hash_rawsz(m->algo);
	m->size = (size_t)st.st_size;
	m->ino = (uint64_t)st.st_ino;
	m->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	if (m->size >= MIDX_HEADER_SIZE + m->rawsz) {
		map = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			close(fd);
			r = fgit_error_errno(FGIT_ERROR, "unable to mmap %s", path);
			fgit_midx_free(m);
			return r;
		}
		m->map = map;
	}
	close(fd);
	if ((r = parse(m)) < 0) {
		fgit_midx_free(m);
		return r;
	}
	*out = m;
	return 0;
}

void fgit_midx_free(struct fgit_midx *m)
{
	if (!m)
		return;
	if (m->map)
		munmap((void *)m->map, m->size);
	free(m->names);
	free(m->packs);
	free(m->path);
	free(m);
}

uint32_t fgit_midx_num_packs(const struct fgit_midx *m)
{
	return m->npacks;
}

const char *fgit_midx_pack_name(const struct fgit_midx *m, uint32_t i)
{
	return i < m->npacks ? m->names[i] : NULL;
}

const unsigned char *fgit_midx_ridx(const struct fgit_midx *m)
{
	return m->ridx;
}

uint32_t fgit_midx_num_objects(const struct fgit_midx *m)
{
	return m->nr;
}

uint32_t fgit_midx_fanout(const struct fgit_midx *m, unsigned b)
{
	return be32(m->fanout + 4 * (b & 255));
}

void fgit_midx_oid_at(struct fgit_oid *out, const struct fgit_midx *m, uint32_t pos)
{
	fgit_oid_from_raw(out, m->oids + (size_t)pos * m->rawsz, m->algo);
}

const unsigned char *fgit_midx_oid_raw(const struct fgit_midx *m, uint32_t pos)
{
	return m->oids + (size_t)pos * m->rawsz;
}

int fgit_midx_entry_at(uint32_t *pack, uint64_t *offset, const struct fgit_midx *m,
		       uint32_t pos)
{
	const unsigned char *e = m->ooff + (size_t)pos * 8;
	uint32_t id = be32(e), off = be32(e + 4);

	if (id >= m->npacks)
		return fgit_error_set(FGIT_EINVALID, "bad pack-int-id: %u (%u total packs)",
				      id, m->npacks);
	if ((off & 0x80000000u) && m->loff) {
		off &= 0x7fffffffu;
		if (off >= m->nloff)
			return fgit_error_set(FGIT_EINVALID, "multi-pack-index large offset out"
					      " of bounds");
		*offset = be64(m->loff + 8 * (size_t)off);
	} else {
		*offset = off;
	}
	*pack = id;
	return 0;
}

int fgit_midx_find(uint32_t *pos, const struct fgit_midx *m, const struct fgit_oid *oid)
{
	return fgit_chunk_oid_find(pos, m->fanout, m->oids, m->rawsz, oid);
}

int fgit_midx_checksum_ok(const struct fgit_midx *m)
{
	struct fgit_hash_ctx c;
	unsigned char sum[FGIT_MAX_RAWSZ];

	fgit_checksum_init(&c, m->algo);
	fgit_checksum_update(&c, m->map, m->size - m->rawsz);
	fgit_checksum_final(sum, &c);
	return !memcmp(sum, m->map + m->size - m->rawsz, m->rawsz);
}

const unsigned char *fgit_midx_checksum(const struct fgit_midx *m)
{
	return m->map + m->size - m->rawsz;
}

const char *fgit_midx_path(const struct fgit_midx *m)
{
	return m->path;
}

/* ---- the object database's use of it ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int fgit_midx_pack_index(const struct fgit_midx *m, const char *name)
{
	uint32_t lo = 0, hi = m->npacks;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->names[mid], name);
		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void odb_midx_map_packs(struct fgit_odb *odb)
{
	struct fgit_midx *m = odb->midx;
	size_t i;

	for (i = 0; i < odb->npacks; i++)
		odb->packs[i]->in_midx = 0;
	if (!m)
		return;
	for (i = 0; i < odb->npacks; i++) {
		int k = fgit_midx_pack_index(m, base_name(odb->packs[i]->idx_path));
		if (k >= 0 && !odb->packs[i]->gone) {
			m->packs[k] = odb->packs[i];
			odb->packs[i]->in_midx = 1;
		}
	}
}

int odb_midx_load(struct fgit_odb *odb)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_midx *m = NULL, **old;
	struct stat st;
	int r = 0;

	if (fgit_buf_addf(&path, "%s/pack/multi-pack-index", odb->path) < 0)
		return FGIT_ENOMEM;
	if (stat(path.ptr, &st) < 0) {
		st.st_ino = 0;
	} else if (odb->midx && odb->midx->ino == (uint64_t)st.st_ino &&
		   odb->midx->size == (size_t)st.st_size &&
		   odb->midx->mtime_ns == (uint64_t)st.st_mtim.tv_sec * 1000000000u +
		   (uint64_t)st.st_mtim.tv_nsec) {
		goto out;	/* unchanged */
	}
	if (st.st_ino && fgit_midx_open(&m, path.ptr, odb->algo) == 0) {
		m->packs = calloc(m->npacks ? m->npacks : 1, sizeof(*m->packs));
		if (!m->packs) {
			fgit_midx_free(m);
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
	}
	fgit_error_clear();	/* git warns about a bad midx and reads the packs */
	if (!m && !odb->midx)
		goto out;
	if (odb->midx) {
		/* readers may still hold the old one: keep it until the handle dies */
		old = realloc(odb->old_midx, (odb->nold_midx + 1) * sizeof(*old));
		if (!old) {
			fgit_midx_free(m);
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		odb->old_midx = old;
		odb->old_midx[odb->nold_midx++] = odb->midx;
	}
	odb->midx = m;
out:
	fgit_buf_release(&path);
	return r;
}

int odb_midx_lookup(struct pack **pack, uint64_t *off, struct fgit_odb *odb,
		    const struct fgit_oid *oid)
{
	struct fgit_midx *m = odb->midx;
	uint32_t pos, id;

	if (!m || !fgit_midx_find(&pos, m, oid))
		return 0;
	if (fgit_midx_entry_at(&id, off, m, pos) < 0 || !m->packs[id]) {
		fgit_error_clear();
		return 0;	/* as git: fall back to the packs */
	}
	*pack = m->packs[id];
	return 1;
}

/* ---- a lone pack index: struct pack without its .pack ---- */

int fgit_pack_idx_open(struct fgit_pack_idx **out, const char *idx_path, int algo)
{
	struct pack *p;
	int r = pack_open_idx(&p, idx_path, algo ? algo : FGIT_HASH_SHA1);
	if (r == 0)
		*out = (struct fgit_pack_idx *)p;
	return r;
}

void fgit_pack_idx_free(struct fgit_pack_idx *p)
{
	pack_free((struct pack *)p);
}

uint32_t fgit_pack_idx_count(const struct fgit_pack_idx *p)
{
	return ((const struct pack *)p)->nr;
}

uint32_t fgit_pack_idx_fanout(const struct fgit_pack_idx *p, unsigned b)
{
	return be32(((const struct pack *)p)->fanout + 4 * (b & 255));
}

const unsigned char *fgit_pack_idx_name(const struct fgit_pack_idx *p, uint32_t pos)
{
	const struct pack *q = (const struct pack *)p;
	return q->names + (size_t)pos * q->name_stride;
}

int fgit_pack_idx_offset(uint64_t *out, const struct fgit_pack_idx *p, uint32_t pos)
{
	return pack_offset_at(out, (struct pack *)p, pos);
}

int fgit_pack_idx_find(uint32_t *pos, const struct fgit_pack_idx *p,
		       const struct fgit_oid *oid)
{
	return pack_find((const struct pack *)p, oid, pos);
}
