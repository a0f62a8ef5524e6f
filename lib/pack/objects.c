/*
 * Writing packs (what `git pack-objects` does), in-process.
 *
 * 1. Objects are added in recency order (the object walk's order).
 * 2. Each is looked up where it is stored (in parallel: a pack's .idx and
 *    entry header, or a loose object's header): an entry in a pack can be
 *    copied as it is ("reused"), and a stored delta is kept when its base
 *    is packed too, unless --no-reuse-delta / --no-reuse-object.  Reused
 *    chains deeper than --depth are cut.
 * 3. The other objects of 50 bytes or more are sorted as git sorts its
 *    delta list (type, name hash, size, newest first) and searched for a
 *    delta base in a sliding window of the previous `window` objects,
 *    several threads each taking a slice of the list (cut where the name
 *    hash changes).  The best base seen moves to the front of the window,
 *    as in git.  A delta is deflated as soon as its target is done, so
 *    only compressed deltas are held.
 * 4. The write order is git's: recency order up to the first tagged
 *    object, tagged objects, the other commits and tags, trees, then the
 *    rest family by family (each delta family depth first from its root);
 *    a delta's base always comes first, so OFS_DELTA offsets are backward.
 * 5. Entries are prepared in parallel in batches (inflate from wherever
 *    the object is, deflate) and written sequentially, each reused entry
 *    checked against the CRC its .idx records.
 *
 * Measured on the 507,773-object history (one run each, 2 cores under a
 * load average of 13, so preliminary): repack -adf 275 s wall, 84 s user,
 * 820 MB peak, pack 293.6 MB; git 319 s, 89 s user, 1059 MB, 295.0 MB.
 * NEEDSWORK: new deltas are held deflated until written (most of the peak);
 * spilling them to the pack in delta-list order would bound it further.
 */
#include <ctype.h>
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
#include "fgit/commit_graph.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/pack.h"
#include "fgit/progress.h"
#include "fgit/refs.h"
#include "fgit/revwalk.h"
#include "fgit/thread.h"
#include "odb/delta.h"
#include "pack/pack_internal.h"

#define NONE UINT32_MAX
#define MIN_DELTA_SIZE 50
#define BLOCK_ENTRIES 4096

enum {
	E_TAGGED = 1 << 0,
	E_REUSE = 1 << 1,		/* copy the stored entry (delta or whole) */
	E_FILLED = 1 << 2,		/* in the write order */
	E_WRITTEN = 1 << 3,
	E_NO_DELTA = 1 << 4,		/* not a delta candidate */
	E_PREFERRED = 1 << 5,		/* thin-pack base: not written */
	E_TYPED = 1 << 6,		/* type known before locating (bitmap) */
	E_NO_SIZE = 1 << 7,		/* reused delta: inflated size (and type,
					 * unless E_TYPED) not read */
};

struct entry {
	struct fgit_oid oid;		/* first: the map key */
	uint32_t no;			/* own entry number */
	uint32_t hash;			/* name hash */
	uint32_t delta;			/* base entry, NONE */
	uint32_t delta_child, delta_sibling;
	uint32_t depth;
	uint32_t crc;			/* of the written entry */
	uint8_t type;
	uint8_t stored_type;		/* 0: loose or elsewhere */
	uint16_t flags;
	uint64_t size;			/* inflated size */
	uint64_t offset;		/* in the written pack */
	/* stored entry (when stored_type) */
	const unsigned char *src;
	uint64_t src_len;
	uint32_t src_hdr;
	uint32_t src_crc;
	int src_has_crc;
	unsigned int src_pack;
	uint64_t delta_size;		/* uncompressed delta (new or reused) */
	unsigned char *zdelta;		/* deflated new delta */
	uint32_t zdelta_len;
};

struct fgit_packer {
	struct fgit_odb *odb;
	struct fgit_pack_objects_options o;
	int algo;
	size_t rawsz;
	struct entry **blocks;
	size_t nblocks;
	uint32_t nr;
	struct fgit_oidmap map;
	uint32_t *order;		/* write order (entry numbers) */
	uint32_t nwritten;
	unsigned char hash[FGIT_MAX_RAWSZ];
	struct fgit_pack_objects_stats st;
	int prepared;
	/* packs whose objects are left out (.keep, --keep-pack); -1: not yet known */
	size_t *kept;
	long nkept;
	/* the bitmap of the same pack written again, loaded before it goes */
	struct pack_old_bitmap *same_bitmap;
};

static inline struct entry *E(const struct fgit_packer *pk, uint32_t i)
{
	return &pk->blocks[i / BLOCK_ENTRIES][i % BLOCK_ENTRIES];
}

static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h = 0;
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (isspace(c))
			continue;
		h = (h >> 2) + ((uint32_t)c << 24);
	}
	return h;
}

int fgit_packer_new(struct fgit_packer **out, struct fgit_odb *odb,
		    const struct fgit_pack_objects_options *opts)
{
	struct fgit_pack_objects_options defaults = FGIT_PACK_OBJECTS_OPTIONS_INIT;
	struct fgit_packer *pk = calloc(1, sizeof(*pk));
	if (!pk)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	pk->odb = odb;
	pk->o = opts ? *opts : defaults;
	if (pk->o.window < 0)
		pk->o.window = 0;
	if (pk->o.depth > 4095)
		pk->o.depth = 4095;
	if (pk->o.depth < 0)
		pk->o.depth = 0;
	if (pk->o.nthreads <= 0)
		pk->o.nthreads = fgit_online_cpus();
	if (pk->o.compression < 0 || pk->o.compression > 9)
		pk->o.compression = 6;	/* zlib's default, git's pack.compression default */
	pk->nkept = -1;
	pk->algo = fgit_odb_algo(odb);
	pk->rawsz = fgit_hash_rawsz(pk->algo);
	*out = pk;
	return 0;
}

void fgit_packer_free(struct fgit_packer *pk)
{
	size_t b;
	uint32_t i;
	if (!pk)
		return;
	for (i = 0; i < pk->nr; i++)
		free(E(pk, i)->zdelta);
	for (b = 0; b < pk->nblocks; b++)
		free(pk->blocks[b]);
	free(pk->blocks);
	free(pk->order);
	free(pk->kept);
	pack_old_bitmap_free(pk->same_bitmap);
	fgit_oidmap_release(&pk->map);
	free(pk);
}

uint32_t fgit_packer_count(const struct fgit_packer *pk)
{
	return pk->nr;
}

static int add_entry(struct fgit_packer *pk, const struct fgit_oid *oid,
		     enum fgit_object_type type, const char *name, size_t name_len,
		     uint16_t flags)
{
	struct entry *e = fgit_oidmap_get(&pk->map, oid);
	int err;

	if (e) {
		if (!(flags & E_PREFERRED))
			e->flags &= ~E_PREFERRED;
		return 0;
	}
	if (pk->nr == UINT32_MAX - 1)
		return fgit_error_set(FGIT_EINVALID, "too many objects for one pack");
	if (pk->nr % BLOCK_ENTRIES == 0) {
		struct entry **nb = realloc(pk->blocks, (pk->nblocks + 1) * sizeof(*nb));
		if (!nb)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		pk->blocks = nb;
		nb[pk->nblocks] = malloc(BLOCK_ENTRIES * sizeof(struct entry));
		if (!nb[pk->nblocks])
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		pk->nblocks++;
	}
	e = E(pk, pk->nr);
	memset(e, 0, sizeof(*e));
	e->oid = *oid;
	e->no = pk->nr;
	e->type = type > 0 ? (uint8_t)type : 0;
	e->hash = name ? name_hash(name, name_len) : 0;
	e->delta = e->delta_child = e->delta_sibling = NONE;
	e->flags = flags;
	fgit_oidmap_put(&pk->map, e, &err);
	if (err)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	pk->nr++;
	return 0;
}

