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

/* git's reason to prune worktrees/<id> (at dir), or NULL to keep it. */
static const char *prune_reason(struct fgit_buf *dir, int64_t expire)
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
out:
	fgit_buf_setlen(dir, len);
	fgit_buf_release(&gd);
	return why;
}

int fgit_worktree_prune(const char *common_dir, int64_t expire, int dry_run,
			void (*cb)(const char *id, const char *reason, void *payload),
			void *payload)
{
	struct fgit_buf path = FGIT_BUF_INIT;
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
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		fgit_buf_setlen(&path, base);
		if (fgit_buf_addf(&path, "/%s", de->d_name)) {
			ret = FGIT_ENOMEM;
			break;
		}
		if (!(why = prune_reason(&path, expire)))
			continue;
		if (cb)
			cb(de->d_name, why, payload);
		if (!dry_run)
			ret = remove_tree(&path);
	}
	closedir(d);
	fgit_buf_setlen(&path, base);
	if (!ret && !dry_run)
		rmdir(path.ptr);	/* only when empty, as git */
	fgit_buf_release(&path);
	return ret;
}
