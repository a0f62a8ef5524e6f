/*
 * Is an index entry's file unchanged?  git's ce_match_stat / ie_modified:
 * compare the recorded stat data first (one lstat per entry, done by the
 * caller), read the file only when the stat data cannot decide: the entry
 * is racy (the file changed in the same second the index was written), or
 * its recorded size is 0 (read-tree or --cacheinfo left no stat data).
 *
 * Like a default git build (no USE_NSEC, no USE_STDEV), nanoseconds and
 * the device are not compared.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/worktree.h"

static int is_empty_blob(const struct fgit_oid *oid, int algo)
{
	struct fgit_oid empty;
	if (fgit_hash_object(&empty, algo, FGIT_OBJ_BLOB, "", 0))
		return 0;
	return !memcmp(empty.hash, oid->hash, fgit_hash_rawsz(algo));
}

int fgit_worktree_stat_differs(const struct fgit_index_entry *e, const struct stat *st,
			       const struct fgit_wt_stat_options *o)
{
	int changed = 0;

	switch (e->mode & 0170000) {
	case 0100000:
		if (!S_ISREG(st->st_mode))
			changed |= FGIT_WT_TYPE;
		if (o->trust_exec_bit && (0100 & (e->mode ^ st->st_mode)))
			changed |= FGIT_WT_MODE;
		break;
	case 0120000:
		if (!S_ISLNK(st->st_mode) && (o->has_symlinks || !S_ISREG(st->st_mode)))
			changed |= FGIT_WT_TYPE;
		break;
	case 0160000:
		if (!S_ISDIR(st->st_mode))
			changed |= FGIT_WT_TYPE;
		/* NEEDSWORK: git compares the submodule's HEAD here */
		return changed;
	default:
		return FGIT_WT_TYPE;
	}
	if (e->mtime_sec != (uint32_t)st->st_mtime)
		changed |= FGIT_WT_MTIME;
	if (o->trust_ctime && o->check_stat && e->ctime_sec != (uint32_t)st->st_ctime)
		changed |= FGIT_WT_CTIME;
	if (o->check_stat) {
		if (e->uid != (uint32_t)st->st_uid || e->gid != (uint32_t)st->st_gid)
			changed |= FGIT_WT_OWNER;
		if (e->ino != (uint32_t)st->st_ino)
			changed |= FGIT_WT_INODE;
	}
	if (e->size != (uint32_t)st->st_size)
		changed |= FGIT_WT_DATA;
	/* racily smudged: size 0 recorded for a non-empty blob */
	if (!e->size && !is_empty_blob(&e->oid, o->algo))
		changed |= FGIT_WT_DATA;
	return changed;
}

int fgit_worktree_hash_file(struct fgit_oid *out, const char *fspath,
			    const struct stat *st, int algo)
{
	struct fgit_hash_ctx c;
	char buf[65536];
	uint64_t total = 0;
	int fd;

	if (S_ISLNK(st->st_mode)) {
		char *target;
		ssize_t n;
		size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;
		target = malloc(cap);
		if (!target)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		n = readlink(fspath, target, cap);
		if (n < 0) {
			free(target);
			return fgit_error_errno(FGIT_ERROR, "readlink(\"%s\")", fspath);
		}
		n = fgit_hash_object(out, algo, FGIT_OBJ_BLOB, target, (size_t)n);
		free(target);
		return (int)n;
	}
	fd = open(fspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgit_error_errno(FGIT_ERROR, "open(\"%s\")", fspath);
	fgit_objname_init_header(&c, algo, FGIT_OBJ_BLOB, (uint64_t)st->st_size);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return fgit_error_errno(FGIT_ERROR, "read(\"%s\")", fspath);
		}
		if (!n)
			break;
		total += (uint64_t)n;
		if (total > (uint64_t)st->st_size)
			break;
		fgit_objname_update(&c, buf, (size_t)n);
	}
	close(fd);
	if (total != (uint64_t)st->st_size)
		return fgit_error_set(FGIT_ERROR, "%s: file changed while hashing", fspath);
	return fgit_objname_final(out, &c);
}

static int content_differs(const struct fgit_index_entry *e, const struct stat *st,
			   const char *fspath, const struct fgit_wt_stat_options *o)
{
	int algo = o->algo;
	struct fgit_oid oid;
	int r;

	if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode)) {
		if (S_ISLNK(st->st_mode) != ((e->mode & 0170000) == 0120000))
			return FGIT_WT_TYPE;
		if (o->hash_file && !S_ISLNK(st->st_mode))
			r = o->hash_file(&oid, fspath, e->path, st, o->hash_payload);
		else
			r = fgit_worktree_hash_file(&oid, fspath, st, algo);
		if (r < 0)
			return FGIT_WT_DATA;	/* git: unreadable counts as changed */
		return memcmp(oid.hash, e->oid.hash, fgit_hash_rawsz(algo)) ? FGIT_WT_DATA : 0;
	}
	if (S_ISDIR(st->st_mode) && (e->mode & 0170000) == 0160000)
		return 0;
	return FGIT_WT_TYPE;
}

