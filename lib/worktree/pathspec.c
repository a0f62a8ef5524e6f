/*
 * Pathspecs: parsing git's magic, normalising against the prefix, and
 * matching in time that does not grow with the number of literal elements.
 *
 * Seed 002: `git ls-files | xargs git grep` was 25x slower than one grep,
 * 90% of it in pathspec matching, because every path was compared with
 * every element.  Here the literal elements (the common case for scripted
 * callers) live in an open-addressing hash table keyed by the path they
 * name; a path is hashed once, left to right, and looked up at each '/'
 * and at its end: one probe per component, whatever the number of
 * elements.  A second table holds the leading directories of the literal
 * elements so a walk can ask "could anything below this directory match?"
 * in O(depth).  Wildcard, icase and exclude elements are few in practice
 * and are tried one by one, literal prefix first.
 *
 * Matching rules follow git 2.39 (checked against `git ls-files --
 * <pathspec>` in tests/unit/worktree/pathspec.c): an element matches the
 * path it names, everything below it, and (with wildcards) whatever its
 * pattern matches after its literal leading part.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/pathspec.h"
#include "fgit/wildmatch.h"

struct item {
	char *original;
	char *match;
	size_t len;
	size_t nowild;		/* literal leading part of match */
	size_t prefix;		/* leading part from the cwd, compared exactly */
	unsigned magic;
};

struct slot {
	uint64_t hash;
	const char *key;	/* NULL: empty slot */
	size_t keylen;
	int exact_ok;		/* some element names exactly this path */
	int dir_ok;		/* some element is "key/" */
	size_t first;		/* first element index (literal table) */
};

struct table {
	struct slot *slots;
	size_t mask;		/* capacity - 1; capacity a power of two */
	size_t nr;
};

struct fgit_pathspec {
	struct item *items;
	size_t nr;
	size_t *next_same;	/* chain of elements sharing a literal key */
	struct table lit;	/* literal positive elements */
	struct table dirs;	/* leading directories of those */
	int match_all;		/* a positive element matches everything */
	size_t *slow;		/* positive elements tried one by one */
	size_t nslow;
	size_t *excl;
	size_t nexcl;
};

#define FNV_INIT 0xcbf29ce484222325ULL
static inline uint64_t fnv_step(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ULL;
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = FNV_INIT;
	while (n--)
		h = fnv_step(h, (unsigned char)*s++);
	return h;
}

static int ncmp(const char *a, const char *b, size_t n, int icase)
{
	return icase ? strncasecmp(a, b, n) : memcmp(a, b, n);
}

/* ---- hash tables -------------------------------------------------- */

static int table_init(struct table *t, size_t want)
{
	size_t cap = 16;
	while (cap < want * 2) {
		if (cap > ((size_t)-1) / 4 / sizeof(struct slot))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		cap *= 2;
	}
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	t->mask = cap - 1;
	t->nr = 0;
	return 0;
}

static struct slot *table_find(const struct table *t, uint64_t h,
			       const char *key, size_t len)
{
	size_t i;
	if (!t->slots)
		return NULL;
	for (i = h & t->mask;; i = (i + 1) & t->mask) {
		struct slot *s = &t->slots[i];
		if (!s->key)
			return NULL;
		if (s->hash == h && s->keylen == len && !memcmp(s->key, key, len))
			return s;
	}
}

/* Find or insert; the table was sized for every insertion up front. */
static struct slot *table_add(struct table *t, uint64_t h, const char *key,
			      size_t len, int *fresh)
{
	size_t i;
	for (i = h & t->mask;; i = (i + 1) & t->mask) {
		struct slot *s = &t->slots[i];
		if (!s->key) {
			s->key = key;
			s->keylen = len;
			s->hash = h;
			t->nr++;
			*fresh = 1;
			return s;
		}
		if (s->hash == h && s->keylen == len && !memcmp(s->key, key, len)) {
			*fresh = 0;
			return s;
		}
	}
}

