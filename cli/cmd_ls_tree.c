/*
 * git ls-tree: list a tree's entries, restricted to the current directory
 * (unless --full-tree) and to literal path arguments, as git does: a path
 * names an entry; a trailing '/' (or a longer path through a directory)
 * descends into it; -r descends everywhere.  Names print relative to the
 * current directory unless --full-name, C-quoted unless -z.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/quote.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/repo.h"

static const char *const ls_tree_usage[] = {
	"git ls-tree [<options>] <tree-ish> [<path>...]",
	NULL
};

enum name_mode { MODE_DEFAULT, MODE_NAME_ONLY, MODE_NAME_STATUS, MODE_OBJECT_ONLY };

struct spec {
	char *path;		/* normalized, without trailing '/' */
	int dironly;		/* written with a trailing '/' */
};

struct ls {
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	int recursive, show_trees, tree_only, nul, long_fmt, full_name, abbrev;
	int quote_path;
	enum name_mode mode;
	const char *format;
	const char *prefix;	/* "" or "d/"; for relative names */
	struct spec *specs;
	size_t nspecs;
	struct fgit_buf out;
};

static int cmdmode_value;
static const char *cmdmode_name;
static int opt_cmdmode(const struct cli_option *opt, const char *arg, int unset)
{
	int v = (int)opt->defval;
	if (cmdmode_value && cmdmode_value != v) {
		error("option `%s' is incompatible with --%s", opt->long_name, cmdmode_name);
		return -1;
	}
	cmdmode_value = v;
	cmdmode_name = opt->long_name;
	return 0;
}

static void add_name(struct ls *ls, struct fgit_buf *b, const char *path)
{
	struct fgit_buf rel = FGIT_BUF_INIT;

	if (ls->full_name || !*ls->prefix)
		fgit_buf_adds(&rel, path);
	else
		fgit_relative_path(&rel, path, ls->prefix);
	if (ls->nul)
		fgit_buf_add(b, rel.ptr, rel.len);
	else
		fgit_quote_c_style(b, rel.ptr, rel.len, ls->quote_path);
	fgit_buf_release(&rel);
}

static void add_hex(struct ls *ls, struct fgit_buf *b, const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1];

	fgit_oid_to_hex(hex, oid);
	if (ls->abbrev) {
		int len = fgit_odb_abbrev_len(ls->odb, oid, ls->abbrev);
		if (len > 0 && (size_t)len < strlen(hex))
			hex[len] = '\0';
	}
	fgit_buf_adds(b, hex);
}

static void add_size(struct ls *ls, struct fgit_buf *b, enum fgit_object_type type,
		     const struct fgit_oid *oid, int padded)
{
	struct fgit_object_info info;
	char hex[FGIT_MAX_HEXSZ + 1];

	if (type != FGIT_OBJ_BLOB) {
		fgit_buf_addf(b, padded ? "%7s" : "%s", "-");
		return;
	}
	if (fgit_odb_read_info(&info, ls->odb, oid, FGIT_INFO_SIZE))
		die("could not get object info about '%s'", fgit_oid_to_hex(hex, oid));
	fgit_buf_addf(b, padded ? "%7llu" : "%llu", (unsigned long long)info.size);
}

static void show_format(struct ls *ls, unsigned int mode, enum fgit_object_type type,
			const struct fgit_oid *oid, const char *path)
{
	const char *f = ls->format;
	struct fgit_buf *b = &ls->out;

	while (*f) {
		if (f[0] == '%' && f[1] == '%') {
			fgit_buf_addch(b, '%');
			f += 2;
		} else if (f[0] == '%' && f[1] == 'x' && fgit_hexval(f[2]) >= 0 && fgit_hexval(f[3]) >= 0) {
			fgit_buf_addch(b, fgit_hexval(f[2]) * 16 + fgit_hexval(f[3]));
			f += 4;
		} else if (!strncmp(f, "%(objectmode)", 13)) {
			fgit_buf_addf(b, "%06o", mode);
			f += 13;
		} else if (!strncmp(f, "%(objecttype)", 13)) {
			fgit_buf_adds(b, fgit_object_type_name(type));
			f += 13;
		} else if (!strncmp(f, "%(objectname)", 13)) {
			add_hex(ls, b, oid);
			f += 13;
		} else if (!strncmp(f, "%(objectsize:padded)", 20)) {
			add_size(ls, b, type, oid, 1);
			f += 20;
		} else if (!strncmp(f, "%(objectsize)", 13)) {
			add_size(ls, b, type, oid, 0);
			f += 13;
		} else if (!strncmp(f, "%(path)", 7)) {
			add_name(ls, b, path);
			f += 7;
		} else if (f[0] == '%' && f[1] == '(') {
			const char *end = strchr(f, ')');
			die("bad ls-tree format: element '%.*s' does not start with '('",
			    end ? (int)(end - f - 1) : (int)strlen(f + 1), f + 1);
		} else {
			fgit_buf_addch(b, *f++);
		}
	}
}

