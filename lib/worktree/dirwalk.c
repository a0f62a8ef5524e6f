/*
 * The directory walk behind ls-files -o (and later status): git's
 * fill_directory() rules, one readdir per directory.
 *
 * Order: each directory's entries are sorted with directories keyed as
 * "name/", which makes a depth-first walk produce paths in git's byte
 * order, so callers need no global sort.  Tracked-ness is a binary search
 * in the sorted index (a path, or "dir/" as a prefix of some entry).
 *
 * The --directory rules reproduce git 2.39's observable behaviour, checked
 * in tests/compat/t3000-ls-files.sh, including its quirk with -i: an
 * untracked directory holding only ignored files is reported itself and
 * then walked (git prints "d/" and "d/x.o").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/pathspec.h"
#include "fgit/worktree.h"

struct dent {
	char *name;
	size_t len;
	int is_dir;
};

struct walk {
	const struct fgit_dirwalk_options *o;
	struct fgit_buf fs;	/* workdir + "/" */
	size_t fs_base;
};

/* What a directory holds, for the --directory decisions. */
enum content {
	C_EMPTY = 0,		/* nothing (or only empty directories) */
	C_IGNORED = 1,		/* only ignored files */
	C_UNTRACKED = 2,	/* some untracked, not ignored file */
};

static int dent_cmp(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	unsigned char cx, cy;

	if (c)
		return c;
	cx = n < x->len ? (unsigned char)x->name[n] : x->is_dir ? '/' : 0;
	cy = n < y->len ? (unsigned char)y->name[n] : y->is_dir ? '/' : 0;
	return (int)cx - (int)cy;
}