static int find_kept(struct fgit_packer *pk)
{
	size_t n = fgit_odb_pack_count(pk->odb), i, k;
	pk->kept = malloc((n + 1) * sizeof(*pk->kept));
	if (!pk->kept)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	pk->nkept = 0;
	for (i = 0; i < n; i++) {
		const char *path = fgit_odb_pack_path(pk->odb, i), *base;
		size_t len = strlen(path);
		int keep = 0;
		if (!path)
			continue;
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		for (k = 0; k < pk->o.nkeep_packs && !keep; k++)
			keep = !strcmp(pk->o.keep_packs[k], base);
		if (!keep && (pk->o.skip & FGIT_PACK_SKIP_KEPT) && len > 5) {
			char *kp = malloc(len + 1);
			if (!kp)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			memcpy(kp, path, len - 5);
			strcpy(kp + len - 5, ".keep");
			keep = !access(kp, F_OK);
			free(kp);
		}
		if (keep)
			pk->kept[pk->nkept++] = i;
	}
	return 0;
}

static int local_loose(struct fgit_packer *pk, const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1], path[4096];
	fgit_oid_to_hex(hex, oid);
	snprintf(path, sizeof(path), "%s/%.2s/%s", fgit_odb_path(pk->odb), hex, hex + 2);
	return !access(path, F_OK);
}

/* 1 if opts.skip or keep_packs leave the object out (git's want_object_in_pack). */
static int skipped(struct fgit_packer *pk, const struct fgit_oid *oid)
{
	long i;
	if (pk->o.skip & FGIT_PACK_SKIP_PACKED) {
		struct fgit_object_info info;
		if (fgit_odb_read_info(&info, pk->odb, oid, FGIT_INFO_TYPE) == 0 &&
		    info.where == FGIT_WHERE_PACKED)
			return 1;
	}
	if ((pk->o.skip & FGIT_PACK_SKIP_KEPT) || pk->o.nkeep_packs) {
		if (pk->nkept < 0 && find_kept(pk) < 0)
			return -1;
		for (i = 0; i < pk->nkept; i++)
			if (fgit_odb_pack_has(pk->odb, pk->kept[i], oid))
				return 1;
	}
	if (pk->o.skip & FGIT_PACK_SKIP_NONLOCAL) {
		struct fgit_packed_entry pe;
		if (fgit_odb_packed_entry(&pe, pk->odb, oid) == FGIT_ENOTFOUND &&
		    !local_loose(pk, oid) && fgit_odb_exists(pk->odb, oid))
			return 1;
	}
	return 0;
}

int fgit_packer_add(struct fgit_packer *pk, const struct fgit_oid *oid,
		    enum fgit_object_type type, const char *name, size_t name_len)
{
	if (pk->o.skip || pk->o.nkeep_packs) {
		int r = skipped(pk, oid);
		if (r)
			return r;
	}
	return add_entry(pk, oid, type, name, name_len, 0);
}

int fgit_packer_add_base(struct fgit_packer *pk, const struct fgit_oid *oid,
			 enum fgit_object_type type, const char *name, size_t name_len)
{
	if (!pk->o.thin)
		return 0;
	return add_entry(pk, oid, type, name, name_len, E_PREFERRED);
}

int fgit_packer_contains(const struct fgit_packer *pk, const struct fgit_oid *oid)
{
	return fgit_oidmap_get(&pk->map, oid) != NULL;
}

void fgit_packer_mark_tagged(struct fgit_packer *pk, const struct fgit_oid *oid)
{
	struct entry *e = fgit_oidmap_get(&pk->map, oid);
	if (e)
		e->flags |= E_TAGGED;
}

/* ---- 2. where each object is ---- */

struct ctx {
	struct fgit_packer *pk;
	struct fgit_progress *prog;
	_Atomic uint64_t done;
	uint32_t *list;
	uint32_t nlist;
	/* delta search */
	uint32_t *seg;			/* segment starts, nseg + 1 */
	uint32_t nseg;
	struct libdeflate_compressor **comp;
	/* writing */
	uint32_t batch_start;
	unsigned char **bufs;
	size_t *lens;
	int *owned;
};

static int locate_one(struct fgit_packer *pk, struct entry *e)
{
	struct fgit_packed_entry pe;
	struct fgit_object_info info;
	int ret;

	/* a thin-pack base is only read, never written: no delta reuse for it */
	if (pk->o.reuse_object && !(e->flags & E_PREFERRED) &&
	    fgit_odb_packed_entry(&pe, pk->odb, &e->oid) == 0) {
		e->stored_type = (uint8_t)pe.stored_type;
		e->src = pe.data;
		e->src_len = pe.length;
		e->src_hdr = (uint32_t)pe.hdr_len;
		e->src_crc = pe.crc32;
		e->src_has_crc = pe.has_crc;
		e->src_pack = pe.pack;
		if (pe.stored_type != FGIT_OBJ_OFS_DELTA && pe.stored_type != FGIT_OBJ_REF_DELTA) {
			e->type = (uint8_t)pe.stored_type;
			e->size = pe.size;
			e->flags |= E_REUSE;
			return 0;
		}
		if (pk->o.reuse_delta) {
			struct entry *b = fgit_oidmap_get(&pk->map, &pe.base);
			if (b && (!(b->flags & E_PREFERRED) || pk->o.thin)) {
				e->delta = b->no;
				e->delta_size = pe.size;
				e->flags |= E_REUSE;
				/* the object's own size matters only if the
				 * delta is dropped, and its type only then or
				 * for a bitmap (both read then: fill_sizes,
				 * fill_types): reading them here means
				 * inflating the start of the delta and walking
				 * its chain for the type (multi-pack-index
				 * repack over 5 packs: 357k such entries) */
				e->flags |= E_NO_SIZE;
				return 0;
			}
		}
	}
	ret = fgit_odb_read_info(&info, pk->odb, &e->oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE);
	if (ret < 0)
		return ret;
	e->type = (uint8_t)info.type;
	e->size = info.size;
	return 0;
}

static int locate_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct ctx *c = payload;
	size_t i;
	int ret;
	for (i = begin; i < end; i++)
		if ((ret = locate_one(c->pk, E(c->pk, (uint32_t)i))) < 0)
			return ret;
	fgit_progress_set(c->prog, atomic_fetch_add(&c->done, end - begin) + (end - begin));
	return 0;
}

static void drop_reuse(struct entry *e)
{
	e->delta = NONE;
	e->flags &= ~E_REUSE;
	e->stored_type = 0;
	e->depth = 0;
}

/*
 * Depths of reused delta chains, each computed once (an entry's depth is
 * its base's plus one; walking every chain from every entry cost 10% of
 * repack -ad).  A cycle (possible across packs) is cut, and so is an
 * entry deeper than --depth: it becomes a delta candidate.
 */
