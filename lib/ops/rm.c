/*
 * git rm (include/fgit/rm.h).  Each index entry is matched against the
 * pathspec once; how each element matched (exactly, by wildcard, or only
 * as a leading directory) decides git's "recursively without -r" refusal.
 * The safety check compares the file with the index (stat data, then
 * content when the stat data differ, as git's refresh does before it) and
 * the index with HEAD's tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"
#include "fgit/rm.h"
#include "fgit/worktree.h"

enum { MATCHED_RECURSIVELY = 1, MATCHED_FNMATCH = 2, MATCHED_EXACTLY = 3 };

static int classify(const char *pat, const char *path)
{
	size_t plen = strlen(pat);

	if (!plen)
		return MATCHED_RECURSIVELY;
	if (!strcmp(path, pat))
		return MATCHED_EXACTLY;
	if (!strncmp(path, pat, plen) && (pat[plen - 1] == '/' || path[plen] == '/'))
		return MATCHED_RECURSIVELY;
	return MATCHED_FNMATCH;
}

static int push(char ***v, size_t *nr, const char *s)
{
	char **p = realloc(*v, (*nr + 1) * sizeof(**v));

	if (!p)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	*v = p;
	if (!(p[*nr] = strdup(s)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	(*nr)++;
	return 0;
}

static void free_list(char **v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

void fgit_rm_plan_release(struct fgit_rm_plan *plan)
{
	free_list(plan->paths, plan->nr);
	free_list(plan->staged, plan->nstaged);
	free_list(plan->cached, plan->ncached);
	free_list(plan->local, plan->nlocal);
	memset(plan, 0, sizeof(*plan));
}

/* The entry for path in the tree `tree` (mode and id); FGIT_ENOTFOUND. */
static int tree_lookup(struct fgit_oid *oid_out, unsigned int *mode_out, struct fgit_odb *odb,
		       const struct fgit_oid *tree, const char *path)
{
	struct fgit_oid cur = *tree;
	const char *p = path;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		enum fgit_object_type type;
		struct fgit_tree_iter it;
		struct fgit_tree_entry e;
		void *buf;
		size_t size;
		int r, found = 0;

		if (fgit_odb_read(&buf, &size, &type, odb, &cur))
			return FGIT_ENOTFOUND;
		if (type != FGIT_OBJ_TREE) {
			free(buf);
			return FGIT_ENOTFOUND;
		}
		fgit_tree_iter_init(&it, buf, size, cur.algo);
		while ((r = fgit_tree_iter_next(&e, &it)) > 0)
			if (e.name_len == len && !memcmp(e.name, p, len)) {
				found = 1;
				break;
			}
		free(buf);
		if (!found)
			return FGIT_ENOTFOUND;
		if (!slash) {
			*oid_out = e.oid;
			*mode_out = e.mode;
			return 0;
		}
		if (!fgit_mode_is_tree(e.mode))
			return FGIT_ENOTFOUND;
		cur = e.oid;
		p = slash + 1;
	}
}

/* git's create_ce_mode(): the index mode a tree mode stands for. */
static unsigned int ce_mode(unsigned int mode)
{
	if ((mode & 0170000) == 0120000)
		return FGIT_MODE_LINK;
	if ((mode & 0170000) == 0040000 || (mode & 0170000) == 0160000)
		return FGIT_MODE_GITLINK;
	return (mode & 0111) ? FGIT_MODE_EXEC : FGIT_MODE_BLOB;
}

/* Does the file differ from the entry (after git's refresh)? */
static int locally_changed(const struct fgit_index *idx, const struct fgit_index_entry *e,
			   const struct stat *st, const char *fspath,
			   const struct fgit_wt_stat_options *so)
{
	struct fgit_oid oid;
	int c = fgit_worktree_entry_changed(idx, e, st, fspath, so);

	if (c <= 0)
		return c < 0;
	if (c & (FGIT_WT_MODE | FGIT_WT_TYPE))
		return 1;
	/* stat data only: the content decides, as after git's refresh */
	if (fgit_worktree_hash_file(&oid, fspath, st, so->algo)) {
		fgit_error_clear();
		return 1;
	}
	return !fgit_oid_equal(&oid, &e->oid);
}

