/*
 * gitignore rules, compiled once, looked up along a directory walk.
 *
 * Seed 004 measured git's status spending a fifth of its time in fnmatch()
 * for excludes.  Most real patterns need no matcher at all: "*.o" is a
 * suffix compare, "build" a length check and memcmp, "/vendor/lib" one
 * memcmp against the path.  Each line is classified once when read (see
 * enum kind) so the lookup loop does the cheap thing first; wildmatch runs
 * only for patterns with a wildcard in the middle.
 *
 * Precedence and matching follow gitignore(5); every rule here is checked
 * against `git check-ignore -v --no-index` in tests/unit/worktree/ignore.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <strings.h>
#include "fgit/common.h"
#include "fgit/ignore.h"
#include "fgit/wildmatch.h"

enum pattern_flags {
	PAT_NEGATIVE = 1 << 0,
	PAT_MUSTBEDIR = 1 << 1,
	PAT_NODIR = 1 << 2,	/* no '/' inside: matched against the basename */
};

enum kind {
	K_LITERAL,	/* basename equals the pattern */
	K_SUFFIX,	/* "*" + literal: basename ends with it */
	K_PREFIX,	/* literal + "*": basename starts with it */
	K_GLOB,		/* wildmatch on the basename */
	K_PATH_LITERAL,	/* anchored, no wildcard: path equals base + pattern */
	K_PATH_GLOB,	/* anchored: literal prefix, then wildmatch */
};

struct plist;

struct fgit_ignore_pattern {
	const char *pat;	/* what is compared (no '!', '/' stripped) */
	size_t len;
	size_t nowild;		/* literal leading part of pat */
	const char *lit;	/* K_SUFFIX: the suffix; others: pat */
	size_t litlen;
	unsigned flags;
	unsigned char kind;
	unsigned lineno;
	const struct plist *list;
	char *display;		/* as check-ignore -v prints it */
	int first, last;	/* K_GLOB: literal first/last byte, or -1 */
};

/* A literal name (or path) of a list: the last pattern index for it. */
struct lit_slot {
	uint64_t hash;
	const char *key;	/* NULL: empty; folded when icase */
	size_t len;
	long any;		/* last such pattern, or -1 */
	long dir;		/* last directory-only one, or -1 */
};

struct lit_table {
	struct lit_slot *slots;	/* NULL when the list has none */
	size_t mask;
	char *keys;		/* folded key copies (icase) */
	uint64_t lens;		/* bit (len % 64) set for each key length */
};

/* Pattern indices bucketed by one byte, ascending in each bucket. */
struct buckets {
	size_t *idx;
	size_t off[257];
};

struct plist {
	char *src;
	char *base;		/* directory of the file with '/', or "" */
	size_t baselen;
	struct fgit_ignore_pattern *pats;
	size_t nr, alloc;
	/* the index, built at the first lookup (index_list) */
	int indexed;
	struct lit_table lit;	/* K_LITERAL by basename */
	struct lit_table plit;	/* K_PATH_LITERAL by path below base */
	struct buckets suf;	/* "*suffix" by its last byte */
	struct buckets pre;	/* basename patterns by literal first byte */
	struct buckets apre;	/* anchored patterns by literal first byte */
	size_t *others;		/* the rest, ascending */
	size_t nothers;
};

static void index_release(struct plist *l);

struct frame {
	size_t dirlen;		/* length of ig->cur for this directory */
	struct plist *list;	/* its per-directory file, or NULL */
	const struct fgit_ignore_pattern *excluded_by;
};

struct fgit_ignore {
	struct fgit_ignore_options opts;
	char *workdir;
	int icase;
	struct plist cmdline;
	struct plist **files;	/* exclude files, lowest precedence first */
	size_t nfiles;
	struct frame *frames;
	size_t depth, frames_alloc;
	struct fgit_buf cur;	/* directory on top of the stack */
	struct plist **retired;	/* popped lists, kept for borrowed patterns */
	size_t nretired, retired_alloc;
	struct fgit_buf scratch;
};

static int grow(void **ptr, size_t *alloc, size_t need, size_t elem)
{
	size_t n;
	void *p;
	if (need <= *alloc)
		return 0;
	n = *alloc ? *alloc : 8;
	while (n < need) {
		if (n > ((size_t)-1) / 2 / elem)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		n *= 2;
	}
	p = realloc(*ptr, n * elem);
	if (!p)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	*ptr = p;
	*alloc = n;
	return 0;
}

