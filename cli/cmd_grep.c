/*
 * git grep: sources (the worktree's tracked files, --cached, tree-ishes,
 * --untracked, --no-index), pathspecs and --max-depth, options and config,
 * colours, and the threads; the matching and each file's output are
 * lib/grep's (fgit_grep_buffer).
 *
 * The files to search are listed first (index entries, tree walks or the
 * directory walk, on this thread), then read and searched by
 * fgit_ordered_run's workers (worktree reads, or blob inflation from the
 * odb, which has no global lock) with one compiled matcher per thread;
 * output is written in git's order from this thread.
 *
 * Hunk marks: git 2.39 with more than one thread writes "--" (or the
 * --break blank line) before every file's output and drops the first line
 * of the first output; with one thread it writes marks only after a file
 * has shown lines.  We print what git would for the thread count git
 * would use (--threads, grep.threads, else the number of CPUs), whatever
 * number of threads we run.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attr_setup.h"
#include "cli.h"
#include "wt_setup.h"
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/grep.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/ordered.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"
#include "fgit/thread.h"
#include "fgit/worktree.h"

static const char *const grep_usage[] = {
	"git grep [<options>] [-e] <pattern> [<rev>...] [[--] <path>...]",
	NULL
};

/* ---- options ---- */

static struct fgit_grep_options go;
static struct fgit_grep *matcher;	/* tokens in command-line order */
static int pattern_type = -1;		/* from -G/-E/-F/-P */
static int cached, untracked, no_index, opt_exclude = -1, full_name = -1;
static int max_depth = -1, threads_opt = -1, color_opt = -1;
static int linenum = -1, column = -1, ctx_a = -1, ctx_b = -1;
static int name_only, unmatch_name_only, text, no_binary;
static int hide_names, show_names;
static int max_count = -1;

/* Tokens in command-line order; the matcher is built once options are final. */
struct token { enum fgit_grep_token t; char *pat; size_t len; };
static struct token *tokens;
static size_t ntokens, npatterns;

static void add_token(enum fgit_grep_token t, const char *pat, size_t len)
{
	tokens = realloc(tokens, (ntokens + 1) * sizeof(*tokens));
	if (!tokens)
		die("out of memory");
	tokens[ntokens].t = t;
	tokens[ntokens].pat = pat ? strndup(pat, len) : NULL;
	tokens[ntokens].len = len;
	ntokens++;
	if (t == FGIT_GREP_PATTERN)
		npatterns++;
}

static int cb_e(const struct cli_option *o, const char *arg, int unset)
{
	add_token(FGIT_GREP_PATTERN, arg, strlen(arg));
	return 0;
}

static int cb_f(const struct cli_option *o, const char *arg, int unset)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int from_stdin = !strcmp(arg, "-");

	fp = from_stdin ? stdin : fopen(arg, "r");
	if (!fp)
		die_errno("cannot open '%s'", arg);
	while ((n = getline(&line, &cap, fp)) >= 0) {
		if (n && line[n - 1] == '\n')
			n--;
		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		add_token(FGIT_GREP_PATTERN, line, n);
	}
	free(line);
	if (!from_stdin)
		fclose(fp);
	return 0;
}

static int cb_token(const struct cli_option *o, const char *arg, int unset)
{
	add_token((enum fgit_grep_token)o->defval, NULL, 0);
	return 0;
}

static int cb_context(const struct cli_option *o, const char *arg, int unset)
{
	char *end;
	long v;
	if (unset) {
		v = 0;
	} else {
		v = strtol(arg, &end, 10);
		if (!*arg || *end || v < 0)
			die("switch `%c' expects a numerical value", o->short_name);
	}
	if (o->short_name == 'A' || o->short_name == 'C')
		ctx_a = (int)v;
	if (o->short_name == 'B' || o->short_name == 'C')
		ctx_b = (int)v;
	return 0;
}

static int cb_color(const struct cli_option *o, const char *arg, int unset)
{
	if (unset)
		color_opt = 0;
	else if (!arg || !strcasecmp(arg, "always") || !strcasecmp(arg, "yes") ||
		 !strcasecmp(arg, "true") || !strcasecmp(arg, "force"))
		color_opt = 1;
	else if (!strcasecmp(arg, "never") || !strcasecmp(arg, "no") ||
		 !strcasecmp(arg, "false") || !strcasecmp(arg, "none"))
		color_opt = 0;
	else if (!strcasecmp(arg, "auto") || !strcasecmp(arg, "tty") ||
		 !strcasecmp(arg, "if-tty"))
		color_opt = 2;
	else
		die("option `color' expects \"always\", \"auto\", or \"never\"");
	return 0;
}

static int cb_type(const struct cli_option *o, const char *arg, int unset)
{
	pattern_type = (int)o->defval;
	return 0;
}

static int cb_recursive(const struct cli_option *o, const char *arg, int unset)
{
	max_depth = unset ? 0 : -1;
	return 0;
}

/* ---- colours (git's color_parse) ---- */

static int parse_color_word(const char *w, size_t n, int *out)
{
	static const char *const names[] = { "black", "red", "green", "yellow",
		"blue", "magenta", "cyan", "white" };
	size_t i;
	char *end;
	long v;
	int bright = 0;

	if (n == 6 && !strncasecmp(w, "normal", 6)) {
		*out = -1;
		return 0;
	}
	if (n == 7 && !strncasecmp(w, "default", 7)) {
		*out = -2;
		return 0;
	}
	if (n == 7 && w[0] == '#' && strspn(w + 1, "0123456789abcdefABCDEF") == 6) {
		char hex[7];
		memcpy(hex, w + 1, 6);
		hex[6] = 0;
		*out = 2000000 + (int)strtol(hex, NULL, 16);
		return 0;
	}
	if (n > 6 && !strncasecmp(w, "bright", 6)) {
		bright = 1;
		w += 6;
		n -= 6;
	}
	for (i = 0; i < 8; i++)
		if (strlen(names[i]) == n && !strncasecmp(w, names[i], n)) {
			*out = (bright ? 90 : 30) + (int)i;
			return 0;
		}
	if (bright)
		return -1;
	v = strtol(w, &end, 10);
	if (end == w + n && v >= -1 && v <= 255) {
		*out = v == -1 ? -1 : 1000 + (int)v;
		return 0;
	}
	return -1;
}

