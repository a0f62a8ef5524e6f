/*
 * Loose objects: objects/xx/yyyy..., a zlib stream of "<type> <size>\0"
 * followed by the content.
 *
 * Reading: the compressed file is read with read() (small files are the
 * rule; seed 000 measured read() beating mmap() for them) or mapped when
 * big; the header is inflated with zlib into a tiny buffer, then the whole
 * stream with libdeflate into a buffer of the now known size.  Type/size
 * queries stop after the header.
 *
 * Writing: the object is named and compressed from the same bytes, written
 * to a temporary file in its fan-out directory (created on demand), made
 * read-only and linked into place, so a crash never leaves half an object
 * under a real name.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/hash.h"
#include "odb/odb_internal.h"

#define MAP_THRESHOLD (1u << 20)

void odb_loose_path(char *out, size_t outsz, const struct fgit_odb *odb,
		    const struct fgit_oid *oid)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_oid_to_hex(hex, oid);
	snprintf(out, outsz, "%s/%.2s/%s", odb->path, hex, hex + 2);
}

int odb_parse_loose_header(const unsigned char *p, size_t n,
			   enum fgit_object_type *type, uint64_t *size)
{
	const unsigned char *sp = memchr(p, ' ', n), *q;
	uint64_t v = 0;

	if (!sp)
		return -1;
	*type = fgit_object_type_from_name((const char *)p, (size_t)(sp - p));
	q = sp + 1;
	if (q >= p + n || *q < '0' || *q > '9')
		return -1;
	if (*q == '0' && q + 1 < p + n && q[1] != '\0')
		return -1;
	for (; q < p + n && *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q >= p + n || *q != '\0')
		return -1;
	*size = v;
	return (int)(q + 1 - p);
}

/* Compressed bytes of a loose object, read or mapped. */
struct loose_file {
	unsigned char *data;
	size_t len;
	int mapped;
};

