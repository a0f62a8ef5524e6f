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
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
	char *dents;		/* DENTS_SIZE bytes for getdents64, or NULL */
};

#define DENTS_SIZE 32768

/* One directory's sorted entries; names live in one buffer. */
struct dirlist {
	struct dent *v;
	size_t n;
	struct fgit_buf names;
	int has_per_dir;	/* holds the per-directory ignore file */
	int opened;		/* opendir() worked */
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

/* Add entry `name` (readdir's d_type) of the directory in w->fs to out. */
static int add_dent(struct dirlist *out, size_t *alloc, struct walk *w, const char *name,
		    unsigned char type)
{
	size_t len;
	int is_dir;

	if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]) ||
			       !strcmp(name + 1, "git")))
		return 0;
	len = strlen(name);
	if (type == DT_UNKNOWN) {
		struct stat st;
		size_t keep = w->fs.len;
		fgit_buf_adds(&w->fs, name);
		if (lstat(w->fs.ptr, &st))
			type = DT_UNKNOWN;
		else if (S_ISDIR(st.st_mode))
			type = DT_DIR;
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			type = DT_REG;
		else
			type = DT_FIFO;	/* some other kind: not listed */
		fgit_buf_setlen(&w->fs, keep);
	}
	is_dir = type == DT_DIR;
	if (!is_dir && w->per_dir && !strcmp(name, w->per_dir))
		out->has_per_dir = 1;
	/* git lists files, symbolic links and directories only: never a
	 * FIFO, socket or device (though a FIFO .gitignore is still read) */
	if (type != DT_DIR && type != DT_REG && type != DT_LNK)
		return 0;
	if (out->n == *alloc) {
		struct dent *nv;
		size_t na = *alloc ? *alloc * 2 : 32;
		nv = realloc(out->v, na * sizeof(*nv));
		if (!nv)
			return -1;
		out->v = nv;
		*alloc = na;
	}
	if (out->names.len + len + 1 > UINT32_MAX)
		return -1;
	out->v[out->n].off = (uint32_t)out->names.len;
	out->v[out->n].len = (uint32_t)len;
	out->v[out->n].is_dir = is_dir;
	if (fgit_buf_add(&out->names, name, len + 1))
		return -1;
	out->n++;
	return 0;
}

/*
 * Read directory `rel` ("" or "a/b/"): entries without . .. .git, sorted or
 * in readdir order.  open and getdents64 rather than opendir, whose fstat
 * (for its buffer size) was one system call of five per directory in a
 * clean status of the 100,000-file corpus (5,000 directories).
 */