/* One colour as an SGR parameter: foreground or background (+10). */
static void add_color_code(struct fgit_buf *b, int c, int bg, int sep)
{
	const char *s = sep ? ";" : "";
	if (c >= 2000000)
		fgit_buf_addf(b, "%s%d;2;%d;%d;%d", s, bg ? 48 : 38, (c - 2000000) >> 16,
			      ((c - 2000000) >> 8) & 255, (c - 2000000) & 255);
	else if (c == -2)
		fgit_buf_addf(b, "%s%d", s, bg ? 49 : 39);
	else if (c >= 1000)
		fgit_buf_addf(b, "%s%d;5;%d", s, bg ? 48 : 38, c - 1000);
	else
		fgit_buf_addf(b, "%s%d", s, c + (bg ? 10 : 0));
}

static char *color_parse(const char *v)
{
	static const char *const attrs[] = { "bold", "dim", "italic", "ul", "blink",
		NULL, "reverse", NULL, "strike" };
	struct fgit_buf b = FGIT_BUF_INIT;
	int fg = -1, bg = -1, have_fg = 0, have_bg = 0;
	unsigned attr_on = 0, attr_off = 0;
	const char *p = v;
	int sep = 0;

	if (!strcasecmp(v, "reset"))
		return strdup("\033[m");
	while (*p) {
		const char *w;
		size_t n, i;
		int c;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		n = p - w;
		if (!parse_color_word(w, n, &c)) {
			if (!have_fg) {
				fg = c;
				have_fg = 1;
			} else if (!have_bg) {
				bg = c;
				have_bg = 1;
			} else {
				return NULL;
			}
			continue;
		}
		{
			int neg = 0;
			if (n > 3 && !strncasecmp(w, "no-", 3)) {
				neg = 1;
				w += 3;
				n -= 3;
			} else if (n > 2 && !strncasecmp(w, "no", 2)) {
				neg = 1;
				w += 2;
				n -= 2;
			}
			for (i = 0; i < sizeof(attrs) / sizeof(*attrs); i++)
				if (attrs[i] && strlen(attrs[i]) == n && !strncasecmp(w, attrs[i], n))
					break;
			if (i == sizeof(attrs) / sizeof(*attrs))
				return NULL;
			if (neg)
				attr_off |= 1u << i, attr_on &= ~(1u << i);
			else
				attr_on |= 1u << i, attr_off &= ~(1u << i);
		}
	}
	if (!attr_on && !attr_off && fg == -1 && bg == -1)
		return strdup("");
	fgit_buf_adds(&b, "\033[");
	{
		int i;
		for (i = 0; i < 9; i++)
			if (attr_on & (1u << i)) {
				fgit_buf_addf(&b, "%s%d", sep ? ";" : "", i + 1);
				sep = 1;
			}
		for (i = 0; i < 9; i++)
			if (attr_off & (1u << i)) {
				fgit_buf_addf(&b, "%s%d", sep ? ";" : "", i < 2 ? 22 : 21 + i);
				sep = 1;
			}
	}
	if (fg != -1) {
		add_color_code(&b, fg, 0, sep);
		sep = 1;
	}
	if (bg != -1)
		add_color_code(&b, bg, 1, sep);
	fgit_buf_addch(&b, 'm');
	return fgit_buf_detach(&b, NULL);
}

/* ---- config ---- */

static int cfg_pattern_type = -1, cfg_extended = 0, cfg_threads = -1;
static int cfg_color = -1;	/* color.grep / color.ui: 0 never, 1 always, 2 auto */
static int cfg_fallback;

static int parse_color_bool(const char *v)
{
	int b;
	if (!v)
		return 1;
	if (!strcasecmp(v, "always"))
		return 1;
	if (!strcasecmp(v, "never"))
		return 0;
	if (!strcasecmp(v, "auto"))
		return 2;
	b = fgit_config_parse_bool(v);
	return b < 0 ? -1 : b ? 2 : 0;
}

static int config_bool(const char *key, const char *value)
{
	int b = value ? fgit_config_parse_bool(value) : 1;
	if (b < 0)
		die("bad boolean config value '%s' for '%s'", value, key);
	return b;
}

static int config_cb(const char *key, const char *value, enum fgit_config_scope s,
		     void *payload)
{
	static const char *const slots[] = { "context", "filename", "function",
		"linenumber", "column", "matchcontext", "matchselected", "selected",
		"separator" };
	int b;

	if (!strcmp(key, "grep.linenumber")) {
		linenum = config_bool(key, value);
	} else if (!strcmp(key, "grep.column")) {
		column = config_bool(key, value);
	} else if (!strcmp(key, "grep.fullname")) {
		full_name = config_bool(key, value);
	} else if (!strcmp(key, "grep.extendedregexp")) {
		cfg_extended = config_bool(key, value);
	} else if (!strcmp(key, "grep.patterntype")) {
		if (!value)
			die("missing value for '%s'", key);
		if (!strcmp(value, "default"))
			cfg_pattern_type = -1;
		else if (!strcmp(value, "basic"))
			cfg_pattern_type = FGIT_GREP_BRE;
		else if (!strcmp(value, "extended"))
			cfg_pattern_type = FGIT_GREP_ERE;
		else if (!strcmp(value, "fixed"))
			cfg_pattern_type = FGIT_GREP_FIXED;
		else if (!strcmp(value, "perl"))
			cfg_pattern_type = FGIT_GREP_PCRE;
		else
			die("bad grep.patternType: '%s'", value);
	} else if (!strcmp(key, "grep.threads")) {
		int64_t n;
		if (!value || fgit_config_parse_int64(&n, value))
			die("bad numeric config value '%s' for '%s': invalid unit",
			    value ? value : "", key);
		if (n < 0)
			die("invalid number of threads specified (%d) for %s", (int)n, key);
		cfg_threads = (int)n;
	} else if (!strcmp(key, "grep.fallbacktonoindex")) {
		b = value ? fgit_config_parse_bool(value) : 1;
		cfg_fallback = b > 0;
	} else if (!strcmp(key, "color.grep")) {
		cfg_color = parse_color_bool(value);
	} else if (!strncmp(key, "color.grep.", 11)) {
		const char *slot = key + 11;
		size_t i;
		char *c;
		if (!value)
			die("missing value for '%s'", key);
		c = color_parse(value);
		if (!c)
			die("invalid color value: %s", value);
		if (!strcmp(slot, "match")) {
			go.colors[FGIT_GREP_COLOR_MATCH_CONTEXT] = c;
			go.colors[FGIT_GREP_COLOR_MATCH_SELECTED] = c;
			return 0;
		}
		for (i = 0; i < sizeof(slots) / sizeof(*slots); i++)
			if (!strcmp(slot, slots[i])) {
				go.colors[i] = c;
				return 0;
			}
		free(c);
	}
	return 0;
}