static int loose_open(struct loose_file *lf, const char *path, size_t limit)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t want, got = 0;

	lf->data = NULL;
	lf->mapped = 0;
	if (fd < 0)
		return errno == ENOENT ? FGIT_ENOTFOUND
			: fgit_error_errno(FGIT_ERROR, "unable to open %s", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fgit_error_errno(FGIT_ERROR, "unable to stat %s", path);
	}
	lf->len = (size_t)st.st_size;
	want = limit && limit < lf->len ? limit : lf->len;
	if (!limit && lf->len >= MAP_THRESHOLD) {
		void *m = mmap(NULL, lf->len, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return fgit_error_errno(FGIT_ERROR, "unable to mmap %s", path);
		lf->data = m;
		lf->mapped = 1;
		return 0;
	}
	lf->data = malloc(want ? want : 1);
	if (!lf->data) {
		close(fd);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	while (got < want) {
		n = read(fd, lf->data + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	lf->len = got;
	return 0;
}

static void loose_close(struct loose_file *lf)
{
	if (lf->mapped)
		munmap(lf->data, lf->len);
	else
		free(lf->data);
	lf->data = NULL;
}

/* Inflate just the header of a loose object. */
static int inflate_header(const unsigned char *in, size_t inlen,
			  enum fgit_object_type *type, uint64_t *size)
{
	unsigned char hdr[64];
	z_stream *zs = odb_zstream();
	int zr, n;

	if (!zs)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	zs->next_in = (unsigned char *)in;
	zs->avail_in = inlen > UINT32_MAX ? UINT32_MAX : (uInt)inlen;
	zs->next_out = hdr;
	zs->avail_out = sizeof(hdr);
	do {
		zr = inflate(zs, Z_SYNC_FLUSH);
	} while (zr == Z_OK && zs->avail_out && zs->avail_in &&
		 !memchr(hdr, 0, sizeof(hdr) - zs->avail_out));
	if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
		return -1;
	n = odb_parse_loose_header(hdr, sizeof(hdr) - zs->avail_out, type, size);
	return n;
}

int odb_loose_info(struct fgit_object_info *out, struct fgit_odb *odb,
		   const struct fgit_oid *oid, unsigned int flags)
{
	char path[4096], hex[FGIT_MAX_HEXSZ + 1];
	struct loose_file lf;
	enum fgit_object_type type;
	uint64_t size;
	struct stat st;
	int r;

	odb_loose_path(path, sizeof(path), odb, oid);
	if ((r = loose_open(&lf, path, 256)) < 0)
		return r;
	r = inflate_header(lf.data, lf.len, &type, &size);
	loose_close(&lf);
	if (r < 0 || type == FGIT_OBJ_BAD)
		return fgit_error_set(FGIT_EINVALID, "unable to unpack %s header",
				      fgit_oid_to_hex(hex, oid));
	memset(out, 0, sizeof(*out));
	out->type = type;
	out->size = size;
	out->where = FGIT_WHERE_LOOSE;
	fgit_oid_zero(&out->delta_base, oid->algo);
	if ((flags & FGIT_INFO_DISK_SIZE) && stat(path, &st) == 0)
		out->disk_size = (uint64_t)st.st_size;
	return 0;
}

int odb_loose_exists(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	char path[4096];
	odb_loose_path(path, sizeof(path), odb, oid);
	return access(path, F_OK) == 0;
}

/*
 * The loose-object cache behind fgit_odb_exists_quick: each fan-out
 * directory is listed once, when first asked about, and kept as a sorted
 * array of names; later lookups make no system call.  index-pack checks
 * every object of the pack against the repository for collisions: one
 * failed access() each was 500,000 system calls on the history pack.
 */
struct loose_dir {
	atomic_int loaded;
	uint32_t nr;
	unsigned char *names;		/* nr raw names, sorted */
};

struct odb_loose_cache {
	pthread_mutex_t lock;
	struct loose_dir dir[256];
};

static int cmp_raw20(const void *a, const void *b)
{
	return memcmp(a, b, 20);
}

static int cmp_raw32(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

/* List directory d (under the cache's lock); names that are not objects
 * are skipped, and a directory that cannot be read holds nothing. */
static void loose_dir_load(struct loose_dir *ld, struct fgit_odb *odb, unsigned d)
{
	char path[4096], hex[FGIT_MAX_HEXSZ + 1];
	size_t rawsz = fgit_hash_rawsz(odb->algo), hexsz = rawsz * 2, alloc = 0;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%02x", odb->path, d);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		struct fgit_oid oid;
		if (strlen(de->d_name) != hexsz - 2)
			continue;
		snprintf(hex, 3, "%02x", d);
		memcpy(hex + 2, de->d_name, hexsz - 2);
		hex[hexsz] = 0;
		if (fgit_oid_from_hex(&oid, hex, odb->algo))
			continue;
		if (ld->nr == alloc) {
			size_t want = alloc ? 2 * alloc : 64;
			unsigned char *n = realloc(ld->names, want * rawsz);
			if (!n)
				break;	/* an incomplete list only makes the check weaker */
			ld->names = n;
			alloc = want;
		}
		memcpy(ld->names + (size_t)ld->nr++ * rawsz, oid.hash, rawsz);
	}
	if (dir)
		closedir(dir);
	if (ld->nr)
		qsort(ld->names, ld->nr, rawsz, rawsz == 20 ? cmp_raw20 : cmp_raw32);
	fgit_error_clear();
	atomic_store_explicit(&ld->loaded, 1, memory_order_release);
}

int odb_loose_exists_cached(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	struct odb_loose_cache *c = atomic_load_explicit(&odb->loose_cache, memory_order_acquire);
	struct loose_dir *ld;
	size_t rawsz = fgit_hash_rawsz(odb->algo);
	uint32_t lo = 0, hi;

	if (!c) {
		struct odb_loose_cache *fresh = calloc(1, sizeof(*fresh)), *none = NULL;
		if (!fresh)
			return odb_loose_exists(odb, oid);
		pthread_mutex_init(&fresh->lock, NULL);
		if (atomic_compare_exchange_strong(&odb->loose_cache, &none, fresh)) {
			c = fresh;
		} else {
			pthread_mutex_destroy(&fresh->lock);
			free(fresh);
			c = none;
		}
	}
	ld = &c->dir[oid->hash[0]];
	if (!atomic_load_explicit(&ld->loaded, memory_order_acquire)) {
		pthread_mutex_lock(&c->lock);
		if (!atomic_load_explicit(&ld->loaded, memory_order_relaxed))
			loose_dir_load(ld, odb, oid->hash[0]);
		pthread_mutex_unlock(&c->lock);
	}
	hi = ld->nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp = memcmp(ld->names + (size_t)mid * rawsz, oid->hash, rawsz);
		if (!cmp)
			return 1;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void odb_loose_cache_free(struct odb_loose_cache *c)
{
	if (!c)
		return;
	for (int d = 0; d < 256; d++)
		free(c->dir[d].names);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int odb_loose_read(void **out, size_t *size_out, enum fgit_object_type *type_out,
		   struct fgit_buf *into, struct fgit_odb *odb, const struct fgit_oid *oid,
		   uint64_t cap)
{
	char path[4096], hex[FGIT_MAX_HEXSZ + 1];
	struct loose_file lf;
	enum fgit_object_type type;
	uint64_t size;
	unsigned char *buf = NULL, *dst;
	struct libdeflate_decompressor *ld;
	int r, hdrlen;

	odb_loose_path(path, sizeof(path), odb, oid);
	if ((r = loose_open(&lf, path, 0)) < 0)
		return r;
	fgit_oid_to_hex(hex, oid);
	hdrlen = inflate_header(lf.data, lf.len, &type, &size);
	if (hdrlen < 0 || type == FGIT_OBJ_BAD) {
		r = fgit_error_set(FGIT_EINVALID,
				   "loose object %s (stored in %s) is corrupt"
				   " (unable to unpack header of %s)", hex, path, path);
		goto out;
	}
	if (size > cap) {
		*size_out = (size_t)size;
		*type_out = type;
		r = 1;
		goto out;
	}
	if (size > SIZE_MAX - (size_t)hdrlen - 1) {
		r = fgit_error_set(FGIT_ENOMEM, "object %s is too large (%llu bytes)",
				   hex, (unsigned long long)size);
		goto out;
	}
	if (into)
		dst = odb_into_buf(into, size + (uint64_t)hdrlen);
	else
		dst = buf = malloc((size_t)size + (size_t)hdrlen + 1);
	ld = odb_libdeflate();
	if (!dst || !ld) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory reading %s", hex);
		goto out;
	}
	{
		size_t in_used;
		if (libdeflate_zlib_decompress_ex(ld, lf.data, lf.len, dst,
						  (size_t)size + (size_t)hdrlen,
						  &in_used, NULL) != LIBDEFLATE_SUCCESS) {
			r = fgit_error_set(FGIT_EINVALID,
					   "loose object %s (stored in %s) is corrupt"
					   " (inflate: data stream error)", hex, path);
			goto out;
		}
	}
	memmove(dst, dst + hdrlen, (size_t)size);
	dst[size] = 0;
	if (into)
		fgit_buf_setlen(into, (size_t)size);
	else
		*out = buf;
	buf = NULL;
	*size_out = (size_t)size;
	*type_out = type;
	r = 0;
out:
	if (r && into)
		fgit_buf_reset(into);
	free(buf);
	loose_close(&lf);
	return r;
}

/* ---- writing ---- */

static int compression_level(const struct fgit_odb *odb)
{
	int l = odb->opts.loose_compression;
	if (l < 0 || l > 9)
		l = odb->opts.compression;
	if (l < 0 || l > 9)
		l = Z_BEST_SPEED;	/* git's default for loose objects */
	return l;
}


/*
 * Writing costs system calls, and on this VM each one is dear (add -A of
 * 100,000 small files into a fresh object database, AMD EPYC VM under
 * firecracker, kernel 6.18: 11.3 calls an object and 60% of the CPU time
 * in the kernel, 8% of it walking the long object paths).  So an object
 * takes four: openat() of the temporary file relative to its fan-out
 * directory (kept open, O_PATH), created read-only with O_EXCL under a
 * name we make ourselves (mkstemp() asks getrandom() now and then and
 * needs a chmod after), one write(), close(), and renameat2() with
 * RENAME_NOREPLACE: like git's link() + unlink(), an existing object is
 * never replaced, and the object appears under its name only complete.
 * A file system without RENAME_NOREPLACE gets link() + unlink(), then
 * rename(), as git does.
 */
struct odb_fanout {
	pthread_mutex_t lock;
	/* 0: not opened yet; -1: failed; > 0: fd + 1; <= -2: -(fd + 2) of a
	 * directory removed under us (git's prune-packed rmdirs empty fan-out
	 * directories), kept open until the handle goes since another thread
	 * may still be using it; full paths from then on */
	atomic_int fd[256];
	atomic_uchar ours[256];		/* we made the directory: its objects are ours */
};

static struct odb_fanout *fanout_get(struct fgit_odb *odb)
{
	struct odb_fanout *f = atomic_load_explicit(&odb->fanout, memory_order_acquire);
	struct odb_fanout *fresh, *none = NULL;

	if (f)
		return f;
	if (!(fresh = calloc(1, sizeof(*fresh))))
		return NULL;
	pthread_mutex_init(&fresh->lock, NULL);
	if (atomic_compare_exchange_strong(&odb->fanout, &none, fresh))
		return fresh;
	pthread_mutex_destroy(&fresh->lock);
	free(fresh);
	return none;
}

void odb_fanout_free(struct odb_fanout *f)
{
	if (!f)
		return;
	for (int d = 0; d < 256; d++)
		if (f->fd[d] > 0)
			close(f->fd[d] - 1);
		else if (f->fd[d] <= -2)
			close(-f->fd[d] - 2);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/*
 * The fan-out directory d, opened (created if missing) once per handle;
 * AT_FDCWD when it cannot be kept open (out of descriptors): the caller
 * then uses the full path.  Negative (error set) if it cannot be created.
 */
static int fanout_dir(struct fgit_odb *odb, unsigned d)
{
	struct odb_fanout *f = fanout_get(odb);
	char dir[4096];
	int v, fd;

	if (!f)
		return AT_FDCWD;
	v = atomic_load_explicit(&f->fd[d], memory_order_acquire);
	if (v)
		return v > 0 ? v - 1 : AT_FDCWD;
	pthread_mutex_lock(&f->lock);
	if ((v = atomic_load_explicit(&f->fd[d], memory_order_relaxed)) != 0)
		goto out;
	snprintf(dir, sizeof(dir), "%s/%02x", odb->path, d);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0777) == 0)
			atomic_store_explicit(&f->ours[d], 1, memory_order_relaxed);
		else if (errno != EEXIST) {
			pthread_mutex_unlock(&f->lock);
			return fgit_error_errno(FGIT_ERROR, "unable to create directory %s", dir);
		}
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	v = fd < 0 ? -1 : fd + 1;
	atomic_store_explicit(&f->fd[d], v, memory_order_release);
out:
	pthread_mutex_unlock(&f->lock);
	return v > 0 ? v - 1 : AT_FDCWD;
}

/*
 * The kept fan-out directory d is gone (removed by another process while
 * this handle held it open): stop using it; later writes take full paths
 * and create the directory again.
 */
static void fanout_stale(struct fgit_odb *odb, unsigned d, int dfd)
{
	struct odb_fanout *f = atomic_load_explicit(&odb->fanout, memory_order_acquire);
	int expect = dfd + 1;

	if (f)
		atomic_compare_exchange_strong(&f->fd[d], &expect, -(dfd + 2));
}

int odb_loose_dir_is_ours(struct fgit_odb *odb, const struct fgit_oid *oid)
{
	struct odb_fanout *f = atomic_load_explicit(&odb->fanout, memory_order_acquire);

	return f && atomic_load_explicit(&f->ours[oid->hash[0]], memory_order_relaxed) &&
		atomic_load_explicit(&f->fd[oid->hash[0]], memory_order_acquire) > 0;
}

/* A fresh name in place of the last six characters of name. */
static void tmp_name(char *name)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Thread_local uint64_t state;
	size_t len = strlen(name);
	uint64_t x;

	if (!state) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		state = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
			((uint64_t)ts.tv_sec << 20) ^ (uint64_t)(uintptr_t)&state;
	}
	/* splitmix64 */
	x = (state += 0x9e3779b97f4a7c15ULL);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	for (size_t i = len - 6; i < len; i++, x /= 62)
		name[i] = set[x % 62];
}

/*
 * Create "<dir>/tmp_obj_XXXXXX" read-only (git's mode for object files),
 * relative to dfd; name receives the name as opened.
 */
static int create_tmp(int dfd, char *name, size_t namesz, const char *dir)
{
	int fd, tries;

	if (strlen(dir) + sizeof("/tmp_obj_XXXXXX") > namesz)
		return fgit_error_set(FGIT_ERROR, "path too long: %s", dir);
	snprintf(name, namesz, "%s%stmp_obj_XXXXXX", dir, *dir ? "/" : "");
	for (tries = 0; tries < 100; tries++) {
		tmp_name(name);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Create a temporary file in the fan-out directory of final_path. */
static int open_tmp(char *tmp, size_t tmpsz, const char *final_path)
{
	const char *slash = strrchr(final_path, '/');
	char dir[4096];
	int fd;

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - final_path), final_path);
	fd = create_tmp(AT_FDCWD, tmp, tmpsz, dir);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0777) < 0 && errno != EEXIST)
			return fgit_error_errno(FGIT_ERROR, "unable to create directory %s", dir);
		fd = create_tmp(AT_FDCWD, tmp, tmpsz, dir);
	}
	if (fd < 0)
		return fgit_error_errno(FGIT_ERROR,
					"insufficient permission for adding an object to repository database %s",
					dir);
	return fd;
}

