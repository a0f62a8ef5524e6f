/*
 * git-config: parser, the standard file stack, includes, typed getters and
 * a key writer (see include/fgit/config.h).
 *
 * The parser follows the syntax described in git-config(1): a file is read
 * whole and scanned once, character by character, with "\r\n" read as
 * "\n".  The same scanner drives both loading (entries appended to a flat
 * array, looked up from the end so the last value wins) and editing
 * (byte offsets of sections and entries, so a rewrite keeps everything it
 * does not touch).  Configs are small; a linear scan from the end beats
 * building a hash table for the handful of lookups a command makes.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/lockfile.h"

#define MAX_INCLUDE_DEPTH 10

struct config_entry {
	char *key;
	char *value;		/* NULL: bare key */
	const char *origin;	/* borrowed from cfg->origins */
	int line;		/* 0 when not from a file */
	enum fgit_config_scope scope;
};

struct fgit_config {
	struct config_entry *entries;
	size_t nr, alloc;
	char **origins;
	size_t origins_nr, origins_alloc;
};

int fgit_config_new(struct fgit_config **out)
{
	struct fgit_config *cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	*out = cfg;
	return 0;
}

void fgit_config_free(struct fgit_config *cfg)
{
	size_t i;
	if (!cfg)
		return;
	for (i = 0; i < cfg->nr; i++) {
		free(cfg->entries[i].key);
		free(cfg->entries[i].value);
	}
	for (i = 0; i < cfg->origins_nr; i++)
		free(cfg->origins[i]);
	free(cfg->entries);
	free(cfg->origins);
	free(cfg);
}

static const char *intern_origin(struct fgit_config *cfg, const char *origin)
{
	char *s;
	if (cfg->origins_nr && !strcmp(cfg->origins[cfg->origins_nr - 1], origin))
		return cfg->origins[cfg->origins_nr - 1];
	if (cfg->origins_nr == cfg->origins_alloc) {
		size_t n = cfg->origins_alloc ? 2 * cfg->origins_alloc : 8;
		char **p = realloc(cfg->origins, n * sizeof(*p));
		if (!p)
			return NULL;
		cfg->origins = p;
		cfg->origins_alloc = n;
	}
	s = strdup(origin);
	if (!s)
		return NULL;
	cfg->origins[cfg->origins_nr++] = s;
	return s;
}