/* ---- sources ---- */

enum item_kind { ITEM_FILE, ITEM_BLOB };

struct item {
	enum item_kind kind;
	char *name;		/* as printed */
	char *path;		/* attributes path (NULL: none); ITEM_FILE: fs path */
	struct fgit_oid oid;
	long long size;		/* ITEM_FILE: size the index expects, -1 unknown */
};

static struct item *items;
static size_t nitems, items_alloc;

static struct fgit_repo *repo;
static struct fgit_odb *odb;
static struct fgit_attrs *attrs;
static const char *prefix = "";
static int quote_path = 1;
static struct fgit_pathspec *ps;

static void add_item(enum item_kind k, const char *name, const char *path,
		     const struct fgit_oid *oid)
{
	struct item *it;
	if (nitems == items_alloc) {
		items_alloc = items_alloc ? items_alloc * 2 : 1024;
		items = realloc(items, items_alloc * sizeof(*items));
		if (!items)
			die("out of memory");
	}
	it = &items[nitems++];
	it->kind = k;
	it->name = strdup(name);
	it->path = path ? strdup(path) : NULL;
	if (!it->name || (path && !it->path))
		die("out of memory");
	if (oid)
		it->oid = *oid;
	it->size = -1;
}

/* git's grep_source_name: relative to the prefix unless --full-name,
 * C-quoted unless -z; a tree name "rev:" is kept in front. */
static void source_name(struct fgit_buf *out, const char *tree_name, const char *path)
{
	struct fgit_buf rel = FGIT_BUF_INIT;

	fgit_buf_reset(out);
	if (tree_name)
		fgit_buf_adds(out, tree_name);
	if (full_name <= 0 && *prefix)
		cli_add_relative(&rel, path, prefix);
	else
		fgit_buf_adds(&rel, path);
	if (go.null_following_name)
		fgit_buf_add(out, rel.ptr, rel.len);
	else
		cli_add_c_quoted(out, rel.ptr, rel.len, quote_path);
	fgit_buf_release(&rel);
}

static int has_wildcard(const char *s)
{
	for (; *s; s++)
		if (*s == '*' || *s == '?' || *s == '[' || *s == '\\')
			return 1;
	return 0;
}

/* git's within_depth after the pathspec element that matched. */
static int depth_ok(const char *path, size_t len)
{
	size_t i, n;
	if (max_depth < 0)
		return 1;
	n = ps ? fgit_pathspec_count(ps) : 0;
	if (!n) {
		int d = 0;
		for (i = 0; i < len; i++)
			if (path[i] == '/' && ++d > max_depth)
				return 0;
		return 1;
	}
	for (i = 0; i < n; i++) {
		unsigned magic = fgit_pathspec_item_magic(ps, i);
		const char *m = fgit_pathspec_item_match(ps, i);
		size_t ml = strlen(m), k;
		int d = 0, ok = 1;
		if (magic & FGIT_PATHSPEC_EXCLUDE)
			continue;
		if (!(magic & FGIT_PATHSPEC_LITERAL) && has_wildcard(m))
			return 1;
		if (ml && (ml > len || strncmp(m, path, ml)))
			continue;
		if (ml < len && path[ml] == '/')
			ml++;
		else if (ml && ml < len && m[ml - 1] != '/')
			continue;
		for (k = ml; k < len; k++)
			if (path[k] == '/' && ++d > max_depth) {
				ok = 0;
				break;
			}
		if (ok)
			return 1;
	}
	return 0;
}

static int path_matches(const char *path, size_t len)
{
	if (ps && !fgit_pathspec_match(ps, path, len, 0, NULL))
		return 0;
	return depth_ok(path, len);
}

/*
 * --cached reads every blob from the object database.  Seed 002's idea,
 * reading a stat-clean worktree file instead, was tried and dropped:
 * stat-clean does not prove the bytes equal the blob (a conversion setting
 * changed since the index was refreshed: CRLF files then stay stat-clean,
 * see t7810), and checking by hashing the file costs more than inflating
 * it (kernel corpus, --threads=1 --cached literal, CPU: blobs 2.35 s,
 * stat-clean files 0.75 s, stat-clean files hashed 3.1 s; preliminary).
 */
static void list_index(int use_cached)
{
	char *ipath = cli_index_path(repo);
	struct fgit_index *idx = cli_index_load(repo, ipath);
	size_t i, n = fgit_index_entrycount(idx);
	struct fgit_buf name = FGIT_BUF_INIT;

	free(ipath);
	for (i = 0; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, i);
		if (!use_cached && (e->flags & FGIT_INDEX_SKIP_WORKTREE))
			continue;
		if ((e->mode & 0170000) != 0100000)
			continue;
		if (!path_matches(e->path, e->path_len))
			continue;
		source_name(&name, NULL, e->path);
		if (use_cached || (e->flags & FGIT_INDEX_ASSUME_VALID)) {
			if (e->stage || (e->flags & FGIT_INDEX_INTENT_TO_ADD))
				continue;
			add_item(ITEM_BLOB, name.ptr, e->path, &e->oid);
		} else {
			add_item(ITEM_FILE, name.ptr, e->path, NULL);
			items[nitems - 1].size = e->size;
		}
		if (e->stage)
			while (i + 1 < n && !strcmp(fgit_index_get(idx, i + 1)->path, e->path))
				i++;
	}
	fgit_buf_release(&name);
	fgit_index_free(idx);
}

