/*
 * The in-memory index: a sorted array of entry pointers (path, then stage,
 * in memcmp order as the file), binary search, insert and remove keeping the
 * order, and the bookkeeping git does on the way (resolve-undo when a
 * conflict goes away, cache-tree invalidation, untracked-cache drop).
 *
 * Entries loaded from a file live in per-thread arenas (one free for the
 * whole index); entries added later are malloc'd one by one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fgit/common.h"
#include "index/index_internal.h"

#define ARENA_CHUNK (256 * 1024)
/*
 * Reservations from this size on (a loaded index's per-block arena) are
 * mapped on 2 MiB boundaries and marked for transparent huge pages: page
 * faults are what loading an index mostly costs on this VM (shadow page
 * tables), one per 4 KiB page touched.  Measured with
 * `index-tool load <small corpus index> 1 1` (100,000 entries, task-clock,
 * median of 15, load ~10): 4 KiB pages 93-95 ms, the same pre-faulted
 * with MAP_POPULATE 75-96 ms, huge pages 26 ms; page faults 3,215 -> ~480.
 * Only the huge pages touched are allocated, and arena_trim gives back the
 * part of the last one the entries did not use.
 * Without THP (or when madvise fails) these are ordinary pages.
 */
#define ARENA_HUGE_MIN ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/* sz rounded up to whole huge pages at a huge page boundary, or NULL. */
static void *map_huge(size_t *sz)
{
	size_t len = (*sz + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	char *m, *start;
	size_t before;

	if (len < *sz)
		return NULL;
	m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	start = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	before = (size_t)(start - m);
	if (before)
		munmap(m, before);
	munmap(start + len, HUGE_PAGE - before);
	madvise(start, len, MADV_HUGEPAGE);
	*sz = len;
	return start;
}

static struct arena_chunk *chunk_new(struct arena *a, size_t sz)
{
	struct arena_chunk *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	c->mapped = 0;
	if (sz >= ARENA_HUGE_MIN && (c->data = map_huge(&sz)))
		c->mapped = 1;
	if (!c->mapped && !(c->data = malloc(sz))) {
		free(c);
		return NULL;
	}
	c->size = sz;
	c->used = 0;
	c->next = a->head;
	a->head = c;
	return c;
}

int arena_reserve(struct arena *a, size_t n)
{
	if (a->head && a->head->size - a->head->used >= n)
		return 0;
	return chunk_new(a, n) ? 0 : -1;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		c = chunk_new(a, n > ARENA_CHUNK ? n : ARENA_CHUNK);
		if (!c)
			return NULL;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;
	for (; c; c = next) {
		next = c->next;
		if (c->mapped)
			munmap(c->data, c->size);
		else
			free(c->data);
		free(c);
	}
	a->head = NULL;
}

void arena_trim(struct arena *a)
{
	struct arena_chunk *c;
	size_t keep;

	for (c = a->head; c; c = c->next) {
		if (!c->mapped)
			continue;
		keep = (c->used + 4095) & ~(size_t)4095;
		if (keep && keep < c->size && !munmap(c->data + keep, c->size - keep))
			c->size = keep;
	}
}

void arena_merge(struct arena *dst, struct arena *src)
{
	struct arena_chunk *c = src->head;
	if (!c)
		return;
	while (c->next)
		c = c->next;
	c->next = dst->head;
	dst->head = src->head;
	src->head = NULL;
}

int fgit_index_entry_new(struct fgit_index_entry **out, const char *path, size_t len)
{
	struct fgit_index_entry *e;

	if (!len || memchr(path, '\0', len) || len > UINT32_MAX)
		return fgit_error_set(FGIT_EINVALID, "invalid path '%.*s'",
				      (int)(len > 1024 ? 1024 : len), path);
	e = calloc(1, sizeof(*e) + len + 1);
	if (!e)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	memcpy(e->path, path, len);
	e->path[len] = '\0';
	e->path_len = (uint32_t)len;
	*out = e;
	return 0;
}

void fgit_index_entry_free(struct fgit_index_entry *e)
{
	if (e && !(e->internal & ENTRY_IN_ARENA))
		free(e);
}

void index_entry_release(struct fgit_index_entry *e)
{
	fgit_index_entry_free(e);
}

int fgit_index_new(struct fgit_index **out, int algo)
{
	struct fgit_index *idx = calloc(1, sizeof(*idx));
	if (!idx)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	idx->algo = algo ? algo : FGIT_HASH_SHA1;
	*out = idx;
	return 0;
}

void fgit_index_clear(struct fgit_index *idx)
{
	size_t i;
	idx->changed = 1;
	/* Loaded entries go with their arenas: only visit them if some were added. */
	if (idx->heap_entries)
		for (i = 0; i < idx->nr; i++)
			index_entry_release(idx->entries[i]);
	idx->heap_entries = 0;
	idx->nr = 0;
	arena_release(&idx->arena);
	ct_free(idx->tree);
	idx->tree = NULL;
	reuc_release(&idx->reuc);
	fgit_untr_free(idx->untr);
	idx->untr = NULL;
}

void fgit_index_free(struct fgit_index *idx)
{
	if (!idx)
		return;
	fgit_index_clear(idx);
	free(idx->ignored);
	free(idx->entries);
	free(idx);
}

unsigned int fgit_index_load_threads(const struct fgit_index *idx)
{
	return idx->load_threads ? idx->load_threads : 1;
}

unsigned int fgit_index_version(const struct fgit_index *idx)
{
	return idx->version;
}

int fgit_index_algo(const struct fgit_index *idx)
{
	return idx->algo;
}

void fgit_index_file_mtime(const struct fgit_index *idx, uint32_t *sec, uint32_t *nsec)
{
	*sec = idx->have_file ? idx->mtime_sec : 0;
	*nsec = idx->have_file ? idx->mtime_nsec : 0;
}

/*
 * git 2.39 as built by Debian compares seconds only (no USE_NSEC): an entry
 * is racy when the index was written in the same second as the file was
 * last modified, or earlier.  Gitlinks are never racy.
 */
int fgit_index_entry_is_racy(const struct fgit_index *idx, const struct fgit_index_entry *e)
{
	if ((e->mode & 0170000) == 0160000)
		return 0;
	return idx->have_file && idx->mtime_sec && idx->mtime_sec <= e->mtime_sec;
}

const unsigned char *fgit_index_checksum(const struct fgit_index *idx)
{
	return idx->checksum;
}

size_t fgit_index_entrycount(const struct fgit_index *idx)
{
	return idx->nr;
}

const struct fgit_index_entry *fgit_index_get(const struct fgit_index *idx, size_t pos)
{
	return pos < idx->nr ? idx->entries[pos] : NULL;
}

struct fgit_index_entry *fgit_index_get_mut(struct fgit_index *idx, size_t pos)
{
	return pos < idx->nr ? idx->entries[pos] : NULL;
}

int index_entry_cmp(const char *p1, size_t l1, unsigned s1,
		    const char *p2, size_t l2, unsigned s2)
{
	size_t n = l1 < l2 ? l1 : l2;
	int c = memcmp(p1, p2, n);
	if (c)
		return c;
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	if (s1 != s2)
		return s1 < s2 ? -1 : 1;
	return 0;
}

int fgit_index_find(size_t *out, const struct fgit_index *idx,
		    const char *path, size_t len, unsigned int stage)
{
	size_t lo = 0, hi = idx->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fgit_index_entry *e = idx->entries[mid];
		int c = index_entry_cmp(path, len, stage, e->path, e->path_len, e->stage);
		if (!c) {
			*out = mid;
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*out = lo;
	return FGIT_ENOTFOUND;
}

const struct fgit_index_entry *fgit_index_lookup(const struct fgit_index *idx,
						 const char *path, unsigned int stage)
{
	size_t pos;
	if (fgit_index_find(&pos, idx, path, strlen(path), stage))
		return NULL;
	return idx->entries[pos];
}

int fgit_index_find_any_stage(size_t *out, const struct fgit_index *idx,
			      const char *path, size_t len)
{
	size_t pos;
	const struct fgit_index_entry *e;

	fgit_index_find(&pos, idx, path, len, 0);
	*out = pos;
	if (pos >= idx->nr)
		return 0;
	e = idx->entries[pos];
	return e->path_len == len && !memcmp(e->path, path, len);
}

/* An entry came or went: the index changed, and the untracked cache
 * forgets the path's directory (git's untracked_cache_{add_to,remove_from}_index). */
static void untr_invalidate(struct fgit_index *idx, const char *path, size_t len)
{
	idx->changed = 1;
	if (idx->untr)
		fgit_untr_invalidate_path(idx->untr, path, len);
}

static int grow_entries(struct fgit_index *idx, size_t want)
{
	struct fgit_index_entry **n;
	size_t alloc;

	if (want <= idx->alloc)
		return 0;
	alloc = idx->alloc ? idx->alloc : 16;
	while (alloc < want) {
		if (alloc > SIZE_MAX / 2 / sizeof(*n))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		alloc *= 2;
	}
	n = realloc(idx->entries, alloc * sizeof(*n));
	if (!n)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	idx->entries = n;
	idx->alloc = alloc;
	return 0;
}

static int remove_at(struct fgit_index *idx, size_t pos)
{
	struct fgit_index_entry *e = idx->entries[pos];
	int ret = 0;

	if (e->stage)
		ret = reuc_record(&idx->reuc, e);
	index_entry_release(e);
	memmove(idx->entries + pos, idx->entries + pos + 1,
		(idx->nr - pos - 1) * sizeof(*idx->entries));
	idx->nr--;
	return ret;
}

/*
 * git's verify_path() core: no empty, ".", ".." or ".git" (any case)
 * component, no leading or trailing slash.  NEEDSWORK: the NTFS/HFS
 * variants git checks with core.protectNTFS/core.protectHFS.
 */
static int path_ok(const char *p)
{
	for (;;) {
		const char *c = p;
		size_t n;
		while (*p && *p != '/')
			p++;
		n = p - c;
		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') ||
		    (n == 4 && c[0] == '.' && (c[1] | 0x20) == 'g' && (c[2] | 0x20) == 'i' &&
		     (c[3] | 0x20) == 't'))
			return 0;
		if (!*p)
			return 1;
		p++;
	}
}

int fgit_index_path_valid(const char *path)
{
	return path_ok(path);
}

/*
 * git's D/F check: would e make a path both a file and a directory at its
 * stage?  With replace, the entries in the way are removed instead.
 */
static int df_conflict(struct fgit_index *idx, const struct fgit_index_entry *e, int replace)
{
	size_t pos, len;
	int ret;

	/* a leading directory of e is a file */
	for (len = 0; len < e->path_len; len++) {
		if (e->path[len] != '/')
			continue;
		if (!fgit_index_find(&pos, idx, e->path, len, e->stage)) {
			if (!replace)
				return 1;
			if ((ret = fgit_index_remove_at(idx, pos)) < 0)
				return ret;
		}
	}
	/* e is a directory of existing entries: "<path>/..." */
	fgit_index_find(&pos, idx, e->path, e->path_len, e->stage);
	while (pos < idx->nr) {
		const struct fgit_index_entry *x = idx->entries[pos];
		if (x->path_len <= e->path_len || memcmp(x->path, e->path, e->path_len))
			break;
		if (x->path[e->path_len] < '/') {
			pos++;	/* "a-b", "a.c" sort between "a" and "a/" */
			continue;
		}
		if (x->path[e->path_len] > '/')
			break;
		if (x->stage != e->stage) {
			pos++;
			continue;
		}
		if (!replace)
			return 1;
		if ((ret = fgit_index_remove_at(idx, pos)) < 0)
			return ret;
	}
	return 0;
}

int fgit_index_add(struct fgit_index *idx, struct fgit_index_entry *e)
{
	return fgit_index_add_ex(idx, e, 0);
}

int fgit_index_add_ex(struct fgit_index *idx, struct fgit_index_entry *e, unsigned int flags)
{
	size_t pos;
	int ret;

	if (!path_ok(e->path)) {
		ret = fgit_error_set(FGIT_EINVALID, "invalid path '%s'", e->path);
		index_entry_release(e);
		return ret;
	}
	if (e->stage > 3) {
		ret = fgit_error_set(FGIT_EINVALID, "invalid stage %u for '%s'",
				     e->stage, e->path);
		index_entry_release(e);
		return ret;
	}
	if (!(flags & FGIT_INDEX_ADD_SKIP_DFCHECK) &&
	    (ret = df_conflict(idx, e, flags & FGIT_INDEX_ADD_OK_TO_REPLACE))) {
		if (ret > 0)
			ret = fgit_error_set(FGIT_EEXISTS,
					     "'%s' appears as both a file and as a directory", e->path);
		index_entry_release(e);
		return ret;
	}
	e->internal &= ~ENTRY_ONDISK_EXT;
	if (!(e->internal & ENTRY_IN_ARENA))
		idx->heap_entries++;
	if (idx->tree)
		ct_invalidate(idx->tree, e->path);
	untr_invalidate(idx, e->path, e->path_len);

	if (!fgit_index_find(&pos, idx, e->path, e->path_len, e->stage)) {
		index_entry_release(idx->entries[pos]);
		idx->entries[pos] = e;
		if (e->stage)
			return 0;
	} else {
		if ((ret = grow_entries(idx, idx->nr + 1)) < 0) {
			index_entry_release(e);
			return ret;
		}
		memmove(idx->entries + pos + 1, idx->entries + pos,
			(idx->nr - pos) * sizeof(*idx->entries));
		idx->entries[pos] = e;
		idx->nr++;
	}
	/* A merged entry replaces all the unmerged ones of its path. */
	if (!e->stage) {
		pos++;
		while (pos < idx->nr && idx->entries[pos]->path_len == e->path_len &&
		       !memcmp(idx->entries[pos]->path, e->path, e->path_len))
			if ((ret = remove_at(idx, pos)) < 0)
				return ret;
	}
	return 0;
}

int fgit_index_append(struct fgit_index *idx, struct fgit_index_entry *e)
{
	int ret;
	if (!path_ok(e->path) || e->stage > 3) {
		ret = fgit_error_set(FGIT_EINVALID, "invalid path '%s'", e->path);
		index_entry_release(e);
		return ret;
	}
	if ((ret = grow_entries(idx, idx->nr + 1)) < 0) {
		index_entry_release(e);
		return ret;
	}
	e->internal &= ~ENTRY_ONDISK_EXT;
	if (!(e->internal & ENTRY_IN_ARENA))
		idx->heap_entries++;
	if (idx->nr) {
		const struct fgit_index_entry *l = idx->entries[idx->nr - 1];
		if (index_entry_cmp(l->path, l->path_len, l->stage,
				    e->path, e->path_len, e->stage) >= 0)
			idx->unsorted = 1;
	}
	idx->entries[idx->nr++] = e;
	untr_invalidate(idx, e->path, e->path_len);
	return 0;
}

struct seq_entry {
	struct fgit_index_entry *e;
	size_t seq;
};

static int seq_cmp(const void *a, const void *b)
{
	const struct seq_entry *x = a, *y = b;
	int c = index_entry_cmp(x->e->path, x->e->path_len, x->e->stage,
				y->e->path, y->e->path_len, y->e->stage);
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int fgit_index_sort(struct fgit_index *idx)
{
	struct seq_entry *tmp;
	size_t i, k = 0;

	if (!idx->unsorted)
		return 0;
	tmp = malloc((idx->nr ? idx->nr : 1) * sizeof(*tmp));
	if (!tmp)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < idx->nr; i++) {
		tmp[i].e = idx->entries[i];
		tmp[i].seq = i;
	}
	qsort(tmp, idx->nr, sizeof(*tmp), seq_cmp);
	for (i = 0; i < idx->nr; i++) {
		if (i + 1 < idx->nr && !index_entry_cmp(tmp[i].e->path, tmp[i].e->path_len,
							tmp[i].e->stage, tmp[i + 1].e->path,
							tmp[i + 1].e->path_len, tmp[i + 1].e->stage)) {
			index_entry_release(tmp[i].e);	/* a later one wins */
			continue;
		}
		idx->entries[k++] = tmp[i].e;
	}
	idx->nr = k;
	idx->unsorted = 0;
	free(tmp);
	return 0;
}

int fgit_index_remove_at(struct fgit_index *idx, size_t pos)
{
	if (pos >= idx->nr)
		return fgit_error_set(FGIT_ENOTFOUND, "no index entry at %zu", pos);
	if (idx->tree)
		ct_invalidate(idx->tree, idx->entries[pos]->path);
	untr_invalidate(idx, idx->entries[pos]->path, idx->entries[pos]->path_len);
	return remove_at(idx, pos);
}

int fgit_index_remove_path(struct fgit_index *idx, const char *path)
{
	size_t pos, len = strlen(path);
	int ret, found = 0;

	fgit_index_find_any_stage(&pos, idx, path, len);
	while (pos < idx->nr && idx->entries[pos]->path_len == len &&
	       !memcmp(idx->entries[pos]->path, path, len)) {
		if ((ret = fgit_index_remove_at(idx, pos)) < 0)
			return ret;
		found = 1;
	}
	if (!found)
		return fgit_error_set(FGIT_ENOTFOUND, "'%s' is not in the index", path);
	return 0;
}

/* ---- extension accessors ---- */

int fgit_index_has_cache_tree(const struct fgit_index *idx)
{
	return idx->tree != NULL;
}

void fgit_index_invalidate_path(struct fgit_index *idx, const char *path)
{
	idx->changed = 1;
	if (idx->tree)
		ct_invalidate(idx->tree, path);
}

void fgit_index_cache_tree_clear(struct fgit_index *idx)
{
	idx->changed = 1;
	ct_free(idx->tree);
	idx->tree = NULL;
}

size_t fgit_index_reuc_count(const struct fgit_index *idx)
{
	return idx->reuc.nr;
}

const struct fgit_index_reuc *fgit_index_reuc_get(const struct fgit_index *idx, size_t i)
{
	return i < idx->reuc.nr ? idx->reuc.items[i] : NULL;
}

const struct fgit_index_reuc *fgit_index_reuc_lookup(const struct fgit_index *idx,
						     const char *path)
{
	size_t lo = 0, hi = idx->reuc.nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, idx->reuc.items[mid]->path);
		if (!c)
			return idx->reuc.items[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void fgit_index_reuc_clear(struct fgit_index *idx)
{
	idx->changed = 1;
	reuc_release(&idx->reuc);
}

struct fgit_untr *fgit_index_untracked_cache(const struct fgit_index *idx)
{
	return idx->untr;
}

void fgit_index_untracked_cache_drop(struct fgit_index *idx)
{
	if (!idx->untr)
		return;
	idx->changed = 1;
	fgit_untr_free(idx->untr);
	idx->untr = NULL;
}

int fgit_index_untracked_cache_create(struct fgit_index *idx, const char *ident, uint32_t dir_flags)
{
	struct fgit_untr *u;
	int r = untr_new(&u, ident, dir_flags, idx->algo);
	if (r)
		return r;
	fgit_untr_free(idx->untr);
	idx->untr = u;
	idx->changed = 1;
	return 0;
}


const char *fgit_index_ignored_extension(const struct fgit_index *idx, size_t i)
{
	return i < idx->ignored_nr ? idx->ignored[i] : NULL;
}

int fgit_index_is_changed(const struct fgit_index *idx)
{
	return idx->changed;
}

void fgit_index_mark_changed(struct fgit_index *idx)
{
	idx->changed = 1;
}

int fgit_index_was_split(const struct fgit_index *idx)
{
	return idx->was_split;
}

size_t fgit_index_prefix_end(const struct fgit_index *idx, size_t lo, size_t hi,
			     const char *prefix, size_t plen)
{
	if (hi > idx->nr)
		hi = idx->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fgit_index_entry *e = idx->entries[mid];
		if (e->path_len >= plen && !memcmp(e->path, prefix, plen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
