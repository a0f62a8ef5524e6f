/*
 * Commit-graph files (include/fgit/commit_graph.h): reading, writing and
 * verifying, as git 2.39 does.
 *
 * Writing reads each commit once (from an existing graph when it has the
 * commit, as git does, else from the object database), sorts them by id,
 * then computes topological levels and corrected commit dates with an
 * explicit stack (histories are deeper than any C stack), and lays the
 * file out in memory before one checksum and one rename.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/chunk.h"
#include "fgit/commit_graph.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/lockfile.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/progress.h"
#include "fgit/refs.h"

#define GRAPH_SIGNATURE 0x43475048u	/* "CGPH" */
#define GRAPH_HEADER 8
#define PARENT_NONE 0x70000000u
#define EXTRA_EDGES 0x80000000u
#define LAST_EDGE 0x80000000u
#define LEVEL_MAX 0x3FFFFFFFu
#define OFFSET_MAX 0x7FFFFFFFu
#define MAX_CHUNKS 32

struct fgit_commit_graph {
	const unsigned char *map;
	size_t size;
	int algo;
	size_t rawsz;
	uint32_t nr;
	const unsigned char *fanout, *oids, *cdat, *gda2, *gdo2, *edge;
	uint64_t ngdo2, nedge;
};

#define be32 fgit_be32
#define be64 fgit_be64

static int graph_parse(struct fgit_commit_graph *g)
{
	struct fgit_chunk ch[MAX_CHUNKS];
	const struct fgit_chunk *c;
	const unsigned char *d = g->map;
	unsigned n, i;
	uint64_t nr;
	int r;

	if (g->size < GRAPH_HEADER + 12 + g->rawsz)
		return fgit_error_set(FGIT_EINVALID, "commit-graph file is too small");
	if (be32(d) != GRAPH_SIGNATURE)
		return fgit_error_set(FGIT_EINVALID, "commit-graph signature %X does not match"
				      " signature %X", be32(d), GRAPH_SIGNATURE);
	if (d[4] != 1)
		return fgit_error_set(FGIT_EINVALID, "commit-graph version %X does not match"
				      " version %X", d[4], 1);
	if (d[5] != (unsigned)g->algo)
		return fgit_error_set(FGIT_EINVALID, "commit-graph hash version %X does not"
				      " match version %X", d[5], (unsigned)g->algo);
	n = d[6];
	if (n > MAX_CHUNKS || GRAPH_HEADER + (uint64_t)(n + 1) * 12 > g->size - g->rawsz)
		return fgit_error_set(FGIT_EINVALID, "commit-graph file is too small to hold"
				      " %u chunks", n);
	if ((r = fgit_chunk_table_read(ch, d, g->size, GRAPH_HEADER, n, g->rawsz)) < 0)
		return r;
	if (!(c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('O', 'I', 'D', 'F'))) || c->size != 1024)
		return fgit_error_set(FGIT_EINVALID, "commit-graph is missing the OID Fanout chunk");
	g->fanout = d + c->offset;
	for (i = 1; i < 256; i++)
		if (be32(g->fanout + 4 * i) < be32(g->fanout + 4 * (i - 1)))
			return fgit_error_set(FGIT_EINVALID, "commit-graph fanout values out of order");
	nr = g->nr = be32(g->fanout + 4 * 255);
	if (!(c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('O', 'I', 'D', 'L'))) ||
	    c->size != nr * g->rawsz)
		return fgit_error_set(FGIT_EINVALID, "commit-graph is missing the OID Lookup chunk");
	g->oids = d + c->offset;
	if (!(c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('C', 'D', 'A', 'T'))) ||
	    c->size != nr * (g->rawsz + 16))
		return fgit_error_set(FGIT_EINVALID, "commit-graph is missing the Commit Data chunk");
	g->cdat = d + c->offset;
	if ((c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('G', 'D', 'A', '2')))) {
		if (c->size != nr * 4)
			return fgit_error_set(FGIT_EINVALID, "commit-graph generation data chunk"
					      " is the wrong size");
		g->gda2 = d + c->offset;
	}
	if ((c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('G', 'D', 'O', '2')))) {
		g->gdo2 = d + c->offset;
		g->ngdo2 = c->size / 8;
	}
	if ((c = fgit_chunk_find(ch, n, FGIT_CHUNK_ID('E', 'D', 'G', 'E')))) {
		g->edge = d + c->offset;
		g->nedge = c->size / 4;
	}
	/* parents in range, so walkers can index with them */
	for (i = 0; i < g->nr; i++) {
		const unsigned char *e = g->cdat + (size_t)i * (g->rawsz + 16) + g->rawsz;
		uint32_t p1 = be32(e), p2 = be32(e + 4);
		if (p1 != PARENT_NONE && p1 >= g->nr)
			return fgit_error_set(FGIT_EINVALID, "commit-graph parent out of range");
		if (p2 != PARENT_NONE && !(p2 & EXTRA_EDGES) && p2 >= g->nr)
			return fgit_error_set(FGIT_EINVALID, "commit-graph parent out of range");
	}
	return 0;
}

