/*
 * Attributes (see include/fgit/attr.h).
 *
 * Every attribute name is interned to a small number, in the order names
 * are first seen (git lists attributes in that order).  A rule is a pattern
 * with a list of (attribute, state) pairs.  A lookup walks the rules from
 * the highest precedence down ($GIT_DIR/info/attributes, then the deepest
 * .gitattributes up to the top one, then global, then system; within a
 * file from the last line up; within a line from the last token back) and
 * fills each attribute the first time it is met, expanding a macro that is
 * set right where it is filled.  An explicit "!attr" fills the attribute as
 * unspecified, which hides what lower rules say.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/wildmatch.h"

enum {
	ST_UNKNOWN = -1,	/* not filled yet during a lookup */
};

struct assign {
	int attr;
	enum fgit_attr_state state;
	char *value;
};

struct rule {
	char *pattern;		/* without leading '/', trailing '/' */
	int basename_only;	/* no '/' in the pattern: match the last component */
	int dir_only;		/* had a trailing '/': never matches a file */
	int is_macro;		/* [attr]name: defines attribute `macro` */
	int macro;
	struct assign *assigns;
	size_t nassigns;
};

struct file {
	char *dir;		/* "" or "d/e/" this file applies below */
	struct rule *rules;
	size_t nrules;
};

struct dirent_cache {
	char *dir;		/* "d/e/" */
	struct file *file;	/* NULL when the directory has none */
};

struct fgit_attrs {
	struct fgit_attr_options opts;
	char *workdir;
	pthread_mutex_t lock;
	char **names;		/* interned attribute names */
	size_t nnames, anames;
	struct assign **macros;	/* per attribute: its macro expansion or NULL */
	size_t *nmacro;
	struct file *system, *global, *info;
	struct dirent_cache *dirs;
	size_t ndirs, adirs;
	/* open addressing over dirs: index + 1, 0 = empty; hcap a power of 2.
	 * A linear scan here made `add -A` of 5,000 directories quadratic. */
	size_t *htab, hcap;
};