static void walk_tree(const struct fgit_oid *tree, struct fgit_buf *base, const char *tree_name,
		      int check_attr)
{
	void *data;
	size_t size;
	enum fgit_object_type type;
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	struct fgit_buf name = FGIT_BUF_INIT;
	size_t blen = base->len;
	int r;

	if (fgit_odb_read(&data, &size, &type, odb, tree) || type != FGIT_OBJ_TREE) {
		char hex[FGIT_MAX_HEXSZ + 1];
		die("unable to read tree (%s)", fgit_oid_to_hex(hex, tree));
	}
	fgit_tree_iter_init(&it, data, size, fgit_odb_algo(odb));
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		fgit_buf_setlen(base, blen);
		fgit_buf_add(base, e.name, e.name_len);
		if (fgit_mode_is_tree(e.mode)) {
			if (ps && !fgit_pathspec_could_match_under(ps, base->ptr, base->len))
				continue;
			fgit_buf_addch(base, '/');
			walk_tree(&e.oid, base, tree_name, check_attr);
		} else if ((e.mode & 0170000) == 0100000) {
			if (!path_matches(base->ptr, base->len))
				continue;
			source_name(&name, tree_name, base->ptr);
			add_item(ITEM_BLOB, name.ptr, check_attr ? base->ptr : NULL, &e.oid);
		}
	}
	if (r < 0)
		die_last();
	fgit_buf_setlen(base, blen);
	fgit_buf_release(&name);
	free(data);
}