static int settle_reused(struct fgit_packer *pk)
{
	uint8_t *state = calloc((size_t)pk->nr + 1, 1);	/* 1 on the stack, 2 done */
	uint32_t *stack = malloc(((size_t)pk->nr + 1) * sizeof(*stack));
	uint32_t i;

	if (!state || !stack) {
		free(state);
		free(stack);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	for (i = 0; i < pk->nr; i++) {
		uint32_t n = 0, j = i;
		while (state[j] != 2) {
			struct entry *e = E(pk, j);
			if (state[j] == 1) {	/* a cycle: cut where we came in */
				drop_reuse(E(pk, stack[n - 1]));
				break;
			}
			if (e->delta != NONE && (E(pk, e->delta)->flags & E_PREFERRED) && !pk->o.thin)
				drop_reuse(e);
			if (e->delta == NONE) {
				e->depth = 0;
				state[j] = 2;
				break;
			}
			state[j] = 1;
			stack[n++] = j;
			j = e->delta;
		}
		while (n) {
			struct entry *x = E(pk, stack[--n]);
			if (x->delta != NONE) {
				x->depth = E(pk, x->delta)->depth + 1;
				if (x->depth > (uint32_t)pk->o.depth)
					drop_reuse(x);
			}
			state[stack[n]] = 2;
		}
	}
	free(state);
	free(stack);
	return 0;
}

/* Sizes of reused deltas that settle_reused turned into delta candidates. */
static int fill_sizes(struct fgit_packer *pk)
{
	uint32_t i;
	int ret;
	for (i = 0; i < pk->nr; i++) {
		struct entry *e = E(pk, i);
		struct fgit_object_info info;
		if (!(e->flags & E_NO_SIZE) || (e->flags & E_REUSE))
			continue;
		ret = fgit_odb_read_info(&info, pk->odb, &e->oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE);
		if (ret < 0)
			return ret;
		e->type = (uint8_t)info.type;
		e->size = info.size;
		e->flags &= ~E_NO_SIZE;
	}
	return 0;
}

/* ---- 3. delta search ---- */

struct slot {
	uint32_t e;			/* NONE: empty */
	unsigned char *data;
	struct delta_index *index;
	size_t mem;
	uint32_t *sketch;		/* delta_sketch of data, once read */
	uint32_t nsketch;
	int sketched;			/* 0 not yet, 1 done, -1 none (no memory) */
};

/*
 * A target with at least this many fingerprints and none in common with
 * a source is not tried against it (delta_create.c says why).  Trees on
 * the 5-pack history: 1 lost 1,836 deltas of 27k, 4 lost 197, 8 lost 36
 * (23 KB of targets) and still ruled out 99 MB of the 207 MB that failed.
 */
#define SKETCH_MIN 8

static int cmp_delta_list(const void *a, const void *b, void *arg)
{
	const struct fgit_packer *pk = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct entry *ea = E(pk, x), *eb = E(pk, y);
	int pa = !!(ea->flags & E_PREFERRED), pb = !!(eb->flags & E_PREFERRED);
	if (ea->type != eb->type)
		return ea->type > eb->type ? -1 : 1;
	if (ea->hash != eb->hash)
		return ea->hash > eb->hash ? -1 : 1;
	if (pa != pb)
		return pa > pb ? -1 : 1;
	if (ea->size != eb->size)
		return ea->size > eb->size ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void slot_free(struct slot *s, size_t *mem)
{
	free(s->data);
	delta_index_free(s->index);
	free(s->sketch);
	*mem -= s->mem;
	s->data = NULL;
	s->index = NULL;
	s->sketch = NULL;
	s->sketched = 0;
	s->mem = 0;
	s->e = NONE;
}

/* Deepest chain of reused deltas hanging off e (git's check_delta_limit). */
static uint32_t delta_limit(const struct fgit_packer *pk, uint32_t e, uint32_t n)
{
	uint32_t m = n, c;
	for (c = E(pk, e)->delta_child; c != NONE; c = E(pk, c)->delta_sibling) {
		uint32_t x = delta_limit(pk, c, n + 1);
		if (x > m)
			m = x;
	}
	return m;
}

static int load_data(unsigned char **out, struct fgit_packer *pk, struct entry *e)
{
	void *buf;
	size_t len;
	enum fgit_object_type t;
	int ret = fgit_odb_read(&buf, &len, &t, pk->odb, &e->oid);
	if (ret < 0)
		return ret;
	if (len != e->size) {
		char hex[FGIT_MAX_HEXSZ + 1];
		free(buf);
		return fgit_error_set(FGIT_EINVALID, "object %s inconsistent object length (%llu vs %llu)",
				      fgit_oid_to_hex(hex, &e->oid), (unsigned long long)len,
				      (unsigned long long)e->size);
	}
	*out = buf;
	return 0;
}

/* The slot's sketch: 0, or -1 if there is none (out of memory: no filter). */
static int sketch(struct slot *s, size_t len, size_t *mem)
{
	if (!s->sketched) {
		s->sketched = -1;
		if (delta_sketch(&s->sketch, &s->nsketch, s->data, len) == 0) {
			s->sketched = 1;
			s->mem += (size_t)s->nsketch * sizeof(*s->sketch);
			*mem += (size_t)s->nsketch * sizeof(*s->sketch);
		}
	}
	return s->sketched > 0 ? 0 : -1;
}

/* git's try_delta: -1 different type (stop), 0 nothing better, 1 better,
 * -2 an object could not be read (error set). */
static int try_delta(struct fgit_packer *pk, struct slot *trg, struct slot *src,
		     uint32_t max_depth, unsigned char **best, size_t *best_len, size_t *mem)
{
	struct entry *te = E(pk, trg->e), *se = E(pk, src->e);
	uint64_t max_size, sizediff, ref_depth;
	unsigned char *d;
	size_t dlen;

	if (te->type != se->type)
		return -1;
	if (pk->o.reuse_delta && te->stored_type && se->stored_type &&
	    te->src_pack == se->src_pack && !(se->flags & E_PREFERRED) &&
	    te->stored_type != FGIT_OBJ_REF_DELTA && te->stored_type != FGIT_OBJ_OFS_DELTA)
		return 0;	/* git decided against this pair when it wrote the pack */
	if (se->depth >= max_depth)
		return 0;
	if (te->delta == NONE) {
		if (te->size / 2 <= pk->rawsz)
			return 0;
		max_size = te->size / 2 - pk->rawsz;
		ref_depth = 1;
	} else {
		max_size = te->delta_size;
		ref_depth = te->depth;
	}
	max_size = max_size * (max_depth - se->depth) / (max_depth - ref_depth + 1);
	if (!max_size)
		return 0;
	sizediff = se->size < te->size ? te->size - se->size : 0;
	if (sizediff >= max_size)
		return 0;
	if (te->size < se->size / 32)
		return 0;
	if (!trg->data) {
		if (load_data(&trg->data, pk, te) < 0)
			return -2;
		trg->mem += te->size;
		*mem += te->size;
	}
	if (!src->data) {
		if (load_data(&src->data, pk, se) < 0)
			return -2;
		src->mem += se->size;
		*mem += se->size;
	}
	if (!sketch(trg, te->size, mem) && !sketch(src, se->size, mem) &&
	    trg->nsketch >= SKETCH_MIN &&
	    !delta_sketch_overlap(trg->sketch, trg->nsketch, src->sketch, src->nsketch))
		return 0;
	if (!src->index) {
		src->index = delta_index_new(src->data, se->size);
		if (!src->index)
			return 0;
		src->mem += delta_index_size(src->index);
		*mem += delta_index_size(src->index);
	}
	if (delta_create(&d, &dlen, src->index, trg->data, te->size, max_size) < 0)
		return 0;
	if (te->delta != NONE && dlen == te->delta_size && se->depth + 1 >= te->depth) {
		free(d);
		return 0;
	}
	free(*best);
	*best = d;
	*best_len = dlen;
	te->delta = src->e;
	te->delta_size = dlen;
	te->depth = se->depth + 1;
	return 1;
}

static int deflate_buf(unsigned char **out, size_t *out_len, struct libdeflate_compressor *c,
		       const void *in, size_t len)
{
	size_t cap = libdeflate_zlib_compress_bound(c, len), n;
	unsigned char *buf = malloc(cap ? cap : 1);
	if (!buf)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	n = libdeflate_zlib_compress(c, in, len, buf, cap);
	if (!n) {
		free(buf);
		return fgit_error_set(FGIT_ERROR, "deflate failed");
	}
	*out = buf;
	*out_len = n;
	return 0;
}

static int find_deltas(struct ctx *c, uint32_t begin, uint32_t end, int worker)
{
	struct fgit_packer *pk = c->pk;
	uint32_t window = (uint32_t)pk->o.window + 1, idx = 0, count = 0, k;
	struct slot *win = calloc(window, sizeof(*win));
	size_t mem = 0;
	int ret = 0;

	if (!win)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (k = 0; k < window; k++)
		win[k].e = NONE;
	for (k = begin; k < end; k++) {
		uint32_t en = c->list[k], j, max_depth;
		struct entry *e = E(pk, en);
		struct slot *n = &win[idx];
		unsigned char *best = NULL;
		size_t best_len = 0;
		int best_base = -1;

		if (n->e != NONE)
			slot_free(n, &mem);
		n->e = en;
		while (pk->o.window_memory && mem > pk->o.window_memory && count > 1) {
			uint32_t tail = (idx + window - count) % window;
			slot_free(&win[tail], &mem);
			count--;
		}
		/* data is read when a pair first needs it: with reuse most pairs
		 * are ruled out before (repack -ad reads almost nothing here) */
		if (!(e->flags & E_PREFERRED)) {
			max_depth = (uint32_t)pk->o.depth;
			if (e->delta_child != NONE) {
				uint32_t lim = delta_limit(pk, en, 0);
				max_depth = lim >= max_depth ? 0 : max_depth - lim;
			}
			for (j = window; max_depth && --j > 0;) {
				uint32_t other = idx + j;
				int r;
				if (other >= window)
					other -= window;
				if (win[other].e == NONE)
					break;
				r = try_delta(pk, n, &win[other], max_depth, &best, &best_len, &mem);
				if (r == -2) {
					ret = fgit_error_last_code();
					if (ret >= 0)
						ret = FGIT_ERROR;
					break;
				}
				if (r < 0)
					break;
				if (r > 0)
					best_base = (int)other;
			}
			if (ret < 0) {
				free(best);
				break;
			}
			if (best) {
				unsigned char *z;
				size_t zl;
				ret = deflate_buf(&z, &zl, c->comp[worker], best, best_len);
				free(best);
				if (ret < 0)
					break;
				e->zdelta = z;
				e->zdelta_len = (uint32_t)zl;
				e->flags &= ~E_REUSE;	/* a new delta, not the stored whole */
			}
		}
		fgit_progress_set(c->prog, atomic_fetch_add(&c->done, 1) + 1);
		/* an entry that is at its depth limit cannot be a base: drop it */
		if (e->delta != NONE && e->depth >= (uint32_t)pk->o.depth) {
			slot_free(n, &mem);
			continue;
		}
		if (best_base >= 0) {
			struct slot swap = win[best_base];
			uint32_t dist = (window + idx - (uint32_t)best_base) % window, dst = (uint32_t)best_base;
			while (dist--) {
				uint32_t s = (dst + 1) % window;
				win[dst] = win[s];
				dst = s;
			}
			win[dst] = swap;
		}
		idx++;
		if (count + 1 < window)
			count++;
		if (idx >= window)
			idx = 0;
	}
	for (k = 0; k < window; k++)
		if (win[k].e != NONE)
			slot_free(&win[k], &mem);
	free(win);
	return ret;
}

static int delta_seg(size_t begin, size_t end, int worker, void *payload)
{
	struct ctx *c = payload;
	size_t s;
	int ret;
	for (s = begin; s < end; s++)
		if ((ret = find_deltas(c, c->seg[s], c->seg[s + 1], worker)) < 0)
			return ret;
	return 0;
}

static int alloc_compressors(struct ctx *c, int n, int level)
{
	int i;
	c->comp = calloc((size_t)n, sizeof(*c->comp));
	if (!c->comp)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if (!(c->comp[i] = libdeflate_alloc_compressor(level)))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
	return 0;
}

static void free_compressors(struct ctx *c, int n)
{
	int i;
	for (i = 0; c->comp && i < n; i++)
		libdeflate_free_compressor(c->comp[i]);
	free(c->comp);
	c->comp = NULL;
}

static int search_deltas(struct fgit_packer *pk, struct ctx *c)
{
	uint32_t i, n = 0, nseg, s;
	uint64_t total = 0, acc = 0;
	int threads = pk->o.nthreads, ret;

	c->list = malloc(((size_t)pk->nr + 1) * sizeof(*c->list));
	if (!c->list)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	/* reused deltas: their bases learn their children (for depth limits) */
	for (i = pk->nr; i-- > 0;) {
		struct entry *e = E(pk, i);
		if (e->delta != NONE) {
			e->delta_sibling = E(pk, e->delta)->delta_child;
			E(pk, e->delta)->delta_child = i;
		}
	}
	for (i = 0; i < pk->nr; i++) {
		struct entry *e = E(pk, i);
		if (e->delta != NONE || e->size < MIN_DELTA_SIZE || (e->flags & E_NO_DELTA))
			continue;
		if (pk->o.big_file_threshold && e->size > pk->o.big_file_threshold)
			continue;
		if (!e->type)
			continue;
		c->list[n++] = i;
		if (!(e->flags & E_PREFERRED))
			pk->st.delta_candidates++;
	}
	c->nlist = n;
	if (!pk->o.window || !pk->o.depth || n < 2) {
		pk->st.delta_candidates = 0;
		n = 0;
	}
	if (!n)
		goto clear;
	qsort_r(c->list, n, sizeof(*c->list), cmp_delta_list, pk);
	if (threads > 1 && n < (uint32_t)threads * 2 * pk->o.window)
		threads = 1;
	/*
	 * Slices of about equal work, several per thread so that a slow one
	 * does not hold the others back.  An object costs about its size
	 * (read, sketched, encoded against its window) plus a fixed part.
	 * Equal counts, with cuts moved over equal name hashes even when 0,
	 * gave the first slice a quarter of the list and all its biggest
	 * objects (sorted by size): 3.4 s of one thread against 1.9 s for
	 * the other seven (multi-pack-index repack over 5 packs, thread CPU).
	 * A cut moves on while the name hash stays the same, as in git, but
	 * not across hash 0 (no name) nor further than 4 windows.
	 */
	nseg = threads > 1 ? (uint32_t)threads * 8 : 1;
	c->seg = malloc((nseg + 1) * sizeof(*c->seg));
	if (!c->seg)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		total += E(pk, c->list[i])->size + 512;
	c->seg[0] = 0;
	for (i = 0, s = 1; i < n && s < nseg; i++) {
		uint32_t at = i, h;
		if (acc < total / nseg * s) {
			acc += E(pk, c->list[i])->size + 512;
			continue;
		}
		h = E(pk, c->list[at])->hash;
		while (h && at < n && at - i < 4 * (uint32_t)pk->o.window &&
		       E(pk, c->list[at])->hash == E(pk, c->list[at - 1])->hash)
			at++;
		c->seg[s++] = at;
		for (; i < at; i++)
			acc += E(pk, c->list[i])->size + 512;
		i--;	/* the loop's i++ */
	}
	for (; s < nseg; s++)
		c->seg[s] = n;
	c->seg[nseg] = n;
	c->nseg = nseg;
	if (pk->o.progress_fd >= 0 && pk->o.progress >= 2 && pk->o.nthreads > 1 &&
	    pk->st.delta_candidates) {
		char msg[96];
		ssize_t wr;
		snprintf(msg, sizeof(msg), "Delta compression using up to %d threads\n", pk->o.nthreads);
		wr = write(pk->o.progress_fd, msg, strlen(msg));
		(void)wr;	/* progress is best effort */
	}
	c->prog = pk->o.progress ? fgit_progress_new("Compressing objects", pk->st.delta_candidates ? n : 0,
						     pk->o.progress_fd, 0) : NULL;
	atomic_store(&c->done, 0);
	if ((ret = alloc_compressors(c, threads, pk->o.compression)) < 0)
		return ret;
	ret = fgit_parallel_for(nseg, 1, threads, delta_seg, c);
	free_compressors(c, threads);
	if (ret < 0) {
		fgit_progress_done(c->prog);
		return ret;
	}
	fgit_progress_set(c->prog, n);
	fgit_progress_done(c->prog);
	c->prog = NULL;
clear:
	for (i = 0; i < pk->nr; i++)
		E(pk, i)->delta_child = E(pk, i)->delta_sibling = NONE;
	return 0;
}

/* ---- 4. write order ---- */

static int reused_delta(const struct entry *e)
{
	return (e->flags & E_REUSE) && e->delta != NONE;
}

static void add_wo(struct fgit_packer *pk, uint32_t *wo, uint32_t *end, uint32_t i)
{
	struct entry *e = E(pk, i);
	if (e->flags & (E_FILLED | E_PREFERRED))
		return;
	e->flags |= E_FILLED;
	wo[(*end)++] = i;
}

static void add_descendants(struct fgit_packer *pk, uint32_t *wo, uint32_t *end, uint32_t i)
{
	int add = 1;
	while (i != NONE) {
		if (add) {
			uint32_t s;
			add_wo(pk, wo, end, i);
			for (s = E(pk, i)->delta_sibling; s != NONE; s = E(pk, s)->delta_sibling)
				add_wo(pk, wo, end, s);
		}
		if (E(pk, i)->delta_child != NONE) {
			add = 1;
			i = E(pk, i)->delta_child;
		} else {
			add = 0;
			if (E(pk, i)->delta_sibling != NONE) {
				i = E(pk, i)->delta_sibling;
				continue;
			}
			i = E(pk, i)->delta;
			while (i != NONE && E(pk, i)->delta_sibling == NONE)
				i = E(pk, i)->delta;
			if (i == NONE)
				return;
			i = E(pk, i)->delta_sibling;
		}
	}
}

static void add_family(struct fgit_packer *pk, uint32_t *wo, uint32_t *end, uint32_t i)
{
	uint32_t root = i, steps = 0;
	while (E(pk, root)->delta != NONE && steps++ < 100000)
		root = E(pk, root)->delta;
	add_descendants(pk, wo, end, root);
}

/* Append i after its base chain (bases first). */
static void emit_final(struct fgit_packer *pk, uint32_t *out, uint32_t *n, uint32_t i)
{
	uint32_t chain[64], nc = 0, j = i;
	/* collect unwritten ancestors, deepest last */
	while (j != NONE && !(E(pk, j)->flags & E_WRITTEN)) {
		if (nc == 64) {
			emit_final(pk, out, n, j);	/* deep chains: recurse in steps */
			break;
		}
		chain[nc++] = j;
		j = E(pk, j)->delta;
	}
	while (nc--) {
		struct entry *e = E(pk, chain[nc]);
		if (e->flags & E_WRITTEN)
			continue;
		e->flags |= E_WRITTEN;
		out[(*n)++] = chain[nc];
	}
}

static int compute_write_order(struct fgit_packer *pk)
{
	uint32_t *wo, end = 0, i, last_untagged, n = 0;

	wo = malloc(((size_t)pk->nr + 1) * sizeof(*wo));
	pk->order = malloc(((size_t)pk->nr + 1) * sizeof(*pk->order));
	if (!wo || !pk->order) {
		free(wo);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	for (i = pk->nr; i-- > 0;) {
		struct entry *e = E(pk, i);
		if (e->delta == NONE)
			continue;
		e->delta_sibling = E(pk, e->delta)->delta_child;
		E(pk, e->delta)->delta_child = i;
	}
	for (i = 0; i < pk->nr; i++) {
		if (E(pk, i)->flags & E_TAGGED)
			break;
		add_wo(pk, wo, &end, i);
	}
	last_untagged = i;
	for (; i < pk->nr; i++)
		if (E(pk, i)->flags & E_TAGGED)
			add_wo(pk, wo, &end, i);
	/* a reused delta counts as its stored type here, not as a commit or
	 * tree, as in git (whose entry then has the OFS/REF_DELTA type) */
	for (i = last_untagged; i < pk->nr; i++)
		if ((E(pk, i)->type == FGIT_OBJ_COMMIT || E(pk, i)->type == FGIT_OBJ_TAG) &&
		    !reused_delta(E(pk, i)))
			add_wo(pk, wo, &end, i);
	for (i = last_untagged; i < pk->nr; i++)
		if (E(pk, i)->type == FGIT_OBJ_TREE && !reused_delta(E(pk, i)))
			add_wo(pk, wo, &end, i);
	for (i = last_untagged; i < pk->nr; i++)
		if (!(E(pk, i)->flags & (E_FILLED | E_PREFERRED)))
			add_family(pk, wo, &end, i);
	/* bases before their deltas */
	for (i = 0; i < pk->nr; i++)
		if (E(pk, i)->flags & E_PREFERRED)
			E(pk, i)->flags |= E_WRITTEN;	/* never written: thin */
	for (i = 0; i < end; i++)
		emit_final(pk, pk->order, &n, wo[i]);
	pk->nwritten = n;
	free(wo);
	return 0;
}

/* ---- 5. writing ---- */

static int put_ofs(unsigned char *h, uint64_t rel)
{
	unsigned char tmp[16];
	int pos = 15, n;
	tmp[pos] = rel & 0x7f;
	while (rel >>= 7)
		tmp[--pos] = 0x80 | (--rel & 0x7f);
	n = 16 - pos;
	memcpy(h, tmp + pos, (size_t)n);
	return n;
}

/* Body (what follows the header) for entry i, or reused data. */
static int prepare_body(struct ctx *c, uint32_t k, int worker)
{
	struct fgit_packer *pk = c->pk;
	uint32_t i = pk->order[k];
	struct entry *e = E(pk, i);
	uint32_t slot = k - c->batch_start;
	int ret;

	c->bufs[slot] = NULL;
	c->lens[slot] = 0;
	c->owned[slot] = 0;
	if (e->flags & E_REUSE) {
		if (e->src_has_crc) {
			uint32_t crc = (uint32_t)crc32(0, e->src, (uInt)e->src_len);
			if (crc != e->src_crc) {
				char hex[FGIT_MAX_HEXSZ + 1];
				return fgit_error_set(FGIT_EINVALID, "bad packed object CRC for %s",
						      fgit_oid_to_hex(hex, &e->oid));
			}
		}
		c->bufs[slot] = (unsigned char *)e->src + e->src_hdr;
		c->lens[slot] = (size_t)(e->src_len - e->src_hdr);
		return 0;
	}
	if (e->zdelta) {
		c->bufs[slot] = e->zdelta;
		c->lens[slot] = e->zdelta_len;
		return 0;
	}
	{
		unsigned char *data;
		if ((ret = load_data(&data, pk, e)) < 0)
			return ret;
		ret = deflate_buf(&c->bufs[slot], &c->lens[slot], c->comp[worker], data, e->size);
		free(data);
		if (ret < 0)
			return ret;
		c->owned[slot] = 1;
	}
	return 0;
}

static int prepare_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct ctx *c = payload;
	size_t k;
	int ret;
	for (k = begin; k < end; k++)
		if ((ret = prepare_body(c, c->batch_start + (uint32_t)k, worker)) < 0)
			return ret;
	return 0;
}

#define BATCH 1024

int fgit_packer_write(struct fgit_packer *pk, int fd)
{
	struct ctx c;
	struct pack_writer w = { -1, NULL, 0, 0, 0, { 0 } };
	struct fgit_progress *prog = NULL;
	uint32_t k, i;
	int ret = 0, threads = pk->o.nthreads;

	memset(&c, 0, sizeof(c));
	c.pk = pk;
	if (!pk->prepared && (ret = fgit_packer_prepare(pk)) < 0)
		return ret;
	if ((ret = pw_init(&w, fd, pk->algo)) < 0)
		goto out;
	c.bufs = calloc(BATCH, sizeof(*c.bufs));
	c.lens = calloc(BATCH, sizeof(*c.lens));
	c.owned = calloc(BATCH, sizeof(*c.owned));
	if (!c.bufs || !c.lens || !c.owned) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = alloc_compressors(&c, threads, pk->o.compression)) < 0)
		goto out;
	if ((ret = pw_put_pack_header(&w, pk->nwritten)) < 0)
		goto out;
	if (pk->o.progress >= 2)
		prog = fgit_progress_new("Writing objects", pk->nwritten, pk->o.progress_fd,
					 FGIT_PROGRESS_THROUGHPUT);
	for (k = 0; k < pk->nwritten; k += BATCH) {
		uint32_t n = pk->nwritten - k < BATCH ? pk->nwritten - k : BATCH;
		c.batch_start = k;
		ret = fgit_parallel_for(n, 16, threads, prepare_chunk, &c);
		if (ret < 0) {
			for (i = 0; i < n; i++)
				if (c.owned[i])
					free(c.bufs[i]);
			goto out;
		}
		for (i = 0; i < n && !ret; i++) {
			struct entry *e = E(pk, pk->order[k + i]);
			unsigned char h[32 + FGIT_MAX_RAWSZ];
			int hl;
			uint32_t crc = (uint32_t)crc32(0, NULL, 0);
			e->offset = w.total;
			if (e->delta != NONE) {
				struct entry *b = E(pk, e->delta);
				if (pk->o.delta_base_offset && !(b->flags & E_PREFERRED)) {
					hl = pack_obj_header(h, FGIT_OBJ_OFS_DELTA, e->delta_size);
					hl += put_ofs(h + hl, e->offset - b->offset);
				} else {
					hl = pack_obj_header(h, FGIT_OBJ_REF_DELTA, e->delta_size);
					memcpy(h + hl, b->oid.hash, pk->rawsz);
					hl += (int)pk->rawsz;
				}
				pk->st.written_delta++;
				if (e->flags & E_REUSE)
					pk->st.reused_delta++;
			} else {
				hl = pack_obj_header(h, e->type, e->size);
			}
			if (e->flags & E_REUSE)
				pk->st.reused++;
			ret = pw_put(&w, h, (size_t)hl, &crc);
			if (!ret)
				ret = pw_put(&w, c.bufs[i], c.lens[i], &crc);
			e->crc = crc;
			if (c.owned[i])
				free(c.bufs[i]);
			else if (e->zdelta) {
				free(e->zdelta);
				e->zdelta = NULL;
			}
			pk->st.written++;
		}
		for (; i < n; i++)
			if (c.owned[i])
				free(c.bufs[i]);
		if (ret)
			goto out;
		fgit_progress_bytes(prog, w.total);
		fgit_progress_set(prog, k + n);
	}
	if ((ret = pw_finish(&w, pk->hash, pk->rawsz)) < 0)
		goto out;
	fgit_progress_bytes(prog, w.total);
	pk->st.pack_size = w.total;
out:
	fgit_progress_done(prog);
	free_compressors(&c, threads);
	pw_release(&w);
	free(c.bufs);
	free(c.lens);
	free(c.owned);
	return ret;
}