int fgit_commit_graph_open(struct fgit_commit_graph **out, const char *objects_dir, int algo)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct fgit_commit_graph *g = NULL;
	struct stat st;
	void *map;
	int fd = -1, r;

	fgit_buf_addf(&path, "%s/info/commit-graph", objects_dir);
	fd = open(path.ptr, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = fgit_error_errno(errno == ENOENT ? FGIT_ENOTFOUND : FGIT_ERROR,
				     "could not open commit-graph '%s'", path.ptr);
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = fgit_error_errno(FGIT_ERROR, "could not stat commit-graph '%s'", path.ptr);
		goto out;
	}
	if (!(g = calloc(1, sizeof(*g)))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	g->algo = algo ? algo : FGIT_HASH_SHA1;
	g->rawsz = fgit_hash_rawsz(g->algo);
	g->size = (size_t)st.st_size;
	if (g->size < GRAPH_HEADER + 12 + g->rawsz) {
		r = fgit_error_set(FGIT_EINVALID, "commit-graph file is too small");
		goto out;
	}
	map = mmap(NULL, g->size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r = fgit_error_errno(FGIT_ERROR, "unable to mmap %s", path.ptr);
		goto out;
	}
	g->map = map;
	if ((r = graph_parse(g)) < 0)
		goto out;
	*out = g;
	g = NULL;
out:
	if (fd >= 0)
		close(fd);
	fgit_commit_graph_free(g);
	fgit_buf_release(&path);
	return r;
}

void fgit_commit_graph_free(struct fgit_commit_graph *g)
{
	if (!g)
		return;
	if (g->map)
		munmap((void *)g->map, g->size);
	free(g);
}

uint32_t fgit_commit_graph_count(const struct fgit_commit_graph *g)
{
	return g->nr;
}

int fgit_commit_graph_find(uint32_t *pos, const struct fgit_commit_graph *g,
			   const struct fgit_oid *oid)
{
	return fgit_chunk_oid_find(pos, g->fanout, g->oids, g->rawsz, oid);
}

void fgit_commit_graph_oid(struct fgit_oid *out, const struct fgit_commit_graph *g,
			   uint32_t pos)
{
	fgit_oid_from_raw(out, g->oids + (size_t)pos * g->rawsz, g->algo);
}

static const unsigned char *cdat(const struct fgit_commit_graph *g, uint32_t pos)
{
	return g->cdat + (size_t)pos * (g->rawsz + 16);
}

void fgit_commit_graph_tree(struct fgit_oid *out, const struct fgit_commit_graph *g,
			    uint32_t pos)
{
	fgit_oid_from_raw(out, cdat(g, pos), g->algo);
}

uint64_t fgit_commit_graph_date(const struct fgit_commit_graph *g, uint32_t pos)
{
	const unsigned char *e = cdat(g, pos) + g->rawsz + 8;
	return ((uint64_t)(be32(e) & 3) << 32) | be32(e + 4);
}

uint32_t fgit_commit_graph_level(const struct fgit_commit_graph *g, uint32_t pos)
{
	return be32(cdat(g, pos) + g->rawsz + 8) >> 2;
}

