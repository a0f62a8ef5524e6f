/*
 * The commit cache and date-ordered walks.
 *
 * Ahead/behind paints commits from both tips with LEFT and RIGHT marks,
 * newest first (a max-heap on committer date).  A commit carrying both marks
 * is reachable from both sides: it and, through it, its ancestors count for
 * neither.  The walk stops when every commit still queued carries both marks,
 * which is when git's own symmetric-difference walk stops too; like git's, it
 * trusts committer dates not to run backwards by more than that frontier.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/commit_graph.h"
#include "fgit/common.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/revwalk.h"
#include "revwalk/revwalk_internal.h"

enum {
	NODE_PARSED = 1 << 0,
	MARK_LEFT = 1 << 1,
	MARK_RIGHT = 1 << 2,
	MARK_QUEUED = 1 << 3,
	MARK_COUNTED = 1 << 4,
};
#define MARK_BOTH (MARK_LEFT | MARK_RIGHT)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	unsigned char data[];
};

struct fgit_revwalk {
	struct fgit_odb *odb;
	struct fgit_oidmap nodes;
	struct arena_block *arena;
	struct fgit_commit_graph *graph;	/* objects/info/commit-graph, if any */
	int graph_tried;
	size_t from_graph;			/* commits filled from the graph */
};

/* The commit-graph, opened on first use; NULL if absent or unusable. */
static struct fgit_commit_graph *graph(struct fgit_revwalk *w)
{
	if (!w->graph_tried) {
		w->graph_tried = 1;
		if (fgit_commit_graph_open(&w->graph, fgit_odb_path(w->odb),
					   fgit_odb_algo(w->odb)) < 0) {
			w->graph = NULL;
			fgit_error_clear();
		}
	}
	return w->graph;
}

void *rw_arena_alloc(struct fgit_revwalk *w, size_t n)
{
	struct arena_block *b = w->arena;
	n = (n + 15) & ~(size_t)15;
	if (!b || b->size - b->used < n) {
		size_t sz = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + sz);
		if (!b)
			return NULL;
		b->next = w->arena;
		b->used = 0;
		b->size = sz;
		w->arena = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

int fgit_revwalk_new(struct fgit_revwalk **out, struct fgit_odb *odb)
{
	struct fgit_revwalk *w = calloc(1, sizeof(*w));
	if (!w)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	w->odb = odb;
	*out = w;
	return 0;
}

void fgit_revwalk_free(struct fgit_revwalk *w)
{
	struct arena_block *b, *n;
	if (!w)
		return;
	for (b = w->arena; b; b = n) {
		n = b->next;
		free(b);
	}
	fgit_oidmap_release(&w->nodes);
	fgit_commit_graph_free(w->graph);
	free(w);
}

/* The node for an id, created unparsed if new. */
struct fgit_commit_node *rw_node_for(struct fgit_revwalk *w, const struct fgit_oid *oid)
{
	struct fgit_commit_node *n = fgit_oidmap_get(&w->nodes, oid);
	int err;

	if (n)
		return n;
	n = rw_arena_alloc(w, sizeof(*n));
	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->oid = *oid;
	fgit_oidmap_put(&w->nodes, n, &err);
	return err ? NULL : n;
}

/* Fill n from the commit-graph: 1 if done, 0 if the graph lacks it. */
static int parse_from_graph(struct fgit_revwalk *w, struct fgit_commit_node *n)
{
	struct fgit_commit_graph *g = graph(w);
	uint32_t pos, par[64], i;
	int np;

	if (!g || !fgit_commit_graph_find(&pos, g, &n->oid))
		return 0;
	np = fgit_commit_graph_parents(par, 64, g, pos);
	if (np < 0 || np > 64) {
		fgit_error_clear();
		return 0;	/* parse the object instead */
	}
	n->date = (int64_t)fgit_commit_graph_date(g, pos);
	fgit_commit_graph_tree(&n->tree, g, pos);
	n->nparents = (uint32_t)np;
	n->parents = np ? rw_arena_alloc(w, (size_t)np * sizeof(*n->parents)) : NULL;
	if (np && !n->parents)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < (uint32_t)np; i++) {
		struct fgit_oid p;
		fgit_commit_graph_oid(&p, g, par[i]);
		if (!(n->parents[i] = rw_node_for(w, &p)))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	n->flags |= NODE_PARSED;
	w->from_graph++;
	return 1;
}

int rw_parse_node(struct fgit_revwalk *w, struct fgit_commit_node *n)
{
	void *buf = NULL;
	size_t len, i;
	enum fgit_object_type type;
	struct fgit_commit c;
	char hex[FGIT_MAX_HEXSZ + 1];
	int ret;

	if (n->flags & NODE_PARSED)
		return 0;
	if ((ret = parse_from_graph(w, n)) != 0)
		return ret < 0 ? ret : 0;
	ret = fgit_odb_read(&buf, &len, &type, w->odb, &n->oid);
	if (ret < 0)
		return ret;
	if (type != FGIT_OBJ_COMMIT) {
		ret = fgit_error_set(FGIT_EINVALID, "object %s is a %s, not a commit",
				     fgit_oid_to_hex(hex, &n->oid),
				     fgit_object_type_name(type));
		goto out;
	}
	if (fgit_commit_parse(&c, buf, len, n->oid.algo) < 0) {
		ret = fgit_error_set(FGIT_EINVALID, "bad commit object %s",
				     fgit_oid_to_hex(hex, &n->oid));
		goto out;
	}
	n->date = c.committer_time;
	n->tree = c.tree;
	n->nparents = (uint32_t)c.nparents;
	n->parents = c.nparents ? rw_arena_alloc(w, c.nparents * sizeof(*n->parents)) : NULL;
	if (c.nparents && !n->parents) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c.nparents; i++) {
		struct fgit_oid p;
		fgit_commit_parent(&p, &c, i);
		n->parents[i] = rw_node_for(w, &p);
		if (!n->parents[i]) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
	}
	n->flags |= NODE_PARSED;
	ret = 0;
out:
	free(buf);
	return ret;
}