/* ---- parsing ------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned bit;
} magic_words[] = {
	{ "top", FGIT_PATHSPEC_TOP },
	{ "literal", FGIT_PATHSPEC_LITERAL },
	{ "glob", FGIT_PATHSPEC_GLOB },
	{ "icase", FGIT_PATHSPEC_ICASE },
	{ "exclude", FGIT_PATHSPEC_EXCLUDE },
};

/* Bytes that end the short form's run of magic characters. */
static int ends_short_magic(unsigned char c)
{
	return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || strchr(" $()*+.?[\\]{|}", c);
}

/* Parse the magic of `elt`; *rest receives the pattern after it. */
static int parse_magic(const char *elt, unsigned *magic, const char **rest)
{
	const char *p;

	*magic = 0;
	*rest = elt;
	if (elt[0] != ':')
		return 0;
	if (elt[1] == '(') {
		const char *end = strchr(elt + 2, ')');
		if (!end)
			return fgit_error_set(FGIT_EINVALID,
					      "Missing ')' at the end of pathspec magic in '%s'",
					      elt);
		for (p = elt + 2; p < end;) {
			const char *comma = memchr(p, ',', end - p);
			size_t n = (comma ? comma : end) - p, i;
			int found = 0;
			if (n >= 5 && !strncmp(p, "attr:", 5))
				return fgit_error_set(FGIT_ENOTSUPP,
						      "pathspec magic 'attr' is not supported yet in '%s'",
						      elt);
			if (n >= 7 && !strncmp(p, "prefix:", 7))
				return fgit_error_set(FGIT_ENOTSUPP,
						      "pathspec magic 'prefix' is internal to git: '%s'",
						      elt);
			for (i = 0; n && i < sizeof(magic_words) / sizeof(magic_words[0]); i++) {
				if (strlen(magic_words[i].name) == n &&
				    !strncmp(magic_words[i].name, p, n)) {
					*magic |= magic_words[i].bit;
					found = 1;
				}
			}
			if (n && !found)
				return fgit_error_set(FGIT_EINVALID,
						      "Invalid pathspec magic '%.*s' in '%s'",
						      (int)n, p, elt);
			p += n + (comma ? 1 : 0);
		}
		*rest = end + 1;
		return 0;
	}
	for (p = elt + 1; *p && *p != ':'; p++) {
		unsigned char c = *p;
		if (c == '/')
			*magic |= FGIT_PATHSPEC_TOP;
		else if (c == '!' || c == '^')
			*magic |= FGIT_PATHSPEC_EXCLUDE;
		else if (ends_short_magic(c))
			break;
		else
			return fgit_error_set(FGIT_EINVALID,
					      "Unimplemented pathspec magic '%c' in '%s'",
					      c, elt);
	}
	if (*p == ':')
		p++;
	*rest = p;
	return 0;
}

