/*
 * Myers' linear-space O(ND) diff ("An O(ND) Difference Algorithm and Its
 * Variations", Algorithmica 1986): find the middle snake of the shortest
 * edit script by searching forward and backward at once, then recurse on
 * both halves.  Lines are first interned to integers (hash of the bytes),
 * so the inner loops compare ints; the common prefix and suffix are trimmed
 * before any search, which makes the usual small edit of a big file cost
 * little more than one pass over it.
 *
 * NEEDSWORK: git's xdiff also prunes lines that occur in only one side
 * before the search and caps the cost of pathological inputs; add both when
 * a benchmark shows big rewrites.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/diff.h"

struct line {
	const char *p;
	size_t len;
	uint64_t hash;
};

struct ctx {
	const int *a, *b;	/* interned line ids */
	unsigned char *ca, *cb;	/* changed flags per line */
	ptrdiff_t *vf, *vb;	/* forward and backward V arrays, offset by `off` */
	ptrdiff_t off;
};

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

static size_t split_lines(const char *s, size_t n, struct line **out)
{
	size_t cap = 64, cnt = 0, i = 0;
	struct line *v = malloc(cap * sizeof(*v));

	if (!v)
		return SIZE_MAX;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) + 1 : n;
		if (cnt == cap) {
			struct line *t = realloc(v, (cap *= 2) * sizeof(*v));
			if (!t) {
				free(v);
				return SIZE_MAX;
			}
			v = t;
		}
		v[cnt].p = s + i;
		v[cnt].len = e - i;
		v[cnt].hash = hash_bytes(s + i, e - i);
		cnt++;
		i = e;
	}
	*out = v;
	return cnt;
}

/* Intern lines of both sides to small ints with an open-addressing table. */
static int intern(struct line *la, size_t na, struct line *lb, size_t nb,
		  int **ia, int **ib)
{
	size_t cap = 16, total = na + nb, i, mask;
	struct line **tab;
	int *ids, next = 0;

	while (cap < total * 2)
		cap *= 2;
	mask = cap - 1;
	tab = calloc(cap, sizeof(*tab));
	ids = malloc((total ? total : 1) * sizeof(*ids));
	if (!tab || !ids) {
		free(tab);
		free(ids);
		return FGIT_ENOMEM;
	}
	for (i = 0; i < total; i++) {
		struct line *l = i < na ? &la[i] : &lb[i - na];
		size_t slot = (size_t)l->hash & mask;
		for (;;) {
			struct line *t = tab[slot];
			if (!t) {
				tab[slot] = l;
				l->hash = (uint64_t)next;	/* reuse: the id */
				ids[i] = next++;
				break;
			}
			if (t->len == l->len && !memcmp(t->p, l->p, l->len)) {
				ids[i] = (int)t->hash;
				break;
			}
			slot = (slot + 1) & mask;
		}
		/* after interning, hash holds the id; later probes compare
		 * bytes only, so a changed hash field is harmless */
	}
	free(tab);
	*ia = ids;
	*ib = ids + na;
	return 0;
}

/*
 * Find the middle snake of a[a0..a1) vs b[b0..b1): sets (*xm, *ym) to a
 * point on an optimal path that splits the problem in two.
 */
static void middle_snake(struct ctx *c, ptrdiff_t a0, ptrdiff_t a1, ptrdiff_t b0,
			 ptrdiff_t b1, ptrdiff_t *xm, ptrdiff_t *ym)
{
	ptrdiff_t n = a1 - a0, m = b1 - b0, delta = n - m, d, k;
	ptrdiff_t *vf = c->vf + c->off, *vb = c->vb + c->off;
	int odd = delta & 1;

	vf[1] = 0;
	vb[1] = 0;
	for (d = 0; d <= (n + m + 1) / 2; d++) {
		for (k = -d; k <= d; k += 2) {
			ptrdiff_t x, y;
			if (k == -d || (k != d && vf[k - 1] < vf[k + 1]))
				x = vf[k + 1];
			else
				x = vf[k - 1] + 1;
			y = x - k;
			while (x < n && y < m && c->a[a0 + x] == c->b[b0 + y]) {
				x++;
				y++;
			}
			vf[k] = x;
			if (odd && k - delta >= -(d - 1) && k - delta <= d - 1 &&
			    vf[k] + vb[delta - k] >= n) {
				*xm = a0 + x;
				*ym = b0 + y;
				return;
			}
		}
		for (k = -d; k <= d; k += 2) {
			ptrdiff_t x, y;
			if (k == -d || (k != d && vb[k - 1] < vb[k + 1]))
				x = vb[k + 1];
			else
				x = vb[k - 1] + 1;
			y = x - k;
			while (x < n && y < m &&
			       c->a[a1 - 1 - x] == c->b[b1 - 1 - y]) {
				x++;
				y++;
			}
			vb[k] = x;
			if (!odd && delta - k >= -d && delta - k <= d &&
			    vb[k] + vf[delta - k] >= n) {
				*xm = a1 - x;
				*ym = b1 - y;
				return;
			}
		}
	}
	*xm = a0;	/* not reached for consistent input */
	*ym = b0;
}