uint64_t fgit_commit_graph_generation(const struct fgit_commit_graph *g, uint32_t pos)
{
	uint32_t off;
	if (!g->gda2)
		return fgit_commit_graph_level(g, pos);
	off = be32(g->gda2 + 4 * (size_t)pos);
	if (off & 0x80000000u) {
		uint32_t k = off & 0x7fffffffu;
		if (k < g->ngdo2)
			return fgit_commit_graph_date(g, pos) + be64(g->gdo2 + 8 * (size_t)k);
		return fgit_commit_graph_date(g, pos);
	}
	return fgit_commit_graph_date(g, pos) + off;
}

int fgit_commit_graph_parents(uint32_t *out, size_t max, const struct fgit_commit_graph *g,
			      uint32_t pos)
{
	const unsigned char *e = cdat(g, pos) + g->rawsz;
	uint32_t p1 = be32(e), p2 = be32(e + 4), k;
	size_t n = 0;

	if (p1 == PARENT_NONE)
		return 0;
	if (n < max)
		out[n] = p1;
	n++;
	if (p2 == PARENT_NONE)
		return (int)n;
	if (!(p2 & EXTRA_EDGES)) {
		if (n < max)
			out[n] = p2;
		return (int)n + 1;
	}
	for (k = p2 & ~EXTRA_EDGES;; k++) {
		uint32_t v;
		if (!g->edge || k >= g->nedge)
			return fgit_error_set(FGIT_EINVALID, "commit-graph extra-edges pointer"
					      " out of bounds");
		v = be32(g->edge + 4 * (size_t)k);
		if ((v & ~LAST_EDGE) >= g->nr)
			return fgit_error_set(FGIT_EINVALID, "commit-graph parent out of range");
		if (n < max)
			out[n] = v & ~LAST_EDGE;
		n++;
		if (v & LAST_EDGE)
			break;
	}
	return (int)n;
}

/* ---- writing ---- */

struct cnode {
	struct fgit_oid oid;		/* first: oidmap key */
	struct fgit_oid tree;
	uint64_t date;
	struct cnode **parents;
	uint32_t nparents;
	uint32_t pos;
	uint32_t level;
	int parsed;
	uint64_t corrected;
};

struct gctx {
	struct fgit_odb *odb;
	struct fgit_commit_graph *old;
	int algo;
	struct fgit_oidmap map;
	struct cnode **v;
	size_t nr, alloc;
	struct cnode **stack;
	size_t sp, salloc;
};

static struct cnode *node_get(struct gctx *c, const struct fgit_oid *oid, int *isnew)
{
	struct cnode *n = fgit_oidmap_get(&c->map, oid);
	int err = 0;
	*isnew = 0;
	if (n)
		return n;
	if (c->nr == c->alloc) {
		size_t na = c->alloc ? 2 * c->alloc : 1024;
		struct cnode **nv = realloc(c->v, na * sizeof(*nv));
		if (!nv)
			return NULL;
		c->v = nv;
		c->alloc = na;
	}
	if (!(n = calloc(1, sizeof(*n))))
		return NULL;
	n->oid = *oid;
	fgit_oidmap_put(&c->map, n, &err);
	if (err) {
		free(n);
		return NULL;
	}
	c->v[c->nr++] = n;
	*isnew = 1;
	return n;
}

static int push(struct gctx *c, struct cnode *n)
{
	if (c->sp == c->salloc) {
		size_t na = c->salloc ? 2 * c->salloc : 1024;
		struct cnode **ns = realloc(c->stack, na * sizeof(*ns));
		if (!ns)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		c->stack = ns;
		c->salloc = na;
	}
	c->stack[c->sp++] = n;
	return 0;
}

