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
#include "fgit/hash.h"
#include "fgit/object.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/pathspec.h"
#include "fgit/worktree.h"

struct dent {
	uint32_t off;		/* name in the directory's name arena */
	uint32_t len;
	int is_dir;
};

struct walk {
	const struct fgit_dirwalk_options *o;
	struct fgit_buf fs;	/* workdir + "/" */
	size_t fs_base;
	const char *per_dir;	/* ".gitignore" or NULL */
};

/* One directory's sorted entries; names live in one buffer. */
struct dirlist {
	struct dent *v;
	size_t n;
	struct fgit_buf names;
	int has_per_dir;	/* holds the per-directory ignore file */
};

/* What a directory holds, for the --directory decisions. */
enum content {
	C_EMPTY = 0,		/* nothing (or only empty directories) */
	C_IGNORED = 1,		/* only ignored files */
	C_UNTRACKED = 2,	/* some untracked, not ignored file */
};

static int key_cmp(const char *a, size_t alen, int adir, const char *b, size_t blen, int bdir)
{
	size_t n = alen < blen ? alen : blen;
	int c = memcmp(a, b, n);
	unsigned char cx, cy;

	if (c)
		return c;
	cx = n < alen ? (unsigned char)a[n] : adir ? '/' : 0;
	cy = n < blen ? (unsigned char)b[n] : bdir ? '/' : 0;
	return (int)cx - (int)cy;
}

static int dent_cmp(const void *a, const void *b, void *arena)
{
	const struct dent *x = a, *y = b;
	const char *base = arena;
	return key_cmp(base + x->off, x->len, x->is_dir, base + y->off, y->len, y->is_dir);
}

static void dirlist_release(struct dirlist *d)
{
	free(d->v);
	fgit_buf_release(&d->names);
}

#define DNAME(d, i) ((d)->names.ptr + (d)->v[i].off)

/* Read directory `rel` ("" or "a/b/"): sorted entries without . .. .git. */
static int read_dir(struct dirlist *out, struct walk *w, const char *rel)
{
	DIR *dir;
	struct dirent *de;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	fgit_buf_init(&out->names, 0);
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_adds(&w->fs, rel);
	dir = opendir(w->fs.len ? w->fs.ptr : ".");
	if (!dir)
		return 0;	/* git skips unreadable directories */
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		size_t len;
		int is_dir;

		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]) ||
				       !strcmp(name + 1, "git")))
			continue;
		len = strlen(name);
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			size_t keep = w->fs.len;
			fgit_buf_adds(&w->fs, name);
			is_dir = !lstat(w->fs.ptr, &st) && S_ISDIR(st.st_mode);
			fgit_buf_setlen(&w->fs, keep);
		} else {
			is_dir = de->d_type == DT_DIR;
		}
		if (!is_dir && w->per_dir && !strcmp(name, w->per_dir))
			out->has_per_dir = 1;
		if (out->n == alloc) {
			struct dent *nv;
			alloc = alloc ? alloc * 2 : 32;
			nv = realloc(out->v, alloc * sizeof(*nv));
			if (!nv)
				goto nomem;
			out->v = nv;
		}
		if (out->names.len + len + 1 > UINT32_MAX)
			goto nomem;
		out->v[out->n].off = (uint32_t)out->names.len;
		out->v[out->n].len = (uint32_t)len;
		out->v[out->n].is_dir = is_dir;
		if (fgit_buf_add(&out->names, name, len + 1))
			goto nomem;
		out->n++;
	}
	closedir(dir);
	if (out->n > 1)
		qsort_r(out->v, out->n, sizeof(*out->v), dent_cmp, out->names.ptr);
	return 0;
nomem:
	closedir(dir);
	dirlist_release(out);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

/*
 * The index entries under the directory being walked are [c, hi): a
 * cursor moves through them as the sorted entries of the directory are
 * visited, so telling tracked from untracked costs no search.
 */
struct cursor {
	const struct fgit_index *idx;
	size_t c, hi, base;	/* base: length of the directory prefix */
};

