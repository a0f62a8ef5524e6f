/*
 * Ref transactions for the files backend, following the protocol git 2.39
 * uses so that git and fgit can write the same repository concurrently:
 *
 * prepare: every ref is locked by creating "<ref>.lock" (leading
 *   directories made as needed, an empty directory in the way removed),
 *   its current value read under the lock and checked against the
 *   expected one, the new value written into the lock file.  A symref
 *   being updated (HEAD) is split: the ref it points to gets the update,
 *   the symref keeps only a reflog entry; an update of the branch HEAD
 *   points to also gets a HEAD reflog entry.  Deletions of refs present in
 *   packed-refs take "packed-refs.lock" and write the file without them.
 * commit: reflogs appended and locks renamed into place, then packed-refs
 *   replaced, then deleted loose files, their reflogs and the directories
 *   left empty removed.
 * Nothing is renamed before every lock is held and every check passed, so
 * a failure in prepare changes nothing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/lockfile.h"
#include "fgit/object.h"
#include "fgit/refs.h"
#include "refs_internal.h"

/* Internal flags, above the public enum fgit_ref_update_flags. */
enum {
	U_HAVE_NEW = 1 << 8,
	U_HAVE_OLD = 1 << 9,
	U_DELETE = 1 << 10,
	U_NEEDS_COMMIT = 1 << 11,
	U_VIA_HEAD = 1 << 12,
	U_SYMREF = 1 << 13,	/* write "ref: <target>" */
	U_PRUNING = 1 << 14,	/* pack-refs: drop the loose file only */
};

struct ref_update {
	char *name;
	struct fgit_oid new_oid, old_oid;
	unsigned int flags;
	char *msg;
	char *target;			/* U_SYMREF */
	struct fgit_lockfile *lock;
	struct fgit_oid cur;		/* value (resolved) when locked; zero if none */
	int cur_exists;
	int cur_loose;			/* a loose file (or symref) exists */
	int cur_symref;
	struct ref_update *parent;	/* the symref update this was split from */
};

/* The name the caller used (git's original_update_refname()), for messages. */
static const char *orig_name(const struct ref_update *u)
{
	while (u->parent)
		u = u->parent;
	return u->name;
}

enum tx_state { TX_OPEN, TX_PREPARED, TX_CLOSED };

struct fgit_ref_transaction {
	struct fgit_refdb *db;
	struct ref_update **u;
	size_t nr, alloc;
	struct ref_update **sorted;	/* u by name, for lookups; rebuilt when nr changes */
	size_t sorted_nr;
	enum tx_state state;
	struct fgit_lockfile *packed_lock;
};

static const char *hex(char *buf, const struct fgit_oid *oid)
{
	return fgit_oid_to_hex(buf, oid);
}

int fgit_ref_transaction_begin(struct fgit_ref_transaction **out, struct fgit_refdb *db)
{
	struct fgit_ref_transaction *tx = calloc(1, sizeof(*tx));

	if (!tx)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	tx->db = db;
	*out = tx;
	return 0;
}

static void update_free(struct ref_update *u)
{
	if (!u)
		return;
	fgit_lockfile_rollback(u->lock);
	free(u->name);
	free(u->msg);
	free(u->target);
	free(u);
}

void fgit_ref_transaction_abort(struct fgit_ref_transaction *tx)
{
	size_t i;

	if (!tx)
		return;
	for (i = 0; i < tx->nr; i++)
		update_free(tx->u[i]);
	tx->nr = 0;
	tx->sorted_nr = 0;
	fgit_lockfile_rollback(tx->packed_lock);
	tx->packed_lock = NULL;
	tx->state = TX_CLOSED;
}

void fgit_ref_transaction_free(struct fgit_ref_transaction *tx)
{
	if (!tx)
		return;
	fgit_ref_transaction_abort(tx);
	free(tx->u);
	free(tx->sorted);
	free(tx);
}

/* git's copy_reflog_msg(): leading space dropped, runs of whitespace
 * (newlines included) folded into one space, trailing space dropped. */
static char *normalize_msg(const char *msg)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int was_space = 1;

	if (!msg)
		return NULL;
	for (; *msg; msg++) {
		int sp = isspace((unsigned char)*msg);
		if (sp && was_space)
			continue;
		was_space = sp;
		fgit_buf_addch(&b, sp ? ' ' : *msg);
	}
	fgit_buf_rtrim(&b);
	return fgit_buf_detach(&b, NULL);
}