static int push_entry(struct fgit_config *cfg, const char *key, const char *value,
		      const char *origin, int line, enum fgit_config_scope scope)
{
	struct config_entry *e;

	if (cfg->nr == cfg->alloc) {
		size_t n = cfg->alloc ? 2 * cfg->alloc : 32;
		struct config_entry *p = realloc(cfg->entries, n * sizeof(*p));
		if (!p)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		cfg->entries = p;
		cfg->alloc = n;
	}
	e = &cfg->entries[cfg->nr];
	e->key = strdup(key);
	e->value = value ? strdup(value) : NULL;
	e->origin = intern_origin(cfg, origin ? origin : "");
	e->scope = scope;
	e->line = line;
	if (!e->key || (value && !e->value) || !e->origin) {
		free(e->key);
		free(e->value);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	cfg->nr++;
	return 0;
}

/* ---- keys ---- */

static int iskeychar(int c)
{
	return isalnum(c) || c == '-';
}

char *fgit_config_canonical_key(const char *key)
{
	const char *first = strchr(key, '.'), *last = strrchr(key, '.');
	char *out;
	size_t i, n = strlen(key);

	if (!first) {
		fgit_error_set(FGIT_EINVALID, "key does not contain a section: %s", key);
		return NULL;
	}
	if (!last[1]) {
		fgit_error_set(FGIT_EINVALID, "key does not contain variable name: %s", key);
		return NULL;
	}
	if (first == key || !isalpha((unsigned char)last[1]))
		goto invalid;
	for (i = 0; key + i < first; i++)
		if (!iskeychar((unsigned char)key[i]))
			goto invalid;
	for (i = (size_t)(last - key) + 1; i < n; i++)
		if (!iskeychar((unsigned char)key[i]))
			goto invalid;
	for (i = (size_t)(first - key); key + i < last; i++)
		if (key[i] == '\n')
			goto invalid;
	out = strdup(key);
	if (!out) {
		fgit_error_set(FGIT_ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; out + i < out + (first - key); i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	for (i = (size_t)(last - key) + 1; i < n; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	return out;
invalid:
	fgit_error_set(FGIT_EINVALID, "invalid key: %s", key);
	return NULL;
}

/* ---- the scanner ---- */

struct scanner {
	const char *buf;
	size_t len, pos;
	int line;
	int eof;
	struct fgit_buf section;	/* canonical "section" or "section.sub" */
	struct fgit_buf name;
	struct fgit_buf value;
};

struct scan_events {
	/* A section header spanning [start, end). */
	int (*section)(struct scanner *s, size_t start, size_t end, void *payload);
	/* An entry whose name starts at name_start; the entry ends at end
	 * (after its newline).  value NULL for a bare key. */
	int (*entry)(struct scanner *s, const char *key, const char *value,
		     size_t name_start, size_t end, void *payload);
};

static int next_char(struct scanner *s)
{
	int c;

	if (s->pos >= s->len) {
		/* the end counts as one more line, as in git's messages */
		if (!s->eof)
			s->line++;
		s->eof = 1;
		return '\n';
	}
	c = (unsigned char)s->buf[s->pos++];
	if (c == '\r' && s->pos < s->len && s->buf[s->pos] == '\n')
		c = (unsigned char)s->buf[s->pos++];
	if (c == '\n')
		s->line++;
	return c;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* After "[": the section name, then ']' or a quoted subsection. */
static int scan_section(struct scanner *s)
{
	int c;

	fgit_buf_reset(&s->section);
	for (;;) {
		c = next_char(s);
		if (s->eof)
			return -1;
		if (c == '\n')
			goto incomplete;
		if (c == ']')
			return 0;
		if (is_space(c))
			break;
		if (!iskeychar(c) && c != '.')
			return -1;
		fgit_buf_addch(&s->section, tolower(c));
	}
	do {
		c = next_char(s);
	} while (c == ' ' || c == '\t');
	if (c == '\n')
		goto incomplete_sub;
	if (c != '"')
		return -1;
	fgit_buf_addch(&s->section, '.');
	for (;;) {
		c = next_char(s);
		if (c == '\n')
			goto incomplete_sub;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next_char(s);
			if (c == '\n')
				goto incomplete_sub;
		}
		fgit_buf_addch(&s->section, c);
	}
	return next_char(s) == ']' ? 0 : -1;
incomplete_sub:
	s->line--;
	return -1;
incomplete:
	/* git names the header's own line when it ends early */
	if (!s->eof)
		s->line--;
	return -1;
}

/* After "=": the value up to the end of its (possibly continued) line. */
static int scan_value(struct scanner *s)
{
	int quoted = 0, comment = 0;
	size_t spaces = 0;

	fgit_buf_reset(&s->value);
	for (;;) {
		int c = next_char(s);
		if (c == '\n') {
			if (quoted) {
				s->line--;
				return -1;
			}
			return 0;
		}
		if (comment)
			continue;
		if (is_space(c) && !quoted) {
			if (s->value.len)
				spaces++;
			continue;
		}
		if (!quoted && (c == ';' || c == '#')) {
			comment = 1;
			continue;
		}
		for (; spaces; spaces--)
			fgit_buf_addch(&s->value, ' ');
		if (c == '\\') {
			c = next_char(s);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return -1;
			}
			fgit_buf_addch(&s->value, c);
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		fgit_buf_addch(&s->value, c);
	}
}

static int scan(struct scanner *s, const struct scan_events *ev, void *payload)
{
	int comment = 0, c, r;
	struct fgit_buf key = FGIT_BUF_INIT;

	if (s->len >= 3 && !memcmp(s->buf, "\xef\xbb\xbf", 3))
		s->pos = 3;
	for (;;) {
		size_t start = s->pos;
		c = next_char(s);
		if (c == '\n') {
			if (s->eof) {
				r = 0;
				goto out;
			}
			comment = 0;
			continue;
		}
		if (comment || is_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = 1;
			continue;
		}
		if (c == '[') {
			if (scan_section(s) < 0)
				goto bad;
			if (ev->section && (r = ev->section(s, start, s->pos, payload)))
				goto out;
			continue;
		}
		if (!isalpha(c))
			goto bad;
		fgit_buf_reset(&s->name);
		fgit_buf_addch(&s->name, tolower(c));
		for (;;) {
			c = next_char(s);
			if (!iskeychar(c))
				break;
			fgit_buf_addch(&s->name, tolower(c));
		}
		while (c == ' ' || c == '\t')
			c = next_char(s);
		fgit_buf_reset(&key);
		/* git takes a key before any section as a bare "name" */
		if (s->section.len)
			fgit_buf_addf(&key, "%s.%s", s->section.ptr, s->name.ptr);
		else
			fgit_buf_adds(&key, s->name.ptr);
		if (c == '\n') {
			if (ev->entry && (r = ev->entry(s, key.ptr, NULL, start, s->pos, payload)))
				goto out;
			if (s->eof) {
				r = 0;
				goto out;
			}
			continue;
		}
		if (c != '=' || scan_value(s) < 0)
			goto bad;
		if (ev->entry && (r = ev->entry(s, key.ptr, s->value.ptr, start, s->pos, payload)))
			goto out;
		if (s->eof) {
			r = 0;
			goto out;
		}
	}
bad:
	r = 1;	/* syntax error at s->line; the caller words it */
out:
	fgit_buf_release(&key);
	return r;
}

static void scanner_init(struct scanner *s, const char *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
	s->line = 1;
	fgit_buf_init(&s->section, 0);
	fgit_buf_init(&s->name, 0);
	fgit_buf_init(&s->value, 0);
}

static void scanner_release(struct scanner *s)
{
	fgit_buf_release(&s->section);
	fgit_buf_release(&s->name);
	fgit_buf_release(&s->value);
}

/* ---- glob matching for includeIf ---- */

/*
 * A small wildmatch with pathname semantics: '*' and '?' and classes stop
 * at '/', "**" between slashes (or at either end) crosses them.
 */
static int glob_match(const char *p, const char *t, int icase)
{
	for (; *p; p++, t++) {
		int pc = (unsigned char)*p, tc = (unsigned char)*t;

		if (pc == '*') {
			int dbl = p[1] == '*';
			if (dbl) {
				const char *after = p + 2;
				while (*after == '*')
					after++;
				if (*after == '\0')
					return 1;
				if (*after == '/') {
					/* zero or more whole directories */
					const char *q;
					if (glob_match(after + 1, t, icase))
						return 1;
					for (q = t; *q; q++)
						if (*q == '/' && glob_match(after + 1, q + 1, icase))
							return 1;
					return 0;
				}
				p = after - 1;
			}
			for (;;) {
				if (glob_match(p + 1, t, icase))
					return 1;
				if (!*t || *t == '/')
					return 0;
				t++;
			}
		}
		if (!tc)
			return 0;
		if (pc == '?') {
			if (tc == '/')
				return 0;
			continue;
		}
		if (pc == '[') {
			const char *q = p + 1;
			int neg = 0, hit = 0;
			if (*q == '!' || *q == '^') {
				neg = 1;
				q++;
			}
			if (*q == ']') {
				hit = tc == ']';
				q++;
			}
			for (; *q && *q != ']'; q++) {
				int lo = (unsigned char)*q, hi = lo;
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hi = (unsigned char)q[2];
					q += 2;
				}
				if (tc >= lo && tc <= hi)
					hit = 1;
				if (icase && tolower(tc) >= tolower(lo) && tolower(tc) <= tolower(hi))
					hit = 1;
			}
			if (!*q)
				return 0;
			if (tc == '/' || hit == neg)
				return 0;
			p = q;
			continue;
		}
		if (pc == '\\' && p[1])
			pc = (unsigned char)*++p;
		if (icase ? tolower(pc) != tolower(tc) : pc != tc)
			return 0;
	}
	return *t == '\0';
}

/* ---- loading ---- */

struct load_state {
	struct fgit_config *cfg;
	const char *path;		/* file being read, NULL for other sources */
	const char *origin;		/* for messages */
	enum fgit_config_scope scope;
	const struct fgit_config_context *ctx;
	int depth;
	int err;			/* a failure inside a callback */
};

static int load_file(struct fgit_config *cfg, const char *path, enum fgit_config_scope scope,
		     int missing_ok, const struct fgit_config_context *ctx, int depth);

static char *expand_path(const char *path, const char *relative_to_file, int *err)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	*err = 0;
	if (path[0] == '~' && path[1] == '/') {
		const char *home = getenv("HOME");
		if (!home)
			return NULL;
		fgit_buf_adds(&b, home);
		fgit_buf_adds(&b, path + 1);
	} else if (path[0] == '/' || path[0] == '~') {
		fgit_buf_adds(&b, path);
	} else {
		const char *slash;
		if (!relative_to_file) {
			*err = fgit_error_set(FGIT_EINVALID,
					      "relative config includes must come from files");
			return NULL;
		}
		slash = strrchr(relative_to_file, '/');
		if (slash)
			fgit_buf_add(&b, relative_to_file, (size_t)(slash - relative_to_file) + 1);
		fgit_buf_adds(&b, path);
	}
	return fgit_buf_detach(&b, NULL);
}

static char *head_branch(const char *git_dir)
{
	struct fgit_buf b = FGIT_BUF_INIT, path = FGIT_BUF_INIT;
	char *out = NULL;

	fgit_buf_addf(&path, "%s/HEAD", git_dir);
	if (fgit_buf_read_file(&b, path.ptr) == 0) {
		fgit_buf_rtrim(&b);
		if (!strncmp(b.ptr, "ref: refs/heads/", 16))
			out = strdup(b.ptr + 16);
	}
	fgit_error_clear();
	fgit_buf_release(&b);
	fgit_buf_release(&path);
	return out;
}

static int include_condition(struct load_state *st, const char *cond, size_t len, int *match)
{
	struct fgit_buf pat = FGIT_BUF_INIT;
	int icase = 0, ret = 0;
	const char *rest;
	size_t restlen;

	*match = 0;
	if (len > 7 && !strncmp(cond, "gitdir:", 7)) {
		rest = cond + 7;
		restlen = len - 7;
	} else if (len > 9 && !strncmp(cond, "gitdir/i:", 9)) {
		rest = cond + 9;
		restlen = len - 9;
		icase = 1;
	} else if (len > 9 && !strncmp(cond, "onbranch:", 9)) {
		char *branch;
		if (!st->ctx || !st->ctx->git_dir)
			return 0;
		branch = st->ctx->branch ? strdup(st->ctx->branch) : head_branch(st->ctx->git_dir);
		if (!branch)
			return 0;
		fgit_buf_add(&pat, cond + 9, len - 9);
		if (pat.ptr[pat.len - 1] == '/')
			fgit_buf_adds(&pat, "**");
		*match = glob_match(pat.ptr, branch, 0);
		free(branch);
		fgit_buf_release(&pat);
		return 0;
	} else {
		return 0;	/* unknown conditions never match */
	}
	if (!st->ctx || !st->ctx->git_dir)
		return 0;

	if (restlen >= 2 && rest[0] == '~' && rest[1] == '/') {
		const char *home = getenv("HOME");
		if (!home)
			return 0;
		fgit_buf_adds(&pat, home);
		fgit_buf_add(&pat, rest + 1, restlen - 1);
	} else if (restlen >= 2 && rest[0] == '.' && rest[1] == '/') {
		const char *slash;
		if (!st->path) {
			ret = fgit_error_set(FGIT_EINVALID,
					     "relative config include conditionals must come from files");
			goto out;
		}
		slash = strrchr(st->path, '/');
		if (slash)
			fgit_buf_add(&pat, st->path, (size_t)(slash - st->path));
		fgit_buf_add(&pat, rest + 1, restlen - 1);
	} else if (restlen && rest[0] != '/') {
		fgit_buf_adds(&pat, "**/");
		fgit_buf_add(&pat, rest, restlen);
	} else {
		fgit_buf_add(&pat, rest, restlen);
	}
	if (pat.len && pat.ptr[pat.len - 1] == '/')
		fgit_buf_adds(&pat, "**");
	*match = glob_match(pat.ptr, st->ctx->git_dir, icase);
	if (!*match) {
		char *real = realpath(st->ctx->git_dir, NULL);
		if (real) {
			*match = glob_match(pat.ptr, real, icase);
			free(real);
		}
	}
out:
	fgit_buf_release(&pat);
	return ret;
}

static int do_include(struct load_state *st, const char *value)
{
	char *path;
	int err, ret;

	if (!value)
		return fgit_error_set(FGIT_EINVALID, "missing value for 'include.path'");
	path = expand_path(value, st->path, &err);
	if (!path)
		return err;
	if (st->depth >= MAX_INCLUDE_DEPTH) {
		ret = fgit_error_set(FGIT_EINVALID,
			"exceeded maximum include depth (%d) while including\n"
			"\t%s\n"
			"from\n"
			"\t%s\n"
			"This might be due to circular includes.",
			MAX_INCLUDE_DEPTH, path, st->origin);
		free(path);
		return ret;
	}
	ret = load_file(st->cfg, path, st->scope, 1, st->ctx, st->depth + 1);
	free(path);
	return ret;
}

static int load_entry(struct scanner *s, const char *key, const char *value,
		      size_t name_start, size_t end, void *payload)
{
	struct load_state *st = payload;
	int ret;

	ret = push_entry(st->cfg, key, value, st->origin, st->path ? s->line - 1 : 0, st->scope);
	if (ret)
		goto fail;
	if (!strcmp(key, "include.path")) {
		ret = do_include(st, value);
	} else if (!strncmp(key, "includeif.", 10)) {
		const char *cond = key + 10, *dot = strrchr(key, '.');
		int match;
		if (dot > cond && !strcmp(dot, ".path")) {
			ret = include_condition(st, cond, (size_t)(dot - cond), &match);
			if (!ret && match)
				ret = do_include(st, value);
		}
	}
	if (ret)
		goto fail;
	return 0;
fail:
	st->err = ret;
	return -1;
}

static int load_buffer(struct fgit_config *cfg, const char *buf, size_t len,
		       const char *path, const char *origin_msg, enum fgit_config_scope scope,
		       const struct fgit_config_context *ctx, int depth)
{
	struct scanner s;
	struct load_state st = { cfg, path, path ? path : origin_msg, scope, ctx, depth, 0 };
	static const struct scan_events ev = { NULL, load_entry };
	int r;

	scanner_init(&s, buf, len);
	r = scan(&s, &ev, &st);
	if (r > 0) {
		if (path)
			r = fgit_error_set(FGIT_EINVALID, "bad config line %d in file %s",
					   s.line, path);
		else
			r = fgit_error_set(FGIT_EINVALID, "bad config line %d in %s",
					   s.line, origin_msg);
	} else if (r < 0) {
		r = st.err;
	}
	scanner_release(&s);
	return r;
}

static int load_file(struct fgit_config *cfg, const char *path, enum fgit_config_scope scope,
		     int missing_ok, const struct fgit_config_context *ctx, int depth)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int r;

	r = fgit_buf_read_file(&b, path);
	if (r) {
		if (missing_ok && (errno == ENOENT || errno == ENOTDIR)) {
			fgit_error_clear();
			return 0;
		}
		if (errno == EISDIR || errno == EACCES) {
			/* git warns and goes on for unreadable files */
			fgit_error_clear();
			return 0;
		}
		return r;
	}
	r = load_buffer(cfg, b.ptr, b.len, path, NULL, scope, ctx, depth);
	fgit_buf_release(&b);
	return r;
}

int fgit_config_add_file(struct fgit_config *cfg, const char *path,
			 enum fgit_config_scope scope, int missing_ok,
			 const struct fgit_config_context *ctx)
{
	return load_file(cfg, path, scope, missing_ok, ctx, 0);
}

int fgit_config_add_buffer(struct fgit_config *cfg, const char *buf, size_t len,
			   const char *origin, enum fgit_config_scope scope,
			   const struct fgit_config_context *ctx)
{
	return load_buffer(cfg, buf, len, NULL, origin, scope, ctx, 0);
}

struct parse_state {
	int (*cb)(const char *key, const char *value, void *payload);
	void *payload;
	int err;
};

static int parse_entry(struct scanner *s, const char *key, const char *value,
		       size_t name_start, size_t end, void *payload)
{
	struct parse_state *st = payload;

	st->err = st->cb(key, value, st->payload);
	return st->err ? -1 : 0;
}

int fgit_config_parse_buffer(const char *buf, size_t len,
			     int (*cb)(const char *key, const char *value, void *payload),
			     void *payload)
{
	struct scanner s;
	struct parse_state st = { cb, payload, 0 };
	static const struct scan_events ev = { NULL, parse_entry };
	int r;

	scanner_init(&s, buf, len);
	r = scan(&s, &ev, &st);
	if (r > 0)
		r = fgit_error_set(FGIT_EINVALID, "bad config line %d", s.line);
	else if (r < 0)
		r = st.err;
	scanner_release(&s);
	return r;
}

int fgit_config_add_entry(struct fgit_config *cfg, const char *key,
			  const char *value, enum fgit_config_scope scope)
{
	char *canon = fgit_config_canonical_key(key);
	int r;

	if (!canon)
		return fgit_error_last_code();
	r = push_entry(cfg, canon, value, "command line", 0, scope);
	free(canon);
	return r;
}

/* One sq-quoted word of GIT_CONFIG_PARAMETERS: 'abc' pieces joined, with
 * \' and \! between them.  Advances *pp; returns -1 on bad quoting. */
static int sq_word(struct fgit_buf *out, const char **pp)
{
	const char *p = *pp;

	if (*p != '\'')
		return -1;
	for (;;) {
		p++;
		while (*p && *p != '\'')
			fgit_buf_addch(out, *p++);
		if (!*p)
			return -1;
		p++;	/* closing quote */
		if (*p == '\\' && (p[1] == '\'' || p[1] == '!') && p[2] == '\'') {
			fgit_buf_addch(out, p[1]);
			p += 2;
			continue;
		}
		break;
	}
	*pp = p;
	return 0;
}

static int add_param(struct fgit_config *cfg, const char *key, const char *value)
{
	int r = fgit_config_add_entry(cfg, key, value, FGIT_CONFIG_SCOPE_COMMAND);
	if (r == FGIT_EINVALID) {
		char msg[1024];
		snprintf(msg, sizeof(msg), "%s", fgit_error_last());
		return fgit_error_set(FGIT_EINVALID, "%s\nfatal: unable to parse command-line config", msg);
	}
	return r;
}

static int env_error(const char *fmt, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), fmt, what);
	return fgit_error_set(FGIT_EINVALID, "%s\nfatal: unable to parse command-line config", msg);
}