static inline int ncmp(const char *a, const char *b, size_t n, int icase)
{
	size_t i;
	if (icase)
		return strncasecmp(a, b, n);
	if (n > 16)
		return memcmp(a, b, n);
	/* most names and suffixes are short: skip the call */
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 1;
	return 0;
}

static int has_wildcard(const char *s, size_t n)
{
	return fgit_wildmatch_literal_prefix(s, n) < n;
}

/* ---- compiling ---------------------------------------------------- */

static void plist_release(struct plist *l)
{
	size_t i;
	for (i = 0; i < l->nr; i++)
		free(l->pats[i].display);
	index_release(l);
	free(l->pats);
	free(l->src);
	free(l->base);
	memset(l, 0, sizeof(*l));
}

static struct plist *plist_new(const char *src, const char *base,
			       size_t baselen)
{
	struct plist *l = calloc(1, sizeof(*l));
	if (!l)
		goto oom;
	l->src = strdup(src ? src : "");
	l->base = malloc(baselen + 1);
	if (!l->src || !l->base)
		goto oom;
	memcpy(l->base, base, baselen);
	l->base[baselen] = '\0';
	l->baselen = baselen;
	return l;
oom:
	if (l) {
		free(l->src);
		free(l->base);
		free(l);
	}
	fgit_error_set(FGIT_ENOMEM, "out of memory");
	return NULL;
}

/* Length of `s` once unescaped trailing spaces are cut (gitignore(5)). */
static size_t trim_trailing_spaces(const char *s, size_t n)
{
	size_t i, end = n, space_start = n;
	for (i = 0; i < n; i++) {
		if (s[i] == ' ') {
			if (space_start == n)
				space_start = i;
			continue;
		}
		if (s[i] == '\\') {
			if (++i >= n)
				return n;	/* trailing backslash: keep all */
		}
		space_start = n;
	}
	if (space_start < end)
		end = space_start;
	return end;
}

/* Compile one line (already trimmed, not a comment) into list `l`. */
static int add_line(struct plist *l, const char *s, size_t n, unsigned lineno)
{
	struct fgit_ignore_pattern *p;
	unsigned flags = 0;
	size_t len, i, dlen;
	int ret;

	/* a pattern added after lookups: rebuild the index later */
	index_release(l);
	if (n && s[0] == '!') {
		flags |= PAT_NEGATIVE;
		s++;
		n--;
	}
	len = n;
	if (len && s[len - 1] == '/') {
		len--;
		flags |= PAT_MUSTBEDIR;
	}
	if (!len)
		return 0;	/* "", "!", "/": can never match a name */
	for (i = 0; i < len && s[i] != '/'; i++)
		;
	if (i == len)
		flags |= PAT_NODIR;

	if ((ret = grow((void **)&l->pats, &l->alloc, l->nr + 1,
			sizeof(*l->pats))))
		return ret;
	p = &l->pats[l->nr];
	memset(p, 0, sizeof(*p));
	/* display: ["!"] pattern ["/"], and the pattern itself lives inside */
	dlen = 1 + len + 1;
	p->display = malloc(dlen + 1);
	if (!p->display)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	i = 0;
	if (flags & PAT_NEGATIVE)
		p->display[i++] = '!';
	memcpy(p->display + i, s, len);
	p->pat = p->display + i;
	i += len;
	if (flags & PAT_MUSTBEDIR)
		p->display[i++] = '/';
	p->display[i] = '\0';
	p->len = len;
	p->flags = flags;
	p->lineno = lineno;
	p->list = l;
	p->first = p->last = -1;

	if (flags & PAT_NODIR) {
		p->nowild = fgit_wildmatch_literal_prefix(p->pat, len);
		p->lit = p->pat;
		p->litlen = len;
		if (p->nowild == len) {
			p->kind = K_LITERAL;
		} else if (p->pat[0] == '*' && !has_wildcard(p->pat + 1, len - 1)) {
			p->kind = K_SUFFIX;
			p->lit = p->pat + 1;
			p->litlen = len - 1;
		} else if (p->nowild == len - 1 && p->pat[len - 1] == '*') {
			p->kind = K_PREFIX;
			p->litlen = len - 1;
		} else {
			unsigned char c0 = p->pat[0], cl = p->pat[len - 1];
			p->kind = K_GLOB;
			/* literal ends let most names be refused without
			 * wildmatch (a set ends in ']', an escape in '\\') */
			p->first = strchr("*?[\\", c0) ? -1 : c0;
			p->last = strchr("*?[]\\", cl) ? -1 : cl;
			if (len >= 2 && p->pat[len - 2] == '\\')
				p->last = -1;	/* "\\x": keep it simple */
		}
	} else {
		/* anchored to the list's directory; a leading '/' only says so */
		const char *q = p->pat;
		size_t qlen = len;
		if (q[0] == '/') {
			q++;
			qlen--;
		}
		p->lit = q;
		p->litlen = qlen;
		p->nowild = fgit_wildmatch_literal_prefix(q, qlen);
		p->kind = p->nowild == qlen ? K_PATH_LITERAL : K_PATH_GLOB;
	}
	l->nr++;
	return 0;
}