static int add_update(struct ref_update **out, struct fgit_ref_transaction *tx,
		      const char *name, unsigned int flags, const char *msg)
{
	struct ref_update *u;

	if (tx->state != TX_OPEN)
		return fgit_error_set(FGIT_ERROR, "ref transaction is not open");
	if (tx->nr == tx->alloc) {
		size_t n = tx->alloc ? 2 * tx->alloc : 8;
		struct ref_update **p = realloc(tx->u, n * sizeof(*p));
		if (!p)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		tx->u = p;
		tx->alloc = n;
	}
	u = calloc(1, sizeof(*u));
	if (!u || !(u->name = strdup(name))) {
		free(u);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	u->flags = flags;
	if (msg && !(u->msg = normalize_msg(msg))) {
		update_free(u);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	fgit_oid_zero(&u->new_oid, tx->db->algo);
	fgit_oid_zero(&u->old_oid, tx->db->algo);
	fgit_oid_zero(&u->cur, tx->db->algo);
	tx->u[tx->nr++] = u;
	*out = u;
	return 0;
}

int fgit_ref_transaction_update(struct fgit_ref_transaction *tx, const char *name,
				const struct fgit_oid *new_oid, const struct fgit_oid *old_oid,
				unsigned int flags, const char *msg)
{
	struct ref_update *u;
	int r;

	if (new_oid && !fgit_oid_is_zero(new_oid)
	    ? fgit_refname_check(name, FGIT_REFNAME_ALLOW_ONELEVEL) != 0
	    : !fgit_refname_is_safe(name))
		return fgit_error_set(FGIT_EINVALID, "refusing to update ref with bad name '%s'",
				      name);
	if ((r = add_update(&u, tx, name, flags & 0xff, msg)))
		return r;
	u->flags |= U_HAVE_NEW;
	if (new_oid) {
		u->new_oid = *new_oid;
		if (fgit_oid_is_zero(new_oid))
			u->flags |= U_DELETE;
	} else {
		u->flags |= U_DELETE;
	}
	if (old_oid) {
		u->old_oid = *old_oid;
		u->flags |= U_HAVE_OLD;
	}
	return 0;
}

int fgit_ref_transaction_verify(struct fgit_ref_transaction *tx, const char *name,
				const struct fgit_oid *old_oid, unsigned int flags)
{
	struct ref_update *u;
	int r;

	if (!fgit_refname_is_safe(name))
		return fgit_error_set(FGIT_EINVALID, "refusing to update ref with bad name '%s'",
				      name);
	if ((r = add_update(&u, tx, name, flags & 0xff, NULL)))
		return r;
	if (old_oid) {
		u->old_oid = *old_oid;
		u->flags |= U_HAVE_OLD;
	}
	return 0;
}

int fgit_ref_transaction_symref(struct fgit_ref_transaction *tx, const char *name,
				const char *target, const char *msg)
{
	struct ref_update *u;
	int r;

	if ((r = add_update(&u, tx, name, FGIT_REF_NO_DEREF, msg)))
		return r;
	u->flags |= U_SYMREF;
	if (!(u->target = strdup(target)))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	return 0;
}

static int cmp_updates(const void *a, const void *b)
{
	return strcmp((*(struct ref_update *const *)a)->name, (*(struct ref_update *const *)b)->name);
}

/* Big transactions (update-ref --stdin) look names up often: keep a
 * sorted view.  Returns 0, or -1 without memory (callers then scan). */
static int sort_updates(struct fgit_ref_transaction *tx)
{
	struct ref_update **v;

	if (tx->sorted && tx->sorted_nr == tx->nr)
		return 0;
	v = realloc(tx->sorted, (tx->nr ? tx->nr : 1) * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, tx->u, tx->nr * sizeof(*v));
	qsort(v, tx->nr, sizeof(*v), cmp_updates);
	tx->sorted = v;
	tx->sorted_nr = tx->nr;
	return 0;
}

/* The index in tx->sorted of the first update not sorting before name. */
static size_t lower_bound(struct fgit_ref_transaction *tx, const char *name)
{
	size_t lo = 0, hi = tx->sorted_nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(tx->sorted[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ref_update *find_update(struct fgit_ref_transaction *tx, const char *name)
{
	size_t i;

	if (!sort_updates(tx)) {
		i = lower_bound(tx, name);
		return i < tx->sorted_nr && !strcmp(tx->sorted[i]->name, name) ? tx->sorted[i] : NULL;
	}
	for (i = 0; i < tx->nr; i++)
		if (!strcmp(tx->u[i]->name, name))
			return tx->u[i];
	return NULL;
}

/* An update whose name starts with "<name>/", or NULL. */
static struct ref_update *find_update_below(struct fgit_ref_transaction *tx, const char *name)
{
	size_t len = strlen(name), i;

	if (!sort_updates(tx)) {
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_addf(&b, "%s/", name);
		i = lower_bound(tx, b.ptr);
		fgit_buf_release(&b);
		return i < tx->sorted_nr && !strncmp(tx->sorted[i]->name, name, len) &&
		       tx->sorted[i]->name[len] == '/' ? tx->sorted[i] : NULL;
	}
	for (i = 0; i < tx->nr; i++)
		if (!strncmp(tx->u[i]->name, name, len) && tx->u[i]->name[len] == '/')
			return tx->u[i];
	return NULL;
}

static int check_duplicates(struct fgit_ref_transaction *tx)
{
	size_t i;

	if (tx->nr < 2)
		return 0;
	if (sort_updates(tx))
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 1; i < tx->sorted_nr; i++)
		if (!strcmp(tx->sorted[i - 1]->name, tx->sorted[i]->name))
			return fgit_error_set(FGIT_EINVALID,
					      "multiple updates for ref '%s' not allowed",
					      tx->sorted[i]->name);
	return 0;
}

int refs_lock_error(int code, const char *name)
{
	char *m = strdup(fgit_error_last());
	int r = fgit_error_set(code, "cannot lock ref '%s': %s", name, m ? m : "");
	free(m);
	return r;
}

/* ---- availability (directory/file conflicts) ---- */

struct below_ctx {
	char *found;
};

static int below_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		    void *payload)
{
	struct below_ctx *c = payload;

	c->found = strdup(name);
	return 1;
}

/*
 * The first existing ref below "<name>/" (*out malloc'd, NULL if none):
 * the loose directory is walked only if it exists, packed-refs searched.
 */
static int ref_below(char **out, struct fgit_refdb *db, const char *name)
{
	struct below_ctx c = { NULL };
	struct packed_snapshot *s;
	struct fgit_buf b = FGIT_BUF_INIT;
	char *dir = refs_path(db, "", name);
	struct stat st;
	size_t i;
	int r = 0;

	*out = NULL;
	if (!dir)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	fgit_buf_addf(&b, "%s/", name);
	if (!lstat(dir, &st) && S_ISDIR(st.st_mode)) {
		r = fgit_refdb_foreach(db, b.ptr, below_cb, &c);
		if (r > 0) {
			*out = c.found;
			r = 0;
		}
		goto out;
	}
	if ((r = refs_packed_get(&s, db)))
		goto out;
	i = refs_packed_lower_bound(s, b.ptr);
	if (i < s->nr && !strncmp(s->refs[i].name, b.ptr, b.len))
		*out = strdup(s->refs[i].name);
	refs_packed_put(db, s);
out:
	free(dir);
	fgit_buf_release(&b);
	return r;
}

/*
 * Whether name can be created, as git's refs_verify_refname_available()
 * decides: no existing ref may be a leading part of it ("refs/heads/a"
 * blocks "refs/heads/a/b") nor have it as a leading part, and no other
 * update in the transaction either (existing refs are reported first).
 */
static int check_available(struct fgit_ref_transaction *tx, const char *name)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct below_ctx c = { NULL };
	const char *slash;
	int r = 0;

	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
		fgit_buf_reset(&b);
		fgit_buf_add(&b, name, (size_t)(slash - name));
		if (!fgit_refdb_read_raw(NULL, NULL, NULL, tx->db, b.ptr)) {
			r = fgit_error_set(FGIT_EEXISTS, "'%s' exists; cannot create '%s'",
					   b.ptr, name);
			goto out;
		}
		fgit_error_clear();
		if (find_update(tx, b.ptr)) {
			r = fgit_error_set(FGIT_EEXISTS,
					   "cannot process '%s' and '%s' at the same time",
					   name, b.ptr);
			goto out;
		}
	}
	if (!strncmp(name, "refs/", 5) && (r = ref_below(&c.found, tx->db, name)) < 0)
		goto out;
	if (c.found) {
		r = fgit_error_set(FGIT_EEXISTS, "'%s' exists; cannot create '%s'", c.found, name);
		goto out;
	}
	{
		struct ref_update *o = find_update_below(tx, name);
		if (o) {
			r = fgit_error_set(FGIT_EEXISTS,
					   "cannot process '%s' and '%s' at the same time", name, o->name);
			goto out;
		}
	}
	r = 0;
out:
	free(c.found);
	fgit_buf_release(&b);
	return r;
}

/* ---- directories ---- */

/* mkdir -p of the directories leading to path (not path itself). */
static int make_leading_dirs(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		struct stat st;
		st.st_mode = 0;
		*p = '\0';
		if (!stat(path, &st) && !S_ISDIR(st.st_mode)) {
			*p = '/';
			errno = ENOTDIR;
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (mkdir(path, 0777) && errno != EEXIST) {
				int e = errno;
				*p = '/';
				errno = e;
				return -1;
			}
		}
		*p = '/';
	}
	return 0;
}

