/*
 * Rename detection (git's diffcore-rename, as `status` and `diff -M` use
 * it): pair deleted paths (sources) with added ones (destinations).
 *
 *   1. Exact: a destination whose blob id equals a source's is a rename
 *      with score 100%, a source with the same basename preferred.  No
 *      content is read.
 *   2. Basenames: a source and a destination whose basename is unique on
 *      both sides are paired when they are at least half-way between the
 *      minimum score and 100% similar (git's default factor, 50%).
 *   3. The rest, unless sources x destinations exceeds limit^2: every
 *      pair is scored, the best four sources kept per destination, and
 *      pairs taken greedily from the best score down, each source once.
 *
 * Similarity is git's estimate: each file is cut into spans ending at a
 * newline or after 64 bytes (a CR before LF does not count in text), each
 * span hashed; the bytes shared by the two multisets of span hashes over
 * the size of the bigger file is the score, so our percentages are git's.
 * Sizes are compared before any content is read: a pair whose sizes differ
 * by more than the score allows is never loaded.
 *
 * Blobs are loaded at most once each and their span lists kept while the
 * matrix is scored (2 x 8 bytes per span).
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/diff.h"
#include "fgit/odb.h"

#define SPAN_BASE 107927u
#define CANDIDATES 4

struct span {
	uint32_t hash;
	uint32_t cnt;
};

struct file {
	const struct fgit_rename_file *f;
	size_t size;
	int have_size;
	struct span *spans;	/* NULL until loaded */
	size_t nspans;
	int loaded;		/* 1 loaded, -1 failed */
	int used;		/* source already paired */
};

struct score {
	int dst, src;		/* dst < 0: empty slot */
	int score;
	int name_score;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Cut buf into spans and hash them; merge equal hashes. */
static int hash_spans(struct file *fl, const unsigned char *buf, size_t sz)
{
	int is_text = !fgit_buffer_is_binary((const char *)buf, sz);
	size_t cap = sz / 16 + 16, n = 0, i, o;
	struct span *v = malloc(cap * sizeof(*v));
	uint32_t a1 = 0, a2 = 0, len = 0;

	if (!v)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < sz; i++) {
		uint32_t c = buf[i], old1 = a1;
		if (is_text && c == '\r' && i + 1 < sz && buf[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old1 >> 25);
		a1 += c;
		if (++len < 64 && c != '\n')
			continue;
emit:
		if (n == cap) {
			struct span *nv;
			cap *= 2;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			}
			v = nv;
		}
		v[n].hash = (a1 + a2 * 0x61u) % SPAN_BASE;
		v[n].cnt = len;
		n++;
		a1 = a2 = len = 0;
		if (i >= sz)
			break;
	}
	if (len) {
		i = sz;
		goto emit;
	}
	qsort(v, n, sizeof(*v), span_cmp);
	for (o = 0, i = 0; i < n; i++) {
		if (o && v[o - 1].hash == v[i].hash)
			v[o - 1].cnt += v[i].cnt;
		else
			v[o++] = v[i];
	}
	fl->spans = v;
	fl->nspans = o;
	return 0;
}

static int get_size(struct file *fl, struct fgit_odb *odb)
{
	struct fgit_object_info info;
	if (fl->have_size)
		return 0;
	if (fgit_odb_read_info(&info, odb, &fl->f->oid, FGIT_INFO_SIZE) < 0)
		return -1;
	fl->size = (size_t)info.size;
	fl->have_size = 1;
	return 0;
}

static int load(struct file *fl, struct fgit_odb *odb)
{
	void *buf;
	size_t sz;
	enum fgit_object_type type;
	int r;

	if (fl->loaded)
		return fl->loaded > 0 ? 0 : -1;
	fl->loaded = -1;
	if (fgit_odb_read(&buf, &sz, &type, odb, &fl->f->oid) < 0)
		return -1;
	r = hash_spans(fl, buf, sz);
	free(buf);
	if (r < 0)
		return r;
	fl->size = sz;
	fl->have_size = 1;
	fl->loaded = 1;
	return 0;
}