static int parse_buffer(struct plist *l, const char *buf, size_t len)
{
	size_t pos = 0;
	unsigned lineno = 1;
	int ret;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		pos += n + (nl ? 1 : 0);
		if (n && line[n - 1] == '\r')
			n--;
		if (n && line[0] != '#') {
			n = trim_trailing_spaces(line, n);
			if ((ret = add_line(l, line, n, lineno)))
				return ret;
		}
		lineno++;
	}
	return 0;
}

/* ---- the per-list index ------------------------------------------ */

static inline unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static inline size_t bucket(char c, int icase)
{
	return icase ? fold((unsigned char)c) : (unsigned char)c;
}

static uint64_t hash_name(const char *s, size_t n, int icase)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	if (icase) {
		for (i = 0; i < n; i++)
			h = (h ^ fold(s[i])) * 0x100000001b3ULL;
	} else {
		for (i = 0; i < n; i++)
			h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	}
	return h;
}

enum pclass { C_LIT, C_PLIT, C_SUF, C_PRE, C_APRE, C_OTHER };

/* Where a pattern is filed in the index (and its bucket byte). */
static enum pclass classify(const struct fgit_ignore_pattern *p, size_t *b,
			    int icase)
{
	switch (p->kind) {
	case K_LITERAL:
		return C_LIT;
	case K_PATH_LITERAL:
		return C_PLIT;
	case K_SUFFIX:
		if (!p->litlen)
			return C_OTHER;		/* "*": matches everything */
		*b = bucket(p->lit[p->litlen - 1], icase);
		return C_SUF;
	case K_PREFIX:
		*b = bucket(p->lit[0], icase);
		return C_PRE;
	case K_GLOB:
		if (p->first < 0)
			return C_OTHER;
		*b = bucket((char)p->first, icase);
		return C_PRE;
	case K_PATH_GLOB:
		if (!p->nowild)
			return C_OTHER;
		*b = bucket(p->lit[0], icase);
		return C_APRE;
	}
	return C_OTHER;
}

static void table_release(struct lit_table *t)
{
	free(t->slots);
	free(t->keys);
	t->slots = NULL;
	t->keys = NULL;
	t->lens = 0;
}

static void index_release(struct plist *l)
{
	table_release(&l->lit);
	table_release(&l->plit);
	free(l->suf.idx);
	free(l->pre.idx);
	free(l->apre.idx);
	free(l->others);
	l->suf.idx = l->pre.idx = l->apre.idx = l->others = NULL;
	l->nothers = 0;
	l->indexed = 0;
}

/* Fill a table with the patterns of class `c`, keyed by their literal. */
static int table_build(struct lit_table *t, const struct plist *l,
		       enum pclass c, int icase)
{
	size_t i, n = 0, bytes = 0, cap = 8, koff = 0;
	size_t dummy;