static int add_count_entries(struct fgit_config *cfg, const char *env)
{
	char *end;
	long n, i;
	int ret;

	errno = 0;
	n = strtol(env, &end, 10);
	if (*end || errno || n < 0 || n > INT_MAX)
		return env_error("%s", "bogus count in GIT_CONFIG_COUNT");
	for (i = 0; i < n; i++) {
		char name[64];
		const char *key, *val;
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
		key = getenv(name);
		if (!key)
			return env_error("missing config key %s", name);
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
		val = getenv(name);
		if (!val)
			return env_error("missing config value %s", name);
		if ((ret = add_param(cfg, key, val)))
			return ret;
	}
	return 0;
}

int fgit_config_add_env(struct fgit_config *cfg)
{
	const char *env;
	struct fgit_buf k = FGIT_BUF_INIT, v = FGIT_BUF_INIT;
	int ret = 0;

	env = getenv("GIT_CONFIG_COUNT");
	if (env && *env && (ret = add_count_entries(cfg, env)))
		return ret;

	env = getenv("GIT_CONFIG_PARAMETERS");
	if (!env)
		return 0;
	while (*env) {
		while (*env == ' ' || *env == '\t' || *env == '\n')
			env++;
		if (!*env)
			break;
		fgit_buf_reset(&k);
		fgit_buf_reset(&v);
		if (sq_word(&k, &env) < 0)
			goto bogus;
		if (*env == '=') {
			/* new style: 'key'='value' ('key'= for a NULL value) */
			env++;
			if (*env == '\'') {
				if (sq_word(&v, &env) < 0)
					goto bogus;
				ret = add_param(cfg, k.ptr, v.ptr);
			} else {
				ret = add_param(cfg, k.ptr, NULL);
			}
		} else {
			/* old style: 'key=value' or 'key' */
			char *eq = strchr(k.ptr, '=');
			if (eq) {
				*eq = '\0';
				ret = add_param(cfg, k.ptr, eq + 1);
			} else {
				ret = add_param(cfg, k.ptr, NULL);
			}
		}
		if (ret)
			goto out;
		if (*env && *env != ' ' && *env != '\t' && *env != '\n')
			goto bogus;
	}
	goto out;
bogus:
	ret = env_error("%s", "bogus format in GIT_CONFIG_PARAMETERS");
out:
	fgit_buf_release(&k);
	fgit_buf_release(&v);
	return ret;
}

