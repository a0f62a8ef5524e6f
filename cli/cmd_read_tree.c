/*
 * git read-tree: the index from one tree (stat data empty, the cache tree
 * primed from the tree), --empty, and -m with one tree (git's one-way
 * merge: entries whose mode and id do not change keep their stat data, so
 * nothing looks modified afterwards).  The index is read and written under
 * one index.lock.  Two- and three-way merges, -u and --prefix exit 129.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "add_setup.h"
#include "wt_setup.h"
#include "fgit/index.h"
#include "fgit/lockfile.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/repo.h"

static const char *const read_tree_usage[] = {
	"git read-tree [(-m [--trivial] [--aggressive] | --reset | --prefix=<prefix>)\n"
	"              [-u | -i]] [--index-output=<file>] [--no-sparse-checkout]\n"
	"              (--empty | <tree-ish1> [<tree-ish2> [<tree-ish3>]])",
	NULL
};

CLI_CMD(read_tree)
{
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	struct fgit_lockfile *lk = NULL;
	struct fgit_index *old, *idx = NULL;
	struct fgit_index_write_opts wo;
	struct fgit_oid tree;
	const char *prefix = NULL;
	char *index_path;
	int merge = 0, update = 0, index_only = 0, empty = 0, quiet = 0, n;
	size_t i;
	struct cli_option opts[] = {
		OPT_UNIMPLEMENTED(0, "index-output"),
		OPT_BOOL(0, "empty", &empty, "only empty the index"),
		OPT__QUIET(&quiet, "suppress feedback messages"),
		OPT_GROUP("Merging"),
		OPT_BOOL('m', NULL, &merge, "perform a merge in addition to a read"),
		OPT_UNIMPLEMENTED(0, "trivial"),
		OPT_UNIMPLEMENTED(0, "aggressive"),
		OPT_UNIMPLEMENTED(0, "reset"),
		OPT_STRING(0, "prefix", &prefix, "<subdirectory>/", "read the tree into the index under <subdirectory>/"),
		OPT_BOOL('u', NULL, &update, "update working tree with merge result"),
		OPT_UNIMPLEMENTED(0, "exclude-per-directory"),
		OPT_BOOL('i', NULL, &index_only, "don't check the working tree after merging"),
		OPT_UNIMPLEMENTED('n', "dry-run"),
		OPT_UNIMPLEMENTED(0, "no-sparse-checkout"),
		OPT_UNIMPLEMENTED(0, "debug-unpack"),
		OPT_UNIMPLEMENTED(0, "recurse-submodules"),
		OPT_UNIMPLEMENTED('v', NULL),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "read-tree", opts, read_tree_usage, 0);
	repo = cli_repo();
	if (fgit_repo_odb(&odb, repo))
		die_last();
	index_path = cli_index_path(repo);
	if (fgit_lockfile_acquire(&lk, index_path, 0))
		die_last();
	if (prefix)
		die_unimplemented("read-tree", "--prefix");
	if (index_only && !merge)
		die("-i is meaningless without -m, --reset, or --prefix");
	if (update)
		die_unimplemented("read-tree", "-u");
	for (i = 0; i < (size_t)n; i++) {
		if (fgit_revparse_single(&tree, repo, argv[i]) < 0)
			die("Not a valid object name %s", argv[i]);
		fgit_error_clear();
	}
	if (!n && !empty && !merge)
		warning("read-tree: emptying the index with no arguments is deprecated; use --empty");
	else if (n && empty)
		die("passing trees as arguments contradicts --empty");
	if (merge && !n)
		die("you must specify at least one tree to merge");
	if (n > 1)
		die_unimplemented("read-tree", "more than one tree");

	old = cli_index_load(repo, index_path);
	if (fgit_index_new(&idx, fgit_repo_algo(repo)))
		die_last();
	if (n) {
		enum fgit_object_type t;
		void *buf = NULL;
		size_t len;
		int depth;

		/* a commit or tag names its tree */
		if (fgit_revparse_single(&tree, repo, argv[0]) < 0)
			die("Not a valid object name %s", argv[0]);
		for (depth = 0; depth < 64; depth++) {
			struct fgit_commit c;
			struct fgit_tag tg;
			if (fgit_odb_read(&buf, &len, &t, odb, &tree) < 0)
				die("failed to unpack tree object %s", argv[0]);
			if (t == FGIT_OBJ_TREE)
				break;
			if (t == FGIT_OBJ_COMMIT && !fgit_commit_parse(&c, buf, len, fgit_repo_algo(repo)))
				tree = c.tree;
			else if (t == FGIT_OBJ_TAG && !fgit_tag_parse(&tg, buf, len, fgit_repo_algo(repo)))
				tree = tg.object;
			else
				die("failed to unpack tree object %s", argv[0]);
			free(buf);
			buf = NULL;
		}
		free(buf);
		fgit_error_clear();
		if (fgit_index_read_tree(idx, odb, &tree) < 0)
			die("failed to unpack tree object %s", argv[0]);
	}
	if (!n) {
		/* git records the empty tree as the root of the cache tree */
		struct fgit_oid empty;
		if (fgit_odb_write(&empty, odb, FGIT_OBJ_TREE, "", 0) ||
		    fgit_index_cache_tree_set(idx, "", 0, 0, &empty))
			die_last();
	}
	if (merge) {
		/* one-way merge: unchanged entries keep what the index knew */
		size_t nn = fgit_index_entrycount(idx);
		for (i = 0; i < fgit_index_entrycount(old); i++)
			if (fgit_index_get(old, i)->stage)
				die("You need to resolve your current index first");
		for (i = 0; i < nn; i++) {
			struct fgit_index_entry *e = fgit_index_get_mut(idx, i);
			const struct fgit_index_entry *o = fgit_index_lookup(old, e->path, 0);
			if (o && o->mode == e->mode && fgit_oid_equal(&o->oid, &e->oid)) {
				memcpy(e, o, offsetof(struct fgit_index_entry, oid));
				e->flags = o->flags;
			}
		}
	}
	cli_index_write_opts(&wo, repo);
	if (!wo.index_version)
		wo.index_version = fgit_index_version(old);
	if (fgit_index_write_locked(idx, lk, &wo))
		die("unable to write new index file");
	fgit_index_free(old);
	fgit_index_free(idx);
	free(index_path);
	return 0;
}
