/*
 * Tree-to-tree diff: a merge walk over two sorted entry lists.  Subtrees
 * with equal ids are skipped without reading them, which is what makes a
 * diff of two nearby commits cost a handful of tree reads in a big tree.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/diff.h"
#include "fgit/object.h"
#include "fgit/odb.h"

struct walk {
	struct fgit_odb *odb;
	unsigned int flags;
	int (*cb)(const struct fgit_tree_change *, void *);
	void *payload;
	struct fgit_buf path;
};

static int read_tree(void **buf, size_t *len, struct walk *w, const struct fgit_oid *oid)
{
	enum fgit_object_type type;
	char hex[FGIT_MAX_HEXSZ + 1];
	int r;

	*buf = NULL;
	*len = 0;
	if (!oid)
		return 0;
	r = fgit_odb_read(buf, len, &type, w->odb, oid);
	if (r < 0)
		return r;
	if (type != FGIT_OBJ_TREE) {
		free(*buf);
		*buf = NULL;
		return fgit_error_set(FGIT_EINVALID, "object %s is not a tree",
				      fgit_oid_to_hex(hex, oid));
	}
	return 0;
}

static int walk_trees(struct walk *w, const struct fgit_oid *a, const struct fgit_oid *b);

static int emit(struct walk *w, enum fgit_diff_status st, const struct fgit_tree_entry *ea,
		const struct fgit_tree_entry *eb, int algo)
{
	struct fgit_tree_change c;
	memset(&c, 0, sizeof(c));
	c.status = st;
	c.path = w->path.ptr;
	c.path_len = w->path.len;
	if (ea) {
		c.old_mode = ea->mode;
		c.old_oid = ea->oid;
	} else {
		fgit_oid_zero(&c.old_oid, algo);
	}
	if (eb) {
		c.new_mode = eb->mode;
		c.new_oid = eb->oid;
	} else {
		fgit_oid_zero(&c.new_oid, algo);
	}
	return w->cb(&c, w->payload);
}

/* One side only (ea or eb NULL), or both with the same name. */
static int visit(struct walk *w, const struct fgit_tree_entry *ea,
		 const struct fgit_tree_entry *eb, int algo)
{
	const struct fgit_tree_entry *e = ea ? ea : eb;
	size_t base = w->path.len;
	int r, ta = ea && fgit_mode_is_tree(ea->mode), tb = eb && fgit_mode_is_tree(eb->mode);

	if (ea && eb && fgit_oid_equal(&ea->oid, &eb->oid) && ea->mode == eb->mode)
		return 0;
	if (fgit_buf_add(&w->path, e->name, e->name_len))
		return FGIT_ENOMEM;
	if ((ta || tb) && (w->flags & FGIT_DIFF_TREE_RECURSIVE)) {
		r = 0;
		if (w->flags & FGIT_DIFF_TREE_SHOW_TREES)
			r = emit(w, ea && eb ? FGIT_DIFF_MODIFIED :
				    ea ? FGIT_DIFF_DELETED : FGIT_DIFF_ADDED, ea, eb, algo);
		if (!r && !fgit_buf_addch(&w->path, '/'))
			r = walk_trees(w, ea ? &ea->oid : NULL, eb ? &eb->oid : NULL);
	} else if (ea && eb) {
		int type_differs = (ea->mode & 0170000) != (eb->mode & 0170000);
		r = emit(w, type_differs ? FGIT_DIFF_TYPECHANGE : FGIT_DIFF_MODIFIED, ea, eb, algo);
	} else {
		r = emit(w, ea ? FGIT_DIFF_DELETED : FGIT_DIFF_ADDED, ea, eb, algo);
	}
	fgit_buf_setlen(&w->path, base);
	return r;
}

static int walk_trees(struct walk *w, const struct fgit_oid *a, const struct fgit_oid *b)
{
	void *ba = NULL, *bb = NULL;
	size_t la, lb;
	struct fgit_tree_iter ia, ib;
	struct fgit_tree_entry ea, eb;
	int ra, rb, r, algo = a ? a->algo : b->algo;

	if ((r = read_tree(&ba, &la, w, a)) < 0 || (r = read_tree(&bb, &lb, w, b)) < 0)
		goto out;
	fgit_tree_iter_init(&ia, ba, la, algo);
	fgit_tree_iter_init(&ib, bb, lb, algo);
	ra = ba ? fgit_tree_iter_next(&ea, &ia) : 0;
	rb = bb ? fgit_tree_iter_next(&eb, &ib) : 0;
	while (ra > 0 || rb > 0) {
		int cmp;
		if (ra > 0 && rb > 0) {
			/* a file and a directory of the same name are different
			 * entries: names compare as if trees end in '/' */
			cmp = fgit_tree_entry_cmp(ea.name, ea.name_len, ea.mode,
						  eb.name, eb.name_len, eb.mode);
			/* ...except that a blob/blob or tree/tree pair with the
			 * same name is one entry */
			if (cmp && ea.name_len == eb.name_len &&
			    !memcmp(ea.name, eb.name, ea.name_len) &&
			    fgit_mode_is_tree(ea.mode) == fgit_mode_is_tree(eb.mode))
				cmp = 0;
		} else {
			cmp = ra > 0 ? -1 : 1;
		}
		if (cmp < 0) {
			r = visit(w, &ea, NULL, algo);
			if (!r)
				ra = fgit_tree_iter_next(&ea, &ia);
		} else if (cmp > 0) {
			r = visit(w, NULL, &eb, algo);
			if (!r)
				rb = fgit_tree_iter_next(&eb, &ib);
		} else {
			r = visit(w, &ea, &eb, algo);
			if (!r) {
				ra = fgit_tree_iter_next(&ea, &ia);
				rb = fgit_tree_iter_next(&eb, &ib);
			}
		}
		if (r)
			goto out;
	}
	if (ra < 0 || rb < 0)
		r = ra < 0 ? ra : rb;
out:
	free(ba);
	free(bb);
	return r;
}

int fgit_diff_trees(struct fgit_odb *odb, const struct fgit_oid *old_tree,
		    const struct fgit_oid *new_tree, const char *prefix,
		    unsigned int flags,
		    int (*cb)(const struct fgit_tree_change *c, void *payload),
		    void *payload)
{
	struct walk w;
	int r;

	if (!old_tree && !new_tree)
		return 0;
	if (old_tree && new_tree && fgit_oid_equal(old_tree, new_tree))
		return 0;
	w.odb = odb;
	w.flags = flags;
	w.cb = cb;
	w.payload = payload;
	fgit_buf_init(&w.path, 256);
	if (prefix && fgit_buf_adds(&w.path, prefix)) {
		fgit_buf_release(&w.path);
		return FGIT_ENOMEM;
	}
	r = walk_trees(&w, old_tree, new_tree);
	fgit_buf_release(&w.path);
	return r;
}
