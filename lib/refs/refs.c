/*
 * The files ref backend: loose refs are files under <dir>/refs (or
 * pseudo-refs like HEAD directly in the git dir), packed refs live in
 * <common_dir>/packed-refs, formatted as gitformat... / git-pack-refs(1)
 * describe: an optional "# pack-refs with: peeled fully-peeled sorted"
 * header, "<hex> <name>" lines and "^<hex>" lines giving the peeled value
 * of the tag ref above them.
 *
 * packed-refs is parsed once into a sorted array and kept as an immutable
 * snapshot, replaced (under the mutex, reference counted) when the file's
 * stat data changes, so readers in several threads share it without
 * copying.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/refs.h"
#include "refs_internal.h"

static char *path_join(const char *a, const char *b)
{
	struct fgit_buf buf = FGIT_BUF_INIT;
	if (fgit_buf_addf(&buf, "%s/%s", a, b))
		return NULL;
	return fgit_buf_detach(&buf, NULL);
}

int fgit_refdb_open(struct fgit_refdb **out, const char *git_dir,
		    const char *common_dir, int algo)
{
	struct fgit_refdb *db = calloc(1, sizeof(*db));

	if (!db)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	db->git_dir = strdup(git_dir);
	db->common_dir = strdup(common_dir ? common_dir : git_dir);
	db->packed_path = db->common_dir ? path_join(db->common_dir, "packed-refs") : NULL;
	db->algo = algo ? algo : FGIT_HASH_SHA1;
	db->log_refs = FGIT_LOG_REFS_NORMAL;
	db->ref_lock_timeout_ms = 100;
	db->packed_lock_timeout_ms = 1000;
	pthread_mutex_init(&db->lock, NULL);
	if (!db->git_dir || !db->common_dir || !db->packed_path) {
		fgit_refdb_free(db);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	*out = db;
	return 0;
}

static void snapshot_unref(struct packed_snapshot *s)
{
	if (!s || --s->refcount > 0)
		return;
	free(s->refs);
	free(s->mem);
	free(s);
}

void fgit_refdb_free(struct fgit_refdb *db)
{
	if (!db)
		return;
	snapshot_unref(db->packed);
	pthread_mutex_destroy(&db->lock);
	free(db->git_dir);
	free(db->common_dir);
	free(db->packed_path);
	free(db);
}

/* ---- packed-refs ---- */

static int cmp_packed(const void *a, const void *b)
{
	return strcmp(((const struct packed_ref *)a)->name, ((const struct packed_ref *)b)->name);
}

static int parse_packed(struct packed_snapshot *s, const char *path, size_t size, int algo)
{
	size_t hexsz = fgit_hash_hexsz(algo), alloc = 0, lineno = 0, i;
	char *p, *end;
	int sorted = 1;

	p = s->mem;
	end = s->mem + size;
	/* one allocation: at most one ref per line */
	for (alloc = 0, i = 0; i < size; i++)
		if (s->mem[i] == '\n')
			alloc++;
	if (alloc) {
		s->refs = malloc(alloc * sizeof(*s->refs));
		if (!s->refs)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p;
		size_t len;

		if (!nl)
			return fgit_error_set(FGIT_ERROR, "unterminated line in %s: %.*s", path,
					      (int)(end - p), p);
		len = (size_t)(nl - p);
		*nl = '\0';
		p = nl + 1;
		lineno++;
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (lineno == 1 && !strncmp(line, "# pack-refs with:", 17)) {
			/* traits are space-separated words after the colon */
			struct fgit_buf t = FGIT_BUF_INIT;
			fgit_buf_addf(&t, " %s ", line + 17);
			if (strstr(t.ptr, " fully-peeled "))
				s->peeled_trait = PEELED_FULLY;
			else if (strstr(t.ptr, " peeled "))
				s->peeled_trait = PEELED_TAGS;
			fgit_buf_release(&t);
			continue;
		}
		if (line[0] == '^') {
			struct packed_ref *r;
			if (!s->nr || len != hexsz + 1)
				goto bad;
			r = &s->refs[s->nr - 1];
			if (r->has_peeled)
				goto bad;
			r->peeled_hex = line + 1;
			r->has_peeled = 1;
			continue;
		}
		if (len < hexsz + 2 || line[hexsz] != ' ' || s->nr >= alloc)
			goto bad;
		s->refs[s->nr].hex = line;
		s->refs[s->nr].name = line + hexsz + 1;
		s->refs[s->nr].peeled_hex = NULL;
		s->refs[s->nr].has_peeled = 0;
		if (s->nr && sorted && strcmp(s->refs[s->nr - 1].name, s->refs[s->nr].name) >= 0)
			sorted = 0;
		s->nr++;
		continue;
bad:
		return fgit_error_set(FGIT_ERROR, "unexpected line in %s: %s", path, line);
	}
	if (!sorted)
		qsort(s->refs, s->nr, sizeof(*s->refs), cmp_packed);
	return 0;
}