int fgit_worktree_entry_match_stat(const struct fgit_index *idx,
				   const struct fgit_index_entry *e,
				   const struct stat *st, const char *fspath,
				   const struct fgit_wt_stat_options *o)
{
	int changed;

	if (!o->ignore_valid && (e->flags & FGIT_INDEX_ASSUME_VALID))
		return 0;
	if (e->flags & FGIT_INDEX_INTENT_TO_ADD)
		return FGIT_WT_DATA | FGIT_WT_TYPE | FGIT_WT_MODE;
	changed = fgit_worktree_stat_differs(e, st, o);
	if (!changed && fgit_index_entry_is_racy(idx, e) && !o->stat_only)
		changed |= content_differs(e, st, fspath, o);
	return changed;
}

int fgit_worktree_entry_changed(const struct fgit_index *idx,
				const struct fgit_index_entry *e,
				const struct stat *st, const char *fspath,
				const struct fgit_wt_stat_options *o)
{
	int changed = fgit_worktree_entry_match_stat(idx, e, st, fspath, o), fs;

	if (!changed || o->stat_only)
		return changed;
	if (changed & (FGIT_WT_MODE | FGIT_WT_TYPE))
		return changed;
	if ((changed & FGIT_WT_DATA) && ((e->mode & 0170000) == 0160000 || e->size != 0))
		return changed;
	fs = content_differs(e, st, fspath, o);
	return fs ? changed | fs : 0;
}

void fgit_worktree_fill_stat_data(struct fgit_index_entry *e, const struct stat *st)
{
	e->ctime_sec = (uint32_t)st->st_ctime;
	e->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
	e->mtime_sec = (uint32_t)st->st_mtime;
	e->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
	e->dev = (uint32_t)st->st_dev;
	e->ino = (uint32_t)st->st_ino;
	e->uid = (uint32_t)st->st_uid;
	e->gid = (uint32_t)st->st_gid;
	e->size = (uint32_t)st->st_size;
}

void fgit_worktree_fill_stat(struct fgit_index_entry *e, const struct stat *st,
			     const struct fgit_wt_stat_options *o)
{
	fgit_worktree_fill_stat_data(e, st);
	if (S_ISLNK(st->st_mode)) {
		if (o->has_symlinks || !e->mode)
			e->mode = 0120000;
	} else if (S_ISDIR(st->st_mode)) {
		e->mode = 0160000;
	} else if (!o->trust_exec_bit && (e->mode & 0170000) == 0100000) {
		/* keep the recorded executable bit */
	} else {
		e->mode = (st->st_mode & 0100) ? 0100755 : 0100644;
	}
}

size_t fgit_path_dir_len(const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);
	return slash ? (size_t)(slash - path) + 1 : 0;
}

size_t fgit_linkcheck_unseen(const struct fgit_linkcheck *lc, const char *dir, size_t dlen)
{
	size_t n = lc->seen.len < dlen ? lc->seen.len : dlen, c = 0, i;

	for (i = 0; i < n && lc->seen.ptr[i] == dir[i]; i++)
		if (dir[i] == '/')
			c = i + 1;
	return c;
}

void fgit_linkcheck_seen(struct fgit_linkcheck *lc, const char *dir, size_t dlen)
{
	fgit_buf_set(&lc->seen, dir, dlen);
}

void fgit_linkcheck_found(struct fgit_linkcheck *lc, const char *dir, size_t len)
{
	fgit_buf_set(&lc->link, dir, len);
	fgit_buf_addch(&lc->link, '/');
}

int fgit_linkcheck_below(const struct fgit_linkcheck *lc, const char *path)
{
	return lc->link.len && !strncmp(path, lc->link.ptr, lc->link.len);
}

int fgit_linkcheck_path(struct fgit_linkcheck *lc, struct fgit_buf *fs, size_t base,
			const char *path, size_t len)
{
	size_t dlen = fgit_path_dir_len(path, len), p;
	struct stat st;

	for (p = fgit_linkcheck_unseen(lc, path, dlen); p < dlen; p++) {
		if (path[p] != '/')
			continue;
		fgit_buf_setlen(fs, base);
		fgit_buf_add(fs, path, p);
		if (!lstat(fs->ptr, &st) && S_ISLNK(st.st_mode))
			fgit_linkcheck_found(lc, path, p);
	}
	fgit_linkcheck_seen(lc, path, dlen);
	return fgit_linkcheck_below(lc, path);
}

void fgit_linkcheck_release(struct fgit_linkcheck *lc)
{
	fgit_buf_release(&lc->seen);
	fgit_buf_release(&lc->link);
}