static void show(struct ls *ls, unsigned int mode, enum fgit_object_type type,
		 const struct fgit_oid *oid, const char *path)
{
	struct fgit_buf *b = &ls->out;

	if (ls->format) {
		show_format(ls, mode, type, oid, path);
	} else if (ls->mode == MODE_OBJECT_ONLY) {
		add_hex(ls, b, oid);
	} else if (ls->mode == MODE_NAME_ONLY || ls->mode == MODE_NAME_STATUS) {
		add_name(ls, b, path);
	} else {
		fgit_buf_addf(b, "%06o %s ", mode, fgit_object_type_name(type));
		add_hex(ls, b, oid);
		if (ls->long_fmt) {
			fgit_buf_addch(b, ' ');
			add_size(ls, b, type, oid, 1);
		}
		fgit_buf_addch(b, '\t');
		add_name(ls, b, path);
	}
	fgit_buf_addch(b, ls->nul ? '\0' : '\n');
	if (b->len > 65536) {
		fwrite(b->ptr, 1, b->len, stdout);
		fgit_buf_reset(b);
	}
}

static int starts_dir(const char *s, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(s, dir, n) && s[n] == '/';
}

static int interesting(struct ls *ls, const char *path, int is_tree)
{
	size_t i;

	if (!ls->nspecs)
		return 1;
	for (i = 0; i < ls->nspecs; i++) {
		const struct spec *s = &ls->specs[i];
		if (!*s->path || starts_dir(path, s->path))
			return 1;
		if (!strcmp(path, s->path) && (is_tree || !s->dironly))
			return 1;
		if (is_tree && starts_dir(s->path, path))
			return 1;
	}
	return 0;
}

static int descend(struct ls *ls, const char *path)
{
	size_t i;

	if (ls->recursive)
		return 1;
	for (i = 0; i < ls->nspecs; i++) {
		const struct spec *s = &ls->specs[i];
		if (starts_dir(s->path, path) || (s->dironly && !strcmp(s->path, path)))
			return 1;
	}
	return 0;
}

static void walk(struct ls *ls, const struct fgit_oid *tree, struct fgit_buf *base)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	enum fgit_object_type type;
	void *buf;
	size_t len, keep = base->len;
	int r;

	if (fgit_odb_read(&buf, &len, &type, ls->odb, tree))
		die_last();
	if (type != FGIT_OBJ_TREE)
		die("not a tree object");
	fgit_tree_iter_init(&it, buf, len, fgit_odb_algo(ls->odb));
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		unsigned int mode = fgit_mode_canon(e.mode);
		int is_tree = fgit_mode_is_tree(mode);

		fgit_buf_setlen(base, keep);
		fgit_buf_add(base, e.name, e.name_len);
		if (!interesting(ls, base->ptr, is_tree))
			continue;
		if (mode == FGIT_MODE_GITLINK) {
			/* git's -d keeps submodules: only blobs are dropped */
			show(ls, mode, FGIT_OBJ_COMMIT, &e.oid, base->ptr);
		} else if (is_tree) {
			if (descend(ls, base->ptr)) {
				if (ls->show_trees)
					show(ls, mode, FGIT_OBJ_TREE, &e.oid, base->ptr);
				fgit_buf_addch(base, '/');
				walk(ls, &e.oid, base);
			} else {
				show(ls, mode, FGIT_OBJ_TREE, &e.oid, base->ptr);
			}
		} else if (!ls->tree_only) {
			show(ls, mode, FGIT_OBJ_BLOB, &e.oid, base->ptr);
		}
	}
	fgit_buf_setlen(base, keep);
	free(buf);
	if (r < 0)
		die_last();
}

/* prefix + arg, with "." and ".." resolved; dies outside the repository. */
static void add_spec(struct ls *ls, const char *prefix, const char *arg)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char *p = arg;
	size_t n = strlen(arg);
	int dironly = n && (arg[n - 1] == '/' || !strcmp(arg + (n > 1 ? n - 2 : 0), "/.") ||
			    !strcmp(arg, ".") || !strcmp(arg, "..") ||
			    (n >= 3 && !strcmp(arg + n - 3, "/..")));
	struct spec *s;

	fgit_buf_adds(&b, prefix);
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!b.len)
				die("%s: '%s' is outside repository at '%s'", arg, arg,
				    fgit_repo_work_tree(ls->repo) ? fgit_repo_work_tree(ls->repo) : "");
			fgit_buf_setlen(&b, b.len - 1);
			while (b.len && b.ptr[b.len - 1] != '/')
				fgit_buf_setlen(&b, b.len - 1);
		} else {
			fgit_buf_add(&b, p, len);
			fgit_buf_addch(&b, '/');
		}
		p += len + (slash ? 1 : 0);
	}
	if (b.len)
		fgit_buf_setlen(&b, b.len - 1);
	else
		dironly = 0;
	s = realloc(ls->specs, (ls->nspecs + 1) * sizeof(*s));
	if (!s)
		die("out of memory");
	ls->specs = s;
	s[ls->nspecs].path = fgit_buf_detach(&b, NULL);
	s[ls->nspecs].dironly = dironly || (!n && *prefix);
	ls->nspecs++;
}