int fgit_packer_prepare(struct fgit_packer *pk)
{
	struct ctx c;
	int ret;

	if (pk->prepared)
		return 0;
	memset(&c, 0, sizeof(c));
	c.pk = pk;
	/* locating costs an idx lookup and an entry header each: split in
	 * chunks, all threads */
	if (pk->o.progress)
		c.prog = fgit_progress_new("Counting objects", pk->nr, pk->o.progress_fd, 0);
	ret = fgit_parallel_for(pk->nr, 2048, pk->o.nthreads, locate_chunk, &c);
	fgit_progress_done(c.prog);
	c.prog = NULL;
	if (ret < 0)
		return ret;
	if ((ret = settle_reused(pk)) < 0 || (ret = fill_sizes(pk)) < 0)
		return ret;
	ret = search_deltas(pk, &c);
	free(c.list);
	free(c.seg);
	if (ret < 0)
		return ret;
	if ((ret = compute_write_order(pk)) < 0)
		return ret;
	pk->prepared = 1;
	return 0;
}

const unsigned char *fgit_packer_hash(const struct fgit_packer *pk)
{
	return pk->hash;
}

void fgit_packer_stats(struct fgit_pack_objects_stats *out, const struct fgit_packer *pk)
{
	*out = pk->st;
}

uint32_t fgit_packer_written(const struct fgit_packer *pk)
{
	return pk->nwritten;
}

