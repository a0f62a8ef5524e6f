/*
 * The object database handle: the pack list, loose objects, alternates,
 * and the operations that span them (read, info, prefix resolution,
 * iteration, counts).
 *
 * Lookups take the pack list's read lock only to walk the list; packs are
 * never removed while the handle lives, so a pack pointer stays valid
 * after the lock is dropped and inflation runs unlocked.  A refresh (new
 * packs written by another process) takes the write lock to append.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include "fgit/buf.h"
#include "fgit/hash.h"
#include "fgit/midx.h"
#include "odb/odb_internal.h"

#define DEFAULT_CACHE_LIMIT (96u << 20)

static int has_pack(struct fgit_odb *odb, const char *idx_path)
{
	size_t i;
	for (i = 0; i < odb->npacks; i++)
		if (!strcmp(odb->packs[i]->idx_path, idx_path))
			return 1;
	return 0;
}

static int pack_mtime_cmp(const void *a, const void *b)
{
	const struct pack *x = *(struct pack *const *)a, *y = *(struct pack *const *)b;
	return x->mtime > y->mtime ? -1 : x->mtime < y->mtime;
}

/* Scan objects/pack for .idx files with a .pack beside them.  Write-locked. */
static int scan_packs(struct fgit_odb *odb)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	DIR *dir;
	size_t base, added = 0;
	int r = 0;

	if ((r = fgit_buf_addf(&path, "%s/pack/", odb->path)) < 0)
		return r;
	base = path.len;
	/* packs deleted since (a repack -d in this process or another) stay
	 * mapped, since readers may hold them, but are no longer searched */
	for (size_t i = 0; i < odb->npacks; i++)
		if (access(odb->packs[i]->pack_path, F_OK) != 0)
			odb->packs[i]->gone = 1;
	dir = opendir(path.ptr);
	if (!dir) {
		fgit_buf_release(&path);
		return 0;
	}
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		struct pack *p;
		if (n < 5 || strcmp(de->d_name + n - 4, ".idx"))
			continue;
		fgit_buf_setlen(&path, base);
		fgit_buf_add(&path, de->d_name, n - 4);
		fgit_buf_adds(&path, ".pack");
		if (access(path.ptr, F_OK) < 0)
			continue;
		fgit_buf_setlen(&path, base);
		fgit_buf_adds(&path, de->d_name);
		if (has_pack(odb, path.ptr))
			continue;
		if (pack_open_idx(&p, path.ptr, odb->algo) < 0)
			continue;	/* git skips an unusable idx too */
		if (odb->npacks == odb->packs_alloc) {
			size_t na = odb->packs_alloc ? 2 * odb->packs_alloc : 8;
			struct pack **np = realloc(odb->packs, na * sizeof(*np));
			if (!np) {
				pack_free(p);
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				break;
			}
			odb->packs = np;
			odb->packs_alloc = na;
		}
		odb->packs[odb->npacks++] = p;
		added++;
	}
	closedir(dir);
	fgit_buf_release(&path);
	/* Newest first, as git searches them; only on the first scan, so
	 * pack numbers handed out by foreach_located stay stable. */
	if (added == odb->npacks && odb->npacks > 1)
		qsort(odb->packs, odb->npacks, sizeof(*odb->packs), pack_mtime_cmp);
	if (r == 0 && (r = odb_midx_load(odb)) == 0)
		odb_midx_map_packs(odb);
	return r;
}

static int open_depth(struct fgit_odb **out, const char *objects_dir,
		      const struct fgit_odb_options *opts, int depth);

static int add_alternate(struct fgit_odb *odb, const char *line, size_t len)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	struct fgit_odb *alt, **na;
	char *real;
	size_t i;
	int r;

	if (line[0] != '/') {
		fgit_buf_addf(&p, "%s/", odb->path);
	}
	fgit_buf_add(&p, line, len);
	real = realpath(p.ptr, NULL);
	fgit_buf_release(&p);
	if (!real)
		return 0;	/* git warns and goes on */
	{
		char *self = realpath(odb->path, NULL);
		int same = self && !strcmp(self, real);
		free(self);
		if (same) {
			free(real);
			return 0;
		}
	}
	for (i = 0; i < odb->nalts; i++)
		if (!strcmp(odb->alts[i]->path, real)) {
			free(real);
			return 0;
		}
	r = open_depth(&alt, real, &odb->opts, odb->depth + 1);
	free(real);
	if (r < 0)
		return 0;
	na = realloc(odb->alts, (odb->nalts + 1) * sizeof(*na));
	if (!na) {
		fgit_odb_free(alt);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	alt->cache_every = odb->cache_every;
	alt->keep_bases = odb->keep_bases;
	alt->pack_order = odb->pack_order;
	alt->plan_all = odb->plan_all;
	odb->alts = na;
	odb->alts[odb->nalts++] = alt;
	return 0;
}