static void list_object(const char *arg, const struct fgit_oid *oid)
{
	void *data;
	size_t size;
	enum fgit_object_type type;
	struct fgit_oid cur = *oid;
	int is_commit = 0;

	for (;;) {
		if (fgit_odb_read(&data, &size, &type, odb, &cur))
			die_last();
		if (type == FGIT_OBJ_TAG) {
			struct fgit_tag t;
			if (fgit_tag_parse(&t, data, size, fgit_odb_algo(odb)))
				die_last();
			cur = t.object;
			free(data);
			continue;
		}
		break;
	}
	if (type == FGIT_OBJ_COMMIT) {
		struct fgit_commit c;
		if (fgit_commit_parse(&c, data, size, fgit_odb_algo(odb)))
			die_last();
		cur = c.tree;
		is_commit = 1;
	} else if (type == FGIT_OBJ_BLOB) {
		struct fgit_buf name = FGIT_BUF_INIT;
		source_name(&name, NULL, arg);
		add_item(ITEM_BLOB, name.ptr, NULL, &cur);
		fgit_buf_release(&name);
		free(data);
		return;
	} else if (type != FGIT_OBJ_TREE) {
		die("unable to grep from object of type %s", fgit_object_type_name(type));
	}
	free(data);
	{
		struct fgit_buf base = FGIT_BUF_INIT, tn = FGIT_BUF_INIT;
		fgit_buf_adds(&tn, arg);
		fgit_buf_addch(&tn, ':');
		walk_tree(&cur, &base, tn.ptr, is_commit);
		fgit_buf_release(&base);
		fgit_buf_release(&tn);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **walked;
static size_t nwalked, walked_alloc;

static int walk_cb(const char *path, size_t len, int is_dir, void *payload)
{
	if (is_dir)
		return 0;
	if (!depth_ok(path, len))
		return 0;
	if (nwalked == walked_alloc) {
		walked_alloc = walked_alloc ? 2 * walked_alloc : 1024;
		walked = realloc(walked, walked_alloc * sizeof(*walked));
		if (!walked)
			die("out of memory");
	}
	walked[nwalked] = strndup(path, len);
	if (!walked[nwalked++])
		die("out of memory");
	return 0;
}

static void list_directory(int use_exclude)
{
	struct fgit_dirwalk_options wo = FGIT_DIRWALK_OPTIONS_INIT;
	struct fgit_ignore *ig = NULL;
	struct fgit_buf name = FGIT_BUF_INIT;
	size_t i;

	if (use_exclude) {
		struct fgit_ignore_options io = FGIT_IGNORE_OPTIONS_INIT;
		io.workdir = repo ? fgit_repo_work_tree(repo) : ".";
		if (fgit_ignore_new(&ig, &io))
			die_last();
		if (repo && cli_add_standard_excludes(ig, repo) < 0)
			die_last();
	}
	wo.ignore = ig;
	wo.pathspec = ps;
	wo.cb = walk_cb;
	if (fgit_dirwalk("", &wo) < 0)
		die_last();
	qsort(walked, nwalked, sizeof(*walked), cmp_str);
	for (i = 0; i < nwalked; i++) {
		source_name(&name, NULL, walked[i]);
		add_item(ITEM_FILE, name.ptr, walked[i], NULL);
		free(walked[i]);
	}
	free(walked);
	fgit_buf_release(&name);
	fgit_ignore_free(ig);
}

/* ---- running ---- */

struct slot {
	struct fgit_buf out;
	struct fgit_grep_result res;
	int hit;
	int err;
	char *errmsg;
};

static pthread_mutex_t matchers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fgit_grep **matchers;
static size_t nmatchers;
static __thread struct fgit_grep *my_matcher;

/*
 * Remember a thread's own object in *arr (under matchers_lock) so that the
 * main thread frees it at the end: 0, or -1 when out of memory (the caller
 * frees p itself).
 */
static int keep_for_exit(void *arr, size_t *n, void *p)
{
	void ***a = arr, **grown;

	pthread_mutex_lock(&matchers_lock);
	grown = realloc(*a, (*n + 1) * sizeof(**a));
	if (grown) {
		*a = grown;
		grown[(*n)++] = p;
	}
	pthread_mutex_unlock(&matchers_lock);
	return grown ? 0 : -1;
}

static struct fgit_grep *thread_matcher(void)
{
	struct fgit_grep *g;

	if (my_matcher || fgit_grep_dup(&g, matcher))
		return my_matcher;
	if (keep_for_exit(&matchers, &nmatchers, g) < 0) {
		fgit_grep_free(g);
		return NULL;
	}
	return my_matcher = g;
}

/*
 * Each thread inflates blobs into one buffer of its own, reused from blob
 * to blob (fgit_odb_read_into): no malloc and no page faults on fresh
 * memory per blob.
 */
static __thread struct fgit_buf *my_blob;
static struct fgit_buf **blobs;
static size_t nblobs;

static struct fgit_buf *thread_blob(void)
{
	struct fgit_buf *b;

	if (my_blob || !(b = malloc(sizeof(*b))))
		return my_blob;
	fgit_buf_init(b, 0);
	if (keep_for_exit(&blobs, &nblobs, b) < 0) {
		free(b);
		return NULL;
	}
	return my_blob = b;
}

static void set_slot_error(struct slot *s, int r)
{
	s->err = r;
	s->errmsg = strdup(fgit_error_last());
}

/* Each thread's worktree reader (see fgit_grep_reader), freed at the end. */
static struct fgit_grep_reader **readers;
static size_t nreaders;
static __thread struct fgit_grep_reader *my_reader;

static struct fgit_grep_reader *thread_reader(void)
{
	struct fgit_grep_reader *rd;

	if (my_reader || fgit_grep_reader_new(&rd))
		return my_reader;
	if (keep_for_exit(&readers, &nreaders, rd) < 0) {
		fgit_grep_reader_free(rd);
		return NULL;
	}
	return my_reader = rd;
}

static void work(size_t i, void *slotp, void *payload)
{
	struct slot *s = slotp;
	struct item *it = &items[i];
	struct fgit_grep *g = thread_matcher();
	struct fgit_grep_source src;
	int r;

	fgit_buf_init(&s->out, 0);
	src.name = it->name;
	src.path = it->path;
	if (!g) {
		set_slot_error(s, -1);
		return;
	}
	if (it->kind == ITEM_FILE) {
		struct fgit_grep_reader *rd = thread_reader();
		if (!rd) {
			set_slot_error(s, -1);
			return;
		}
		r = fgit_grep_reader_load(&src.buf, &src.size, rd, it->path, it->size);
		if (r < 0)
			s->errmsg = strdup(fgit_error_last());
		if (r <= 0)
			return;
	} else {
		enum fgit_object_type type;
		struct fgit_buf *blob = thread_blob();
		if (!blob) {
			set_slot_error(s, fgit_error_set(FGIT_ENOMEM, "out of memory"));
			return;
		}
		if ((r = fgit_odb_read_into(blob, &type, odb, &it->oid))) {
			set_slot_error(s, r);
			return;
		}
		src.buf = blob->ptr;
		src.size = blob->len;
	}
	r = fgit_grep_buffer(&s->out, &s->res, g, &src);
	if (r < 0)
		set_slot_error(s, r);
	else
		s->hit = r;
}

struct emit_state {
	int hit;
	int git_threaded;	/* git would run threads: its hunk-mark rule */
	int skip_first;		/* drop the first line of the first output */
	int shown_before;	/* a file showed lines (git's one-thread rule) */
	int quiet;
};

static int emit(size_t i, void *slotp, void *payload)
{
	struct emit_state *es = payload;
	struct slot *s = slotp;
	int stop = 0;

	if (s->errmsg && !s->err) {
		error("%s", s->errmsg);
	} else if (s->err) {
		fflush(stdout);
		fprintf(stderr, "fatal: %s\n", s->errmsg ? s->errmsg : "grep failed");
		exit(128);
	}
	if (s->out.len) {
		const char *p = s->out.ptr;
		size_t n = s->out.len;
		if (es->git_threaded) {
			if (es->skip_first) {
				while (n) {
					n--;
					if (*p++ == '\n')
						break;
				}
				es->skip_first = 0;
			}
		} else if (!es->shown_before) {
			p += s->res.mark_len;
			n -= s->res.mark_len;
		}
		fwrite(p, 1, n, stdout);
	}
	if (s->res.shown)
		es->shown_before = 1;
	if (s->hit) {
		es->hit = 1;
		if (es->quiet)
			stop = 1;
	}
	fgit_buf_release(&s->out);
	free(s->errmsg);
	return stop;
}

/*
 * Object greps churn the delta-base cache (96 MiB of bases allocated and
 * freed in turn) and inflate blobs of up to tens of MiB: glibc's defaults
 * hand big blocks back to the kernel on free (mmap threshold, heap trim)
 * and take page faults on them again at the next malloc.  Keeping freed
 * memory: kernel-grep corpus, grep --threads=1 literal HEAD~1, 67,400
 * page faults and 3.55-3.66 s CPU against 51,400 and 3.07-3.19 s (perf
 * stat, load average 19: CPU figures rough).
 */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/*
 * Object greps look up, at their first read from a pack, which of its
 * entries are delta bases (one pass over the pack, see
 * FGIT_ODB_ACCESS_ONCE_EACH); a thread does that while this one lists the
 * index or the trees, when there are threads to run.  Kernel corpus, grep
 * --cached literal: that pass was 5.6% of the CPU profile, on a worker.
 */
static pthread_t warm_thread;
static int warming;

static void *warm_bases(void *arg)
{
	fgit_odb_warm_bases(arg);
	return NULL;
}

static void start_warming(int nthreads)
{
	if (nthreads > 1 && odb)
		warming = !pthread_create(&warm_thread, NULL, warm_bases, odb);
}

static void finish_warming(void)
{
	if (warming)
		pthread_join(warm_thread, NULL);
	warming = 0;
}

/* ---- argument helpers ---- */

static int looks_like_pathspec(const char *arg)
{
	if (arg[0] == ':')
		return 1;
	return has_wildcard(arg);
}

static _Noreturn void die_ambiguous_path(const char *arg)
{
	die("%s: no such path in the working tree.\n"
	    "Use 'git <command> -- <path>...' to specify paths that do not exist locally.", arg);
}

static int path_exists(const char *arg)
{
	struct stat st;
	char *p = cli_prefix_path(prefix, arg);
	int ok;
	if (repo && fgit_repo_work_tree(repo)) {
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_addf(&b, "%s/%s", fgit_repo_work_tree(repo), p);
		ok = lstat(b.ptr, &st) == 0;
		fgit_buf_release(&b);
	} else {
		ok = lstat(p, &st) == 0;
	}
	free(p);
	return ok;
}

/*
 * "(" and ")" are options to git grep (parse-options' NODASH), and -NUM
 * means -C NUM: rewrite them for our parser, up to the first argument
 * that is not an option.
 */
static const char **rewrite_args(int argc, const char **argv)
{
	static const char *const takes_arg[] = { "-e", "-f", "-A", "-B", "-C", "-m",
		"--max-depth", "--threads", "--after-context", "--before-context",
		"--context", "--max-count", "--file", NULL };
	const char **out = calloc(2 * argc + 1, sizeof(*out));
	int i, j = 0, k;

	if (!out)
		die("out of memory");
	out[j++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "(")) {
			out[j++] = "--fgit-open-paren";
			continue;
		}
		if (!strcmp(a, ")")) {
			out[j++] = "--fgit-close-paren";
			continue;
		}
		if (a[0] != '-' || !strcmp(a, "--") || !a[1]) {
			while (i < argc)
				out[j++] = argv[i++];
			break;
		}
		if (a[1] >= '0' && a[1] <= '9' && strspn(a + 1, "0123456789") == strlen(a + 1)) {
			out[j++] = "-C";
			out[j++] = a + 1;
			continue;
		}
		out[j++] = a;
		for (k = 0; takes_arg[k]; k++)
			if (!strcmp(a, takes_arg[k]))
				break;
		if (!takes_arg[k] && a[1] != '-' && strlen(a) > 2 &&
		    strchr("efABCm", a[strlen(a) - 1]) && !strpbrk(a + 1, "0123456789"))
			k = 0;	/* bundled, ending in an option with an argument */
		if (takes_arg[k] && i + 1 < argc)
			out[j++] = argv[++i];
	}
	out[j] = NULL;
	return out;
}