int fgit_path_normalize(struct fgit_buf *out, const char *prefix, const char *path,
			const char *worktree)
{
	const char *src[2], *rest = path;
	size_t srclen[2], k, restlen = strlen(path), plen = prefix ? strlen(prefix) : 0;
	int keep_slash, ret;

	fgit_buf_reset(out);
	if (rest[0] == '/') {
		size_t wl = worktree ? strlen(worktree) : 0;
		while (wl > 1 && worktree[wl - 1] == '/')
			wl--;
		if (!worktree || strncmp(rest, worktree, wl) ||
		    (rest[wl] && rest[wl] != '/'))
			goto outside;
		rest += wl;
		restlen -= wl;
		plen = 0;	/* absolute: the prefix does not apply */
	}
	keep_slash = !restlen || rest[restlen - 1] == '/' ||
		     (restlen == 1 && rest[0] == '.') ||
		     (restlen >= 2 && rest[restlen - 1] == '.' &&
		      (rest[restlen - 2] == '/' ||
		       (rest[restlen - 2] == '.' &&
			(restlen == 2 || rest[restlen - 3] == '/'))));
	src[0] = prefix;
	srclen[0] = plen;
	src[1] = rest;
	srclen[1] = restlen;
	for (k = 0; k < 2; k++) {
		const char *s = src[k], *e = s + srclen[k];
		while (s < e) {
			const char *slash = memchr(s, '/', e - s);
			size_t n = (slash ? slash : e) - s;
			if (n == 0 || (n == 1 && s[0] == '.')) {
				/* nothing */
			} else if (n == 2 && s[0] == '.' && s[1] == '.') {
				char *last;
				if (!out->len)
					goto outside;
				last = memrchr(out->ptr, '/', out->len);
				fgit_buf_setlen(out, last ? (size_t)(last - out->ptr) : 0);
			} else {
				if (out->len && (ret = fgit_buf_addch(out, '/')))
					return ret;
				if ((ret = fgit_buf_add(out, s, n)))
					return ret;
			}
			s += n + (slash ? 1 : 0);
		}
	}
	if (keep_slash && out->len)
		return fgit_buf_addch(out, '/');
	return 0;
outside:
	if (worktree)
		return fgit_error_set(FGIT_EINVALID, "'%s' is outside repository at '%s'",
				      path, worktree);
	return fgit_error_set(FGIT_EINVALID, "'%s' is outside repository", path);
}

/* fgit_path_normalize() for a pathspec element: git names the element first. */
static int normalize(struct fgit_buf *out, const char *prefix, const char *rest,
		     const char *elt, const char *worktree)
{
	int ret = fgit_path_normalize(out, prefix, rest, worktree);

	if (ret != FGIT_EINVALID)
		return ret;
	if (worktree)
		return fgit_error_set(FGIT_EINVALID,
				      "%s: '%s' is outside repository at '%s'",
				      elt, elt, worktree);
	return fgit_error_set(FGIT_EINVALID, "%s: '%s' is outside repository",
			      elt, elt);
}

static int parse_item(struct item *it, const char *elt, const char *prefix,
		      size_t plen, unsigned flags, const char *worktree)
{
	struct fgit_buf m = FGIT_BUF_INIT;
	const char *rest = elt;
	unsigned magic = 0;
	int ret;

	if (!*elt)
		return fgit_error_set(FGIT_EINVALID,
				      "empty string is not a valid pathspec. "
				      "please use . instead if you meant to match all paths");
	if (!(flags & FGIT_PATHSPEC_LITERAL_ALL) &&
	    (ret = parse_magic(elt, &magic, &rest)))
		return ret;
	if (flags & FGIT_PATHSPEC_LITERAL_ALL)
		magic |= FGIT_PATHSPEC_LITERAL;
	if (flags & FGIT_PATHSPEC_ICASE_ALL)
		magic |= FGIT_PATHSPEC_ICASE;
	if ((flags & FGIT_PATHSPEC_GLOB_ALL) && !(magic & FGIT_PATHSPEC_LITERAL))
		magic |= FGIT_PATHSPEC_GLOB;
	if ((flags & FGIT_PATHSPEC_NOGLOB_ALL) && !(magic & FGIT_PATHSPEC_GLOB))
		magic |= FGIT_PATHSPEC_LITERAL;
	if ((magic & FGIT_PATHSPEC_LITERAL) && (magic & FGIT_PATHSPEC_GLOB))
		return fgit_error_set(FGIT_EINVALID,
				      "%s: 'literal' and 'glob' are incompatible",
				      elt);

	if (magic & FGIT_PATHSPEC_TOP) {
		ret = fgit_buf_adds(&m, rest);
		plen = 0;
	} else {
		ret = normalize(&m, prefix, rest, elt, worktree);
	}
	if (ret)
		goto out;
	it->original = strdup(elt);
	if (!it->original) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	it->magic = magic;
	it->len = m.len;
	it->match = fgit_buf_detach(&m, NULL);
	it->nowild = (magic & FGIT_PATHSPEC_LITERAL) ? it->len :
		     fgit_wildmatch_literal_prefix(it->match, it->len);
	/* the cwd part, as far as the element still lies below it */
	if (plen > it->len || memcmp(prefix, it->match, plen)) {
		size_t i, common = 0;
		for (i = 0; i < plen && i < it->len && prefix[i] == it->match[i]; i++)
			if (prefix[i] == '/')
				common = i + 1;
		plen = common;
	}
	it->prefix = plen;
out:
	fgit_buf_release(&m);
	return ret;
}

