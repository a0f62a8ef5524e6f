/*
 * git worktree prune (see include/fgit/worktree.h): the administrative
 * directories of linked worktrees whose work tree has disappeared.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/worktree.h"

/* Remove path and everything under it (lstat: symlinks are not followed). */
static int remove_tree(struct fgit_buf *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	size_t len = path->len;
	int ret = 0;

	if (lstat(path->ptr, &st))
		return errno == ENOENT ? 0 : fgit_error_errno(FGIT_ERROR, "cannot stat '%s'", path->ptr);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path->ptr) && errno != ENOENT)
			return fgit_error_errno(FGIT_ERROR, "cannot remove '%s'", path->ptr);
		return 0;
	}
	if (!(d = opendir(path->ptr)))
		return fgit_error_errno(FGIT_ERROR, "cannot open directory '%s'", path->ptr);
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		fgit_buf_setlen(path, len);
		if (fgit_buf_addf(path, "/%s", de->d_name))
			ret = FGIT_ENOMEM;
		else
			ret = remove_tree(path);
	}
	closedir(d);
	fgit_buf_setlen(path, len);
	if (!ret && rmdir(path->ptr) && errno != ENOENT)
		ret = fgit_error_errno(FGIT_ERROR, "cannot remove '%s'", path->ptr);
	return ret;
}

/*
 * git's reason to prune worktrees/<id> (at dir), or NULL to keep it; a
 * kept entry that is not locked gives its gitdir (malloc'd) in *kept.
 */
static const char *prune_reason(char **kept, struct fgit_buf *dir, int64_t expire)
{
	struct fgit_buf gd = FGIT_BUF_INIT;
	size_t len = dir->len;
	struct stat st;
	const char *why = NULL;

	if (stat(dir->ptr, &st) || !S_ISDIR(st.st_mode))
		return "not a valid directory";
	fgit_buf_adds(dir, "/locked");
	if (!access(dir->ptr, F_OK))
		goto out;
	fgit_buf_setlen(dir, len);
	fgit_buf_adds(dir, "/gitdir");
	if (stat(dir->ptr, &st)) {
		why = "gitdir file does not exist";
		goto out;
	}
	if (fgit_buf_read_file(&gd, dir->ptr) < 0) {
		fgit_error_clear();
		why = "unable to read gitdir file";
		goto out;
	}
	while (gd.len && (gd.ptr[gd.len - 1] == '\n' || gd.ptr[gd.len - 1] == '\r' ||
			  gd.ptr[gd.len - 1] == ' ' || gd.ptr[gd.len - 1] == '\t'))
		gd.len--;
	gd.ptr[gd.len] = '\0';
	if (!gd.len || memchr(gd.ptr, '\0', gd.len)) {
		why = "invalid gitdir file";
		goto out;
	}
	if (access(gd.ptr, F_OK)) {
		fgit_buf_setlen(dir, len);
		fgit_buf_adds(dir, "/index");
		if (stat(dir->ptr, &st) || (int64_t)st.st_mtime <= expire)
			why = "gitdir file points to non-existent location";
	}
	if (!why)
		*kept = fgit_buf_detach(&gd, NULL);
out:
	fgit_buf_setlen(dir, len);
	fgit_buf_release(&gd);
	return why;
}

/* A worktree kept by its own rules: where its gitdir points, its id. */
struct kept {
	char *path;
	char *id;	/* NULL: the main worktree */
};

/* By path; among equal paths the main worktree first, then by id. */
static int kept_cmp(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (!x->id || !y->id)
		return !x->id ? -1 : 1;
	return strcmp(x->id, y->id);
}

static int add_kept(struct kept **list, size_t *nr, size_t *alloc, char *path, const char *id)
{
	char *idcopy = NULL;

	if (*nr == *alloc) {
		size_t na = *alloc ? 2 * *alloc : 8;
		struct kept *n = realloc(*list, na * sizeof(*n));
		if (!n)
			goto oom;
		*list = n;
		*alloc = na;
	}
	if (id && !(idcopy = strdup(id)))
		goto oom;
	(*list)[*nr].path = path;
	(*list)[(*nr)++].id = idcopy;
	return 0;
oom:
	free(path);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

/* The main worktree's entry as a gitdir file would name it: absolute. */
static char *main_gitdir(const char *common_dir)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	char cwd[4096];

	if (common_dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		fgit_buf_addf(&b, "%s/", cwd);
	}
	if (fgit_buf_adds(&b, common_dir)) {
		fgit_buf_release(&b);
		return NULL;
	}
	if (b.len > 2 && !strcmp(b.ptr + b.len - 2, "/."))
		fgit_buf_setlen(&b, b.len - 2);
	return fgit_buf_detach(&b, NULL);
}

static int prune_one(struct fgit_buf *path, const char *id, const char *why, int dry_run,
		     void (*cb)(const char *id, const char *reason, void *payload),
		     void *payload)
{
	if (cb)
		cb(id, why, payload);
	return dry_run ? 0 : remove_tree(path);
}

int fgit_worktree_prune(const char *common_dir, int64_t expire, int dry_run,
			void (*cb)(const char *id, const char *reason, void *payload),
			void *payload)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct kept *kept = NULL;
	size_t nkept = 0, akept = 0, i;
	DIR *d;
	struct dirent *de;
	size_t base;
	int ret = 0;

	if (fgit_buf_addf(&path, "%s/worktrees", common_dir))
		return FGIT_ENOMEM;
	base = path.len;
	if (!(d = opendir(path.ptr))) {
		fgit_buf_release(&path);
		return 0;	/* no linked worktrees */
	}
	while (!ret && (de = readdir(d))) {
		const char *why;
		char *gitdir = NULL;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		fgit_buf_setlen(&path, base);
		if (fgit_buf_addf(&path, "/%s", de->d_name)) {
			ret = FGIT_ENOMEM;
			break;
		}
		if ((why = prune_reason(&gitdir, &path, expire)))
			ret = prune_one(&path, de->d_name, why, dry_run, cb, payload);
		else if (gitdir)
			ret = add_kept(&kept, &nkept, &akept, gitdir, de->d_name);
	}
	closedir(d);
	/*
	 * Entries whose gitdir names the same place as an earlier one (or as
	 * the main worktree's) are duplicates: git keeps the first by id.
	 */
	if (!ret) {
		char *mainpath = main_gitdir(common_dir);
		ret = mainpath ? add_kept(&kept, &nkept, &akept, mainpath, NULL)
			       : fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	if (!ret)
		qsort(kept, nkept, sizeof(*kept), kept_cmp);
	for (i = 1; !ret && i < nkept; i++) {
		if (strcmp(kept[i].path, kept[i - 1].path))
			continue;
		fgit_buf_setlen(&path, base);
		if (fgit_buf_addf(&path, "/%s", kept[i].id))
			ret = FGIT_ENOMEM;
		else
			ret = prune_one(&path, kept[i].id, "duplicate entry", dry_run, cb, payload);
	}
	for (i = 0; i < nkept; i++) {
		free(kept[i].path);
		free(kept[i].id);
	}
	free(kept);
	fgit_buf_setlen(&path, base);
	if (!ret && !dry_run)
		rmdir(path.ptr);	/* only when empty, as git */
	fgit_buf_release(&path);
	return ret;
}