int fgit_revwalk_commit(struct fgit_commit_node **out, struct fgit_revwalk *w,
			const struct fgit_oid *oid)
{
	struct fgit_commit_node *n = rw_node_for(w, oid);
	int ret;
	if (!n)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if ((ret = rw_parse_node(w, n)) < 0)
		return ret;
	*out = n;
	return 0;
}

int fgit_revwalk_commit_tree(struct fgit_oid *out, struct fgit_revwalk *w,
			     const struct fgit_commit_node *n)
{
	int r;
	if (!(n->flags & NODE_PARSED) &&
	    (r = rw_parse_node(w, (struct fgit_commit_node *)n)) < 0)
		return r;
	*out = n->tree;
	return 0;
}

int fgit_revwalk_generation(uint64_t *out, struct fgit_revwalk *w,
			    const struct fgit_commit_node *n)
{
	struct fgit_commit_graph *g = graph(w);
	uint32_t pos;
	if (!g || !fgit_commit_graph_find(&pos, g, &n->oid))
		return 0;
	*out = fgit_commit_graph_generation(g, pos);
	return 1;
}

size_t fgit_revwalk_graph_hits(const struct fgit_revwalk *w)
{
	return w->from_graph;
}

/* ---- a max-heap of commits by date; ties: first queued first ---- */

static int qless(const struct rw_qent *a, const struct rw_qent *b)
{
	if (a->n->date != b->n->date)
		return a->n->date < b->n->date;
	return a->seq > b->seq;
}

int rw_qpush(struct rw_queue *q, struct fgit_commit_node *n)
{
	size_t i;
	if (q->nr == q->alloc) {
		size_t na = q->alloc ? q->alloc * 2 : 64;
		struct rw_qent *nv = realloc(q->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		q->v = nv;
		q->alloc = na;
	}
	i = q->nr++;
	q->v[i].n = n;
	q->v[i].seq = q->seq++;
	while (i) {
		size_t p = (i - 1) / 2;
		struct rw_qent t;
		if (!qless(&q->v[p], &q->v[i]))
			break;
		t = q->v[p];
		q->v[p] = q->v[i];
		q->v[i] = t;
		i = p;
	}
	return 0;
}

struct fgit_commit_node *rw_qpop(struct rw_queue *q)
{
	struct fgit_commit_node *top;
	size_t i = 0;

	if (!q->nr)
		return NULL;
	top = q->v[0].n;
	q->v[0] = q->v[--q->nr];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct rw_qent t;
		if (l < q->nr && qless(&q->v[m], &q->v[l]))
			m = l;
		if (r < q->nr && qless(&q->v[m], &q->v[r]))
			m = r;
		if (m == i)
			break;
		t = q->v[m];
		q->v[m] = q->v[i];
		q->v[i] = t;
		i = m;
	}
	return top;
}