CLI_CMD(ls_tree)
{
	struct ls ls;
	struct fgit_oid oid;
	struct fgit_revparse_info info = FGIT_REVPARSE_INFO_INIT;
	struct fgit_buf base = FGIT_BUF_INIT;
	enum fgit_object_type type;
	int n, i, full_tree = 0, name_only = 0, r;
	const char *prefix;
	int abbrev_value = 0;
	struct cli_option opts[] = {
		OPT_BOOL('d', NULL, &ls.tree_only, "only show trees"),
		OPT_BOOL('r', NULL, &ls.recursive, "recurse into subtrees"),
		OPT_BOOL('t', NULL, &ls.show_trees, "show trees when recursing"),
		OPT_BOOL('z', NULL, &ls.nul, "terminate entries with NUL byte"),
		OPT_BOOL('l', "long", &ls.long_fmt, "include object size"),
		{ CLI_OPT_CALLBACK, 0, "name-only", NULL, NULL, "list only filenames",
		  CLI_OPT_NOARG | CLI_OPT_NONEG, MODE_NAME_ONLY, opt_cmdmode },
		{ CLI_OPT_CALLBACK, 0, "name-status", NULL, NULL, "list only filenames",
		  CLI_OPT_NOARG | CLI_OPT_NONEG, MODE_NAME_STATUS, opt_cmdmode },
		{ CLI_OPT_CALLBACK, 0, "object-only", NULL, NULL, "list only objects",
		  CLI_OPT_NOARG | CLI_OPT_NONEG, MODE_OBJECT_ONLY, opt_cmdmode },
		OPT_BOOL(0, "full-name", &ls.full_name, "use full path names"),
		OPT_BOOL(0, "full-tree", &full_tree,
			 "list entire tree; not just current directory (implies --full-name)"),
		OPT_STRING(0, "format", &ls.format, "format", "format to use for the output"),
		OPT__ABBREV(&abbrev_value),
		OPT_END(),
	};

	memset(&ls, 0, sizeof(ls));
	(void)name_only;
	n = cli_parse_options(argc, argv, "ls-tree", opts, ls_tree_usage, 0);
	ls.mode = (enum name_mode)cmdmode_value;
	ls.abbrev = abbrev_value;
	ls.repo = cli_repo();
	if (ls.abbrev < 0)
		ls.abbrev = fgit_repo_default_abbrev(ls.repo);
	prefix = fgit_repo_prefix(ls.repo);
	if (full_tree) {
		prefix = "";
		ls.full_name = 1;
	}
	ls.prefix = prefix;
	if (ls.format && (ls.long_fmt || ls.mode || ls.abbrev))
		die("--format can't be combined with other format-altering options");
	if (n < 1)
		cli_usage_with_options(ls_tree_usage, opts, 0);
	/* -d -r implies -t */
	if (ls.tree_only && ls.recursive)
		ls.show_trees = 1;
	ls.quote_path = 1;
	{
		int qp;
		if (fgit_config_get_bool(&qp, fgit_repo_config(ls.repo), "core.quotepath") == 0)
			ls.quote_path = qp;
		fgit_error_clear();
	}
	if (fgit_repo_odb(&ls.odb, ls.repo))
		die_last();

	r = fgit_revparse_ext(&oid, &info, ls.repo, argv[0]);
	if (r == FGIT_EAMBIGUOUS)
		error_last();
	else if (r && r != FGIT_ENOTFOUND && info.why != FGIT_REVPARSE_PATH_ERROR &&
		 info.why != FGIT_REVPARSE_PEEL_ERROR)
		die_last();
	if (r)
		die("Not a valid object name %s", argv[0]);
	fgit_revparse_info_release(&info);

	if (n == 1) {
		if (*prefix)
			add_spec(&ls, prefix, "");
	} else {
		for (i = 1; i < n; i++)
			add_spec(&ls, prefix, argv[i]);
	}

	/* peel to a tree */
	for (;;) {
		void *buf;
		size_t len;
		if (fgit_odb_read(&buf, &len, &type, ls.odb, &oid))
			die("not a tree object");
		if (type == FGIT_OBJ_TAG) {
			struct fgit_tag tag;
			if (fgit_tag_parse(&tag, buf, len, fgit_odb_algo(ls.odb)))
				die("not a tree object");
			oid = tag.object;
		} else if (type == FGIT_OBJ_COMMIT) {
			struct fgit_commit c;
			if (fgit_commit_parse(&c, buf, len, fgit_odb_algo(ls.odb)))
				die("not a tree object");
			oid = c.tree;
		} else {
			free(buf);
			break;
		}
		free(buf);
	}
	if (type != FGIT_OBJ_TREE)
		die("not a tree object");
	walk(&ls, &oid, &base);
	fwrite(ls.out.ptr, 1, ls.out.len, stdout);
	fgit_buf_release(&ls.out);
	fgit_buf_release(&base);
	for (i = 0; i < (int)ls.nspecs; i++)
		free(ls.specs[i].path);
	free(ls.specs);
	return 0;
}