static size_t dir_hash(const char *s, size_t n)
{
	size_t h = 2166136261u;
	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int dir_index_rebuild(struct fgit_attrs *a, size_t cap)
{
	size_t *t = calloc(cap, sizeof(*t)), i;
	if (!t)
		return -1;
	for (i = 0; i < a->ndirs; i++) {
		size_t h = dir_hash(a->dirs[i].dir, strlen(a->dirs[i].dir)) & (cap - 1);
		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	free(a->htab);
	a->htab = t;
	a->hcap = cap;
	return 0;
}

static void warnf(struct fgit_attrs *a, const char *fmt, const char *x, const char *src, int line)
{
	char msg[1024];
	if (!a->opts.warn)
		return;
	snprintf(msg, sizeof(msg), fmt, x, src, line);
	a->opts.warn(msg, 0, a->opts.payload);
}

static int intern(struct fgit_attrs *a, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < a->nnames; i++)
		if (strlen(a->names[i]) == len && !memcmp(a->names[i], name, len))
			return (int)i;
	if (a->nnames == a->anames) {
		size_t n = a->anames ? a->anames * 2 : 32;
		char **nn = realloc(a->names, n * sizeof(*nn));
		struct assign **nm = realloc(a->macros, n * sizeof(*nm));
		size_t *nc;
		if (nn)
			a->names = nn;
		if (nm)
			a->macros = nm;
		nc = realloc(a->nmacro, n * sizeof(*nc));
		if (nc)
			a->nmacro = nc;
		if (!nn || !nm || !nc)
			return FGIT_ENOMEM;
		a->anames = n;
	}
	a->names[a->nnames] = strndup(name, len);
	if (!a->names[a->nnames])
		return FGIT_ENOMEM;
	a->macros[a->nnames] = NULL;
	a->nmacro[a->nnames] = 0;
	return (int)a->nnames++;
}

static int valid_attr_name(const char *s, size_t n)
{
	size_t i;
	if (!n || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '-' || c == '.' || c == '_' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return 0;
	}
	return 1;
}

/* Unquote a C-style quoted pattern in place; returns its end or NULL. */
static char *unquote(char *s)
{
	char *in = s + 1, *out = s;
	while (*in && *in != '"') {
		if (*in == '\\' && in[1]) {
			in++;
			switch (*in) {
			case 'n': *out++ = '\n'; break;
			case 't': *out++ = '\t'; break;
			case 'a': *out++ = '\a'; break;
			case 'b': *out++ = '\b'; break;
			case 'f': *out++ = '\f'; break;
			case 'r': *out++ = '\r'; break;
			case 'v': *out++ = '\v'; break;
			default:
				if (*in >= '0' && *in <= '3' && in[1] >= '0' && in[1] <= '7' &&
				    in[2] >= '0' && in[2] <= '7') {
					*out++ = (char)((in[0] - '0') * 64 + (in[1] - '0') * 8 + in[2] - '0');
					in += 2;
				} else {
					*out++ = *in;
				}
			}
			in++;
		} else {
			*out++ = *in++;
		}
	}
	if (*in != '"')
		return NULL;
	*out = '\0';
	return in + 1;
}

static int parse_line(struct fgit_attrs *a, struct file *f, char *line, const char *src,
		      int lineno, int macros_ok)
{
	char *p = line, *pat, *end;
	struct rule r;
	int ret = 0;

	memset(&r, 0, sizeof(r));
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (!*p || *p == '#')
		return 0;
	if (*p == '"') {
		pat = p;
		end = unquote(p);
		if (!end)
			return 0;
		p = end;
	} else {
		pat = p;
		p += strcspn(p, " \t\r");
		if (*p)
			*p++ = '\0';
	}
	if (*p && (*p == ' ' || *p == '\t' || *p == '\r'))
		*p++ = '\0';
	if (!strncmp(pat, "[attr]", 6)) {
		const char *name = pat + 6;
		if (!macros_ok) {
			/* git names the whole line here, and says it bare */
			if (a->opts.warn) {
				char msg[1024];
				snprintf(msg, sizeof(msg), "%s%s%s not allowed: %s:%d", pat,
					 *p ? " " : "", p, src, lineno);
				a->opts.warn(msg, 1, a->opts.payload);
			}
			return 0;
		}
		if (!valid_attr_name(name, strlen(name))) {
			warnf(a, "%s is not a valid attribute name: %s:%d", name, src, lineno);
			return 0;
		}
		r.is_macro = 1;
		if ((r.macro = intern(a, name, strlen(name))) < 0)
			return r.macro;
	} else {
		size_t len = strlen(pat);
		if (pat[0] == '!') {
			if (a->opts.warn)
				a->opts.warn("Negative patterns are ignored in git attributes\n"
					     "Use '\\!' for literal leading exclamation.",
					     0, a->opts.payload);
			return 0;
		}
		if (len && pat[len - 1] == '/') {
			r.dir_only = 1;
			pat[--len] = '\0';
		}
		r.basename_only = !strchr(pat, '/');
		if (*pat == '/')
			pat++;
		r.pattern = strdup(pat);
		if (!r.pattern)
			return FGIT_ENOMEM;
	}
	/* the attribute tokens */
	for (;;) {
		char *tok;
		size_t tl;
		struct assign as;
		const char *eq;

		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		tok = p;
		p += strcspn(p, " \t\r");
		tl = (size_t)(p - tok);
		memset(&as, 0, sizeof(as));
		if (*tok == '-' || *tok == '!') {
			as.state = *tok == '-' ? FGIT_ATTR_UNSET : FGIT_ATTR_UNSPECIFIED;
			tok++;
			tl--;
		} else {
			as.state = FGIT_ATTR_SET;
		}
		eq = memchr(tok, '=', tl);
		if (eq && as.state == FGIT_ATTR_SET) {
			as.state = FGIT_ATTR_VALUE;
			as.value = strndup(eq + 1, tl - (size_t)(eq + 1 - tok));
			if (!as.value) {
				ret = FGIT_ENOMEM;
				break;
			}
			tl = (size_t)(eq - tok);
		}
		if (!valid_attr_name(tok, tl)) {
			char name[256];
			snprintf(name, sizeof(name), "%.*s", (int)tl, tok);
			warnf(a, "%s is not a valid attribute name: %s:%d", name, src, lineno);
			free(as.value);
			continue;
		}
		if ((as.attr = intern(a, tok, tl)) < 0) {
			free(as.value);
			ret = as.attr;
			break;
		}
		{
			struct assign *na = realloc(r.assigns, (r.nassigns + 1) * sizeof(*na));
			if (!na) {
				free(as.value);
				ret = FGIT_ENOMEM;
				break;
			}
			r.assigns = na;
			r.assigns[r.nassigns++] = as;
		}
	}
	if (!ret) {
		struct rule *nr = realloc(f->rules, (f->nrules + 1) * sizeof(*nr));
		if (!nr) {
			ret = FGIT_ENOMEM;
		} else {
			f->rules = nr;
			f->rules[f->nrules++] = r;
			if (r.is_macro) {
				/* the latest definition read wins */
				a->macros[r.macro] = r.assigns;
				a->nmacro[r.macro] = r.nassigns;
			}
			return 0;
		}
	}
	free(r.pattern);
	free(r.assigns);
	return ret;
}

static int parse_buffer(struct fgit_attrs *a, struct file **out, const char *dir,
			char *buf, size_t len, const char *src, int macros_ok)
{
	struct file *f = calloc(1, sizeof(*f));
	char *line = buf, *end = buf + len;
	int lineno = 0, r;

	if (!f || !(f->dir = strdup(dir))) {
		free(f);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	/* skip a UTF-8 byte-order mark */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		line += 3;
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (nl)
			*nl = '\0';
		lineno++;
		if ((r = parse_line(a, f, line, src, lineno, macros_ok)) < 0) {
			*out = f;
			return r;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	*out = f;
	return 0;
}

static int load_path(struct fgit_attrs *a, struct file **out, const char *path,
		     const char *dir, int macros_ok)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int r = fgit_buf_read_file(&b, path);

	*out = NULL;
	if (r == FGIT_ENOTFOUND || (r < 0 && errno == ENOTDIR)) {
		fgit_buf_release(&b);
		fgit_error_clear();
		return 0;
	}
	if (r < 0) {
		fgit_buf_release(&b);
		return r;
	}
	r = parse_buffer(a, out, dir, b.ptr, b.len, path, macros_ok);
	fgit_buf_release(&b);
	return r;
}

static int dir_file(struct file **out, struct fgit_attrs *a, const char *dir, size_t dirlen);

int fgit_attrs_new(struct fgit_attrs **out, const struct fgit_attr_options *opts)
{
	struct fgit_attrs *a = calloc(1, sizeof(*a));
	static char builtin[] = "[attr]binary -diff -merge -text";
	struct file *bf = NULL;
	int r;

	if (!a)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	a->opts = *opts;
	a->workdir = opts->workdir ? strdup(opts->workdir) : NULL;
	pthread_mutex_init(&a->lock, NULL);
	/* git's order of first sight: built-ins, system, global, info */
	{
		char tmp[sizeof(builtin)];
		memcpy(tmp, builtin, sizeof(builtin));
		r = parse_buffer(a, &bf, "", tmp, strlen(tmp), "[builtin]", 1);
		a->system = bf;	/* the built-in macro rides along with the system rules */
	}
	if (!r && opts->system_file) {
		struct file *sf;
		r = load_path(a, &sf, opts->system_file, "", 1);
		if (sf) {
			/* append system rules after the built-in macro */
			struct rule *nr = realloc(bf->rules, (bf->nrules + sf->nrules) * sizeof(*nr));
			if (nr) {
				memcpy(nr + bf->nrules, sf->rules, sf->nrules * sizeof(*nr));
				bf->rules = nr;
				bf->nrules += sf->nrules;
				free(sf->rules);
				free(sf->dir);
				free(sf);
			} else {
				r = FGIT_ENOMEM;
			}
		}
	}
	if (!r && opts->global_file)
		r = load_path(a, &a->global, opts->global_file, "", 1);
	/* the top-level .gitattributes is read before info/attributes, which
	 * decides the order names are first seen (check-attr -a) */
	if (!r) {
		struct file *top;
		r = dir_file(&top, a, "", 0);
	}
	if (!r && opts->info_file)
		r = load_path(a, &a->info, opts->info_file, "", 1);
	if (r < 0) {
		fgit_attrs_free(a);
		return r;
	}
	*out = a;
	return 0;
}

static void free_file(struct file *f)
{
	size_t i, j;
	if (!f)
		return;
	for (i = 0; i < f->nrules; i++) {
		for (j = 0; j < f->rules[i].nassigns; j++)
			free(f->rules[i].assigns[j].value);
		free(f->rules[i].assigns);
		free(f->rules[i].pattern);
	}
	free(f->rules);
	free(f->dir);
	free(f);
}

void fgit_attrs_free(struct fgit_attrs *a)
{
	size_t i;
	if (!a)
		return;
	free_file(a->system);
	free_file(a->global);
	free_file(a->info);
	for (i = 0; i < a->ndirs; i++) {
		free_file(a->dirs[i].file);
		free(a->dirs[i].dir);
	}
	free(a->dirs);
	free(a->htab);
	for (i = 0; i < a->nnames; i++)
		free(a->names[i]);
	free(a->names);
	free(a->macros);
	free(a->nmacro);
	free(a->workdir);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* The .gitattributes of directory `dir` ("" or "d/e/"), loaded once. */
static int dir_file(struct file **out, struct fgit_attrs *a, const char *dir, size_t dirlen)
{
	struct fgit_buf path = FGIT_BUF_INIT, content = FGIT_BUF_INIT;
	struct file *f = NULL;
	char dirz[4096];
	size_t i;
	int r = 0;

	if (a->hcap) {
		size_t h = dir_hash(dir, dirlen) & (a->hcap - 1);
		for (; a->htab[h]; h = (h + 1) & (a->hcap - 1)) {
			i = a->htab[h] - 1;
			if (!strncmp(a->dirs[i].dir, dir, dirlen) && !a->dirs[i].dir[dirlen]) {
				*out = a->dirs[i].file;
				return 0;
			}
		}
	}
	(void)i;
	if (!a->opts.read_file && !a->workdir) {
		/* no attribute files to read (a bare repository): nothing to
		 * remember either (hash-object -w --stdin-paths of 100,000 files
		 * in 5,000 directories held 400 KiB of empty entries) */
		*out = NULL;
		return 0;
	}
	if (dirlen >= sizeof(dirz))
		return fgit_error_set(FGIT_EINVALID, "path too long");
	memcpy(dirz, dir, dirlen);
	dirz[dirlen] = '\0';
	fgit_buf_addf(&path, "%s.gitattributes", dirz);
	if (a->opts.read_file) {
		r = a->opts.read_file(&content, path.ptr, a->opts.payload);
	} else if (a->workdir) {
		struct fgit_buf full = FGIT_BUF_INIT;
		fgit_buf_addf(&full, "%s/%s", a->workdir, path.ptr);
		r = fgit_buf_read_file(&content, full.ptr);
		if (r < 0 && (r == FGIT_ENOTFOUND || errno == ENOTDIR || errno == EISDIR))
			r = FGIT_ENOTFOUND;
		fgit_buf_release(&full);
	} else {
		r = FGIT_ENOTFOUND;
	}
	if (r == FGIT_ENOTFOUND) {
		fgit_error_clear();
		r = 0;
	} else if (!r) {
		r = parse_buffer(a, &f, dirz, content.ptr, content.len, path.ptr, !dirlen);
	}
	fgit_buf_release(&content);
	fgit_buf_release(&path);
	if (r < 0) {
		free_file(f);
		return r;
	}
	if (a->ndirs == a->adirs) {
		size_t n = a->adirs ? a->adirs * 2 : 16;
		struct dirent_cache *nd = realloc(a->dirs, n * sizeof(*nd));
		if (!nd) {
			free_file(f);
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		a->dirs = nd;
		a->adirs = n;
	}
	a->dirs[a->ndirs].dir = strdup(dirz);
	a->dirs[a->ndirs++].file = f;
	if (!a->dirs[a->ndirs - 1].dir)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (a->ndirs * 2 > a->hcap) {
		if (dir_index_rebuild(a, a->hcap ? a->hcap * 2 : 64) < 0)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
	} else {
		size_t h = dir_hash(dirz, dirlen) & (a->hcap - 1);
		while (a->htab[h])
			h = (h + 1) & (a->hcap - 1);
		a->htab[h] = a->ndirs;
	}
	*out = f;
	return 0;
}

static int rule_matches(const struct fgit_attrs *a, const struct rule *r, const char *dir,
			const char *path)
{
	size_t dl = strlen(dir);
	unsigned flags = a->opts.ignore_case ? FGIT_WM_CASEFOLD : 0;
	const char *rel;

	if (r->is_macro || r->dir_only)
		return 0;
	if (strncmp(path, dir, dl))
		return 0;
	rel = path + dl;
	if (r->basename_only) {
		const char *base = strrchr(rel, '/');
		return fgit_wildmatch(r->pattern, base ? base + 1 : rel, flags);
	}
	return fgit_wildmatch(r->pattern, rel, flags | FGIT_WM_PATHNAME);
}

struct lookup {
	int *state;		/* per attribute: ST_UNKNOWN or enum fgit_attr_state */
	const char **value;
	size_t remaining;
};

static void fill(struct fgit_attrs *a, struct lookup *l, const struct assign *as, size_t n,
		 int depth)
{
	size_t i;
	for (i = n; i-- > 0;) {
		int at = as[i].attr;
		if (l->state[at] != ST_UNKNOWN)
			continue;
		l->state[at] = (int)as[i].state;
		l->value[at] = as[i].value;
		/* a macro that is set brings its own attributes */
		if (as[i].state == FGIT_ATTR_SET && a->macros[at] && depth < 32)
			fill(a, l, a->macros[at], a->nmacro[at], depth + 1);
	}
}

static void apply_file(struct fgit_attrs *a, struct lookup *l, const struct file *f,
		       const char *path)
{
	size_t i;
	if (!f)
		return;
	for (i = f->nrules; i-- > 0;)
		if (rule_matches(a, &f->rules[i], f->dir, path))
			fill(a, l, f->rules[i].assigns, f->rules[i].nassigns, 0);
}

/* Fill l for every attribute of path; the caller holds the lock. */
static int lookup_all(struct fgit_attrs *a, struct lookup *l, const char *path)
{
	const char *slashes[512];
	size_t nsl = 0, i;
	const char *p;
	int r;

	for (p = path; *p; p++)
		if (*p == '/' && nsl < 512)
			slashes[nsl++] = p;
	/* load every directory's file first: interning may grow the tables */
	for (i = 0; i <= nsl; i++) {
		struct file *f;
		size_t dl = i ? (size_t)(slashes[i - 1] - path) + 1 : 0;
		if ((r = dir_file(&f, a, path, dl)) < 0)
			return r;
	}
	l->state = malloc(a->nnames * sizeof(*l->state));
	l->value = calloc(a->nnames, sizeof(*l->value));
	if (!l->state || !l->value) {
		free(l->state);
		free(l->value);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	for (i = 0; i < a->nnames; i++)
		l->state[i] = ST_UNKNOWN;
	apply_file(a, l, a->info, path);
	for (i = nsl + 1; i-- > 0;) {
		struct file *f;
		size_t dl = i ? (size_t)(slashes[i - 1] - path) + 1 : 0;
		dir_file(&f, a, path, dl);
		apply_file(a, l, f, path);
	}
	apply_file(a, l, a->global, path);
	apply_file(a, l, a->system, path);
	return 0;
}

static void to_value(struct fgit_attr_value *out, int st, const char *v)
{
	out->state = st == ST_UNKNOWN ? FGIT_ATTR_UNSPECIFIED : (enum fgit_attr_state)st;
	out->value = out->state == FGIT_ATTR_VALUE ? v : NULL;
}

/*
 * Whether any attribute file that applies to path has a rule: 0 lets a
 * lookup answer "unspecified" at once, the common case of a tree without
 * attributes (hash-object --stdin-paths looks up every file: 100,000 files
 * in 5,000 directories spent 15% of their CPU time in full lookups).
 * Loads the directories' files.  The caller holds the lock.
 */
static int has_pattern_rules(const struct file *f)
{
	size_t i;
	for (i = 0; f && i < f->nrules; i++)
		if (!f->rules[i].is_macro)
			return 1;
	return 0;
}

static int path_has_rules(struct fgit_attrs *a, const char *path)
{
	const char *p;
	struct file *f;
	int r;

	if (has_pattern_rules(a->info) || has_pattern_rules(a->global) ||
	    has_pattern_rules(a->system))
		return 1;
	if ((r = dir_file(&f, a, path, 0)) < 0)
		return r;
	if (has_pattern_rules(f))
		return 1;
	for (p = path; (p = strchr(p, '/')); p++) {
		if ((r = dir_file(&f, a, path, (size_t)(p - path) + 1)) < 0)
			return r;
		if (has_pattern_rules(f))
			return 1;
	}
	return 0;
}

int fgit_attrs_get(struct fgit_attr_value *out, struct fgit_attrs *a, const char *path,
		   const char *const *names, size_t n)
{
	struct lookup l;
	size_t i, j;
	int r;

	pthread_mutex_lock(&a->lock);
	r = path_has_rules(a, path);
	if (r <= 0) {
		for (i = 0; i < n; i++) {
			out[i].state = FGIT_ATTR_UNSPECIFIED;
			out[i].value = NULL;
		}
		pthread_mutex_unlock(&a->lock);
		return r;
	}
	r = lookup_all(a, &l, path);
	if (!r) {
		for (i = 0; i < n; i++) {
			out[i].state = FGIT_ATTR_UNSPECIFIED;
			out[i].value = NULL;
			for (j = 0; j < a->nnames; j++)
				if (!strcmp(a->names[j], names[i])) {
					to_value(&out[i], l.state[j], l.value[j]);
					break;
				}
		}
		free(l.state);
		free(l.value);
	}
	pthread_mutex_unlock(&a->lock);
	return r;
}

int fgit_attrs_get_all(struct fgit_attrs *a, const char *path,
		       int (*cb)(const char *, const struct fgit_attr_value *, void *),
		       void *payload)
{
	struct lookup l;
	size_t i;
	int r;

	pthread_mutex_lock(&a->lock);
	r = lookup_all(a, &l, path);
	if (!r) {
		for (i = 0; i < a->nnames && !r; i++) {
			struct fgit_attr_value v;
			to_value(&v, l.state[i], l.value[i]);
			if (v.state != FGIT_ATTR_UNSPECIFIED)
				r = cb(a->names[i], &v, payload);
		}
		free(l.state);
		free(l.value);
	}
	pthread_mutex_unlock(&a->lock);
	return r;
}