/*
 * Close the written temporary file and give it its final name (both
 * relative to dfd), unless an object of that name exists: then the
 * temporary file goes.  final_path names it in messages.
 */
static int finish_tmp(int fd, int dfd, const char *tmp, const char *final,
		      const char *final_path, int do_fsync)
{
	if (do_fsync && fsync(fd) < 0) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		return fgit_error_errno(FGIT_ERROR, "unable to fsync %s", final_path);
	}
	if (close(fd) < 0) {
		unlinkat(dfd, tmp, 0);
		return fgit_error_errno(FGIT_ERROR, "unable to write file %s", final_path);
	}
	if (renameat2(dfd, tmp, dfd, final, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EEXIST && errno != EINVAL && errno != ENOSYS) {
		int r = fgit_error_errno(FGIT_ERROR, "unable to write file %s", final_path);
		unlinkat(dfd, tmp, 0);
		return r;
	}
	if (errno != EEXIST && linkat(dfd, tmp, dfd, final, 0) < 0 && errno != EEXIST &&
	    renameat(dfd, tmp, dfd, final) < 0) {
		int r = fgit_error_errno(FGIT_ERROR, "unable to write file %s", final_path);
		unlinkat(dfd, tmp, 0);
		return r;
	}
	unlinkat(dfd, tmp, 0);
	return 0;
}

