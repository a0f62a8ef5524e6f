/*
 * index-pack's engine: from a pack stream to named objects (see
 * include/fgit/pack.h for the two passes).
 *
 * Pass 1 is sequential because entry boundaries are only known after each
 * zlib stream has been inflated.  It inflates with libdeflate (the entry
 * header gives the exact output size), falling back to zlib's streaming
 * inflate only for huge objects, input it cannot see whole yet, and to
 * reproduce git's exact "inflate returned <status>" on corrupt entries.
 * It never blocks for bytes a valid pack need not have (a --stdin pipe may
 * stay open after the trailer), and it CRCs and checksums as it consumes.
 *
 * Pass 2 runs on several threads over the non-delta objects: each is
 * inflated and named, and if deltas hang off it (OFS deltas found by the
 * base's offset, REF deltas by its name, both in sorted arrays) its delta
 * tree is resolved depth-first on the same thread.  A frame's data is freed
 * as soon as its last child has been produced, so a straight chain costs
 * one object of memory, and nothing like a whole pack is ever held
 * inflated.  Entry data is read back with pread(): seed 001 measured it
 * faster than mmap() for index-pack.
 *
 * With one thread, pass 1 names non-delta objects itself while it has them
 * inflated, so nothing is inflated twice except the bases of deltas.
 */
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "fgit/thread.h"
#include "fgit/odb.h"
#include "odb/delta.h"
#include "pack_internal.h"

/*
 * Objects larger than this are inflated by zlib in chunks in pass 1 (and
 * named there, or their bytes dropped for deltas), so pass 1 never needs a
 * buffer of their size, nor its read buffer their compressed size.  With
 * 64 MiB, the history corpus's biggest objects cost pass 1 both (peak RSS
 * 81 MiB against git's 70 with --threads=1); a few big objects inflate a
 * little slower through zlib.
 */
#define BIG_OBJECT (2u << 20)
#define READ_CHUNK (1u << 20)

/* 32 bytes an object, plus its name in a separate array (rawsz bytes) and
 * for verify-pack 8 bytes of statistics: git's own entries are larger. */
struct entry {
	uint64_t offset;
	uint64_t size;		/* from the header (a delta's own size for deltas) */
	uint32_t crc;
	uint8_t hdr_len;
	uint8_t type;		/* as stored */
	uint8_t real_type;
	uint8_t named;		/* pass 1 named it already */
	_Atomic uint8_t claimed;	/* a delta some thread has taken */
};

struct stat_entry {
	uint32_t base;		/* base entry number */
	uint32_t depth;
};

struct ofs_ref {
	uint64_t base_off;
	uint32_t ent;
};

struct ref_ref {
	unsigned char oid[FGIT_MAX_RAWSZ];
	uint32_t ent;
};

struct fgit_indexer {
	int algo;
	size_t rawsz;
	unsigned int flags;
	struct entry *e;	/* nr + 1: the last one's offset ends the data */
	unsigned char *oids;	/* nr names of rawsz bytes, in pack order */
	struct stat_entry *stats;	/* with FGIT_INDEX_PACK_STATS */
	uint32_t nr;
	unsigned char pack_hash[FGIT_MAX_RAWSZ];
	unsigned char *leftover;
	size_t leftover_len;
	uint32_t nr_local;	/* bases --fix-thin appended */
	struct fgit_odb *odb;	/* objects to check for collisions, or NULL */
};

struct reader {
	int fd, copy_fd;
	int is_file;		/* may block for bytes up to EOF */
	unsigned char *buf;
	size_t cap, len, pos, hashed;
	uint64_t buf_off;	/* pack offset of buf[0] */
	int eof;
	struct fgit_hash_ctx csum;
	struct fgit_progress *prog;
	int show_bytes;
	const struct fgit_index_pack_options *opts;
};

const char *pack_zerr_name(int status)
{
	switch (status) {
	case Z_MEM_ERROR:
		return "out of memory";
	case Z_VERSION_ERROR:
		return "wrong version";
	case Z_NEED_DICT:
		return "needs dictionary";
	case Z_DATA_ERROR:
		return "data stream error";
	case Z_STREAM_ERROR:
		return "stream consistency error";
	default:
		return "unknown error";
	}
}