/* The id of a packed ref (or its peeled id); a bad one is a bad line. */
int refs_packed_oid(struct fgit_oid *out, const struct packed_ref *p, int peeled,
		      const char *path, int algo)
{
	const char *hex = peeled ? p->peeled_hex : p->hex;
	if (fgit_oid_from_hex(out, hex, algo))
		return fgit_error_set(FGIT_ERROR, "unexpected line in %s: %s%s", path,
				      peeled ? "^" : "", hex);
	return 0;
}

/* A counted reference to the current snapshot (re-read if the file changed). */
int refs_packed_get(struct packed_snapshot **out, struct fgit_refdb *db)
{
	struct stat st;
	struct packed_snapshot *s;
	struct fgit_buf b = FGIT_BUF_INIT;
	int missing, r;

	missing = stat(db->packed_path, &st) != 0;
	pthread_mutex_lock(&db->lock);
	s = db->packed;
	if (s && ((missing && s->missing) ||
		  (!missing && !s->missing && s->st.st_ino == st.st_ino &&
		   s->st.st_size == st.st_size &&
		   s->st.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		   s->st.st_mtim.tv_nsec == st.st_mtim.tv_nsec))) {
		s->refcount++;
		pthread_mutex_unlock(&db->lock);
		*out = s;
		return 0;
	}
	pthread_mutex_unlock(&db->lock);

	s = calloc(1, sizeof(*s));
	if (!s)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	s->refcount = 1;
	s->missing = missing;
	s->st = st;
	if (!missing) {
		r = fgit_buf_read_file(&b, db->packed_path);
		if (r == FGIT_ENOTFOUND) {
			s->missing = 1;
		} else if (r) {
			free(s);
			return r;
		} else {
			size_t size;
			s->mem = fgit_buf_detach(&b, &size);
			if ((r = parse_packed(s, db->packed_path, size, db->algo))) {
				snapshot_unref(s);
				return r;
			}
		}
	}
	pthread_mutex_lock(&db->lock);
	snapshot_unref(db->packed);
	db->packed = s;
	s->refcount++;
	pthread_mutex_unlock(&db->lock);
	*out = s;
	return 0;
}

void refs_packed_put(struct fgit_refdb *db, struct packed_snapshot *s)
{
	pthread_mutex_lock(&db->lock);
	snapshot_unref(s);
	pthread_mutex_unlock(&db->lock);
}

int refs_packed_knows_peeled(const struct packed_snapshot *s, const struct packed_ref *p)
{
	return s->peeled_trait == PEELED_FULLY ||
	       (s->peeled_trait == PEELED_TAGS && !strncmp(p->name, "refs/tags/", 10));
}

size_t refs_packed_lower_bound(const struct packed_snapshot *s, const char *name)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->refs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct packed_ref *refs_packed_find(const struct packed_snapshot *s, const char *name)
{
	size_t i = refs_packed_lower_bound(s, name);

	return i < s->nr && !strcmp(s->refs[i].name, name) ? &s->refs[i] : NULL;
}

/* ---- loose refs ---- */

int refs_is_per_worktree(const char *name)
{
	return !strchr(name, '/') || !strncmp(name, "refs/bisect/", 12) ||
	       !strncmp(name, "refs/worktree/", 14) || !strncmp(name, "refs/rewritten/", 15);
}

