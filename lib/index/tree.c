/*
 * The cache tree (TREE extension): for each directory, how many index
 * entries its tree covers and, when still valid, the tree's id, so that
 * write-tree and commit rebuild only the directories that changed.
 *
 * Children are kept sorted by (name length, name), the order git keeps them
 * in and writes them out; a malformed extension is dropped without error,
 * as git drops it.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "index/index_internal.h"

#define CT_MAX_DEPTH 4096

static struct ct_node *ct_new(const char *name, size_t len)
{
	struct ct_node *n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->name, name, len);
	n->namelen = len;
	n->entry_count = -1;
	return n;
}

void ct_free(struct ct_node *n)
{
	size_t i;
	if (!n)
		return;
	for (i = 0; i < n->nr; i++)
		ct_free(n->down[i]);
	free(n->down);
	free(n);
}

static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	if (al != bl)
		return al < bl ? -1 : 1;
	return memcmp(a, b, al);
}

/* Position of child name, or -(insertion point)-1. */
static long ct_pos(const struct ct_node *n, const char *name, size_t len)
{
	size_t lo = 0, hi = n->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_cmp(name, len, n->down[mid]->name, n->down[mid]->namelen);
		if (!c)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -(long)lo - 1;
}

/* Insert child (which must not exist yet); 0 or -1 on OOM. */
static int ct_insert(struct ct_node *n, struct ct_node *child, size_t at)
{
	if (n->nr == n->alloc) {
		size_t alloc = n->alloc ? 2 * n->alloc : 4;
		struct ct_node **d = realloc(n->down, alloc * sizeof(*d));
		if (!d)
			return -1;
		n->down = d;
		n->alloc = alloc;
	}
	memmove(n->down + at + 1, n->down + at, (n->nr - at) * sizeof(*n->down));
	n->down[at] = child;
	n->nr++;
	return 0;
}

/* Parse "<int> <int>\n" within [p, end); returns the byte after '\n'. */
static const unsigned char *parse_counts(const unsigned char *p, const unsigned char *end,
					 long *a, long *b)
{
	const unsigned char *nl = memchr(p, '\n', end - p);
	char tmp[64], *ep, *cp;
	size_t n;

	if (!nl || (n = nl - p) >= sizeof(tmp))
		return NULL;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	*a = strtol(tmp, &ep, 10);
	if (ep == tmp)
		return NULL;
	cp = ep;
	*b = strtol(cp, &ep, 10);
	if (ep == cp)
		return NULL;
	return nl + 1;
}

static struct ct_node *read_one(const unsigned char **pp, const unsigned char *end,
				size_t rawsz, int algo, int depth)
{
	const unsigned char *p = *pp, *name = p, *z;
	struct ct_node *n;
	long count, subs, i;

	if (depth > CT_MAX_DEPTH)
		return NULL;
	z = memchr(p, '\0', end - p);
	if (!z)
		return NULL;
	n = ct_new((const char *)name, z - name);
	if (!n)
		return NULL;
	p = parse_counts(z + 1, end, &count, &subs);
	if (!p || count > INT32_MAX || count < INT32_MIN)
		goto fail;
	n->entry_count = count < 0 ? -1 : (int)count;
	if (count >= 0) {
		if ((size_t)(end - p) < rawsz)
			goto fail;
		fgit_oid_from_raw(&n->oid, p, algo);
		p += rawsz;
	}
	for (i = 0; i < subs; i++) {
		struct ct_node *c = read_one(&p, end, rawsz, algo, depth + 1);
		long pos;
		if (!c)
			goto fail;
		pos = ct_pos(n, c->name, c->namelen);
		if (pos >= 0 || ct_insert(n, c, (size_t)(-pos - 1)) < 0) {
			ct_free(c);
			goto fail;
		}
	}
	*pp = p;
	return n;
fail:
	ct_free(n);
	return NULL;
}

struct ct_node *ct_read(const unsigned char *p, size_t len, int algo)
{
	if (!len || p[0])
		return NULL;
	return read_one(&p, p + len, fgit_hash_rawsz(algo), algo, 0);
}

static int write_one(struct fgit_buf *out, const struct ct_node *n, size_t rawsz)
{
	size_t i;
	if (fgit_buf_add(out, n->name, n->namelen) < 0 ||
	    fgit_buf_addch(out, '\0') < 0 ||
	    fgit_buf_addf(out, "%d %zu\n", n->entry_count, n->nr) < 0)
		return FGIT_ENOMEM;
	if (n->entry_count >= 0 && fgit_buf_add(out, n->oid.hash, rawsz) < 0)
		return FGIT_ENOMEM;
	for (i = 0; i < n->nr; i++)
		if (write_one(out, n->down[i], rawsz) < 0)
			return FGIT_ENOMEM;
	return 0;
}

int ct_write(struct fgit_buf *out, const struct ct_node *root, int algo)
{
	return write_one(out, root, fgit_hash_rawsz(algo));
}