/*
 * One compressor per thread and level, kept: allocating one costs more
 * than deflating a small object (add -A of 100,000 1 KiB files spent
 * most of its deflate time in libdeflate_alloc_compressor).  Freed at
 * thread exit.
 */
static pthread_key_t compressor_key;
static pthread_once_t compressor_once = PTHREAD_ONCE_INIT;

struct cached_compressor {
	struct libdeflate_compressor *c;
	int level;
};

static void free_cached_compressor(void *p)
{
	struct cached_compressor *cc = p;
	libdeflate_free_compressor(cc->c);
	free(cc);
}

static void make_compressor_key(void)
{
	pthread_key_create(&compressor_key, free_cached_compressor);
}

static struct libdeflate_compressor *cached_compressor(int level)
{
	struct cached_compressor *cc;

	pthread_once(&compressor_once, make_compressor_key);
	cc = pthread_getspecific(compressor_key);
	if (cc && cc->level == level)
		return cc->c;
	if (!cc) {
		if (!(cc = calloc(1, sizeof(*cc))))
			return NULL;
		pthread_setspecific(compressor_key, cc);
	}
	if (cc->c)
		libdeflate_free_compressor(cc->c);
	cc->c = libdeflate_alloc_compressor(level);
	cc->level = level;
	return cc->c;
}