char *refs_path(struct fgit_refdb *db, const char *prefix, const char *name)
{
	struct fgit_buf buf = FGIT_BUF_INIT;
	const char *slash;
	int r;

	/* git's names for another worktree's refs: "main-worktree/HEAD",
	 * "worktrees/<id>/HEAD" */
	if (!strncmp(name, "main-worktree/", 14) && refs_is_per_worktree(name + 14))
		r = fgit_buf_addf(&buf, "%s/%s%s", db->common_dir, prefix, name + 14);
	else if (!strncmp(name, "worktrees/", 10) && (slash = strchr(name + 10, '/')) &&
		 slash > name + 10 && refs_is_per_worktree(slash + 1))
		r = fgit_buf_addf(&buf, "%s/%.*s/%s%s", db->common_dir, (int)(slash - name), name,
				  prefix, slash + 1);
	else
		r = fgit_buf_addf(&buf, "%s/%s%s",
				  refs_is_per_worktree(name) ? db->git_dir : db->common_dir,
				  prefix, name);
	if (r)
		return NULL;
	return fgit_buf_detach(&buf, NULL);
}

static char *loose_path(struct fgit_refdb *db, const char *name)
{
	return refs_path(db, "", name);
}

/* Parse the content of a loose ref file. */
static int parse_loose(struct fgit_oid *oid, char **target, unsigned int *flags,
		       const char *buf, size_t len, int algo)
{
	size_t hexsz = fgit_hash_hexsz(algo);
	struct fgit_oid scratch;

	if (!oid)
		oid = &scratch;
	if (len >= 4 && !strncmp(buf, "ref:", 4)) {
		const char *p = buf + 4, *e = buf + len;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == p)
			return FGIT_EINVALID;
		*flags |= FGIT_REF_SYMBOLIC;
		if (target) {
			*target = strndup(p, (size_t)(e - p));
			if (!*target)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
		return 0;
	}
	if (len < hexsz || fgit_oid_from_hex(oid, buf, algo))
		return FGIT_EINVALID;
	if (len > hexsz && !(buf[hexsz] == ' ' || buf[hexsz] == '\t' ||
			     buf[hexsz] == '\n' || buf[hexsz] == '\r'))
		return FGIT_EINVALID;
	return 0;
}

int refs_read_loose(struct fgit_oid *oid, char **target, unsigned int *flags,
		      struct fgit_refdb *db, const char *name)
{
	char *path = loose_path(db, name);
	struct fgit_buf b = FGIT_BUF_INIT;
	struct stat st;
	int r;

	if (!path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (lstat(path, &st) || S_ISDIR(st.st_mode)) {
		r = FGIT_ENOTFOUND;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		/* an old-style symlinked symref: "refs/..." */
		char link[4096];
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 5 && !strncmp(link, "refs/", 5)) {
			link[n] = '\0';
			*flags |= FGIT_REF_SYMBOLIC;
			if (target && !(*target = strdup(link))) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto out;
			}
			r = 0;
			goto out;
		}
	}
	r = fgit_buf_read_file(&b, path);
	if (r) {
		r = r == FGIT_ENOTFOUND ? FGIT_ENOTFOUND : r;
		goto out;
	}
	r = parse_loose(oid, target, flags, b.ptr, b.len, db->algo);
out:
	fgit_buf_release(&b);
	free(path);
	return r;
}

int fgit_refdb_read_raw(struct fgit_oid *oid_out, char **target_out, unsigned int *flags_out,
			struct fgit_refdb *db, const char *name)
{
	struct packed_snapshot *s;
	const struct packed_ref *p;
	unsigned int flags = 0;
	struct fgit_oid oid;
	char *target = NULL;
	int r;

	fgit_oid_zero(&oid, db->algo);
	r = refs_read_loose(&oid, target_out ? &target : NULL, &flags, db, name);
	if (r == FGIT_EINVALID) {
		if (flags_out)
			*flags_out = FGIT_REF_BROKEN;
		return r;
	}
	if (r == 0) {
		if (oid_out)
			*oid_out = oid;
		if (target_out)
			*target_out = target;
		if (flags_out)
			*flags_out = flags;
		return 0;
	}
	if (r != FGIT_ENOTFOUND)
		return r;
	if (refs_is_per_worktree(name) && strncmp(name, "refs/", 5))
		return FGIT_ENOTFOUND;
	if ((r = refs_packed_get(&s, db)))
		return r;
	p = refs_packed_find(s, name);
	if (p) {
		struct fgit_oid tmp;
		r = refs_packed_oid(oid_out ? oid_out : &tmp, p, 0, db->packed_path, db->algo);
		if (target_out)
			*target_out = NULL;
		if (flags_out)
			*flags_out = FGIT_REF_PACKED | (p->has_peeled ? FGIT_REF_PEELED : 0);
	} else {
		r = FGIT_ENOTFOUND;
	}
	refs_packed_put(db, s);
	return r;
}

