/*
 * Reflog reading: whole files read at once, lines split in place.  Only
 * the two ids are parsed; the identity and message are not needed by the
 * walks that use this (rev-list --reflog, pack-objects --reflog).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/reflog_dir.h"

int fgit_reflog_dir_foreach(const char *dir, const char *refname, int algo,
			fgit_reflog_dir_cb cb, void *payload)
{
	struct fgit_buf path = FGIT_BUF_INIT, data = FGIT_BUF_INIT;
	size_t hexsz = fgit_hash_hexsz(algo);
	const char *p, *end;
	int ret = 0;

	if (fgit_buf_addf(&path, "%s/logs/%s", dir, refname)) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	if (fgit_buf_read_file(&data, path.ptr) < 0) {
		ret = 0;	/* no log: nothing to list */
		goto out;
	}
	p = data.ptr;
	end = data.ptr + data.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct fgit_oid o, n;

		if ((size_t)(le - p) > 2 * hexsz + 1 && p[hexsz] == ' ' &&
		    p[2 * hexsz + 1] == ' ' &&
		    !fgit_oid_from_hex(&o, p, algo) &&
		    !fgit_oid_from_hex(&n, p + hexsz + 1, algo) &&
		    (ret = cb(refname, &o, &n, payload)))
			goto out;
		p = nl ? nl + 1 : end;
	}
out:
	fgit_buf_release(&path);
	fgit_buf_release(&data);
	return ret;
}

static int walk_dir(const char *dir, struct fgit_buf *rel, int algo, fgit_reflog_dir_cb cb,
		    void *payload, int depth)
{
	struct fgit_buf full = FGIT_BUF_INIT;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > 64)
		return 0;
	if (fgit_buf_addf(&full, "%s/logs/%s", dir, rel->ptr))
		return FGIT_ENOMEM;
	d = opendir(full.ptr);
	fgit_buf_release(&full);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		size_t base = rel->len;
		int isdir;
		if (de->d_name[0] == '.')
			continue;
		if (fgit_buf_addf(rel, "%s%s", base ? "/" : "", de->d_name)) {
			ret = FGIT_ENOMEM;
			break;
		}
		if (de->d_type == DT_DIR) {
			isdir = 1;
		} else if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s/logs/%s", dir, rel->ptr);
			isdir = !stat(p.ptr, &st) && S_ISDIR(st.st_mode);
			fgit_buf_release(&p);
		} else {
			isdir = 0;
		}
		if (isdir)
			ret = walk_dir(dir, rel, algo, cb, payload, depth + 1);
		else
			ret = fgit_reflog_dir_foreach(dir, rel->ptr, algo, cb, payload);
		fgit_buf_setlen(rel, base);
	}
	closedir(d);
	return ret;
}

int fgit_reflog_dir_foreach_all(const char *git_dir, const char *common_dir, int algo,
			    fgit_reflog_dir_cb cb, void *payload)
{
	struct fgit_buf rel = FGIT_BUF_INIT;
	int ret;

	/* one repository: everything under logs/ in directory order, HEAD
	 * wherever readdir puts it, as git 2.39 */
	if (strcmp(git_dir, common_dir)) {
		if ((ret = fgit_reflog_dir_foreach(git_dir, "HEAD", algo, cb, payload)))
			return ret;
		if (fgit_buf_adds(&rel, "refs"))
			return FGIT_ENOMEM;
	}
	ret = walk_dir(common_dir, &rel, algo, cb, payload, 0);
	fgit_buf_release(&rel);
	return ret;
}
