/*
 * Loading an index file.
 *
 * The file is mapped read-only and every entry is bounds-checked before it
 * is touched: git trusts the mapping (a truncated entry makes it read past
 * the end); we cannot.
 *
 * Entries are turned into memory in blocks that threads parse side by side:
 * the blocks come from the IEOT extension when the file has one (git's own
 * threaded load), and for versions 2 and 3 without IEOT from a quick scan
 * that only reads each entry's flags to find where the next one starts (an
 * entry's size depends on its name length alone).  Version 4 names depend
 * on the previous entry, so without IEOT a v4 index is parsed by one
 * thread.  Each thread allocates its entries from its own arena.
 *
 * Measured (tests/tools/index-bench.sh, 100,000 entries, this 2-CPU VM
 * shared with other builds, load 3-10, preliminary): one thread loads in
 * 4-7 ms (git's do_read_index: 15-60 ms on the same files); two threads
 * bring the best runs to 2.5-3.5 ms but not the medians while the other CPU
 * is busy.  The automatic choice stays git's (one thread per 10,000
 * entries, at most one per CPU) until a quiet machine says otherwise.
 *
 * The trailing checksum and the entry order are verified on request only,
 * as git 2.39 does (fsck sets verify_index_checksum and verify_ce_order; a
 * plain `git status` reads a file with a bad checksum as it is).  With
 * verification on and more than one thread, the checksum is computed by a
 * thread of its own while the entries are parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "index/index_internal.h"

#define HEADER_SIZE 12
/* One thread per this many entries when choosing automatically (as git). */
#define THREAD_COST 10000
/* Below this many entries a block is not worth a thread. */
#define MIN_BLOCK 1000

static _Thread_local int last_is_hdr;

int fgit_index_error_is_hdr(void)
{
	return last_is_hdr;
}

struct load_ctx {
	const unsigned char *map;
	size_t size;		/* whole file */
	size_t limit;		/* size - rawsz: where entries and extensions end */
	size_t rawsz;
	unsigned int version;
	int algo;
	uint32_t nr;
};

static int corrupt(void)
{
	return fgit_error_set(FGIT_EINVALID, "index file corrupt");
}

/* git's varint (the offset encoding of OFS_DELTA): 0 and *used, or -1. */
static int decode_varint(uint64_t *out, const unsigned char *p, size_t avail, size_t *used)
{
	size_t i = 0;
	uint64_t val;
	unsigned char c;

	if (!avail)
		return -1;
	c = p[i++];
	val = c & 127;
	while (c & 128) {
		val += 1;
		if (!val || (val >> 57) || i >= avail)
			return -1;
		c = p[i++];
		val = (val << 7) + (c & 127);
	}
	*out = val;
	*used = i;
	return 0;
}

/*
 * Parse the entry at off (which must end before c->limit).  prev is the
 * previous entry for v4 names, NULL at the start of a block (its strip
 * count is then ignored, as git does).
 */