static int env_bool(const char *name)
{
	const char *v = getenv(name);
	int b;
	if (!v)
		return 0;
	b = fgit_config_parse_bool(v);
	return b < 0 ? 0 : b;
}

int fgit_config_load(struct fgit_config **out, const char *git_dir,
		     const char *common_dir, unsigned int flags)
{
	struct fgit_config *cfg = NULL;
	struct fgit_config_context ctx = { git_dir, NULL };
	struct fgit_buf path = FGIT_BUF_INIT;
	const char *env;
	int ret;

	if ((ret = fgit_config_new(&cfg)))
		return ret;
	if (!(flags & FGIT_CONFIG_NO_SYSTEM) && !env_bool("GIT_CONFIG_NOSYSTEM")) {
		env = getenv("GIT_CONFIG_SYSTEM");
		ret = load_file(cfg, env ? env : "/etc/gitconfig", FGIT_CONFIG_SCOPE_SYSTEM,
				1, &ctx, 0);
		if (ret)
			goto out;
	}
	if (!(flags & FGIT_CONFIG_NO_GLOBAL)) {
		env = getenv("GIT_CONFIG_GLOBAL");
		if (env) {
			ret = load_file(cfg, env, FGIT_CONFIG_SCOPE_GLOBAL, 1, &ctx, 0);
		} else {
			const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
			ret = 0;
			fgit_buf_reset(&path);
			if (xdg && *xdg)
				fgit_buf_addf(&path, "%s/git/config", xdg);
			else if (home)
				fgit_buf_addf(&path, "%s/.config/git/config", home);
			if (path.len)
				ret = load_file(cfg, path.ptr, FGIT_CONFIG_SCOPE_GLOBAL, 1, &ctx, 0);
			if (!ret && home) {
				fgit_buf_reset(&path);
				fgit_buf_addf(&path, "%s/.gitconfig", home);
				ret = load_file(cfg, path.ptr, FGIT_CONFIG_SCOPE_GLOBAL, 1, &ctx, 0);
			}
		}
		if (ret)
			goto out;
	}
	if (common_dir || git_dir) {
		int wt = 0;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/config", common_dir ? common_dir : git_dir);
		ret = load_file(cfg, path.ptr, FGIT_CONFIG_SCOPE_LOCAL, 1, &ctx, 0);
		if (ret)
			goto out;
		if (git_dir && fgit_config_get_bool(&wt, cfg, "extensions.worktreeconfig") == 0 && wt) {
			fgit_buf_reset(&path);
			fgit_buf_addf(&path, "%s/config.worktree", git_dir);
			ret = load_file(cfg, path.ptr, FGIT_CONFIG_SCOPE_WORKTREE, 1, &ctx, 0);
			if (ret)
				goto out;
		}
		fgit_error_clear();
	}
	if (!(flags & FGIT_CONFIG_NO_ENV))
		ret = fgit_config_add_env(cfg);
out:
	fgit_buf_release(&path);
	if (ret) {
		fgit_config_free(cfg);
		return ret;
	}
	*out = cfg;
	return 0;
}