/* ---- .idx and .rev ---- */

static const unsigned char *pk_oid(const void *ctx, uint32_t i)
{
	const struct fgit_packer *pk = ctx;
	return E(pk, pk->order[i])->oid.hash;
}

static uint64_t pk_offset(const void *ctx, uint32_t i)
{
	const struct fgit_packer *pk = ctx;
	return E(pk, pk->order[i])->offset;
}

static uint32_t pk_crc(const void *ctx, uint32_t i)
{
	const struct fgit_packer *pk = ctx;
	return E(pk, pk->order[i])->crc;
}

static void pk_src(struct idx_src *s, const struct fgit_packer *pk)
{
	s->nr = pk->nwritten;
	s->pack_hash = pk->hash;
	s->oid = pk_oid;
	s->offset = pk_offset;
	s->crc = pk_crc;
	s->ctx = pk;
}

int fgit_packer_idx(struct fgit_buf *out, const struct fgit_packer *pk,
		    const struct fgit_idx_options *opts)
{
	struct idx_src s;
	pk_src(&s, pk);
	return pack_idx_write(out, &s, opts);
}

int fgit_packer_rev(struct fgit_buf *out, const struct fgit_packer *pk)
{
	struct idx_src s;
	pk_src(&s, pk);
	return pack_rev_write(out, &s);
}