static int parse_entry(struct fgit_index_entry **out, size_t *next, struct arena *a,
		       const struct load_ctx *c, size_t off,
		       const struct fgit_index_entry *prev)
{
	const unsigned char *p = c->map + off, *name, *z;
	size_t fixed = 42 + c->rawsz, hdr = fixed, avail, len, esize;
	size_t copy = 0, slen = 0;
	unsigned int flags, ext = 0, namefield;
	struct fgit_index_entry *e;

	if (off > c->limit || c->limit - off < fixed + 1)
		return corrupt();
	flags = get_be16(p + 40 + c->rawsz);
	namefield = flags & 0xfff;
	if (flags & 0x4000) {
		if (c->limit - off < fixed + 3)
			return corrupt();
		ext = get_be16(p + fixed);
		if (ext & ~0x6000u)
			return fgit_error_set(FGIT_EINVALID, "unknown index entry format 0x%08x",
					      ext << 16);
		hdr += 2;
	}
	name = p + hdr;
	avail = c->limit - off - hdr;
	if (c->version == 4) {
		uint64_t strip = 0;
		size_t vlen;
		if (decode_varint(&strip, name, avail, &vlen) < 0)
			return corrupt();
		z = memchr(name + vlen, '\0', avail - vlen);
		if (!z)
			return corrupt();
		slen = z - (name + vlen);
		if (prev) {
			if (strip > prev->path_len)
				return fgit_error_set(FGIT_EINVALID,
					"malformed name field in the index, near path '%s'",
					prev->path);
			copy = prev->path_len - strip;
		}
		len = copy + slen;
		if (namefield != 0xfff && namefield != len)
			return corrupt();
		esize = hdr + vlen + slen + 1;
		name += vlen;
	} else {
		if (namefield == 0xfff) {
			z = memchr(name, '\0', avail);
			if (!z)
				return corrupt();
			len = z - name;
		} else {
			len = namefield;
			if (len >= avail || name[len] || memchr(name, '\0', len))
				return corrupt();
		}
		esize = (hdr + len + 8) & ~(size_t)7;
		if (esize > c->limit - off)
			return corrupt();
		slen = len;
	}
	if (len > UINT32_MAX)
		return corrupt();

	e = arena_alloc(a, sizeof(*e) + len + 1);
	if (!e)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	e->ctime_sec = get_be32(p);
	e->ctime_nsec = get_be32(p + 4);
	e->mtime_sec = get_be32(p + 8);
	e->mtime_nsec = get_be32(p + 12);
	e->dev = get_be32(p + 16);
	e->ino = get_be32(p + 20);
	e->mode = get_be32(p + 24);
	e->uid = get_be32(p + 28);
	e->gid = get_be32(p + 32);
	e->size = get_be32(p + 36);
	memcpy(e->oid.hash, p + 40, c->rawsz);
	memset(e->oid.hash + c->rawsz, 0, FGIT_MAX_RAWSZ - c->rawsz);
	e->oid.algo = c->algo;
	e->stage = (flags >> 12) & 3;
	e->flags = (flags & 0x8000 ? FGIT_INDEX_ASSUME_VALID : 0) |
		   (ext & 0x4000 ? FGIT_INDEX_SKIP_WORKTREE : 0) |
		   (ext & 0x2000 ? FGIT_INDEX_INTENT_TO_ADD : 0);
	e->internal = ENTRY_IN_ARENA | (flags & 0x4000 ? ENTRY_ONDISK_EXT : 0);
	e->path_len = (uint32_t)len;
	if (copy)
		memcpy(e->path, prev->path, copy);
	memcpy(e->path + copy, name, slen);
	e->path[len] = '\0';
	*out = e;
	*next = off + esize;
	return 0;
}

/* ---- blocks of entries, possibly on threads ---- */

struct block {
	const struct load_ctx *c;
	size_t off, end;		/* in: start; out: after the last entry */
	size_t count;
	size_t span;			/* on-disk bytes, when known */
	struct fgit_index_entry **dst;
	struct arena arena;
	int ret;
	char msg[512];
};

static void *parse_block(void *arg)
{
	struct block *b = arg;
	const struct fgit_index_entry *prev = NULL;
	size_t i, off = b->off, guess;

	b->ret = 0;
	/*
	 * One chunk for the whole block: a fixed part per entry plus the
	 * on-disk bytes (names are shorter than that in v2/v3; v4 names
	 * may be longer, then more chunks follow).
	 */
	guess = b->count * (sizeof(struct fgit_index_entry) + 8) +
		(b->span ? b->span : b->count * 64) * (b->c->version == 4 ? 2 : 1);
	arena_reserve(&b->arena, guess);
	for (i = 0; i < b->count; i++) {
		struct fgit_index_entry *e = NULL;
		int ret = parse_entry(&e, &off, &b->arena, b->c, off, prev);
		if (ret < 0) {
			b->ret = ret;
			snprintf(b->msg, sizeof(b->msg), "%s", fgit_error_last());
			return NULL;
		}
		b->dst[i] = e;
		prev = e;
	}
	b->end = off;
	return NULL;
}

struct hash_job {
	const struct load_ctx *c;
	unsigned char out[FGIT_MAX_RAWSZ];
};