/* Move to the first entry whose component is not below (name, is_dir); equal? */
static int cursor_seek(struct cursor *k, const char *name, size_t len, int is_dir)
{
	while (k->c < k->hi) {
		const struct fgit_index_entry *e = fgit_index_get(k->idx, k->c);
		const char *comp = e->path + k->base, *slash;
		size_t clen = e->path_len - k->base;
		int c;
		slash = memchr(comp, '/', clen);
		if (slash)
			clen = (size_t)(slash - comp);
		c = key_cmp(comp, clen, slash != NULL, name, len, is_dir);
		if (c >= 0)
			return c == 0;
		k->c++;
	}
	return 0;
}

enum dir_state { D_NONE, D_TRACKED_DIR, D_GITLINK };

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

static int push(struct walk *w, const char *path, size_t len, unsigned flags)
{
	if (!w->o->ignore)
		return 0;
	return fgit_ignore_push_dir_ex(w->o->ignore, path, len, flags);
}

static void pop(struct walk *w)
{
	if (w->o->ignore)
		fgit_ignore_pop_dir(w->o->ignore);
}

static int walk_dir(struct walk *w, struct fgit_buf *path, int report, enum content *content,
		    size_t lo, size_t hi, int do_push);

/*
 * Enter directory `path` (no slash) holding index entries [lo, hi): its
 * ignore frame is pushed once its listing is known (no per-directory file
 * is opened where the listing shows none).
 */
static int enter(struct walk *w, struct fgit_buf *path, int report, enum content *c,
		 size_t lo, size_t hi)
{
	int r;
	fgit_buf_addch(path, '/');
	r = walk_dir(w, path, report, c, lo, hi, 1);
	fgit_buf_setlen(path, path->len - 1);
	return r;
}

/*
 * Directory `path` (no slash) is untracked and not ignored (or ignored,
 * with SHOW_IGNORED): scan what it holds without reporting.
 */
static int scan(struct walk *w, struct fgit_buf *path, enum content *c)
{
	*c = C_EMPTY;
	return enter(w, path, 0, c, 0, 0);
}

/* Walk directory `path` ("" or "a/b/"), reporting when `report`. */
static int walk_dir(struct walk *w, struct fgit_buf *path, int report, enum content *content,
		    size_t lo, size_t hi, int do_push)
{
	const struct fgit_dirwalk_options *o = w->o;
	int show_ign = !!(o->flags & FGIT_DIRWALK_SHOW_IGNORED);
	struct dirlist d;
	struct cursor k;
	size_t i, base = path->len;
	int r = 0;

	if ((r = read_dir(&d, w, path->ptr)))
		return r;
	if (do_push &&
	    (r = push(w, path->ptr, base ? base - 1 : 0, d.has_per_dir ? 0 : FGIT_IGNORE_PUSH_NO_FILE))) {
		dirlist_release(&d);
		return r;
	}
	k.idx = o->index;
	k.c = lo;
	k.hi = o->index ? hi : 0;
	k.base = base;
	for (i = 0; i < d.n && !r; i++) {
		const char *name = DNAME(&d, i);
		size_t nlen = d.v[i].len;
		int ign, is_dir = d.v[i].is_dir;
		enum dir_state ds = D_NONE;
		size_t sub_lo = 0, sub_hi = 0;

		fgit_buf_setlen(path, base);
		fgit_buf_add(path, name, nlen);
		if (o->pathspec && !fgit_pathspec_could_match_under(o->pathspec, path->ptr, path->len) &&
		    !fgit_pathspec_match(o->pathspec, path->ptr, path->len,
					 is_dir ? FGIT_PATHSPEC_MATCH_DIR : 0, NULL))
			continue;
		if (!is_dir) {
			if (cursor_seek(&k, name, nlen, 0))
				continue;	/* tracked */
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
		/* git's directory_exists_in_index: a gitlink, then "name/" */
		if (cursor_seek(&k, name, nlen, 0) &&
		    (fgit_index_get(o->index, k.c)->mode & 0170000) == 0160000) {
			ds = D_GITLINK;
		} else if (cursor_seek(&k, name, nlen, 1)) {
			ds = D_TRACKED_DIR;
			fgit_buf_addch(path, '/');
			sub_lo = k.c;
			sub_hi = fgit_index_prefix_end(o->index, k.c, k.hi, path->ptr, path->len);
			fgit_buf_setlen(path, path->len - 1);
			k.c = sub_hi;
		}
		ign = ignored(w, path->ptr, path->len, 1);
		if (ign && !show_ign) {
			if (*content < C_IGNORED)
				*content = C_IGNORED;
			continue;
		}
		switch (ds) {
		case D_GITLINK:
			continue;
		case D_TRACKED_DIR: {
			enum content sub = C_EMPTY;
			r = enter(w, path, report, &sub, sub_lo, sub_hi);
			if (sub > *content)
				*content = sub;
			continue;
		}
		case D_NONE:
			break;
		}
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
				r = enter(w, path, report, &sub, 0, 0);
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
				r = enter(w, path, report, &dummy, 0, 0);
			}
		}
	}
	fgit_buf_setlen(path, base);
	if (do_push)
		pop(w);
	dirlist_release(&d);
	return r;
}