static int check_entries(struct fgit_rm_plan *out, struct fgit_repo *repo,
			 struct fgit_index *idx, unsigned int flags,
			 const struct fgit_wt_stat_options *so)
{
	struct fgit_buf fs = FGIT_BUF_INIT;
	struct fgit_linkcheck links = { FGIT_BUF_INIT, FGIT_BUF_INIT };
	struct fgit_oid head, tree;
	struct fgit_odb *odb = NULL;
	int no_head, index_only = !!(flags & FGIT_RM_CACHED), r = 0;
	size_t i, base = strlen(fgit_repo_work_tree(repo)) + 1;

	no_head = fgit_revparse_single(&head, repo, "HEAD^{tree}") != 0;
	fgit_error_clear();
	tree = head;
	if (!no_head && (r = fgit_repo_odb(&odb, repo)))
		return r;
	for (i = 0; i < out->nr && !r; i++) {
		const char *name = out->paths[i];
		const struct fgit_index_entry *e = fgit_index_lookup(idx, name, 0);
		struct fgit_oid oid;
		unsigned int mode;
		struct stat st;
		int local = 0, staged = 0, below;

		if (!e)
			continue;	/* unmerged: nothing to lose */
		fgit_buf_reset(&fs);
		fgit_buf_addf(&fs, "%s/%s", fgit_repo_work_tree(repo), name);
		if (lstat(fs.ptr, &st))
			continue;	/* already gone from the work tree */
		if (S_ISDIR(st.st_mode) && e->mode != FGIT_MODE_GITLINK)
			continue;
		/*
		 * git's refresh passes over a path below a symlinked directory
		 * (has_symlink_leading_path), so its check then sees the file
		 * the link leads to with the entry's stat data as they were:
		 * any stat difference is a local change, and only a racy entry
		 * has its content read.
		 */
		below = fgit_linkcheck_path(&links, &fs, base, name, strlen(name));
		fgit_buf_setlen(&fs, base);
		fgit_buf_adds(&fs, name);
		if (below)
			local = fgit_worktree_entry_match_stat(idx, e, &st, fs.ptr, so) != 0;
		else
			local = locally_changed(idx, e, &st, fs.ptr, so);
		if (no_head || tree_lookup(&oid, &mode, odb, &tree, name) ||
		    e->mode != ce_mode(mode) || !fgit_oid_equal(&e->oid, &oid))
			staged = 1;
		if (local && staged) {
			if (!index_only || !(e->flags & FGIT_INDEX_INTENT_TO_ADD))
				r = push(&out->staged, &out->nstaged, name);
		} else if (!index_only) {
			if (staged)
				r = push(&out->cached, &out->ncached, name);
			if (!r && local)
				r = push(&out->local, &out->nlocal, name);
		}
	}
	fgit_buf_release(&fs);
	fgit_linkcheck_release(&links);
	return r;
}

int fgit_rm_plan(struct fgit_rm_plan *out, struct fgit_repo *repo, struct fgit_index *idx,
		 const struct fgit_pathspec *ps, unsigned int flags,
		 const struct fgit_wt_stat_options *so)
{
	size_t n = fgit_pathspec_count(ps), count = fgit_index_entrycount(idx), i, j;
	unsigned char *seen = calloc(n ? n : 1, 1), *tmp = calloc(n ? n : 1, 1);
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!seen || !tmp) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < count; i++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, i);
		if (e->flags & FGIT_INDEX_SKIP_WORKTREE)
			continue;
		memset(tmp, 0, n);
		if (!fgit_pathspec_match(ps, e->path, e->path_len, 0, tmp))
			continue;
		for (j = 0; j < n; j++) {
			int how;
			if (!tmp[j])
				continue;
			how = classify(fgit_pathspec_item_match(ps, j), e->path);
			if (seen[j] < how)
				seen[j] = (unsigned char)how;
		}
		if (e->mode == FGIT_MODE_GITLINK) {
			r = fgit_error_set(FGIT_ENOTSUPP, "removing submodules");
			goto out;
		}
		if (out->nr && !strcmp(out->paths[out->nr - 1], e->path))
			continue;	/* another stage of an unmerged path */
		if ((r = push(&out->paths, &out->nr, e->path)))
			goto out;
	}
	for (j = 0; j < n; j++) {
		const char *orig = fgit_pathspec_item_original(ps, j);
		if (fgit_pathspec_item_magic(ps, j) & FGIT_PATHSPEC_EXCLUDE)
			continue;
		if (seen[j])
			out->matched_any = 1;
		else if (flags & FGIT_RM_IGNORE_UNMATCH)
			continue;
		else {
			r = fgit_error_set(FGIT_ENOTFOUND, "pathspec '%s' did not match any files",
					   orig);
			goto out;
		}
		if (!(flags & FGIT_RM_RECURSIVE) && seen[j] == MATCHED_RECURSIVELY) {
			r = fgit_error_set(FGIT_EINVALID, "not removing '%s' recursively without -r",
					   *orig ? orig : ".");
			goto out;
		}
	}
	if (out->matched_any && !(flags & FGIT_RM_FORCE))
		r = check_entries(out, repo, idx, flags, so);
out:
	free(seen);
	free(tmp);
	if (r)
		fgit_rm_plan_release(out);
	return r;
}

/* git's remove_path(): the file, then its directories while they empty. */
static int remove_path(const char *top, const char *path, const char *keep_dir)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t toplen;
	char *slash;

	fgit_buf_addf(&b, "%s/", top);
	toplen = b.len;
	fgit_buf_adds(&b, path);
	if (unlink(b.ptr) && errno != ENOENT && errno != ENOTDIR) {
		int e = errno;
		fgit_buf_release(&b);
		errno = e;
		return -1;
	}
	while ((slash = strrchr(b.ptr + toplen, '/'))) {
		*slash = '\0';
		if (keep_dir && !strcmp(b.ptr + toplen, keep_dir))
			break;
		if (rmdir(b.ptr))
			break;
	}
	fgit_buf_release(&b);
	return 0;
}

int fgit_rm_apply(struct fgit_repo *repo, struct fgit_index *idx,
		  const struct fgit_rm_plan *plan, unsigned int flags, const char *keep_dir)
{
	size_t i;
	int removed = 0;

	for (i = 0; i < plan->nr; i++) {
		fgit_index_remove_path(idx, plan->paths[i]);
		fgit_index_invalidate_path(idx, plan->paths[i]);
	}
	if (flags & FGIT_RM_CACHED)
		return 0;
	for (i = 0; i < plan->nr; i++) {
		if (!remove_path(fgit_repo_work_tree(repo), plan->paths[i], keep_dir)) {
			removed = 1;
			continue;
		}
		if (!removed)
			return fgit_error_errno(FGIT_ERROR, "git rm: '%s'", plan->paths[i]);
	}
	return 0;
}