/* ---- getters ---- */

static const struct config_entry *find_last(const struct fgit_config *cfg, const char *key)
{
	char *canon = NULL;
	const struct config_entry *found = NULL;
	size_t i;

	/* Most callers pass canonical keys; only canonicalize when needed. */
	for (i = 0; key[i]; i++)
		if (isupper((unsigned char)key[i]))
			break;
	if (key[i]) {
		canon = fgit_config_canonical_key(key);
		if (!canon)
			return NULL;
		key = canon;
	}
	for (i = cfg->nr; i-- > 0;) {
		if (!strcmp(cfg->entries[i].key, key)) {
			found = &cfg->entries[i];
			break;
		}
	}
	free(canon);
	return found;
}

int fgit_config_origin(const char **file_out, int *line_out, const struct fgit_config *cfg,
		       const char *key)
{
	const struct config_entry *e = find_last(cfg, key);
	if (!e)
		return FGIT_ENOTFOUND;
	*file_out = e->line ? e->origin : NULL;
	*line_out = e->line;
	return 0;
}

int fgit_config_get_string(const char **out, const struct fgit_config *cfg, const char *key)
{
	const struct config_entry *e = find_last(cfg, key);
	if (!e)
		return FGIT_ENOTFOUND;
	*out = e->value;
	return 0;
}