/* ---- matching one element ----------------------------------------- */

static int item_match(const struct item *it, const char *name, size_t namelen,
		      int is_dir)
{
	const int icase = !!(it->magic & FGIT_PATHSPEC_ICASE);
	const char *m = it->match;
	size_t len = it->len;

	if (icase && it->prefix &&
	    (namelen < it->prefix || memcmp(m, name, it->prefix)))
		return 0;
	if (!len)
		return 1;
	if (len <= namelen && !ncmp(m, name, len, icase) &&
	    (len == namelen || m[len - 1] == '/' || name[len] == '/'))
		return 1;
	if (is_dir && len == namelen + 1 && m[namelen] == '/' &&
	    !ncmp(m, name, namelen, icase))
		return 1;
	if (it->nowild < len) {
		unsigned wm = (icase ? FGIT_WM_CASEFOLD : 0) |
			      ((it->magic & FGIT_PATHSPEC_GLOB) ? FGIT_WM_PATHNAME : 0);
		if (it->nowild > namelen || ncmp(m, name, it->nowild, icase))
			return 0;
		return fgit_wildmatch_mem(m + it->nowild, len - it->nowild,
					  name + it->nowild,
					  namelen - it->nowild, wm);
	}
	return 0;
}

/* ---- compiling ---------------------------------------------------- */

static int is_fast_literal(const struct item *it)
{
	return !(it->magic & (FGIT_PATHSPEC_EXCLUDE | FGIT_PATHSPEC_ICASE)) &&
	       it->nowild == it->len && it->len;
}

static int compile(struct fgit_pathspec *ps)
{
	size_t i, nlit = 0, ndirs = 0;
	int ret;

	ps->next_same = malloc((ps->nr ? ps->nr : 1) * sizeof(size_t));
	ps->slow = malloc((ps->nr ? ps->nr : 1) * sizeof(size_t));
	ps->excl = malloc((ps->nr ? ps->nr : 1) * sizeof(size_t));
	if (!ps->next_same || !ps->slow || !ps->excl)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < ps->nr; i++) {
		const struct item *it = &ps->items[i];
		size_t k;
		ps->next_same[i] = (size_t)-1;
		if (!is_fast_literal(it))
			continue;
		nlit++;
		for (k = 0; k + 1 < it->len; k++)
			if (it->match[k] == '/')
				ndirs++;
	}
	if ((ret = table_init(&ps->lit, nlit)) ||
	    (ret = table_init(&ps->dirs, ndirs)))
		return ret;
	for (i = 0; i < ps->nr; i++) {
		struct item *it = &ps->items[i];
		if (it->magic & FGIT_PATHSPEC_EXCLUDE) {
			ps->excl[ps->nexcl++] = i;
		} else if (!it->len && !(it->magic & FGIT_PATHSPEC_ICASE && it->prefix)) {
			ps->match_all = 1;
			ps->slow[ps->nslow++] = i;	/* for `seen` */
		} else if (is_fast_literal(it)) {
			size_t klen = it->len, k;
			int trailing = it->match[klen - 1] == '/', fresh;
			struct slot *s;
			if (trailing)
				klen--;
			s = table_add(&ps->lit, fnv(it->match, klen), it->match,
				      klen, &fresh);
			if (fresh) {
				s->first = i;
			} else {
				/* append to the chain of elements with this key */
				size_t j = s->first;
				while (ps->next_same[j] != (size_t)-1)
					j = ps->next_same[j];
				ps->next_same[j] = i;
			}
			if (trailing)
				s->dir_ok = 1;
			else
				s->exact_ok = 1;
			for (k = 0; k < klen; k++)
				if (it->match[k] == '/')
					table_add(&ps->dirs, fnv(it->match, k),
						  it->match, k, &fresh);
		} else {
			ps->slow[ps->nslow++] = i;
		}
	}
	return 0;
}