static int read_dir_order(struct dirlist *out, struct walk *w, const char *rel, int sorted)
{
	size_t alloc = 0;
	int fd;

	memset(out, 0, sizeof(*out));
	fgit_buf_init(&out->names, 0);
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_adds(&w->fs, rel);
	fd = open(w->fs.len ? w->fs.ptr : ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* git skips unreadable directories */
	out->opened = 1;
	if (!w->dents && !(w->dents = malloc(DENTS_SIZE)))
		goto nomem;
	for (;;) {
		ssize_t got = getdents64(fd, w->dents, DENTS_SIZE), off;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;	/* as readdir: an error ends the listing */
		for (off = 0; off < got; ) {
			const struct dirent64 *de = (const struct dirent64 *)(w->dents + off);

			if (add_dent(out, &alloc, w, de->d_name, de->d_type))
				goto nomem;
			off += de->d_reclen;
		}
	}
	close(fd);
	if (sorted && out->n > 1)
		qsort_r(out->v, out->n, sizeof(*out->v), dent_cmp, out->names.ptr);
	return 0;
nomem:
	close(fd);
	dirlist_release(out);
	return fgit_error_set(FGIT_ENOMEM, "out of memory");
}

static int read_dir(struct dirlist *out, struct walk *w, const char *rel)
{
	return read_dir_order(out, w, rel, 1);
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
			} else if (sub == C_EMPTY ||
				   (o->flags & (FGIT_DIRWALK_NO_EMPTY_DIRECTORY | FGIT_DIRWALK_IGNORED_TOO)) ==
				   FGIT_DIRWALK_NO_EMPTY_DIRECTORY) {
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

int fgit_untr_exclude_oid(struct fgit_oid *out, const char *fspath, const char *path,
			  const struct fgit_index *idx, int algo)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const struct fgit_index_entry *e;
	int r = 0;

	fgit_oid_zero(out, algo);
	if (fgit_buf_read_file(&b, fspath) < 0) {
		fgit_error_clear();
		goto out;	/* no file: a null id */
	}
	if ((r = fgit_hash_object(out, algo, FGIT_OBJ_BLOB, b.ptr, b.len)) < 0 || !b.len)
		goto out;
	/* a tracked, clean file: its index id; otherwise content + "\n" */
	e = path && idx ? fgit_index_lookup(idx, path, 0) : NULL;
	if (e && fgit_oid_equal(&e->oid, out))
		goto out;
	if ((r = fgit_buf_addch(&b, '\n')) < 0 ||
	    (r = fgit_hash_object(out, algo, FGIT_OBJ_BLOB, b.ptr, b.len)) < 0)
		goto out;
out:
	fgit_buf_release(&b);
	return r;
}

/*
 * The walk with the untracked cache follows git's read_directory_recursive
 * for status -unormal (DIR_SHOW_OTHER_DIRECTORIES|DIR_HIDE_EMPTY_DIRECTORIES):
 * entries in readdir order, a wholly untracked directory only checked
 * ("check only": stop at its first untracked path), and each directory's
 * node filled as git fills it, so the cache written afterwards is the one
 * git would write.  Paths are reported unsorted and perhaps twice; the
 * caller sorts.
 */
enum uc_state { U_NONE, U_RECURSE, U_EXCLUDED, U_UNTRACKED };

struct uc_walk {
	struct walk *w;
	struct fgit_untr *uc;
	int all;		/* -uall: untracked directories walked, not checked */
	uint32_t isec;		/* the index file's mtime: racy directories */
};

static void fill_stat(uint32_t out[9], const struct stat *st)
{
	out[0] = (uint32_t)st->st_ctim.tv_sec;
	out[1] = (uint32_t)st->st_ctim.tv_nsec;
	out[2] = (uint32_t)st->st_mtim.tv_sec;
	out[3] = (uint32_t)st->st_mtim.tv_nsec;
	out[4] = (uint32_t)st->st_dev;
	out[5] = (uint32_t)st->st_ino;
	out[6] = (uint32_t)st->st_uid;
	out[7] = (uint32_t)st->st_gid;
	out[8] = (uint32_t)st->st_size;
}

/* git's prep_exclude check: the node's ignore file still the same? */
static int uc_check_gitignore(struct uc_walk *u, struct fgit_untr_dir *n, const char *dir,
			      size_t len)
{
	struct walk *w = u->w;
	struct fgit_buf rel = FGIT_BUF_INIT;
	struct fgit_oid oid;
	int r;

	fgit_buf_add(&rel, dir, len);
	fgit_buf_adds(&rel, w->per_dir ? w->per_dir : ".gitignore");
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_add(&w->fs, rel.ptr, rel.len);
	r = fgit_untr_exclude_oid(&oid, w->fs.ptr, rel.ptr, w->o->index, u->uc->algo);
	fgit_buf_release(&rel);
	if (r < 0)
		return r;
	if (!fgit_oid_equal(&oid, &n->exclude_oid)) {
		fgit_untr_invalidate_gitignore(u->uc, n);
		n->exclude_oid = oid;
	}
	return 0;
}

/* git's valid_cached_dir: may the node stand for the directory? */
static int uc_valid(struct uc_walk *u, struct fgit_untr_dir *n, const char *dir, size_t len,
		    int check_only, int *skip_file)
{
	struct walk *w = u->w;
	struct stat st;
	uint32_t *s = n->stat;

	*skip_file = 0;
	fgit_buf_setlen(&w->fs, w->fs_base);
	fgit_buf_add(&w->fs, dir, len);
	if (lstat(w->fs.len ? w->fs.ptr : ".", &st)) {
		memset(n->stat, 0, sizeof(n->stat));
		return 0;
	}
	if (!n->valid || (u->isec && u->isec <= s[2]) ||
	    s[2] != (uint32_t)st.st_mtime || s[0] != (uint32_t)st.st_ctime ||
	    s[5] != (uint32_t)st.st_ino || s[6] != (uint32_t)st.st_uid ||
	    s[7] != (uint32_t)st.st_gid || s[8] != (uint32_t)st.st_size) {
		fill_stat(n->stat, &st);
		return 0;
	}
	if (n->check_only != !!check_only)
		return 0;
	/* a valid directory that had no ignore file is not asked again */
	if (fgit_oid_is_zero(&n->exclude_oid)) {
		*skip_file = 1;
		return 1;
	}
	if (uc_check_gitignore(u, n, dir, len) < 0)
		return 0;
	return n->valid;
}

static int uc_report(struct walk *w, struct fgit_buf *path, int is_dir)
{
	return w->o->cb(path->ptr, path->len - !!is_dir, is_dir, w->o->payload);
}

static int uc_read(struct uc_walk *u, struct fgit_buf *path, struct fgit_untr_dir *n,
		   int check_only, enum uc_state *out);

/* A directory entry (path ends in '/') found by readdir: git's treat_path. */
static int uc_entry(struct uc_walk *u, struct fgit_buf *path, size_t base, struct fgit_untr_dir *n,
		    int is_dir, int check_only, enum uc_state *state, enum uc_state *sub)
{
	struct walk *w = u->w;
	const struct fgit_index *idx = w->o->index;
	size_t pos, len = path->len;
	struct fgit_untr_dir *c;
	int r;

	*state = *sub = U_NONE;
	if (!is_dir) {
		if (fgit_index_find_any_stage(&pos, idx, path->ptr, len))
			return 0;	/* tracked */
		*state = ignored(w, path->ptr, len, 0) ? U_EXCLUDED : U_UNTRACKED;
		return 0;
	}
	if (ignored(w, path->ptr, len, 1)) {
		*state = U_EXCLUDED;
		return 0;
	}
	/* git's directory_exists_in_index */
	fgit_index_find_any_stage(&pos, idx, path->ptr, len);
	for (; pos < fgit_index_entrycount(idx); pos++) {
		const struct fgit_index_entry *e = fgit_index_get(idx, pos);
		unsigned char end;
		if (e->path_len < len || memcmp(e->path, path->ptr, len))
			break;
		end = (unsigned char)e->path[len];
		if (end > '/')
			break;
		if (end == '/') {
			*state = U_RECURSE;
			break;
		}
		if (!end && (e->mode & 0170000) == 0160000)
			return 0;
	}
	fgit_buf_addch(path, '/');
	if (*state != U_RECURSE) {
		if (nested_repo(w, path->ptr, len)) {
			*state = U_UNTRACKED;
			return 0;
		}
		/* -uall: an untracked directory is walked like a tracked one */
		if (u->all)
			*state = U_RECURSE;
	}
	if (*state == U_RECURSE) {
		if (!(c = fgit_untr_lookup(u->uc, n, path->ptr + base, path->len - base)))
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		return uc_read(u, path, c, check_only, sub);
	}
	if (!(c = fgit_untr_lookup(u->uc, n, path->ptr + base, path->len - base)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	r = uc_read(u, path, c, 1, state);
	if (*state == U_RECURSE)
		*state = U_NONE;
	return r;
}

/* Does any entry make git look at the directory's ignore rules? */
static int uc_needs_rules(struct uc_walk *u, const struct dirlist *d, struct fgit_buf *path)
{
	size_t i, base = path->len, pos;
	int r = 0;
	for (i = 0; i < d->n && !r; i++) {
		if (d->v[i].is_dir)
			return 1;
		fgit_buf_setlen(path, base);
		fgit_buf_add(path, DNAME(d, i), d->v[i].len);
		r = !fgit_index_find_any_stage(&pos, u->w->o->index, path->ptr, path->len);
	}
	fgit_buf_setlen(path, base);
	return r;
}

static int uc_read(struct uc_walk *u, struct fgit_buf *path, struct fgit_untr_dir *n,
		   int check_only, enum uc_state *out)
{
	struct walk *w = u->w;
	size_t base = path->len, i;
	enum uc_state dir_state = U_NONE, st, sub;
	struct dirlist d;
	int r = 0, skip_file, is_root = !base;

	*out = U_NONE;
	if (uc_valid(u, n, path->ptr, base, check_only, &skip_file)) {
		/* replay: subdirectories first, then the names */
		if (!is_root && (r = push(w, path->ptr, base - 1, skip_file ? FGIT_IGNORE_PUSH_NO_FILE : 0)))
			return r;
		for (i = 0; i < n->nr_dirs && !r; i++) {
			struct fgit_untr_dir *c = n->dirs[i];
			if (!c->recurse)
				continue;
			fgit_buf_setlen(path, base);
			fgit_buf_adds(path, c->name);
			fgit_buf_addch(path, '/');
			if (c->check_only) {
				r = uc_read(u, path, c, 1, &st);
				sub = U_NONE;
			} else {
				st = U_RECURSE;
				r = uc_read(u, path, c, check_only, &sub);
			}
			if (st > dir_state)
				dir_state = st;
			if (sub > dir_state)
				dir_state = sub;
			if (check_only) {
				if (dir_state == U_UNTRACKED)
					break;
				continue;
			}
			if (st == U_UNTRACKED)
				r = uc_report(w, path, 1);
		}
		for (i = 0; i < n->nr_untracked && !r && !(check_only && dir_state == U_UNTRACKED); i++) {
			const char *name = n->untracked[i];
			size_t len = strlen(name);
			fgit_buf_setlen(path, base);
			fgit_buf_add(path, name, len);
			dir_state = U_UNTRACKED;
			if (!check_only)
				r = uc_report(w, path, len && name[len - 1] == '/');
		}
		goto close;
	}
	/* read afresh, in readdir order */
	fgit_untr_invalidate_dir(u->uc, n);
	u->uc->dir_opened++;
	if ((r = read_dir_order(&d, w, path->ptr, 0)))
		return r;
	if (!d.opened) {
		dirlist_release(&d);
		fgit_buf_setlen(path, base);
		return 0;	/* stays invalid, as git leaves it */
	}
	n->check_only = !!check_only;
	if (uc_needs_rules(u, &d, path) && (r = uc_check_gitignore(u, n, path->ptr, base)) < 0)
		goto out;
	if (!is_root && (r = push(w, path->ptr, base - 1, d.has_per_dir ? 0 : FGIT_IGNORE_PUSH_NO_FILE)))
		goto out;
	for (i = 0; i < d.n && !r; i++) {
		fgit_buf_setlen(path, base);
		fgit_buf_add(path, DNAME(&d, i), d.v[i].len);
		if ((r = uc_entry(u, path, base, n, d.v[i].is_dir, check_only, &st, &sub)))
			break;
		if (st > dir_state)
			dir_state = st;
		if (sub > dir_state)
			dir_state = sub;
		if (d.v[i].is_dir && path->ptr[path->len - 1] != '/')
			fgit_buf_addch(path, '/');
		if (check_only) {
			if (dir_state == U_UNTRACKED) {
				if (fgit_untr_add_untracked(n, path->ptr + base, path->len - base))
					r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				break;
			}
			continue;
		}
		if (st == U_UNTRACKED) {
			if (fgit_untr_add_untracked(n, path->ptr + base, path->len - base))
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
			else
				r = uc_report(w, path, d.v[i].is_dir);
		}
	}
	dirlist_release(&d);
close:
	n->valid = 1;
	n->recurse = 1;
	if (!is_root)
		pop(w);
	fgit_buf_setlen(path, base);
	*out = dir_state;
	return r;
out:
	dirlist_release(&d);
	fgit_buf_setlen(path, base);
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
	if (o->untracked_cache && o->untracked_cache->root && o->index && !path.len &&
	    !o->pathspec && (o->flags == (FGIT_DIRWALK_DIRECTORY | FGIT_DIRWALK_NO_EMPTY_DIRECTORY) ||
			     !o->flags)) {
		struct uc_walk u;
		enum uc_state st;
		uint32_t insec;
		u.w = &w;
		u.all = !o->flags;
		u.uc = o->untracked_cache;
		fgit_index_file_mtime(o->index, &u.isec, &insec);
		u.uc->root->recurse = 1;
		r = uc_read(&u, &path, u.uc->root, 0, &st);
	} else
		r = walk_dir(&w, &path, 1, &c, lo, hi, 0);
out:
	while (pushed--)
		pop(&w);
	fgit_buf_release(&path);
	fgit_buf_release(&w.fs);
	free(w.dents);
	return r;
}