int pack_delta_patch(unsigned char **out, size_t *out_size, const void *base, size_t base_size,
		     const unsigned char *delta, size_t delta_size, char *why, size_t whysz)
{
	uint64_t bsz, rsz;
	unsigned char *result;

	why[0] = 0;
	/*
	 * lib/odb's bounds-checked delta code; git's patch_delta says
	 * nothing for a base of the wrong size, "unexpected delta opcode 0"
	 * for that, and "delta replay has gone wild" for the rest.
	 */
	if (fgit_delta_sizes(delta, delta_size, &bsz, &rsz) < 0 || bsz != base_size)
		return fgit_error_set(FGIT_EINVALID, "failed to apply delta");
	if (rsz >= SIZE_MAX || !(result = malloc((size_t)rsz + 1)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (fgit_delta_apply(result, (size_t)rsz, base, base_size, delta, delta_size)) {
		snprintf(why, whysz, "%s",
			 !strcmp(fgit_error_last(), "unexpected delta opcode 0") ?
			 "unexpected delta opcode 0" : "delta replay has gone wild");
		free(result);
		return fgit_error_set(FGIT_EINVALID, "failed to apply delta");
	}
	result[rsz] = 0;
	*out = result;
	*out_size = (size_t)rsz;
	return 0;
}

#define OID(ix, i) ((ix)->oids + (size_t)(i) * (ix)->rawsz)

static int bad_object(uint64_t off, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_object(uint64_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fgit_error_set(FGIT_EINVALID, "pack has bad object at offset %llu: %s",
			      (unsigned long long)off, msg);
}


static int pack_write(int fd, const void *p, size_t n)
{
	if (fgit_write_all(fd, p, n) < 0)
		return fgit_error_errno(FGIT_ERROR, "write error on pack file");
	return 0;
}

/*
 * pread() len bytes of zlib data at `from` (into *in, grown as needed) and
 * inflate them to exactly `size` bytes; *out is malloc'd with a NUL after.
 */
static int read_inflate(unsigned char **out, int fd, struct libdeflate_decompressor *dd,
			unsigned char **in, size_t *in_cap, uint64_t from, uint64_t len,
			uint64_t size)
{
	unsigned char *data;
	size_t got = 0, used = 0;

	if (len > SIZE_MAX - 1 || size >= SIZE_MAX)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (len > *in_cap) {
		unsigned char *nb = realloc(*in, (size_t)len);
		if (!nb)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		*in = nb;
		*in_cap = (size_t)len;
	}
	while (got < len) {
		ssize_t n = pread(fd, *in + got, (size_t)len - got, (off_t)(from + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fgit_error_errno(FGIT_ERROR, "cannot pread pack file");
		if (!n)
			return fgit_error_set(FGIT_EINVALID,
					      "premature end of pack file, %llu bytes missing",
					      (unsigned long long)(len - got));
		got += (size_t)n;
	}
	data = malloc((size_t)size + 1);
	if (!data)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (libdeflate_zlib_decompress_ex(dd, *in, (size_t)len, data, (size_t)size,
					  &used, NULL) != LIBDEFLATE_SUCCESS) {
		free(data);
		return fgit_error_set(FGIT_EINVALID, "serious inflate inconsistency");
	}
	/* a big entry's zlib bytes are not kept for the rest of the run:
	 * a delta against it would hold them beside base and result */
	if (*in_cap > READ_CHUNK) {
		free(*in);
		*in = NULL;
		*in_cap = 0;
	}
	data[size] = 0;
	*out = data;
	return 0;
}

/* Checksum (and copy out) what has been consumed but not yet hashed. */
static int flush_consumed(struct reader *r)
{
	size_t n = r->pos - r->hashed;
	if (!n)
		return 0;
	fgit_checksum_update(&r->csum, r->buf + r->hashed, n);
	if (r->copy_fd >= 0 && pack_write(r->copy_fd, r->buf + r->hashed, n))
		return -1;
	r->hashed = r->pos;
	return 0;
}

/* Bytes available from pos, having read until at least n (or EOF). */
static int fill(struct reader *r, size_t n, size_t *avail)
{
	while (r->len - r->pos < n && !r->eof) {
		ssize_t got;
		if (r->cap - r->len < READ_CHUNK / 4 || r->cap - r->pos < n) {
			if (flush_consumed(r))
				return -1;
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->buf_off += r->pos;
			r->len -= r->pos;
			r->pos = r->hashed = 0;
			if (r->cap - r->len < READ_CHUNK / 4 || r->cap < n) {
				size_t want = r->cap * 2;
				unsigned char *nb;
				if (want < n + READ_CHUNK)
					want = n + READ_CHUNK;
				nb = realloc(r->buf, want);
				if (!nb)
					return fgit_error_set(FGIT_ENOMEM, "out of memory");
				r->buf = nb;
				r->cap = want;
			}
		}
		got = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return fgit_error_errno(FGIT_ERROR, "read error on input");
		}
		if (!got)
			r->eof = 1;
		r->len += (size_t)got;
		if (r->prog && r->show_bytes)
			fgit_progress_bytes(r->prog, r->buf_off + r->len);
	}
	*avail = r->len - r->pos;
	return 0;
}

static int need(struct reader *r, size_t n)
{
	size_t avail;
	if (fill(r, n, &avail))
		return -1;
	if (avail < n)
		return fgit_error_set(FGIT_EINVALID, "early EOF");
	return 0;
}

static inline uint64_t cur_off(const struct reader *r)
{
	return r->buf_off + r->pos;
}

static inline void consume(struct reader *r, size_t n, uint32_t *crc)
{
	if (crc)
		*crc = (uint32_t)libdeflate_crc32(*crc, r->buf + r->pos, n);
	r->pos += n;
}

/*
 * Inflate one entry's zlib stream with zlib, streaming, as git does: exact
 * status codes for corrupt data.  If `out` is NULL the data goes through a
 * small buffer and, when hctx is set, into the object name.
 */
static int inflate_stream(struct reader *r, uint64_t ent_off, uint64_t size, unsigned char *out,
			  struct fgit_hash_ctx *hctx, uint32_t *crc)
{
	unsigned char chunk[65536];
	z_stream zs;
	int status;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	zs.next_out = out ? out : chunk;
	zs.avail_out = out ? (uInt)(size > UINT32_MAX ? UINT32_MAX : size) : sizeof(chunk);
	do {
		unsigned char *last = zs.next_out;
		size_t avail;
		uInt before;
		if (need(r, 1)) {
			inflateEnd(&zs);
			return -1;
		}
		fill(r, 1, &avail);
		before = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
		zs.next_in = r->buf + r->pos;
		zs.avail_in = before;
		status = inflate(&zs, 0);
		consume(r, before - zs.avail_in, crc);
		if (!out) {
			if (hctx)
				fgit_objname_update(hctx, last, (size_t)(zs.next_out - last));
			zs.next_out = chunk;
			zs.avail_out = sizeof(chunk);
		} else if (zs.avail_out == 0 && (uint64_t)(zs.next_out - out) < size) {
			uint64_t left = size - (uint64_t)(zs.next_out - out);
			zs.avail_out = (uInt)(left > UINT32_MAX ? UINT32_MAX : left);
		}
	} while (status == Z_OK);
	if (status != Z_STREAM_END && status != Z_BUF_ERROR && r->opts->warn) {
		char msg[300];
		snprintf(msg, sizeof(msg), "inflate: %s (%s)", pack_zerr_name(status),
			 zs.msg ? zs.msg : "no message");
		r->opts->warn(msg, r->opts->warn_payload);
	}
	inflateEnd(&zs);
	if (zs.total_out != size || status != Z_STREAM_END)
		return bad_object(ent_off, "inflate returned %d", status);
	return 0;
}

struct pass1 {
	struct fgit_indexer *ix;
	struct reader r;
	struct libdeflate_decompressor *dd;
	unsigned char *scratch;
	size_t scratch_cap;
	int name_inline;
	uint32_t *nondelta;
	uint32_t nr_nondelta;
	struct ofs_ref *ofs;
	uint32_t nr_ofs, ofs_alloc;
	struct ref_ref *ref;
	uint32_t nr_ref, ref_alloc;

	/*
	 * With several threads, pass 1 hands each non-delta object it has
	 * just inflated to a helper thread, which names it (and checks it for
	 * a collision) on the core pass 1 leaves idle, so pass 2 has only
	 * bases and deltas left and nothing is inflated twice but bases.
	 * Handing over the buffer itself costs no copy; when HANDOFF_BYTES
	 * wait already, pass 1 names the object itself instead of piling up
	 * memory.  `lock` guards the queue, and array growth against the
	 * helper's writes of names.
	 */
	pthread_t helper;
	int helper_running;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct handoff *q;		/* ring of HANDOFF_SLOTS */
	uint32_t q_head, q_len;
	size_t q_bytes;
	int done;
};

#define HANDOFF_SLOTS 1024
#define HANDOFF_BYTES (8u << 20)

struct handoff {
	uint32_t ent;
	uint8_t type;
	uint64_t size;
	size_t cap;
	unsigned char *data;
};

/*
 * Give pass 1's scratch buffer (entry i, just inflated) to the helper if
 * the queue has room: 1 if taken (the next entry gets a new scratch).
 */
static int hand_off(struct pass1 *p, uint32_t i, int type, uint64_t size)
{
	struct handoff *h;
	int taken = 0;

	pthread_mutex_lock(&p->lock);
	if (p->q_len < HANDOFF_SLOTS && (!p->q_len || p->q_bytes + p->scratch_cap <= HANDOFF_BYTES)) {
		h = &p->q[(p->q_head + p->q_len++) % HANDOFF_SLOTS];
		h->ent = i;
		h->type = (uint8_t)type;
		h->size = size;
		h->cap = p->scratch_cap;
		h->data = p->scratch;
		p->q_bytes += p->scratch_cap;
		p->scratch = NULL;
		p->scratch_cap = 0;
		taken = 1;
		pthread_cond_signal(&p->more);
	}
	pthread_mutex_unlock(&p->lock);
	return taken;
}

/* Grow an array by half again (at most to max items). */
static int grow(void **arr, uint32_t *alloc, size_t item, uint32_t max)
{
	uint64_t want = *alloc + (*alloc >> 1) + 1024;
	void *n;
	if (want > max)
		want = max;
	n = realloc(*arr, (size_t)want * item);
	if (!n)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	*arr = n;
	*alloc = (uint32_t)want;
	return 0;
}

/*
 * An object the repository already has must be the same object: anything
 * else is a collision (git compares the contents as well).
 */
static int check_collision(const struct fgit_indexer *ix, const unsigned char *raw,
			   enum fgit_object_type type, const void *data, size_t size)
{
	struct fgit_oid oid;
	enum fgit_object_type htype;
	void *have = NULL;
	size_t hsize;
	char hex[FGIT_MAX_HEXSZ + 1];
	int same;

	if (!ix->odb)
		return 0;
	fgit_oid_from_raw(&oid, raw, ix->algo);
	/* git's check is as quick: no new look at the packs directory */
	if (fgit_odb_exists_quick(ix->odb, &oid) != 1)
		return 0;
	if (fgit_odb_read(&have, &hsize, &htype, ix->odb, &oid))
		return fgit_error_set(FGIT_ERROR, "cannot read existing object %s",
				      fgit_oid_to_hex(hex, &oid));
	same = htype == type && hsize == size && !memcmp(have, data, size);
	free(have);
	if (!same)
		return fgit_error_set(FGIT_ECOLLISION, "SHA1 COLLISION FOUND WITH %s !",
				      fgit_oid_to_hex(hex, &oid));
	return 0;
}

static int name_object(unsigned char *oid_out, int algo, enum fgit_object_type type,
		       const void *data, size_t len)
{
	struct fgit_oid oid;
	int ret = fgit_hash_object(&oid, algo, type, data, len);
	if (ret)
		return ret;
	memcpy(oid_out, oid.hash, fgit_hash_rawsz(algo));
	return 0;
}

/* Parse and inflate entry i at the reader's position. */
static int parse_entry(struct pass1 *p, uint32_t i, uint32_t remaining)
{
	struct fgit_indexer *ix = p->ix;
	struct reader *r = &p->r;
	struct entry *e = &ix->e[i];
	uint64_t off = cur_off(r), size, bound, safe;
	uint32_t crc = 0;
	unsigned shift;
	unsigned char c;
	size_t hstart, avail;
	int type;

	memset(e, 0, sizeof(*e));
	e->offset = off;
	if (ix->stats) {
		ix->stats[i].base = UINT32_MAX;
		ix->stats[i].depth = 0;
	}
	if (need(r, 1))
		return -1;
	hstart = r->pos;
	c = r->buf[r->pos++];
	type = (c >> 4) & 7;
	size = c & 15;
	shift = 4;
	while (c & 0x80) {
		if (need(r, 1))
			return -1;
		c = r->buf[r->pos++];
		if (shift > 63 || (shift > 57 && (c & 0x7f) >> (64 - shift)))
			return bad_object(off, "object size overflows");
		size += (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	switch (type) {
	case FGIT_OBJ_OFS_DELTA: {
		uint64_t base = 0;
		if (need(r, 1))
			return -1;
		c = r->buf[r->pos++];
		base = c & 127;
		while (c & 128) {
			base += 1;
			if (!base || (base >> 57))
				return bad_object(off, "offset value overflow for delta base object");
			if (need(r, 1))
				return -1;
			c = r->buf[r->pos++];
			base = (base << 7) + (c & 127);
		}
		if (!base || base >= off)
			return bad_object(off, "delta base offset is out of bound");
		if (p->nr_ofs == p->ofs_alloc && grow((void **)&p->ofs, &p->ofs_alloc,
						      sizeof(*p->ofs), ix->nr))
			return -1;
		p->ofs[p->nr_ofs].base_off = off - base;
		p->ofs[p->nr_ofs++].ent = i;
		break;
	}
	case FGIT_OBJ_REF_DELTA:
		if (need(r, ix->rawsz))
			return -1;
		if (p->nr_ref == p->ref_alloc && grow((void **)&p->ref, &p->ref_alloc,
						      sizeof(*p->ref), ix->nr))
			return -1;
		memset(p->ref[p->nr_ref].oid, 0, FGIT_MAX_RAWSZ);
		memcpy(p->ref[p->nr_ref].oid, r->buf + r->pos, ix->rawsz);
		p->ref[p->nr_ref++].ent = i;
		r->pos += ix->rawsz;
		break;
	case FGIT_OBJ_COMMIT:
	case FGIT_OBJ_TREE:
	case FGIT_OBJ_BLOB:
	case FGIT_OBJ_TAG:
		p->nondelta[p->nr_nondelta++] = i;
		break;
	default:
		return bad_object(off, "unknown object type %d", type);
	}
	e->type = (uint8_t)type;
	e->real_type = (uint8_t)type;
	e->size = size;
	e->hdr_len = (uint8_t)(r->pos - hstart);
	crc = (uint32_t)libdeflate_crc32(0, r->buf + hstart, r->pos - hstart);

	/*
	 * A valid pack still holds this entry's zlib stream (at least 8
	 * bytes), 9 bytes for each later entry and the trailer: waiting for
	 * that many never blocks on a live pipe.  Deflate grows data by at
	 * most 5 bytes per 16 KiB stored block plus the zlib wrapper.
	 */
	bound = size + (size >> 11) + 64;
	safe = 8 + (uint64_t)(remaining - 1) * 9 + ix->rawsz;
	if (!r->is_file && bound > safe)
		bound = safe;
	if (size <= BIG_OBJECT) {
		enum libdeflate_result res;
		size_t in_used = 0, out_used = 0;
		if (fill(r, (size_t)bound, &avail))
			return -1;
		if (size + 1 > p->scratch_cap) {
			size_t want = (size_t)size + 1 > p->scratch_cap * 2 ?
				(size_t)size + 1 : p->scratch_cap * 2;
			unsigned char *nb = realloc(p->scratch, want);
			if (!nb)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			p->scratch = nb;
			p->scratch_cap = want;
		}
		res = libdeflate_zlib_decompress_ex(p->dd, r->buf + r->pos, avail, p->scratch,
						    (size_t)size, &in_used, &out_used);
		if (res == LIBDEFLATE_SUCCESS && out_used == size) {
			consume(r, in_used, &crc);
		} else {
			/* Corrupt, or not all of it here yet: let zlib decide. */
			if (inflate_stream(r, off, size, p->scratch, NULL, &crc))
				return -1;
		}
		if (type <= FGIT_OBJ_TAG && p->helper_running && hand_off(p, i, type, size))
			;	/* the helper names it */
		else if (type <= FGIT_OBJ_TAG && (p->name_inline || p->helper_running)) {
			if (name_object(OID(ix, i), ix->algo, type, p->scratch, (size_t)size) ||
			    check_collision(ix, OID(ix, i), type, p->scratch, (size_t)size))
				return -1;
			e->named = 1;
		}
	} else if (type <= FGIT_OBJ_TAG) {
		struct fgit_hash_ctx h;
		struct fgit_oid oid;
		fgit_objname_init_header(&h, ix->algo, type, size);
		if (inflate_stream(r, off, size, NULL, &h, &crc))
			return -1;
		if (fgit_objname_final(&oid, &h))
			return -1;
		memcpy(OID(ix, i), oid.hash, ix->rawsz);
		e->named = 1;
	} else if (inflate_stream(r, off, size, NULL, NULL, &crc)) {
		return -1;	/* a big delta: pass 2 inflates it again */
	}
	e->crc = crc;
	return 0;
}

static int grow_arrays(struct pass1 *p, uint32_t want)
{
	struct fgit_indexer *ix = p->ix;
	void *a, *b, *c, *d = NULL;
	int ret = 0;
	if (p->helper_running)
		pthread_mutex_lock(&p->lock);
	a = realloc(ix->e, ((size_t)want + 1) * sizeof(*ix->e));
	if (a)
		ix->e = a;
	b = realloc(p->nondelta, ((size_t)want + 1) * sizeof(*p->nondelta));
	if (b)
		p->nondelta = b;
	c = realloc(ix->oids, ((size_t)want + 1) * ix->rawsz);
	if (c)
		ix->oids = c;
	if (ix->flags & FGIT_INDEX_PACK_STATS) {
		d = realloc(ix->stats, ((size_t)want + 1) * sizeof(*ix->stats));
		if (d)
			ix->stats = d;
	}
	if (!a || !b || !c || ((ix->flags & FGIT_INDEX_PACK_STATS) && !d))
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (p->helper_running)
		pthread_mutex_unlock(&p->lock);
	return ret;
}

static void *helper_main(void *arg)
{
	struct pass1 *p = arg;
	struct fgit_indexer *ix = p->ix;
	int failed = 0;

	for (;;) {
		struct handoff h;
		unsigned char oid[FGIT_MAX_RAWSZ];

		pthread_mutex_lock(&p->lock);
		while (!p->q_len && !p->done)
			pthread_cond_wait(&p->more, &p->lock);
		if (!p->q_len) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		h = p->q[p->q_head];
		p->q_head = (p->q_head + 1) % HANDOFF_SLOTS;
		p->q_len--;
		pthread_mutex_unlock(&p->lock);
		/* a failure (a collision) is left for pass 2 to meet again and
		 * report; the rest of the queue is only freed */
		if (!failed && (name_object(oid, ix->algo, h.type, h.data, (size_t)h.size) ||
				check_collision(ix, oid, h.type, h.data, (size_t)h.size)))
			failed = 1;
		free(h.data);
		pthread_mutex_lock(&p->lock);
		if (!failed) {
			memcpy(OID(ix, h.ent), oid, ix->rawsz);
			ix->e[h.ent].named = 1;
		}
		p->q_bytes -= h.cap;
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static int run_pass1(struct pass1 *p, const struct fgit_index_pack_options *opts)
{
	struct fgit_indexer *ix = p->ix;
	struct reader *r = &p->r;
	unsigned char computed[FGIT_MAX_RAWSZ];
	uint32_t version, nr, i, alloc;
	const char *title;

	if (need(r, 12))
		return -1;
	if (memcmp(r->buf + r->pos, "PACK", 4))
		return fgit_error_set(FGIT_EINVALID, "pack signature mismatch");
	version = (uint32_t)r->buf[r->pos + 4] << 24 | (uint32_t)r->buf[r->pos + 5] << 16 |
		  (uint32_t)r->buf[r->pos + 6] << 8 | r->buf[r->pos + 7];
	if (version != 2 && version != 3)
		return fgit_error_set(FGIT_EINVALID, "pack version %u unsupported", version);
	nr = (uint32_t)r->buf[r->pos + 8] << 24 | (uint32_t)r->buf[r->pos + 9] << 16 |
	     (uint32_t)r->buf[r->pos + 10] << 8 | r->buf[r->pos + 11];
	r->pos += 12;
	ix->nr = nr;

	/* Grow with what the input proves exists, not what the header claims. */
	alloc = nr < 4096 ? nr : 4096;
	if (grow_arrays(p, alloc))
		return -1;
	title = opts->progress_title ? opts->progress_title :
		(opts->flags & FGIT_INDEX_PACK_RECEIVING) ? "Receiving objects" : "Indexing objects";
	if (opts->progress_fd >= 0)
		r->prog = fgit_progress_new(title, nr, opts->progress_fd,
					    r->show_bytes ? FGIT_PROGRESS_THROUGHPUT : 0);
	for (i = 0; i < nr; i++) {
		if (i == alloc) {
			alloc = nr - alloc < alloc ? nr : alloc * 2;
			if (grow_arrays(p, alloc))
				return -1;
		}
		if (parse_entry(p, i, nr - i))
			return -1;
		fgit_progress_set(r->prog, (uint64_t)i + 1);
	}
	if (!nr && grow_arrays(p, 1))
		return -1;
	memset(&ix->e[nr], 0, sizeof(ix->e[nr]));
	ix->e[nr].offset = cur_off(r);

	if (flush_consumed(r))
		return -1;
	fgit_checksum_final(computed, &r->csum);
	if (need(r, ix->rawsz))
		return -1;
	if (memcmp(computed, r->buf + r->pos, ix->rawsz))
		return fgit_error_set(FGIT_EINVALID, "pack is corrupted (SHA1 mismatch)");
	memcpy(ix->pack_hash, computed, ix->rawsz);
	if (r->copy_fd >= 0 && pack_write(r->copy_fd, r->buf + r->pos, ix->rawsz))
		return -1;
	r->pos += ix->rawsz;
	r->hashed = r->pos;

	if (r->is_file) {
		size_t avail;
		if (fill(r, 1, &avail))
			return -1;
		if (avail)
			return fgit_error_set(FGIT_EINVALID, "pack has junk at the end");
	} else if (r->len > r->pos) {
		ix->leftover_len = r->len - r->pos;
		ix->leftover = malloc(ix->leftover_len);
		if (!ix->leftover)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		memcpy(ix->leftover, r->buf + r->pos, ix->leftover_len);
	}
	if (r->prog) {
		fgit_progress_set(r->prog, nr);
		fgit_progress_done(r->prog);
		r->prog = NULL;
	}
	return 0;
}

/* ---- pass 2: naming and delta resolution ---- */

struct worker {
	char warn[512];
	struct libdeflate_decompressor *dd;
	unsigned char *in;
	size_t in_cap;
	struct frame *stack;
	size_t depth, stack_cap;
};

struct frame {
	unsigned char *data;
	uint64_t size;
	uint32_t ent;
	uint32_t ofs_lo, ofs_hi, ref_lo, ref_hi;
};

struct pass2 {
	struct fgit_indexer *ix;
	int fd;
	const uint32_t *nondelta;
	const struct ofs_ref *ofs;
	uint32_t nr_ofs;
	const struct ref_ref *ref;
	uint32_t nr_ref;
	struct worker *w;
	struct fgit_progress *prog;
	_Atomic uint32_t resolved;
	pthread_mutex_t err_lock;
	int err_code;
	char err_msg[512];
	char err_warn[512];	/* git's "error:" line before the fatal one */
	const struct fgit_index_pack_options *opts;
	uint32_t nr_pack;	/* entries from the stream (not --fix-thin's) */
};

/* The caller's object_cb, if any, for entry i whose content is data. */
static int deliver(struct pass2 *p, uint32_t i, enum fgit_object_type type,
		   const void *data, size_t size)
{
	struct fgit_oid oid;

	if (!p->opts->object_cb)
		return 0;
	fgit_oid_from_raw(&oid, OID(p->ix, i), p->ix->algo);
	return p->opts->object_cb(&oid, type, data, size, p->opts->object_payload);
}

static int keep_error(struct pass2 *p, struct worker *w, int code)
{
	pthread_mutex_lock(&p->err_lock);
	if (!p->err_code) {
		p->err_code = code ? code : FGIT_ERROR;
		snprintf(p->err_msg, sizeof(p->err_msg), "%s", fgit_error_last());
		snprintf(p->err_warn, sizeof(p->err_warn), "%s", w->warn);
	}
	pthread_mutex_unlock(&p->err_lock);
	return code ? code : FGIT_ERROR;
}

/* Read entry ent's data back from the pack and inflate it (size + 1 bytes). */
static int load_entry(unsigned char **out, struct pass2 *p, struct worker *w, uint32_t ent)
{
	const struct entry *e = &p->ix->e[ent];
	uint64_t from = e->offset + e->hdr_len;
	return read_inflate(out, p->fd, w->dd, &w->in, &w->in_cap, from,
			    p->ix->e[ent + 1].offset - from, e->size);
}

static void ofs_range(const struct pass2 *p, uint64_t off, uint32_t *lo_out, uint32_t *hi_out)
{
	uint32_t lo = 0, hi = p->nr_ofs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->ofs[mid].base_off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*lo_out = lo;
	while (hi < p->nr_ofs && p->ofs[hi].base_off == off)
		hi++;
	*hi_out = lo > hi ? lo : hi;
}

static void ref_range(const struct pass2 *p, const unsigned char *oid, uint32_t *lo_out,
		      uint32_t *hi_out)
{
	uint32_t lo = 0, hi = p->nr_ref;
	size_t rawsz = p->ix->rawsz;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp(p->ref[mid].oid, oid, rawsz) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*lo_out = lo;
	hi = lo;
	while (hi < p->nr_ref && !memcmp(p->ref[hi].oid, oid, rawsz))
		hi++;
	*hi_out = hi;
}

static int push_frame(struct worker *w, unsigned char *data, uint64_t size, uint32_t ent,
		      uint32_t olo, uint32_t ohi, uint32_t rlo, uint32_t rhi)
{
	struct frame *f;
	if (w->depth == w->stack_cap) {
		size_t want = w->stack_cap ? w->stack_cap * 2 : 64;
		struct frame *ns = realloc(w->stack, want * sizeof(*ns));
		if (!ns)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		w->stack = ns;
		w->stack_cap = want;
	}
	f = &w->stack[w->depth++];
	f->data = data;
	f->size = size;
	f->ent = ent;
	f->ofs_lo = olo;
	f->ofs_hi = ohi;
	f->ref_lo = rlo;
	f->ref_hi = rhi;
	return 0;
}

static void unwind(struct worker *w)
{
	while (w->depth)
		free(w->stack[--w->depth].data);
}

/* Resolve every delta below the base on top of w's stack, depth first. */
static int resolve_tree(struct pass2 *p, struct worker *w)
{
	struct fgit_indexer *ix = p->ix;

	while (w->depth) {
		struct frame *f = &w->stack[w->depth - 1];
		struct entry *base, *c;
		unsigned char *delta = NULL, *result = NULL;
		size_t rsize;
		uint32_t ci, olo, ohi, rlo, rhi;
		int ret;

		if (f->ofs_lo < f->ofs_hi)
			ci = p->ofs[f->ofs_lo++].ent;
		else if (f->ref_lo < f->ref_hi)
			ci = p->ref[f->ref_lo++].ent;
		else {
			free(f->data);
			w->depth--;
			continue;
		}
		c = &ix->e[ci];
		if (atomic_exchange(&c->claimed, 1))
			continue;
		base = &ix->e[f->ent];
		ret = load_entry(&delta, p, w, ci);
		if (ret)
			return ret;
		ret = pack_delta_patch(&result, &rsize, f->data, (size_t)f->size, delta,
				       (size_t)c->size, w->warn, sizeof(w->warn));
		free(delta);
		if (ret == FGIT_EINVALID)
			return bad_object(c->offset, "failed to apply delta");
		if (ret)
			return ret;
		c->real_type = base->real_type;
		if (ix->stats) {
			ix->stats[ci].depth = ix->stats[f->ent].depth + 1;
			ix->stats[ci].base = f->ent;
		}
		ret = name_object(OID(ix, ci), ix->algo, c->real_type, result, rsize);
		if (!ret)
			ret = check_collision(ix, OID(ix, ci), c->real_type, result, rsize);
		if (!ret && ci < p->nr_pack)
			ret = deliver(p, ci, c->real_type, result, rsize);
		if (ret) {
			free(result);
			return ret;
		}
		atomic_fetch_add(&p->resolved, 1);
		fgit_progress_add(p->prog, 1);

		ofs_range(p, c->offset, &olo, &ohi);
		rlo = rhi = 0;
		if (p->nr_ref)
			ref_range(p, OID(ix, ci), &rlo, &rhi);
		/* The base's last child: let go of the base before going down. */
		if (f->ofs_lo == f->ofs_hi && f->ref_lo == f->ref_hi) {
			free(f->data);
			w->depth--;
		}
		if (olo == ohi && rlo == rhi) {
			free(result);
			continue;
		}
		if (push_frame(w, result, rsize, ci, olo, ohi, rlo, rhi)) {
			free(result);
			return -1;
		}
	}
	return 0;
}

static int pass2_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct pass2 *p = payload;
	struct fgit_indexer *ix = p->ix;
	struct worker *w = &p->w[worker];
	size_t k;

	for (k = begin; k < end; k++) {
		uint32_t i = p->nondelta[k], olo, ohi, rlo = 0, rhi = 0;
		struct entry *e = &ix->e[i];
		unsigned char *data = NULL;
		int ret;

		if (p->err_code)
			return p->err_code;
		ofs_range(p, e->offset, &olo, &ohi);
		if (e->named && p->nr_ref)
			ref_range(p, OID(ix, i), &rlo, &rhi);
		/* a leaf pass 1 named already: nothing to do unless delivered */
		if (e->named && olo == ohi && rlo == rhi && !p->opts->object_cb)
			continue;
		ret = load_entry(&data, p, w, i);
		if (ret)
			return keep_error(p, w, ret);
		if (!e->named) {
			ret = name_object(OID(ix, i), ix->algo, e->type, data, (size_t)e->size);
			if (!ret)
				ret = check_collision(ix, OID(ix, i), e->type, data, (size_t)e->size);
			if (ret) {
				free(data);
				return keep_error(p, w, ret);
			}
			if (p->nr_ref)
				ref_range(p, OID(ix, i), &rlo, &rhi);
		}
		ret = deliver(p, i, e->type, data, (size_t)e->size);
		if (ret) {
			free(data);
			return keep_error(p, w, ret);
		}
		if (olo == ohi && rlo == rhi) {
			free(data);
			continue;
		}
		if (push_frame(w, data, e->size, i, olo, ohi, rlo, rhi)) {
			free(data);
			return keep_error(p, w, FGIT_ENOMEM);
		}
		ret = resolve_tree(p, w);
		if (ret) {
			unwind(w);
			return keep_error(p, w, ret);
		}
	}
	return 0;
}

static int cmp_ofs(const void *a, const void *b)
{
	const struct ofs_ref *x = a, *y = b;
	if (x->base_off != y->base_off)
		return x->base_off < y->base_off ? -1 : 1;
	return x->ent < y->ent ? -1 : x->ent > y->ent;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref_ref *x = a, *y = b;
	int c = memcmp(x->oid, y->oid, FGIT_MAX_RAWSZ);
	if (c)
		return c;
	return x->ent < y->ent ? -1 : x->ent > y->ent;
}

int fgit_index_pack_default_threads(void)
{
	/* git's choice too: more than 3 threads did not pay in its measurements. */
	int n = fgit_online_cpus();
	return n > 3 ? 3 : n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * --fix-thin: for each delta still unresolved, in pack order, append its
 * base from the local object database to the pack (where the trailer was)
 * and resolve what hangs off it; then rewrite the object count and the
 * trailer, as git does.  Single-threaded: thin packs miss few bases.
 */
static int fix_thin(struct pass2 *p, struct pass1 *p1, const struct fgit_index_pack_options *opts)
{
	struct fgit_indexer *ix = p->ix;
	uint32_t *todo = NULL, nr_todo = 0, k, nr0 = ix->nr;
	uint64_t end = ix->e[ix->nr].offset;
	unsigned char *buf = NULL;
	struct fgit_hash_ctx c;
	int ret = 0;

	todo = malloc(((size_t)p->nr_ref + 1) * sizeof(*todo));
	if (!todo)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (k = 0; k < p->nr_ref; k++)
		if (!atomic_load(&ix->e[p->ref[k].ent].claimed))
			todo[nr_todo++] = k;
	/* p->ref is sorted by base name; git appends in the deltas' pack order */
	for (k = 0; k < nr_todo; k++)
		todo[k] = p->ref[todo[k]].ent;
	qsort(todo, nr_todo, sizeof(*todo), cmp_u32);
	for (k = 0; k < nr_todo; k++) {
		uint32_t d = todo[k], lo, hi, j, n;
		const unsigned char *base_oid = NULL;
		struct fgit_oid oid, check;
		enum fgit_object_type type;
		void *data = NULL;
		size_t size;
		unsigned char hdr[16], *z;
		uLongf zlen;
		int hl;

		if (atomic_load(&ix->e[d].claimed))
			continue;
		for (j = 0; j < p->nr_ref; j++)
			if (p->ref[j].ent == d) {
				base_oid = p->ref[j].oid;
				break;
			}
		if (!base_oid)
			continue;
		fgit_oid_from_raw(&oid, base_oid, ix->algo);
		if (fgit_odb_read(&data, &size, &type, opts->fix_thin_odb, &oid))
			continue;
		if (fgit_hash_object(&check, ix->algo, type, data, size) ||
		    !fgit_oid_equal(&check, &oid)) {
			char hex[FGIT_MAX_HEXSZ + 1];
			free(data);
			ret = fgit_error_set(FGIT_EINVALID, "local object %s is corrupt",
					     fgit_oid_to_hex(hex, &oid));
			goto out;
		}
		hl = pack_obj_header(hdr, type, size);
		zlen = compressBound(size);
		z = malloc(zlen + (size_t)hl);
		if (!z || (memcpy(z, hdr, (size_t)hl),
			   compress2(z + hl, &zlen, data, size, opts->fix_thin_compression) != Z_OK)) {
			free(z);
			free(data);
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		if (ix->nr == UINT32_MAX || grow_arrays(p1, ix->nr + 1)) {
			free(z);
			free(data);
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		for (j = 0; j < (uint32_t)hl + zlen;) {
			ssize_t w = pwrite(p->fd, z + j, (size_t)hl + zlen - j, (off_t)(end + j));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				free(z);
				free(data);
				ret = fgit_error_errno(FGIT_ERROR, "cannot write pack file");
				goto out;
			}
			j += (uint32_t)w;
		}
		n = ix->nr++;
		memset(&ix->e[n], 0, sizeof(ix->e[n]));
		ix->e[n].offset = end;
		ix->e[n].size = size;
		ix->e[n].hdr_len = (uint8_t)hl;
		ix->e[n].type = ix->e[n].real_type = (uint8_t)type;
		ix->e[n].named = 1;
		ix->e[n].crc = (uint32_t)libdeflate_crc32(0, z, (size_t)hl + zlen);
		if (ix->stats) {
			ix->stats[n].base = UINT32_MAX;
			ix->stats[n].depth = 0;
		}
		memcpy(OID(ix, n), oid.hash, ix->rawsz);
		end += (uint64_t)hl + zlen;
		memset(&ix->e[ix->nr], 0, sizeof(ix->e[ix->nr]));
		ix->e[ix->nr].offset = end;
		ix->nr_local++;
		free(z);
		ref_range(p, OID(ix, n), &lo, &hi);
		if (push_frame(&p->w[0], data, size, n, 0, 0, lo, hi)) {
			free(data);
			ret = -1;
			goto out;
		}
		ret = resolve_tree(p, &p->w[0]);
		if (ret) {
			unwind(&p->w[0]);
			if (p->w[0].warn[0] && opts->warn)
				opts->warn(p->w[0].warn, opts->warn_payload);
			goto out;
		}
	}
	if (ix->nr == nr0)
		goto out;
	/* the new object count, and a trailer over the whole pack */
	{
		unsigned char cnt[4] = { (unsigned char)(ix->nr >> 24), (unsigned char)(ix->nr >> 16),
					 (unsigned char)(ix->nr >> 8), (unsigned char)ix->nr };
		uint64_t off = 0;
		if (pwrite(p->fd, cnt, 4, 8) != 4) {
			ret = fgit_error_errno(FGIT_ERROR, "cannot write pack file");
			goto out;
		}
		buf = malloc(READ_CHUNK);
		if (!buf) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		fgit_checksum_init(&c, ix->algo);
		while (off < end) {
			size_t want = end - off < READ_CHUNK ? (size_t)(end - off) : READ_CHUNK;
			ssize_t got = pread(p->fd, buf, want, (off_t)off);
			if (got <= 0) {
				ret = fgit_error_errno(FGIT_ERROR, "cannot pread pack file");
				goto out;
			}
			fgit_checksum_update(&c, buf, (size_t)got);
			off += (uint64_t)got;
		}
		fgit_checksum_final(ix->pack_hash, &c);
		if (pwrite(p->fd, ix->pack_hash, ix->rawsz, (off_t)end) != (ssize_t)ix->rawsz ||
		    ftruncate(p->fd, (off_t)(end + ix->rawsz))) {
			ret = fgit_error_errno(FGIT_ERROR, "cannot write pack file");
			goto out;
		}
	}
out:
	free(buf);
	free(todo);
	return ret;
}

static int run_pass2(struct pass1 *p1, int fd, const struct fgit_index_pack_options *opts,
		     int nthreads)
{
	struct fgit_indexer *ix = p1->ix;
	struct pass2 p;
	uint32_t nr_deltas = p1->nr_ofs + p1->nr_ref, unresolved;
	int i, ret = 0;

	memset(&p, 0, sizeof(p));
	p.ix = ix;
	p.opts = opts;
	p.nr_pack = ix->nr;
	p.fd = fd;
	p.nondelta = p1->nondelta;
	p.ofs = p1->ofs;
	p.nr_ofs = p1->nr_ofs;
	p.ref = p1->ref;
	p.nr_ref = p1->nr_ref;
	atomic_init(&p.resolved, 0);
	pthread_mutex_init(&p.err_lock, NULL);
	if (p1->nr_ofs)
		qsort(p1->ofs, p1->nr_ofs, sizeof(*p1->ofs), cmp_ofs);
	if (p1->nr_ref)
		qsort(p1->ref, p1->nr_ref, sizeof(*p1->ref), cmp_ref);

	p.w = calloc((size_t)nthreads, sizeof(*p.w));
	if (!p.w) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nthreads; i++) {
		p.w[i].dd = libdeflate_alloc_decompressor();
		if (!p.w[i].dd) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (nr_deltas && opts->progress_fd >= 0 && !(opts->flags & FGIT_INDEX_PACK_ONE_METER))
		p.prog = fgit_progress_new("Resolving deltas", nr_deltas, opts->progress_fd, 0);

	/* Chunks of a few bases: a base's delta tree is one unit of work, so
	 * small chunks keep the threads balanced when trees differ in size. */
	ret = fgit_parallel_for(p1->nr_nondelta, 4, nthreads, pass2_chunk, &p);
	if (ret) {
		if (p.err_warn[0] && opts->warn)
			opts->warn(p.err_warn, opts->warn_payload);
		if (p.err_code)
			fgit_error_set(p.err_code, "%s", p.err_msg);
		goto out;
	}
	unresolved = nr_deltas - atomic_load(&p.resolved);
	if (unresolved && opts->fix_thin_odb && p1->nr_ref) {
		ret = fix_thin(&p, p1, opts);
		if (ret)
			goto out;
		unresolved = nr_deltas - atomic_load(&p.resolved);
	}
	if (unresolved) {
		ret = fgit_error_set(FGIT_EINVALID, "pack has %u unresolved delta%s",
				     unresolved, unresolved == 1 ? "" : "s");
		goto out;
	}
	if (p.prog) {
		if (ix->nr_local) {
			char msg[64];
			snprintf(msg, sizeof(msg), "completed with %u local object%s",
				 ix->nr_local, ix->nr_local == 1 ? "" : "s");
			fgit_progress_done_msg(p.prog, msg);
		} else {
			fgit_progress_done(p.prog);
		}
		p.prog = NULL;
	}
out:
	if (p.prog) {
		/* git leaves a failed meter without its ", done." line */
		p.prog = NULL;
	}
	if (p.w) {
		for (i = 0; i < nthreads; i++) {
			if (p.w[i].dd)
				libdeflate_free_decompressor(p.w[i].dd);
			free(p.w[i].in);
			free(p.w[i].stack);
		}
		free(p.w);
	}
	pthread_mutex_destroy(&p.err_lock);
	return ret;
}

int fgit_indexer_run(struct fgit_indexer **out, int in_fd, int copy_fd,
		     const struct fgit_index_pack_options *opts)
{
	struct fgit_index_pack_options defaults = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_indexer *ix;
	struct pass1 p;
	struct stat st;
	int nthreads, ret;

	if (!opts)
		opts = &defaults;
	nthreads = opts->nthreads > 0 ? opts->nthreads : fgit_index_pack_default_threads();
	memset(&p, 0, sizeof(p));
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	ix->algo = opts->algo ? opts->algo : FGIT_HASH_SHA1;
	ix->rawsz = fgit_hash_rawsz(ix->algo);
	ix->flags = opts->flags;
	ix->odb = opts->collision_odb;
	p.ix = ix;
	p.r.fd = in_fd;
	p.r.copy_fd = copy_fd;
	p.r.is_file = !(opts->flags & FGIT_INDEX_PACK_STREAM) &&
		      !fstat(in_fd, &st) && S_ISREG(st.st_mode);
	p.r.show_bytes = !!(opts->flags & FGIT_INDEX_PACK_RECEIVING);
	p.r.opts = opts;
	p.name_inline = nthreads == 1;
	fgit_checksum_init(&p.r.csum, ix->algo);
	p.r.cap = 2 * READ_CHUNK;
	p.r.buf = malloc(p.r.cap);
	p.dd = libdeflate_alloc_decompressor();
	if (!p.r.buf || !p.dd) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.more, NULL);
	if (nthreads > 1) {
		p.q = malloc(HANDOFF_SLOTS * sizeof(*p.q));
		p.helper_running = p.q && !pthread_create(&p.helper, NULL, helper_main, &p);
	}
	ret = run_pass1(&p, opts);
	if (p.helper_running) {
		pthread_mutex_lock(&p.lock);
		p.done = 1;
		pthread_cond_signal(&p.more);
		pthread_mutex_unlock(&p.lock);
		pthread_join(p.helper, NULL);
		p.helper_running = 0;
	}
	free(p.q);
	pthread_cond_destroy(&p.more);
	pthread_mutex_destroy(&p.lock);
	/* a stream that failed: the copy gets every byte read, so that
	 * the caller can read the stream again (unpack-objects does); a
	 * failed write says so instead of the first error */
	if (ret && copy_fd >= 0 && (opts->flags & FGIT_INDEX_PACK_STREAM) && p.r.buf)
		pack_write(copy_fd, p.r.buf + p.r.hashed, p.r.len - p.r.hashed);
	if (ret)
		goto out;
	free(p.r.buf);
	p.r.buf = NULL;
	free(p.scratch);
	p.scratch = NULL;
	if (copy_fd < 0 && !p.r.is_file) {
		ret = fgit_error_set(FGIT_ERROR, "cannot read back a pack that is not a file");
		goto out;
	}
	ret = run_pass2(&p, copy_fd >= 0 ? copy_fd : in_fd, opts, nthreads);
out:
	if (p.r.prog)
		fgit_progress_done(p.r.prog);
	free(p.r.buf);
	free(p.scratch);
	if (p.dd)
		libdeflate_free_decompressor(p.dd);
	free(p.nondelta);
	free(p.ofs);
	free(p.ref);
	if (ret) {
		fgit_indexer_free(ix);
		return ret < 0 ? ret : FGIT_ERROR;
	}
	*out = ix;
	return 0;
}

void fgit_indexer_free(struct fgit_indexer *ix)
{
	if (!ix)
		return;
	free(ix->e);
	free(ix->oids);
	free(ix->stats);
	free(ix->leftover);
	free(ix);
}

uint32_t fgit_indexer_count(const struct fgit_indexer *ix)
{
	return ix->nr;
}

uint32_t fgit_indexer_local_objects(const struct fgit_indexer *ix)
{
	return ix->nr_local;
}

const unsigned char *fgit_indexer_pack_hash(const struct fgit_indexer *ix)
{
	return ix->pack_hash;
}

const unsigned char *fgit_indexer_leftover(const struct fgit_indexer *ix, size_t *len)
{
	*len = ix->leftover_len;
	return ix->leftover;
}

void fgit_indexer_entry(struct fgit_pack_entry_info *out, const struct fgit_indexer *ix,
			uint32_t i)
{
	const struct entry *e = &ix->e[i];
	fgit_oid_from_raw(&out->oid, OID(ix, i), ix->algo);
	out->type = e->real_type;
	out->pack_type = e->type;
	out->size = e->size;
	out->offset = e->offset;
	out->packed_size = ix->e[i + 1].offset - e->offset;
	out->crc32 = e->crc;
	out->depth = ix->stats ? ix->stats[i].depth : 0;
	out->base = ix->stats ? ix->stats[i].base : UINT32_MAX;
}

/* For idx.c: raw access without copying. */
const unsigned char *fgit__indexer_oid(const struct fgit_indexer *ix, uint32_t i)
{
	return OID(ix, i);
}