/* The date queue of ahead/behind, counting entries not carrying both marks. */
struct queue {
	struct rw_queue q;
	size_t live;
};

static int qpush(struct queue *q, struct fgit_commit_node *n)
{
	int ret = rw_qpush(&q->q, n);
	if (!ret && (n->flags & MARK_BOTH) != MARK_BOTH)
		q->live++;
	return ret;
}

static struct fgit_commit_node *qpop(struct queue *q)
{
	struct fgit_commit_node *top = rw_qpop(&q->q);
	if (top && (top->flags & MARK_BOTH) != MARK_BOTH)
		q->live--;
	return top;
}

int fgit_revwalk_ahead_behind(size_t *ahead, size_t *behind, struct fgit_revwalk *w,
			      const struct fgit_oid *ours, const struct fgit_oid *theirs)
{
	struct queue q = { 0 };
	struct fgit_commit_node *a = NULL, *b = NULL, *n, **seen = NULL;
	size_t nseen = 0, aseen = 0, i, left = 0, right = 0;
	int ret;

	if ((ret = fgit_revwalk_commit(&a, w, ours)) < 0 ||
	    (ret = fgit_revwalk_commit(&b, w, theirs)) < 0)
		return ret;
	q.live = 0;
	a->flags |= MARK_LEFT;
	b->flags |= MARK_RIGHT;
	if ((ret = qpush(&q, a)) < 0)
		goto out;
	a->flags |= MARK_QUEUED;
	if (a != b) {
		if ((ret = qpush(&q, b)) < 0)
			goto out;
		b->flags |= MARK_QUEUED;
	}

	while ((n = qpop(&q))) {
		uint32_t marks, before;
		n->flags &= ~MARK_QUEUED;
		if ((ret = rw_parse_node(w, n)) < 0)
			goto out;
		if (!(n->flags & MARK_COUNTED)) {
			if (nseen == aseen) {
				size_t na = aseen ? aseen * 2 : 256;
				struct fgit_commit_node **ns = realloc(seen, na * sizeof(*ns));
				if (!ns) {
					ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
					goto out;
				}
				seen = ns;
				aseen = na;
			}
			seen[nseen++] = n;
			n->flags |= MARK_COUNTED;
		}
		marks = n->flags & MARK_BOTH;
		for (i = 0; i < n->nparents; i++) {
			struct fgit_commit_node *p = n->parents[i];
			if ((p->flags & marks) == marks)
				continue;
			before = p->flags;
			p->flags |= marks;
			if ((before & MARK_QUEUED) && (before & MARK_BOTH) != MARK_BOTH &&
			    (p->flags & MARK_BOTH) == MARK_BOTH)
				q.live--;	/* a queued commit just became common */
			if (!(p->flags & MARK_QUEUED)) {
				if ((ret = rw_parse_node(w, p)) < 0)
					goto out;
				if ((ret = qpush(&q, p)) < 0)
					goto out;
				p->flags |= MARK_QUEUED;
			}
		}
		/* stop once nothing queued can still be on one side only */
		if (!q.live)
			break;
	}
	for (i = 0; i < nseen; i++) {
		uint32_t m = seen[i]->flags & MARK_BOTH;
		if (m == MARK_LEFT)
			left++;
		else if (m == MARK_RIGHT)
			right++;
	}
	*ahead = left;
	*behind = right;
	ret = 0;
out:
	for (i = 0; i < nseen; i++)
		seen[i]->flags &= ~(MARK_BOTH | MARK_QUEUED | MARK_COUNTED);
	for (i = 0; i < q.q.nr; i++)
		q.q.v[i].n->flags &= ~(MARK_BOTH | MARK_QUEUED | MARK_COUNTED);
	if (a)
		a->flags &= ~(MARK_BOTH | MARK_QUEUED);
	if (b)
		b->flags &= ~(MARK_BOTH | MARK_QUEUED);
	free(seen);
	free(q.q.v);
	return ret;
}
