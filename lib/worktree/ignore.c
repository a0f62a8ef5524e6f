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
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
};

struct plist {
	char *src;
	char *base;		/* directory of the file with '/', or "" */
	size_t baselen;
	struct fgit_ignore_pattern *pats;
	size_t nr, alloc;
};

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

static int ncmp(const char *a, const char *b, size_t n, int icase)
{
	return icase ? strncasecmp(a, b, n) : memcmp(a, b, n);
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
			p->kind = K_GLOB;
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

/* The last pattern of `l` matching the query, or NULL. */
static const struct fgit_ignore_pattern *match_list(const struct plist *l,
						    struct query *q, int icase)
{
	size_t i;
	if (!l)
		return NULL;
	for (i = l->nr; i-- > 0;) {
		const struct fgit_ignore_pattern *p = &l->pats[i];
		if ((p->flags & PAT_MUSTBEDIR) && !is_dir(q))
			continue;
		if (match_one(p, l, q, icase))
			return p;
	}
	return NULL;
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
	if (!f->excluded_by && ig->opts.per_dir_name) {
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