int fgit_refdb_exists(struct fgit_refdb *db, const char *name)
{
	return fgit_refdb_read_raw(NULL, NULL, NULL, db, name) != FGIT_ENOTFOUND;
}

int fgit_refdb_resolve(struct fgit_oid *oid_out, char **resolved_out, unsigned int *flags_out,
		       struct fgit_refdb *db, const char *name)
{
	char *cur = strdup(name);
	unsigned int first_flags = 0;
	int depth, r;

	if (!cur)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (depth = 0;; depth++) {
		char *target = NULL;
		unsigned int flags = 0;
		struct fgit_oid oid;

		if (depth > MAX_SYMREF_DEPTH) {
			r = fgit_error_set(FGIT_EINVALID, "symbolic ref loop at %s", name);
			break;
		}
		r = fgit_refdb_read_raw(&oid, &target, &flags, db, cur);
		if (depth == 0)
			first_flags = flags;
		if (r)
			break;
		if (flags & FGIT_REF_SYMBOLIC) {
			if (fgit_refname_check(target, FGIT_REFNAME_ALLOW_ONELEVEL)) {
				free(target);
				r = fgit_error_set(FGIT_EINVALID, "invalid symref target in %s", cur);
				break;
			}
			free(cur);
			cur = target;
			continue;
		}
		if (oid_out)
			*oid_out = oid;
		break;
	}
	if (flags_out)
		*flags_out = first_flags & FGIT_REF_SYMBOLIC ? FGIT_REF_SYMBOLIC : first_flags;
	if ((r == 0 || r == FGIT_ENOTFOUND) && resolved_out)
		*resolved_out = cur;
	else
		free(cur);
	return r;
}

int fgit_refdb_peeled(struct fgit_oid *out, struct fgit_refdb *db, const char *name)
{
	struct packed_snapshot *s;
	const struct packed_ref *p;
	int r = FGIT_ENOTFOUND;
	unsigned int flags = 0;

	/* only valid when the loose file does not override the packed value */
	if (refs_read_loose(NULL, NULL, &flags, db, name) != FGIT_ENOTFOUND)
		return FGIT_ENOTFOUND;
	fgit_error_clear();
	if (refs_packed_get(&s, db))
		return FGIT_ENOTFOUND;
	p = refs_packed_find(s, name);
	if (p && p->has_peeled && refs_packed_oid(out, p, 1, db->packed_path, db->algo) == 0)
		r = 0;
	refs_packed_put(db, s);
	return r;
}

/* ---- iteration ---- */

struct ref_item {
	char *name;
	int packed_index;	/* -1 for loose */
};

struct ref_list {
	struct ref_item *items;
	size_t nr, alloc;
};

static int list_add(struct ref_list *l, const char *name, int packed_index)
{
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 64;
		struct ref_item *p = realloc(l->items, n * sizeof(*p));
		if (!p)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		l->items = p;
		l->alloc = n;
	}
	l->items[l->nr].name = strdup(name);
	if (!l->items[l->nr].name)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	l->items[l->nr++].packed_index = packed_index;
	return 0;
}

/* Collect loose ref names under <base>/<rel> recursively. */
static int walk_loose(struct ref_list *l, const char *base, struct fgit_buf *rel,
		      int worktree_only)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	DIR *d;
	struct dirent *de;
	int r = 0;

	fgit_buf_addf(&path, "%s/%s", base, rel->ptr);
	d = opendir(path.ptr);
	fgit_buf_release(&path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && !r) {
		size_t keep = rel->len;
		int isdir;
		if (de->d_name[0] == '.')
			continue;
		fgit_buf_adds(rel, de->d_name);
		if (de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) {
			struct stat st;
			fgit_buf_reset(&path);
			fgit_buf_addf(&path, "%s/%s", base, rel->ptr);
			isdir = !stat(path.ptr, &st) && S_ISDIR(st.st_mode);
			fgit_buf_release(&path);
		} else {
			isdir = de->d_type == DT_DIR;
		}
		if (isdir) {
			fgit_buf_addch(rel, '/');
			r = walk_loose(l, base, rel, worktree_only);
		} else if (!fgit_refname_check(rel->ptr, 0) &&
			   refs_is_per_worktree(rel->ptr) == worktree_only) {
			r = list_add(l, rel->ptr, -1);
		}
		fgit_buf_setlen(rel, keep);
	}
	closedir(d);
	return r;
}