/* Remove path if it is a directory tree with no files in it. */
static int remove_empty_dirs(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	struct fgit_buf sub = FGIT_BUF_INIT;
	int r = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) && !r) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		fgit_buf_reset(&sub);
		fgit_buf_addf(&sub, "%s/%s", path, de->d_name);
		r = remove_empty_dirs(sub.ptr);
	}
	closedir(d);
	fgit_buf_release(&sub);
	if (!r)
		r = rmdir(path);
	return r;
}

/*
 * Remove the directories holding <base>/<name> that became empty, up to
 * (not including) the first two components ("refs/heads" stays).
 */
static void remove_empty_parents(struct fgit_refdb *db, const char *prefix, const char *name)
{
	char *path = refs_path(db, prefix, name);
	size_t base, comps = 0;
	const char *p;
	char *slash;

	if (!path)
		return;
	base = strlen(path) - strlen(name);
	for (p = name; *p; p++)
		if (*p == '/')
			comps++;
	while (comps >= 3 && (slash = strrchr(path + base, '/'))) {
		*slash = '\0';
		if (rmdir(path))
			break;
		comps--;
	}
	free(path);
}

/* ---- reflogs ---- */

static int should_autocreate_reflog(struct fgit_refdb *db, const char *name)
{
	switch (db->log_refs) {
	case FGIT_LOG_REFS_ALWAYS:
		return 1;
	case FGIT_LOG_REFS_NORMAL:
		return !strcmp(name, "HEAD") || !strncmp(name, "refs/heads/", 11) ||
		       !strncmp(name, "refs/remotes/", 13) || !strncmp(name, "refs/notes/", 11);
	default:
		return 0;
	}
}