static void *hash_file(void *arg)
{
	struct hash_job *h = arg;
	struct fgit_hash_ctx ctx;
	fgit_checksum_init(&ctx, h->c->algo);
	fgit_checksum_update(&ctx, h->c->map, h->c->limit);
	fgit_checksum_final(h->out, &ctx);
	return NULL;
}

/*
 * The end of the entries from EOIE, when the file has a valid one: its
 * offset, checked against a hash over the extension headers between it and
 * the EOIE extension.  0 when absent or not to be trusted.
 */
static size_t read_eoie(const struct load_ctx *c)
{
	size_t eoie_sz = 8 + 4 + c->rawsz, pos, off;
	const unsigned char *p;
	struct fgit_hash_ctx h;
	unsigned char want[FGIT_MAX_RAWSZ];

	if (c->limit < HEADER_SIZE + eoie_sz)
		return 0;
	pos = c->limit - eoie_sz;
	p = c->map + pos;
	if (memcmp(p, "EOIE", 4) || get_be32(p + 4) != 4 + c->rawsz)
		return 0;
	off = get_be32(p + 8);
	if (off < HEADER_SIZE || off > pos)
		return 0;
	fgit_checksum_init(&h, c->algo);
	while (off < pos) {
		uint32_t sz;
		if (pos - off < 8)
			return 0;
		sz = get_be32(c->map + off + 4);
		fgit_checksum_update(&h, c->map + off, 8);
		off += 8;
		if (sz > pos - off)
			return 0;
		off += sz;
	}
	fgit_checksum_final(want, &h);
	if (memcmp(want, p + 12, c->rawsz))
		return 0;
	return get_be32(p + 8);
}

struct ieot {
	uint32_t nr;
	const unsigned char *p;		/* nr pairs (offset, count) */
};

static int read_ieot(struct ieot *out, const struct load_ctx *c, size_t off)
{
	size_t end = c->limit;
	while (end - off >= 8) {
		uint32_t sz = get_be32(c->map + off + 4);
		if (sz > end - off - 8)
			return -1;
		if (!memcmp(c->map + off, "IEOT", 4)) {
			const unsigned char *p = c->map + off + 8;
			if (sz < 4 || get_be32(p) != 1 || (sz - 4) % 8)
				return -1;
			out->nr = (sz - 4) / 8;
			out->p = p + 4;
			return 0;
		}
		off += 8 + sz;
	}
	return -1;
}

/*
 * Advance *off over entries [*i, upto) reading only flags and name lengths
 * (v2/v3: an entry's size follows from its name length).  0, or -1 when an
 * entry does not fit (the sequential pass then words the error).
 */
static int scan_entries(const struct load_ctx *c, size_t *off, size_t *i, size_t upto)
{
	size_t fixed = 42 + c->rawsz, o = *off, k;

	for (k = *i; k < upto; k++) {
		const unsigned char *p;
		size_t hdr = fixed, len;
		unsigned int flags;

		if (o > c->limit || c->limit - o < fixed + 3)
			return -1;
		p = c->map + o;
		flags = get_be16(p + 40 + c->rawsz);
		if (flags & 0x4000)
			hdr += 2;
		len = flags & 0xfff;
		if (len == 0xfff) {
			const unsigned char *z = memchr(p + hdr, '\0', c->limit - o - hdr);
			if (!z)
				return -1;
			len = z - (p + hdr);
		}
		o += (hdr + len + 8) & ~(size_t)7;
	}
	*off = o;
	*i = upto;
	return 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (int)n;
}

/*
 * Parse all entries into idx->entries; *end receives the offset after the
 * last one.  Blocks go to threads: from IEOT when there is one, else (v2/v3)
 * the main thread scans for where block k starts and launches it at once,
 * so the scan overlaps the parsing, and parses block 0 last.  Any trouble
 * falls back to one sequential pass, which is the reference (and words the
 * error).
 */
