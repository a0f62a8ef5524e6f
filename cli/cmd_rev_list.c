/*
 * git rev-list: the commit and object walk of lib/revwalk/objwalk.c.
 * Built so far: revisions (rev, ^rev, A..B, --not), --all, --reflog,
 * --indexed-objects, --objects, --[no-]object-names, --count.  Every other
 * option exits 129 naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

struct out_ctx {
	int names;
	int count_only;
	size_t count;
	struct fgit_buf buf;
};

static int show(const struct fgit_oid *oid, enum fgit_object_type type, const char *name,
		size_t name_len, void *payload)
{
	struct out_ctx *o = payload;
	char hex[FGIT_MAX_HEXSZ + 1];

	o->count++;
	if (o->count_only)
		return 0;
	fgit_oid_to_hex(hex, oid);
	fgit_buf_adds(&o->buf, hex);
	if (name && o->names) {
		const char *nl = memchr(name, '\n', name_len);
		fgit_buf_addch(&o->buf, ' ');
		fgit_buf_add(&o->buf, name, nl ? (size_t)(nl - name) : name_len);
	}
	fgit_buf_addch(&o->buf, '\n');
	if (o->buf.len > 65536) {
		fwrite(o->buf.ptr, 1, o->buf.len, stdout);
		fgit_buf_reset(&o->buf);
	}
	return 0;
}

_Noreturn static void bad_revision(const char *arg)
{
	die("ambiguous argument '%s': unknown revision or path not in the working tree.\n"
	    "Use '--' to separate paths from revisions, like this:\n"
	    "'git <command> [<revision>...] -- [<file>...]'", arg);
}

static void add_rev(struct fgit_objwalk *w, struct fgit_repo *repo, const char *arg,
		    unsigned int flags)
{
	struct fgit_oid oid;
	int ret = fgit_revparse_single(&oid, repo, arg);
	const char *colon = strchr(arg, ':');
	if (ret == FGIT_ENOTFOUND)
		bad_revision(arg);
	if (ret < 0)
		die_last();
	/* <rev>:<path> names the object by its path, as git */
	if (colon && arg[0] == ':' && colon == arg && arg[1] >= '0' && arg[1] <= '3' &&
	    arg[2] == ':')
		colon = arg + 2;
	if (fgit_objwalk_add(w, &oid, colon ? colon + 1 : NULL, flags) < 0)
		die_last();
}

CLI_CMD(rev_list)
{
	struct fgit_repo *repo = cli_repo();
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	struct fgit_objwalk *w;
	struct out_ctx o = { 1, 0, 0, FGIT_BUF_INIT };
	unsigned int not = 0, wflags = 0;
	int i, nrevs = 0, ret;
	const char **args = calloc((size_t)argc + 1, sizeof(*args));
	unsigned int *argflags = calloc((size_t)argc + 1, sizeof(*argflags));
	int nargs = 0;

	if (!args || !argflags)
		die("out of memory");
	if (fgit_repo_odb(&odb, repo) < 0 || fgit_repo_refdb(&refdb, repo) < 0)
		die_last();
	/* options first: --objects changes how tips are handled */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			if (i + 1 < argc)
				die_unimplemented("rev-list", "<path>...");
			break;
		}
		if (!strcmp(a, "--objects"))
			wflags |= FGIT_OBJWALK_OBJECTS;
		else if (!strcmp(a, "--count"))
			o.count_only = 1;
		else if (!strcmp(a, "--no-object-names"))
			o.names = 0;
		else if (!strcmp(a, "--object-names"))
			o.names = 1;
		else if (!strcmp(a, "--not"))
			not ^= FGIT_OBJWALK_EXCLUDE;
		else if (!strcmp(a, "--all") || !strcmp(a, "--reflog") ||
			 !strcmp(a, "--indexed-objects") || a[0] != '-' ||
			 (a[0] == '^' && a[1])) {
			args[nargs] = a;
			argflags[nargs++] = not;
		} else if (!strcmp(a, "-h")) {
			cli_usage("git rev-list [<options>] <commit>... [--] [<path>...]");
		} else {
			die_unimplemented("rev-list", a);
		}
	}
	if (fgit_objwalk_new(&w, odb, wflags) < 0)
		die_last();
	for (i = 0; i < nargs; i++) {
		const char *a = args[i];
		unsigned int fl = argflags[i];
		const char *dots;
		nrevs++;
		if (!strcmp(a, "--all")) {
			ret = fgit_objwalk_add_all_refs(w, refdb, fl);
		} else if (!strcmp(a, "--reflog")) {
			ret = fgit_objwalk_add_reflogs(w, fgit_repo_git_dir(repo),
						       fgit_repo_common_dir(repo), fl);
		} else if (!strcmp(a, "--indexed-objects")) {
			char *path = cli_index_path(repo);
			struct fgit_index *idx = cli_index_load(repo, path);
			ret = fgit_objwalk_add_index(w, idx, fl);
			fgit_index_free(idx);
			free(path);
		} else if (a[0] == '^') {
			add_rev(w, repo, a + 1, fl ^ FGIT_OBJWALK_EXCLUDE);
			ret = 0;
		} else if ((dots = strstr(a, "..")) != NULL) {
			char *left;
			const char *right = dots + 2;
			if (*right == '.')
				die_unimplemented("rev-list", "A...B");
			left = strndup(a, (size_t)(dots - a));
			add_rev(w, repo, *left ? left : "HEAD", fl ^ FGIT_OBJWALK_EXCLUDE);
			add_rev(w, repo, *right ? right : "HEAD", fl);
			free(left);
			ret = 0;
		} else {
			add_rev(w, repo, a, fl);
			ret = 0;
		}
		if (ret < 0)
			die_last();
	}
	if (!nrevs)
		cli_usage("git rev-list [<options>] <commit>... [--] [<path>...]");
	ret = fgit_objwalk_run(w, show, &o);
	fwrite(o.buf.ptr, 1, o.buf.len, stdout);
	if (ret < 0)
		die_last();
	if (o.count_only)
		printf("%zu\n", o.count);
	cli_flush_stdout();
	fgit_objwalk_free(w);
	fgit_buf_release(&o.buf);
	free(args);
	free(argflags);
	return 0;
}