/* Fill n from the old graph or the object database; queue new parents. */
static int parse_cnode(struct gctx *c, struct cnode *n)
{
	struct fgit_oid pids[64], *pv = pids;
	void *buf = NULL;
	size_t len, i, np = 0;
	enum fgit_object_type type;
	char hex[FGIT_MAX_HEXSZ + 1];
	uint32_t pos;
	int r = 0;

	if (c->old && fgit_commit_graph_find(&pos, c->old, &n->oid)) {
		uint32_t pp[64];
		int k = fgit_commit_graph_parents(pp, 64, c->old, pos);
		if (k >= 0 && k <= 64) {
			fgit_commit_graph_tree(&n->tree, c->old, pos);
			n->date = fgit_commit_graph_date(c->old, pos);
			for (i = 0; i < (size_t)k; i++)
				fgit_commit_graph_oid(&pids[i], c->old, pp[i]);
			np = (size_t)k;
			goto have;
		}
		fgit_error_clear();
	}
	if ((r = fgit_odb_read(&buf, &len, &type, c->odb, &n->oid)) < 0)
		return r;
	{
		struct fgit_commit cm;
		if (type != FGIT_OBJ_COMMIT || fgit_commit_parse(&cm, buf, len, c->algo) < 0) {
			r = fgit_error_set(FGIT_EINVALID, "unable to parse commit %s",
					   fgit_oid_to_hex(hex, &n->oid));
			goto out;
		}
		n->tree = cm.tree;
		n->date = cm.committer_time > 0 ? (uint64_t)cm.committer_time : 0;
		np = cm.nparents;
		if (np > 64 && !(pv = malloc(np * sizeof(*pv)))) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < np; i++)
			fgit_commit_parent(&pv[i], &cm, i);
	}
have:
	n->parsed = 1;
	n->nparents = (uint32_t)np;
	if (np && !(n->parents = malloc(np * sizeof(*n->parents)))) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < np; i++) {
		int isnew;
		struct cnode *p = node_get(c, &pv[i], &isnew);
		if (!p) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		n->parents[i] = p;
		if (isnew && (r = push(c, p)) < 0)
			goto out;
	}
out:
	if (pv != pids)
		free(pv);
	free(buf);
	return r;
}

/* Peel a start to a commit: 1 and *out, 0 if it is no commit. */
static int peel_commit(struct fgit_oid *out, struct fgit_odb *odb, const struct fgit_oid *oid,
		       int algo)
{
	struct fgit_oid cur = *oid;
	int depth;

	for (depth = 0; depth < 64; depth++) {
		struct fgit_object_info info;
		struct fgit_tag t;
		void *buf;
		size_t len;
		enum fgit_object_type type;
		int r;
		if ((r = fgit_odb_read_info(&info, odb, &cur, FGIT_INFO_TYPE)) < 0)
			return r;
		if (info.type == FGIT_OBJ_COMMIT) {
			*out = cur;
			return 1;
		}
		if (info.type != FGIT_OBJ_TAG)
			return 0;
		if ((r = fgit_odb_read(&buf, &len, &type, odb, &cur)) < 0)
			return r;
		r = fgit_tag_parse(&t, buf, len, algo);
		free(buf);
		if (r < 0)
			return r;
		cur = t.object;
	}
	return 0;
}

static int oid_ptr_cmp(const void *a, const void *b)
{
	const struct cnode *x = *(struct cnode *const *)a, *y = *(struct cnode *const *)b;
	return fgit_oid_cmp(&x->oid, &y->oid);
}

/* Topological levels and corrected commit dates, parents first. */
static int compute_generations(struct gctx *c)
{
	size_t i;
	int r;

	for (i = 0; i < c->nr; i++) {
		if (c->v[i]->level)
			continue;
		c->sp = 0;
		if ((r = push(c, c->v[i])) < 0)
			return r;
		while (c->sp) {
			struct cnode *n = c->stack[c->sp - 1];
			uint32_t k, maxl = 0;
			uint64_t maxc = 0;
			int ready = 1;
			for (k = 0; k < n->nparents; k++) {
				struct cnode *p = n->parents[k];
				if (!p->level) {
					ready = 0;
					if ((r = push(c, p)) < 0)
						return r;
					break;
				}
				if (p->level > maxl)
					maxl = p->level;
				if (p->corrected > maxc)
					maxc = p->corrected;
			}
			if (!ready)
				continue;
			c->sp--;
			if (maxl > LEVEL_MAX - 1)
				maxl = LEVEL_MAX - 1;
			n->level = maxl + 1;
			if (n->date && n->date > maxc)
				maxc = n->date - 1;
			n->corrected = maxc + 1;
		}
	}
	return 0;
}