static void compare(struct ctx *c, ptrdiff_t a0, ptrdiff_t a1, ptrdiff_t b0, ptrdiff_t b1)
{
	for (;;) {
		ptrdiff_t xm, ym;

		while (a0 < a1 && b0 < b1 && c->a[a0] == c->b[b0]) {
			a0++;
			b0++;
		}
		while (a0 < a1 && b0 < b1 && c->a[a1 - 1] == c->b[b1 - 1]) {
			a1--;
			b1--;
		}
		if (a0 == a1) {
			while (b0 < b1)
				c->cb[b0++] = 1;
			return;
		}
		if (b0 == b1) {
			while (a0 < a1)
				c->ca[a0++] = 1;
			return;
		}
		middle_snake(c, a0, a1, b0, b1, &xm, &ym);
		if ((xm == a0 && ym == b0) || (xm == a1 && ym == b1)) {
			/* degenerate split: cannot happen once both sides are
			 * non-empty and trimmed, but never loop forever */
			while (a0 < a1)
				c->ca[a0++] = 1;
			while (b0 < b1)
				c->cb[b0++] = 1;
			return;
		}
		/* recurse on the smaller half, loop on the other */
		if ((xm - a0) + (ym - b0) < (a1 - xm) + (b1 - ym)) {
			compare(c, a0, xm, b0, ym);
			a0 = xm;
			b0 = ym;
		} else {
			compare(c, xm, a1, ym, b1);
			a1 = xm;
			b1 = ym;
		}
	}
}

int fgit_diff_lines(const char *a, size_t alen, const char *b, size_t blen,
		    int (*cb)(const struct fgit_diff_hunk *h, void *payload),
		    void *payload)
{
	struct line *la = NULL, *lb = NULL;
	size_t na, nb, i, j;
	int *ia = NULL, *ib = NULL, ret = 0;
	struct ctx c = { 0 };

	na = split_lines(a, alen, &la);
	nb = split_lines(b, blen, &lb);
	if (na == SIZE_MAX || nb == SIZE_MAX) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = intern(la, na, lb, nb, &ia, &ib)) < 0) {
		fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	c.a = ia;
	c.b = ib;
	c.ca = calloc(na + 1, 1);
	c.cb = calloc(nb + 1, 1);
	c.off = (ptrdiff_t)(na + nb + 2);
	c.vf = malloc((2 * (na + nb) + 5) * sizeof(ptrdiff_t));
	c.vb = malloc((2 * (na + nb) + 5) * sizeof(ptrdiff_t));
	if (!c.ca || !c.cb || !c.vf || !c.vb) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	compare(&c, 0, (ptrdiff_t)na, 0, (ptrdiff_t)nb);

	/* walk both change vectors together, emitting hunks */
	for (i = 0, j = 0; i < na || j < nb;) {
		struct fgit_diff_hunk h;
		if (i < na && j < nb && !c.ca[i] && !c.cb[j]) {
			i++;
			j++;
			continue;
		}
		h.old_start = i;
		h.new_start = j;
		while (i < na && c.ca[i])
			i++;
		while (j < nb && c.cb[j])
			j++;
		h.old_count = i - h.old_start;
		h.new_count = j - h.new_start;
		if (!h.old_count && !h.new_count) {
			/* unreachable with consistent flags; advance anyway */
			i++;
			j++;
			continue;
		}
		if ((ret = cb(&h, payload)))
			goto out;
	}
out:
	free(la);
	free(lb);
	free(ia);
	free(c.ca);
	free(c.cb);
	free(c.vf);
	free(c.vb);
	return ret;
}

struct counts {
	size_t added, deleted;
};

static int count_cb(const struct fgit_diff_hunk *h, void *payload)
{
	struct counts *c = payload;
	c->added += h->new_count;
	c->deleted += h->old_count;
	return 0;
}

int fgit_diff_count(const char *a, size_t alen, const char *b, size_t blen,
		    size_t *added, size_t *deleted)
{
	struct counts c = { 0, 0 };
	int r = fgit_diff_lines(a, alen, b, blen, count_cb, &c);
	if (r < 0)
		return r;
	*added = c.added;
	*deleted = c.deleted;
	return 0;
}

int fgit_buffer_is_binary(const char *buf, size_t len)
{
	return memchr(buf, 0, len < 8000 ? len : 8000) != NULL;
}
