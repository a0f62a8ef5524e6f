/*
 * Reflogs of the files backend: logs/<ref>, one entry per line,
 * "<old> <new> <name> <<email>> <time> <tz>\t<message>\n", appended by
 * transactions (transaction.c) and rewritten here through
 * "logs/<ref>.lock" while the ref itself is locked, as git's reflog
 * expire does.  Lines git would not parse are skipped as git skips them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/lockfile.h"
#include "fgit/refs.h"
#include "refs_internal.h"

int fgit_reflog_exists(struct fgit_refdb *db, const char *name)
{
	char *path = refs_path(db, "logs/", name);
	struct stat st;
	int r;

	if (!path)
		return 0;
	r = !stat(path, &st) && S_ISREG(st.st_mode);
	free(path);
	return r;
}

/*
 * Parse one line (NUL-terminated, newline removed) the way git's
 * show_one_reflog_ent() does; 0 if it is not a valid entry.  The line is
 * modified: the ident is cut after its '>'.
 */
static int parse_entry(struct fgit_reflog_entry *e, char *line, size_t len, int algo)
{
	size_t hexsz = fgit_hash_hexsz(algo);
	char *email_end, *p, *end;
	long long t;

	if (len < 2 * hexsz + 2 || line[hexsz] != ' ' || line[2 * hexsz + 1] != ' ' ||
	    fgit_oid_from_hex(&e->old_oid, line, algo) ||
	    fgit_oid_from_hex(&e->new_oid, line + hexsz + 1, algo))
		return 0;
	p = line + 2 * hexsz + 2;
	email_end = strchr(p, '>');
	if (!email_end || email_end[1] != ' ')
		return 0;
	errno = 0;
	t = strtoll(email_end + 2, &end, 10);
	if (!t || errno || end == email_end + 2)
		return 0;
	if (end[0] != ' ' || (end[1] != '+' && end[1] != '-') || !isdigit((unsigned char)end[2]) ||
	    !isdigit((unsigned char)end[3]) || !isdigit((unsigned char)end[4]) ||
	    !isdigit((unsigned char)end[5]))
		return 0;
	email_end[1] = '\0';
	e->ident = p;
	e->time = t;
	e->tz = (int)strtol(end + 1, NULL, 10);
	e->msg = end[6] == '\t' ? end + 7 : end + 6;
	return 1;
}

struct entry_line {
	size_t start, len;
};