static int add32(struct fgit_buf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };
	return fgit_buf_add(b, x, 4);
}

static int build_file(struct fgit_buf *out, struct gctx *c)
{
	size_t rawsz = fgit_hash_rawsz(c->algo), i, nedge = 0, novf = 0;
	uint32_t ids[6], fan[256], k;
	uint64_t sizes[6];
	unsigned nch = 0;
	unsigned char hdr[8];
	struct fgit_hash_ctx hc;
	unsigned char sum[FGIT_MAX_RAWSZ];

	for (i = 0; i < c->nr; i++) {
		if (c->v[i]->nparents > 2)
			nedge += c->v[i]->nparents - 1;
		if (c->v[i]->corrected - c->v[i]->date > OFFSET_MAX)
			novf++;
	}
	ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'F'); sizes[nch++] = 1024;
	ids[nch] = FGIT_CHUNK_ID('O', 'I', 'D', 'L'); sizes[nch++] = (uint64_t)c->nr * rawsz;
	ids[nch] = FGIT_CHUNK_ID('C', 'D', 'A', 'T'); sizes[nch++] = (uint64_t)c->nr * (rawsz + 16);
	ids[nch] = FGIT_CHUNK_ID('G', 'D', 'A', '2'); sizes[nch++] = (uint64_t)c->nr * 4;
	if (novf) {
		ids[nch] = FGIT_CHUNK_ID('G', 'D', 'O', '2');
		sizes[nch++] = (uint64_t)novf * 8;
	}
	if (nedge) {
		ids[nch] = FGIT_CHUNK_ID('E', 'D', 'G', 'E');
		sizes[nch++] = (uint64_t)nedge * 4;
	}
	memcpy(hdr, "CGPH", 4);
	hdr[4] = 1;
	hdr[5] = (unsigned char)c->algo;
	hdr[6] = (unsigned char)nch;
	hdr[7] = 0;
	if (fgit_buf_grow(out, 8 + 12 * (nch + 1) + 1024 + c->nr * (2 * rawsz + 20) +
			  nedge * 4 + novf * 8 + rawsz) < 0)
		return FGIT_ENOMEM;
	fgit_buf_add(out, hdr, 8);
	fgit_chunk_table_write(out, ids, sizes, nch, 8 + 12 * (nch + 1));
	memset(fan, 0, sizeof(fan));
	for (i = 0; i < c->nr; i++)
		fan[c->v[i]->oid.hash[0]]++;
	for (i = 0, k = 0; i < 256; i++) {
		k += fan[i];
		add32(out, k);
	}
	for (i = 0; i < c->nr; i++)
		fgit_buf_add(out, c->v[i]->oid.hash, rawsz);
	for (i = 0, k = 0; i < c->nr; i++) {
		struct cnode *n = c->v[i];
		uint32_t level = n->level > LEVEL_MAX ? LEVEL_MAX : n->level;
		fgit_buf_add(out, n->tree.hash, rawsz);
		add32(out, n->nparents ? n->parents[0]->pos : PARENT_NONE);
		if (n->nparents < 2) {
			add32(out, PARENT_NONE);
		} else if (n->nparents == 2) {
			add32(out, n->parents[1]->pos);
		} else {
			add32(out, EXTRA_EDGES | k);
			k += n->nparents - 1;
		}
		add32(out, (uint32_t)(n->date >> 32) | level << 2);
		add32(out, (uint32_t)n->date);
	}
	for (i = 0, k = 0; i < c->nr; i++) {
		uint64_t off = c->v[i]->corrected - c->v[i]->date;
		add32(out, off > OFFSET_MAX ? 0x80000000u | k++ : (uint32_t)off);
	}
	for (i = 0; i < c->nr && novf; i++) {
		uint64_t off = c->v[i]->corrected - c->v[i]->date;
		if (off > OFFSET_MAX) {
			add32(out, (uint32_t)(off >> 32));
			add32(out, (uint32_t)off);
		}
	}
	for (i = 0; i < c->nr && nedge; i++) {
		struct cnode *n = c->v[i];
		uint32_t j;
		if (n->nparents <= 2)
			continue;
		for (j = 1; j < n->nparents; j++)
			add32(out, n->parents[j]->pos | (j + 1 == n->nparents ? LAST_EDGE : 0));
	}
	fgit_checksum_init(&hc, c->algo);
	fgit_checksum_update(&hc, out->ptr, out->len);
	fgit_checksum_final(sum, &hc);
	return fgit_buf_add(out, sum, rawsz);
}