static int load_entries(struct fgit_index *idx, size_t *end, const struct load_ctx *c,
			int threads, size_t eoie_off)
{
	struct block one, *blocks = NULL;
	size_t nblocks = 0, i, started = 0;
	pthread_t *tids = NULL;
	int ok = 0, scan = 0;

	if (threads == 0) {
		threads = (int)(c->nr / THREAD_COST);
		if (threads > online_cpus())
			threads = online_cpus();
	}
	if (threads > 1 && c->nr >= 2 * MIN_BLOCK) {
		struct ieot ieot;
		if (eoie_off && !read_ieot(&ieot, c, eoie_off) && ieot.nr > 1) {
			/*
			 * At most `threads` workers, each taking a run of
			 * consecutive IEOT blocks (in v4 a block restarts its
			 * prefix compression in a way that also decodes
			 * correctly when the previous name is known).
			 */
			uint64_t sum = 0;
			size_t per;
			nblocks = ieot.nr < (uint32_t)threads ? ieot.nr : (size_t)threads;
			per = (ieot.nr + nblocks - 1) / nblocks;
			nblocks = (ieot.nr + per - 1) / per;
			blocks = calloc(nblocks, sizeof(*blocks));
			if (!blocks)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			for (i = 0; i < ieot.nr; i++) {
				uint32_t cnt = get_be32(ieot.p + 8 * i + 4);
				if (i % per == 0)
					blocks[i / per].off = get_be32(ieot.p + 8 * i);
				blocks[i / per].count += cnt;
				sum += cnt;
			}
			if (sum != c->nr || blocks[0].off != HEADER_SIZE) {
				free(blocks);
				blocks = NULL;
			}
		} else if (c->version != 4) {
			size_t per;
			nblocks = (size_t)threads;
			if (nblocks > c->nr / MIN_BLOCK)
				nblocks = c->nr / MIN_BLOCK;
			per = (c->nr + nblocks - 1) / nblocks;
			nblocks = (c->nr + per - 1) / per;
			blocks = calloc(nblocks, sizeof(*blocks));
			if (!blocks)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			for (i = 0; i < nblocks; i++)
				blocks[i].count = c->nr - i * per < per ? c->nr - i * per : per;
			blocks[0].off = HEADER_SIZE;
			scan = 1;
		}
	}
	if (blocks && (tids = calloc(nblocks, sizeof(*tids)))) {
		size_t first = 0, scanned = 0, soff = HEADER_SIZE;
		int failed = 0;

		for (i = 0; i < nblocks; i++) {
			blocks[i].c = c;
			blocks[i].dst = idx->entries + first;
			first += blocks[i].count;
			if (!scan) {
				size_t next = i + 1 < nblocks ? blocks[i + 1].off : c->limit;
				blocks[i].span = next > blocks[i].off ? next - blocks[i].off : 0;
			}
		}
		for (i = 1; i < nblocks; i++) {
			if (scan) {
				size_t upto = scanned + blocks[i - 1].count;
				if (scan_entries(c, &soff, &scanned, upto) < 0) {
					failed = 1;
					break;
				}
				/* span stays 0: block i-1 may be running already */
				blocks[i].off = soff;
			}
			if (pthread_create(&tids[i], NULL, parse_block, &blocks[i])) {
				failed = 1;
				break;
			}
			started = i;
		}
		if (!failed)
			parse_block(&blocks[0]);
		for (i = 1; i <= started; i++)
			pthread_join(tids[i], NULL);
		ok = !failed;
		for (i = 0; ok && i < nblocks; i++)
			if (blocks[i].ret || (i + 1 < nblocks && blocks[i].end != blocks[i + 1].off))
				ok = 0;
		/* IEOT blocks must also end where EOIE says the entries end */
		if (ok && !scan && blocks[nblocks - 1].end != eoie_off)
			ok = 0;
		if (ok) {
			for (i = 0; i < nblocks; i++)
				arena_merge(&idx->arena, &blocks[i].arena);
			idx->nr = c->nr;
			idx->load_threads = (unsigned int)nblocks;
			*end = blocks[nblocks - 1].end;
		}
	}
	if (blocks) {
		for (i = 0; i < nblocks; i++)
			arena_release(&blocks[i].arena);
		free(blocks);
		free(tids);
	}
	if (ok)
		return 0;

	memset(&one, 0, sizeof(one));
	one.c = c;
	one.off = HEADER_SIZE;
	one.count = c->nr;
	one.span = c->limit - HEADER_SIZE;
	one.dst = idx->entries;
	parse_block(&one);
	if (one.ret) {
		arena_release(&one.arena);
		return fgit_error_set(one.ret, "%s", one.msg);
	}
	arena_merge(&idx->arena, &one.arena);
	idx->nr = c->nr;
	*end = one.end;
	return 0;
}