int fgit_packer_write_files(char *hex_out, struct fgit_packer *pk, const char *base_name,
			    int write_rev, const struct fgit_idx_options *idx_opts)
{
	struct fgit_buf tmp = FGIT_BUF_INIT, path = FGIT_BUF_INIT, idx = FGIT_BUF_INIT;
	const char *slash = strrchr(base_name, '/');
	char hex[FGIT_MAX_HEXSZ + 1];
	int fd = -1, ret;

	if (fgit_buf_add(&tmp, base_name, slash ? (size_t)(slash - base_name) + 1 : 0) ||
	    fgit_buf_adds(&tmp, "tmp_pack_XXXXXX")) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp.ptr);
	if (fd < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to create temporary file '%s'", tmp.ptr);
		fgit_buf_reset(&tmp);
		goto out;
	}
	if ((ret = fgit_packer_write(pk, fd)) < 0)
		goto out;
	if (fchmod(fd, 0444) || fsync(fd) < 0 || close(fd)) {
		fd = -1;
		ret = fgit_error_errno(FGIT_ERROR, "unable to write '%s'", tmp.ptr);
		goto out;
	}
	fd = -1;
	{
		struct fgit_oid h;
		fgit_oid_from_raw(&h, pk->hash, pk->algo);
		fgit_oid_to_hex(hex, &h);
	}
	if ((ret = fgit_packer_idx(&idx, pk, idx_opts)) < 0)
		goto out;
	if (fgit_buf_addf(&path, "%s-%s.pack", base_name, hex)) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	if (rename(tmp.ptr, path.ptr)) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to rename temporary pack file '%s'", tmp.ptr);
		goto out;
	}
	fgit_buf_reset(&tmp);
	if (write_rev) {
		struct fgit_buf rev = FGIT_BUF_INIT;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s-%s.rev", base_name, hex);
		ret = fgit_packer_rev(&rev, pk);
		if (!ret)
			ret = fgit_pack_write_file(path.ptr, rev.ptr, rev.len, 0444);
		fgit_buf_release(&rev);
		if (ret < 0)
			goto out;
	}
	/* the same pack again: a bitmap of it goes (as in git's repack);
	 * fgit_packer_write_bitmap writes a new one, from this one's sets */
	fgit_buf_reset(&path);
	fgit_buf_addf(&path, "%s-%s.pack", base_name, hex);
	if (!pk->same_bitmap && (ret = pack_old_bitmap_open(&pk->same_bitmap, path.ptr)) < 0)
		goto out;
	fgit_buf_reset(&path);
	fgit_buf_addf(&path, "%s-%s.bitmap", base_name, hex);
	unlink(path.ptr);
	fgit_buf_reset(&path);
	fgit_buf_addf(&path, "%s-%s.idx", base_name, hex);
	if ((ret = fgit_pack_write_file(path.ptr, idx.ptr, idx.len, 0444)) < 0)
		goto out;
	memcpy(hex_out, hex, strlen(hex) + 1);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp.len)
		unlink(tmp.ptr);
	fgit_buf_release(&tmp);
	fgit_buf_release(&path);
	fgit_buf_release(&idx);
	return ret;
}

