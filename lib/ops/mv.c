/*
 * git mv (include/fgit/mv.h).  The checks run in git's order, one source
 * at a time, a directory source adding its tracked files to the list
 * (renamed in the index only: the directory itself is renamed once).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/mv.h"
#include "fgit/object.h"
#include "fgit/repo.h"

static char *fs_path(struct fgit_repo *repo, const char *rel)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	fgit_buf_adds(&b, fgit_repo_work_tree(repo));
	if (*rel) {
		fgit_buf_addch(&b, '/');
		fgit_buf_adds(&b, rel);
	}
	return fgit_buf_detach(&b, NULL);
}

static int do_lstat(struct fgit_repo *repo, const char *rel, struct stat *st)
{
	char *p = fs_path(repo, rel);
	int r = p ? lstat(p, st) : -1;

	free(p);
	return r;
}

static int add_item(struct fgit_mv_plan *p, size_t at, const char *src, const char *dst,
		    int is_dir, int index_only)
{
	struct fgit_mv_item *it;

	if (p->nr == p->alloc) {
		size_t n = p->alloc ? 2 * p->alloc : 16;
		struct fgit_mv_item *v = realloc(p->items, n * sizeof(*v));
		if (!v)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		p->items = v;
		p->alloc = n;
	}
	memmove(p->items + at + 1, p->items + at, (p->nr - at) * sizeof(*p->items));
	it = &p->items[at];
	it->src = strdup(src);
	it->dst = strdup(dst);
	it->is_dir = is_dir;
	it->index_only = index_only;
	p->nr++;
	if (!it->src || !it->dst)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	return 0;
}

static void drop_item(struct fgit_mv_plan *p, size_t at)
{
	free(p->items[at].src);
	free(p->items[at].dst);
	memmove(p->items + at, p->items + at + 1, (p->nr - at - 1) * sizeof(*p->items));
	p->nr--;
}

void fgit_mv_plan_release(struct fgit_mv_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nr; i++) {
		free(plan->items[i].src);
		free(plan->items[i].dst);
	}
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The entries of idx under directory dir ("dir/..."): [*first, *last). */
static size_t dir_range(const struct fgit_index *idx, const char *dir, size_t *first)
{
	size_t n = fgit_index_entrycount(idx), len = strlen(dir), i, pos;
	struct fgit_buf b = FGIT_BUF_INIT;

	fgit_buf_addf(&b, "%s/", dir);
	fgit_index_find_any_stage(&pos, idx, b.ptr, b.len);
	fgit_buf_release(&b);
	*first = pos;
	for (i = pos; i < n; i++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, i);
		if (strncmp(e->path, dir, len) || e->path[len] != '/')
			break;
	}
	return i - pos;
}

/* One source; NULL or git's reason for refusing it. */
static const char *check_one(struct fgit_mv_plan *p, size_t i, struct fgit_repo *repo,
			     struct fgit_index *idx, unsigned int flags,
			     const struct fgit_mv_report *report, int *err)
{
	const char *src = p->items[i].src, *dst = p->items[i].dst;
	size_t len = strlen(src), k;
	const struct fgit_index_entry *e;
	struct stat st, dst_st;

	if (report && report->checking && (flags & FGIT_MV_DRY_RUN))
		report->checking(src, dst, report->payload);
	if (do_lstat(repo, src, &st) < 0)
		return "bad source";
	if (!strncmp(src, dst, len) && (dst[len] == '\0' || dst[len] == '/'))
		return "can not move directory into itself";
	if (S_ISDIR(st.st_mode) && do_lstat(repo, dst, &dst_st) == 0)
		return "cannot move directory over file";
	if (S_ISDIR(st.st_mode)) {
		size_t first, count, j;
		struct fgit_buf d = FGIT_BUF_INIT;
		if (fgit_index_lookup(idx, src, 0)) {
			*err = fgit_error_set(FGIT_ENOTSUPP, "moving submodules");
			return NULL;
		}
		count = dir_range(idx, src, &first);
		if (count < 1)
			return "source directory is empty";
		p->items[i].is_dir = 1;
		fgit_buf_adds(&d, dst);
		if (!d.len || d.ptr[d.len - 1] != '/')
			fgit_buf_addch(&d, '/');
		for (j = 0; j < count; j++) {
			const struct fgit_index_entry *ce = fgit_index_get(idx, first + j);
			size_t keep = d.len;
			fgit_buf_adds(&d, ce->path + len + 1);
			if ((*err = add_item(p, p->nr, ce->path, d.ptr, 0, 1)))
				break;
			fgit_buf_setlen(&d, keep);
		}
		fgit_buf_release(&d);
		return NULL;
	}
	e = fgit_index_lookup(idx, src, 0);
	if (!e) {
		size_t pos;
		if (fgit_index_find_any_stage(&pos, idx, src, len))
			return "conflicted";
		return "not under version control";
	}
	if (do_lstat(repo, dst, &dst_st) == 0) {
		if (!(flags & FGIT_MV_FORCE))
			return "destination exists";
		if (S_ISREG(dst_st.st_mode) || S_ISLNK(dst_st.st_mode)) {
			if ((flags & FGIT_MV_VERBOSE) && report && report->overwriting)
				report->overwriting(dst, report->payload);
			goto ok;
		}
		return "Cannot overwrite";
	}
ok:
	for (k = 0; k < i; k++)
		if (!p->items[k].is_dir && !strcmp(p->items[k].dst, dst))
			return "multiple sources for the same target";
	if (dst[strlen(dst) - 1] == '/')
		return "destination directory does not exist";
	return NULL;
}