	for (i = 0; i < l->nr; i++)
		if (classify(&l->pats[i], &dummy, icase) == c) {
			n++;
			bytes += l->pats[i].litlen;
		}
	if (!n)
		return 0;
	while (cap < n * 2)
		cap *= 2;
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots || (icase && !(t->keys = malloc(bytes + 1))))
		return -1;
	t->mask = cap - 1;
	for (i = 0; i < l->nr; i++) {
		const struct fgit_ignore_pattern *p = &l->pats[i];
		const char *key = p->lit;
		uint64_t h;
		size_t j;

		if (classify(p, &dummy, icase) != c)
			continue;
		if (icase) {
			for (j = 0; j < p->litlen; j++)
				t->keys[koff + j] = fold(p->lit[j]);
			key = t->keys + koff;
			koff += p->litlen;
		}
		h = hash_name(key, p->litlen, 0);
		t->lens |= 1ULL << (p->litlen & 63);
		for (j = h & t->mask;; j = (j + 1) & t->mask) {
			struct lit_slot *sl = &t->slots[j];
			if (!sl->key) {
				sl->key = key;
				sl->len = p->litlen;
				sl->hash = h;
				sl->any = sl->dir = -1;
			} else if (sl->hash != h || sl->len != p->litlen ||
				   memcmp(sl->key, key, p->litlen)) {
				continue;
			}
			if (p->flags & PAT_MUSTBEDIR)
				sl->dir = (long)i;
			else
				sl->any = (long)i;
			break;
		}
	}
	return 0;
}

/* Counting sort of the patterns of class `c` into 256 buckets. */
static int buckets_build(struct buckets *bk, const struct plist *l,
			 enum pclass c, int icase)
{
	size_t i, b, fill[256];

	memset(bk->off, 0, sizeof(bk->off));
	bk->idx = malloc((l->nr + 1) * sizeof(*bk->idx));
	if (!bk->idx)
		return -1;
	for (i = 0; i < l->nr; i++)
		if (classify(&l->pats[i], &b, icase) == c)
			bk->off[b + 1]++;
	for (i = 0; i < 256; i++)
		bk->off[i + 1] += bk->off[i];
	memcpy(fill, bk->off, sizeof(fill));
	for (i = 0; i < l->nr; i++)
		if (classify(&l->pats[i], &b, icase) == c)
			bk->idx[fill[b]++] = i;
	return 0;
}

/*
 * File every pattern of the list where a lookup finds it without looking
 * at the others: literal names and paths in hash tables, suffixes by
 * their last byte, patterns with a literal start by their first byte.  A
 * lookup takes the highest matching index over the places it probes,
 * which is the "last line wins" of a plain scan.
 */