int odb_loose_write_buf(struct fgit_odb *odb, const struct fgit_oid *oid,
			enum fgit_object_type type, const void *data, size_t len)
{
	char path[4096], tmp[4096], hdr[64];
	struct libdeflate_compressor *c = NULL;
	unsigned char *in = NULL, *z = NULL;
	const char *final;
	size_t hdrlen, inlen, zbound, zlen;
	int fd = -1, dfd, r;

	hdrlen = (size_t)fgit_object_header(hdr, sizeof(hdr), type, len);
	if (len > SIZE_MAX - hdrlen)
		return fgit_error_set(FGIT_ENOMEM, "object too large");
	inlen = hdrlen + len;
	odb_loose_path(path, sizeof(path), odb, oid);
	c = cached_compressor(compression_level(odb));
	in = malloc(inlen);
	if (!c || !in) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(in, hdr, hdrlen);
	memcpy(in + hdrlen, data, len);
	zbound = libdeflate_zlib_compress_bound(c, inlen);
	z = malloc(zbound);
	if (!z) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	zlen = libdeflate_zlib_compress(c, in, inlen, z, zbound);
	if (!zlen) {
		r = fgit_error_set(FGIT_ERROR, "unable to deflate new object");
		goto out;
	}
	if ((dfd = fanout_dir(odb, oid->hash[0])) < 0 && dfd != AT_FDCWD) {
		r = dfd;
		goto out;
	}
	if (dfd == AT_FDCWD) {
		/* the directory could not be kept open: full paths */
		final = path;
		fd = open_tmp(tmp, sizeof(tmp), path);
	} else {
		final = strrchr(path, '/') + 1;
		if ((fd = create_tmp(dfd, tmp, sizeof(tmp), "")) < 0 && errno == ENOENT) {
			/* the directory was removed under us: full paths */
			fanout_stale(odb, oid->hash[0], dfd);
			dfd = AT_FDCWD;
			final = path;
			fd = open_tmp(tmp, sizeof(tmp), path);
		} else if (fd < 0)
			fd = fgit_error_errno(FGIT_ERROR,
					      "insufficient permission for adding an object to repository database %s",
					      odb->path);
	}
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fgit_write_all(fd, z, zlen) < 0) {
		r = fgit_error_errno(FGIT_ERROR, "unable to write loose object file");
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	r = finish_tmp(fd, dfd, tmp, final, path, odb->opts.fsync);
out:
	free(in);
	free(z);
	return r;
}