/* Append "<old> <new> <committer>\t<msg>\n" to logs/<name> if it exists
 * or should be created. */
int refs_log_write(struct fgit_refdb *db, const char *name, const struct fgit_oid *old_oid,
		   const struct fgit_oid *new_oid, const char *committer, const char *msg,
		   int force_create)
{
	char *path = refs_path(db, "logs/", name);
	struct fgit_buf line = FGIT_BUF_INIT;
	char h1[FGIT_MAX_HEXSZ + 1], h2[FGIT_MAX_HEXSZ + 1];
	int fd = -1, r = 0;

	if (!path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT &&
	    (force_create || should_autocreate_reflog(db, name))) {
		if (make_leading_dirs(path)) {
			r = fgit_error_errno(FGIT_ERROR, "unable to create directory for '%s'",
					     path);
			goto out;
		}
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		if (fd < 0 && errno == EISDIR && !remove_empty_dirs(path))
			fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		if (fd < 0) {
			r = fgit_error_errno(FGIT_ERROR, "unable to append to '%s'", path);
			goto out;
		}
	}
	if (fd < 0) {
		if (errno != ENOENT && errno != EISDIR)
			r = fgit_error_errno(FGIT_ERROR, "unable to append to '%s'", path);
		goto out;
	}
	fgit_buf_addf(&line, "%s %s %s", hex(h1, old_oid), hex(h2, new_oid),
		      committer ? committer : "");
	if (msg && *msg)
		fgit_buf_addf(&line, "\t%s", msg);
	fgit_buf_addch(&line, '\n');
	if (write(fd, line.ptr, line.len) != (ssize_t)line.len)
		r = fgit_error_errno(FGIT_ERROR, "unable to append to '%s'", path);
out:
	if (fd >= 0 && close(fd) && !r)
		r = fgit_error_errno(FGIT_ERROR, "unable to append to '%s'", path);
	fgit_buf_release(&line);
	free(path);
	return r;
}

/* ---- locking one ref ---- */

/*
 * Lock one ref the way git's files backend does, so that the directories
 * left behind on failure are the same: leading directories first, then
 * "<ref>.lock", then the value read under the lock; a missing ref must be
 * creatable (no D/F conflict), and an empty directory in its place is
 * removed.
 */
