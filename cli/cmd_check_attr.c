/* git check-attr: attributes of paths, as git prints them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attr_setup.h"
#include "cli.h"
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/quote.h"
#include "fgit/repo.h"

static const char *const usage[] = {
	"git check-attr [-a | --all | <attr>...] [--] <pathname>...",
	"git check-attr --stdin [-z] [-a | --all | <attr>...]",
	NULL
};

struct out {
	int nul;
	struct fgit_buf buf;
};

static void emit(struct out *o, const char *path, const char *attr,
		 const struct fgit_attr_value *v)
{
	const char *info = v->state == FGIT_ATTR_SET ? "set" :
			   v->state == FGIT_ATTR_UNSET ? "unset" :
			   v->state == FGIT_ATTR_VALUE ? v->value : "unspecified";
	fgit_buf_reset(&o->buf);
	if (o->nul) {
		fgit_buf_addf(&o->buf, "%s%c%s%c%s%c", path, 0, attr, 0, info, 0);
	} else {
		fgit_quote_c_style(&o->buf, path, strlen(path), 1);
		fgit_buf_addf(&o->buf, ": %s: %s\n", attr, info);
	}
	fwrite(o->buf.ptr, 1, o->buf.len, stdout);
}

struct all_ctx {
	struct out *o;
	const char *path;
};

static int emit_all(const char *name, const struct fgit_attr_value *v, void *payload)
{
	struct all_ctx *c = payload;
	emit(c->o, c->path, name, v);
	return 0;
}

static void check(struct fgit_attrs *attrs, struct out *o, const char *prefix,
		  const char *path, const char *const *names, size_t n, int all)
{
	char *full = cli_prefix_path(prefix, path);
	/* the path as git normalises it for lookup: no "./", no "a/../" */
	if (all) {
		struct all_ctx c = { o, path };
		if (fgit_attrs_get_all(attrs, full, emit_all, &c) < 0)
			die_last();
	} else {
		struct fgit_attr_value *v = calloc(n ? n : 1, sizeof(*v));
		size_t i;
		if (!v || fgit_attrs_get(v, attrs, full, names, n) < 0)
			die_last();
		for (i = 0; i < n; i++)
			emit(o, path, names[i], &v[i]);
		free(v);
	}
	free(full);
}

CLI_CMD(check_attr)
{
	int all = 0, use_stdin = 0, nul = 0, cached = 0, n, dashdash = -1, i;
	struct cli_option opts[] = {
		OPT_BOOL('a', "all", &all, "report all attributes set on file"),
		OPT_BOOL(0, "cached", &cached, "use .gitattributes only from the index"),
		OPT_BOOL(0, "stdin", &use_stdin, "read file names from stdin"),
		OPT_BOOL('z', NULL, &nul, "terminate input and output records by a NUL character"),
		OPT_END(),
	};
	struct fgit_repo *repo;
	struct fgit_attrs *attrs;
	struct out o = { 0, FGIT_BUF_INIT };
	const char **names;
	size_t nnames = 0;
	int npaths_start;

	n = cli_parse_options(argc, argv, "check-attr", opts, usage, CLI_PARSE_KEEP_DASHDASH);
	if (cached)
		die_unimplemented("check-attr", "--cached");
	repo = cli_repo();
	if (!fgit_repo_work_tree(repo))
		die_unimplemented("check-attr", "a bare repository");
	o.nul = nul;
	for (i = 0; i < n; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	/* which arguments are attributes and which are paths */
	if (all) {
		if (dashdash > 0)
			cli_usage_with_options(usage, opts, 0);
		npaths_start = dashdash == 0 ? 1 : 0;
		if (use_stdin && n > npaths_start)
			cli_usage_with_options(usage, opts, 0);
	} else if (use_stdin) {
		if (dashdash >= 0 && dashdash != n - 1)
			cli_usage_with_options(usage, opts, 0);
		nnames = (size_t)(dashdash >= 0 ? dashdash : n);
		npaths_start = n;
	} else if (dashdash >= 0) {
		nnames = (size_t)dashdash;
		npaths_start = dashdash + 1;
	} else {
		nnames = n ? 1 : 0;
		npaths_start = 1;
	}
	if (!all && !nnames) {
		error("No attribute specified");
		cli_usage_with_options(usage, opts, 0);
	}
	if (!use_stdin && npaths_start >= n) {
		error("No file specified");
		cli_usage_with_options(usage, opts, 0);
	}
	names = argv;
	attrs = cli_attrs(repo);
	if (use_stdin) {
		struct fgit_buf line = FGIT_BUF_INIT;
		int c;
		for (;;) {
			fgit_buf_reset(&line);
			while ((c = getchar()) != EOF && c != (nul ? 0 : '\n'))
				fgit_buf_addch(&line, c);
			if (c == EOF && !line.len)
				break;
			check(attrs, &o, cli_globals.prefix, line.ptr, names, nnames, all);
			fflush(stdout);
			if (c == EOF)
				break;
		}
		fgit_buf_release(&line);
	} else {
		for (i = npaths_start; i < n; i++)
			check(attrs, &o, cli_globals.prefix, argv[i], names, nnames, all);
	}
	fgit_buf_release(&o.buf);
	return 0;
}