void ct_invalidate(struct ct_node *n, const char *path)
{
	while (n) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		long pos;

		n->entry_count = -1;
		pos = ct_pos(n, path, len);
		if (!slash) {
			/* A file replacing a directory: the subtree goes. */
			if (pos >= 0) {
				ct_free(n->down[pos]);
				memmove(n->down + pos, n->down + pos + 1,
					(n->nr - pos - 1) * sizeof(*n->down));
				n->nr--;
			}
			return;
		}
		n = pos >= 0 ? n->down[pos] : NULL;
		path = slash + 1;
	}
}

/* Walk to dir ("" = root); create missing nodes when create is set. */
static struct ct_node *ct_walk(struct ct_node *n, const char *dir, int create)
{
	while (n && *dir) {
		const char *slash = strchr(dir, '/');
		size_t len = slash ? (size_t)(slash - dir) : strlen(dir);
		long pos = ct_pos(n, dir, len);
		if (pos >= 0) {
			n = n->down[pos];
		} else if (create) {
			struct ct_node *c = ct_new(dir, len);
			if (!c || ct_insert(n, c, (size_t)(-pos - 1)) < 0) {
				ct_free(c);
				return NULL;
			}
			n = c;
		} else {
			return NULL;
		}
		dir = slash ? slash + 1 : dir + len;
	}
	return n;
}

int fgit_index_cache_tree_get(int *entry_count, int *subtree_count,
			      struct fgit_oid *oid, const struct fgit_index *idx,
			      const char *dir)
{
	const struct ct_node *n = ct_walk(idx->tree, dir, 0);
	if (!n)
		return FGIT_ENOTFOUND;
	if (entry_count)
		*entry_count = n->entry_count;
	if (subtree_count)
		*subtree_count = (int)n->nr;
	if (oid) {
		if (n->entry_count >= 0)
			*oid = n->oid;
		else
			fgit_oid_zero(oid, idx->algo);
	}
	return 0;
}

int fgit_index_cache_tree_set(struct fgit_index *idx, const char *dir,
			      int entry_count, int subtree_count,
			      const struct fgit_oid *oid)
{
	struct ct_node *n;

	idx->changed = 1;
	if (!idx->tree && !(idx->tree = ct_new("", 0)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	n = ct_walk(idx->tree, dir, 1);
	if (!n)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	(void)subtree_count;	/* the node's children are what they are */
	n->entry_count = entry_count < 0 ? -1 : entry_count;
	if (entry_count >= 0 && oid)
		n->oid = *oid;
	return 0;
}

int ct_prune(struct fgit_index *idx, const char *dir, const struct ct_name *keep, size_t n)
{
	struct ct_node *node = ct_walk(idx->tree, dir, 0);
	unsigned char *used;
	size_t i, k;
	long pos;

	if (!node || !node->nr)
		return 0;
	if (!(used = calloc(node->nr, 1)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if ((pos = ct_pos(node, keep[i].name, keep[i].len)) >= 0)
			used[pos] = 1;
	for (i = k = 0; i < node->nr; i++) {
		if (used[i])
			node->down[k++] = node->down[i];
		else
			ct_free(node->down[i]);
	}
	if (k != node->nr)
		idx->changed = 1;
	node->nr = k;
	free(used);
	return 0;
}

int fgit_index_cache_tree_remove(struct fgit_index *idx, const char *dir)
{
	const char *slash = strrchr(dir, '/');
	struct fgit_buf parent = FGIT_BUF_INIT;
	struct ct_node *p;
	const char *name = slash ? slash + 1 : dir;
	long pos;

	if (!*dir || !idx->tree)
		return FGIT_ENOTFOUND;
	if (slash && fgit_buf_add(&parent, dir, slash - dir) < 0)
		return FGIT_ENOMEM;
	p = ct_walk(idx->tree, parent.ptr, 0);
	fgit_buf_release(&parent);
	if (!p || (pos = ct_pos(p, name, strlen(name))) < 0)
		return FGIT_ENOTFOUND;
	ct_free(p->down[pos]);
	memmove(p->down + pos, p->down + pos + 1, (p->nr - pos - 1) * sizeof(*p->down));
	p->nr--;
	idx->changed = 1;
	return 0;
}

static int ct_foreach(const struct ct_node *n, struct fgit_buf *path,
		      int (*cb)(const char *dir, int entry_count, const struct fgit_oid *oid,
				void *payload),
		      void *payload, int depth)
{
	size_t base = path->len, i;
	int ret;

	if (depth > CT_MAX_DEPTH)
		return 0;
	if ((ret = cb(path->ptr, n->entry_count, &n->oid, payload)))
		return ret;
	for (i = 0; i < n->nr; i++) {
		if ((base && fgit_buf_addch(path, '/')) ||
		    fgit_buf_add(path, n->down[i]->name, n->down[i]->namelen))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		ret = ct_foreach(n->down[i], path, cb, payload, depth + 1);
		fgit_buf_setlen(path, base);
		if (ret)
			return ret;
	}
	return 0;
}

int fgit_index_cache_tree_foreach(const struct fgit_index *idx,
				  int (*cb)(const char *dir, int entry_count,
					    const struct fgit_oid *oid, void *payload),
				  void *payload)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	int ret;

	if (!idx->tree)
		return 0;
	ret = ct_foreach(idx->tree, &path, cb, payload, 0);
	fgit_buf_release(&path);
	return ret;
}
