/*
 * The object walk of `git rev-list --objects` (see include/fgit/revwalk.h
 * for the order it produces).
 *
 * Commits come from the commit cache of revwalk.c (nodes carry the root
 * tree id); trees, blobs and tags get a small record in an id map, holding
 * the SEEN and UNINTERESTING marks, so each object is listed once and an
 * excluded tree is skipped with everything it holds.  Names are built in
 * one path buffer while descending, so a walk of 500,000 objects does not
 * allocate a string per object.
 *
 * The commit part follows rev-list's default walk: a queue ordered by
 * committer date (ties: first queued first, as git's insert-by-date list).
 * With excluded tips the walk is limited: every commit is popped once,
 * excluded ones spreading their mark to their parents, and the walk ends
 * when only excluded commits are queued and five more ("slop") have been
 * looked at, as git's limit_list does.  Then the trees of excluded parents
 * of listed commits are marked (mark_edges_uninteresting).
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/oidmap.h"
#include "fgit/reflog_dir.h"
#include "fgit/refs.h"
#include "fgit/revwalk.h"
#include "revwalk/revwalk_internal.h"

#define SLOP 5
#define MAX_TREE_DEPTH 4096

enum {
	O_SEEN = 1 << 0,
	O_UNINTERESTING = 1 << 1,
	O_USED = 1u << 31,
};

/*
 * Trees, blobs and tags seen: an open-addressing table holding the ids
 * inline, so that a lookup costs one cache miss, not two (the walk looks
 * up every entry of every tree it reads: tens of millions of lookups on a
 * 500,000-object history, where the pointer-chasing map took 40% of
 * pack-objects' time).  A pointer returned by obj_for is valid until the
 * next obj_for call.
 */
struct obj {
	unsigned char hash[FGIT_MAX_RAWSZ];
	uint32_t flags;		/* O_* | O_USED */
};

struct oset {
	struct obj *slots;
	size_t cap, count;
};

/* An object waiting for the tree-and-blob pass (git's pending array). */
struct pending {
	struct fgit_oid oid;
	enum fgit_object_type type;
	unsigned int flags;
	char *name;		/* tags: the tag's name; trees/blobs: the path */
};

/*
 * The last tree listed at each path.  A new tree at that path is compared
 * entry by entry with it: an entry with the same name, mode and id was
 * handled with the previous tree, so its lookup (a cache miss in a table
 * of half a million ids) is skipped.  Between consecutive commits most
 * entries of most trees are unchanged; this took rev-list --objects --all
 * on the 507,000-object history from 6.2 s to 4.4 s of CPU (git: 5.5 s;
 * one run each, loaded 2-core machine).
 */
struct path_memo {
	struct path_memo *next;
	void *buf;
	size_t len;
	size_t plen;
	char path[];
};

#define MEMO_BUCKETS 4096
#define MEMO_MAX_BYTES (64u << 20)

struct fgit_objwalk {
	struct path_memo *memo[MEMO_BUCKETS];
	size_t memo_bytes;
	struct fgit_odb *odb;
	struct fgit_revwalk *rw;
	unsigned int flags;
	int algo;
	struct oset objs;
	/* tips as added */
	struct pending *tips;
	size_t ntips, atips;
	/* the tree-and-blob pass */
	struct pending *pend;
	size_t npend, apend;
	int limited;
	int ran;
	fgit_objwalk_edge_cb edge_cb;
	void *edge_payload;
};