static void unload(struct file *fl)
{
	free(fl->spans);
	fl->spans = NULL;
	fl->nspans = 0;
	fl->loaded = 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int basename_same(const struct file *a, const struct file *b)
{
	return !strcmp(base_name(a->f->path), base_name(b->f->path));
}

#define IS_REG(m) (((m) & 0170000) == 0100000)

/* git's estimate_similarity: 0..FGIT_RENAME_MAX_SCORE; negative on ENOMEM. */
static int similarity(struct file *s, struct file *d, int min_score, struct fgit_odb *odb)
{
	size_t max, base, i, j;
	uint64_t copied = 0;
	int r;

	if (!IS_REG(s->f->mode) || !IS_REG(d->f->mode))
		return 0;
	if (get_size(s, odb) || get_size(d, odb))
		return 0;
	max = s->size > d->size ? s->size : d->size;
	base = s->size < d->size ? s->size : d->size;
	if ((uint64_t)max * (FGIT_RENAME_MAX_SCORE - min_score) <
	    (uint64_t)(max - base) * FGIT_RENAME_MAX_SCORE)
		return 0;
	if ((r = load(s, odb)) || (r = load(d, odb)))
		return r == FGIT_ENOMEM ? r : 0;
	if (!d->size)
		return 0;
	for (i = 0, j = 0; i < s->nspans && j < d->nspans;) {
		if (s->spans[i].hash < d->spans[j].hash) {
			i++;
		} else if (s->spans[i].hash > d->spans[j].hash) {
			j++;
		} else {
			copied += s->spans[i].cnt < d->spans[j].cnt ? s->spans[i].cnt : d->spans[j].cnt;
			i++;
			j++;
		}
	}
	return (int)(copied * FGIT_RENAME_MAX_SCORE / max);
}

/* git's ordering: higher score first, then same basename first; empty last. */
static int score_cmp(const struct score *a, const struct score *b)
{
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return b->score - a->score;
}

static void keep_if_better(struct score *m, const struct score *o)
{
	int i, worst = 0;
	for (i = 1; i < CANDIDATES; i++)
		if (score_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (score_cmp(&m[worst], o) > 0)
		m[worst] = *o;
}

/* Stable merge sort of the candidate matrix (git sorts it stably). */
static void sort_scores(struct score *v, struct score *tmp, size_t n)
{
	size_t mid = n / 2, i, j, k;
	if (n < 2)
		return;
	sort_scores(v, tmp, mid);
	sort_scores(v + mid, tmp, n - mid);
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		tmp[k++] = score_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static void pair(struct fgit_rename_result *res, struct file *src, int si, int di, int score)
{
	res[di].src = si;
	res[di].score = score;
	src[si].used = 1;
}

static int cmp_oid_idx(const void *a, const void *b, void *ctx)
{
	const struct file *v = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	int c = fgit_oid_cmp(&v[x].f->oid, &v[y].f->oid);
	return c ? c : (x > y) - (x < y);
}

static int exact_renames(struct fgit_rename_result *res, struct file *src, size_t nsrc,
			 struct file *dst, size_t ndst)
{
	int *order = malloc((nsrc ? nsrc : 1) * sizeof(*order));
	size_t i;

	if (!order)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < nsrc; i++)
		order[i] = (int)i;
	qsort_r(order, nsrc, sizeof(*order), cmp_oid_idx, src);
	for (i = 0; i < ndst; i++) {
		size_t lo = 0, hi = nsrc, k;
		int best = -1, best_score = -1, tries = 100;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (fgit_oid_cmp(&src[order[mid]].f->oid, &dst[i].f->oid) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < nsrc && fgit_oid_equal(&src[order[k]].f->oid, &dst[i].f->oid); k++) {
			struct file *s = &src[order[k]];
			int sc;
			if ((!IS_REG(s->f->mode) || !IS_REG(dst[i].f->mode)) &&
			    s->f->mode != dst[i].f->mode)
				continue;
			if (s->used)
				continue;
			sc = 1 + basename_same(s, &dst[i]);
			if (sc > best_score) {
				best = order[k];
				best_score = sc;
				if (sc == 2)
					break;
			}
			if (!--tries)
				break;
		}
		if (best >= 0)
			pair(res, src, best, (int)i, FGIT_RENAME_MAX_SCORE);
	}
	free(order);
	return 0;
}

static int name_cmp_idx(const void *a, const void *b, void *ctx)
{
	const struct file *v = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(base_name(v[x].f->path), base_name(v[y].f->path));
	return c ? c : (x > y) - (x < y);
}

/* Indices of the unpaired files, sorted by basename. */
static int *by_basename(struct file *v, size_t n, const struct fgit_rename_result *res,
			size_t *out_n)
{
	int *o = malloc((n ? n : 1) * sizeof(*o));
	size_t i, k = 0;
	if (!o)
		return NULL;
	for (i = 0; i < n; i++)
		if (res ? res[i].src < 0 : !v[i].used)
			o[k++] = (int)i;
	qsort_r(o, k, sizeof(*o), name_cmp_idx, v);
	*out_n = k;
	return o;
}

static int basename_renames(struct fgit_rename_result *res, struct file *src, size_t nsrc,
			    struct file *dst, size_t ndst, int min_score, struct fgit_odb *odb)
{
	int minb = min_score + (int)(0.5 * (FGIT_RENAME_MAX_SCORE - min_score));
	size_t ns, nd, i = 0, j = 0;
	int *so = by_basename(src, nsrc, NULL, &ns);
	int *d_o = by_basename(dst, ndst, res, &nd);
	int r = 0;

	if (!so || !d_o) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	while (i < ns && j < nd) {
		const char *a = base_name(src[so[i]].f->path), *b = base_name(dst[d_o[j]].f->path);
		int c = strcmp(a, b);
		size_t i2 = i + 1, j2 = j + 1;
		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		while (i2 < ns && !strcmp(base_name(src[so[i2]].f->path), a))
			i2++;
		while (j2 < nd && !strcmp(base_name(dst[d_o[j2]].f->path), a))
			j2++;
		if (i2 == i + 1 && j2 == j + 1) {
			int sc = similarity(&src[so[i]], &dst[d_o[j]], minb, odb);
			if (sc < 0) {
				r = sc;
				goto out;
			}
			if (sc >= minb)
				pair(res, src, so[i], d_o[j], sc);
		}
		i = i2;
		j = j2;
	}
out:
	free(so);
	free(d_o);
	return r;
}

int fgit_diff_renames(struct fgit_rename_result *res, int *too_many,
		      const struct fgit_rename_file *srcf, size_t nsrc,
		      const struct fgit_rename_file *dstf, size_t ndst,
		      struct fgit_odb *odb, const struct fgit_rename_opts *o)
{
	int min_score = o && o->min_score > 0 ? o->min_score : FGIT_RENAME_MAX_SCORE / 2;
	int limit = o ? o->limit : 1000;
	struct file *src = calloc(nsrc + 1, sizeof(*src)), *dst = calloc(ndst + 1, sizeof(*dst));
	struct score *mx = NULL, *tmp = NULL;
	size_t i, j, nleft_src = 0, nleft_dst = 0, cnt;
	int r = 0;

	if (too_many)
		*too_many = 0;
	if (!src || !dst) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nsrc; i++)
		src[i].f = &srcf[i];
	for (i = 0; i < ndst; i++) {
		dst[i].f = &dstf[i];
		res[i].src = -1;
		res[i].score = 0;
	}
	if (!nsrc || !ndst)
		goto out;
	if ((r = exact_renames(res, src, nsrc, dst, ndst)))
		goto out;
	if ((r = basename_renames(res, src, nsrc, dst, ndst, min_score, odb)))
		goto out;
	for (i = 0; i < nsrc; i++)
		nleft_src += !src[i].used;
	for (i = 0; i < ndst; i++)
		nleft_dst += res[i].src < 0;
	if (!nleft_src || !nleft_dst)
		goto out;
	if (limit > 0 && (uint64_t)nleft_src * nleft_dst > (uint64_t)limit * limit) {
		if (too_many)
			*too_many = (int)(nleft_src > nleft_dst ? nleft_src : nleft_dst);
		goto out;
	}
	mx = malloc(nleft_dst * CANDIDATES * sizeof(*mx));
	tmp = malloc(nleft_dst * CANDIDATES * sizeof(*tmp));
	if (!mx || !tmp) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (cnt = 0, i = 0; i < ndst; i++) {
		struct score *m;
		if (res[i].src >= 0)
			continue;
		m = &mx[cnt * CANDIDATES];
		for (j = 0; j < CANDIDATES; j++)
			m[j].dst = -1;
		for (j = 0; j < nsrc; j++) {
			struct score s;
			if (src[j].used)
				continue;
			s.score = similarity(&src[j], &dst[i], min_score, odb);
			if (s.score < 0) {
				r = s.score;
				goto out;
			}
			s.name_score = basename_same(&src[j], &dst[i]);
			s.dst = (int)i;
			s.src = (int)j;
			keep_if_better(m, &s);
		}
		unload(&dst[i]);
		cnt++;
	}
	sort_scores(mx, tmp, cnt * CANDIDATES);
	for (i = 0; i < cnt * CANDIDATES; i++) {
		if (mx[i].dst < 0 || mx[i].score < min_score)
			break;
		if (res[mx[i].dst].src >= 0 || src[mx[i].src].used)
			continue;
		pair(res, src, mx[i].src, mx[i].dst, mx[i].score);
	}
out:
	if (src)
		for (i = 0; i < nsrc; i++)
			unload(&src[i]);
	if (dst)
		for (i = 0; i < ndst; i++)
			unload(&dst[i]);
	free(src);
	free(dst);
	free(mx);
	free(tmp);
	return r;
}