static int cmp_items(const void *a, const void *b)
{
	const struct ref_item *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* loose (-1) first, so it wins over packed */
	return (x->packed_index > y->packed_index) - (x->packed_index < y->packed_index);
}

/* The directory to start walking: prefix up to its last '/'. */
static void walk_start(struct fgit_buf *rel, const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	fgit_buf_reset(rel);
	if (!strncmp(prefix, "refs/", 5) && slash)
		fgit_buf_add(rel, prefix, (size_t)(slash - prefix) + 1);
	else
		fgit_buf_adds(rel, "refs/");
}

int fgit_refdb_foreach(struct fgit_refdb *db, const char *prefix, fgit_ref_cb cb,
		       void *payload)
{
	struct ref_list l = { NULL, 0, 0 };
	struct packed_snapshot *s = NULL;
	struct fgit_buf rel = FGIT_BUF_INIT;
	size_t i, plen;
	int r;

	if (!prefix)
		prefix = "";
	plen = strlen(prefix);
	if ((r = refs_packed_get(&s, db)))
		return r;
	walk_start(&rel, prefix);
	if ((r = walk_loose(&l, db->common_dir, &rel, 0)))
		goto out;
	walk_start(&rel, prefix);
	if ((r = walk_loose(&l, db->git_dir, &rel, 1)))
		goto out;
	for (i = 0; i < s->nr; i++)
		if (!strncmp(s->refs[i].name, "refs/", 5) &&
		    !strncmp(s->refs[i].name, prefix, plen) &&
		    (r = list_add(&l, s->refs[i].name, (int)i)))
			goto out;
	qsort(l.items, l.nr, sizeof(*l.items), cmp_items);

	for (i = 0; i < l.nr && !r; i++) {
		struct ref_item *it = &l.items[i];
		struct fgit_oid oid;
		unsigned int flags = 0;

		if (i && !strcmp(l.items[i - 1].name, it->name))
			continue;	/* packed value shadowed by the loose one */
		if (strncmp(it->name, prefix, plen))
			continue;
		fgit_oid_zero(&oid, db->algo);
		if (it->packed_index >= 0) {
			const struct packed_ref *p = &s->refs[it->packed_index];
			if ((r = refs_packed_oid(&oid, p, 0, db->packed_path, db->algo)))
				break;
			flags = FGIT_REF_PACKED | (p->has_peeled ? FGIT_REF_PEELED : 0);
		} else {
			int rr = fgit_refdb_resolve(&oid, NULL, &flags, db, it->name);
			if (rr == FGIT_ERROR || rr == FGIT_ENOMEM) {
				r = rr;
				break;
			}
			if (rr) {
				fgit_error_clear();
				fgit_oid_zero(&oid, db->algo);
				flags |= FGIT_REF_BROKEN;
			}
		}
		r = cb(it->name, &oid, flags, payload);
	}
out:
	for (i = 0; i < l.nr; i++)
		free(l.items[i].name);
	free(l.items);
	fgit_buf_release(&rel);
	if (s)
		refs_packed_put(db, s);
	return r;
}

/* ---- names given by users ---- */

static const char *const dwim_rules[] = {
	"%.*s",
	"refs/%.*s",
	"refs/tags/%.*s",
	"refs/heads/%.*s",
	"refs/remotes/%.*s",
	"refs/remotes/%.*s/HEAD",
	NULL
};

int fgit_refdb_dwim(struct fgit_oid *oid_out, char **ref_out, char **broken_out,
		    struct fgit_refdb *db, const char *name, size_t len)
{
	struct fgit_buf full = FGIT_BUF_INIT;
	int i, found = 0;