int odb_loose_write_fd(struct fgit_oid *out, struct fgit_odb *odb,
		       enum fgit_object_type type, int in_fd, uint64_t size)
{
	char tmp[4096], hdr[64], path[4096], probe[4096];
	unsigned char ibuf[65536], obuf[65536];
	struct fgit_hash_ctx hc;
	struct fgit_oid oid;
	z_stream zs;
	uint64_t left = size;
	int fd = -1, r, hdrlen, zr;

	/* The temporary file goes in some fan-out dir; we don't know which yet. */
	snprintf(probe, sizeof(probe), "%s/xx", odb->path);
	if ((fd = open_tmp(tmp, sizeof(tmp), probe)) < 0)
		return fd;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, compression_level(odb)) != Z_OK) {
		r = fgit_error_set(FGIT_ENOMEM, "unable to start deflate");
		goto fail;
	}
	hdrlen = fgit_object_header(hdr, sizeof(hdr), type, size);
	fgit_objname_init_header(&hc, odb->algo, type, size);
	zs.next_in = (unsigned char *)hdr;
	zs.avail_in = (uInt)hdrlen;
	for (;;) {
		int flush = Z_NO_FLUSH;
		if (!zs.avail_in) {
			ssize_t n;
			if (left) {
				n = read(in_fd, ibuf, left < sizeof(ibuf) ? (size_t)left : sizeof(ibuf));
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					r = fgit_error_errno(FGIT_ERROR, "read error while indexing");
					goto fail_z;
				}
				if (n == 0) {
					r = fgit_error_set(FGIT_ERROR,
						"short read while indexing (file shrank?)");
					goto fail_z;
				}
				/* Name and store the same bytes. */
				fgit_objname_update(&hc, ibuf, (size_t)n);
				left -= (uint64_t)n;
				zs.next_in = ibuf;
				zs.avail_in = (uInt)n;
			}
			if (!left)
				flush = Z_FINISH;
		}
		do {
			zs.next_out = obuf;
			zs.avail_out = sizeof(obuf);
			zr = deflate(&zs, flush);
			if (fgit_write_all(fd, obuf, sizeof(obuf) - zs.avail_out) < 0) {
				r = fgit_error_errno(FGIT_ERROR, "unable to write loose object file");
				goto fail_z;
			}
		} while (zs.avail_out == 0);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			r = fgit_error_set(FGIT_ERROR, "unable to deflate new object");
			goto fail_z;
		}
	}
	deflateEnd(&zs);
	{
		char extra;
		if (read(in_fd, &extra, 1) > 0) {
			r = fgit_error_set(FGIT_ERROR, "file grew while indexing");
			goto fail;
		}
	}
	if ((r = fgit_objname_final(&oid, &hc)) < 0)
		goto fail;
	odb_loose_path(path, sizeof(path), odb, &oid);
	{
		/* the real fan-out directory may not exist yet */
		char dir[4096];
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			r = fgit_error_errno(FGIT_ERROR, "unable to create directory %s", dir);
			goto fail;
		}
	}
	if (odb_freshen(odb, &oid)) {	/* we have it already: keep the old file */
		close(fd);
		unlink(tmp);
		*out = oid;
		return 0;
	}
	if ((r = finish_tmp(fd, AT_FDCWD, tmp, path, path, odb->opts.fsync)) < 0)
		return r;
	*out = oid;
	return 0;
fail_z:
	deflateEnd(&zs);
fail:
	close(fd);
	unlink(tmp);
	return r;
}