/* ---- reachability bitmaps ---- */

/* The bitmap of another pack of the database (not new_pack), to reuse:
 * 0 and *out (NULL if there is none). */
static int open_old_bitmap(struct pack_old_bitmap **out, struct fgit_odb *odb,
			   const char *new_pack)
{
	size_t i, n = fgit_odb_pack_count(odb);
	int r;

	*out = NULL;
	for (i = 0; i < n; i++) {
		const char *p = fgit_odb_pack_path(odb, i);
		if (!p || !strcmp(p, new_pack))
			continue;
		if ((r = pack_old_bitmap_open(out, p)) <= 0)
			return r;
	}
	return 0;
}

static int type_chunk(size_t begin, size_t end, int worker, void *payload)
{
	struct fgit_packer *pk = payload;
	size_t i;
	int ret;
	for (i = begin; i < end; i++) {
		struct entry *e = E(pk, pk->order[i]);
		struct fgit_object_info info;
		if (e->type)
			continue;
		if ((ret = fgit_odb_read_info(&info, pk->odb, &e->oid, FGIT_INFO_TYPE)) < 0)
			return ret;
		e->type = (uint8_t)info.type;
	}
	return 0;
}

/* Types of the reused deltas whose type locate_one did not read. */
static int fill_types(struct fgit_packer *pk)
{
	return fgit_parallel_for(pk->nwritten, 2048, pk->o.nthreads, type_chunk, pk);
}

int fgit_packer_write_bitmap(struct fgit_packer *pk, const char *base_name, const char *hex,
			     struct fgit_refdb *refdb, unsigned int flags)
{
	struct bitmap_src s;
	struct pack_old_bitmap *old = NULL;
	struct fgit_buf out = FGIT_BUF_INIT, path = FGIT_BUF_INIT;
	struct fgit_oid *oid = NULL;
	uint8_t *type = NULL;
	uint32_t *hash = NULL, i;
	int ret;

	if (pk->algo != FGIT_HASH_SHA1)
		return fgit_error_set(FGIT_ENOTSUPP, "bitmaps need a SHA-1 repository");
	if ((ret = fill_types(pk)) < 0)
		return ret;
	oid = malloc(((size_t)pk->nwritten + 1) * sizeof(*oid));
	type = malloc((size_t)pk->nwritten + 1);
	hash = malloc(((size_t)pk->nwritten + 1) * sizeof(*hash));
	if (!oid || !type || !hash) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < pk->nwritten; i++) {
		const struct entry *e = E(pk, pk->order[i]);
		oid[i] = e->oid;
		type[i] = e->type;
		hash[i] = e->hash;
	}
	s.nr = pk->nwritten;
	s.pack_hash = pk->hash;
	s.oid = oid;
	s.type = type;
	s.name_hash = flags & FGIT_PACKER_BITMAP_HASH_CACHE ? hash : NULL;
	if (fgit_buf_addf(&path, "%s-%s.pack", base_name, hex)) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	if (pk->same_bitmap) {
		old = pk->same_bitmap;
		pk->same_bitmap = NULL;
	} else if ((ret = open_old_bitmap(&old, pk->odb, path.ptr)) < 0) {
		goto out;
	}
	s.select_meter = 1;
	s.tips = NULL;
	s.ntips = 0;
	ret = pack_bitmap_write_reusing(&out, &s, old, pk->odb, refdb, pk->o.nthreads,
					pk->o.progress ? pk->o.progress_fd : -1);
	if (ret < 0)
		goto out;
	fgit_buf_reset(&path);
	if (fgit_buf_addf(&path, "%s-%s.bitmap", base_name, hex)) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	ret = fgit_pack_write_file(path.ptr, out.ptr, out.len, 0444);
out:
	pack_old_bitmap_free(old);
	free(oid);
	free(type);
	free(hash);
	fgit_buf_release(&out);
	fgit_buf_release(&path);
	return ret;
}

/* ---- thin packs: bases from the edges' trees ---- */

struct base_ctx {
	struct fgit_packer *pk;
	uint64_t *keys;		/* (type << 32 | name hash) of objects packed, sorted */
	size_t nkeys;
	struct fgit_buf path;
};

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int wanted_name(const struct base_ctx *c, enum fgit_object_type type, uint32_t hash)
{
	uint64_t k = (uint64_t)type << 32 | hash;
	return bsearch(&k, c->keys, c->nkeys, sizeof(k), cmp_key) != NULL;
}

/* git's add_preferred_base: entries of the edge trees at the paths of
 * objects being packed become bases (not written). */