int fgit_config_parse_bool(const char *v)
{
	int64_t n;

	if (!v)
		return 1;
	if (!*v)
		return 0;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return 1;
	if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return 0;
	if (fgit_config_parse_int64(&n, v) == 0)
		return n != 0;
	return -1;
}

int fgit_config_parse_int64(int64_t *out, const char *v)
{
	char *end;
	intmax_t n;
	int64_t factor = 1;

	if (!v || !*v)
		return FGIT_EINVALID;
	errno = 0;
	n = strtoimax(v, &end, 0);
	if (errno == ERANGE)
		return FGIT_ERROR;
	if (end == v)
		return FGIT_EINVALID;
	if (*end) {
		switch (*end) {
		case 'k': case 'K':
			factor = 1024;
			break;
		case 'm': case 'M':
			factor = 1024 * 1024;
			break;
		case 'g': case 'G':
			factor = 1024 * 1024 * 1024;
			break;
		default:
			return FGIT_EINVALID;
		}
		if (end[1])
			return FGIT_EINVALID;
	}
	if ((n < 0 && n < INT64_MIN / factor) || (n > 0 && n > INT64_MAX / factor))
		return FGIT_ERROR;
	*out = (int64_t)n * factor;
	return 0;
}

int fgit_config_get_bool(int *out, const struct fgit_config *cfg, const char *key)
{
	const struct config_entry *e = find_last(cfg, key);
	int b;

	if (!e)
		return FGIT_ENOTFOUND;
	b = fgit_config_parse_bool(e->value);
	if (b < 0) {
		if (e->scope == FGIT_CONFIG_SCOPE_COMMAND || !*e->origin)
			return fgit_error_set(FGIT_EINVALID,
					      "bad boolean config value '%s' for '%s'",
					      e->value, key);
		return fgit_error_set(FGIT_EINVALID,
				      "bad boolean config value '%s' for '%s'", e->value, key);
	}
	*out = b;
	return 0;
}