	for (i = 0; dwim_rules[i]; i++) {
		struct fgit_oid oid;
		char *resolved = NULL;
		unsigned int flags = 0;
		int r;

		fgit_buf_reset(&full);
		fgit_buf_addf(&full, dwim_rules[i], (int)len, name);
		/* the bare form only for HEAD-like names and full refs */
		if (i == 0 && strncmp(full.ptr, "refs/", 5)) {
			const char *p;
			for (p = full.ptr; *p; p++)
				if (!(*p >= 'A' && *p <= 'Z') && *p != '_')
					break;
			if (*p)
				continue;
		}
		if (fgit_refname_check(full.ptr, FGIT_REFNAME_ALLOW_ONELEVEL))
			continue;
		r = fgit_refdb_resolve(&oid, &resolved, &flags, db, full.ptr);
		if (r == FGIT_ERROR || r == FGIT_ENOMEM) {
			free(resolved);
			found = r;	/* a corrupt packed-refs is fatal, as in git */
			break;
		}
		if (r) {
			free(resolved);
			fgit_error_clear();
			if ((r != FGIT_ENOTFOUND || (flags & FGIT_REF_SYMBOLIC)) &&
			    broken_out && !*broken_out)
				*broken_out = strdup(full.ptr);
			continue;
		}
		if (!found++) {
			if (oid_out)
				*oid_out = oid;
			if (ref_out) {
				*ref_out = resolved;
				resolved = NULL;
			}
		}
		free(resolved);
	}
	fgit_buf_release(&full);
	return found;
}

char *fgit_refdb_shorten(struct fgit_refdb *db, const char *name, int strict)
{
	int i, rules = 0;
	size_t nlen = strlen(name);
	struct fgit_buf b = FGIT_BUF_INIT;

	while (dwim_rules[rules])
		rules++;
	/* try the most specific rule first, as git does */
	for (i = rules - 1; i > 0; i--) {
		const char *fmt = dwim_rules[i], *pct = strstr(fmt, "%.*s");
		size_t pre = (size_t)(pct - fmt), post = strlen(pct + 4);
		size_t slen;
		int j, ok = 1;

		if (nlen <= pre + post || strncmp(name, fmt, pre) ||
		    strcmp(name + nlen - post, pct + 4))
			continue;
		slen = nlen - pre - post;
		/* no rule before i (or any rule, when strict) may match too */
		for (j = 0; j < rules && ok; j++) {
			if (j == i || (!strict && j > i))
				continue;
			fgit_buf_reset(&b);
			fgit_buf_addf(&b, dwim_rules[j], (int)slen, name + pre);
			if (fgit_refdb_exists(db, b.ptr))
				ok = 0;
		}
		if (ok) {
			fgit_buf_release(&b);
			return strndup(name + pre, slen);
		}
	}
	fgit_buf_release(&b);
	return strdup(name);
}

void fgit_refdb_set_log_refs(struct fgit_refdb *db, enum fgit_log_refs_mode mode)
{
	db->log_refs = (int)mode;
}

void fgit_refdb_set_object_type_cb(struct fgit_refdb *db,
				   int (*type_of)(const struct fgit_oid *oid, void *payload),
				   void *payload)
{
	db->object_type = type_of;
	db->object_type_payload = payload;
}

int fgit_refdb_dwim_log(char **log_out, struct fgit_refdb *db, const char *name, size_t len)
{
	struct fgit_buf full = FGIT_BUF_INIT;
	int i, found = 0;

	for (i = 0; dwim_rules[i]; i++) {
		char *resolved = NULL;
		const char *it = NULL;

		fgit_buf_reset(&full);
		fgit_buf_addf(&full, dwim_rules[i], (int)len, name);
		if (fgit_refname_check(full.ptr, FGIT_REFNAME_ALLOW_ONELEVEL))
			continue;
		if (fgit_refdb_resolve(NULL, &resolved, NULL, db, full.ptr)) {
			fgit_error_clear();
			free(resolved);
			continue;
		}
		if (fgit_reflog_exists(db, full.ptr))
			it = full.ptr;
		else if (strcmp(resolved, full.ptr) && fgit_reflog_exists(db, resolved))
			it = resolved;
		if (it && !found++ && log_out)
			*log_out = strdup(it);
		free(resolved);
	}
	fgit_buf_release(&full);
	return found;
}

void fgit_refdb_set_lock_timeouts(struct fgit_refdb *db, long ref_ms, long packed_ms)
{
	db->ref_lock_timeout_ms = ref_ms;
	db->packed_lock_timeout_ms = packed_ms;
}
