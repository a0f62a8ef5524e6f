/*
 * Packs: .idx v1/v2 lookup, .pack v2/v3 entries, delta chains.
 *
 * The .idx is mapped read-only when the pack list is scanned and shared by
 * all threads.  The .pack is mapped read-only on first use (one mutex per
 * pack guards only that), and every later read is plain loads from the
 * shared mapping: no lock is held while inflating, so any number of threads
 * resolve objects at once.  Inflation uses libdeflate with the exact size
 * from the entry header (one call, no streaming state), with a per-thread
 * decompressor.  Delta chains are followed iteratively up to
 * ODB_MAX_DELTA_DEPTH, consulting the sharded delta-base cache at each step.
 *
 * Every offset and size read from the files is checked against the mapping
 * before use: a corrupt pack gives FGIT_EINVALID, never an access outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/hash.h"
#include "odb/bufpool.h"
#include "odb/odb_internal.h"

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

int pack_open_idx(struct pack **out, const char *idx_path, int algo)
{
	struct pack *p = NULL;
	struct stat st;
	void *map = MAP_FAILED;
	size_t rawsz = fgit_hash_rawsz(algo), len, n;
	int fd, r, i;
	uint64_t min, max;

	fd = open(idx_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgit_error_errno(errno == ENOENT ? FGIT_ENOTFOUND : FGIT_ERROR,
					"unable to open %s", idx_path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fgit_error_errno(FGIT_ERROR, "unable to stat %s", idx_path);
	}
	len = (size_t)st.st_size;
	if (len < 256 * 4 + 2 * rawsz) {
		close(fd);
		return fgit_error_set(FGIT_EINVALID, "index file %s is too small", idx_path);
	}
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return fgit_error_errno(FGIT_ERROR, "unable to mmap %s", idx_path);
	p = calloc(1, sizeof(*p));
	if (!p) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto fail;
	}
	p->idx_map = map;
	p->idx_size = len;
	p->algo = algo;
	p->rawsz = rawsz;
	p->mtime = (uint64_t)st.st_mtime;
	pthread_mutex_init(&p->lock, NULL);
	if (!memcmp(map, "\377tOc", 4)) {
		p->idx_version = (int)be32(p->idx_map + 4);
		if (p->idx_version != 2) {
			r = fgit_error_set(FGIT_EINVALID,
					   "index file %s is version %d and is not supported by this binary"
					   " (try upgrading GIT to a newer version)",
					   idx_path, p->idx_version);
			goto fail;
		}
		if (len < 8 + 256 * 4 + 2 * rawsz) {
			r = fgit_error_set(FGIT_EINVALID, "index file %s is too small", idx_path);
			goto fail;
		}
		p->fanout = p->idx_map + 8;
	} else {
		p->idx_version = 1;
		p->fanout = p->idx_map;
	}
	for (i = 1; i < 256; i++)
		if (be32(p->fanout + 4 * i) < be32(p->fanout + 4 * (i - 1))) {
			r = fgit_error_set(FGIT_EINVALID, "non-monotonic index %s", idx_path);
			goto fail;
		}
	p->nr = n = be32(p->fanout + 4 * 255);
	if (p->idx_version == 1) {
		if ((uint64_t)len != 1024 + (uint64_t)n * (rawsz + 4) + 2 * rawsz) {
			r = fgit_error_set(FGIT_EINVALID, "wrong index v1 file size in %s", idx_path);
			goto fail;
		}
		p->names = p->idx_map + 1024 + 4;
		p->name_stride = rawsz + 4;
	} else {
		min = 8 + 1024 + (uint64_t)n * (rawsz + 8) + 2 * rawsz;
		max = min + (n ? (uint64_t)(n - 1) * 8 : 0);
		/* as git, trailing bytes that fit the 64-bit table are tolerated */
		if ((uint64_t)len < min || (uint64_t)len > max) {
			r = fgit_error_set(FGIT_EINVALID, "wrong index v2 file size in %s", idx_path);
			goto fail;
		}
		p->names = p->idx_map + 8 + 1024;
		p->name_stride = rawsz;
		p->off32 = p->names + (size_t)n * rawsz + (size_t)n * 4;
		p->off64 = p->off32 + (size_t)n * 4;
		p->n_off64 = (size_t)(((uint64_t)len - min) / 8);
	}
	p->idx_path = strdup(idx_path);
	n = strlen(idx_path);
	p->pack_path = malloc(n + 2);
	if (!p->idx_path || !p->pack_path) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(p->pack_path, idx_path, n + 1);
	if (n > 4 && !strcmp(idx_path + n - 4, ".idx"))
		strcpy(p->pack_path + n - 4, ".pack");
	*out = p;
	return 0;
fail:
	if (p) {
		free(p->idx_path);
		free(p->pack_path);
		free(p);
	}
	munmap(map, len);
	return r;
}

void pack_free(struct pack *p)
{
	if (!p)
		return;
	if (p->data)
		munmap((void *)p->data, p->pack_file_size);
	munmap((void *)p->idx_map, p->idx_size);
	free(p->rev);
	free((void *)p->type_memo);
	free(p->bases);
	free(p->plan);
	pthread_mutex_destroy(&p->lock);
	free(p->idx_path);
	free(p->pack_path);
	free(p);
}