/* ---- the untracked cache ---- */

int fgit_untr_exclude_oid_matches(const struct fgit_oid *oid, const char *buf, size_t len)
{
	struct fgit_oid h;
	char *nl;
	int r;

	if (!fgit_hash_object(&h, oid->algo, FGIT_OBJ_BLOB, buf, len) && fgit_oid_equal(&h, oid))
		return 1;
	if (!len || !(nl = malloc(len + 1)))
		return 0;
	memcpy(nl, buf, len);
	nl[len] = '\n';
	r = !fgit_hash_object(&h, oid->algo, FGIT_OBJ_BLOB, nl, len + 1) && fgit_oid_equal(&h, oid);
	free(nl);
	return r;
}

/* git's valid_cached_dir: same stat data, not racy, same ignore file. */
static int cached_dir_ok(struct walk *w, const struct fgit_untr_dir *n, const char *dir, size_t len,
			 int check_only, int *has_file)
{
	struct stat st;
	struct fgit_buf b = FGIT_BUF_INIT;
	uint32_t isec, insec;
	int ok = 0;

	if (!n->valid || n->check_only != !!check_only)
		return 0;
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_add(&w->fs, dir, len);
	if (lstat(w->fs.len ? w->fs.ptr : ".", &st))
		return 0;
	fgit_index_file_mtime(w->o->index, &isec, &insec);
	if (n->stat[2] != (uint32_t)st.st_mtime || n->stat[0] != (uint32_t)st.st_ctime ||
	    n->stat[5] != (uint32_t)st.st_ino || n->stat[6] != (uint32_t)st.st_uid ||
	    n->stat[7] != (uint32_t)st.st_gid || n->stat[8] != (uint32_t)st.st_size ||
	    (isec && isec <= n->stat[2]))
		return 0;
	/* the per-directory ignore file, by content */
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_add(&w->fs, dir, len);
	fgit_buf_adds(&w->fs, w->per_dir ? w->per_dir : ".gitignore");
	*has_file = 0;
	if (fgit_buf_read_file(&b, w->fs.ptr) < 0) {
		fgit_error_clear();
		ok = !n->has_oid;
	} else {
		*has_file = 1;
		ok = n->has_oid && fgit_untr_exclude_oid_matches(&n->exclude_oid, b.ptr, b.len);
	}
	fgit_buf_release(&b);
	return ok;
}

static const struct fgit_untr_dir *uc_child(const struct fgit_untr *uc, const struct fgit_untr_dir *n,
					    size_t i)
{
	return i == (size_t)-1 ? NULL : &uc->dirs[i];
}

/*
 * Directory `path` ("" or "a/b/", holding index entries [lo, hi)) with
 * cache node n.  A directory that is no longer valid is walked afresh,
 * subdirectories included.
 */
