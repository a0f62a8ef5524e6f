/*
 * A tree into the index (git's read_tree + prime_cache_tree): every blob,
 * symlink and gitlink becomes a stage-0 entry without stat data, and each
 * directory's cache-tree node is recorded valid with the tree's own id, so
 * a following write-tree or commit rebuilds nothing it did not touch.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"

struct rt {
	struct fgit_index *idx;
	struct fgit_odb *odb;
	int algo;
	unsigned int flags;
};

/* Returns the number of entries added below path (>= 0) or an error. */
static long read_one(struct rt *t, const struct fgit_oid *tree, struct fgit_buf *path,
		     int *subtrees_out, int depth)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	enum fgit_object_type type;
	void *buf = NULL;
	size_t len, base = path->len;
	long total = 0;
	int subtrees = 0, r;

	if (depth > 4096)
		return fgit_error_set(FGIT_EINVALID, "tree too deep");
	if ((r = fgit_odb_read(&buf, &len, &type, t->odb, tree)) < 0)
		return r;
	if (type != FGIT_OBJ_TREE) {
		char hex[FGIT_MAX_HEXSZ + 1];
		free(buf);
		return fgit_error_set(FGIT_EINVALID, "object %s is a %s, not a tree",
				      fgit_oid_to_hex(hex, tree), fgit_object_type_name(type));
	}
	fgit_tree_iter_init(&it, buf, len, t->algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		fgit_buf_setlen(path, base);
		fgit_buf_add(path, e.name, e.name_len);
		if (fgit_mode_is_tree(e.mode)) {
			int sub = 0;
			long n;
			fgit_buf_addch(path, '/');
			n = read_one(t, &e.oid, path, &sub, depth + 1);
			if (n < 0) {
				r = (int)n;
				goto out;
			}
			fgit_buf_setlen(path, path->len - 1);
			if ((r = fgit_index_cache_tree_set(t->idx, path->ptr, (int)n, sub, &e.oid)) < 0)
				goto out;
			total += n;
			subtrees++;
		} else {
			struct fgit_index_entry *ie;
			if ((r = fgit_index_entry_new(&ie, path->ptr, path->len)) < 0)
				goto out;
			ie->mode = fgit_mode_canon(e.mode);
			ie->oid = e.oid;
			if ((r = fgit_index_append(t->idx, ie)) < 0)
				goto out;
			total++;
		}
	}
	if (r < 0)
		goto out;
	*subtrees_out = subtrees;
	r = 0;
out:
	fgit_buf_setlen(path, base);
	free(buf);
	return r < 0 ? r : total;
}

int fgit_index_read_tree(struct fgit_index *idx, struct fgit_odb *odb,
			 const struct fgit_oid *tree)
{
	struct rt t = { idx, odb, fgit_index_algo(idx), 0 };
	struct fgit_buf path = FGIT_BUF_INIT;
	int sub = 0, r;
	long n;

	n = read_one(&t, tree, &path, &sub, 0);
	fgit_buf_release(&path);
	if (n < 0)
		return (int)n;
	if ((r = fgit_index_sort(idx)) < 0)
		return r;
	return fgit_index_cache_tree_set(idx, "", (int)n, sub, tree);
}