/* ---- split index ---- */

struct link_ext {
	int present;
	struct fgit_oid base;
	int has_bitmaps;
	struct fgit_ewah del, rep;
};

static int read_link(struct link_ext *l, const unsigned char *p, size_t sz, const struct load_ctx *c)
{
	long n;
	if (sz < c->rawsz)
		return fgit_error_set(FGIT_EINVALID, "corrupt link extension (too short)");
	l->present = 1;
	fgit_oid_from_raw(&l->base, p, c->algo);
	p += c->rawsz;
	sz -= c->rawsz;
	if (!sz)
		return 0;
	l->has_bitmaps = 1;
	if ((n = fgit_ewah_parse(&l->del, p, sz)) < 0)
		return fgit_error_set(FGIT_EINVALID, "corrupt delete bitmap in link extension");
	p += n;
	sz -= n;
	if ((n = fgit_ewah_parse(&l->rep, p, sz)) < 0)
		return fgit_error_set(FGIT_EINVALID, "corrupt replace bitmap in link extension");
	if ((size_t)n != sz)
		return fgit_error_set(FGIT_EINVALID, "garbage at the end of link extension");
	return 0;
}

struct merge_state {
	struct fgit_index *base;
	struct fgit_index *front;
	unsigned char *deleted;
	size_t nrep;
};

static int do_replace(size_t pos, void *payload)
{
	struct merge_state *m = payload;
	struct fgit_index_entry *dst, *src;
	if (pos >= m->base->nr)
		return fgit_error_set(FGIT_EINVALID,
			"position for replacement %d exceeds base index size %d",
			(int)pos, (int)m->base->nr);
	if (m->nrep >= m->front->nr)
		return fgit_error_set(FGIT_EINVALID, "too many replacements (%d vs %d)",
				      (int)m->nrep, (int)m->front->nr);
	dst = m->base->entries[pos];
	src = m->front->entries[m->nrep];
	if (src->path_len)
		return fgit_error_set(FGIT_EINVALID,
			"corrupt link extension, entry %d should have zero length name",
			(int)pos);
	memcpy(dst, src, offsetof(struct fgit_index_entry, internal));
	/* git marks replaced entries CE_UPDATE_IN_BASE; ls-files --debug shows it */
	dst->internal = (dst->internal & ENTRY_IN_ARENA) | ENTRY_FROM_BASE |
			(src->internal & ENTRY_ONDISK_EXT);
	m->nrep++;
	return 0;
}

static int do_delete(size_t pos, void *payload)
{
	struct merge_state *m = payload;
	if (pos >= m->base->nr)
		return fgit_error_set(FGIT_EINVALID,
			"position for deletion %d exceeds base index size %d",
			(int)pos, (int)m->base->nr);
	m->deleted[pos] = 1;
	return 0;
}

static int load_file(struct fgit_index **out, const char *path,
		     const struct fgit_index_load_opts *opts, int allow_link);