int fgit_mv_plan(struct fgit_mv_plan *out, struct fgit_repo *repo, struct fgit_index *idx,
		 const char *const *srcs, size_t n, const char *dst, unsigned int flags,
		 const struct fgit_mv_report *report)
{
	struct fgit_buf d = FGIT_BUF_INIT;
	struct stat st;
	int dst_is_dir, r = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	dst_is_dir = !*dst || (do_lstat(repo, dst, &st) == 0 && S_ISDIR(st.st_mode));
	if (!dst_is_dir && n != 1) {
		struct fgit_buf shown = FGIT_BUF_INIT;
		fgit_buf_adds(&shown, dst);
		r = fgit_error_set(FGIT_EINVALID, "destination '%s' is not a directory", shown.ptr);
		fgit_buf_release(&shown);
		return r;
	}
	for (i = 0; i < n && !r; i++) {
		fgit_buf_reset(&d);
		if (dst_is_dir) {
			size_t dl = strlen(dst);
			fgit_buf_adds(&d, dst);
			if (dl && dst[dl - 1] != '/')
				fgit_buf_addch(&d, '/');
			fgit_buf_adds(&d, base_name(srcs[i]));
		} else {
			fgit_buf_adds(&d, dst);
		}
		r = add_item(out, out->nr, srcs[i], d.ptr, 0, 0);
	}
	fgit_buf_release(&d);
	/* out->nr grows as directories add their entries */
	for (i = 0; !r && i < out->nr; i++) {
		const char *bad;
		bad = check_one(out, i, repo, idx, flags, report, &r);
		if (r || !bad)
			continue;
		if (!(flags & FGIT_MV_SKIP_ERRORS)) {
			r = fgit_error_set(FGIT_EINVALID, "%s, source=%s, destination=%s", bad,
					   out->items[i].src, out->items[i].dst);
			break;
		}
		drop_item(out, i);
		i--;
	}
	return r;
}

static int rename_entry(struct fgit_index *idx, const char *src, const char *dst)
{
	const struct fgit_index_entry *e = fgit_index_lookup(idx, src, 0);
	struct fgit_index_entry *n;
	size_t len = strlen(dst);
	int r;

	if (!e)
		return 0;
	if ((r = fgit_index_entry_new(&n, dst, len)))
		return r;
	{
		/* copy everything but the name */
		uint32_t path_len = n->path_len;
		memcpy(n, e, offsetof(struct fgit_index_entry, path_len));
		n->path_len = path_len;
	}
	fgit_index_remove_path(idx, src);
	return fgit_index_add_ex(idx, n, FGIT_INDEX_ADD_OK_TO_REPLACE);
}

int fgit_mv_apply(struct fgit_repo *repo, struct fgit_index *idx,
		  const struct fgit_mv_plan *plan, unsigned int flags,
		  void (*renamed)(const char *src, const char *dst, void *payload), void *payload)
{
	size_t i;
	int r;

	for (i = 0; i < plan->nr; i++) {
		const struct fgit_mv_item *it = &plan->items[i];
		if (renamed)
			renamed(it->src, it->dst, payload);
		if (flags & FGIT_MV_DRY_RUN)
			continue;
		if (!it->index_only) {
			char *a = fs_path(repo, it->src), *b = fs_path(repo, it->dst);
			int rr = a && b ? rename(a, b) : -1;
			int e = errno;
			free(a);
			free(b);
			if (rr < 0) {
				if (flags & FGIT_MV_SKIP_ERRORS)
					continue;
				errno = e;
				return fgit_error_errno(FGIT_ERROR, "renaming '%s' failed", it->src);
			}
		}
		if (it->is_dir)
			continue;
		if ((r = rename_entry(idx, it->src, it->dst)))
			return r;
	}
	return 0;
}
