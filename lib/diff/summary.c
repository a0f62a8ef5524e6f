/*
 * The change summary `git commit` prints (see fgit_diff_commit_summary in
 * include/fgit/diff.h): one recursive tree diff, exact renames paired by
 * blob id (the destination takes the place in the output, as in git's
 * diffcore), line counts from the line diff, binary files counted as
 * changed with no lines.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/diff.h"
#include "fgit/object.h"
#include "fgit/odb.h"

struct change {
	enum fgit_diff_status status;
	char *path;
	unsigned int old_mode, new_mode;
	struct fgit_oid old_oid, new_oid;
	long rename_from;	/* index of the deleted source, -1 none */
	int is_source;		/* a deletion taken by a rename */
};

struct list {
	struct change *v;
	size_t n, alloc;
};

static int collect(const struct fgit_tree_change *c, void *payload)
{
	struct list *l = payload;
	struct change *ch;

	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 16;
		struct change *nv = realloc(l->v, na * sizeof(*nv));
		if (!nv)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		l->v = nv;
		l->alloc = na;
	}
	ch = &l->v[l->n];
	memset(ch, 0, sizeof(*ch));
	ch->status = c->status;
	if (!(ch->path = strndup(c->path, c->path_len)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	ch->old_mode = c->old_mode;
	ch->new_mode = c->new_mode;
	ch->old_oid = c->old_oid;
	ch->new_oid = c->new_oid;
	ch->rename_from = -1;
	l->n++;
	return 0;
}

static int read_blob(void **buf, size_t *len, struct fgit_odb *odb, const struct fgit_oid *oid,
		     unsigned int mode)
{
	enum fgit_object_type t;

	*buf = NULL;
	*len = 0;
	if ((mode & 0170000) == 0160000)
		return 0;	/* a gitlink: "Subproject commit" lines, not counted here */
	return fgit_odb_read(buf, len, &t, odb, oid);
}

int fgit_diff_commit_summary(struct fgit_buf *out, struct fgit_odb *odb,
			     const struct fgit_oid *old_tree, const struct fgit_oid *new_tree,
			     int renames)
{
	struct list l = { NULL, 0, 0 };
	struct fgit_buf sum = FGIT_BUF_INIT;
	size_t i, j, files = 0, ins = 0, del = 0;
	int r;

	r = fgit_diff_trees(odb, old_tree, new_tree, NULL, FGIT_DIFF_TREE_RECURSIVE, collect, &l);
	if (r < 0)
		goto out;
	if (renames) {
		for (i = 0; i < l.n; i++) {
			if (l.v[i].status != FGIT_DIFF_ADDED)
				continue;
			for (j = 0; j < l.n; j++)
				if (l.v[j].status == FGIT_DIFF_DELETED && !l.v[j].is_source &&
				    fgit_oid_equal(&l.v[j].old_oid, &l.v[i].new_oid) &&
				    (l.v[j].old_mode & 0170000) == (l.v[i].new_mode & 0170000))
					break;
			if (j < l.n) {
				l.v[j].is_source = 1;
				l.v[i].rename_from = (long)j;
			}
		}
	}
	for (i = 0; i < l.n; i++) {
		struct change *c = &l.v[i];
		void *a = NULL, *b = NULL;
		size_t al = 0, bl = 0, ad = 0, de = 0;

		if (c->is_source)
			continue;
		files++;
		if (c->rename_from >= 0) {
			struct change *src = &l.v[c->rename_from];
			fgit_buf_adds(&sum, " rename ");
			fgit_diff_rename_name(&sum, src->path, c->path);
			fgit_buf_adds(&sum, " (100%)\n");
			if (src->old_mode != c->new_mode)
				fgit_buf_addf(&sum, " mode change %06o => %06o\n", src->old_mode, c->new_mode);
			continue;
		}
		if (c->status != FGIT_DIFF_ADDED &&
		    (r = read_blob(&a, &al, odb, &c->old_oid, c->old_mode)) < 0)
			goto out;
		if (c->status != FGIT_DIFF_DELETED &&
		    (r = read_blob(&b, &bl, odb, &c->new_oid, c->new_mode)) < 0) {
			free(a);
			goto out;
		}
		if (!fgit_buffer_is_binary(a, al) && !fgit_buffer_is_binary(b, bl)) {
			if ((r = fgit_diff_count(a ? a : "", al, b ? b : "", bl, &ad, &de)) < 0) {
				free(a);
				free(b);
				goto out;
			}
			ins += ad;
			del += de;
		}
		free(a);
		free(b);
		if (c->status == FGIT_DIFF_ADDED)
			fgit_buf_addf(&sum, " create mode %06o %s\n", c->new_mode, c->path);
		else if (c->status == FGIT_DIFF_DELETED)
			fgit_buf_addf(&sum, " delete mode %06o %s\n", c->old_mode, c->path);
		else if (c->old_mode != c->new_mode)
			fgit_buf_addf(&sum, " mode change %06o => %06o %s\n", c->old_mode,
				      c->new_mode, c->path);
	}
	if (files && (r = fgit_diffstat_summary(out, files, ins, del)) < 0)
		goto out;
	r = fgit_buf_add(out, sum.ptr, sum.len);
out:
	for (i = 0; i < l.n; i++)
		free(l.v[i].path);
	free(l.v);
	fgit_buf_release(&sum);
	return r;
}