static int lock_one(struct fgit_ref_transaction *tx, struct ref_update *u)
{
	struct fgit_refdb *db = tx->db;
	char *path = refs_path(db, "", u->name);
	char *target = NULL;
	unsigned int rflags = 0;
	struct fgit_oid raw;
	struct stat st;
	int r = 0, exists;
	int creating = !(u->flags & U_DELETE) && (u->flags & (U_HAVE_NEW | U_SYMREF)) &&
		       !(u->flags & FGIT_REF_LOG_ONLY);

	if (!path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (u->flags & U_SYMREF) {
		/* git's lock_ref_oid_basic(): the lock file's own message */
		make_leading_dirs(path);
		if ((r = fgit_lockfile_acquire_timeout(&u->lock, path, 0, db->ref_lock_timeout_ms)))
			goto out;
		goto locked;
	}
	if (make_leading_dirs(path)) {
		int e = errno;
		if ((e == ENOTDIR || e == EEXIST) && (r = check_available(tx, u->name)))
			r = refs_lock_error(r, orig_name(u));
		else if (e == ENOTDIR || e == EEXIST)
			r = fgit_error_set(FGIT_EEXISTS, "cannot lock ref '%s': unable to create lock "
					   "file %s.lock; non-directory in the way", orig_name(u), path);
		else
			r = fgit_error_set(FGIT_ERROR, "unable to create directory for %s", path);
		goto out;
	}
	r = fgit_lockfile_acquire_timeout(&u->lock, path, 0, db->ref_lock_timeout_ms);
	if (r) {
		r = refs_lock_error(r, orig_name(u));
		goto out;
	}

locked:
	fgit_oid_zero(&raw, db->algo);
	r = fgit_refdb_read_raw(&raw, &target, &rflags, db, u->name);
	if (r && r != FGIT_ENOTFOUND && r != FGIT_EINVALID)
		goto out;
	fgit_error_clear();
	if (r == FGIT_EINVALID && !(u->flags & U_SYMREF)) {
		r = fgit_error_set(FGIT_EINVALID,
			"cannot lock ref '%s': unable to resolve reference '%s': reference broken",
			orig_name(u), u->name);
		goto out;
	}
	exists = r == 0;
	r = 0;
	if (!exists) {
		int is_dir = !lstat(path, &st) && S_ISDIR(st.st_mode);
		if ((u->flags & U_HAVE_OLD) && !fgit_oid_is_zero(&u->old_oid)) {
			r = fgit_error_set(FGIT_EINVALID,
				"cannot lock ref '%s': unable to resolve reference '%s'",
				orig_name(u), u->name);
			goto out;
		}
		if (is_dir && remove_empty_dirs(path)) {
			if (!(r = check_available(tx, u->name)))
				r = fgit_error_set(FGIT_EEXISTS,
					"there is a non-empty directory '%s' blocking reference '%s'",
					path, u->name);
			r = refs_lock_error(r, orig_name(u));
			goto out;
		}
		if (creating && !(u->flags & U_SYMREF) && (r = check_available(tx, u->name))) {
			r = refs_lock_error(r, orig_name(u));
			goto out;
		}
	}
	u->cur_exists = exists;
	u->cur_loose = exists && !(rflags & FGIT_REF_PACKED);
	u->cur_symref = exists && (rflags & FGIT_REF_SYMBOLIC);
	if (exists && !u->cur_symref)
		u->cur = raw;
	if (u->cur_symref) {
		/* the value a symref stands for: its referent's */
		if (fgit_refdb_resolve(&u->cur, NULL, NULL, db, u->name))
			fgit_oid_zero(&u->cur, db->algo);
		fgit_error_clear();
	}
	if (!exists && (rflags & FGIT_REF_BROKEN))
		u->cur_loose = 1;
out:
	free(target);
	free(path);
	return r;
}

static int check_old(struct ref_update *u, int exists)
{
	char h1[FGIT_MAX_HEXSZ + 1], h2[FGIT_MAX_HEXSZ + 1];

	if (!(u->flags & U_HAVE_OLD))
		return 0;
	if (fgit_oid_is_zero(&u->old_oid)) {
		if (!exists)
			return 0;
		return fgit_error_set(FGIT_EEXISTS, "cannot lock ref '%s': reference already exists",
				      orig_name(u));
	}
	if (!exists)
		return fgit_error_set(FGIT_EINVALID,
				      "cannot lock ref '%s': unable to resolve reference '%s'",
				      u->name, u->name);
	if (fgit_oid_equal(&u->cur, &u->old_oid))
		return 0;
	return fgit_error_set(FGIT_EINVALID, "cannot lock ref '%s': is at %s but expected %s",
			      orig_name(u), hex(h1, &u->cur), hex(h2, &u->old_oid));
}

static int check_object(struct fgit_refdb *db, struct ref_update *u)
{
	char h[FGIT_MAX_HEXSZ + 1];
	int type;

	if (!db->object_type)
		return 0;
	type = db->object_type(&u->new_oid, db->object_type_payload);
	fgit_error_clear();
	if (type < 0)
		return fgit_error_set(FGIT_EINVALID,
			"cannot update ref '%s': trying to write ref '%s' with nonexistent object %s",
			u->name, u->name, hex(h, &u->new_oid));
	if (type != FGIT_OBJ_COMMIT && !strncmp(u->name, "refs/heads/", 11))
		return fgit_error_set(FGIT_EINVALID,
			"cannot update ref '%s': trying to write non-commit object %s to branch '%s'",
			u->name, hex(h, &u->new_oid), u->name);
	return 0;
}

/* Follow the symref u names: the ref it finally points to. */
static int split_symref(struct fgit_ref_transaction *tx, struct ref_update *u)
{
	char *target = NULL;
	struct ref_update *n;
	unsigned int rflags = 0;
	int r;

	r = fgit_refdb_read_raw(NULL, &target, &rflags, tx->db, u->name);
	if (r || !(rflags & FGIT_REF_SYMBOLIC)) {
		free(target);
		fgit_error_clear();
		return 0;
	}
	if (find_update(tx, target)) {
		r = fgit_error_set(FGIT_EINVALID,
			"multiple updates for '%s' (including one via symref '%s') are not allowed",
			target, u->name);
		free(target);
		return r;
	}
	r = add_update(&n, tx, target, u->flags & ~U_VIA_HEAD, u->msg);
	free(target);
	if (r)
		return r;
	n->new_oid = u->new_oid;
	n->old_oid = u->old_oid;
	n->parent = u;
	if (!strcmp(u->name, "HEAD"))
		n->flags |= U_VIA_HEAD;
	u->flags |= FGIT_REF_LOG_ONLY | FGIT_REF_NO_DEREF;
	u->flags &= ~U_HAVE_OLD;	/* checked through the referent */
	return 0;
}

/* An update of the branch HEAD points to also logs in HEAD's reflog. */
static int split_head(struct fgit_ref_transaction *tx, struct ref_update *u,
		      const char *head_ref)
{
	struct ref_update *n;
	int r;

	if (!head_ref || strcmp(u->name, head_ref) ||
	    (u->flags & (FGIT_REF_LOG_ONLY | U_VIA_HEAD | U_PRUNING | U_SYMREF)) ||
	    !(u->flags & U_HAVE_NEW))
		return 0;
	if (find_update(tx, "HEAD"))
		return fgit_error_set(FGIT_EINVALID,
			"multiple updates for 'HEAD' (including one via its referent '%s') are not allowed",
			u->name);
	if ((r = add_update(&n, tx, "HEAD",
			    FGIT_REF_LOG_ONLY | FGIT_REF_NO_DEREF | (u->flags & ~0xffu & ~U_HAVE_OLD),
			    u->msg)))
		return r;
	n->new_oid = u->new_oid;
	return 0;
}

/*
 * Write packed-refs without the refs deleted, through packed-refs.lock.
 * NEEDSWORK: an old file without the fully-peeled trait keeps its peeled
 * lines as they are; git would peel the other refs through the objects.
 */
static int prepare_packed(struct fgit_ref_transaction *tx)
{
	struct fgit_refdb *db = tx->db;
	struct packed_snapshot *s = NULL;
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t i;
	int r, needed = 0;

	for (i = 0; i < tx->nr; i++)
		if ((tx->u[i]->flags & U_DELETE) && !(tx->u[i]->flags & (FGIT_REF_LOG_ONLY | U_PRUNING)))
			needed = 1;
	if (!needed)
		return 0;
	/* git locks packed-refs for every deletion, needed or not */
	if ((r = fgit_lockfile_acquire_timeout(&tx->packed_lock, db->packed_path, 0,
						 db->packed_lock_timeout_ms)))
		return r;
	if ((r = refs_packed_get(&s, db)))
		return r;
	needed = 0;
	for (i = 0; i < tx->nr && !needed; i++)
		if ((tx->u[i]->flags & U_DELETE) && !(tx->u[i]->flags & (FGIT_REF_LOG_ONLY | U_PRUNING)) &&
		    refs_packed_find(s, tx->u[i]->name))
			needed = 1;
	if (!needed) {
		refs_packed_put(db, s);
		fgit_lockfile_rollback(tx->packed_lock);
		tx->packed_lock = NULL;
		return 0;
	}
	fgit_buf_adds(&b, "# pack-refs with: peeled fully-peeled sorted \n");
	for (i = 0; i < s->nr; i++) {
		const struct packed_ref *p = &s->refs[i];
		struct ref_update *u = find_update(tx, p->name);
		size_t hexsz = fgit_hash_hexsz(db->algo);
		if (u && (u->flags & U_DELETE) && !(u->flags & (FGIT_REF_LOG_ONLY | U_PRUNING)))
			continue;
		refs_packed_write_entry(&b, p, hexsz);
	}
	refs_packed_put(db, s);
	r = fgit_lockfile_write(tx->packed_lock, b.ptr, b.len);
	fgit_buf_release(&b);
	return r;
}

static int prepare(struct fgit_ref_transaction *tx)
{
	char *head_ref = NULL;
	unsigned int hflags = 0;
	size_t i;
	int r;

	if ((r = check_duplicates(tx)))
		goto fail;
	/* HEAD's branch (for its reflog); pack-refs' pruning does not need it */
	if ((tx->nr == 1 && (tx->u[0]->flags & U_PRUNING)) ||
	    fgit_refdb_read_raw(NULL, &head_ref, &hflags, tx->db, "HEAD") ||
	    !(hflags & FGIT_REF_SYMBOLIC)) {
		free(head_ref);
		head_ref = NULL;
	}
	fgit_error_clear();

	/* tx->nr grows as symrefs and HEAD's branch are split */
	for (i = 0; i < tx->nr; i++) {
		struct ref_update *u = tx->u[i];
		char nh[FGIT_MAX_HEXSZ + 1];

		if (!(u->flags & FGIT_REF_NO_DEREF) && (r = split_symref(tx, u)))
			goto fail;
		if ((r = split_head(tx, u, head_ref)))
			goto fail;
		if ((r = lock_one(tx, u)))
			goto fail;
		if (u->flags & FGIT_REF_LOG_ONLY)
			continue;
		if ((r = check_old(u, u->cur_exists)))
			goto fail;
		if (u->flags & U_SYMREF) {
			struct fgit_buf b = FGIT_BUF_INIT;
			fgit_buf_addf(&b, "ref: %s\n", u->target);
			r = fgit_lockfile_write(u->lock, b.ptr, b.len);
			fgit_buf_release(&b);
			if (r)
				goto fail;
			u->flags |= U_NEEDS_COMMIT;
			continue;
		}
		if (!(u->flags & U_HAVE_NEW) || (u->flags & U_DELETE))
			continue;
		if (!u->cur_symref && fgit_oid_equal(&u->cur, &u->new_oid) &&
		    u->cur_exists)
			continue;	/* already there: nothing to write, nothing to log */
		if ((r = check_object(tx->db, u)))
			goto fail;
		fgit_oid_to_hex(nh, &u->new_oid);
		strcat(nh, "\n");
		if ((r = fgit_lockfile_write(u->lock, nh, strlen(nh))))
			goto fail;
		u->flags |= U_NEEDS_COMMIT;
	}
	if ((r = prepare_packed(tx)))
		goto fail;
	free(head_ref);
	tx->state = TX_PREPARED;
	return 0;
fail:
	free(head_ref);
	fgit_ref_transaction_abort(tx);
	return r;
}

int fgit_ref_transaction_prepare(struct fgit_ref_transaction *tx)
{
	if (tx->state != TX_OPEN)
		return fgit_error_set(FGIT_ERROR, "ref transaction is not open");
	return prepare(tx);
}

int refs_unlink(struct fgit_refdb *db, const char *prefix, const char *name)
{
	char *path = refs_path(db, prefix, name);
	int r = 0;

	if (!path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (unlink(path) && errno != ENOENT)
		r = fgit_error_errno(FGIT_ERROR, "unable to unlink '%s'", path);
	free(path);
	return r;
}

int fgit_ref_transaction_commit(struct fgit_ref_transaction *tx, const char *committer)
{
	struct fgit_refdb *db = tx->db;
	size_t i;
	int r = 0;

	if (tx->state == TX_OPEN && (r = prepare(tx)))
		return r;
	if (tx->state != TX_PREPARED)
		return fgit_error_set(FGIT_ERROR, "ref transaction is not prepared");

	for (i = 0; i < tx->nr; i++) {
		struct ref_update *u = tx->u[i];
		int log = (u->flags & (U_NEEDS_COMMIT | FGIT_REF_LOG_ONLY)) &&
			  !(u->flags & FGIT_REF_SKIP_REFLOG) && committer;

		if (log && (u->flags & U_SYMREF)) {
			/* git logs a symref write only when the target resolves */
			struct fgit_oid new_oid;
			log = 0;
			if (!fgit_refdb_resolve(&new_oid, NULL, NULL, db, u->target)) {
				if ((r = refs_log_write(db, u->name, &u->cur, &new_oid, committer,
							u->msg, 0)))
					break;
			}
			fgit_error_clear();
		}
		if (log && (r = refs_log_write(db, u->name, &u->cur, &u->new_oid, committer,
					       u->msg, u->flags & FGIT_REF_CREATE_REFLOG)))
			break;
		if (u->flags & U_NEEDS_COMMIT) {
			r = fgit_lockfile_commit(u->lock);
			u->lock = NULL;
			if (r) {
				r = fgit_error_set(r, "couldn't set '%s'", u->name);
				break;
			}
		}
	}
	if (!r && tx->packed_lock) {
		r = fgit_lockfile_commit(tx->packed_lock);
		tx->packed_lock = NULL;
	}
	for (i = 0; !r && i < tx->nr; i++) {
		struct ref_update *u = tx->u[i];
		if (!(u->flags & U_DELETE) || (u->flags & FGIT_REF_LOG_ONLY))
			continue;
		if (u->cur_loose || u->cur_symref)
			r = refs_unlink(db, "", u->name);
		if (!r && !(u->flags & U_PRUNING)) {
			char *lp = refs_path(db, "logs/", u->name);
			if (lp && unlink(lp) == 0)
				remove_empty_parents(db, "logs/", u->name);
			free(lp);
		}
	}
	/* release the locks, then tidy the directories they were in */
	for (i = 0; i < tx->nr; i++) {
		fgit_lockfile_rollback(tx->u[i]->lock);
		tx->u[i]->lock = NULL;
	}
	for (i = 0; !r && i < tx->nr; i++) {
		struct ref_update *u = tx->u[i];
		if ((u->flags & U_DELETE) && !(u->flags & FGIT_REF_LOG_ONLY))
			remove_empty_parents(db, "", u->name);
	}
	fgit_ref_transaction_abort(tx);
	return r;
}

int fgit_refdb_update(struct fgit_refdb *db, const char *name, const struct fgit_oid *new_oid,
		      const struct fgit_oid *old_oid, unsigned int flags, const char *msg,
		      const char *committer)
{
	struct fgit_ref_transaction *tx = NULL;
	int r;

	if (!(r = fgit_ref_transaction_begin(&tx, db)) &&
	    !(r = fgit_ref_transaction_update(tx, name, new_oid, old_oid, flags, msg)))
		r = fgit_ref_transaction_commit(tx, committer);
	fgit_ref_transaction_free(tx);
	return r;
}

int fgit_refdb_symref(struct fgit_refdb *db, const char *name, const char *target,
		      const char *msg, const char *committer)
{
	struct fgit_ref_transaction *tx = NULL;
	int r;

	if (!(r = fgit_ref_transaction_begin(&tx, db)) &&
	    !(r = fgit_ref_transaction_symref(tx, name, target, msg)))
		r = fgit_ref_transaction_commit(tx, committer);
	fgit_ref_transaction_free(tx);
	return r;
}

int refs_prune_loose(struct fgit_refdb *db, const char *name, const struct fgit_oid *oid)
{
	struct fgit_ref_transaction *tx = NULL;
	struct ref_update *u;
	int r;

	if (fgit_refname_check(name, 0))
		return 0;
	if (!(r = fgit_ref_transaction_begin(&tx, db)) &&
	    !(r = add_update(&u, tx, name,
			     FGIT_REF_NO_DEREF | U_HAVE_NEW | U_HAVE_OLD | U_DELETE | U_PRUNING,
			     NULL))) {
		u->old_oid = *oid;
		r = fgit_ref_transaction_commit(tx, NULL);
	}
	fgit_ref_transaction_free(tx);
	return r;
}
