/*
 * Resolve undo (REUC): the stage 1-3 entries of paths whose conflicts were
 * resolved, so `checkout -m` can recreate the conflict.  Kept sorted by
 * path (git keeps them in a sorted string list); a malformed extension is
 * dropped (git says "Index records invalid resolve-undo information" and
 * goes on).
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "index/index_internal.h"

void reuc_release(struct reuc_list *l)
{
	size_t i;
	for (i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* The item for path, created (zeroed) when missing; NULL on OOM. */
static struct fgit_index_reuc *reuc_get(struct reuc_list *l, const char *path, size_t len)
{
	size_t lo = 0, hi = l->nr;
	struct fgit_index_reuc *r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, l->items[mid]->path);
		if (!c)
			return l->items[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (l->nr == l->alloc) {
		size_t alloc = l->alloc ? 2 * l->alloc : 8;
		struct fgit_index_reuc **n = realloc(l->items, alloc * sizeof(*n));
		if (!n)
			return NULL;
		l->items = n;
		l->alloc = alloc;
	}
	r = calloc(1, sizeof(*r) + len + 1);
	if (!r)
		return NULL;
	memcpy(r->path, path, len);
	memmove(l->items + lo + 1, l->items + lo, (l->nr - lo) * sizeof(*l->items));
	l->items[lo] = r;
	l->nr++;
	return r;
}

int reuc_record(struct reuc_list *l, const struct fgit_index_entry *e)
{
	struct fgit_index_reuc *r;

	if (!e->stage || e->stage > 3)
		return 0;
	r = reuc_get(l, e->path, e->path_len);
	if (!r)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	l->present = 1;
	r->mode[e->stage - 1] = e->mode;
	r->oid[e->stage - 1] = e->oid;
	return 0;
}

int reuc_read(struct reuc_list *l, const unsigned char *p, size_t size, int algo)
{
	size_t rawsz = fgit_hash_rawsz(algo);
	const unsigned char *z;
	int i;

	reuc_release(l);
	while (size) {
		struct fgit_index_reuc *r;
		size_t len;

		z = memchr(p, '\0', size);
		if (!z || (len = z - p + 1) >= size)
			goto bad;
		r = reuc_get(l, (const char *)p, len - 1);
		if (!r)
			goto oom;
		p += len;
		size -= len;
		for (i = 0; i < 3; i++) {
			unsigned long m = 0;
			const unsigned char *q = p;
			z = memchr(p, '\0', size);
			if (!z || z == p)
				goto bad;
			for (; q < z; q++) {
				if (*q < '0' || *q > '7' || m > 0x1fffffff)
					goto bad;
				m = m * 8 + (*q - '0');
			}
			len = z - p + 1;
			if (len >= size)
				goto bad;
			r->mode[i] = (uint32_t)m;
			p += len;
			size -= len;
		}
		for (i = 0; i < 3; i++) {
			if (!r->mode[i])
				continue;
			if (size < rawsz)
				goto bad;
			fgit_oid_from_raw(&r->oid[i], p, algo);
			p += rawsz;
			size -= rawsz;
		}
	}
	l->present = 1;
	return 0;
bad:
	reuc_release(l);
	return 0;
oom:
	reuc_release(l);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

int reuc_write(struct fgit_buf *out, const struct reuc_list *l, int algo)
{
	size_t rawsz = fgit_hash_rawsz(algo), i;
	int s;

	for (i = 0; i < l->nr; i++) {
		const struct fgit_index_reuc *r = l->items[i];
		if (fgit_buf_adds(out, r->path) < 0 || fgit_buf_addch(out, '\0') < 0)
			return FGIT_ENOMEM;
		for (s = 0; s < 3; s++)
			if (fgit_buf_addf(out, "%o", (unsigned)r->mode[s]) < 0 ||
			    fgit_buf_addch(out, '\0') < 0)
				return FGIT_ENOMEM;
		for (s = 0; s < 3; s++)
			if (r->mode[s] && fgit_buf_add(out, r->oid[s].hash, rawsz) < 0)
				return FGIT_ENOMEM;
	}
	return 0;
}