int fgit_pathspec_new(struct fgit_pathspec **out, const char *prefix,
		      const char *const *args, size_t nargs, unsigned flags,
		      const char *worktree)
{
	struct fgit_pathspec *ps = calloc(1, sizeof(*ps));
	size_t plen = prefix ? strlen(prefix) : 0, i, nexcl = 0;
	struct fgit_buf pfx = FGIT_BUF_INIT;
	int ret = 0;

	if (!ps)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	/* the prefix always ends with '/' when not empty */
	if (plen && (ret = fgit_buf_add(&pfx, prefix, plen)))
		goto out;
	if (plen && prefix[plen - 1] != '/' && (ret = fgit_buf_addch(&pfx, '/')))
		goto out;
	if (nargs > ((size_t)-1) / sizeof(struct item) - 1) {
		ret = fgit_error_set(FGIT_ENOMEM, "too many pathspecs");
		goto out;
	}
	ps->items = calloc(nargs + 1, sizeof(*ps->items));
	if (!ps->items) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nargs; i++) {
		if ((ret = parse_item(&ps->items[ps->nr], args[i], pfx.ptr,
				      pfx.len, flags, worktree)))
			goto out;
		if (ps->items[ps->nr].magic & FGIT_PATHSPEC_EXCLUDE)
			nexcl++;
		ps->nr++;
	}
	if (nargs == 0) {
		ps->match_all = 1;
	} else if (nexcl == nargs) {
		/* only exclusions: as if the prefix (or the top) were given */
		struct item *it = &ps->items[ps->nr];
		size_t l = (flags & FGIT_PATHSPEC_PREFER_CWD) ? pfx.len : 0;
		it->original = strdup("");
		it->match = malloc(l + 1);
		if (!it->original || !it->match) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			ps->nr++;
			goto out;
		}
		memcpy(it->match, pfx.ptr, l);
		it->match[l] = '\0';
		it->len = it->nowild = l;
		it->prefix = l;
		ps->nr++;
	}
	ret = compile(ps);
out:
	fgit_buf_release(&pfx);
	if (ret) {
		fgit_pathspec_free(ps);
		return ret;
	}
	*out = ps;
	return 0;
}

void fgit_pathspec_free(struct fgit_pathspec *ps)
{
	size_t i;
	if (!ps)
		return;
	for (i = 0; i < ps->nr; i++) {
		free(ps->items[i].original);
		free(ps->items[i].match);
	}
	free(ps->items);
	free(ps->next_same);
	free(ps->lit.slots);
	free(ps->dirs.slots);
	free(ps->slow);
	free(ps->excl);
	free(ps);
}

size_t fgit_pathspec_count(const struct fgit_pathspec *ps)
{
	return ps->nr;
}

const char *fgit_pathspec_item_original(const struct fgit_pathspec *ps,
					size_t i)
{
	return i < ps->nr ? ps->items[i].original : NULL;
}

const char *fgit_pathspec_item_match(const struct fgit_pathspec *ps, size_t i)
{
	return i < ps->nr ? ps->items[i].match : NULL;
}

unsigned fgit_pathspec_item_magic(const struct fgit_pathspec *ps, size_t i)
{
	return i < ps->nr ? ps->items[i].magic : 0;
}

