/*
 * The change summary `git commit` prints (see fgit_diff_commit_summary in
 * include/fgit/diff.h): one recursive tree diff, renames paired by the
 * rename detector (the destination takes the place in the output, as in
 * git's diffcore), line counts from the line diff, binary files counted as
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
	int score;		/* the rename's similarity, 0..FGIT_RENAME_MAX_SCORE */
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

/* Pair deletions with additions through the rename detector (exact ids, then similarity). */
static int pair_renames(struct list *l, struct fgit_odb *odb, const struct fgit_rename_opts *ro)
{
	struct fgit_rename_file *src = NULL, *dst = NULL;
	struct fgit_rename_result *res = NULL;
	size_t *si = NULL, *di = NULL, ns = 0, nd = 0, i;
	int r = 0;

	for (i = 0; i < l->n; i++) {
		ns += l->v[i].status == FGIT_DIFF_DELETED;
		nd += l->v[i].status == FGIT_DIFF_ADDED;
	}
	if (!ns || !nd)
		return 0;
	src = calloc(ns, sizeof(*src));
	dst = calloc(nd, sizeof(*dst));
	si = calloc(ns, sizeof(*si));
	di = calloc(nd, sizeof(*di));
	res = calloc(nd, sizeof(*res));
	if (!src || !dst || !si || !di || !res) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	ns = nd = 0;
	for (i = 0; i < l->n; i++) {
		struct change *c = &l->v[i];
		if (c->status == FGIT_DIFF_DELETED) {
			src[ns].path = c->path;
			src[ns].mode = c->old_mode;
			src[ns].oid = c->old_oid;
			si[ns++] = i;
		} else if (c->status == FGIT_DIFF_ADDED) {
			dst[nd].path = c->path;
			dst[nd].mode = c->new_mode;
			dst[nd].oid = c->new_oid;
			di[nd++] = i;
		}
	}
	if ((r = fgit_diff_renames(res, NULL, src, ns, dst, nd, odb, ro)) < 0)
		goto out;
	for (i = 0; i < nd; i++) {
		if (res[i].src < 0)
			continue;
		l->v[si[res[i].src]].is_source = 1;
		l->v[di[i]].rename_from = (long)si[res[i].src];
		l->v[di[i]].score = res[i].score;
	}
out:
	free(src);
	free(dst);
	free(si);
	free(di);
	free(res);
	return r;
}

int fgit_diff_commit_summary(struct fgit_buf *out, struct fgit_odb *odb,
			     const struct fgit_oid *old_tree, const struct fgit_oid *new_tree,
			     const struct fgit_rename_opts *renames)
{
	struct list l = { NULL, 0, 0 };
	struct fgit_buf sum = FGIT_BUF_INIT;
	size_t i, files = 0, ins = 0, del = 0;
	int r;

	r = fgit_diff_trees(odb, old_tree, new_tree, NULL, FGIT_DIFF_TREE_RECURSIVE, collect, &l);
	if (r < 0)
		goto out;
	if (renames && (r = pair_renames(&l, odb, renames)) < 0)
		goto out;
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
			fgit_buf_addf(&sum, " (%d%%)\n", c->score * 100 / FGIT_RENAME_MAX_SCORE);
			if (src->old_mode != c->new_mode)
				fgit_buf_addf(&sum, " mode change %06o => %06o\n", src->old_mode, c->new_mode);
			if (fgit_oid_equal(&src->old_oid, &c->new_oid))
				continue;
			/* an inexact rename: its lines count as a modification */
			c->old_oid = src->old_oid;
			c->old_mode = src->old_mode;
			c->status = FGIT_DIFF_MODIFIED;
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
		if (c->rename_from >= 0)
			;	/* its lines printed above */
		else if (c->status == FGIT_DIFF_ADDED)
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
