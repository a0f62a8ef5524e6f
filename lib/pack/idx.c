/*
 * .idx and .rev files (gitformat-pack: "pack-*.idx files", "pack-*.rev
 * files"): writing exactly the bytes git writes for a pack, and reading an
 * .idx back for show-index.
 *
 * git sorts the index by object name with a stable sort over pack order, so
 * two entries of one name (a pack with duplicates) keep their pack order:
 * we sort by (name, offset), which is the same order.  The sort is a radix
 * pass on the first two bytes of the name, then a comparison sort of each
 * small bucket.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/pack.h"
#include "pack/pack_internal.h"

const unsigned char *fgit__indexer_oid(const struct fgit_indexer *ix, uint32_t i);

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct sort_ctx {
	const struct idx_src *ix;
	size_t rawsz;
};

static int cmp_pos(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = memcmp(s->ix->oid(s->ix->ctx, x), s->ix->oid(s->ix->ctx, y), s->rawsz);
	if (c)
		return c;
	return x < y ? -1 : x > y;	/* entries are in offset order */
}

/* Entry numbers sorted by (name, offset); caller frees. */
static uint32_t *sorted_entries(const struct idx_src *ix)
{
	uint32_t nr = ix->nr, i;
	struct sort_ctx s = { ix, 0 };
	uint32_t *out, *count;
	size_t b;

	s.rawsz = fgit_hash_rawsz(FGIT_HASH_SHA1);
	out = malloc(((size_t)nr + 1) * sizeof(*out));
	count = calloc(65537, sizeof(*count));
	if (!out || !count) {
		free(out);
		free(count);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		const unsigned char *o = ix->oid(ix->ctx, i);
		count[((unsigned)o[0] << 8 | o[1]) + 1]++;
	}
	for (b = 1; b <= 65536; b++)
		count[b] += count[b - 1];
	for (i = 0; i < nr; i++) {
		const unsigned char *o = ix->oid(ix->ctx, i);
		out[count[(unsigned)o[0] << 8 | o[1]]++] = i;
	}
	/* count[b] is now the end of bucket b */
	for (b = 0; b < 65536; b++) {
		uint32_t start = b ? count[b - 1] : 0;
		if (count[b] - start > 1)
			qsort_r(out + start, count[b] - start, sizeof(*out), cmp_pos, &s);
	}
	free(count);
	return out;
}

