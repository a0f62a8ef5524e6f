/*
 * git write-tree: the index as tree objects.  Directories whose cache-tree
 * node is still valid are not rebuilt (their tree id is reused after a
 * cheap existence check); the others are serialized, written, and recorded
 * back in the cache tree, and the index is rewritten (through index.lock)
 * when anything changed, as git does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/repo.h"

static const char *const write_tree_usage[] = {
	"git write-tree [--missing-ok] [--prefix=<prefix>/]",
	NULL
};

CLI_CMD(write_tree)
{
	struct fgit_repo *repo;
	int missing_ok = 0, ignore_cache_tree = 0, changed = 0;
	struct fgit_index *idx;
	struct fgit_odb *odb;
	const char *prefix = NULL;
	char *index_path, hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid oid;
	size_t i, n;
	int funny = 0;
	struct cli_option opts[] = {
		OPT_BOOL(0, "missing-ok", &missing_ok, "allow missing objects"),
		OPT_STRING(0, "prefix", &prefix, "<prefix>/", "write tree object for a subdirectory <prefix>"),
		{ CLI_OPT_BOOL, 0, "ignore-cache-tree", &ignore_cache_tree, NULL,
		  "only useful for debugging", CLI_OPT_HIDDEN, 1, NULL },
		OPT_END(),
	};

	n = (size_t)cli_parse_options(argc, argv, "write-tree", opts, write_tree_usage, 0);
	/* git ignores extra arguments */
	repo = cli_repo();
	if (fgit_repo_odb(&odb, repo))
		die_last();
	index_path = cli_index_path(repo);
	idx = cli_index_load(repo, index_path);

	n = fgit_index_entrycount(idx);
	for (i = 0; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, i);
		if (!e->stage)
			continue;
		if (10 < ++funny) {
			fprintf(stderr, "...\n");
			break;
		}
		fflush(stdout);
		fprintf(stderr, "%s: unmerged (%s)\n", e->path, fgit_oid_to_hex(hex, &e->oid));
	}
	if (funny)
		die("git-write-tree: error building trees");
	if (fgit_index_write_tree(&oid, &changed, idx, odb,
				  (missing_ok ? FGIT_WRITE_TREE_MISSING_OK : 0) |
				  (ignore_cache_tree ? FGIT_WRITE_TREE_IGNORE_CACHE_TREE : 0))) {
		error_last();
		die("git-write-tree: error building trees");
	}
	if (changed) {
		struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
		int r;
		cli_index_write_options(&wo, repo, idx);
		r = fgit_index_write(idx, index_path, &wo);
		if (r == FGIT_ELOCKED)
			die_last();
		/* git ignores a failure to write the index back */
		fgit_error_clear();
	}
	if (prefix) {
		struct fgit_buf key = FGIT_BUF_INIT;
		int count, sub;
		fgit_buf_adds(&key, prefix);
		while (key.len && key.ptr[key.len - 1] == '/')
			fgit_buf_setlen(&key, key.len - 1);
		while (key.len && key.ptr[0] == '/') {
			memmove(key.ptr, key.ptr + 1, key.len);
			key.len--;
		}
		if (fgit_index_cache_tree_get(&count, &sub, &oid, idx, key.ptr) || count < 0)
			die("git-write-tree: prefix %s not found", prefix);
		fgit_buf_release(&key);
	}
	printf("%s\n", fgit_oid_to_hex(hex, &oid));
	free(index_path);
	return 0;
}
