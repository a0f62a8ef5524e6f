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
#include "rev_args.h"
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

CLI_CMD(rev_list)
{
	struct fgit_repo *repo = cli_repo();
	struct fgit_odb *odb;
	struct fgit_objwalk *w;
	struct out_ctx o = { 1, 0, 0, FGIT_BUF_INIT };
	unsigned int not = 0, wflags = 0;
	int i, nrevs = 0, ret;

	if (fgit_repo_odb(&odb, repo) < 0)
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
		else if (!strcmp(a, "-h"))
			cli_usage("git rev-list [<options>] <commit>... [--] [<path>...]");
		else if (a[0] == '-' && strcmp(a, "--not") && strcmp(a, "--all") &&
			 strcmp(a, "--reflog") && strcmp(a, "--indexed-objects"))
			die_unimplemented("rev-list", a);
	}
	if (fgit_objwalk_new(&w, odb, wflags) < 0)
		die_last();
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (argv[i][0] == '-' && strcmp(argv[i], "--not") && strcmp(argv[i], "--all") &&
		    strcmp(argv[i], "--reflog") && strcmp(argv[i], "--indexed-objects"))
			continue;
		cli_walk_add_arg(w, repo, argv[i], &not);
		if (strcmp(argv[i], "--not"))
			nrevs++;
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
	return 0;
}