int pack_ensure_open(struct pack *p)
{
	struct stat st;
	void *map;
	int fd, r = 0;

	if (atomic_load_explicit(&p->state, memory_order_acquire) == 1)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (p->state == 1)
		goto out;
	fd = open(p->pack_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = fgit_error_errno(FGIT_ERROR, "packfile %s cannot be accessed", p->pack_path);
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		r = fgit_error_errno(FGIT_ERROR, "unable to stat %s", p->pack_path);
		goto out;
	}
	if ((uint64_t)st.st_size < 12 + p->rawsz) {
		close(fd);
		r = fgit_error_set(FGIT_EINVALID, "file %s is far too short to be a packfile",
				   p->pack_path);
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		r = fgit_error_errno(FGIT_ERROR, "unable to mmap %s", p->pack_path);
		goto out;
	}
	{
		const unsigned char *d = map;
		uint32_t ver = be32(d + 4), nr = be32(d + 8);
		if (memcmp(d, "PACK", 4))
			r = fgit_error_set(FGIT_EINVALID, "file %s is not a GIT packfile",
					   p->pack_path);
		else if (ver != 2 && ver != 3)
			r = fgit_error_set(FGIT_EINVALID, "packfile %s is version %u and not"
					   " supported (try upgrading GIT to a newer version)",
					   p->pack_path, ver);
		else if (nr != p->nr)
			r = fgit_error_set(FGIT_EINVALID, "packfile %s claims to have %u objects"
					   " while index indicates %u objects",
					   p->pack_path, nr, p->nr);
		else if (memcmp(d + st.st_size - p->rawsz,
				p->idx_map + p->idx_size - 2 * p->rawsz, p->rawsz))
			r = fgit_error_set(FGIT_EINVALID, "packfile %s does not match index",
					   p->pack_path);
		if (r < 0) {
			munmap(map, (size_t)st.st_size);
			goto out;
		}
	}
	p->data = map;
	p->pack_file_size = (uint64_t)st.st_size;
	p->data_size = (uint64_t)st.st_size - p->rawsz;	/* entries end at the trailer */
	atomic_store_explicit(&p->state, 1, memory_order_release);
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

void pack_name_at(struct fgit_oid *out, const struct pack *p, uint32_t pos)
{
	fgit_oid_from_raw(out, p->names + (size_t)pos * p->name_stride, p->algo);
}

int pack_offset_at(uint64_t *out, struct pack *p, uint32_t pos)
{
	if (p->idx_version == 1) {
		*out = be32(p->names + (size_t)pos * p->name_stride - 4);
		return 0;
	} else {
		uint32_t o = be32(p->off32 + 4 * (size_t)pos);
		if (!(o & 0x80000000u)) {
			*out = o;
			return 0;
		}
		o &= 0x7fffffffu;
		if (o >= p->n_off64)
			return fgit_error_set(FGIT_EINVALID, "bad offset for revindex in %s",
					      p->idx_path);
		*out = be64(p->off64 + 8 * (size_t)o);
		return 0;
	}
}

/* Does the name at position i sort before oid (whose first 8 bytes are key)? */
static inline int name_before(const struct pack *p, uint32_t i, uint64_t key,
			      const struct fgit_oid *oid)
{
	const unsigned char *name = p->names + (size_t)i * p->name_stride;
	uint64_t k = be64(name);

	return k < key || (k == key && memcmp(name + 8, oid->hash + 8, p->rawsz - 8) < 0);
}

/* The fanout's bucket [*lo, *hi) of oid, and where in it to look first. */
static inline uint32_t first_probe(uint32_t *lo, uint32_t *hi, const struct pack *p,
				   const struct fgit_oid *oid)
{
	unsigned b = oid->hash[0];

	*lo = b ? be32(p->fanout + 4 * (b - 1)) : 0;
	*hi = be32(p->fanout + 4 * b);
	return *lo + (uint32_t)(((uint64_t)be32(oid->hash + 1) * (*hi - *lo)) >> 32);
}

void pack_prefetch(const struct pack *p, const struct fgit_oid *oid)
{
	uint32_t lo, hi, g = first_probe(&lo, &hi, p, oid);

	if (g < p->nr)
		__builtin_prefetch(p->names + (size_t)g * p->name_stride);
}

uint32_t pack_lower_bound(const struct pack *p, const struct fgit_oid *oid)
{
	uint32_t lo, hi, g = first_probe(&lo, &hi, p, oid);
	uint64_t key = be64(oid->hash);

	/*
	 * Object names are uniformly distributed, so the bytes after the
	 * fanout's first one say where in the bucket the name sits: probe
	 * there, then gallop outwards until the name is bracketed and
	 * finish by bisection.  The probes stay within a few cache lines
	 * where bisection of a ~400-name bucket touches nine; commit -a of
	 * the 100,000-file corpus looks up every blob (git's "invalid
	 * object" check).  The bounds (all below lo sort before oid, none
	 * from hi on does) hold whatever the names are, so a skewed pack is
	 * only slower.
	 */
	if (hi - lo > 16) {
		uint32_t step = 1, t;

		if (name_before(p, g, key, oid)) {
			lo = g + 1;
			for (t = g + step; t < hi; t = g + step) {
				if (!name_before(p, t, key, oid)) {
					hi = t;
					break;
				}
				lo = t + 1;
				step *= 2;
			}
		} else {
			hi = g;
			for (; step <= g - lo; step *= 2) {
				t = g - step;
				if (name_before(p, t, key, oid)) {
					lo = t + 1;
					break;
				}
				hi = t;
			}
		}
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (name_before(p, mid, key, oid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pack_find(const struct pack *p, const struct fgit_oid *oid, uint32_t *pos)
{
	uint32_t i = pack_lower_bound(p, oid);
	if (i < p->nr && !memcmp(p->names + (size_t)i * p->name_stride, oid->hash, p->rawsz)) {
		*pos = i;
		return 1;
	}
	return 0;
}

/* ---- reverse index ---- */

struct rev_pair {
	uint64_t off;
	uint32_t pos;
};

static int rev_cmp(const void *a, const void *b)
{
	const struct rev_pair *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * rev[0..nr) lists idx positions in offset order; after it, rev[nr] is a
 * shift, rev[nr + 1] a power of two nb about nr, and rev[nr + 2 + b] (b
 * from 0 to nb) the first index into rev whose offset >> shift is b or
 * more: so rev_find looks at a bucket of one or two entries instead of
 * bisecting all of them through the .idx (pack writers find each entry's
 * end and delta base that way: ~19 cache misses per bisection).  An
 * offset past 2^63 (a corrupt .idx) is in no bucket: not found.
 */
int pack_ensure_rev(struct pack *p)
{
	struct rev_pair *pairs;
	uint32_t *rev, *bucket, i, nb = 1, shift = 0, b;
	int r = 0;

	if (atomic_load_explicit(&p->rev, memory_order_acquire))
		return 0;
	while (nb < p->nr && nb < (1u << 30))
		nb <<= 1;
	pairs = malloc(((size_t)p->nr + 1) * sizeof(*pairs));
	rev = malloc(((size_t)p->nr + nb + 3) * sizeof(*rev));
	if (!pairs || !rev) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < p->nr; i++) {
		if ((r = pack_offset_at(&pairs[i].off, p, i)) < 0)
			goto out;
		pairs[i].pos = i;
	}
	qsort(pairs, p->nr, sizeof(*pairs), rev_cmp);
	for (i = 0; i < p->nr; i++)
		rev[i] = pairs[i].pos;
	while (p->nr && shift < 63 && (pairs[p->nr - 1].off >> shift) >= nb)
		shift++;
	rev[p->nr] = shift;
	rev[p->nr + 1] = nb;
	bucket = rev + p->nr + 2;
	for (i = 0, b = 0; b <= nb; b++) {
		while (i < p->nr && (pairs[i].off >> shift) < b)
			i++;
		bucket[b] = i;
	}
	pthread_mutex_lock(&p->lock);
	if (!p->rev) {
		atomic_store_explicit(&p->rev, rev, memory_order_release);
		rev = NULL;
	}
	pthread_mutex_unlock(&p->lock);
out:
	free(pairs);
	free(rev);
	return r;
}

/* Index into rev of the entry at offset off, or -1. */
static int64_t rev_find(struct pack *p, uint64_t off)
{
	const uint32_t *bucket = p->rev + p->nr + 2;
	uint64_t b = off >> p->rev[p->nr];
	uint32_t lo, hi;

	if (b >= p->rev[p->nr + 1])
		return -1;	/* past the last entry */
	lo = bucket[b];
	hi = bucket[b + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t o;
		if (pack_offset_at(&o, p, p->rev[mid]) < 0)
			return -1;
		if (o == off)
			return mid;
		if (o < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- entries ---- */

struct entry {
	enum fgit_object_type type;
	uint64_t size;			/* inflated size (delta size for deltas) */
	uint64_t data_off;		/* start of the zlib stream */
	uint64_t base_off;		/* OFS_DELTA */
	struct fgit_oid base_oid;	/* REF_DELTA */
};

static int bad_entry(struct pack *p, uint64_t off, const char *what)
{
	return fgit_error_set(FGIT_EINVALID, "%s at offset %llu in %s", what,
			      (unsigned long long)off, p->pack_path);
}

static int parse_entry(struct entry *e, struct pack *p, uint64_t off)
{
	const unsigned char *d = p->data;
	uint64_t end = p->data_size, pos = off, size;
	unsigned shift = 4;
	unsigned char c;

	if (off < 12 || off >= end)
		return bad_entry(p, off, "offset out of range");
	c = d[pos++];
	e->type = (c >> 4) & 7;
	size = c & 15;
	while (c & 0x80) {
		if (pos >= end || shift > 57)
			return bad_entry(p, off, "bad object header");
		c = d[pos++];
		size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	e->size = size;
	if (e->type == FGIT_OBJ_OFS_DELTA) {
		uint64_t rel;
		if (pos >= end)
			return bad_entry(p, off, "bad delta base offset");
		c = d[pos++];
		rel = c & 0x7f;
		while (c & 0x80) {
			if (pos >= end || rel >= (UINT64_MAX >> 7) - 1)
				return bad_entry(p, off, "bad delta base offset");
			c = d[pos++];
			rel = ((rel + 1) << 7) | (c & 0x7f);
		}
		if (!rel || rel > off)
			return bad_entry(p, off, "delta base offset out of bound");
		e->base_off = off - rel;
	} else if (e->type == FGIT_OBJ_REF_DELTA) {
		if (end - pos < p->rawsz)
			return bad_entry(p, off, "truncated delta base");
		fgit_oid_from_raw(&e->base_oid, d + pos, p->algo);
		pos += p->rawsz;
	} else if (e->type < FGIT_OBJ_COMMIT || e->type > FGIT_OBJ_TAG) {
		return bad_entry(p, off, "unknown object type");
	}
	if (pos >= end)
		return bad_entry(p, off, "truncated object");
	e->data_off = pos;
	/* deflate cannot expand by more than ~1032x: reject absurd sizes early */
	if (e->size / 1032 > end - pos + 1)
		return bad_entry(p, off, "object size is larger than its data allows");
	return 0;
}

/* Inflate the zlib stream at data_off into buf, room for exactly e->size bytes. */
static int inflate_into(unsigned char *buf, struct pack *p, uint64_t off, const struct entry *e)
{
	struct libdeflate_decompressor *ld = odb_libdeflate();
	size_t in_used;
	enum libdeflate_result lr;

	if (!ld)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	lr = libdeflate_zlib_decompress_ex(ld, p->data + e->data_off,
					   (size_t)(p->data_size - e->data_off),
					   buf, (size_t)e->size, &in_used, NULL);
	if (lr != LIBDEFLATE_SUCCESS)
		return bad_entry(p, off, "inflate: data stream error: failed to read object");
	return 0;
}

/* Inflate the zlib stream at data_off into a new buffer of exactly size bytes. */
static int inflate_entry(unsigned char **out, struct pack *p, uint64_t off,
			 const struct entry *e)
{
	unsigned char *buf;
	int r;

	if (e->size >= SIZE_MAX || !(buf = odb_buf_alloc((size_t)e->size + 1)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory (%llu bytes)",
				      (unsigned long long)e->size);
	if ((r = inflate_into(buf, p, off, e)) < 0) {
		odb_buf_free(buf, (size_t)e->size);
		return r;
	}
	buf[e->size] = 0;
	*out = buf;
	return 0;
}

struct pack_bases {
	size_t n;
	uint64_t off[];
};

static int off_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The offsets of the pack's delta bases, from one pass over the entry
 * headers (kernel corpus: 83,016 entries, 4,920 bases), NULL while another
 * thread builds them (the caller goes on without: they only save work) or
 * if they cannot be built (out of memory, a bad entry: reading reports
 * that itself).  The headers are read in pack order: in .idx order every
 * one was on another page of the mapping, and building them took 8% of
 * grep --cached's CPU profile (kernel corpus), both threads building.
 */
static const struct pack_bases *pack_bases(struct pack *p, int drop_pages)
{
	struct pack_bases *b = atomic_load_explicit(&p->bases, memory_order_acquire);
	struct entry e;
	uint64_t *offs = NULL;
	uint32_t i;
	size_t n = 0, k;

	if (b || atomic_exchange(&p->bases_busy, 1))
		return b;
	b = malloc(sizeof(*b) + ((size_t)p->nr + 1) * sizeof(uint64_t));
	offs = malloc(((size_t)p->nr + 1) * sizeof(uint64_t));
	if (!b || !offs)
		goto fail;
	for (i = 0; i < p->nr; i++)
		if (pack_offset_at(&offs[i], p, i) < 0)
			goto fail;
	qsort(offs, p->nr, sizeof(uint64_t), off_cmp);
	for (i = 0; i < p->nr; i++) {
		uint32_t pos;
		if (parse_entry(&e, p, offs[i]) < 0)
			goto fail;
		if (e.type == FGIT_OBJ_OFS_DELTA)
			b->off[n++] = e.base_off;
		else if (e.type == FGIT_OBJ_REF_DELTA && pack_find(p, &e.base_oid, &pos) &&
			 pack_offset_at(&b->off[n], p, pos) == 0)
			n++;
	}
	free(offs);
	qsort(b->off, n, sizeof(uint64_t), off_cmp);
	for (i = 0, k = 0; i < n; i++)
		if (!k || b->off[k - 1] != b->off[i])
			b->off[k++] = b->off[i];
	b->n = k;
	atomic_store_explicit(&p->bases, b, memory_order_release);
	/*
	 * The pass touched every page of the mapping.  Read in pack order,
	 * the pages are needed again only as the reads get to them: unmap
	 * them from this process now (they stay in the page cache), or they
	 * all count in its resident size from the start.  cat-file
	 * --batch-all-objects --unordered, history corpus (282 MB pack):
	 * peak RSS 518 MB (anonymous 221, file 297 at that moment) without.
	 */
	if (drop_pages)
		madvise((void *)p->data, (size_t)p->pack_file_size, MADV_DONTNEED);
	return b;
fail:
	free(offs);
	free(b);
	return NULL;	/* bases_busy stays set: not tried again */
}

static int is_base(struct fgit_odb *odb, struct pack *p, uint64_t off)
{
	const struct pack_bases *b = pack_bases(p, odb->pack_order);
	return b && bsearch(&off, b->off, b->n, sizeof(uint64_t), off_cmp);
}

/*
 * FGIT_ODB_ACCESS_ALL_BY_ID: every object is read once, in id order, so
 * reads land all over the delta forest of each pack.  A cache of least
 * recently used bases, git's way, keeps chain levels whose deltas have all
 * been read already and drops bases with thousands of reads still to come.
 * Knowing what is left to read, the cache can do better: the plan maps
 * each entry (by its index in offset order) to its base's, and counts
 * for each entry the reads to come of it and of every entry resting on
 * it; a read counts its whole chain down, a base whose count reaches zero
 * leaves the cache at once, and a full cache evicts by worth (cache.c).
 *
 * History corpus (507,773 objects, chains up to 50 deep), cat-file
 * --batch-all-objects --batch with a 96 MiB cache, modelled first on the
 * pack's chains (every 8th level cached, bytes of objects built): least
 * recently used 18.4 GB, the counts 10.7 GB, evicting by farthest next use
 * (Belady's, knowing the whole order) 10.6 GB; measured in fgit: see
 * cache.c.  Building the plan is one pass over the pack's entry headers.
 */
struct pack_plan {
	int32_t *parent;		/* its base's index, or -1 (none, other pack) */
	_Atomic uint32_t *pending;	/* reads to come of it and what rests on it */
};

struct plan_fix {
	uint32_t i;
	uint32_t n;
};

static struct pack_plan *pack_plan(struct pack *p)
{
	struct pack_plan *pl = atomic_load_explicit(&p->plan, memory_order_acquire);
	uint32_t *count;
	struct plan_fix *fix = NULL;
	size_t nfix = 0, fix_alloc = 0, k;
	uint32_t i, pos;
	struct entry e;

	if (pl || atomic_exchange(&p->plan_busy, 1))
		return pl;
	if (p->nr > INT32_MAX || pack_ensure_rev(p) < 0)
		return NULL;	/* plan_busy stays set: not tried again */
	pl = malloc(sizeof(*pl) + (size_t)p->nr * (sizeof(int32_t) + sizeof(uint32_t)));
	if (!pl)
		return NULL;
	pl->parent = (int32_t *)(pl + 1);
	count = (uint32_t *)(pl->parent + p->nr);
	for (i = 0; i < p->nr; i++) {
		uint64_t off, boff;
		int64_t b = -1;
		count[i] = 1;
		if (pack_offset_at(&off, p, p->rev[i]) < 0 || parse_entry(&e, p, off) < 0) {
			pl->parent[i] = -1;
			continue;	/* the read will say what is wrong */
		}
		if (e.type == FGIT_OBJ_OFS_DELTA)
			b = rev_find(p, e.base_off);
		else if (e.type == FGIT_OBJ_REF_DELTA && pack_find(p, &e.base_oid, &pos) &&
			 pack_offset_at(&boff, p, pos) == 0)
			b = rev_find(p, boff);
		pl->parent[i] = b == i ? -1 : (int32_t)b;
	}
	/*
	 * Totals: a base lies before its deltas (always so for OFS_DELTA), so
	 * one pass from the end adds each entry's total into its base's.  A
	 * REF_DELTA on a later entry (a completed thin pack) adds its total,
	 * as it was before any such fix, to every entry up its chain instead.
	 */
	for (i = p->nr; i-- > 0;) {
		int32_t b = pl->parent[i];
		if (b < 0)
			continue;
		if ((uint32_t)b < i) {
			count[b] += count[i];
			continue;
		}
		if (nfix == fix_alloc) {
			struct plan_fix *f = realloc(fix, (fix_alloc * 2 + 16) * sizeof(*fix));
			if (!f)
				continue;	/* counts stay low: the cache chooses less well */
			fix = f;
			fix_alloc = fix_alloc * 2 + 16;
		}
		fix[nfix].i = i;
		fix[nfix++].n = count[i];
	}
	for (k = 0; k < nfix; k++) {
		int32_t b = pl->parent[fix[k].i];
		int hops;
		for (hops = 0; b >= 0 && hops < ODB_MAX_DELTA_DEPTH; hops++, b = pl->parent[b])
			count[b] += fix[k].n;
	}
	free(fix);
	pl->pending = (_Atomic uint32_t *)count;
	atomic_store_explicit(&p->plan, pl, memory_order_release);
	return pl;
}

/* The read of entry i is done: count it down its chain; a base no read
 * to come rests on leaves the cache. */
static void plan_done(struct fgit_odb *odb, struct pack *p, struct pack_plan *pl, int32_t i)
{
	int hops;

	for (hops = 0; i >= 0 && hops < ODB_MAX_DELTA_DEPTH; hops++, i = pl->parent[i]) {
		uint32_t n = atomic_load_explicit(&pl->pending[i], memory_order_relaxed);
		uint64_t off;
		while (n && !atomic_compare_exchange_weak_explicit(&pl->pending[i], &n, n - 1,
								   memory_order_relaxed,
								   memory_order_relaxed))
			;
		if (n == 1 && pack_offset_at(&off, p, p->rev[i]) == 0)
			odb_cache_drop(odb->cache, p, off);
	}
}

/* Whether the plan knows entry i and no read to come after the one under
 * way needs it (not worth caching). */
static int plan_unwanted(const struct pack_plan *pl, int32_t i)
{
	return pl && i >= 0 && atomic_load_explicit(&pl->pending[i], memory_order_relaxed) <= 1;
}

/* The count of reads to come of entry i, for the cache to rank it by, or
 * NULL if the plan does not know it or nothing more needs it. */
static const _Atomic uint32_t *plan_wanted(const struct pack_plan *pl, int32_t i)
{
	return pl && i >= 0 && !plan_unwanted(pl, i) ? &pl->pending[i] : NULL;
}

struct chain_ent {
	struct pack *p;
	uint64_t off;
	int32_t plan_i;		/* its index in pack_plan, or -1 */
	struct entry e;
};

static _Thread_local int read_depth;

/*
 * Which results of a delta chain go into the delta-base cache: the chain's
 * base and every odb->cache_every-th delta above it (the levels between
 * are built in per-thread scratch buffers).  In pack order every level is
 * worth caching, as the next object usually sits on the last one (1 vs 8:
 * cat-file --batch-all-objects --unordered on the history corpus, 5.6 s
 * against 6.9 s CPU).  In id order (FGIT_ODB_ACCESS_RANDOM) caching every
 * level churned the cache, allocating, inserting and evicting more than
 * it saved; there every 8th level is cached (trees there are 19 deltas
 * deep on average).  Serial reads of 50,000 sorted ids: 3.0 s CPU caching
 * every level, 1.1 s every 4th, 0.94 s every 8th, 0.95 every 16th, 1.0
 * every 32nd.
 */
#define ODB_RANDOM_CACHE_EVERY 8

/*
 * The delta-base cache budget when reading in pack order.  cat-file
 * --batch-all-objects --unordered on the history corpus (507,773 objects,
 * one thread), inflations and delta applications against the budget:
 * 96 MiB 731,206 and 576,609; 48 MiB 753,187 and 594,475 (+3%); 32 MiB
 * 810,357 and 645,283 (+11%); peak anonymous memory 232, 121 and 102 MiB
 * (the heap holds about twice the cache's bytes, fragmented by evictions).
 */
#define ODB_PACK_ORDER_CACHE_LIMIT (48u << 20)

/*
 * The budget when each object is read once (grep of the index or a tree).
 * Kernel corpus, grep --cached INITRAMFS_ROOT_UID, 2 threads, against the
 * budget (load average 13-16, CPU user+sys averaged over 3 runs): 96 MiB
 * 1,138 MB inflated, 4.11 s CPU, peak RSS 484-508 MiB; 16 MiB 1,541 MB,
 * 3.59 s, 391-413 MiB; 8 MiB 1,673 MB, 3.22 s, 379-382 MiB (git 411 MiB).
 * Inflating the bigger bases again costs less than the page faults of
 * the memory a bigger cache takes (this VM's faults are dear); grep
 * HEAD~1 on kernel-grep alike: 4.01 s (96 MiB), 3.24 s (8), 3.58 s (4).
 */
/*
 * Tried in session 6, not kept (same corpus and command, bytes inflated
 * counted in inflate_into, CPU too noisy under load to show a gain): each
 * base dropped from the cache once all the deltas on it in its pack were
 * built: 1,775 MB inflated against 1,739 MB without (8 MiB budget), no
 * better at 16 or 32 MiB.  The redundant inflation (about 1,107 MB of
 * blobs) is nearly all the amdgpu asic_reg headers: 373 files, 390 MB,
 * chains on bases of 6 to 24 MB that no small cache keeps; budgets of
 * 24/32/48 MiB inflate 1,532/1,464/1,340 MB but peak RSS grows to
 * 393-412/405-420/433-443 MiB against git's 387-425.
 */
#define ODB_ONCE_EACH_CACHE_LIMIT (8u << 20)

/*
 * The budget when every object is read in id order (the reads to come
 * counted, cache.c's ranks): cat-file --batch-all-objects --batch on the
 * history corpus, one run each on the idle machine, wall time and peak
 * RSS against the budget: 96 MiB 7.9-9.0 s and 486-492 MB (git 465-478
 * MB); 80 MiB 8.15 s, 468 MB; 64 MiB 8.26 s, 449 MB.  Counting the reads
 * keeps the bases still wanted, so a smaller cache loses little.
 */
#define ODB_ALL_BY_ID_CACHE_LIMIT (64u << 20)

void fgit_odb_set_access(struct fgit_odb *odb, enum fgit_odb_access how)
{
	size_t i, limit = odb_cache_limit(odb);
	odb->cache_every = how == FGIT_ODB_ACCESS_RANDOM || how == FGIT_ODB_ACCESS_ALL_BY_ID
		? ODB_RANDOM_CACHE_EVERY : 1;
	if (how == FGIT_ODB_ACCESS_PACK_ORDER && limit > ODB_PACK_ORDER_CACHE_LIMIT)
		limit = ODB_PACK_ORDER_CACHE_LIMIT;
	if (how == FGIT_ODB_ACCESS_ONCE_EACH && limit > ODB_ONCE_EACH_CACHE_LIMIT)
		limit = ODB_ONCE_EACH_CACHE_LIMIT;
	if (how == FGIT_ODB_ACCESS_ALL_BY_ID && limit > ODB_ALL_BY_ID_CACHE_LIMIT)
		limit = ODB_ALL_BY_ID_CACHE_LIMIT;
	odb_cache_set_limit(odb->cache, limit);
	odb->keep_bases = how == FGIT_ODB_ACCESS_ONCE_EACH || how == FGIT_ODB_ACCESS_PACK_ORDER;
	odb->pack_order = how == FGIT_ODB_ACCESS_PACK_ORDER;
	odb->plan_all = how == FGIT_ODB_ACCESS_ALL_BY_ID;
	/* only cat-file --batch-all-objects reads so, which maps big blocks apart */
	odb_buf_huge_pages(how == FGIT_ODB_ACCESS_PACK_ORDER || how == FGIT_ODB_ACCESS_RANDOM ||
			   how == FGIT_ODB_ACCESS_ALL_BY_ID);
	for (i = 0; i < odb->nalts; i++)
		fgit_odb_set_access(odb->alts[i], how);
}

void fgit_odb_set_cache_limit(struct fgit_odb *odb, size_t limit)
{
	size_t i, conf = odb_cache_limit(odb);
	odb_cache_set_limit(odb->cache, limit && limit < conf ? limit : conf);
	for (i = 0; i < odb->nalts; i++)
		fgit_odb_set_cache_limit(odb->alts[i], limit);
}

void fgit_odb_drop_cache(struct fgit_odb *odb)
{
	size_t i;
	odb_cache_clear(odb->cache);
	for (i = 0; i < odb->nalts; i++)
		fgit_odb_drop_cache(odb->alts[i]);
}

int pack_read(void **out, size_t *size_out, enum fgit_object_type *type_out,
	      struct fgit_buf *into, struct odb_cache_entry **view, struct fgit_odb *odb,
	      struct pack *p, uint64_t off, uint64_t cap)
{
	struct chain_ent small[32], *chain = small, *tmp;
	size_t n = 0, alloc = 32;
	struct odb_cache_entry *cur_ent = NULL;	/* the base, when cached */
	unsigned char *cur = NULL;		/* the base, when ours to free */
	const unsigned char *scr = NULL;	/* the base, in a scratch buffer */
	int scr_idx = 0, depth = 0, keep_final;
	size_t cur_size = 0;
	enum fgit_object_type cur_type = FGIT_OBJ_BAD;
	struct entry e;
	struct pack_plan *pl = NULL;	/* p's, when the reads to come are counted */
	struct pack *plan_p = p;
	int32_t plan_i = -1, cur_i;	/* the object's and the chain level's index in
					 * pl; -1 once the chain leaves plan_p */
	int r = 0;

	if (read_depth > 8)
		return fgit_error_set(FGIT_EINVALID, "delta base recursion too deep");
	read_depth++;
	if ((r = pack_ensure_open(p)) < 0)
		goto out;
	/* read whole now, wanted again as a base: into the cache with it */
	if (odb->plan_all && read_depth == 1 && (pl = pack_plan(p)))
		plan_i = (int32_t)rev_find(p, off);
	if (pl)
		keep_final = plan_wanted(pl, plan_i) != NULL;
	else
		keep_final = odb->keep_bases && is_base(odb, p, off);
	cur_i = plan_i;
	for (;;) {
		if ((r = pack_ensure_open(p)) < 0)
			goto out;
		if ((cur_ent = odb_cache_get(odb->cache, p, off))) {
			cur_size = cur_ent->size;
			cur_type = cur_ent->type;
			depth = cur_ent->depth;
			break;
		}
		if ((r = parse_entry(&e, p, off)) < 0)
			goto out;
		if (e.type != FGIT_OBJ_OFS_DELTA && e.type != FGIT_OBJ_REF_DELTA) {
			if (!n && e.size > cap) {
				*size_out = (size_t)e.size;
				*type_out = e.type;
				r = 1;
				goto out;
			}
			if (!n && keep_final && !odb_cache_keeps(odb->cache, (size_t)e.size))
				keep_final = 0;	/* the cache would not keep it: no copy */
			if (!n && into && !keep_final) {	/* straight into the caller's buffer */
				unsigned char *dst = odb_into_buf(into, e.size);
				if (!dst) {
					r = -1;
					goto out;
				}
				if ((r = inflate_into(dst, p, off, &e)) < 0)
					goto out;
				scr = dst;
			} else if ((r = inflate_entry(&cur, p, off, &e)) < 0) {
				goto out;
			}
			cur_size = (size_t)e.size;
			cur_type = e.type;
			if (n && plan_unwanted(pl, cur_i))
				break;	/* no read to come rests on it: ours alone */
			if (n || keep_final) {	/* a base: share it */
				cur_ent = odb_cache_add(odb->cache, p, off, cur_type, cur, cur_size, 0,
							plan_wanted(pl, cur_i));
				cur = NULL;
				if (!cur_ent) {
					r = fgit_error_set(FGIT_ENOMEM, "out of memory");
					goto out;
				}
			}
			break;
		}
		if (n >= ODB_MAX_DELTA_DEPTH) {
			r = bad_entry(p, off, "delta chain too deep");
			goto out;
		}
		if (n == alloc) {
			alloc *= 2;
			tmp = chain == small ? malloc(alloc * sizeof(*chain))
				: realloc(chain, alloc * sizeof(*chain));
			if (!tmp) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
			if (chain == small)
				memcpy(tmp, small, sizeof(small));
			chain = tmp;
		}
		chain[n].p = p;
		chain[n].off = off;
		chain[n].plan_i = cur_i;
		chain[n].e = e;
		n++;
		cur_i = pl && cur_i >= 0 ? pl->parent[cur_i] : -1;
		if (e.type == FGIT_OBJ_OFS_DELTA) {
			off = e.base_off;
		} else {
			struct pack *q;
			uint64_t qoff;
			if ((r = odb_find_packed(&q, &qoff, odb, &e.base_oid)) < 0)
				goto out;
			if (r) {
				if (q != plan_p)
					cur_i = -1;
				p = q;
				off = qoff;
			} else {
				void *b;
				size_t bs;
				r = fgit_odb_read(&b, &bs, &cur_type, odb, &e.base_oid);
				if (r < 0) {
					char hex[FGIT_MAX_HEXSZ + 1];
					if (r == FGIT_ENOTFOUND)
						r = fgit_error_set(FGIT_EINVALID,
							"failed to read delta base object %s",
							fgit_oid_to_hex(hex, &e.base_oid));
					goto out;
				}
				cur = b;
				cur_size = bs;
				break;
			}
		}
	}
	/* Apply the deltas from the base outwards. */
	while (n) {
		struct chain_ent *c = &chain[--n];
		unsigned char *delta, *delta_own = NULL, *res, *res_own = NULL;
		const unsigned char *base = cur_ent ? cur_ent->data : cur ? cur : scr;
		int keep, res_idx = 0;
		uint64_t src, dst;

		depth++;
		if (c->e.size >= SIZE_MAX) {
			r = fgit_error_set(FGIT_ENOMEM, "object too large");
			goto out;
		}
		if (!(delta = odb_scratch(0, (size_t)c->e.size + 1))) {
			if ((r = inflate_entry(&delta_own, c->p, c->off, &c->e)) < 0)
				goto out;
			delta = delta_own;
		} else if ((r = inflate_into(delta, c->p, c->off, &c->e)) < 0) {
			goto out;
		}
		if (fgit_delta_sizes(delta, (size_t)c->e.size, &src, &dst) < 0 ||
		    src != cur_size) {
			odb_buf_free(delta_own, (size_t)c->e.size);
			r = bad_entry(c->p, c->off, "delta base size mismatch");
			goto out;
		}
		if (!n && dst > cap) {
			odb_buf_free(delta_own, (size_t)c->e.size);
			*size_out = (size_t)dst;
			*type_out = cur_type;
			r = 1;
			goto out;
		}
		if (dst >= SIZE_MAX) {
			odb_buf_free(delta_own, (size_t)c->e.size);
			r = fgit_error_set(FGIT_ENOMEM, "object too large");
			goto out;
		}
		if (!n && keep_final && !odb_cache_keeps(odb->cache, (size_t)dst))
			keep_final = 0;
		/* the result itself, or a checkpoint for the cache: malloc;
		 * anything else: the scratch buffer the base is not in */
		keep = !n || (depth % odb->cache_every == 0 && !plan_unwanted(pl, c->plan_i));
		res = NULL;
		if (!keep) {
			res_idx = scr && scr_idx == 1 ? 2 : 1;
			res = odb_scratch(res_idx, (size_t)dst + 1);
		} else if (!n && into && !keep_final && !(res = odb_into_buf(into, dst))) {
			odb_buf_free(delta_own, (size_t)c->e.size);
			r = -1;
			goto out;
		}
		if (!res && !(res = res_own = odb_buf_alloc((size_t)dst + 1))) {
			odb_buf_free(delta_own, (size_t)c->e.size);
			r = fgit_error_set(FGIT_ENOMEM, "Out of memory, malloc failed"
					   " (tried to allocate %llu bytes)",
					   (unsigned long long)dst + 1);
			goto out;
		}
		r = fgit_delta_apply(res, (size_t)dst, base, cur_size, delta, (size_t)c->e.size);
		odb_buf_free(delta_own, (size_t)c->e.size);
		if (r < 0) {
			char why[256];
			snprintf(why, sizeof(why), "failed to apply delta (%s)", fgit_error_last());
			odb_buf_free(res_own, (size_t)dst);
			r = bad_entry(c->p, c->off, why);
			goto out;
		}
		res[dst] = 0;
		odb_cache_put(cur_ent);
		cur_ent = NULL;
		odb_buf_free(cur, cur_size);
		cur = NULL;
		scr = NULL;
		if ((n && keep) || (!n && keep_final)) {
			cur_ent = odb_cache_add(odb->cache, c->p, c->off, cur_type, res_own,
						(size_t)dst, depth, plan_wanted(pl, c->plan_i));
			if (!cur_ent) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
		} else if (res_own) {
			cur = res_own;
		} else {
			scr = res;
			scr_idx = res_idx;
		}
		cur_size = (size_t)dst;
	}
	if (into) {		/* the result is in scr = into->ptr, or cached */
		if (cur_ent) {	/* a fresh block if it grows: no realloc copying */
			unsigned char *dst = odb_into_buf(into, cur_size);
			if (!dst) {
				r = -1;
				goto out;
			}
			memcpy(dst, cur_ent->data, cur_size);
		}
		fgit_buf_setlen(into, cur_size);
		*size_out = cur_size;
		*type_out = cur_type;
		r = 0;
		goto out;
	}
	if (view) {		/* the cached entry itself, or ours wrapped */
		if (!cur_ent) {
			cur_ent = odb_cache_wrap(cur_type, cur, cur_size);
			cur = NULL;
			if (!cur_ent) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
		}
		*view = cur_ent;
		cur_ent = NULL;
		*size_out = cur_size;
		*type_out = cur_type;
		r = 0;
		goto out;
	}
	if (cur_ent) {		/* the object itself was cached: copy it */
		cur = odb_buf_alloc(cur_size + 1);
		if (!cur) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(cur, cur_ent->data, cur_size);
		cur[cur_size] = 0;
	}
	*out = cur;
	cur = NULL;
	*size_out = cur_size;
	*type_out = cur_type;
	r = 0;
out:
	if (r >= 0 && pl && plan_i >= 0)
		plan_done(odb, plan_p, pl, plan_i);
	if (r && into)
		fgit_buf_reset(into);
	odb_cache_put(cur_ent);
	odb_buf_free(cur, cur_size);
	if (chain != small)
		free(chain);
	read_depth--;
	return r;
}

/* Target size of a delta: inflate only its first bytes. */
static int delta_target_size(uint64_t *out, struct pack *p, uint64_t off,
			     const struct entry *e)
{
	unsigned char hdr[32];
	z_stream *zs = odb_zstream();
	uint64_t src;
	uint64_t avail = p->data_size - e->data_off;
	int zr;

	if (!zs)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	zs->next_in = (unsigned char *)p->data + e->data_off;
	zs->avail_in = avail > 4096 ? 4096 : (uInt)avail;
	zs->next_out = hdr;
	zs->avail_out = e->size < sizeof(hdr) ? (uInt)e->size : sizeof(hdr);
	do {
		zr = inflate(zs, Z_SYNC_FLUSH);
	} while (zr == Z_OK && zs->avail_out && zs->avail_in);
	if ((zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) ||
	    fgit_delta_sizes(hdr, (size_t)(zs->next_out - hdr), &src, out) < 0)
		return bad_entry(p, off, "corrupt delta header");
	return 0;
}

/*
 * The type of a deltified entry is its chain's base type, which takes a walk
 * down the chain (ten hops on average in a git-packed history).  Each walk
 * records the answer for every entry it passed, so most later walks stop
 * after one hop.  Entries are written and read with relaxed atomics: a
 * racing writer stores the same value.
 */
static _Atomic uint64_t *type_memo(struct pack *p)
{
	_Atomic uint64_t *m = atomic_load_explicit(&p->type_memo, memory_order_acquire);
	size_t cap = 64;

	if (m)
		return m;
	while (cap < 2 * (size_t)p->nr)
		cap *= 2;
	m = calloc(cap, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_lock(&p->lock);
	if (!p->type_memo) {
		p->type_memo_mask = cap - 1;
		atomic_store_explicit(&p->type_memo, m, memory_order_release);
		m = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	free((void *)m);
	return atomic_load_explicit(&p->type_memo, memory_order_acquire);
}

static inline size_t memo_slot(uint64_t off, size_t mask)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static enum fgit_object_type memo_get(struct pack *p, uint64_t off)
{
	_Atomic uint64_t *m = atomic_load_explicit(&p->type_memo, memory_order_acquire);
	size_t i, n;
	if (!m)
		return FGIT_OBJ_NONE;
	for (i = memo_slot(off, p->type_memo_mask), n = 0; n <= p->type_memo_mask;
	     i = (i + 1) & p->type_memo_mask, n++) {
		uint64_t v = atomic_load_explicit(&m[i], memory_order_relaxed);
		if (!v)
			return FGIT_OBJ_NONE;
		if (v >> 3 == off)
			return (enum fgit_object_type)(v & 7);
	}
	return FGIT_OBJ_NONE;
}

static void memo_put(struct pack *p, uint64_t off, enum fgit_object_type t)
{
	_Atomic uint64_t *m = type_memo(p);
	uint64_t want = off << 3 | (uint64_t)t;
	size_t i, n;
	if (!m || off >> 60)
		return;
	for (i = memo_slot(off, p->type_memo_mask), n = 0; n <= p->type_memo_mask;
	     i = (i + 1) & p->type_memo_mask, n++) {
		uint64_t v = 0;
		if (atomic_compare_exchange_strong_explicit(&m[i], &v, want,
							    memory_order_relaxed,
							    memory_order_relaxed))
			return;
		if (v >> 3 == off)
			return;
	}
}

int pack_info(struct fgit_object_info *out, struct fgit_odb *odb,
	      struct pack *p, uint64_t off, unsigned int flags)
{
	struct fgit_object_info info;
	struct entry e;
	struct pack *q = p;
	uint64_t qoff = off;
	int r, depth;
	struct { struct pack *p; uint64_t off; } visit[64];
	size_t nvisit = 0;

	memset(&info, 0, sizeof(info));
	info.where = FGIT_WHERE_PACKED;
	fgit_oid_zero(&info.delta_base, p->algo);
	if ((r = pack_ensure_open(p)) < 0 || (r = parse_entry(&e, p, off)) < 0)
		return r;
	if (e.type == FGIT_OBJ_OFS_DELTA || e.type == FGIT_OBJ_REF_DELTA) {
		if ((flags & FGIT_INFO_SIZE) &&
		    (r = delta_target_size(&info.size, p, off, &e)) < 0)
			return r;
		if (flags & FGIT_INFO_DELTA_BASE) {
			if (e.type == FGIT_OBJ_REF_DELTA) {
				info.delta_base = e.base_oid;
			} else {
				int64_t ri;
				if ((r = pack_ensure_rev(p)) < 0)
					return r;
				if ((ri = rev_find(p, e.base_off)) < 0)
					return bad_entry(p, off, "bad delta base offset");
				pack_name_at(&info.delta_base, p, p->rev[ri]);
			}
		}
	} else {
		info.size = e.size;
	}
	if (flags & FGIT_INFO_DISK_SIZE) {
		int64_t ri;
		uint64_t next;
		if ((r = pack_ensure_rev(p)) < 0)
			return r;
		if ((ri = rev_find(p, off)) < 0)
			return bad_entry(p, off, "offset not in index");
		if ((uint64_t)ri + 1 < p->nr) {
			if ((r = pack_offset_at(&next, p, p->rev[ri + 1])) < 0)
				return r;
		} else {
			next = p->data_size;
		}
		info.disk_size = next - off;
	}
	/* The type of a delta is its base's. */
	if ((flags & FGIT_INFO_TYPE) &&
	    (e.type == FGIT_OBJ_OFS_DELTA || e.type == FGIT_OBJ_REF_DELTA)) {
		enum fgit_object_type t = memo_get(p, off);
		if (t) {
			info.type = t;
			*out = info;
			return 0;
		}
	}
	for (depth = 0; e.type == FGIT_OBJ_OFS_DELTA || e.type == FGIT_OBJ_REF_DELTA;
	     depth++) {
		enum fgit_object_type t;
		if (!(flags & FGIT_INFO_TYPE))
			break;
		if (nvisit < sizeof(visit) / sizeof(visit[0])) {
			visit[nvisit].p = q;
			visit[nvisit++].off = qoff;
		}
		if (depth >= ODB_MAX_DELTA_DEPTH)
			return bad_entry(q, qoff, "delta chain too deep");
		if (e.type == FGIT_OBJ_OFS_DELTA) {
			qoff = e.base_off;
		} else {
			if ((r = odb_find_packed(&q, &qoff, odb, &e.base_oid)) < 0)
				return r;
			if (!r) {
				struct fgit_object_info bi;
				if ((r = fgit_odb_read_info(&bi, odb, &e.base_oid,
							    FGIT_INFO_TYPE)) < 0)
					return r;
				e.type = bi.type;
				break;
			}
		}
		if ((t = memo_get(q, qoff))) {
			e.type = t;
			break;
		}
		if ((r = pack_ensure_open(q)) < 0 || (r = parse_entry(&e, q, qoff)) < 0)
			return r;
	}
	if (e.type >= FGIT_OBJ_COMMIT && e.type <= FGIT_OBJ_TAG) {
		size_t k;
		for (k = 0; k < nvisit; k++)
			memo_put(visit[k].p, visit[k].off, e.type);
	}
	info.type = e.type;
	*out = info;
	return 0;
}

int pack_entry_raw(struct pack *p, uint64_t off, enum fgit_object_type *type,
		   uint64_t *size, const unsigned char **zdata, size_t *zavail)
{
	struct entry e;
	int r;
	if ((r = pack_ensure_open(p)) < 0 || (r = parse_entry(&e, p, off)) < 0)
		return r;
	*type = e.type;
	*size = e.size;
	*zdata = p->data + e.data_off;
	*zavail = (size_t)(p->data_size - e.data_off);
	return 0;
}

/* ---- raw entries for pack writers (fgit_odb_packed_entry) ---- */

/* The entry at offset off, at r in p's reverse index (pack_ensure_rev done). */
static int packed_entry_at(struct fgit_packed_entry *out, struct pack *p, uint64_t off,
			   int64_t r, unsigned int pack_no)
{
	struct entry e;
	uint64_t end;
	uint32_t pos = p->rev[r];
	int ret;

	if ((ret = pack_ensure_open(p)) < 0 || (ret = parse_entry(&e, p, off)) < 0)
		return ret;
	if ((uint32_t)r + 1 < p->nr) {
		if ((ret = pack_offset_at(&end, p, p->rev[r + 1])) < 0)
			return ret;
	} else {
		end = p->data_size;	/* data_size stops at the trailer */
	}
	if (end <= off || end > p->data_size)
		return bad_entry(p, off, "bad entry length");
	memset(out, 0, sizeof(*out));
	out->pack = pack_no;
	out->pack_path = p->pack_path;
	out->pack_mtime = p->mtime;
	out->offset = off;
	out->length = end - off;
	out->stored_type = e.type;
	out->size = e.size;
	out->hdr_len = (size_t)(e.data_off - off);
	out->data = p->data + off;
	if (p->idx_version == 2) {
		out->crc32 = be32(p->names + (size_t)p->nr * p->rawsz + (size_t)pos * 4);
		out->has_crc = 1;
	}
	if (e.type == FGIT_OBJ_OFS_DELTA) {
		int64_t b = rev_find(p, e.base_off);
		out->base_offset = e.base_off;
		if (b < 0)
			return bad_entry(p, off, "delta base offset not in index");
		pack_name_at(&out->base, p, p->rev[b]);
	} else if (e.type == FGIT_OBJ_REF_DELTA) {
		out->base = e.base_oid;
	}
	return 0;
}

int fgit_odb_packed_entry(struct fgit_packed_entry *out, struct fgit_odb *odb,
			  const struct fgit_oid *oid)
{
	struct pack *p;
	uint64_t off;
	int64_t ri;
	size_t i;
	int r;

	if ((r = odb_find_packed(&p, &off, odb, oid)) <= 0)
		return r < 0 ? r : FGIT_ENOTFOUND;
	/* the position in the pack's .idx (for its CRC) and the next entry's
	 * offset: through the reverse index, as a midx lookup gives the
	 * offset only */
	if ((r = pack_ensure_rev(p)) < 0)
		return r;
	if ((ri = rev_find(p, off)) < 0)
		return bad_entry(p, off, "offset not in index");
	pthread_rwlock_rdlock(&odb->packs_lock);
	for (i = 0; i < odb->npacks && odb->packs[i] != p; i++)
		;
	pthread_rwlock_unlock(&odb->packs_lock);
	return packed_entry_at(out, p, off, ri, (unsigned int)i);
}

void fgit_odb_warm_bases(struct fgit_odb *odb)
{
	size_t i;

	for (i = 0;; i++) {
		struct pack *p = NULL;
		pthread_rwlock_rdlock(&odb->packs_lock);
		if (i < odb->npacks)
			p = odb->packs[i];
		pthread_rwlock_unlock(&odb->packs_lock);
		if (!p)
			break;
		if (!p->gone && pack_ensure_open(p) == 0)
			pack_bases(p, 0);
	}
	for (i = 0; i < odb->nalts; i++)
		fgit_odb_warm_bases(odb->alts[i]);
}

size_t fgit_odb_pack_count(struct fgit_odb *odb)
{
	size_t n;
	pthread_rwlock_rdlock(&odb->packs_lock);
	n = odb->npacks;
	pthread_rwlock_unlock(&odb->packs_lock);
	return n;
}

const char *fgit_odb_pack_path(struct fgit_odb *odb, size_t i)
{
	const char *s = NULL;
	pthread_rwlock_rdlock(&odb->packs_lock);
	if (i < odb->npacks)
		s = odb->packs[i]->pack_path;
	pthread_rwlock_unlock(&odb->packs_lock);
	return s;
}

int fgit_odb_pack_has(struct fgit_odb *odb, size_t i, const struct fgit_oid *oid)
{
	uint32_t pos;
	int r = 0;
	pthread_rwlock_rdlock(&odb->packs_lock);
	if (i < odb->npacks)
		r = pack_find(odb->packs[i], oid, &pos);
	pthread_rwlock_unlock(&odb->packs_lock);
	return r;
}