static void free_dents(struct dent *d, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* Read directory `rel` ("" or "a/b/"): sorted entries without . .. .git. */
static int read_dir(struct dent **out, size_t *nr, struct walk *w, const char *rel)
{
	DIR *dir;
	struct dirent *de;
	struct dent *v = NULL;
	size_t n = 0, alloc = 0;

	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_adds(&w->fs, rel);
	*out = NULL;
	*nr = 0;
	dir = opendir(w->fs.len ? w->fs.ptr : ".");
	if (!dir)
		return 0;	/* git skips unreadable directories */
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		int is_dir;

		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git"))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			size_t keep = w->fs.len;
			fgit_buf_adds(&w->fs, name);
			is_dir = !lstat(w->fs.ptr, &st) && S_ISDIR(st.st_mode);
			fgit_buf_setlen(&w->fs, keep);
		} else {
			is_dir = de->d_type == DT_DIR;
		}
		if (n == alloc) {
			struct dent *nv;
			alloc = alloc ? alloc * 2 : 16;
			nv = realloc(v, alloc * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		v[n].len = strlen(name);
		v[n].name = strdup(name);
		v[n].is_dir = is_dir;
		if (!v[n].name)
			goto nomem;
		n++;
	}
	closedir(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), dent_cmp);
	*out = v;
	*nr = n;
	return 0;
nomem:
	closedir(dir);
	free_dents(v, n);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

static int tracked_file(const struct walk *w, const char *path, size_t len)
{
	size_t pos;
	return w->o->index && fgit_index_find_any_stage(&pos, w->o->index, path, len) > 0;
}

enum dir_state { D_NONE, D_TRACKED_DIR, D_GITLINK };

/* git's directory_exists_in_index: path has no trailing slash. */
static enum dir_state dir_in_index(const struct walk *w, const char *path, size_t len)
{
	const struct fgit_index_entry *e;
	size_t pos;
	char *key;

	if (!w->o->index)
		return D_NONE;
	if (fgit_index_find_any_stage(&pos, w->o->index, path, len) > 0) {
		e = fgit_index_get(w->o->index, pos);
		if ((e->mode & 0170000) == 0160000)
			return D_GITLINK;
	}
	key = malloc(len + 2);
	if (!key)
		return D_NONE;
	memcpy(key, path, len);
	key[len] = '/';
	key[len + 1] = '\0';
	fgit_index_find_any_stage(&pos, w->o->index, key, len + 1);
	e = fgit_index_get(w->o->index, pos);
	free(key);
	if (e && e->path_len > len && !memcmp(e->path, path, len) && e->path[len] == '/')
		return D_TRACKED_DIR;
	return D_NONE;
}

/* Does the directory (fs path in w->fs) hold a non-bare repository? */
static int nested_repo(struct walk *w, const char *rel, size_t len)
{
	struct stat st;
	size_t keep;
	int r;

	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_add(&w->fs, rel, len);
	fgit_buf_adds(&w->fs, "/.git");
	keep = w->fs.len;
	if (lstat(w->fs.ptr, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return 1;	/* gitfile */
	if (!S_ISDIR(st.st_mode))
		return 0;
	fgit_buf_setlen(&w->fs, keep);
	fgit_buf_adds(&w->fs, "/HEAD");
	r = !lstat(w->fs.ptr, &st);
	return r;
}

static int ignored(struct walk *w, const char *path, size_t len, int is_dir)
{
	if (!w->o->ignore)
		return 0;
	return fgit_ignore_lookup(NULL, w->o->ignore, path, len,
				  is_dir ? FGIT_IGNORE_DT_DIR : FGIT_IGNORE_DT_FILE) > 0;
}

static int push(struct walk *w, const char *path, size_t len)
{
	if (!w->o->ignore)
		return 0;
	return fgit_ignore_push_dir(w->o->ignore, path, len);
}

static void pop(struct walk *w)
{
	if (w->o->ignore)
		fgit_ignore_pop_dir(w->o->ignore);
}

static int walk_dir(struct walk *w, struct fgit_buf *path, int report, enum content *content);

/*
 * Directory `path` (no slash) is untracked and not ignored (or ignored,
 * with SHOW_IGNORED): scan what it holds without reporting.
 */
static int scan(struct walk *w, struct fgit_buf *path, enum content *c)
{
	int r;
	*c = C_EMPTY;
	if ((r = push(w, path->ptr, path->len)))
		return r;
	fgit_buf_addch(path, '/');
	r = walk_dir(w, path, 0, c);
	fgit_buf_setlen(path, path->len - 1);
	pop(w);
	return r;
}

/* Walk directory `path` ("" or "a/b/"), reporting when `report`. */
static int walk_dir(struct walk *w, struct fgit_buf *path, int report, enum content *content)
{
	const struct fgit_dirwalk_options *o = w->o;
	int show_ign = !!(o->flags & FGIT_DIRWALK_SHOW_IGNORED);
	struct dent *d;
	size_t n, i, base = path->len;
	int r = 0;

	if ((r = read_dir(&d, &n, w, path->ptr)))
		return r;
	for (i = 0; i < n && !r; i++) {
		int ign, is_dir = d[i].is_dir;

		fgit_buf_setlen(path, base);
		fgit_buf_add(path, d[i].name, d[i].len);
		if (o->pathspec && !fgit_pathspec_could_match_under(o->pathspec, path->ptr, path->len) &&
		    !fgit_pathspec_match(o->pathspec, path->ptr, path->len,
					 is_dir ? FGIT_PATHSPEC_MATCH_DIR : 0, NULL))
			continue;
		if (!is_dir) {
			if (tracked_file(w, path->ptr, path->len))
				continue;
			if (o->pathspec && !fgit_pathspec_match(o->pathspec, path->ptr, path->len, 0, NULL))
				continue;
			ign = ignored(w, path->ptr, path->len, 0);
			if (ign && *content < C_IGNORED)
				*content = C_IGNORED;
			if (!ign)
				*content = C_UNTRACKED;
			if (report && ign == show_ign)
				r = o->cb(path->ptr, path->len, 0, o->payload);
			continue;
		}
		ign = ignored(w, path->ptr, path->len, 1);
		if (ign && !show_ign) {
			if (*content < C_IGNORED)
				*content = C_IGNORED;
			continue;
		}
		switch (dir_in_index(w, path->ptr, path->len)) {
		case D_GITLINK:
			continue;
		case D_TRACKED_DIR: {
			enum content sub = C_EMPTY;
			if ((r = push(w, path->ptr, path->len)))
				break;
			fgit_buf_addch(path, '/');
			r = walk_dir(w, path, report, &sub);
			pop(w);
			if (sub > *content)
				*content = sub;
			continue;
		}
		case D_NONE:
			break;
		}
		if (r)
			break;
		if (ign && (o->flags & FGIT_DIRWALK_IGNORED_MATCHING)) {
			if (*content < C_IGNORED)
				*content = C_IGNORED;
			if (report)
				r = o->cb(path->ptr, path->len, 1, o->payload);
			continue;
		}
		{
			int leading_only = o->pathspec &&
				!fgit_pathspec_match(o->pathspec, path->ptr, path->len,
						     FGIT_PATHSPEC_MATCH_DIR, NULL);
			enum content sub = C_EMPTY;

			if (!leading_only && nested_repo(w, path->ptr, path->len)) {
				if (ign)
					*content = *content < C_IGNORED ? C_IGNORED : *content;
				else
					*content = C_UNTRACKED;
				if (report && ign == show_ign)
					r = o->cb(path->ptr, path->len, 1, o->payload);
				continue;
			}
			if (leading_only || !(o->flags & FGIT_DIRWALK_DIRECTORY)) {
				/* walk it, files reported one by one */
				if ((r = push(w, path->ptr, path->len)))
					break;
				fgit_buf_addch(path, '/');
				r = walk_dir(w, path, report, &sub);
				pop(w);
				if (sub > *content)
					*content = sub;
				continue;
			}
			/* --directory */
			if (ign) {
				/* only with SHOW_IGNORED: the directory stands for all */
				if ((r = scan(w, path, &sub)))
					break;
				if (sub > C_EMPTY && *content < C_IGNORED)
					*content = C_IGNORED;
				if (report && (sub > C_EMPTY || !(o->flags & FGIT_DIRWALK_NO_EMPTY_DIRECTORY)))
					r = o->cb(path->ptr, path->len, 1, o->payload);
				continue;
			}
			if ((r = scan(w, path, &sub)))
				break;
			/* an empty directory is untracked content unless hidden */
			if (sub == C_EMPTY && !(o->flags & FGIT_DIRWALK_NO_EMPTY_DIRECTORY))
				sub = C_UNTRACKED;
			if (sub > *content)
				*content = sub;
			if (!show_ign) {
				if (report && sub != C_EMPTY &&
				    (sub == C_UNTRACKED || !(o->flags & FGIT_DIRWALK_NO_EMPTY_DIRECTORY)))
					r = o->cb(path->ptr, path->len, 1, o->payload);
				continue;
			}
			/* SHOW_IGNORED --directory: git 2.39's behaviour */
			if (sub == C_IGNORED) {
				if (report)
					r = o->cb(path->ptr, path->len, 1, o->payload);
				if (r || (o->flags & FGIT_DIRWALK_NO_EMPTY_DIRECTORY))
					continue;
			} else if (sub == C_EMPTY || (o->flags & FGIT_DIRWALK_NO_EMPTY_DIRECTORY)) {
				continue;
			}
			if (report) {
				enum content dummy = C_EMPTY;
				if ((r = push(w, path->ptr, path->len)))
					break;
				fgit_buf_addch(path, '/');
				r = walk_dir(w, path, report, &dummy);
				pop(w);
			}
		}
	}
	fgit_buf_setlen(path, base);
	free_dents(d, n);
	return r;
}

int fgit_dirwalk(const char *workdir, const struct fgit_dirwalk_options *o)
{
	struct walk w;
	struct fgit_buf path = FGIT_BUF_INIT;
	enum content c = C_EMPTY;
	const char *start = o->start ? o->start : "";
	size_t pushed = 0;
	int r;

	memset(&w, 0, sizeof(w));
	w.o = o;
	fgit_buf_init(&w.fs, 0);
	if (workdir && *workdir) {
		fgit_buf_adds(&w.fs, workdir);
		if (w.fs.ptr[w.fs.len - 1] != '/')
			fgit_buf_addch(&w.fs, '/');
	}
	w.fs_base = w.fs.len;
	if ((r = push(&w, "", 0)))
		goto out;
	pushed++;
	/* enter the start directory component by component */
	while (*start) {
		const char *slash = strchr(start, '/');
		size_t n = slash ? (size_t)(slash - start) : strlen(start);
		if (n) {
			int ign;
			fgit_buf_add(&path, start, n);
			ign = ignored(&w, path.ptr, path.len, 1);
			if (ign && !(o->flags & FGIT_DIRWALK_SHOW_IGNORED))
				goto out;
			if ((r = push(&w, path.ptr, path.len)))
				goto out;
			pushed++;
			fgit_buf_addch(&path, '/');
		}
		start += n + (slash ? 1 : 0);
	}
	r = walk_dir(&w, &path, 1, &c);
out:
	while (pushed--)
		pop(&w);
	fgit_buf_release(&path);
	fgit_buf_release(&w.fs);
	return r;
}