static int read_alternates(struct fgit_odb *odb)
{
	struct fgit_buf path = FGIT_BUF_INIT, content = FGIT_BUF_INIT;
	const char *p, *end;
	int r = 0;

	if (odb->depth >= ODB_MAX_ALT_DEPTH)
		return 0;
	fgit_buf_addf(&path, "%s/info/alternates", odb->path);
	if (fgit_buf_read_file(&content, path.ptr) < 0) {
		fgit_error_clear();
		goto out;
	}
	for (p = content.ptr, end = p + content.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e;
		if (!nl)
			nl = end;
		e = nl;
		while (e > p && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		if (e > p && *p != '#' && (r = add_alternate(odb, p, (size_t)(e - p))) < 0)
			break;
		p = nl + 1;
	}
out:
	fgit_buf_release(&path);
	fgit_buf_release(&content);
	return r;
}

static int open_depth(struct fgit_odb **out, const char *objects_dir,
		      const struct fgit_odb_options *opts, int depth)
{
	struct fgit_odb_options defaults = FGIT_ODB_OPTIONS_INIT;
	struct fgit_odb *odb;
	struct stat st;
	int r;

	if (stat(objects_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return fgit_error_set(FGIT_ENOTFOUND, "object directory %s does not exist",
				      objects_dir);
	odb = calloc(1, sizeof(*odb));
	if (!odb)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	odb->opts = opts ? *opts : defaults;
	odb->algo = odb->opts.algo ? odb->opts.algo : FGIT_HASH_SHA1;
	odb->depth = depth;
	odb->cache_every = 1;
	odb->path = strdup(objects_dir);
	pthread_rwlock_init(&odb->packs_lock, NULL);
	odb->cache = odb_cache_new(odb_cache_limit(odb));
	if (!odb->path || !odb->cache) {
		fgit_odb_free(odb);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	{
		size_t n = strlen(odb->path);
		while (n > 1 && odb->path[n - 1] == '/')
			odb->path[--n] = 0;
	}
	if ((r = scan_packs(odb)) < 0 || (r = read_alternates(odb)) < 0) {
		fgit_odb_free(odb);
		return r;
	}
	*out = odb;
	return 0;
}

size_t odb_cache_limit(const struct fgit_odb *odb)
{
	return odb->opts.delta_base_cache_limit ? odb->opts.delta_base_cache_limit
		: DEFAULT_CACHE_LIMIT;
}

int fgit_odb_open(struct fgit_odb **out, const char *objects_dir,
		  const struct fgit_odb_options *opts)
{
	return open_depth(out, objects_dir, opts, 0);
}

void fgit_odb_free(struct fgit_odb *odb)
{
	size_t i;
	if (!odb)
		return;
	for (i = 0; i < odb->nalts; i++)
		fgit_odb_free(odb->alts[i]);
	free(odb->alts);
	odb_cache_free(odb->cache);
	odb_loose_cache_free(odb->loose_cache);
	odb_fanout_free(odb->fanout);
	for (i = 0; i < odb->npacks; i++)
		pack_free(odb->packs[i]);
	free(odb->packs);
	fgit_midx_free(odb->midx);
	for (i = 0; i < odb->nold_midx; i++)
		fgit_midx_free(odb->old_midx[i]);
	free(odb->old_midx);
	pthread_rwlock_destroy(&odb->packs_lock);
	free(odb->path);
	free(odb);
}

int fgit_odb_refresh(struct fgit_odb *odb)
{
	size_t i;
	int r;
	pthread_rwlock_wrlock(&odb->packs_lock);
	r = scan_packs(odb);
	pthread_rwlock_unlock(&odb->packs_lock);
	for (i = 0; r == 0 && i < odb->nalts; i++)
		r = fgit_odb_refresh(odb->alts[i]);
	return r;
}

int fgit_odb_algo(const struct fgit_odb *odb)
{
	return odb->algo;
}

const char *fgit_odb_path(const struct fgit_odb *odb)
{
	return odb->path;
}

size_t fgit_odb_alternates(const struct fgit_odb *odb, const char **out, size_t max)
{
	size_t i;
	for (i = 0; i < odb->nalts && i < max; i++)
		out[i] = odb->alts[i]->path;
	return odb->nalts;
}

int odb_find_packed(struct pack **pack, uint64_t *off, struct fgit_odb *odb,
		    const struct fgit_oid *oid)
{
	unsigned last = atomic_load_explicit(&odb->last_pack, memory_order_relaxed);
	struct pack *p = NULL;
	uint32_t pos;
	size_t i;
	int found;

	pthread_rwlock_rdlock(&odb->packs_lock);
	found = odb_midx_lookup(pack, off, odb, oid);
	if (!found && last < odb->npacks && !odb->packs[last]->in_midx &&
	    !odb->packs[last]->gone &&
	    pack_find(odb->packs[last], oid, &pos)) {
		p = odb->packs[last];
		found = 1;
	}
	for (i = 0; !found && i < odb->npacks; i++) {
		if (i != last && !odb->packs[i]->in_midx && !odb->packs[i]->gone &&
		    pack_find(odb->packs[i], oid, &pos)) {
			p = odb->packs[i];
			atomic_store_explicit(&odb->last_pack, (unsigned)i,
					      memory_order_relaxed);
			found = 1;
		}
	}
	pthread_rwlock_unlock(&odb->packs_lock);
	if (p) {
		int r = pack_offset_at(off, p, pos);
		if (r < 0)
			return r;
		*pack = p;
	}
	return found;
}

/* Read oid's entry at off in pack p, saying which object a corrupt one is. */
static int read_packed_at(void **out, size_t *size, enum fgit_object_type *type,
			  struct fgit_buf *into, struct odb_cache_entry **view,
			  struct fgit_odb *odb, struct pack *p, uint64_t off,
			  const struct fgit_oid *oid, uint64_t cap)
{
	int r = pack_read(out, size, type, into, view, odb, p, off, cap);
	if (r < 0 && r != FGIT_ENOMEM) {
		char hex[FGIT_MAX_HEXSZ + 1];
		struct fgit_buf msg = FGIT_BUF_INIT;
		fgit_buf_adds(&msg, fgit_error_last());
		fgit_error_set(FGIT_EINVALID, "packed object %s (stored in %s) is corrupt"
			       " (%s)", fgit_oid_to_hex(hex, oid), p->pack_path, msg.ptr);
		fgit_buf_release(&msg);
		r = FGIT_EINVALID;
	}
	return r;
}

/* Read from this database's packs; ENOTFOUND if none has the object. */
static int read_packed(void **out, size_t *size, enum fgit_object_type *type,
		       struct fgit_buf *into, struct fgit_odb *odb,
		       const struct fgit_oid *oid, uint64_t cap)
{
	struct pack *p;
	uint64_t off;
	int r;

	if ((r = odb_find_packed(&p, &off, odb, oid)) < 0)
		return r;
	if (!r)
		return FGIT_ENOTFOUND;
	return read_packed_at(out, size, type, into, NULL, odb, p, off, oid, cap);
}

/* From the packs (loose == 0) or the loose files of this database, then
 * of its alternates; ENOTFOUND if none has the object. */
static int read_from(void **out, size_t *size, enum fgit_object_type *type,
		     struct fgit_buf *into, struct fgit_odb *odb,
		     const struct fgit_oid *oid, uint64_t cap, int loose)
{
	size_t i;
	int r;

	r = loose ? odb_loose_read(out, size, type, into, odb, oid, cap)
		  : read_packed(out, size, type, into, odb, oid, cap);
	for (i = 0; r == FGIT_ENOTFOUND && i < odb->nalts; i++)
		r = read_from(out, size, type, into, odb->alts[i], oid, cap, loose);
	return r;
}

/*
 * How many lookups ahead fgit_odb_exists_many() prefetches: enough to
 * cover a miss to memory with the lookups between.
 */
#define PREFETCH_AHEAD 8

/* found[i] = 1 for each oids[i] a pack of odb or of its alternates has. */
static void packed_many(struct fgit_odb *odb, const struct fgit_oid *const *oids, size_t n,
			unsigned char *found)
{
	struct pack *mp;
	uint64_t off;
	uint32_t pos;
	size_t i, k;

	pthread_rwlock_rdlock(&odb->packs_lock);
	if (odb->midx)
		for (i = 0; i < n; i++)
			if (!found[i] && odb_midx_lookup(&mp, &off, odb, oids[i]))
				found[i] = 1;
	for (k = 0; k < odb->npacks; k++) {
		const struct pack *p = odb->packs[k];

		if (p->in_midx || p->gone)
			continue;
		for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
			pack_prefetch(p, oids[i]);
		for (i = 0; i < n; i++) {
			if (i + PREFETCH_AHEAD < n && !found[i + PREFETCH_AHEAD])
				pack_prefetch(p, oids[i + PREFETCH_AHEAD]);
			if (!found[i] && pack_find(p, oids[i], &pos))
				found[i] = 1;
		}
	}
	pthread_rwlock_unlock(&odb->packs_lock);
	for (k = 0; k < odb->nalts; k++)
		packed_many(odb->alts[k], oids, n, found);
}

void fgit_odb_exists_many(struct fgit_odb *odb, const struct fgit_oid *const *oids, size_t n,
			  unsigned char *found)
{
	size_t i;

	memset(found, 0, n);
	packed_many(odb, oids, n, found);
	/* loose objects, and packs written since: one at a time */
	for (i = 0; i < n; i++)
		if (!found[i])
			found[i] = fgit_odb_exists(odb, oids[i]) > 0;
}

/*
 * Every pack (ours and the alternates') before any loose file, as git
 * looks (and as exists_local below): a lookup in a mapped .idx costs no
 * system call, a loose file that is not there one failed open() each.
 * grep HEAD~1 in the kernel-grep corpus (a repository whose objects are
 * nearly all in its alternate's pack) made 83,356 failed openat() calls,
 * one per blob, when this database's loose files came before the
 * alternate's pack.  Then a re-scan of the pack directories and a second
 * try, for a pack written by another process meanwhile.
 */
static int read_any(void **out, size_t *size_out, enum fgit_object_type *type_out,
		    struct fgit_buf *into, struct fgit_odb *odb, const struct fgit_oid *oid,
		    uint64_t cap)
{
	int r, pass;

	for (pass = 0; pass < 2; pass++) {
		r = read_from(out, size_out, type_out, into, odb, oid, cap, 0);
		if (r == FGIT_ENOTFOUND)
			r = read_from(out, size_out, type_out, into, odb, oid, cap, 1);
		if (r != FGIT_ENOTFOUND)
			return r;
		if (pass == 0 && fgit_odb_refresh(odb) < 0)
			break;
	}
	{
		char hex[FGIT_MAX_HEXSZ + 1];
		return fgit_error_set(FGIT_ENOTFOUND, "object %s not found",
				      fgit_oid_to_hex(hex, oid));
	}
}

int fgit_odb_read(void **out, size_t *size_out, enum fgit_object_type *type_out,
		  struct fgit_odb *odb, const struct fgit_oid *oid)
{
	return read_any(out, size_out, type_out, NULL, odb, oid, UINT64_MAX);
}

int fgit_odb_read_capped(void **out, size_t *size_out, enum fgit_object_type *type_out,
			 struct fgit_odb *odb, const struct fgit_oid *oid, uint64_t cap)
{
	return read_any(out, size_out, type_out, NULL, odb, oid, cap);
}

/* This database's pack number `pack`, or NULL (none, or gone). */
static struct pack *pack_numbered(struct fgit_odb *odb, int pack)
{
	struct pack *p = NULL;

	if (pack >= 0) {
		pthread_rwlock_rdlock(&odb->packs_lock);
		if ((size_t)pack < odb->npacks && !odb->packs[pack]->gone)
			p = odb->packs[pack];
		pthread_rwlock_unlock(&odb->packs_lock);
	}
	return p;
}

int fgit_odb_read_located(void **out, size_t *size_out, enum fgit_object_type *type_out,
			  struct fgit_odb *odb, const struct fgit_oid *oid, int pack,
			  uint64_t offset, uint64_t cap)
{
	struct pack *p = pack_numbered(odb, pack);

	if (!p)
		return read_any(out, size_out, type_out, NULL, odb, oid, cap);
	return read_packed_at(out, size_out, type_out, NULL, NULL, odb, p, offset, oid, cap);
}

int fgit_odb_read_located_view(struct fgit_odb_view *out, struct fgit_odb *odb,
			       const struct fgit_oid *oid, int pack, uint64_t offset,
			       uint64_t cap)
{
	struct pack *p = pack_numbered(odb, pack);
	struct odb_cache_entry *e = NULL;
	void *buf = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	/* not located: from this database's packs still lent, not copied
	 * (read_any copies out an object found in the delta-base cache) */
	if (!p && pack < 0 && odb_find_packed(&p, &offset, odb, oid) <= 0)
		p = NULL;
	if (p) {
		r = read_packed_at(NULL, &out->size, &out->type, NULL, &e, odb, p, offset,
				   oid, cap);
	} else {
		r = read_any(&buf, &out->size, &out->type, NULL, odb, oid, cap);
		if (!r && !(e = odb_cache_wrap(out->type, buf, out->size)))
			r = fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	if (r)
		return r;
	out->data = e->data;
	out->priv = e;
	return 0;
}

void fgit_odb_view_release(struct fgit_odb_view *view)
{
	odb_cache_put(view->priv);
	memset(view, 0, sizeof(*view));
}

int fgit_odb_read_into(struct fgit_buf *buf, enum fgit_object_type *type_out,
		       struct fgit_odb *odb, const struct fgit_oid *oid)
{
	size_t size;
	int r = read_any(NULL, &size, type_out, buf, odb, oid, UINT64_MAX);
	if (r)
		fgit_buf_reset(buf);
	return r;
}

static int info_local(struct fgit_object_info *out, struct fgit_odb *odb,
		      const struct fgit_oid *oid, unsigned int flags)
{
	struct pack *p;
	uint64_t off;
	int r;

	if ((r = odb_find_packed(&p, &off, odb, oid)) < 0)
		return r;
	if (r)
		return pack_info(out, odb, p, off, flags);
	return odb_loose_info(out, odb, oid, flags);
}

int fgit_odb_read_info(struct fgit_object_info *out, struct fgit_odb *odb,
		       const struct fgit_oid *oid, unsigned int flags)
{
	size_t i;
	int r, pass;

	for (pass = 0; pass < 2; pass++) {
		r = info_local(out, odb, oid, flags);
		if (r != FGIT_ENOTFOUND)
			return r;
		for (i = 0; i < odb->nalts; i++) {
			r = fgit_odb_read_info(out, odb->alts[i], oid, flags);
			if (r != FGIT_ENOTFOUND)
				return r;
		}
		if (pass == 0 && fgit_odb_refresh(odb) < 0)
			break;
	}
	{
		char hex[FGIT_MAX_HEXSZ + 1];
		return fgit_error_set(FGIT_ENOTFOUND, "object %s not found",
				      fgit_oid_to_hex(hex, oid));
	}
}

static int exists_packed_any(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	struct pack *p;
	uint64_t off;
	size_t i;

	if (odb_find_packed(&p, &off, odb, oid) > 0)
		return 1;
	for (i = 0; i < odb->nalts; i++)
		if (exists_packed_any(odb->alts[i], oid))
			return 1;
	return 0;
}

static int exists_loose_any(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	size_t i;

	if (odb_loose_exists(odb, oid))
		return 1;
	for (i = 0; i < odb->nalts; i++)
		if (exists_loose_any(odb->alts[i], oid))
			return 1;
	return 0;
}

/*
 * Every pack (ours and the alternates') before any loose file, as git
 * looks: a lookup in a mapped .idx costs no system call, a missing loose
 * file one failed access() each (commit -a in a --shared clone of
 * 100,000 files made 105,000 of them).
 */
static int exists_local(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	return exists_packed_any(odb, oid) || exists_loose_any(odb, oid);
}

static int exists_loose_cached_any(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	size_t i;

	if (odb_loose_exists_cached(odb, oid))
		return 1;
	for (i = 0; i < odb->nalts; i++)
		if (exists_loose_cached_any(odb->alts[i], oid))
			return 1;
	return 0;
}

int fgit_odb_exists_quick(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	return exists_packed_any(odb, oid) || exists_loose_cached_any(odb, oid);
}

int fgit_odb_exists(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	if (exists_local(odb, oid))
		return 1;
	fgit_odb_refresh(odb);
	return exists_local(odb, oid);
}

/*
 * If the object exists, touch the file holding it (as git does, so that a
 * concurrent gc/prune sees it as recent) and return 1; 0 if absent.
 * for_write: the caller writes the object when told it is absent, so a
 * fan-out directory this handle created is not searched (a failed
 * access() per object of add -A into a fresh repository): the write's
 * rename never replaces a copy that is there.
 */
static int freshen(struct fgit_odb *odb, const struct fgit_oid *oid, int for_write)
{
	char path[4096];
	struct pack *p;
	uint64_t off;
	size_t i;

	/* packed first, as git's write_object_file: no failed access() per
	 * object when everything is packed */
	if (odb_find_packed(&p, &off, odb, oid) > 0) {
		/* once per pack: add -A of 100,000 present objects made
		 * 100,000 utime() calls on one pack otherwise */
		if (!atomic_exchange(&p->freshened, 1))
			utime(p->pack_path, NULL);
		return 1;
	}
	/* the alternates' packs before our loose files, as git: commit -a in
	 * a --shared clone of the kernel tree made one failed access() per
	 * tree it wrote (5,100) otherwise */
	for (i = 0; i < odb->nalts; i++)
		if (exists_packed_any(odb->alts[i], oid))
			return 1;	/* git does not insist on freshening these */
	odb_loose_path(path, sizeof(path), odb, oid);
	if (!(for_write && odb_loose_dir_is_ours(odb, oid)) && access(path, F_OK) == 0) {
		utime(path, NULL);
		return 1;
	}
	for (i = 0; i < odb->nalts; i++)
		if (exists_local(odb->alts[i], oid))
			return 1;	/* git does not insist on freshening these */
	return 0;
}

int odb_freshen(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	return freshen(odb, oid, 0);
}

int fgit_odb_freshen(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	return freshen(odb, oid, 0);
}

/* loose_only: a copy in a pack does not count (repack -A). */
static int write_buf(struct fgit_oid *out, struct fgit_odb *odb, enum fgit_object_type type,
		     const void *data, size_t len, int loose_only)
{
	struct fgit_oid oid;
	int r, have;

	if ((r = fgit_hash_object(&oid, odb->algo, type, data, len)) < 0)
		return r;
	if (loose_only)
		have = !odb_loose_dir_is_ours(odb, &oid) && odb_loose_exists(odb, &oid);
	else
		have = freshen(odb, &oid, 1);
	if (!have && (r = odb_loose_write_buf(odb, &oid, type, data, len)) < 0)
		return r;
	*out = oid;
	return 0;
}

int fgit_odb_write(struct fgit_oid *out, struct fgit_odb *odb,
		   enum fgit_object_type type, const void *data, size_t len)
{
	return write_buf(out, odb, type, data, len, 0);
}

int fgit_odb_write_loose(struct fgit_oid *out, struct fgit_odb *odb,
			 enum fgit_object_type type, const void *data, size_t len)
{
	return write_buf(out, odb, type, data, len, 1);
}

int fgit_odb_write_fd(struct fgit_oid *out, struct fgit_odb *odb,
		      enum fgit_object_type type, int fd, uint64_t size)
{
	return odb_loose_write_fd(out, odb, type, fd, size);
}

/* ---- iteration ---- */

struct loose_walk {
	int (*cb)(const struct fgit_oid *oid, const char *path, void *payload);
	void *payload;
};

/*
 * Walk loose object files; only_dir >= 0 restricts to one fan-out dir.
 * garbage_cb (optional) receives files that are not objects.
 */
int odb_walk_loose(struct fgit_odb *odb, int only_dir,
		      int (*cb)(const struct fgit_oid *oid, const char *path, void *payload),
		      void (*garbage_cb)(const char *path, void *payload),
		      void *payload)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	size_t hexsz = fgit_hash_hexsz(odb->algo);
	int d, r = 0;

	for (d = only_dir < 0 ? 0 : only_dir; d < 256 && !r; d++) {
		struct dirent *de;
		DIR *dir;
		size_t base;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/%02x/", odb->path, d);
		base = path.len;
		dir = opendir(path.ptr);
		if (dir) {
			while (!r && (de = readdir(dir))) {
				char hex[FGIT_MAX_HEXSZ + 1];
				struct fgit_oid oid;
				if (de->d_name[0] == '.' &&
				    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
					continue;
				fgit_buf_setlen(&path, base);
				fgit_buf_adds(&path, de->d_name);
				if (strlen(de->d_name) == hexsz - 2) {
					snprintf(hex, sizeof(hex), "%02x", d);
					memcpy(hex + 2, de->d_name, hexsz - 2);
					hex[hexsz] = 0;
				} else {
					hex[0] = 0;
				}
				if (!hex[0] || fgit_oid_from_hex(&oid, hex, odb->algo) < 0) {
					if (garbage_cb && strncmp(de->d_name, "tmp_obj_", 8))
						garbage_cb(path.ptr, payload);
					continue;
				}
				if (cb)
					r = cb(&oid, path.ptr, payload);
			}
			closedir(dir);
		}
		if (only_dir >= 0)
			break;
	}
	fgit_buf_release(&path);
	return r;
}

struct foreach_ctx {
	int (*cb)(const struct fgit_oid *oid, void *payload);
	int (*lcb)(const struct fgit_oid *oid, int pack, uint64_t off, void *payload);
	void *payload;
	const struct fgit_oid *prefix;
	size_t hexlen;
};

static int loose_cb(const struct fgit_oid *oid, const char *path, void *payload)
{
	struct foreach_ctx *c = payload;
	if (c->prefix && !fgit_oid_match_prefix(oid, c->prefix, c->hexlen))
		return 0;
	return c->lcb ? c->lcb(oid, -1, 0, c->payload) : c->cb(oid, c->payload);
}

static int foreach_common(struct fgit_odb *odb, unsigned int flags, struct foreach_ctx *c,
			  int is_alt)
{
	size_t i, np;
	int r = 0;

	if (flags & FGIT_FOREACH_PACKED) {
		struct pack **packs;
		/* a snapshot: a refresh may move the list while we call back */
		pthread_rwlock_rdlock(&odb->packs_lock);
		np = odb->npacks;
		packs = malloc((np ? np : 1) * sizeof(*packs));
		if (packs && np)
			memcpy(packs, odb->packs, np * sizeof(*packs));
		pthread_rwlock_unlock(&odb->packs_lock);
		if (!packs)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		for (i = 0; i < np && !r; i++) {
			struct pack *p = packs[i];
			struct fgit_oid oid;
			uint32_t k, start = 0, end = p->nr;
			if (p->gone)
				continue;
			if (c->prefix) {
				start = pack_lower_bound(p, c->prefix);
				for (k = start; k < p->nr; k++) {
					pack_name_at(&oid, p, k);
					if (!fgit_oid_match_prefix(&oid, c->prefix, c->hexlen))
						break;
				}
				end = k;
			}
			if ((flags & FGIT_FOREACH_PACK_ORDER) && !c->prefix) {
				if ((r = pack_ensure_rev(p)) < 0)
					break;
				for (k = 0; k < p->nr && !r; k++) {
					uint32_t pos = p->rev[k];
					pack_name_at(&oid, p, pos);
					if (c->lcb) {
						uint64_t off;
						if ((r = pack_offset_at(&off, p, pos)) < 0)
							break;
						r = c->lcb(&oid, is_alt ? -1 : (int)i, off, c->payload);
					} else {
						r = c->cb(&oid, c->payload);
					}
				}
			} else {
				for (k = start; k < end && !r; k++) {
					pack_name_at(&oid, p, k);
					if (c->lcb) {
						uint64_t off;
						if ((r = pack_offset_at(&off, p, k)) < 0)
							break;
						r = c->lcb(&oid, is_alt ? -1 : (int)i, off, c->payload);
					} else {
						r = c->cb(&oid, c->payload);
					}
				}
			}
		}
		free(packs);
	}
	if (!r && (flags & FGIT_FOREACH_LOOSE)) {
		int only = -1;
		if (c->prefix && c->hexlen >= 2)
			only = c->prefix->hash[0];
		r = odb_walk_loose(odb, only, loose_cb, NULL, c);
	}
	if (!(flags & FGIT_FOREACH_LOCAL_ONLY))
		for (i = 0; !r && i < odb->nalts; i++)
			r = foreach_common(odb->alts[i], flags, c, 1);
	return r;
}

int fgit_odb_foreach(struct fgit_odb *odb, unsigned int flags,
		     int (*cb)(const struct fgit_oid *oid, void *payload),
		     void *payload)
{
	struct foreach_ctx c = { cb, NULL, payload, NULL, 0 };
	if (!(flags & (FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED)))
		flags |= FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED;
	return foreach_common(odb, flags, &c, 0);
}

int fgit_odb_foreach_located(struct fgit_odb *odb, unsigned int flags,
			     int (*cb)(const struct fgit_oid *oid, int pack,
				       uint64_t offset, void *payload),
			     void *payload)
{
	struct foreach_ctx c = { NULL, cb, payload, NULL, 0 };
	if (!(flags & (FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED)))
		flags |= FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED;
	return foreach_common(odb, flags, &c, 0);
}

int fgit_odb_foreach_prefix(struct fgit_odb *odb, const struct fgit_oid *prefix,
			    size_t hexlen,
			    int (*cb)(const struct fgit_oid *oid, void *payload),
			    void *payload)
{
	struct foreach_ctx c = { cb, NULL, payload, prefix, hexlen };
	return foreach_common(odb, FGIT_FOREACH_LOOSE | FGIT_FOREACH_PACKED, &c, 0);
}

struct resolve_ctx {
	struct fgit_oid found;
	int n;
};

static int resolve_cb(const struct fgit_oid *oid, void *payload)
{
	struct resolve_ctx *c = payload;
	if (c->n && fgit_oid_equal(&c->found, oid))
		return 0;
	c->found = *oid;
	if (++c->n > 1)
		return 1;
	return 0;
}

int fgit_odb_resolve_prefix(struct fgit_oid *out, struct fgit_odb *odb,
			    const struct fgit_oid *prefix, size_t hexlen)
{
	struct resolve_ctx c;
	char hex[FGIT_MAX_HEXSZ + 1];

	memset(&c, 0, sizeof(c));
	fgit_odb_foreach_prefix(odb, prefix, hexlen, resolve_cb, &c);
	fgit_oid_to_hex(hex, prefix);
	hex[hexlen] = 0;
	if (c.n == 0)
		return fgit_error_set(FGIT_ENOTFOUND, "no object matches %s", hex);
	if (c.n > 1)
		return fgit_error_set(FGIT_EAMBIGUOUS, "short object ID %s is ambiguous", hex);
	*out = c.found;
	return 0;
}

/* Number of leading hex digits a and b share. */
static int common_hex(const struct fgit_oid *a, const struct fgit_oid *b, size_t rawsz)
{
	size_t i;
	for (i = 0; i < rawsz; i++)
		if (a->hash[i] != b->hash[i])
			return (int)(2 * i + ((a->hash[i] & 0xf0) == (b->hash[i] & 0xf0)));
	return (int)(2 * rawsz);
}

struct abbrev_ctx {
	const struct fgit_oid *oid;
	size_t rawsz;
	int len;
};

static int abbrev_loose_cb(const struct fgit_oid *oid, const char *path, void *payload)
{
	struct abbrev_ctx *c = payload;
	int n;
	if (fgit_oid_equal(oid, c->oid))
		return 0;
	n = common_hex(oid, c->oid, c->rawsz) + 1;
	if (n > c->len)
		c->len = n;
	return 0;
}

static void abbrev_walk(struct fgit_odb *odb, struct abbrev_ctx *c)
{
	size_t i;
	pthread_rwlock_rdlock(&odb->packs_lock);
	for (i = 0; i < odb->npacks; i++) {
		struct pack *p = odb->packs[i];
		uint32_t k = pack_lower_bound(p, c->oid);
		struct fgit_oid o;
		int n;
		if (k < p->nr) {
			pack_name_at(&o, p, k);
			if (fgit_oid_equal(&o, c->oid))
				k++;
			if (k < p->nr) {
				pack_name_at(&o, p, k);
				n = common_hex(&o, c->oid, c->rawsz) + 1;
				if (n > c->len)
					c->len = n;
			}
		}
		k = pack_lower_bound(p, c->oid);
		if (k > 0) {
			pack_name_at(&o, p, k - 1);
			n = common_hex(&o, c->oid, c->rawsz) + 1;
			if (n > c->len)
				c->len = n;
		}
	}
	pthread_rwlock_unlock(&odb->packs_lock);
	odb_walk_loose(odb, c->oid->hash[0], abbrev_loose_cb, NULL, c);
	for (i = 0; i < odb->nalts; i++)
		abbrev_walk(odb->alts[i], c);
}

int fgit_odb_abbrev_len(struct fgit_odb *odb, const struct fgit_oid *oid, int min_len)
{
	struct abbrev_ctx c = { oid, fgit_hash_rawsz(odb->algo), min_len };
	abbrev_walk(odb, &c);
	if (c.len > (int)(2 * c.rawsz))
		c.len = (int)(2 * c.rawsz);
	return c.len;
}

/* ---- counts ---- */

struct count_ctx {
	struct fgit_odb *odb;
	struct fgit_odb_counts *counts;
	void (*garbage_cb)(const char *path, const char *why, void *payload);
	void *payload;
};

static uint64_t disk_bytes(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512;
}

int odb_packed_anywhere(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	struct pack *p;
	uint64_t off;
	size_t i;
	if (odb_find_packed(&p, &off, odb, oid) > 0)
		return 1;
	for (i = 0; i < odb->nalts; i++)
		if (odb_packed_anywhere(odb->alts[i], oid))
			return 1;
	return 0;
}

static int count_loose_cb(const struct fgit_oid *oid, const char *path, void *payload)
{
	struct count_ctx *c = payload;
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	c->counts->loose_count++;
	c->counts->loose_size += disk_bytes(&st);
	if (odb_packed_anywhere(c->odb, oid))
		c->counts->prune_packable++;
	return 0;
}

static void count_garbage(struct count_ctx *c, const char *path, const char *why)
{
	struct stat st;
	c->counts->garbage_count++;
	if (lstat(path, &st) == 0)
		c->counts->garbage_size += (uint64_t)st.st_size;	/* as git: not blocks */
	if (c->garbage_cb)
		c->garbage_cb(path, why, c->payload);
}

static void loose_garbage_cb(const char *path, void *payload)
{
	count_garbage(payload, path, "garbage found");
}

static int str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Garbage in objects/pack: files git does not know, or a half of a pair. */
static void count_pack_garbage(struct count_ctx *c, struct fgit_odb *odb)
{
	struct fgit_buf dirpath = FGIT_BUF_INIT, path = FGIT_BUF_INIT;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	DIR *dir;

	fgit_buf_addf(&dirpath, "%s/pack", odb->path);
	dir = opendir(dirpath.ptr);
	if (!dir)
		goto out;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == alloc) {
			char **nn;
			alloc = alloc ? 2 * alloc : 16;
			nn = realloc(names, alloc * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(dir);
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		const char *nm = names[i];
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/%s", dirpath.ptr, nm);
		if (!strcmp(nm, "multi-pack-index"))
			continue;
		if (str_ends(nm, ".pack") || str_ends(nm, ".idx")) {
			const char *other = str_ends(nm, ".pack") ? ".idx" : ".pack";
			size_t base = strlen(nm) - (str_ends(nm, ".pack") ? 5 : 4);
			struct fgit_buf o = FGIT_BUF_INIT;
			struct stat st;
			fgit_buf_addf(&o, "%s/%.*s%s", dirpath.ptr, (int)base, nm, other);
			if (stat(o.ptr, &st) < 0)
				count_garbage(c, path.ptr, str_ends(nm, ".pack")
					      ? "no corresponding .idx" : "no corresponding .pack");
			fgit_buf_release(&o);
			continue;
		}
		if (str_ends(nm, ".keep") || str_ends(nm, ".bitmap") || str_ends(nm, ".rev") ||
		    str_ends(nm, ".promisor") || str_ends(nm, ".mtimes"))
			continue;
		count_garbage(c, path.ptr, "garbage found");
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fgit_buf_release(&dirpath);
	fgit_buf_release(&path);
}

int fgit_odb_count(struct fgit_odb_counts *out, struct fgit_odb *odb,
		   void (*garbage_cb)(const char *path, const char *why, void *payload),
		   void *payload)
{
	struct fgit_odb_counts counts;
	struct count_ctx c = { odb, &counts, garbage_cb, payload };
	struct stat st;
	size_t i;
	int r;

	memset(&counts, 0, sizeof(counts));
	pthread_rwlock_rdlock(&odb->packs_lock);
	for (i = 0; i < odb->npacks; i++) {
		struct pack *p = odb->packs[i];
		counts.pack_count++;
		counts.packed_count += p->nr;
		counts.pack_size += p->idx_size;
		if (stat(p->pack_path, &st) == 0)
			counts.pack_size += (uint64_t)st.st_size;
	}
	pthread_rwlock_unlock(&odb->packs_lock);
	/* git's order: loose garbage, then each pack directory's */
	r = odb_walk_loose(odb, -1, count_loose_cb, loose_garbage_cb, &c);
	count_pack_garbage(&c, odb);
	for (i = 0; i < odb->nalts; i++)
		count_pack_garbage(&c, odb->alts[i]);
	*out = counts;
	return r;
}