static int bad_numeric(const struct config_entry *e, const char *key, int why)
{
	const char *reason = why == FGIT_EINVALID ? "invalid unit" : "out of range";
	if (e->scope == FGIT_CONFIG_SCOPE_COMMAND)
		return fgit_error_set(FGIT_EINVALID,
				      "bad numeric config value '%s' for '%s': %s",
				      e->value ? e->value : "", key, reason);
	return fgit_error_set(FGIT_EINVALID,
			      "bad numeric config value '%s' for '%s' in file %s: %s",
			      e->value ? e->value : "", key, e->origin, reason);
}

int fgit_config_get_int64(int64_t *out, const struct fgit_config *cfg, const char *key)
{
	const struct config_entry *e = find_last(cfg, key);
	int r;

	if (!e)
		return FGIT_ENOTFOUND;
	if (!e->value)
		return fgit_error_set(FGIT_EINVALID, "missing value for '%s'", key);
	r = fgit_config_parse_int64(out, e->value);
	if (r)
		return bad_numeric(e, key, r);
	return 0;
}

int fgit_config_get_int(int *out, const struct fgit_config *cfg, const char *key)
{
	int64_t v;
	int r = fgit_config_get_int64(&v, cfg, key);

	if (r)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return bad_numeric(find_last(cfg, key), key, FGIT_ERROR);
	*out = (int)v;
	return 0;
}

int fgit_config_get_all(const struct fgit_config *cfg, const char *key,
			int (*cb)(const char *value, void *payload), void *payload)
{
	char *canon = fgit_config_canonical_key(key);
	size_t i;
	int r = 0;

	if (!canon)
		return fgit_error_last_code();
	for (i = 0; i < cfg->nr && !r; i++)
		if (!strcmp(cfg->entries[i].key, canon))
			r = cb(cfg->entries[i].value, payload);
	free(canon);
	return r;
}

int fgit_config_foreach(const struct fgit_config *cfg,
			int (*cb)(const char *key, const char *value,
				  enum fgit_config_scope scope, void *payload),
			void *payload)
{
	size_t i;
	int r;

	for (i = 0; i < cfg->nr; i++)
		if ((r = cb(cfg->entries[i].key, cfg->entries[i].value,
			    cfg->entries[i].scope, payload)))
			return r;
	return 0;
}

/* ---- writing ---- */

struct edit_state {
	const char *section;	/* canonical section part of the key */
	const char *key;	/* canonical key */
	int in_section;
	int found;
	size_t match_start, match_end;	/* last entry with the key */
	int have_insert;
	size_t insert_pos;	/* after the last line of the last matching section */
};

static int edit_section(struct scanner *s, size_t start, size_t end, void *payload)
{
	struct edit_state *st = payload;

	st->in_section = !strcmp(s->section.ptr, st->section);
	if (st->in_section) {
		/* insert after the header's line */
		size_t p = end;
		while (p < s->len && s->buf[p] != '\n')
			p++;
		st->insert_pos = p < s->len ? p + 1 : p;
		st->have_insert = 1;
	}
	return 0;
}