static int grow_pending(struct pending **v, size_t *nr, size_t *alloc)
{
	if (*nr == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 32;
		struct pending *nv = realloc(*v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		*v = nv;
		*alloc = na;
	}
	return 0;
}

static int push_pending(struct pending **v, size_t *nr, size_t *alloc,
			const struct fgit_oid *oid, enum fgit_object_type type,
			const char *name, unsigned int flags)
{
	struct pending *p;
	if (grow_pending(v, nr, alloc) < 0)
		return FGIT_ENOMEM;
	p = &(*v)[*nr];
	p->oid = *oid;
	p->type = type;
	p->flags = flags;
	p->name = strdup(name ? name : "");
	if (!p->name)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	(*nr)++;
	return 0;
}

int fgit_objwalk_new(struct fgit_objwalk **out, struct fgit_odb *odb, unsigned int flags)
{
	struct fgit_objwalk *w = calloc(1, sizeof(*w));
	int ret;
	if (!w)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if ((ret = fgit_revwalk_new(&w->rw, odb)) < 0) {
		free(w);
		return ret;
	}
	w->odb = odb;
	w->flags = flags;
	w->algo = fgit_odb_algo(odb);
	*out = w;
	return 0;
}

void fgit_objwalk_free(struct fgit_objwalk *w)
{
	size_t i;
	if (!w)
		return;
	for (i = 0; i < w->ntips; i++)
		free(w->tips[i].name);
	for (i = 0; i < w->npend; i++)
		free(w->pend[i].name);
	free(w->tips);
	free(w->pend);
	free(w->objs.slots);
	for (i = 0; i < MEMO_BUCKETS; i++) {
		struct path_memo *m, *n;
		for (m = w->memo[i]; m; m = n) {
			n = m->next;
			free(m->buf);
			free(m);
		}
	}
	fgit_revwalk_free(w->rw);	/* frees the arena holding the objs too */
	free(w);
}

static inline size_t oset_hash(const unsigned char *h)
{
	uint64_t x;
	memcpy(&x, h, sizeof(x));
	return (size_t)x;
}

static int oset_grow(struct oset *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024, i;
	struct obj *ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < t->cap; i++) {
		struct obj *o = &t->slots[i];
		size_t j;
		if (!(o->flags & O_USED))
			continue;
		for (j = oset_hash(o->hash) & (ncap - 1); ns[j].flags & O_USED; j = (j + 1) & (ncap - 1))
			;
		ns[j] = *o;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

static struct obj *obj_for(struct fgit_objwalk *w, const struct fgit_oid *oid)
{
	struct oset *t = &w->objs;
	size_t mask, i;

	if ((t->count + 1) * 2 > t->cap && oset_grow(t) < 0)
		return NULL;
	mask = t->cap - 1;
	for (i = oset_hash(oid->hash) & mask;; i = (i + 1) & mask) {
		struct obj *o = &t->slots[i];
		if (!(o->flags & O_USED)) {
			memcpy(o->hash, oid->hash, FGIT_MAX_RAWSZ);
			o->flags = O_USED;
			t->count++;
			return o;
		}
		if (!memcmp(o->hash, oid->hash, FGIT_MAX_RAWSZ))
			return o;
	}
}

void fgit_objwalk_set_edge_cb(struct fgit_objwalk *w, fgit_objwalk_edge_cb cb, void *payload)
{
	w->edge_cb = cb;
	w->edge_payload = payload;
}

int fgit_objwalk_add(struct fgit_objwalk *w, const struct fgit_oid *oid,
		     const char *name, unsigned int flags)
{
	return push_pending(&w->tips, &w->ntips, &w->atips, oid, FGIT_OBJ_NONE, name, flags);
}

struct refs_cb {
	struct fgit_objwalk *w;
	unsigned int flags;
};

static int add_ref_cb(const char *name, const struct fgit_oid *oid, unsigned int rflags,
		      void *payload)
{
	struct refs_cb *c = payload;
	if (rflags & FGIT_REF_BROKEN)
		return 0;
	return fgit_objwalk_add(c->w, oid, NULL, c->flags);
}

int fgit_objwalk_add_all_refs(struct fgit_objwalk *w, struct fgit_refdb *db, unsigned int flags)
{
	struct refs_cb c = { w, flags };
	struct fgit_oid head;
	int ret = fgit_refdb_foreach(db, "refs/", add_ref_cb, &c);
	if (ret)
		return ret;
	if (fgit_refdb_resolve(&head, NULL, NULL, db, "HEAD") == 0)
		return fgit_objwalk_add(w, &head, NULL, flags);
	return 0;
}

static int add_reflog_cb(const char *refname, const struct fgit_oid *old_oid,
			 const struct fgit_oid *new_oid, void *payload)
{
	struct refs_cb *c = payload;
	int ret;
	if (!fgit_oid_is_zero(old_oid) && fgit_odb_exists(c->w->odb, old_oid) &&
	    (ret = fgit_objwalk_add(c->w, old_oid, "", c->flags)))
		return ret;
	if (!fgit_oid_is_zero(new_oid) && fgit_odb_exists(c->w->odb, new_oid) &&
	    (ret = fgit_objwalk_add(c->w, new_oid, "", c->flags)))
		return ret;
	return 0;
}

int fgit_objwalk_add_reflogs(struct fgit_objwalk *w, const char *git_dir,
			     const char *common_dir, unsigned int flags)
{
	struct refs_cb c = { w, flags };
	return fgit_reflog_dir_foreach_all(git_dir, common_dir, w->algo, add_reflog_cb, &c);
}

static int add_cache_tree_cb(const char *dir, int entry_count, const struct fgit_oid *oid,
			     void *payload)
{
	struct refs_cb *c = payload;
	if (entry_count < 0)
		return 0;
	return push_pending(&c->w->tips, &c->w->ntips, &c->w->atips, oid, FGIT_OBJ_TREE, dir,
			    c->flags);
}

int fgit_objwalk_add_index(struct fgit_objwalk *w, const struct fgit_index *idx,
			   unsigned int flags)
{
	struct refs_cb c = { w, flags };
	size_t i, n = fgit_index_entrycount(idx);
	int ret;

	for (i = 0; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, i);
		if ((e->mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		if ((ret = push_pending(&w->tips, &w->ntips, &w->atips, &e->oid, FGIT_OBJ_BLOB,
					e->path, flags)))
			return ret;
	}
	return fgit_index_cache_tree_foreach(idx, add_cache_tree_cb, &c);
}

/* ---- marking excluded trees ---- */

static int read_tree(void **buf, size_t *len, struct fgit_objwalk *w,
		     const struct fgit_oid *oid, int gently)
{
	enum fgit_object_type type;
	char hex[FGIT_MAX_HEXSZ + 1];
	int ret = fgit_odb_read(buf, len, &type, w->odb, oid);
	if (ret < 0) {
		if (gently && ret == FGIT_ENOTFOUND)
			return 1;
		if (ret == FGIT_ENOTFOUND)
			return fgit_error_set(FGIT_ENOTFOUND, "bad tree object %s",
					      fgit_oid_to_hex(hex, oid));
		return ret;
	}
	if (type != FGIT_OBJ_TREE) {
		free(*buf);
		*buf = NULL;
		return fgit_error_set(FGIT_EINVALID, "object %s is a %s, not a tree",
				      fgit_oid_to_hex(hex, oid), fgit_object_type_name(type));
	}
	return 0;
}

static int mark_tree_uninteresting(struct fgit_objwalk *w, const struct fgit_oid *oid, int depth);

static int mark_tree_contents(struct fgit_objwalk *w, const struct fgit_oid *oid, int depth)
{
	void *buf = NULL;
	size_t len;
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	int ret, r;

	if (depth > MAX_TREE_DEPTH)
		return 0;
	ret = read_tree(&buf, &len, w, oid, 1);
	if (ret)
		return ret > 0 ? 0 : ret;	/* a missing tree marks nothing, as git */
	fgit_tree_iter_init(&it, buf, len, w->algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		if (fgit_mode_is_tree(e.mode)) {
			if ((ret = mark_tree_uninteresting(w, &e.oid, depth + 1)) < 0)
				break;
		} else if ((e.mode & 0170000) != FGIT_MODE_GITLINK) {
			struct obj *o = obj_for(w, &e.oid);
			if (!o) {
				ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
				break;
			}
			o->flags |= O_UNINTERESTING;
		}
	}
	if (!ret && r < 0)
		ret = r;
	free(buf);
	return ret;
}

static int mark_tree_uninteresting(struct fgit_objwalk *w, const struct fgit_oid *oid, int depth)
{
	struct obj *o = obj_for(w, oid);
	if (!o)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (o->flags & O_UNINTERESTING)
		return 0;
	o->flags |= O_UNINTERESTING;
	return mark_tree_contents(w, oid, depth);
}

struct cstack {
	struct fgit_commit_node **v;
	size_t nr, alloc;
};

static int cstack_push(struct cstack *st, struct fgit_commit_node *n)
{
	if (st->nr == st->alloc) {
		size_t na = st->alloc ? st->alloc * 2 : 256;
		struct fgit_commit_node **nv = realloc(st->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		st->v = nv;
		st->alloc = na;
	}
	st->v[st->nr++] = n;
	return 0;
}

/* git's mark_parents_uninteresting: through parsed parents, iteratively. */
static int mark_parents_uninteresting(struct fgit_commit_node *c)
{
	struct cstack st = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nparents && !ret; i++)
		ret = cstack_push(&st, c->parents[i]);
	while (st.nr && !ret) {
		struct fgit_commit_node *p = st.v[--st.nr];
		if (p->flags & RW_UNINTERESTING)
			continue;
		p->flags |= RW_UNINTERESTING;
		for (i = 0; i < p->nparents && !ret; i++)
			ret = cstack_push(&st, p->parents[i]);
	}
	free(st.v);
	return ret;
}

/* git's process_parents: queue the parents not seen yet. */
static int process_parents(struct fgit_objwalk *w, struct rw_queue *q, struct fgit_commit_node *c)
{
	uint32_t i;
	int ret;

	for (i = 0; i < c->nparents; i++) {
		struct fgit_commit_node *p = c->parents[i];
		if (c->flags & RW_UNINTERESTING) {
			p->flags |= RW_UNINTERESTING;
			if (rw_parse_node(w->rw, p) < 0)
				continue;	/* gently, as git for excluded parents */
			if (p->nparents && (ret = mark_parents_uninteresting(p)) < 0)
				return ret;
		} else if ((ret = rw_parse_node(w->rw, p)) < 0) {
			return ret;
		}
		if (p->flags & RW_SEEN)
			continue;
		p->flags |= RW_SEEN;
		if ((ret = rw_qpush(q, p)) < 0)
			return ret;
	}
	return 0;
}

static int everybody_uninteresting(const struct rw_queue *q)
{
	size_t i;
	for (i = 0; i < q->nr; i++)
		if (!(q->v[i].n->flags & RW_UNINTERESTING))
			return 0;
	return 1;
}

/* The largest-date queued commit (what git's sorted list has first). */
static const struct fgit_commit_node *cq_head(const struct rw_queue *q)
{
	return q->nr ? q->v[0].n : NULL;
}

/* ---- listing trees and blobs ---- */

struct emit {
	struct fgit_objwalk *w;
	fgit_objwalk_cb cb;
	void *payload;
	struct fgit_buf path;
};

static struct path_memo *memo_for(struct fgit_objwalk *w, const char *path, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;
	struct path_memo *m;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)path[i]) * 16777619u;
	h &= MEMO_BUCKETS - 1;
	for (m = w->memo[h]; m; m = m->next)
		if (m->plen == len && !memcmp(m->path, path, len))
			return m;
	m = malloc(sizeof(*m) + len + 1);
	if (!m)
		return NULL;
	m->buf = NULL;
	m->len = 0;
	m->plen = len;
	memcpy(m->path, path, len);
	m->path[len] = '\0';
	m->next = w->memo[h];
	w->memo[h] = m;
	return m;
}

static int process_tree(struct emit *em, const struct fgit_oid *oid, int depth)
{
	struct fgit_objwalk *w = em->w;
	struct obj *o = obj_for(w, oid);
	void *buf = NULL;
	size_t len, base;
	struct fgit_tree_iter it, pit;
	struct fgit_tree_entry e, pe;
	struct path_memo *memo;
	int ret, r, have_prev = 0;

	if (!o)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (o->flags & (O_SEEN | O_UNINTERESTING))
		return 0;
	if (depth > MAX_TREE_DEPTH)
		return fgit_error_set(FGIT_EINVALID, "tree too deep");
	if ((ret = read_tree(&buf, &len, w, oid, 0)) < 0)
		return ret;
	o->flags |= O_SEEN;
	if ((ret = em->cb(oid, FGIT_OBJ_TREE, em->path.ptr, em->path.len, em->payload)))
		goto out;
	memo = memo_for(w, em->path.ptr, em->path.len);
	if (memo && memo->buf) {
		fgit_tree_iter_init(&pit, memo->buf, memo->len, w->algo);
		have_prev = fgit_tree_iter_next(&pe, &pit) > 0;
	}
	base = em->path.len;
	if (base && fgit_buf_addch(&em->path, '/')) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	fgit_tree_iter_init(&it, buf, len, w->algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		size_t sub = em->path.len;
		if ((e.mode & 0170000) == FGIT_MODE_GITLINK)
			continue;
		while (have_prev) {
			int c = fgit_tree_entry_cmp(pe.name, pe.name_len, pe.mode,
						    e.name, e.name_len, e.mode);
			if (c > 0)
				break;
			if (!c && pe.mode == e.mode && fgit_oid_equal(&pe.oid, &e.oid))
				break;
			if (!c)
				break;
			have_prev = fgit_tree_iter_next(&pe, &pit) > 0;
		}
		if (have_prev && pe.mode == e.mode && pe.name_len == e.name_len &&
		    !memcmp(pe.name, e.name, e.name_len) && fgit_oid_equal(&pe.oid, &e.oid))
			continue;	/* handled with the previous tree at this path */
		if (fgit_buf_add(&em->path, e.name, e.name_len)) {
			ret = FGIT_ENOMEM;
			break;
		}
		if (fgit_mode_is_tree(e.mode)) {
			ret = process_tree(em, &e.oid, depth + 1);
		} else {
			struct obj *b = obj_for(w, &e.oid);
			if (!b) {
				ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			} else if (!(b->flags & (O_SEEN | O_UNINTERESTING))) {
				b->flags |= O_SEEN;
				ret = em->cb(&e.oid, FGIT_OBJ_BLOB, em->path.ptr, em->path.len,
					     em->payload);
			}
		}
		fgit_buf_setlen(&em->path, sub);
		if (ret)
			break;
	}
	if (!ret && r < 0)
		ret = r;
	fgit_buf_setlen(&em->path, base);
	if (!ret && memo && (memo->buf || w->memo_bytes + len <= MEMO_MAX_BYTES)) {
		w->memo_bytes = w->memo_bytes - memo->len + len;
		free(memo->buf);
		memo->buf = buf;
		memo->len = len;
		buf = NULL;
	}
out:
	free(buf);
	return ret;
}

static int missing_object(const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	return fgit_error_set(FGIT_ENOTFOUND, "bad object %s", fgit_oid_to_hex(hex, oid));
}

/*
 * git's handle_commit: peel a tip, queueing tags (and trees and blobs
 * given directly) for the second pass, and return commits in *commit_out.
 */
static int handle_tip(struct fgit_objwalk *w, struct pending *t,
		      struct fgit_commit_node **commit_out)
{
	struct fgit_oid oid = t->oid;
	enum fgit_object_type type = t->type;
	int exclude = t->flags & FGIT_OBJWALK_EXCLUDE;
	int objects = w->flags & FGIT_OBJWALK_OBJECTS;
	int ret, hops = 0;

	*commit_out = NULL;
	for (;;) {
		if (type == FGIT_OBJ_NONE) {
			struct fgit_object_info info;
			ret = fgit_odb_read_info(&info, w->odb, &oid, FGIT_INFO_TYPE);
			if (ret == FGIT_ENOTFOUND)
				return missing_object(&oid);
			if (ret < 0)
				return ret;
			type = info.type;
		}
		if (type != FGIT_OBJ_TAG)
			break;
		{
			void *buf = NULL;
			size_t len;
			struct fgit_tag tag;
			char *name;
			struct obj *o = obj_for(w, &oid);

			if (!o)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			if (exclude)
				o->flags |= O_UNINTERESTING;
			if ((ret = fgit_odb_read(&buf, &len, &type, w->odb, &oid)) < 0)
				return ret;
			if (fgit_tag_parse(&tag, buf, len, w->algo) < 0) {
				char hex[FGIT_MAX_HEXSZ + 1];
				free(buf);
				return fgit_error_set(FGIT_EINVALID, "bad tag object %s",
						      fgit_oid_to_hex(hex, &oid));
			}
			if (objects && !exclude) {
				name = strndup(tag.name ? tag.name : "", tag.name ? tag.name_len : 0);
				if (!name) {
					free(buf);
					return fgit_error_set(FGIT_ENOMEM, "out of memory");
				}
				ret = push_pending(&w->pend, &w->npend, &w->apend, &oid, FGIT_OBJ_TAG,
						   name, 0);
				free(name);
				if (ret) {
					free(buf);
					return ret;
				}
			}
			oid = tag.object;
			type = FGIT_OBJ_NONE;
			free(buf);
			if (++hops > 1000)
				return fgit_error_set(FGIT_EINVALID, "tag chain too long");
		}
	}
	if (type == FGIT_OBJ_COMMIT) {
		struct fgit_commit_node *c;
		if ((ret = fgit_revwalk_commit(&c, w->rw, &oid)) < 0) {
			char hex[FGIT_MAX_HEXSZ + 1];
			if (ret == FGIT_ENOTFOUND)
				return missing_object(&oid);
			return fgit_error_set(ret, "unable to parse commit %s",
					      fgit_oid_to_hex(hex, &oid));
		}
		if (exclude) {
			c->flags |= RW_UNINTERESTING;
			if ((ret = mark_parents_uninteresting(c)) < 0)
				return ret;
			w->limited = 1;
		}
		*commit_out = c;
		return 0;
	}
	if (!objects)
		return 0;
	if (type == FGIT_OBJ_TREE) {
		if (exclude)
			return mark_tree_uninteresting(w, &oid, 0);
		return push_pending(&w->pend, &w->npend, &w->apend, &oid, FGIT_OBJ_TREE, t->name, 0);
	}
	if (type == FGIT_OBJ_BLOB) {
		if (exclude) {
			struct obj *o = obj_for(w, &oid);
			if (!o)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			o->flags |= O_UNINTERESTING;
			return 0;
		}
		return push_pending(&w->pend, &w->npend, &w->apend, &oid, FGIT_OBJ_BLOB, t->name, 0);
	}
	return 0;
}

static int cmp_date_desc(const void *a, const void *b)
{
	const struct fgit_commit_node *x = *(struct fgit_commit_node *const *)a;
	const struct fgit_commit_node *y = *(struct fgit_commit_node *const *)b;
	return x->date < y->date ? 1 : x->date > y->date ? -1 : 0;
}

/* A stable sort by date, newest first (insertion into runs + merge). */
static int sort_by_date(struct cstack *l)
{
	size_t n = l->nr, width, i;
	struct fgit_commit_node **tmp;
	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (width = 1; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t lo = i, mid = i + width < n ? i + width : n;
			size_t hi = i + 2 * width < n ? i + 2 * width : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				tmp[k++] = cmp_date_desc(&l->v[b], &l->v[a]) < 0 ? l->v[b++] : l->v[a++];
			while (a < mid)
				tmp[k++] = l->v[a++];
			while (b < hi)
				tmp[k++] = l->v[b++];
		}
		memcpy(l->v, tmp, n * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

static int emit_commit(struct emit *em, struct fgit_commit_node *c)
{
	struct fgit_objwalk *w = em->w;
	int ret;
	if (w->flags & FGIT_OBJWALK_UNPACKED) {
		struct fgit_packed_entry pe;
		if (fgit_odb_packed_entry(&pe, w->odb, &c->oid) == 0)
			return 0;
		fgit_error_clear();
	}
	if (w->flags & FGIT_OBJWALK_OBJECTS &&
	    (ret = push_pending(&w->pend, &w->npend, &w->apend, &c->tree, FGIT_OBJ_TREE, "", 0)))
		return ret;
	return em->cb(&c->oid, FGIT_OBJ_COMMIT, NULL, 0, em->payload);
}

int fgit_objwalk_run(struct fgit_objwalk *w, fgit_objwalk_cb cb, void *payload)
{
	struct cstack start = { 0 }, out = { 0 };
	struct rw_queue q = { 0 };
	struct emit em = { w, cb, payload, FGIT_BUF_INIT };
	struct fgit_commit_node *c;
	size_t i;
	int ret = 0;

	if (w->ran)
		return fgit_error_set(FGIT_ERROR, "object walk already run");
	w->ran = 1;
	for (i = 0; i < w->ntips; i++) {
		if ((ret = handle_tip(w, &w->tips[i], &c)) < 0)
			goto out;
		if (c && !(c->flags & RW_SEEN)) {
			c->flags |= RW_SEEN;
			if ((ret = cstack_push(&start, c)) < 0)
				goto out;
		}
	}
	if ((ret = sort_by_date(&start)) < 0)
		goto out;
	for (i = 0; i < start.nr; i++)
		if ((ret = rw_qpush(&q, start.v[i])) < 0)
			goto out;

	if (!w->limited) {
		while ((c = rw_qpop(&q))) {
			if ((ret = process_parents(w, &q, c)) < 0)
				goto out;
			if ((ret = emit_commit(&em, c)))
				goto out;
		}
	} else {
		int64_t date = INT64_MIN;
		int slop = SLOP;
		while ((c = rw_qpop(&q))) {
			if ((ret = process_parents(w, &q, c)) < 0)
				goto out;
			if (c->flags & RW_UNINTERESTING) {
				const struct fgit_commit_node *h;
				if ((ret = mark_parents_uninteresting(c)) < 0)
					goto out;
				h = cq_head(&q);
				if (!h)
					break;
				if (date <= h->date || !everybody_uninteresting(&q))
					slop = SLOP;
				else if (--slop <= 0)
					break;
				continue;
			}
			date = c->date;
			if ((ret = cstack_push(&out, c)) < 0)
				goto out;
		}
		/* mark_edges_uninteresting */
		if (w->flags & FGIT_OBJWALK_OBJECTS) {
			for (i = 0; i < out.nr; i++) {
				uint32_t j;
				c = out.v[i];
				if (c->flags & RW_UNINTERESTING) {
					if ((ret = mark_tree_uninteresting(w, &c->tree, 0)) < 0)
						goto out;
					continue;
				}
				for (j = 0; j < c->nparents; j++) {
					struct fgit_commit_node *p = c->parents[j];
					if (!(p->flags & RW_UNINTERESTING) || (p->flags & RW_ADDED))
						continue;
					p->flags |= RW_ADDED;
					if (rw_parse_node(w->rw, p) < 0)
						continue;
					if ((ret = mark_tree_uninteresting(w, &p->tree, 0)) < 0)
						goto out;
					if (w->edge_cb &&
					    (ret = w->edge_cb(&p->oid, &p->tree, w->edge_payload)))
						goto out;
				}
			}
		}
		for (i = 0; i < out.nr; i++)
			if (!(out.v[i]->flags & RW_UNINTERESTING) &&
			    (ret = emit_commit(&em, out.v[i])))
				goto out;
	}

	for (i = 0; i < w->npend; i++) {
		struct pending *p = &w->pend[i];
		struct obj *o = obj_for(w, &p->oid);
		if (!o) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		if (o->flags & (O_SEEN | O_UNINTERESTING))
			continue;
		if (p->type == FGIT_OBJ_TREE) {
			fgit_buf_reset(&em.path);
			if (fgit_buf_adds(&em.path, p->name)) {
				ret = FGIT_ENOMEM;
				goto out;
			}
			if ((ret = process_tree(&em, &p->oid, 0)))
				goto out;
			continue;
		}
		o->flags |= O_SEEN;
		if ((ret = cb(&p->oid, p->type, p->name, strlen(p->name), payload)))
			goto out;
	}
out:
	fgit_buf_release(&em.path);
	free(start.v);
	free(out.v);
	free(q.v);
	return ret;
}