/*
 * The default thread count: the number of CPUs, at most 8.  Measured on
 * the kernel corpus (78k files) on this 2-core machine, bench/run
 * grep__literal-* (preliminary: load average 9-15, medians of 3-10 runs):
 * worktree literal 2.45 s with 2 threads against 3.03 s with 1; --cached
 * literal 4.63 s against 8.07 s.  Object greps gain as much as worktree
 * ones because lib/odb inflates blobs in parallel without a global lock
 * (seed 002's serialised object reading is what made git 1.7 drop threads
 * outside the worktree).
 */
static int default_threads(void)
{
	int n = fgit_online_cpus();
	return n > 8 ? 8 : n;
}

CLI_CMD(grep)
{
	int i, nargs, seen_dashdash = 0, allow_revs, git_threads, nthreads;
	const char **args;
	struct fgit_oid *revs = NULL;
	const char **rev_names = NULL;
	size_t nrevs = 0;
	struct emit_state es;
	const char *cs;
	struct cli_option options[] = {
		OPT_BOOL(0, "cached", &cached, "search in index instead of in the work tree"),
		OPT_SET_INT(0, "no-index", &no_index, "find in contents not managed by git", 1),
		OPT_BOOL(0, "untracked", &untracked, "search in both tracked and untracked files"),
		OPT_SET_INT(0, "exclude-standard", &opt_exclude, "ignore files specified via '.gitignore'", 1),
		OPT_UNIMPLEMENTED(0, "recurse-submodules"),
		OPT_BOOL('v', "invert-match", &go.invert, "show non-matching lines"),
		OPT_BOOL('i', "ignore-case", &go.ignore_case, "case insensitive matching"),
		OPT_BOOL('w', "word-regexp", &go.word_regexp, "match patterns only at word boundaries"),
		OPT_SET_INT('a', "text", &text, "process binary files as text", 1),
		OPT_SET_INT('I', NULL, &no_binary, "don't match patterns in binary files", 1),
		OPT_UNIMPLEMENTED(0, "textconv"),
		OPT_CALLBACK_F('r', "recursive", NULL, NULL, "search in subdirectories (default)", CLI_OPT_NOARG, cb_recursive),
		OPT_INTEGER(0, "max-depth", &max_depth, "descend at most <depth> levels"),
		{ CLI_OPT_CALLBACK, 'E', "extended-regexp", NULL, NULL, "use extended POSIX regular expressions", CLI_OPT_NOARG | CLI_OPT_NONEG, FGIT_GREP_ERE, cb_type },
		{ CLI_OPT_CALLBACK, 'G', "basic-regexp", NULL, NULL, "use basic POSIX regular expressions (default)", CLI_OPT_NOARG | CLI_OPT_NONEG, FGIT_GREP_BRE, cb_type },
		{ CLI_OPT_CALLBACK, 'F', "fixed-strings", NULL, NULL, "interpret patterns as fixed strings", CLI_OPT_NOARG | CLI_OPT_NONEG, FGIT_GREP_FIXED, cb_type },
		{ CLI_OPT_CALLBACK, 'P', "perl-regexp", NULL, NULL, "use Perl-compatible regular expressions", CLI_OPT_NOARG | CLI_OPT_NONEG, FGIT_GREP_PCRE, cb_type },
		OPT_BOOL('n', "line-number", &linenum, "show line numbers"),
		OPT_BOOL(0, "column", &column, "show column number of first match"),
		OPT_SET_INT('h', NULL, &hide_names, "don't show filenames", 1),
		OPT_SET_INT('H', NULL, &show_names, "show filenames", 1),
		OPT_BOOL(0, "full-name", &full_name, "show filenames relative to top directory"),
		OPT_BOOL('l', "files-with-matches", &name_only, "show only filenames instead of matching lines"),
		OPT_BOOL(0, "name-only", &name_only, "synonym for --files-with-matches"),
		OPT_BOOL('L', "files-without-match", &unmatch_name_only, "show only the names of files without match"),
		OPT_BOOL('z', "null", &go.null_following_name, "print NUL after filenames"),
		OPT_BOOL('o', "only-matching", &go.only_matching, "show only matching parts of a line"),
		OPT_BOOL('c', "count", &go.count, "show the number of matches instead of matching lines"),
		OPT_CALLBACK_F(0, "color", NULL, "when", "highlight matches", CLI_OPT_OPTARG, cb_color),
		OPT_BOOL(0, "break", &go.file_break, "print empty line between matches from different files"),
		OPT_BOOL(0, "heading", &go.heading, "show filename only once above matches from same file"),
		OPT_CALLBACK('C', "context", NULL, "n", "show <n> context lines before and after matches", cb_context),
		OPT_CALLBACK('B', "before-context", NULL, "n", "show <n> context lines before matches", cb_context),
		OPT_CALLBACK('A', "after-context", NULL, "n", "show <n> context lines after matches", cb_context),
		OPT_INTEGER(0, "threads", &threads_opt, "use <n> worker threads"),
		OPT_BOOL('p', "show-function", &go.funcname, "show a line with the function name before matches"),
		OPT_BOOL('W', "function-context", &go.funcbody, "show the surrounding function"),
		OPT_CALLBACK_F('f', NULL, NULL, "file", "read patterns from file", CLI_OPT_NONEG, cb_f),
		OPT_CALLBACK_F('e', NULL, NULL, "pattern", "match <pattern>", CLI_OPT_NONEG, cb_e),
		{ CLI_OPT_CALLBACK, 0, "and", NULL, NULL, "combine patterns specified with -e", CLI_OPT_NOARG | CLI_OPT_NONEG, FGIT_GREP_AND, cb_token },
		{ CLI_OPT_CALLBACK, 0, "or", NULL, NULL, NULL, CLI_OPT_NOARG | CLI_OPT_NONEG | CLI_OPT_HIDDEN, FGIT_GREP_OR, cb_token },
		{ CLI_OPT_CALLBACK, 0, "not", NULL, NULL, NULL, CLI_OPT_NOARG | CLI_OPT_NONEG | CLI_OPT_HIDDEN, FGIT_GREP_NOT, cb_token },
		{ CLI_OPT_CALLBACK, 0, "fgit-open-paren", NULL, NULL, NULL, CLI_OPT_NOARG | CLI_OPT_NONEG | CLI_OPT_HIDDEN, FGIT_GREP_OPEN_PAREN, cb_token },
		{ CLI_OPT_CALLBACK, 0, "fgit-close-paren", NULL, NULL, NULL, CLI_OPT_NOARG | CLI_OPT_NONEG | CLI_OPT_HIDDEN, FGIT_GREP_CLOSE_PAREN, cb_token },
		OPT_BOOL('q', "quiet", &go.status_only, "indicate hit with exit status without output"),
		OPT_BOOL(0, "all-match", &go.all_match, "show only matches from files that match all patterns"),
		OPT_INTEGER('m', "max-count", &max_count, "maximum number of results per file"),
		OPT_UNIMPLEMENTED('O', "open-files-in-pager"),
		OPT_UNIMPLEMENTED(0, "ext-grep"),
		OPT_END()
	};

	setlocale(LC_CTYPE, "");
	fgit_grep_options_init(&go);
	if (argc == 2 && !strcmp(argv[1], "-h"))
		cli_usage_with_options(grep_usage, options, 1);

	repo = cli_repo_gently();
	if (repo) {
		prefix = cli_globals.prefix ? cli_globals.prefix : "";
		quote_path = cli_quote_path(repo);
	}
	fgit_config_foreach(cli_config(), config_cb, NULL);
	{
		const char *v;
		if (cfg_color < 0 && !fgit_config_get_string(&v, cli_config(), "color.ui"))
			cfg_color = parse_color_bool(v);
	}

	args = rewrite_args(argc, argv);
	for (nargs = 0; args[nargs]; nargs++)
		;
	nargs = cli_parse_options(nargs, args, "grep", options, grep_usage,
				  CLI_PARSE_STOP_AT_NON_OPTION | CLI_PARSE_KEEP_DASHDASH);

	if (!repo && !no_index) {
		if (cfg_fallback)
			no_index = 1;
		else
			cli_repo();	/* dies: not a git repository */
	}
	i = 0;
	if (nargs > 0 && !ntokens && !strcmp(args[0], "--"))
		i++;
	if (i < nargs && !ntokens) {
		add_token(FGIT_GREP_PATTERN, args[i], strlen(args[i]));
		i++;
	}
	if (!ntokens)
		die("no pattern given");

	/* options into the matcher */
	if (pattern_type < 0)
		pattern_type = cfg_pattern_type >= 0 ? cfg_pattern_type :
			       cfg_extended ? FGIT_GREP_ERE : FGIT_GREP_BRE;
	go.pattern_type = pattern_type;
	go.linenum = linenum > 0;
	go.columnnum = column > 0;
	go.pathname = hide_names ? 0 : 1;
	if (show_names)
		go.pathname = 1;
	go.name_only = name_only;
	go.unmatch_name_only = unmatch_name_only;
	go.pre_context = ctx_b > 0 ? ctx_b : 0;
	go.post_context = ctx_a > 0 ? ctx_a : 0;
	go.binary = text ? FGIT_GREP_BINARY_TEXT : no_binary ? FGIT_GREP_BINARY_NOMATCH :
		    FGIT_GREP_BINARY_DEFAULT;
	go.max_count = max_count;
	if (go.invert)
		go.only_matching = 0;
	cs = setlocale(LC_CTYPE, NULL);
	go.utf8_locale = cs && (strstr(cs, "UTF-8") || strstr(cs, "utf8") || strstr(cs, "UTF8") ||
				strstr(cs, "utf-8"));
	{
		int c = color_opt >= 0 ? color_opt : cfg_color >= 0 ? cfg_color : 2;
		if (c == 2)
			c = isatty(1) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
		go.color = c;
	}
	go.config = cli_config();

	/* revisions and paths */
	{
		int j;
		for (j = i; j < nargs; j++)
			if (!strcmp(args[j], "--")) {
				seen_dashdash = 1;
				break;
			}
	}
	allow_revs = !no_index && !untracked;
	revs = calloc(nargs + 1, sizeof(*revs));
	rev_names = calloc(nargs + 1, sizeof(*rev_names));
	for (; i < nargs; i++) {
		const char *a = args[i];
		struct fgit_oid oid;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!allow_revs) {
			if (seen_dashdash)
				die("--no-index or --untracked cannot be used with revs");
			break;
		}
		if (fgit_revparse_single(&oid, repo, a)) {
			if (seen_dashdash)
				die("unable to resolve revision: %s", a);
			break;
		}
		/* git checks only inside a work tree (verify_non_filename):
		 * a bare repository has a file named HEAD */
		if (!seen_dashdash && repo && fgit_repo_work_tree(repo) && path_exists(a))
			die("ambiguous argument '%s': both revision and filename\n"
			    "Use '--' to separate paths from revisions, like this:\n"
			    "'git <command> [<revision>...] -- [<file>...]'", a);
		revs[nrevs] = oid;
		rev_names[nrevs++] = a;
	}
	if (!seen_dashdash) {
		int j;
		for (j = i; j < nargs; j++) {
			if (looks_like_pathspec(args[j]) || path_exists(args[j]))
				continue;
			if (j == i && allow_revs)
				die("ambiguous argument '%s': unknown revision or path not in the working tree.\n"
				    "Use '--' to separate paths from revisions, like this:\n"
				    "'git <command> [<revision>...] -- [<file>...]'", args[j]);
			die_ambiguous_path(args[j]);
		}
	}
	{
		/* no pathspec from a subdirectory: that directory (PREFER_CWD) */
		static const char *dot[] = { ".", NULL };
		const char *const *pa = args + i;
		size_t pn = nargs - i;
		if (!pn && *prefix) {
			pa = dot;
			pn = 1;
		}
		if (fgit_pathspec_new(&ps, prefix, pa, pn, FGIT_PATHSPEC_PREFER_CWD,
				      repo ? fgit_repo_work_tree(repo) : NULL))
			die_last();
	}
	if (max_count == 0)
		return 1;

	if (threads_opt < -1 || (threads_opt < 0 && threads_opt != -1))
		die("invalid number of threads specified (%d)", threads_opt);
	git_threads = threads_opt >= 0 ? threads_opt : cfg_threads >= 0 ? cfg_threads : 0;
	if (git_threads == 0)
		git_threads = fgit_online_cpus();
	nthreads = threads_opt > 0 ? threads_opt : cfg_threads > 0 ? cfg_threads : default_threads();

	if (no_index && (untracked || cached))
		die("--cached or --untracked cannot be used with --no-index");
	if (untracked && cached)
		die("--cached and --untracked cannot be used together");

	if (repo) {
		if (fgit_repo_odb(&odb, repo))
			die_last();
		fgit_odb_set_access(odb, FGIT_ODB_ACCESS_ONCE_EACH);
		if (fgit_repo_work_tree(repo)) {
			attrs = cli_attrs(repo);
			go.attrs = attrs;
		}
	}
	if (fgit_grep_new(&matcher, &go))
		die_last();
	{
		size_t k;
		for (k = 0; k < ntokens; k++)
			if (fgit_grep_add(matcher, tokens[k].t, tokens[k].pat, tokens[k].len))
				die_last();
	}
	if (fgit_grep_compile(matcher))
		die_last();

	if (repo && fgit_repo_work_tree(repo) && chdir(fgit_repo_work_tree(repo)))
		die_errno("cannot chdir to '%s'", fgit_repo_work_tree(repo));
	if (no_index || untracked) {
		int use_exclude = opt_exclude < 0 ? !no_index : opt_exclude;
		list_directory(use_exclude);
	} else if (opt_exclude >= 0) {
		die("--[no-]exclude-standard cannot be used for tracked contents");
	} else if (!nrevs) {
		if (!cached) {
			cli_require_work_tree(repo);
		} else {
			keep_freed_memory();
			start_warming(nthreads);
		}
		list_index(cached);
	} else {
		size_t k;
		keep_freed_memory();
		if (cached)
			die("both --cached and trees are given");
		start_warming(nthreads);
		for (k = 0; k < nrevs; k++)
			list_object(rev_names[k], &revs[k]);
	}
	finish_warming();

	memset(&es, 0, sizeof(es));
	es.git_threaded = git_threads > 1;
	es.skip_first = !(go.name_only || go.unmatch_name_only || go.count) &&
			(go.pre_context || go.post_context || go.file_break || go.funcbody);
	es.quiet = go.status_only;
	if (nthreads <= 1)
		my_matcher = matcher;	/* no threads: the main matcher does it all */
	else
		nmatchers = 0;
	{
		int r = fgit_ordered_run(nitems, nthreads, sizeof(struct slot), work, emit, &es);
		if (r < 0)
			die_last();
	}
	cli_flush_stdout();
	{
		size_t k;
		for (k = 0; k < nmatchers; k++)
			fgit_grep_free(matchers[k]);
		free(matchers);
		for (k = 0; k < nblobs; k++) {
			fgit_buf_release(blobs[k]);
			free(blobs[k]);
		}
		free(blobs);
		for (k = 0; k < nreaders; k++)
			fgit_grep_reader_free(readers[k]);
		free(readers);
		fgit_grep_free(matcher);
		for (k = 0; k < nitems; k++) {
			free(items[k].name);
			free(items[k].path);
		}
		free(items);
		fgit_pathspec_free(ps);
	}
	return !es.hit;
}