static int edit_entry(struct scanner *s, const char *key, const char *value,
		      size_t name_start, size_t end, void *payload)
{
	struct edit_state *st = payload;

	if (!st->in_section)
		return 0;
	st->insert_pos = end;
	if (!strcmp(key, st->key)) {
		size_t b = name_start;
		/* take the whole line when only blanks precede the name */
		while (b > 0 && (s->buf[b - 1] == ' ' || s->buf[b - 1] == '\t'))
			b--;
		if (b == 0 || s->buf[b - 1] == '\n')
			name_start = b;
		st->found = 1;
		st->match_start = name_start;
		st->match_end = end;
	}
	return 0;
}

static void quote_value(struct fgit_buf *b, const char *v)
{
	size_t n = strlen(v);
	int quote = n && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t');

	if (strchr(v, ';') || strchr(v, '#'))
		quote = 1;
	if (quote)
		fgit_buf_addch(b, '"');
	for (; *v; v++) {
		switch (*v) {
		case '\n':
			fgit_buf_adds(b, "\\n");
			break;
		case '\t':
			fgit_buf_adds(b, "\\t");
			break;
		case '"':
		case '\\':
			fgit_buf_addch(b, '\\');
			/* fall through */
		default:
			fgit_buf_addch(b, *v);
		}
	}
	if (quote)
		fgit_buf_addch(b, '"');
}

int fgit_config_set_in_file(const char *path, const char *key, const char *value)
{
	struct fgit_buf old = FGIT_BUF_INIT, out = FGIT_BUF_INIT, line = FGIT_BUF_INIT;
	struct edit_state st;
	struct scanner s;
	static const struct scan_events ev = { edit_section, edit_entry };
	struct fgit_lockfile *lk = NULL;
	char *canon = fgit_config_canonical_key(key), *section = NULL;
	const char *name, *user_name, *dot;
	int ret, r;

	if (!canon)
		return fgit_error_last_code();
	name = strrchr(canon, '.') + 1;
	user_name = strrchr(key, '.') + 1;
	section = strndup(canon, (size_t)(name - 1 - canon));
	if (!section) {
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}

	ret = fgit_lockfile_acquire(&lk, path, 0);
	if (ret) {
		ret = fgit_error_errno(ret, "could not lock config file %s", path);
		goto out;
	}
	ret = fgit_buf_read_file(&old, path);
	if (ret && errno != ENOENT)
		goto out;
	ret = 0;
	fgit_error_clear();

	memset(&st, 0, sizeof(st));
	st.section = section;
	st.key = canon;
	scanner_init(&s, old.ptr, old.len);
	r = scan(&s, &ev, &st);
	if (r > 0)
		ret = fgit_error_set(FGIT_EINVALID, "bad config line %d in file %s", s.line, path);
	scanner_release(&s);
	if (ret)
		goto out;

	if (value) {
		fgit_buf_addf(&line, "\t%s = ", user_name);
		quote_value(&line, value);
		fgit_buf_addch(&line, '\n');
	}
	if (st.found) {
		fgit_buf_add(&out, old.ptr, st.match_start);
		if (st.match_start && old.ptr[st.match_start - 1] != '\n' && value)
			fgit_buf_adds(&out, line.ptr + 1);	/* after "[s] ": no tab */
		else
			fgit_buf_add(&out, line.ptr, line.len);
		fgit_buf_add(&out, old.ptr + st.match_end, old.len - st.match_end);
	} else if (!value) {
		ret = fgit_error_set(FGIT_ENOTFOUND, "no such key: %s", key);
		goto out;
	} else if (st.have_insert) {
		fgit_buf_add(&out, old.ptr, st.insert_pos);
		if (st.insert_pos && old.ptr[st.insert_pos - 1] != '\n')
			fgit_buf_addch(&out, '\n');
		fgit_buf_add(&out, line.ptr, line.len);
		fgit_buf_add(&out, old.ptr + st.insert_pos, old.len - st.insert_pos);
	} else {
		fgit_buf_add(&out, old.ptr, old.len);
		if (old.len && old.ptr[old.len - 1] != '\n')
			fgit_buf_addch(&out, '\n');
		dot = strchr(key, '.');
		fgit_buf_addch(&out, '[');
		fgit_buf_add(&out, key, (size_t)(dot - key));
		if (dot != strrchr(key, '.')) {
			/* [section "sub"] with " and \ escaped */
			const char *p;
			fgit_buf_adds(&out, " \"");
			for (p = dot + 1; p < user_name - 1; p++) {
				if (*p == '"' || *p == '\\')
					fgit_buf_addch(&out, '\\');
				fgit_buf_addch(&out, *p);
			}
			fgit_buf_addch(&out, '"');
		}
		fgit_buf_adds(&out, "]\n");
		fgit_buf_add(&out, line.ptr, line.len);
	}
	ret = fgit_lockfile_write(lk, out.ptr, out.len);
	if (ret)
		goto out;
	ret = fgit_lockfile_commit(lk);
	lk = NULL;
out:
	fgit_lockfile_rollback(lk);
	fgit_buf_release(&old);
	fgit_buf_release(&out);
	fgit_buf_release(&line);
	free(section);
	free(canon);
	return ret;
}