/* Replace idx's entries with base + replacements - deletions + additions. */
static int merge_split(struct fgit_index *idx, const struct link_ext *l,
		       const char *path, const struct fgit_index_load_opts *opts)
{
	struct fgit_index *base = NULL;
	struct merge_state m = { 0 };
	struct fgit_buf bpath = FGIT_BUF_INIT;
	struct fgit_index_entry **merged = NULL;
	char hex[FGIT_MAX_HEXSZ + 1], got[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid sum;
	size_t i, j, k, n;
	int ret;

	fgit_oid_to_hex(hex, &l->base);
	if (opts->shared_index_dir) {
		ret = fgit_buf_addf(&bpath, "%s/sharedindex.%s", opts->shared_index_dir, hex);
	} else {
		const char *slash = strrchr(path, '/');
		if (slash)
			ret = fgit_buf_addf(&bpath, "%.*s/sharedindex.%s",
					    (int)(slash - path), path, hex);
		else
			ret = fgit_buf_addf(&bpath, "sharedindex.%s", hex);
	}
	if (ret < 0)
		goto out;
	{
		/* the shared index must exist, whatever the caller allows for the index */
		struct fgit_index_load_opts bo = *opts;
		bo.flags &= ~FGIT_INDEX_LOAD_MISSING_OK;
		if ((ret = load_file(&base, bpath.ptr, &bo, 0)) < 0)
			goto out;
	}
	fgit_oid_from_raw(&sum, base->checksum, idx->algo);
	if (!fgit_oid_equal(&sum, &l->base)) {
		ret = fgit_error_set(FGIT_EINVALID, "broken index, expect %s in %s, got %s",
				     hex, bpath.ptr, fgit_oid_to_hex(got, &sum));
		goto out;
	}
	m.base = base;
	m.front = idx;
	m.deleted = calloc(base->nr + 1, 1);
	if (!m.deleted) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if (l->has_bitmaps) {
		if ((ret = fgit_ewah_each_bit(&l->rep, do_replace, &m)) ||
		    (ret = fgit_ewah_each_bit(&l->del, do_delete, &m))) {
			if (ret == -1)
				ret = fgit_error_set(FGIT_EINVALID, "corrupt link extension");
			goto out;
		}
	}
	for (i = m.nrep; i < idx->nr; i++)
		if (!idx->entries[i]->path_len) {
			ret = fgit_error_set(FGIT_EINVALID,
				"corrupt link extension, entry %d should have had name", (int)i);
			goto out;
		}
	/* Both runs are sorted: merge; an added entry replaces its twin. */
	n = base->nr + (idx->nr - m.nrep);
	merged = malloc((n ? n : 1) * sizeof(*merged));
	if (!merged) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0, j = m.nrep, k = 0; i < base->nr || j < idx->nr;) {
		struct fgit_index_entry *a, *b;
		int c;
		if (i < base->nr && m.deleted[i]) {
			i++;
			continue;
		}
		a = i < base->nr ? base->entries[i] : NULL;
		b = j < idx->nr ? idx->entries[j] : NULL;
		c = !a ? 1 : !b ? -1 :
			index_entry_cmp(a->path, a->path_len, a->stage,
					b->path, b->path_len, b->stage);
		if (c < 0) {
			merged[k++] = a;
			i++;
		} else {
			merged[k++] = b;
			j++;
			if (!c)
				i++;
		}
	}
	/* Entries that were replaced or deleted stay in the arenas: freed with them. */
	for (i = 0; i < m.nrep; i++)
		index_entry_release(idx->entries[i]);
	free(idx->entries);
	idx->entries = merged;
	idx->nr = k;
	idx->alloc = n ? n : 1;
	merged = NULL;
	arena_merge(&idx->arena, &base->arena);
	base->nr = 0;
	idx->was_split = 1;
	idx->has_base = 1;
	memcpy(idx->base_oid, l->base.hash, fgit_hash_rawsz(idx->algo));
	ret = 0;
out:
	free(merged);
	free(m.deleted);
	fgit_index_free(base);
	fgit_buf_release(&bpath);
	return ret;
}

/* ---- extensions ---- */