int fgit_reflog_foreach(struct fgit_refdb *db, const char *name, int reverse,
			fgit_reflog_cb cb, void *payload)
{
	char *path = refs_path(db, "logs/", name);
	struct fgit_buf b = FGIT_BUF_INIT;
	struct entry_line *lines = NULL;
	size_t nr = 0, alloc = 0, pos = 0, i;
	int r;

	if (!path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	r = fgit_buf_read_file(&b, path);
	if (r) {
		if (r == FGIT_ENOTFOUND || errno == EISDIR) {
			fgit_error_clear();
			r = 0;
		}
		goto out;
	}
	while (pos < b.len) {
		char *nl = memchr(b.ptr + pos, '\n', b.len - pos);
		size_t len = nl ? (size_t)(nl - (b.ptr + pos)) : b.len - pos;
		if (nr == alloc) {
			size_t n = alloc ? 2 * alloc : 64;
			struct entry_line *l = realloc(lines, n * sizeof(*l));
			if (!l) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
			lines = l;
			alloc = n;
		}
		lines[nr].start = pos;
		lines[nr++].len = len;
		b.ptr[pos + len] = '\0';	/* the newline, or the buffer's NUL */
		pos += len + 1;
	}
	for (i = 0; i < nr && !r; i++) {
		struct entry_line *l = &lines[reverse ? nr - 1 - i : i];
		struct fgit_reflog_entry e;
		if (parse_entry(&e, b.ptr + l->start, l->len, db->algo))
			r = cb(&e, payload);
	}
out:
	free(lines);
	fgit_buf_release(&b);
	free(path);
	return r;
}

/* ---- names ---- */

struct name_list {
	char **v;
	size_t nr, alloc;
};

static int name_add(struct name_list *l, const char *name)
{
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 32;
		char **p = realloc(l->v, n * sizeof(*p));
		if (!p)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		l->v = p;
		l->alloc = n;
	}
	if (!(l->v[l->nr] = strdup(name)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	l->nr++;
	return 0;
}

static int walk_logs(struct name_list *l, const char *base, struct fgit_buf *rel)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	DIR *d;
	int r = 0;

	fgit_buf_addf(&path, "%s/logs/%s", base, rel->ptr);
	d = opendir(path.ptr);
	if (!d) {
		fgit_buf_release(&path);
		return 0;
	}
	while (!r && (de = readdir(d))) {
		size_t keep = rel->len;
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		fgit_buf_adds(rel, de->d_name);
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/logs/%s", base, rel->ptr);
		if (stat(path.ptr, &st)) {
			/* vanished */
		} else if (S_ISDIR(st.st_mode)) {
			fgit_buf_addch(rel, '/');
			r = walk_logs(l, base, rel);
		} else if (!fgit_refname_check(rel->ptr, FGIT_REFNAME_ALLOW_ONELEVEL)) {
			r = name_add(l, rel->ptr);
		}
		fgit_buf_setlen(rel, keep);
	}
	closedir(d);
	fgit_buf_release(&path);
	return r;
}

/* The per-worktree reflogs of another worktree whose git dir is dir,
 * named "<as>/<name>" as git names them. */
static int walk_other(struct name_list *l, const char *dir, const char *as)
{
	struct name_list own = { NULL, 0, 0 };
	struct fgit_buf rel = FGIT_BUF_INIT, name = FGIT_BUF_INIT;
	size_t i;
	int r = walk_logs(&own, dir, &rel);

	for (i = 0; i < own.nr; i++) {
		if (!r && refs_is_per_worktree(own.v[i])) {
			fgit_buf_reset(&name);
			fgit_buf_addf(&name, "%s/%s", as, own.v[i]);
			r = name_add(l, name.ptr);
		}
		free(own.v[i]);
	}
	free(own.v);
	fgit_buf_release(&rel);
	fgit_buf_release(&name);
	return r;
}

/* Other worktrees: the main one ("main-worktree/") when we are in a
 * linked one, and every linked one but us ("worktrees/<id>/"). */
static int walk_other_worktrees(struct name_list *l, struct fgit_refdb *db)
{
	struct fgit_buf dir = FGIT_BUF_INIT, as = FGIT_BUF_INIT;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (strcmp(db->common_dir, db->git_dir))
		r = walk_other(l, db->common_dir, "main-worktree");
	fgit_buf_addf(&dir, "%s/worktrees", db->common_dir);
	d = opendir(dir.ptr);
	while (!r && d && (de = readdir(d))) {
		size_t keep = dir.len;
		char *a, *b;
		if (de->d_name[0] == '.')
			continue;
		fgit_buf_addf(&dir, "/%s", de->d_name);
		a = realpath(dir.ptr, NULL);
		b = realpath(db->git_dir, NULL);
		if (!a || !b || strcmp(a, b)) {
			fgit_buf_reset(&as);
			fgit_buf_addf(&as, "worktrees/%s", de->d_name);
			r = walk_other(l, dir.ptr, as.ptr);
		}
		free(a);
		free(b);
		fgit_buf_setlen(&dir, keep);
	}
	if (d)
		closedir(d);
	fgit_buf_release(&dir);
	fgit_buf_release(&as);
	return r;
}

/*
 * git walks logs/ depth-first in directory order (its files reflog
 * iterator does not sort), keeping the names of refs that resolve; so do
 * we, so that `reflog expire --all --verbose` prints in git's order.
 * NEEDSWORK: in a linked worktree git merges its own and the common logs
 * by name; we list ours first.
 */
int fgit_reflog_foreach_name(struct fgit_refdb *db, unsigned int flags,
			     int (*cb)(const char *name, void *payload), void *payload)
{
	struct name_list l = { NULL, 0, 0 };
	struct fgit_buf rel = FGIT_BUF_INIT;
	size_t i;
	int r, two = strcmp(db->common_dir, db->git_dir) != 0;

	if (two) {
		/* a linked worktree: its own HEAD and per-worktree logs */
		r = walk_logs(&l, db->git_dir, &rel);
		fgit_buf_reset(&rel);
		if (!r)
			r = walk_logs(&l, db->common_dir, &rel);
	} else {
		r = walk_logs(&l, db->common_dir, &rel);
	}
	if (!r && (flags & FGIT_REFLOG_ALL_WORKTREES))
		r = walk_other_worktrees(&l, db);
	for (i = 0; i < l.nr && !r; i++) {
		size_t j;
		int dup = 0;
		for (j = 0; two && j < i && !dup; j++)
			dup = !strcmp(l.v[j], l.v[i]);
		if (dup || fgit_refdb_resolve(NULL, NULL, NULL, db, l.v[i])) {
			fgit_error_clear();
			continue;
		}
		r = cb(l.v[i], payload);
	}
	for (i = 0; i < l.nr; i++)
		free(l.v[i]);
	free(l.v);
	fgit_buf_release(&rel);
	return r;
}

int fgit_reflog_delete_all(struct fgit_refdb *db, const char *name)
{
	return refs_unlink(db, "logs/", name);
}

/* ---- rewriting ---- */

struct rewrite_ctx {
	struct fgit_buf out;
	unsigned int flags;
	int (*keep)(const struct fgit_reflog_entry *e, void *payload);
	void *payload;
	struct fgit_oid last_kept;
};

static int rewrite_one(const struct fgit_reflog_entry *e, void *payload)
{
	struct rewrite_ctx *c = payload;
	struct fgit_reflog_entry x = *e;
	char h1[FGIT_MAX_HEXSZ + 1], h2[FGIT_MAX_HEXSZ + 1];
	int k;

	if (c->flags & FGIT_REFLOG_REWRITE)
		x.old_oid = c->last_kept;
	k = c->keep(&x, c->payload);
	if (k < 0)
		return k;
	if (!k)
		return 0;
	/* git writes the timezone with "%+05d" and always a tab */
	fgit_buf_addf(&c->out, "%s %s %s %lld %+05d\t%s\n", fgit_oid_to_hex(h1, &x.old_oid),
		      fgit_oid_to_hex(h2, &x.new_oid), x.ident, (long long)x.time, x.tz, x.msg);
	c->last_kept = x.new_oid;
	return 0;
}

int fgit_reflog_rewrite(struct fgit_refdb *db, const char *name, unsigned int flags,
			int (*keep)(const struct fgit_reflog_entry *e, void *payload),
			void *payload)
{
	struct rewrite_ctx c;
	struct fgit_lockfile *ref_lock = NULL, *log_lock = NULL;
	char *ref_path = refs_path(db, "", name), *log_path = refs_path(db, "logs/", name);
	int r;

	memset(&c, 0, sizeof(c));
	fgit_buf_init(&c.out, 0);
	c.flags = flags;
	c.keep = keep;
	c.payload = payload;
	fgit_oid_zero(&c.last_kept, db->algo);
	if (!ref_path || !log_path) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	if ((r = fgit_lockfile_acquire_timeout(&ref_lock, ref_path, 0,
						 db->ref_lock_timeout_ms))) {
		r = refs_lock_error(r, name);
		goto out;
	}
	if (!fgit_reflog_exists(db, name))
		goto out;
	if (!(flags & FGIT_REFLOG_DRY_RUN) &&
	    (r = fgit_lockfile_acquire(&log_lock, log_path, 0))) {
		r = refs_lock_error(r, name);
		goto out;
	}
	if ((r = fgit_reflog_foreach(db, name, 0, rewrite_one, &c)))
		goto out;
	if (flags & FGIT_REFLOG_DRY_RUN)
		goto out;
	if ((r = fgit_lockfile_write(log_lock, c.out.ptr, c.out.len)))
		goto out;
	if ((flags & FGIT_REFLOG_UPDATEREF) && !fgit_oid_is_zero(&c.last_kept)) {
		unsigned int rflags = 0;
		int rr = fgit_refdb_read_raw(NULL, NULL, &rflags, db, name);
		fgit_error_clear();
		if (!rr && !(rflags & FGIT_REF_SYMBOLIC)) {
			char hex[FGIT_MAX_HEXSZ + 2];
			fgit_oid_to_hex(hex, &c.last_kept);
			strcat(hex, "\n");
			if ((r = fgit_lockfile_write(ref_lock, hex, strlen(hex))))
				goto out;
			r = fgit_lockfile_commit(log_lock);
			log_lock = NULL;
			if (r)
				goto out;
			r = fgit_lockfile_commit(ref_lock);
			ref_lock = NULL;
			if (r)
				r = fgit_error_set(r, "couldn't set %s", name);
			goto out;
		}
	}
	r = fgit_lockfile_commit(log_lock);
	log_lock = NULL;
out:
	fgit_lockfile_rollback(log_lock);
	fgit_lockfile_rollback(ref_lock);
	fgit_buf_release(&c.out);
	free(ref_path);
	free(log_path);
	return r;
}