static int walk_cached(struct walk *w, struct fgit_buf *path, const struct fgit_untr_dir *n,
		       size_t lo, size_t hi, int do_push)
{
	const struct fgit_dirwalk_options *o = w->o;
	const struct fgit_untr *uc = o->untracked_cache;
	const struct fgit_untr_dir *c;
	size_t base = path->len, i;
	enum content content = C_EMPTY;
	int r = 0, has_file = 1;

	if (!cached_dir_ok(w, n, path->ptr, base, 0, &has_file))
		return walk_dir(w, path, 1, &content, lo, hi, do_push);
	if (do_push && (r = push(w, path->ptr, base ? base - 1 : 0,
				 has_file ? 0 : FGIT_IGNORE_PUSH_NO_FILE)))
		return r;
	for (i = 0; i < n->nr_untracked && !r; i++) {
		const char *name = uc->names[n->untracked_first + i];
		size_t len = strlen(name);
		int is_dir = len && name[len - 1] == '/';
		fgit_buf_setlen(path, base);
		fgit_buf_add(path, name, len - is_dir);
		r = o->cb(path->ptr, path->len, is_dir, o->payload);
	}
	for (c = uc_child(uc, n, n->first_child); c && !r; c = uc_child(uc, c, c->next_sibling)) {
		size_t sub_lo, sub_hi;
		fgit_buf_setlen(path, base);
		fgit_buf_adds(path, c->name);
		if (c->check_only) {
			/* an untracked directory shown whole: its name is in
			 * the parent's list; re-check it only when it changed */
			enum content sub = C_EMPTY;
			int hf;
			/* NEEDSWORK: git also re-checks its check-only subdirectories */
			if (cached_dir_ok(w, c, path->ptr, path->len, 1, &hf))
				continue;
			fgit_buf_setlen(path, base);
			fgit_buf_adds(path, c->name);
			if ((r = scan(w, path, &sub)))
				break;
			if (sub == C_UNTRACKED)
				r = o->cb(path->ptr, path->len, 1, o->payload);
			continue;
		}
		fgit_buf_addch(path, '/');
		fgit_index_find_any_stage(&sub_lo, o->index, path->ptr, path->len);
		if (sub_lo < lo)
			sub_lo = lo;
		sub_hi = fgit_index_prefix_end(o->index, sub_lo, hi, path->ptr, path->len);
		r = walk_cached(w, path, c, sub_lo, sub_hi, 1);
	}
	fgit_buf_setlen(path, base);
	if (do_push)
		pop(w);
	return r;
}

int fgit_dirwalk(const char *workdir, const struct fgit_dirwalk_options *o)
{
	struct walk w;
	struct fgit_buf path = FGIT_BUF_INIT;
	enum content c = C_EMPTY;
	const char *start = o->start ? o->start : "";
	size_t pushed = 0, lo = 0, hi = o->index ? fgit_index_entrycount(o->index) : 0;
	int r;

	memset(&w, 0, sizeof(w));
	w.o = o;
	w.per_dir = o->ignore ? fgit_ignore_per_dir_name(o->ignore) : NULL;
	fgit_buf_init(&w.fs, 0);
	if (workdir && *workdir) {
		fgit_buf_adds(&w.fs, workdir);
		if (w.fs.ptr[w.fs.len - 1] != '/')
			fgit_buf_addch(&w.fs, '/');
	}
	w.fs_base = w.fs.len;
	if ((r = push(&w, "", 0, 0)))
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
			if ((r = push(&w, path.ptr, path.len, 0)))
				goto out;
			pushed++;
			fgit_buf_addch(&path, '/');
		}
		start += n + (slash ? 1 : 0);
	}
	if (path.len && o->index) {
		/* the index entries under the start directory */
		fgit_index_find_any_stage(&lo, o->index, path.ptr, path.len);
		hi = fgit_index_prefix_end(o->index, lo, hi, path.ptr, path.len);
	}
	if (o->untracked_cache && o->untracked_cache->nr_dirs && o->index && !path.len &&
	    !o->pathspec && o->flags == (FGIT_DIRWALK_DIRECTORY | FGIT_DIRWALK_NO_EMPTY_DIRECTORY))
		r = walk_cached(&w, &path, &o->untracked_cache->dirs[0], lo, hi, 0);
	else
		r = walk_dir(&w, &path, 1, &c, lo, hi, 0);
out:
	while (pushed--)
		pop(&w);
	fgit_buf_release(&path);
	fgit_buf_release(&w.fs);
	return r;
}