static int read_extensions(struct fgit_index *idx, struct link_ext *link,
			   const struct load_ctx *c, size_t off, int allow_link)
{
	int ret;

	while (off <= c->limit && c->limit - off >= 8) {
		const unsigned char *sig = c->map + off;
		uint32_t sz = get_be32(sig + 4);
		const unsigned char *data = sig + 8;
		int known = 1;

		off += 8;
		if (!memcmp(sig, "TREE", 4)) {
			if (sz > c->limit - off)
				return corrupt();
			ct_free(idx->tree);
			idx->tree = ct_read(data, sz, c->algo);
		} else if (!memcmp(sig, "REUC", 4)) {
			if (sz > c->limit - off)
				return corrupt();
			if ((ret = reuc_read(&idx->reuc, data, sz, c->algo)) < 0)
				return ret;
		} else if (!memcmp(sig, "UNTR", 4)) {
			if (sz > c->limit - off)
				return corrupt();
			fgit_untr_free(idx->untr);
			idx->untr = NULL;
			ret = untr_parse(&idx->untr, data, sz, c->algo);
			if (ret == FGIT_ENOTFOUND)
				goto next;	/* dropped, as git drops it */
			if (ret < 0)
				return ret;
		} else if (!memcmp(sig, "link", 4)) {
			if (sz > c->limit - off)
				return corrupt();
			if (!allow_link)
				return fgit_error_set(FGIT_EINVALID, "index file corrupt");
			if ((ret = read_link(link, data, sz, c)) < 0)
				return ret;
		} else if (!memcmp(sig, "EOIE", 4) || !memcmp(sig, "IEOT", 4)) {
			/* used before the entries were read */
		} else if (sig[0] >= 'A' && sig[0] <= 'Z') {
			/* optional: dropped; git keeps FSMN, says nothing of it */
			known = 0;
			if (memcmp(sig, "FSMN", 4)) {
				char (*n)[5] = realloc(idx->ignored, (idx->ignored_nr + 1) * sizeof(*n));
				if (!n)
					return fgit_error_set(FGIT_ENOMEM, "out of memory");
				idx->ignored = n;
				memcpy(n[idx->ignored_nr], sig, 4);
				n[idx->ignored_nr++][4] = '\0';
			}
		} else {
			last_is_hdr = 1;
			return fgit_error_set(FGIT_EINVALID,
				"index uses %.4s extension, which we do not understand", sig);
		}
next:
		(void)known;
		if (sz > c->limit - off)
			break;	/* git skips past the end and stops too */
		off += sz;
	}
	return 0;
}

static int verify_order(const struct fgit_index *idx)
{
	size_t i;
	for (i = 1; i < idx->nr; i++) {
		const struct fgit_index_entry *a = idx->entries[i - 1], *b = idx->entries[i];
		int c = strcmp(a->path, b->path);
		if (c > 0)
			return fgit_error_set(FGIT_EINVALID, "unordered stage entries in index");
		if (!c) {
			if (!a->stage)
				return fgit_error_set(FGIT_EINVALID,
					"multiple stage entries for merged file '%s'", a->path);
			if (a->stage > b->stage)
				return fgit_error_set(FGIT_EINVALID,
					"unordered stage entries for '%s'", a->path);
		}
	}
	return 0;
}