static int need_large(uint64_t off, const struct fgit_idx_options *o)
{
	size_t lo = 0, hi = o->nr_anomalies;
	if ((off >> 31) || off > o->off32_limit)
		return 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->anomalies[mid] == off)
			return 1;
		if (o->anomalies[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int idx_write(struct fgit_buf *out, const struct idx_src *ix,
		     const struct fgit_idx_options *opts, int strict)
{
	struct fgit_idx_options defaults = FGIT_IDX_OPTIONS_INIT;
	uint32_t nr = ix->nr, i, *order, nlarge = 0;
	uint32_t fanout[256];
	size_t rawsz = fgit_hash_rawsz(FGIT_HASH_SHA1), start = out->len, sz;
	unsigned char *p, *o64;
	uint64_t last_off = 0;
	unsigned int version;
	struct fgit_hash_ctx c;

	if (!opts)
		opts = &defaults;
	order = sorted_entries(ix);
	if (!order)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	memset(fanout, 0, sizeof(fanout));
	for (i = 0; i < nr; i++) {
		const unsigned char *o = ix->oid(ix->ctx, i);
		uint64_t off = ix->offset(ix->ctx, i);
		if (off > last_off)
			last_off = off;
		fanout[o[0]]++;
		if (need_large(off, opts))
			nlarge++;
	}
	for (i = 1; i < 256; i++)
		fanout[i] += fanout[i - 1];
	for (i = 1; strict && i < nr; i++)
		if (!memcmp(ix->oid(ix->ctx, order[i - 1]), ix->oid(ix->ctx, order[i]), rawsz)) {
			char hex[FGIT_MAX_HEXSZ + 1];
			struct fgit_oid dup;
			fgit_oid_from_raw(&dup, ix->oid(ix->ctx, order[i]), FGIT_HASH_SHA1);
			free(order);
			return fgit_error_set(FGIT_EINVALID,
					      "The same object %s appears twice in the pack",
					      fgit_oid_to_hex(hex, &dup));
		}
	version = need_large(last_off, opts) ? 2 : opts->idx_version;

	if (version == 1) {
		sz = 1024 + (size_t)nr * (4 + rawsz) + 2 * rawsz;
	} else {
		sz = 8 + 1024 + (size_t)nr * (rawsz + 8) + (size_t)nlarge * 8 + 2 * rawsz;
	}
	if (fgit_buf_grow(out, sz)) {
		free(order);
		return FGIT_ENOMEM;
	}
	p = (unsigned char *)out->ptr + start;
	if (version == 2) {
		memcpy(p, "\377tOc", 4);
		put32(p + 4, 2);
		p += 8;
	}
	for (i = 0; i < 256; i++)
		put32(p + 4 * i, fanout[i]);
	p += 1024;
	if (version == 1) {
		for (i = 0; i < nr; i++) {
			put32(p, (uint32_t)ix->offset(ix->ctx, order[i]));
			memcpy(p + 4, ix->oid(ix->ctx, order[i]), rawsz);
			p += 4 + rawsz;
		}
	} else {
		unsigned char *crcs = p + (size_t)nr * rawsz, *o32 = crcs + (size_t)nr * 4;
		o64 = o32 + (size_t)nr * 4;
		nlarge = 0;
		for (i = 0; i < nr; i++) {
			uint64_t off = ix->offset(ix->ctx, order[i]);
			memcpy(p + (size_t)i * rawsz, ix->oid(ix->ctx, order[i]), rawsz);
			put32(crcs + 4 * (size_t)i, ix->crc(ix->ctx, order[i]));
			if (need_large(off, opts)) {
				put32(o32 + 4 * (size_t)i, 0x80000000u | nlarge);
				put32(o64, (uint32_t)(off >> 32));
				put32(o64 + 4, (uint32_t)off);
				o64 += 8;
				nlarge++;
			} else {
				put32(o32 + 4 * (size_t)i, (uint32_t)off);
			}
		}
		p = o64;
	}
	memcpy(p, ix->pack_hash, rawsz);
	p += rawsz;
	fgit_checksum_init(&c, FGIT_HASH_SHA1);
	fgit_checksum_update(&c, out->ptr + start, (size_t)(p - (unsigned char *)out->ptr - start));
	fgit_checksum_final(p, &c);
	p += rawsz;
	fgit_buf_setlen(out, (size_t)(p - (unsigned char *)out->ptr));
	free(order);
	return 0;
}

static int rev_write(struct fgit_buf *out, const struct idx_src *ix)
{
	uint32_t nr = ix->nr, i, *order, *pos;
	size_t rawsz = fgit_hash_rawsz(FGIT_HASH_SHA1), start = out->len;
	unsigned char *p;
	struct fgit_hash_ctx c;

	order = sorted_entries(ix);
	pos = malloc(((size_t)nr + 1) * sizeof(*pos));
	if (!order || !pos || fgit_buf_grow(out, 12 + (size_t)nr * 4 + 2 * rawsz)) {
		free(order);
		free(pos);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	for (i = 0; i < nr; i++)
		pos[order[i]] = i;
	p = (unsigned char *)out->ptr + start;
	memcpy(p, "RIDX", 4);
	put32(p + 4, 1);
	put32(p + 8, 1);	/* hash id: SHA-1 */
	p += 12;
	/* entries are in pack order already */
	for (i = 0; i < nr; i++, p += 4)
		put32(p, pos[i]);
	memcpy(p, ix->pack_hash, rawsz);
	p += rawsz;
	fgit_checksum_init(&c, FGIT_HASH_SHA1);
	fgit_checksum_update(&c, out->ptr + start, (size_t)(p - (unsigned char *)out->ptr - start));
	fgit_checksum_final(p, &c);
	p += rawsz;
	fgit_buf_setlen(out, (size_t)(p - (unsigned char *)out->ptr));
	free(order);
	free(pos);
	return 0;
}

static const unsigned char *ixr_oid(const void *ctx, uint32_t i)
{
	return fgit__indexer_oid(ctx, i);
}

static uint64_t ixr_offset(const void *ctx, uint32_t i)
{
	struct fgit_pack_entry_info info;
	fgit_indexer_entry(&info, ctx, i);
	return info.offset;
}

static uint32_t ixr_crc(const void *ctx, uint32_t i)
{
	struct fgit_pack_entry_info info;
	fgit_indexer_entry(&info, ctx, i);
	return info.crc32;
}

static void indexer_src(struct idx_src *s, const struct fgit_indexer *ix)
{
	s->nr = fgit_indexer_count(ix);
	s->pack_hash = fgit_indexer_pack_hash(ix);
	s->oid = ixr_oid;
	s->offset = ixr_offset;
	s->crc = ixr_crc;
	s->ctx = ix;
}

int fgit_indexer_idx(struct fgit_buf *out, const struct fgit_indexer *ix,
		     const struct fgit_idx_options *opts, int strict)
{
	struct idx_src s;
	indexer_src(&s, ix);
	return idx_write(out, &s, opts, strict);
}

int fgit_indexer_rev(struct fgit_buf *out, const struct fgit_indexer *ix)
{
	struct idx_src s;
	indexer_src(&s, ix);
	return rev_write(out, &s);
}

int pack_idx_write(struct fgit_buf *out, const struct idx_src *src,
		   const struct fgit_idx_options *opts)
{
	return idx_write(out, src, opts, 1);
}

int pack_rev_write(struct fgit_buf *out, const struct idx_src *src)
{
	return rev_write(out, src);
}

int fgit_pack_write_file(const char *path, const void *data, size_t len, unsigned int mode)
{
	char *tmp;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *c = data;
	int fd, ret = 0;

	tmp = malloc(dirlen + 32);
	if (!tmp)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	memcpy(tmp, path, dirlen);
	strcpy(tmp + dirlen, "tmp_idx_XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to create temporary file '%s'", tmp);
		free(tmp);
		return ret;
	}
	if (fgit_write_all(fd, c, len) < 0)
		ret = fgit_error_errno(FGIT_ERROR, "unable to write '%s'", tmp);
	if (!ret && fchmod(fd, mode))
		ret = fgit_error_errno(FGIT_ERROR, "unable to chmod '%s'", tmp);
	if (close(fd) && !ret)
		ret = fgit_error_errno(FGIT_ERROR, "unable to write '%s'", tmp);
	if (!ret && rename(tmp, path))
		ret = fgit_error_errno(FGIT_ERROR, "unable to rename '%s' to '%s'", tmp, path);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int fgit_idx_version(const unsigned char *data, size_t len)
{
	if (len >= 8 && !memcmp(data, "\377tOc", 4))
		return get32(data + 4) == 2 ? 2 : FGIT_EINVALID;
	return len >= 1024 ? 1 : FGIT_EINVALID;
}

int fgit_idx_parse(const unsigned char *data, size_t len, int algo,
		   int (*cb)(const struct fgit_idx_entry *e, int has_crc, void *payload),
		   void *payload)
{
	size_t rawsz = fgit_hash_rawsz(algo);
	const unsigned char *fan;
	uint32_t nr, i, prev = 0;
	struct fgit_idx_entry e;
	int version, ret;

	if (len < 8)
		return fgit_error_set(FGIT_EINVALID, "unable to read header");
	if (!memcmp(data, "\377tOc", 4)) {
		if (get32(data + 4) != 2)
			return fgit_error_set(FGIT_EINVALID, "unknown index version");
		version = 2;
	} else {
		version = 1;
	}
	fan = version == 2 ? data + 8 : data;
	if ((size_t)(fan - data) + 1024 > len)
		return fgit_error_set(FGIT_EINVALID, "unable to read index");
	for (i = 0; i < 256; i++) {
		uint32_t n = get32(fan + 4 * i);
		if (n < prev)
			return fgit_error_set(FGIT_EINVALID, "corrupt index file");
		prev = n;
	}
	nr = prev;
	memset(&e, 0, sizeof(e));
	if (version == 1) {
		const unsigned char *p = fan + 1024;
		for (i = 0; i < nr; i++, p += 4 + rawsz) {
			if ((size_t)(p - data) + 4 + rawsz > len)
				return fgit_error_set(FGIT_EINVALID, "unable to read entry %u/%u",
						      i, nr);
			e.offset = get32(p);
			fgit_oid_from_raw(&e.oid, p + 4, algo);
			if ((ret = cb(&e, 0, payload)))
				return ret;
		}
		return 0;
	} else {
		const unsigned char *oids = fan + 1024, *crcs, *o32, *o64;
		size_t need = (size_t)(oids - data) + (size_t)nr * (rawsz + 8);
		uint32_t nlarge = 0;
		if (need > len)
			return fgit_error_set(FGIT_EINVALID, "unable to read index");
		crcs = oids + (size_t)nr * rawsz;
		o32 = crcs + (size_t)nr * 4;
		o64 = o32 + (size_t)nr * 4;
		for (i = 0; i < nr; i++) {
			uint32_t off = get32(o32 + 4 * (size_t)i);
			fgit_oid_from_raw(&e.oid, oids + (size_t)i * rawsz, algo);
			e.crc32 = get32(crcs + 4 * (size_t)i);
			if (off & 0x80000000u) {
				uint32_t k = off & 0x7fffffffu;
				if (k != nlarge++)
					return fgit_error_set(FGIT_EINVALID,
							      "inconsistent 64b offset index");
				if ((size_t)(o64 - data) + 8 * ((size_t)k + 1) > len)
					return fgit_error_set(FGIT_EINVALID,
							      "unable to read 64b offset %u", k);
				e.offset = (uint64_t)get32(o64 + 8 * (size_t)k) << 32 |
					   get32(o64 + 8 * (size_t)k + 4);
			} else {
				e.offset = off;
			}
			if ((ret = cb(&e, 1, payload)))
				return ret;
		}
	}
	return 0;
}