static int add_base_tree(struct base_ctx *c, const struct fgit_oid *tree, int depth)
{
	struct fgit_packer *pk = c->pk;
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	enum fgit_object_type t;
	void *buf;
	size_t len, base = c->path.len;
	int ret = 0, r;

	if (depth > 4096 || fgit_odb_read(&buf, &len, &t, pk->odb, tree) < 0 || t != FGIT_OBJ_TREE) {
		fgit_error_clear();
		return 0;	/* a base we lack is no base */
	}
	fgit_tree_iter_init(&it, buf, len, pk->algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		enum fgit_object_type et;
		uint32_t h;
		if ((e.mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		et = fgit_mode_is_tree(e.mode) ? FGIT_OBJ_TREE : FGIT_OBJ_BLOB;
		fgit_buf_setlen(&c->path, base);
		if ((base && fgit_buf_addch(&c->path, '/')) || fgit_buf_add(&c->path, e.name, e.name_len)) {
			ret = FGIT_ENOMEM;
			break;
		}
		h = name_hash(c->path.ptr, c->path.len);
		if (!wanted_name(c, et, h))
			continue;
		if ((ret = add_entry(pk, &e.oid, et, c->path.ptr, c->path.len, E_PREFERRED)) < 0)
			break;
		if (et == FGIT_OBJ_TREE && (ret = add_base_tree(c, &e.oid, depth + 1)) < 0)
			break;
	}
	fgit_buf_setlen(&c->path, base);
	free(buf);
	return ret;
}

int fgit_packer_add_base_trees(struct fgit_packer *pk, const struct fgit_oid *trees, size_t n)
{
	struct base_ctx c = { pk, NULL, 0, FGIT_BUF_INIT };
	uint32_t i;
	size_t t;
	int ret = 0;

	if (!pk->o.thin || !n)
		return 0;
	c.keys = malloc(((size_t)pk->nr + 1) * sizeof(*c.keys));
	if (!c.keys)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < pk->nr; i++) {
		struct entry *e = E(pk, i);
		enum fgit_object_type type = e->type;
		if (!type) {
			struct fgit_object_info info;
			if (fgit_odb_read_info(&info, pk->odb, &e->oid, FGIT_INFO_TYPE) == 0)
				type = info.type;
		}
		c.keys[c.nkeys++] = (uint64_t)type << 32 | e->hash;
	}
	qsort(c.keys, c.nkeys, sizeof(*c.keys), cmp_key);
	for (t = 0; t < n && !ret; t++) {
		fgit_buf_reset(&c.path);
		if ((ret = add_entry(pk, &trees[t], FGIT_OBJ_TREE, "", 0, E_PREFERRED)) < 0)
			break;
		ret = add_base_tree(&c, &trees[t], 0);
	}
	free(c.keys);
	fgit_buf_release(&c.path);
	return ret;
}

/* ---- filling a packer from a walk and the refs ---- */

struct walk_ctx {
	struct fgit_packer *pk;
	struct fgit_progress *prog;
	uint64_t seen;
};

static int walk_cb(const struct fgit_oid *oid, enum fgit_object_type type, const char *name,
		   size_t name_len, void *payload)
{
	struct walk_ctx *c = payload;
	int r = fgit_packer_add(c->pk, oid, type, name, name_len);
	if (r < 0)
		return r;
	fgit_progress_set(c->prog, ++c->seen);
	return 0;
}

int fgit_packer_add_walk(struct fgit_packer *pk, struct fgit_objwalk *w)
{
	struct walk_ctx c = { pk, NULL, 0 };
	int ret;
	if (pk->o.progress)
		c.prog = fgit_progress_new("Enumerating objects", 0, pk->o.progress_fd, 0);
	ret = fgit_objwalk_run(w, walk_cb, &c);
	fgit_progress_done(c.prog);
	return ret;
}

struct bitmap_add {
	struct fgit_packer *pk;
	struct fgit_progress *prog;
};

static int bitmap_add_cb(const struct fgit_oid *oid, enum fgit_object_type type,
			 uint32_t hash, uint64_t offset, void *payload)
{
	struct bitmap_add *c = payload;
	uint32_t n = c->pk->nr;
	int ret;

	(void)offset;
	/* the meter starts with the first object: a bitmap that cannot
	 * answer shows none (the walk after it shows its own) */
	if (!c->prog && c->pk->o.progress)
		c->prog = fgit_progress_new("Enumerating objects", 0, c->pk->o.progress_fd, 0);
	if ((ret = add_entry(c->pk, oid, type, NULL, 0, E_TYPED)) < 0)
		return ret;
	if (c->pk->nr > n)
		E(c->pk, n)->hash = hash;
	fgit_progress_set(c->prog, c->pk->nr);
	return 0;
}

int fgit_packer_add_bitmap(struct fgit_packer *pk, const struct fgit_oid *tips, size_t ntips)
{
	struct bitmap_add c = { pk, NULL };
	int ret;

	/* NEEDSWORK: with -f (no delta reuse) the delta search over objects
	 * in the old pack's order took 158 s of CPU against 56 s after the
	 * walk (history corpus, one run each): walk there until understood */
	if (pk->nr || pk->o.thin || (pk->o.skip & FGIT_PACK_SKIP_PACKED) ||
	    !pk->o.reuse_delta || !pk->o.reuse_object)
		return 1;
	if ((pk->o.skip & FGIT_PACK_SKIP_KEPT) || pk->o.nkeep_packs) {
		if (pk->nkept < 0 && find_kept(pk) < 0)
			return -1;
		if (pk->nkept)
			return 1;
	}
	ret = pack_bitmap_reachable(pk->odb, tips, ntips, bitmap_add_cb, &c);
	fgit_progress_done(c.prog);
	return ret;
}

int fgit_packer_add_bitmap_all(struct fgit_packer *pk, struct fgit_refdb *refdb)
{
	struct fgit_oid *tips = NULL, *nt;
	size_t n = 0;
	int ret;

	/* the ids of the refs (not peeled: tag objects are sent too) */
	if ((ret = fgit_commit_graph_ref_tips(&tips, &n, refdb)) < 0)
		return ret;
	if (!(nt = realloc(tips, (n + 1) * sizeof(*tips)))) {
		free(tips);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	tips = nt;
	if (fgit_refdb_resolve(&tips[n], NULL, NULL, refdb, "HEAD") == 0)
		n++;
	fgit_error_clear();
	ret = fgit_packer_add_bitmap(pk, tips, n);
	free(tips);
	return ret;
}

static int tag_cb(const char *name, const struct fgit_oid *oid, unsigned int flags, void *payload)
{
	struct fgit_packer *pk = payload;
	struct fgit_oid cur = *oid;
	int hops = 0;

	if (flags & FGIT_REF_BROKEN)
		return 0;
	fgit_packer_mark_tagged(pk, &cur);
	for (;;) {
		void *buf;
		size_t len;
		enum fgit_object_type t;
		struct fgit_tag tag;
		struct fgit_object_info info;
		if (fgit_odb_read_info(&info, pk->odb, &cur, FGIT_INFO_TYPE) < 0 ||
		    info.type != FGIT_OBJ_TAG || ++hops > 100)
			break;
		if (fgit_odb_read(&buf, &len, &t, pk->odb, &cur) < 0)
			break;
		if (fgit_tag_parse(&tag, buf, len, pk->algo) < 0) {
			free(buf);
			break;
		}
		cur = tag.object;
		free(buf);
	}
	if (hops)
		fgit_packer_mark_tagged(pk, &cur);
	return 0;
}

int fgit_packer_mark_tags(struct fgit_packer *pk, struct fgit_refdb *db)
{
	return fgit_refdb_foreach(db, "refs/tags/", tag_cb, pk);
}