static int load_file(struct fgit_index **out, const char *path,
		     const struct fgit_index_load_opts *opts, int allow_link)
{
	struct fgit_index *idx = NULL;
	struct load_ctx c = { 0 };
	struct link_ext link = { 0 };
	struct hash_job hj;
	pthread_t htid;
	int hashing = 0, fd = -1, ret, verify = opts->flags & FGIT_INDEX_LOAD_VERIFY;
	void *map = MAP_FAILED;
	struct stat st;
	size_t end = 0, eoie_off, min_entry;
	uint32_t sig;

	c.algo = opts->algo ? opts->algo : FGIT_HASH_SHA1;
	c.rawsz = fgit_hash_rawsz(c.algo);
	if (!c.rawsz)
		return fgit_error_set(FGIT_EINVALID, "unknown hash algorithm %d", opts->algo);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			if (opts->flags & FGIT_INDEX_LOAD_MISSING_OK) {
				if ((ret = fgit_index_new(&idx, c.algo)) < 0)
					return ret;
				*out = idx;
				return 0;
			}
			return fgit_error_errno(FGIT_ENOTFOUND, "%s: index file open failed", path);
		}
		return fgit_error_errno(FGIT_ERROR, "%s: index file open failed", path);
	}
	if (fstat(fd, &st) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "%s: cannot stat the open index", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		errno = ENODEV;
		ret = fgit_error_errno(FGIT_ERROR, "%s: unable to map index file", path);
		goto out;
	}
	if ((uint64_t)st.st_size < HEADER_SIZE + c.rawsz) {
		ret = fgit_error_set(FGIT_EINVALID, "%s: index file smaller than expected", path);
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ret = fgit_error_set(FGIT_EINVALID, "%s: index file too large", path);
		goto out;
	}
	c.size = (size_t)st.st_size;
	/* every page is read (checksum, entries): mapped in one call rather
	 * than a fault per 64 KiB (a 100,000-entry index: ~260 faults, each
	 * ~25 us on this VM) */
	map = mmap(NULL, c.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = fgit_error_errno(FGIT_ERROR, "%s: unable to map index file", path);
		goto out;
	}
	close(fd);
	fd = -1;
	c.map = map;
	c.limit = c.size - c.rawsz;

	sig = get_be32(c.map);
	if (sig != 0x44495243) {
		last_is_hdr = 1;
		/* git prints the raw word as read on a little-endian machine */
		ret = fgit_error_set(FGIT_EINVALID, "bad signature 0x%08x",
				     (unsigned)(c.map[0] | c.map[1] << 8 | c.map[2] << 16 |
						(uint32_t)c.map[3] << 24));
		goto out;
	}
	c.version = get_be32(c.map + 4);
	if (c.version < 2 || c.version > 4) {
		last_is_hdr = 1;
		ret = fgit_error_set(FGIT_EINVALID, "bad index version %d", (int)c.version);
		goto out;
	}
	c.nr = get_be32(c.map + 8);

	if (verify) {
		hj.c = &c;
		if (opts->threads != 1 && c.size > (1u << 20) &&
		    !pthread_create(&htid, NULL, hash_file, &hj))
			hashing = 1;
		else
			hash_file(&hj);
	}

	if ((ret = fgit_index_new(&idx, c.algo)) < 0)
		goto out;
	idx->version = c.version;
	idx->have_file = 1;
	idx->mtime_sec = (uint32_t)st.st_mtim.tv_sec;
	idx->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	memcpy(idx->checksum, c.map + c.limit, c.rawsz);

	/* Every entry takes at least 42 + rawsz + 2 bytes: bound the allocation. */
	min_entry = 42 + c.rawsz + 2;
	if (c.nr > (c.limit - HEADER_SIZE) / min_entry) {
		ret = corrupt();
		goto out;
	}
	idx->entries = malloc((c.nr ? c.nr : 1) * sizeof(*idx->entries));
	if (!idx->entries) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	idx->alloc = c.nr ? c.nr : 1;

	eoie_off = read_eoie(&c);
	ret = load_entries(idx, &end, &c, opts->threads, eoie_off);
	if (!ret) {
		arena_trim(&idx->arena);
		ret = read_extensions(idx, &link, &c, end, allow_link);
	}

	if (hashing) {
		pthread_join(htid, NULL);
		hashing = 0;
	}
	if (verify && memcmp(hj.out, c.map + c.limit, c.rawsz)) {
		last_is_hdr = 1;
		ret = fgit_error_set(FGIT_EINVALID, "bad index file sha1 signature");
		goto out;
	}
	if (ret < 0)
		goto out;

	if (link.present && !fgit_oid_is_zero(&link.base)) {
		if ((ret = merge_split(idx, &link, path, opts)) < 0)
			goto out;
	}
	if (verify && (ret = verify_order(idx)) < 0)
		goto out;
	*out = idx;
	idx = NULL;
	ret = 0;
out:
	if (hashing)
		pthread_join(htid, NULL);
	if (map != MAP_FAILED)
		munmap(map, c.size);
	if (fd >= 0)
		close(fd);
	fgit_index_free(idx);
	return ret;
}

int fgit_index_load(struct fgit_index **out, const char *path,
		    const struct fgit_index_load_opts *opts)
{
	static const struct fgit_index_load_opts defaults = FGIT_INDEX_LOAD_OPTS_INIT;

	last_is_hdr = 0;
	if (!opts)
		opts = &defaults;
	if (opts->version != FGIT_INDEX_LOAD_OPTS_VERSION)
		return fgit_error_set(FGIT_EINVALID, "unsupported fgit_index_load_opts version %u",
				      opts->version);
	return load_file(out, path, opts, 1);
}