int fgit_commit_graph_write(const char *objects_dir, struct fgit_odb *odb,
			    const struct fgit_oid *starts, size_t nstarts,
			    const struct fgit_commit_graph_options *o)
{
	struct gctx c;
	struct fgit_buf out = FGIT_BUF_INIT, path = FGIT_BUF_INIT;
	struct fgit_lockfile *lk = NULL;
	size_t i;
	int r = 0;

	memset(&c, 0, sizeof(c));
	c.odb = odb;
	c.algo = o->algo ? o->algo : FGIT_HASH_SHA1;
	if (fgit_commit_graph_open(&c.old, objects_dir, c.algo) < 0) {
		c.old = NULL;
		fgit_error_clear();
	}
	for (i = 0; i < nstarts; i++) {
		struct fgit_oid cm;
		struct cnode *n;
		int isnew;
		if ((r = peel_commit(&cm, odb, &starts[i], c.algo)) < 0)
			goto out;
		if (!r)
			continue;
		if (!(n = node_get(&c, &cm, &isnew))) {
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		if (isnew && (r = push(&c, n)) < 0)
			goto out;
	}
	if ((o->flags & FGIT_CG_APPEND) && c.old) {
		uint32_t k;
		for (k = 0; k < fgit_commit_graph_count(c.old); k++) {
			struct fgit_oid oid;
			struct cnode *n;
			int isnew;
			fgit_commit_graph_oid(&oid, c.old, k);
			if (!(n = node_get(&c, &oid, &isnew))) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
			if (isnew && (r = push(&c, n)) < 0)
				goto out;
		}
	}
	while (c.sp) {
		struct cnode *n = c.stack[--c.sp];
		if (!n->parsed && (r = parse_cnode(&c, n)) < 0)
			goto out;
	}
	r = 0;
	if (!c.nr)
		goto out;
	qsort(c.v, c.nr, sizeof(*c.v), oid_ptr_cmp);
	for (i = 0; i < c.nr; i++)
		c.v[i]->pos = (uint32_t)i;
	if ((r = compute_generations(&c)) < 0 || (r = build_file(&out, &c)) < 0)
		goto out;
	fgit_buf_addf(&path, "%s/info", objects_dir);
	mkdir(path.ptr, 0777);
	fgit_buf_adds(&path, "/commit-graph");
	/* fsync'd as git's default core.fsync does for pack metadata and
	 * commit-graphs */
	if ((r = fgit_lockfile_acquire(&lk, path.ptr, FGIT_LOCK_FSYNC)) < 0)
		goto out;
	fchmod(fgit_lockfile_fd(lk), 0444);
	if ((r = fgit_lockfile_write(lk, out.ptr, out.len)) < 0) {
		fgit_lockfile_rollback(lk);
		goto out;
	}
	r = fgit_lockfile_commit(lk);
out:
	for (i = 0; i < c.nr; i++) {
		free(c.v[i]->parents);
		free(c.v[i]);
	}
	free(c.v);
	free(c.stack);
	fgit_oidmap_release(&c.map);
	fgit_commit_graph_free(c.old);
	fgit_buf_release(&out);
	fgit_buf_release(&path);
	return r;
}

struct tips {
	struct fgit_oid *v;
	size_t nr, alloc;
};

static int tips_add(struct tips *t, const struct fgit_oid *oid)
{
	if (t->nr == t->alloc) {
		size_t na = t->alloc ? 2 * t->alloc : 64;
		struct fgit_oid *nv = realloc(t->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		t->v = nv;
		t->alloc = na;
	}
	t->v[t->nr++] = *oid;
	return 0;
}

static int ref_tip(const char *name, const struct fgit_oid *oid, unsigned int flags,
		   void *payload)
{
	if (flags & FGIT_REF_BROKEN)
		return 0;
	return tips_add(payload, oid);
}

int fgit_commit_graph_ref_tips(struct fgit_oid **out, size_t *n, struct fgit_refdb *refs)
{
	struct tips t = { NULL, 0, 0 };
	int r = fgit_refdb_foreach(refs, "refs/", ref_tip, &t);
	if (r < 0) {
		free(t.v);
		return r;
	}
	*out = t.v;
	*n = t.nr;
	return 0;
}

struct pack_tips {
	struct tips t;
	struct fgit_odb *odb;
};

static int pack_tip(const struct fgit_oid *oid, void *payload)
{
	struct pack_tips *p = payload;
	struct fgit_object_info info;
	if (fgit_odb_read_info(&info, p->odb, oid, FGIT_INFO_TYPE) < 0) {
		fgit_error_clear();
		return 0;
	}
	return info.type == FGIT_OBJ_COMMIT ? tips_add(&p->t, oid) : 0;
}

int fgit_commit_graph_pack_tips(struct fgit_oid **out, size_t *n, struct fgit_odb *odb)
{
	struct pack_tips p = { { NULL, 0, 0 }, odb };
	int r = fgit_odb_foreach(odb, FGIT_FOREACH_PACKED | FGIT_FOREACH_LOCAL_ONLY,
				 pack_tip, &p);
	if (r < 0) {
		free(p.t.v);
		return r;
	}
	*out = p.t.v;
	*n = p.t.nr;
	return 0;
}

/* ---- verify ---- */

#define vreport(o, level, ...) fgit_chunk_reportf((o)->report, (o)->payload, level, __VA_ARGS__)

int fgit_commit_graph_verify(const char *objects_dir, struct fgit_odb *odb,
			     const struct fgit_commit_graph_options *o)
{
	struct fgit_commit_graph *g = NULL;
	struct fgit_progress *pr;
	int algo = o->algo ? o->algo : FGIT_HASH_SHA1, r, bad = 0;
	size_t rawsz = fgit_hash_rawsz(algo);
	uint32_t i;

	r = fgit_commit_graph_open(&g, objects_dir, algo);
	if (r == FGIT_ENOTFOUND) {
		fgit_error_clear();
		return 0;
	}
	if (r < 0) {
		vreport(o, 1, "%s", fgit_error_last());
		fgit_error_clear();
		return 1;
	}
#define BAD(...) do { vreport(o, 2, __VA_ARGS__); bad = 1; } while (0)
	{
		struct fgit_hash_ctx hc;
		unsigned char sum[FGIT_MAX_RAWSZ];
		fgit_checksum_init(&hc, algo);
		fgit_checksum_update(&hc, g->map, g->size - rawsz);
		fgit_checksum_final(sum, &hc);
		if (memcmp(sum, g->map + g->size - rawsz, rawsz)) {
			BAD("the commit-graph file has incorrect checksum and is likely corrupt");
			bad = 2;	/* git's VERIFY_COMMIT_GRAPH_ERROR_HASH: exit 2 */
		}
	}
	for (i = 0; i + 1 < g->nr; i++) {
		if (memcmp(g->oids + (size_t)i * rawsz, g->oids + (size_t)(i + 1) * rawsz,
			   rawsz) >= 0) {
			struct fgit_oid a, b;
			char ha[FGIT_MAX_HEXSZ + 1], hb[FGIT_MAX_HEXSZ + 1];
			fgit_commit_graph_oid(&a, g, i);
			fgit_commit_graph_oid(&b, g, i + 1);
			BAD("commit-graph has incorrect OID order: %s then %s",
			    fgit_oid_to_hex(ha, &a), fgit_oid_to_hex(hb, &b));
		}
	}
	{
		uint32_t fan[256], k;
		memset(fan, 0, sizeof(fan));
		for (i = 0; i < g->nr; i++)
			fan[g->oids[(size_t)i * rawsz]]++;
		for (i = 0, k = 0; i < 256; i++) {
			k += fan[i];
			if (be32(g->fanout + 4 * i) != k)
				BAD("commit-graph has incorrect fanout value: fanout[%u] = %u != %u",
				    i, be32(g->fanout + 4 * i), k);
		}
	}
	if (bad & ~2)
		goto out;
	pr = fgit_progress_new("Verifying commits in commit graph", g->nr, o->progress_fd, 0);
	for (i = 0; i < g->nr; i++) {
		struct fgit_oid oid, gt, pid;
		char h1[FGIT_MAX_HEXSZ + 1], h2[FGIT_MAX_HEXSZ + 1], h3[FGIT_MAX_HEXSZ + 1];
		struct fgit_commit cm;
		enum fgit_object_type type;
		uint32_t par[64];
		uint64_t maxgen = 0, gen;
		void *buf = NULL;
		size_t len, k;
		int np;

		fgit_commit_graph_oid(&oid, g, i);
		fgit_progress_set(pr, (uint64_t)i + 1);
		if (fgit_odb_read(&buf, &len, &type, odb, &oid) < 0 || type != FGIT_OBJ_COMMIT ||
		    fgit_commit_parse(&cm, buf, len, algo) < 0) {
			fgit_error_clear();
			free(buf);
			BAD("failed to parse commit %s from object database for commit-graph",
			    fgit_oid_to_hex(h1, &oid));
			continue;
		}
		fgit_commit_graph_tree(&gt, g, i);
		if (!fgit_oid_equal(&gt, &cm.tree))
			BAD("root tree OID for commit %s in commit-graph is %s != %s",
			    fgit_oid_to_hex(h1, &oid), fgit_oid_to_hex(h2, &gt),
			    fgit_oid_to_hex(h3, &cm.tree));
		np = fgit_commit_graph_parents(par, 64, g, i);
		if (np < 0) {
			fgit_error_clear();
			np = 0;
		}
		for (k = 0; k < (size_t)np && k < 64; k++) {
			struct fgit_oid gp;
			fgit_commit_graph_oid(&gp, g, par[k]);
			if (k >= cm.nparents) {
				BAD("commit-graph parent list for commit %s is too long",
				    fgit_oid_to_hex(h1, &oid));
				break;
			}
			fgit_commit_parent(&pid, &cm, k);
			if (!fgit_oid_equal(&gp, &pid))
				BAD("commit-graph parent for %s is %s != %s",
				    fgit_oid_to_hex(h1, &oid), fgit_oid_to_hex(h2, &gp),
				    fgit_oid_to_hex(h3, &pid));
			gen = fgit_commit_graph_generation(g, par[k]);
			if (gen > maxgen)
				maxgen = gen;
		}
		if ((size_t)np < cm.nparents)
			BAD("commit-graph parent list for commit %s terminates early",
			    fgit_oid_to_hex(h1, &oid));
		if (!g->gda2 && maxgen == LEVEL_MAX)
			maxgen--;
		gen = fgit_commit_graph_generation(g, i);
		if (gen < maxgen + 1)
			BAD("commit-graph generation for commit %s is %" PRIu64 " < %" PRIu64,
			    fgit_oid_to_hex(h1, &oid), gen, maxgen + 1);
		if (fgit_commit_graph_date(g, i) != (uint64_t)(cm.committer_time > 0 ?
							       cm.committer_time : 0))
			BAD("commit date for commit %s in commit-graph is %" PRIu64 " != %" PRIu64,
			    fgit_oid_to_hex(h1, &oid), fgit_commit_graph_date(g, i),
			    (uint64_t)cm.committer_time);
		free(buf);
	}
	fgit_progress_done(pr);
#undef BAD
out:
	fgit_commit_graph_free(g);
	return bad;
}
