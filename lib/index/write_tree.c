/*
 * The index as tree objects (git's cache_tree_update + write-tree).
 * Directories whose cache-tree node is still valid are not rebuilt: their
 * tree id is reused after a cheap existence check, so a commit after
 * changing one file writes only the trees on that file's path.  Rebuilt
 * nodes are recorded back in the cache tree.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "index/index_internal.h"

struct wt {
	struct fgit_index *idx;
	struct fgit_odb *odb;
	unsigned int flags;
	int changed;
	/* scratch for check_blobs(), reused by every directory */
	const struct fgit_oid **oids;
	unsigned char *found;
	size_t oids_alloc;
};

/* Grow the array *p of *alloc items of size sz so that item nr fits. */
static int room_for_one(void **p, size_t *alloc, size_t nr, size_t sz)
{
	size_t na;
	void *np;

	if (nr < *alloc)
		return 0;
	na = *alloc ? *alloc * 2 : 16;
	if (na > SIZE_MAX / sz || !(np = realloc(*p, na * sz)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	*p = np;
	*alloc = na;
	return 0;
}

/*
 * git's "invalid object" check of the files of directory dir (dlen
 * bytes, ents[0..nent) its entries), after its subdirectories as git
 * makes it: all the directory's blobs looked up at once, so the lookups
 * overlap (fgit_odb_exists_many).
 */
static int check_blobs(struct wt *w, const struct fgit_tree_entry *ents, size_t nent,
		       size_t dlen)
{
	size_t i, k = 0;

	if (w->flags & FGIT_WRITE_TREE_MISSING_OK)
		return 0;
	if (nent > w->oids_alloc) {
		free(w->oids);
		free(w->found);
		w->oids_alloc = 0;
		w->oids = malloc(nent * sizeof(*w->oids));
		w->found = malloc(nent);
		if (!w->oids || !w->found)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		w->oids_alloc = nent;
	}
	for (i = 0; i < nent; i++)
		if (ents[i].mode != 040000 && ents[i].mode != 0160000)
			w->oids[k++] = &ents[i].oid;
	fgit_odb_exists_many(w->odb, w->oids, k, w->found);
	for (i = 0, k = 0; i < nent; i++) {
		char hex[FGIT_MAX_HEXSZ + 1];

		if (ents[i].mode == 040000 || ents[i].mode == 0160000 || w->found[k++])
			continue;
		/* the entry's name is the tail of its index path */
		return fgit_error_set(FGIT_EINVALID, "invalid object %06o %s for '%.*s'",
				      ents[i].mode, fgit_oid_to_hex(hex, &ents[i].oid),
				      (int)(dlen + ents[i].name_len), ents[i].name - dlen);
	}
	return 0;
}

/*
 * Build the tree of directory `dir` ("" or "a/b/") from the entries at
 * [*pos, ...) under it; *pos moves past them.
 */
static int build(struct fgit_oid *out, struct wt *w, const char *dir, size_t dlen, size_t *pos)
{
	size_t n = fgit_index_entrycount(w->idx), start = *pos, nent = 0, alloc = 0;
	struct fgit_tree_entry *ents = NULL;
	struct ct_name *subs = NULL;	/* every subdirectory met, for ct_prune */
	size_t nsubs = 0, subs_alloc = 0;
	struct fgit_buf buf = FGIT_BUF_INIT, key = FGIT_BUF_INIT;
	int count, subtrees = 0, r;
	struct fgit_oid oid;

	if ((r = fgit_buf_add(&key, dir, dlen ? dlen - 1 : 0)) < 0)
		return r;
	if (!(w->flags & FGIT_WRITE_TREE_IGNORE_CACHE_TREE) &&
	    fgit_index_cache_tree_get(&count, &subtrees, &oid, w->idx, key.ptr) == 0 &&
	    count >= 0 && start + (size_t)count <= n && fgit_odb_exists(w->odb, &oid) > 0) {
		*out = oid;
		*pos = start + (size_t)count;
		fgit_buf_release(&key);
		return 0;
	}
	fgit_error_clear();
	subtrees = 0;
	while (*pos < n) {
		const struct fgit_index_entry *e = fgit_index_get(w->idx, *pos);
		const char *rest, *slash;

		if (e->path_len < dlen || memcmp(e->path, dir, dlen))
			break;
		if (e->stage) {
			char hex[FGIT_MAX_HEXSZ + 1];
			r = fgit_error_set(FGIT_EINVALID, "%s: unmerged (%s)", e->path,
					   fgit_oid_to_hex(hex, &e->oid));
			goto out;
		}
		rest = e->path + dlen;
		slash = strchr(rest, '/');
		if ((r = room_for_one((void **)&ents, &alloc, nent, sizeof(*ents))) < 0)
			goto out;
		if (slash) {
			struct fgit_buf sub = FGIT_BUF_INIT;
			if ((r = room_for_one((void **)&subs, &subs_alloc, nsubs, sizeof(*subs))) < 0)
				goto out;
			subs[nsubs].name = rest;
			subs[nsubs++].len = (size_t)(slash - rest);
			fgit_buf_add(&sub, e->path, (size_t)(slash - e->path) + 1);
			ents[nent].mode = 040000;
			ents[nent].name = rest;
			ents[nent].name_len = (size_t)(slash - rest);
			r = build(&ents[nent].oid, w, sub.ptr, sub.len, pos);
			fgit_buf_release(&sub);
			if (r)
				goto out;
			/* a directory holding only intent-to-add entries is no tree */
			if (!fgit_oid_is_zero(&ents[nent].oid)) {
				nent++;
				subtrees++;
			}
			continue;
		}
		(*pos)++;
		if (e->flags & FGIT_INDEX_INTENT_TO_ADD)
			continue;
		ents[nent].mode = e->mode;
		ents[nent].name = rest;
		ents[nent].name_len = e->path_len - dlen;
		ents[nent].oid = e->oid;
		nent++;
	}
	if ((r = check_blobs(w, ents, nent, dlen)) < 0)
		goto out;
	if (!nent && dlen) {
		/* nothing to write: no tree for this directory */
		fgit_oid_zero(out, fgit_index_algo(w->idx));
		r = 0;
		goto out;
	}
	if ((r = fgit_tree_serialize(&buf, ents, nent)) < 0 ||
	    (r = fgit_odb_write(out, w->odb, FGIT_OBJ_TREE, buf.ptr, buf.len)) < 0)
		goto out;
	if ((r = fgit_index_cache_tree_set(w->idx, key.ptr, (int)(*pos - start), subtrees, out)) < 0 ||
	    (r = ct_prune(w->idx, key.ptr, subs, nsubs)) < 0)
		goto out;
	w->changed = 1;
	r = 0;
out:
	free(ents);
	free(subs);
	fgit_buf_release(&buf);
	fgit_buf_release(&key);
	return r;
}

int fgit_index_write_tree(struct fgit_oid *out, int *changed_out, struct fgit_index *idx,
			  struct fgit_odb *odb, unsigned int flags)
{
	struct wt w = { idx, odb, flags, 0, NULL, NULL, 0 };
	size_t pos = 0;
	int r;

	if ((r = fgit_index_sort(idx)) < 0)
		return r;
	r = build(out, &w, "", 0, &pos);
	free(w.oids);
	free(w.found);
	if (changed_out)
		*changed_out = w.changed;
	return r;
}