static int index_list(struct plist *l, int icase)
{
	size_t i, b;

	l->indexed = 1;
	if (table_build(&l->lit, l, C_LIT, icase) ||
	    table_build(&l->plit, l, C_PLIT, icase) ||
	    buckets_build(&l->suf, l, C_SUF, icase) ||
	    buckets_build(&l->pre, l, C_PRE, icase) ||
	    buckets_build(&l->apre, l, C_APRE, icase) ||
	    !(l->others = malloc((l->nr + 1) * sizeof(*l->others)))) {
		index_release(l);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	for (i = 0; i < l->nr; i++)
		if (classify(&l->pats[i], &b, icase) == C_OTHER)
			l->others[l->nothers++] = i;
	return 0;
}

/* ---- matching ----------------------------------------------------- */

struct query {
	const char *path;
	size_t len;
	const char *base;	/* basename */
	size_t baselen;
	enum fgit_ignore_dtype dtype;
	struct fgit_ignore *ig;
};

static int is_dir(struct query *q)
{
	if (q->dtype == FGIT_IGNORE_DT_UNKNOWN) {
		struct fgit_ignore *ig = q->ig;
		q->dtype = FGIT_IGNORE_DT_FILE;
		if (ig->opts.resolve_dtype) {
			/* the callback wants a NUL-terminated path */
			fgit_buf_set(&ig->scratch, q->path, q->len);
			q->dtype = ig->opts.resolve_dtype(ig->scratch.ptr,
							 ig->opts.payload);
			if (q->dtype == FGIT_IGNORE_DT_UNKNOWN)
				q->dtype = FGIT_IGNORE_DT_FILE;
		}
	}
	return q->dtype == FGIT_IGNORE_DT_DIR;
}

static int match_one(const struct fgit_ignore_pattern *p,
		     const struct plist *l, struct query *q, int icase)
{
	const unsigned wmflags = icase ? FGIT_WM_CASEFOLD : 0;
	const char *name;
	size_t namelen;

	switch (p->kind) {
	case K_LITERAL:
		return q->baselen == p->litlen &&
		       !ncmp(q->base, p->lit, p->litlen, icase);
	case K_SUFFIX:
		return q->baselen >= p->litlen &&
		       !ncmp(q->base + q->baselen - p->litlen, p->lit,
			     p->litlen, icase);
	case K_PREFIX:
		return q->baselen >= p->litlen &&
		       !ncmp(q->base, p->lit, p->litlen, icase);
	case K_GLOB:
		if (p->first >= 0 &&
		    (!q->baselen || (icase ? fold(q->base[0]) != fold(p->first)
					  : (unsigned char)q->base[0] != p->first)))
			return 0;
		if (p->last >= 0 &&
		    (!q->baselen ||
		     (icase ? fold(q->base[q->baselen - 1]) != fold(p->last)
			    : (unsigned char)q->base[q->baselen - 1] != p->last)))
			return 0;
		return fgit_wildmatch_mem(p->pat, p->len, q->base, q->baselen,
					  wmflags);
	}

	/* anchored: the path must lie below the list's directory */
	if (q->len < l->baselen + 1 || ncmp(q->path, l->base, l->baselen, icase))
		return 0;
	name = q->path + l->baselen;
	namelen = q->len - l->baselen;
	if (p->kind == K_PATH_LITERAL)
		return namelen == p->litlen && !ncmp(name, p->lit, namelen, icase);
	if (p->nowild > namelen || ncmp(name, p->lit, p->nowild, icase))
		return 0;
	return fgit_wildmatch_mem(p->lit + p->nowild, p->litlen - p->nowild,
				  name + p->nowild, namelen - p->nowild,
				  wmflags | FGIT_WM_PATHNAME);
}

/* The highest index in idx[0..n) above `best` that matches, else best. */
static long scan_desc(const struct plist *l, const size_t *idx, size_t n,
		      long best, struct query *q, int icase)
{
	while (n-- > 0) {
		const struct fgit_ignore_pattern *p = &l->pats[idx[n]];
		if ((long)idx[n] <= best)
			break;
		if ((p->flags & PAT_MUSTBEDIR) && !is_dir(q))
			continue;
		if (match_one(p, l, q, icase))
			return (long)idx[n];
	}
	return best;
}

/* The last pattern of `l` matching the query, or NULL. */
/* The best index for `key` in table t (folded compare when icase). */
static long table_probe(const struct lit_table *t, const char *key,
			size_t len, struct query *q, int icase)
{
	uint64_t h;
	size_t i, k;

	/* most names have a length no key has: no hashing then */
	if (!t->slots || !(t->lens & (1ULL << (len & 63))))
		return -1;
	h = hash_name(key, len, icase);
	for (i = h & t->mask;; i = (i + 1) & t->mask) {
		const struct lit_slot *sl = &t->slots[i];
		long best;
		if (!sl->key)
			return -1;
		if (sl->hash != h || sl->len != len)
			continue;
		for (k = 0; k < len; k++)
			if ((icase ? fold(key[k]) : (unsigned char)key[k]) !=
			    (unsigned char)sl->key[k])
				break;
		if (k < len)
			continue;
		best = sl->any;
		if (sl->dir > best && is_dir(q))
			best = sl->dir;
		return best;
	}
}

static long max_l(long a, long b)
{
	return a > b ? a : b;
}

static const struct fgit_ignore_pattern *match_list(struct plist *l,
						    struct query *q, int icase)
{
	long best;
	size_t i, b;
	int below;

	if (!l || !l->nr)
		return NULL;
	if (!l->indexed && index_list(l, icase))
		fgit_error_clear();	/* no memory for the index: scan all */
	if (!l->others) {
		for (i = l->nr; i-- > 0;) {
			const struct fgit_ignore_pattern *p = &l->pats[i];
			if ((p->flags & PAT_MUSTBEDIR) && !is_dir(q))
				continue;
			if (match_one(p, l, q, icase))
				return p;
		}
		return NULL;
	}
	best = table_probe(&l->lit, q->base, q->baselen, q, icase);
	below = q->len > l->baselen &&
		!ncmp(q->path, l->base, l->baselen, icase);
	if (below)
		best = max_l(best, table_probe(&l->plit, q->path + l->baselen,
					       q->len - l->baselen, q, icase));
	if (q->baselen) {
		b = bucket(q->base[q->baselen - 1], icase);
		best = scan_desc(l, l->suf.idx + l->suf.off[b],
				 l->suf.off[b + 1] - l->suf.off[b], best, q, icase);
		b = bucket(q->base[0], icase);
		best = scan_desc(l, l->pre.idx + l->pre.off[b],
				 l->pre.off[b + 1] - l->pre.off[b], best, q, icase);
	}
	if (below) {
		b = bucket(q->path[l->baselen], icase);
		best = scan_desc(l, l->apre.idx + l->apre.off[b],
				 l->apre.off[b + 1] - l->apre.off[b], best, q,
				 icase);
	}
	best = scan_desc(l, l->others, l->nothers, best, q, icase);
	return best >= 0 ? &l->pats[best] : NULL;
}

static const struct fgit_ignore_pattern *match_all(struct fgit_ignore *ig,
						   const char *path,
						   size_t len,
						   enum fgit_ignore_dtype dtype)
{
	const struct fgit_ignore_pattern *p;
	struct query q;
	const char *slash;
	size_t i;

	q.path = path;
	q.len = len;
	slash = len ? memrchr(path, '/', len) : NULL;
	q.base = slash ? slash + 1 : path;
	q.baselen = len - (q.base - path);
	q.dtype = dtype;
	q.ig = ig;

	if ((p = match_list(&ig->cmdline, &q, ig->icase)))
		return p;
	for (i = ig->depth; i-- > 0;)
		if ((p = match_list(ig->frames[i].list, &q, ig->icase)))
			return p;
	for (i = ig->nfiles; i-- > 0;)
		if ((p = match_list(ig->files[i], &q, ig->icase)))
			return p;
	return NULL;
}

/* ---- public API --------------------------------------------------- */

int fgit_ignore_new(struct fgit_ignore **out,
		    const struct fgit_ignore_options *opts)
{
	struct fgit_ignore *ig = calloc(1, sizeof(*ig));
	static const struct fgit_ignore_options defaults =
		FGIT_IGNORE_OPTIONS_INIT;

	if (!ig)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (!opts)
		opts = &defaults;
	if (opts->version != FGIT_IGNORE_OPTIONS_VERSION) {
		free(ig);
		return fgit_error_set(FGIT_EINVALID,
				      "fgit_ignore_options: unknown version %u",
				      opts->version);
	}
	ig->opts = *opts;
	ig->icase = !!(opts->flags & FGIT_IGNORE_ICASE);
	fgit_buf_init(&ig->cur, 0);
	fgit_buf_init(&ig->scratch, 0);
	ig->cmdline.src = strdup("");
	ig->cmdline.base = strdup("");
	if (!ig->cmdline.src || !ig->cmdline.base)
		goto oom;
	if (opts->per_dir_name &&
	    !(ig->opts.per_dir_name = strdup(opts->per_dir_name)))
		goto oom;
	if (opts->workdir && !(ig->workdir = strdup(opts->workdir)))
		goto oom;
	ig->opts.workdir = ig->workdir;
	*out = ig;
	return 0;
oom:
	fgit_ignore_free(ig);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

void fgit_ignore_free(struct fgit_ignore *ig)
{
	size_t i;
	if (!ig)
		return;
	while (ig->depth)
		fgit_ignore_pop_dir(ig);
	for (i = 0; i < ig->nretired; i++) {
		plist_release(ig->retired[i]);
		free(ig->retired[i]);
	}
	free(ig->retired);
	for (i = 0; i < ig->nfiles; i++) {
		plist_release(ig->files[i]);
		free(ig->files[i]);
	}
	free(ig->files);
	/* command-line patterns each carry their own source string */
	for (i = 0; i < ig->cmdline.nr; i++) {
		struct plist *own = (struct plist *)ig->cmdline.pats[i].list;
		plist_release(own);
		free(own);
	}
	plist_release(&ig->cmdline);
	free(ig->frames);
	free((char *)ig->opts.per_dir_name);
	free(ig->workdir);
	fgit_buf_release(&ig->cur);
	fgit_buf_release(&ig->scratch);
	free(ig);
}

int fgit_ignore_add_pattern(struct fgit_ignore *ig, const char *pattern,
			    const char *src)
{
	/*
	 * Each command-line pattern may name its own source, so it points at
	 * a private one-pattern "list" header holding only src and an empty
	 * base; matching uses ig->cmdline's (empty) base.
	 */
	struct plist *own;
	size_t n = strlen(pattern), before = ig->cmdline.nr;
	int ret;

	if ((ret = add_line(&ig->cmdline, pattern, n, (unsigned)before + 1)))
		return ret;
	if (ig->cmdline.nr == before)
		return 0;
	own = plist_new(src, "", 0);
	if (!own) {
		free(ig->cmdline.pats[--ig->cmdline.nr].display);
		return FGIT_ENOMEM;
	}
	ig->cmdline.pats[before].list = own;
	return 0;
}

int fgit_ignore_add_buffer(struct fgit_ignore *ig, const char *buf,
			   size_t len, const char *src)
{
	struct plist *l;
	int ret;

	l = plist_new(src, "", 0);
	if (!l)
		return FGIT_ENOMEM;
	if ((ret = parse_buffer(l, buf, len))) {
		plist_release(l);
		free(l);
		return ret;
	}
	{
		struct plist **v = realloc(ig->files,
					   (ig->nfiles + 1) * sizeof(*v));
		if (!v) {
			plist_release(l);
			free(l);
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		ig->files = v;
		ig->files[ig->nfiles++] = l;
	}
	return 0;
}

int fgit_ignore_add_file(struct fgit_ignore *ig, const char *path,
			 const char *src)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int ret = fgit_buf_read_file(&b, path);
	if (ret < 0) {
		if (ret == FGIT_ENOTFOUND || errno == ENOTDIR) {
			fgit_error_clear();
			ret = 0;
		}
		goto out;
	}
	ret = fgit_ignore_add_buffer(ig, b.ptr, b.len, src ? src : path);
out:
	fgit_buf_release(&b);
	return ret;
}

static int read_per_dir(struct fgit_ignore *ig, struct fgit_buf *out,
			const char *rel)
{
	int ret;
	if (ig->opts.read_file) {
		ret = ig->opts.read_file(out, rel, ig->opts.payload);
		if (ret == FGIT_ENOTFOUND) {
			fgit_error_clear();
			return 1;
		}
		return ret;
	}
	if (!ig->workdir)
		return 1;
	fgit_buf_reset(&ig->scratch);
	if ((ret = fgit_buf_addf(&ig->scratch, "%s/%s", ig->workdir, rel)))
		return ret;
	ret = fgit_buf_read_file(out, ig->scratch.ptr);
	if (ret < 0 && (ret == FGIT_ENOTFOUND || errno == ENOTDIR)) {
		fgit_error_clear();
		return 1;
	}
	return ret;
}

int fgit_ignore_push_dir(struct fgit_ignore *ig, const char *dir, size_t len)
{
	return fgit_ignore_push_dir_ex(ig, dir, len, 0);
}

const char *fgit_ignore_per_dir_name(const struct fgit_ignore *ig)
{
	return ig->opts.per_dir_name;
}

int fgit_ignore_push_dir_ex(struct fgit_ignore *ig, const char *dir, size_t len,
			    unsigned flags)
{
	struct frame *f;
	struct fgit_buf file = FGIT_BUF_INIT, rel = FGIT_BUF_INIT;
	size_t oldlen = ig->cur.len;
	int ret;

	if (ig->depth == 0) {
		if (len)
			return fgit_error_set(FGIT_EINVALID,
					      "ignore: the top must be pushed first");
	} else {
		size_t plen = ig->cur.len;
		const char *child = dir + (plen ? plen + 1 : 0);
		if (len <= plen + (plen ? 1 : 0) ||
		    memcmp(dir, ig->cur.ptr, plen) || (plen && dir[plen] != '/') ||
		    memchr(child, '/', len - (child - dir)))
			return fgit_error_set(FGIT_EINVALID,
					      "ignore: '%.*s' is not a child of '%s'",
					      (int)len, dir, ig->cur.ptr);
	}
	if ((ret = grow((void **)&ig->frames, &ig->frames_alloc, ig->depth + 1,
			sizeof(*ig->frames))))
		return ret;
	f = &ig->frames[ig->depth];
	f->list = NULL;
	f->excluded_by = ig->depth ? ig->frames[ig->depth - 1].excluded_by : NULL;
	if (!f->excluded_by && ig->depth) {
		const struct fgit_ignore_pattern *p =
			match_all(ig, dir, len, FGIT_IGNORE_DT_DIR);
		if (p && !(p->flags & PAT_NEGATIVE))
			f->excluded_by = p;
	}
	if ((ret = fgit_buf_set(&ig->cur, dir, len)))
		goto out;
	if (!f->excluded_by && ig->opts.per_dir_name && !(flags & FGIT_IGNORE_PUSH_NO_FILE)) {
		if (len)
			ret = fgit_buf_addf(&rel, "%.*s/%s", (int)len, dir,
					    ig->opts.per_dir_name);
		else
			ret = fgit_buf_adds(&rel, ig->opts.per_dir_name);
		if (ret)
			goto out;
		ret = read_per_dir(ig, &file, rel.ptr);
		if (ret < 0)
			goto out;
		if (ret == 0) {
			struct fgit_buf base = FGIT_BUF_INIT;
			if (len)
				ret = fgit_buf_addf(&base, "%.*s/", (int)len, dir);
			if (!ret) {
				f->list = plist_new(rel.ptr, base.ptr, base.len);
				ret = f->list ? 0 : FGIT_ENOMEM;
			}
			fgit_buf_release(&base);
			if (!ret && (ret = parse_buffer(f->list, file.ptr,
							 file.len))) {
				plist_release(f->list);
				free(f->list);
				f->list = NULL;
			}
			if (ret)
				goto out;
		}
		ret = 0;
	}
	f->dirlen = len;
	ig->depth++;
out:
	if (ret < 0)
		fgit_buf_setlen(&ig->cur, oldlen);
	fgit_buf_release(&file);
	fgit_buf_release(&rel);
	return ret;
}

void fgit_ignore_pop_dir(struct fgit_ignore *ig)
{
	struct frame *f;
	if (!ig->depth)
		return;
	f = &ig->frames[--ig->depth];
	if (f->list) {
		/* patterns may have been handed out: retire, free at the end */
		if (grow((void **)&ig->retired, &ig->retired_alloc,
			 ig->nretired + 1, sizeof(*ig->retired))) {
			/* cannot keep it; leak rather than dangle */
			fgit_error_clear();
		} else {
			ig->retired[ig->nretired++] = f->list;
		}
		f->list = NULL;
	}
	fgit_buf_setlen(&ig->cur, ig->depth ? ig->frames[ig->depth - 1].dirlen : 0);
}

size_t fgit_ignore_depth(const struct fgit_ignore *ig)
{
	return ig->depth;
}

int fgit_ignore_lookup(const struct fgit_ignore_pattern **out,
		       struct fgit_ignore *ig, const char *path, size_t len,
		       enum fgit_ignore_dtype dtype)
{
	const struct fgit_ignore_pattern *p;

	if (ig->depth && ig->frames[ig->depth - 1].excluded_by)
		p = ig->frames[ig->depth - 1].excluded_by;
	else
		p = match_all(ig, path, len, dtype);
	if (out)
		*out = p;
	return p && !(p->flags & PAT_NEGATIVE);
}

int fgit_ignore_check_path(const struct fgit_ignore_pattern **out,
			   struct fgit_ignore *ig, const char *path,
			   enum fgit_ignore_dtype dtype)
{
	size_t len = strlen(path);
	const char *slash = len ? memrchr(path, '/', len) : NULL;
	size_t plen = slash ? (size_t)(slash - path) : 0;
	int ret;

	/* pop to the deepest directory on the stack that contains path */
	while (ig->depth > 1) {
		size_t d = ig->cur.len;
		if (d <= plen && !memcmp(ig->cur.ptr, path, d) &&
		    (d == plen || path[d] == '/'))
			break;
		fgit_ignore_pop_dir(ig);
	}
	if (!ig->depth && (ret = fgit_ignore_push_dir(ig, "", 0)))
		return ret;
	while (ig->cur.len < plen) {
		size_t start = ig->cur.len ? ig->cur.len + 1 : 0;
		const char *next = memchr(path + start, '/', plen - start);
		size_t end = next ? (size_t)(next - path) : plen;
		if ((ret = fgit_ignore_push_dir(ig, path, end)))
			return ret;
	}
	return fgit_ignore_lookup(out, ig, path, len, dtype);
}

const char *fgit_ignore_pattern_text(const struct fgit_ignore_pattern *p)
{
	return p->display;
}

const char *fgit_ignore_pattern_source(const struct fgit_ignore_pattern *p)
{
	return p->list->src;
}

unsigned fgit_ignore_pattern_lineno(const struct fgit_ignore_pattern *p)
{
	return p->lineno;
}

int fgit_ignore_pattern_negated(const struct fgit_ignore_pattern *p)
{
	return !!(p->flags & PAT_NEGATIVE);
}