/* ---- matching ----------------------------------------------------- */

static void mark_chain(const struct fgit_pathspec *ps, size_t i,
		       unsigned char *seen)
{
	for (; i != (size_t)-1; i = ps->next_same[i])
		seen[i] = 1;
}

int fgit_pathspec_match(const struct fgit_pathspec *ps, const char *path,
			size_t len, unsigned flags, unsigned char *seen)
{
	const int is_dir = !!(flags & FGIT_PATHSPEC_MATCH_DIR);
	int positive = ps->match_all && !seen;
	size_t i;

	if (!positive && ps->lit.nr) {
		uint64_t h = FNV_INIT;
		for (i = 0; i <= len; i++) {
			if (i == len || path[i] == '/') {
				const struct slot *s = table_find(&ps->lit, h,
								  path, i);
				/* below the key: any element; at it: exact
				 * names, or "key/" when path is a directory */
				if (s && (i < len || s->exact_ok ||
					  (is_dir && s->dir_ok))) {
					positive = 1;
					if (!seen)
						break;
					mark_chain(ps, s->first, seen);
				}
			}
			if (i < len)
				h = fnv_step(h, (unsigned char)path[i]);
		}
	}
	for (i = 0; i < ps->nslow && (!positive || seen); i++) {
		size_t k = ps->slow[i];
		if (item_match(&ps->items[k], path, len, is_dir)) {
			positive = 1;
			if (seen)
				seen[k] = 1;
		}
	}
	if (!positive)
		return 0;
	for (i = 0; i < ps->nexcl; i++)
		if (item_match(&ps->items[ps->excl[i]], path, len, is_dir))
			return 0;
	return 1;
}

int fgit_pathspec_could_match_under(const struct fgit_pathspec *ps,
				    const char *dir, size_t len)
{
	uint64_t h = FNV_INIT;
	size_t i;

	/* a literal exclusion of dir or a parent removes everything below */
	for (i = 0; i < ps->nexcl; i++) {
		const struct item *it = &ps->items[ps->excl[i]];
		size_t l = it->len;
		int icase = !!(it->magic & FGIT_PATHSPEC_ICASE);
		if (it->nowild != l)
			continue;
		if (l && it->match[l - 1] == '/')
			l--;
		if (l <= len && !ncmp(it->match, dir, l, icase) &&
		    (l == len || dir[l] == '/' || !l))
			return 0;
	}
	if (ps->match_all)
		return 1;
	if (!len && (ps->lit.nr || ps->nslow))
		return 1;
	if (ps->lit.nr) {
		for (i = 0; i <= len; i++) {
			if ((i == len || dir[i] == '/') &&
			    table_find(&ps->lit, h, dir, i))
				return 1;
			if (i < len)
				h = fnv_step(h, (unsigned char)dir[i]);
		}
		/* h is now the hash of dir: is it above some element? */
		if (table_find(&ps->dirs, h, dir, len))
			return 1;
	}
	for (i = 0; i < ps->nslow; i++) {
		const struct item *it = &ps->items[ps->slow[i]];
		int icase = !!(it->magic & FGIT_PATHSPEC_ICASE);
		size_t k;
		if (it->nowild == it->len) {
			/* literal: below dir, or dir below it */
			size_t l = it->len;
			if (l && it->match[l - 1] == '/')
				l--;
			if (l > len ? (!ncmp(it->match, dir, len, icase) &&
				       it->match[len] == '/')
				    : (!ncmp(it->match, dir, l, icase) &&
				       (l == len || dir[l] == '/')))
				return 1;
			continue;
		}
		/* wildcards: the literal part must agree with dir + "/" */
		k = it->nowild < len + 1 ? it->nowild : len + 1;
		if (k <= len ? !ncmp(it->match, dir, k, icase)
			     : (!ncmp(it->match, dir, len, icase) &&
				it->match[len] == '/'))
			return 1;
	}
	return 0;
}
