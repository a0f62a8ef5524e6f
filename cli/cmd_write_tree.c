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

struct wt {
	struct fgit_index *idx;
	struct fgit_odb *odb;
	int missing_ok, ignore_cache_tree, changed;
};

/*
 * Build the tree of directory `dir` ("" or "a/b/") from the entries at
 * [*pos, ...) under it; *pos moves past them.  0 or -1 (error printed).
 */
static int build(struct fgit_oid *out, struct wt *w, const char *dir, size_t dlen, size_t *pos)
{
	size_t n = fgit_index_entrycount(w->idx), start = *pos, nent = 0, alloc = 0;
	struct fgit_tree_entry *ents = NULL;
	struct fgit_buf buf = FGIT_BUF_INIT, key = FGIT_BUF_INIT;
	int count, subtrees = 0, r = -1;
	struct fgit_oid oid;

	fgit_buf_add(&key, dir, dlen ? dlen - 1 : 0);
	if (!w->ignore_cache_tree &&
	    fgit_index_cache_tree_get(&count, &subtrees, &oid, w->idx, key.ptr) == 0 &&
	    count >= 0 && start + (size_t)count <= n && fgit_odb_exists(w->odb, &oid) > 0) {
		*out = oid;
		*pos = start + (size_t)count;
		fgit_buf_release(&key);
		return 0;
	}
	fgit_error_clear();
	subtrees = 0;
	while (*pos < n) {
		const struct fgit_index_entry *e = fgit_index_get(w->idx, *pos);
		const char *rest, *slash;

		if (e->path_len < dlen || memcmp(e->path, dir, dlen))
			break;
		rest = e->path + dlen;
		slash = strchr(rest, '/');
		if (nent == alloc) {
			struct fgit_tree_entry *ne;
			alloc = alloc ? alloc * 2 : 16;
			ne = realloc(ents, alloc * sizeof(*ents));
			if (!ne)
				die("out of memory");
			ents = ne;
		}
		if (slash) {
			struct fgit_buf sub = FGIT_BUF_INIT;
			fgit_buf_add(&sub, e->path, (size_t)(slash - e->path) + 1);
			ents[nent].mode = 040000;
			ents[nent].name = rest;
			ents[nent].name_len = (size_t)(slash - rest);
			r = build(&ents[nent].oid, w, sub.ptr, sub.len, pos);
			fgit_buf_release(&sub);
			if (r)
				goto out;
			r = -1;
			nent++;
			subtrees++;
			continue;
		}
		(*pos)++;
		if (e->flags & FGIT_INDEX_INTENT_TO_ADD)
			continue;
		if (e->mode != 0160000 && !w->missing_ok && fgit_odb_exists(w->odb, &e->oid) <= 0) {
			char hex[FGIT_MAX_HEXSZ + 1];
			error("invalid object %06o %s for '%s'", e->mode,
			      fgit_oid_to_hex(hex, &e->oid), e->path);
			goto out;
		}
		ents[nent].mode = e->mode;
		ents[nent].name = rest;
		ents[nent].name_len = e->path_len - dlen;
		ents[nent].oid = e->oid;
		nent++;
	}
	if (fgit_tree_serialize(&buf, ents, nent) ||
	    fgit_odb_write(out, w->odb, FGIT_OBJ_TREE, buf.ptr, buf.len)) {
		error_last();
		goto out;
	}
	if (fgit_index_cache_tree_set(w->idx, key.ptr, (int)(*pos - start), subtrees, out))
		die_last();
	w->changed = 1;
	r = 0;
out:
	free(ents);
	fgit_buf_release(&buf);
	fgit_buf_release(&key);
	return r;
}

CLI_CMD(write_tree)
{
	struct fgit_repo *repo;
	struct wt w;
	const char *prefix = NULL;
	char *index_path, hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid oid;
	size_t i, n, pos = 0;
	int funny = 0;
	struct cli_option opts[] = {
		OPT_BOOL(0, "missing-ok", &w.missing_ok, "allow missing objects"),
		OPT_STRING(0, "prefix", &prefix, "<prefix>/", "write tree object for a subdirectory <prefix>"),
		{ CLI_OPT_BOOL, 0, "ignore-cache-tree", &w.ignore_cache_tree, NULL,
		  "only useful for debugging", CLI_OPT_HIDDEN, 1, NULL },
		OPT_END(),
	};

	memset(&w, 0, sizeof(w));
	n = (size_t)cli_parse_options(argc, argv, "write-tree", opts, write_tree_usage, 0);
	/* git ignores extra arguments */
	repo = cli_repo();
	if (fgit_repo_odb(&w.odb, repo))
		die_last();
	index_path = cli_index_path(repo);
	w.idx = cli_index_load(repo, index_path);

	n = fgit_index_entrycount(w.idx);
	for (i = 0; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(w.idx, i);
		if (!e->stage)
			continue;
		if (10 < ++funny) {
			fprintf(stderr, "...\n");
			break;
		}
		fflush(stdout);
		fprintf(stderr, "%s: unmerged (%s)\n", e->path, fgit_oid_to_hex(hex, &e->oid));
	}
	if (funny || build(&oid, &w, "", 0, &pos))
		die("git-write-tree: error building trees");
	if (w.changed) {
		struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
		int r;
		cli_index_write_options(&wo, repo, w.idx);
		r = fgit_index_write(w.idx, index_path, &wo);
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
		if (fgit_index_cache_tree_get(&count, &sub, &oid, w.idx, key.ptr) || count < 0)
			die("git-write-tree: prefix %s not found", prefix);
		fgit_buf_release(&key);
	}
	printf("%s\n", fgit_oid_to_hex(hex, &oid));
	free(index_path);
	return 0;
}
