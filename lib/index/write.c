/*
 * Writing an index file, byte for byte as git 2.39 writes the same index:
 * the version rule (2 and 3 interchangeable, 3 only when an entry needs
 * extended flags), entries, then IEOT, TREE, REUC, UNTR and EOIE in git's
 * order, and the IEOT block rule (the number of blocks from index.threads;
 * in version 4 each block starts its prefix compression afresh, so a
 * reader can decode blocks independently).
 *
 * The file is built in memory and written with one write() to
 * "<index>.lock", then renamed over the index.
 */
#include <fcntl.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/lockfile.h"
#include "index/index_internal.h"

#define THREAD_COST 10000

static int encode_varint(uint64_t value, unsigned char *buf)
{
	unsigned char tmp[16];
	unsigned pos = sizeof(tmp) - 1;
	tmp[pos] = value & 127;
	while (value >>= 7)
		tmp[--pos] = 128 | (--value & 127);
	memcpy(buf, tmp + pos, sizeof(tmp) - pos);
	return (int)(sizeof(tmp) - pos);
}

static int add_be32(struct fgit_buf *b, uint32_t v)
{
	unsigned char t[4];
	put_be32(t, v);
	return fgit_buf_add(b, t, 4);
}

static int write_entry(struct fgit_buf *out, const struct fgit_index_entry *e,
		       unsigned int version, size_t rawsz,
		       const char *prev, size_t prev_len)
{
	unsigned char hdr[64 + FGIT_MAX_RAWSZ];
	size_t h = 40, len = e->path_len;
	int ext = (e->flags & (FGIT_INDEX_SKIP_WORKTREE | FGIT_INDEX_INTENT_TO_ADD)) != 0;
	unsigned int flags;

	put_be32(hdr, e->ctime_sec);
	put_be32(hdr + 4, e->ctime_nsec);
	put_be32(hdr + 8, e->mtime_sec);
	put_be32(hdr + 12, e->mtime_nsec);
	put_be32(hdr + 16, e->dev);
	put_be32(hdr + 20, e->ino);
	put_be32(hdr + 24, e->mode);
	put_be32(hdr + 28, e->uid);
	put_be32(hdr + 32, e->gid);
	put_be32(hdr + 36, e->size);
	memcpy(hdr + h, e->oid.hash, rawsz);
	h += rawsz;
	flags = (e->flags & FGIT_INDEX_ASSUME_VALID ? 0x8000 : 0) |
		(ext ? 0x4000 : 0) | (e->stage & 3) << 12 |
		(len >= 0xfff ? 0xfff : (unsigned)len);
	put_be16(hdr + h, (uint16_t)flags);
	h += 2;
	if (ext) {
		put_be16(hdr + h, (e->flags & FGIT_INDEX_SKIP_WORKTREE ? 0x4000 : 0) |
				  (e->flags & FGIT_INDEX_INTENT_TO_ADD ? 0x2000 : 0));
		h += 2;
	}
	if (version == 4) {
		size_t common = 0;
		unsigned char vi[16];
		int n;
		while (common < prev_len && common < len && prev[common] == e->path[common])
			common++;
		n = encode_varint(prev_len - common, vi);
		if (fgit_buf_add(out, hdr, h) < 0 || fgit_buf_add(out, vi, n) < 0 ||
		    fgit_buf_add(out, e->path + common, len - common + 1) < 0)
			return FGIT_ENOMEM;
	} else {
		size_t total = (h + len + 8) & ~(size_t)7;
		if (fgit_buf_grow(out, total) < 0)
			return FGIT_ENOMEM;
		memcpy(out->ptr + out->len, hdr, h);
		memcpy(out->ptr + out->len + h, e->path, len);
		memset(out->ptr + out->len + h + len, 0, total - h - len);
		fgit_buf_setlen(out, out->len + total);
	}
	return 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : (int)n;
}

/* git's record_eoie() / record_ieot(): explicit setting, else threads set and != 1. */
static int want_ext(int setting, int threads)
{
	if (setting >= 0)
		return setting;
	return threads >= 0 && threads != 1;
}

static int ext_header(struct fgit_buf *out, struct fgit_hash_ctx *eoie,
		      const char *sig, size_t len)
{
	unsigned char h[8];
	if (len > UINT32_MAX)
		return fgit_error_set(FGIT_EINVALID, "index extension %.4s too large", sig);
	memcpy(h, sig, 4);
	put_be32(h + 4, (uint32_t)len);
	if (eoie)
		fgit_checksum_update(eoie, h, 8);
	return fgit_buf_add(out, h, 8);
}

/* What to write: the whole index, a shared index, or a split front. */
enum ser_mode {
	SER_FULL,
	SER_SHARED,	/* all entries, no TREE/REUC/UNTR (git's WRITE_NO_EXTENSION) */
	SER_FRONT,	/* the entries of `front`, then its link extension */
};

/* A split front: its entries (replaced ones first, nameless) and link payload. */
struct front {
	struct fgit_index_entry **entries;
	size_t nr;
	struct fgit_buf link;
};


/*
 * With fd >= 0 the index is written to fd as it is built: whatever the
 * buffer holds is hashed and written once it passes FLUSH_AT, so a big
 * index is never held whole (100,000 entries: ~7 MB less at the peak of
 * add and commit, whose peak RSS must stay below git's).  *out is then
 * not set.  Without fd the whole file comes back in *out.
 */
#define FLUSH_AT (64u << 10)

static int serialize(unsigned char **out, size_t *outlen, struct fgit_index *idx,
		     const struct fgit_index_write_opts *opts, enum ser_mode mode,
		     const struct front *fr, unsigned char *sum_out, int fd);

static int flush_out(struct fgit_buf *b, struct fgit_hash_ctx *ctx, int fd, size_t *flushed)
{
	fgit_checksum_update(ctx, b->ptr, b->len);
	if (fgit_write_all(fd, (const unsigned char *)b->ptr, b->len) < 0)
		return fgit_error_errno(FGIT_ERROR, "unable to write new index file");
	*flushed += b->len;
	fgit_buf_reset(b);
	return 0;
}

int fgit_index_serialize(unsigned char **out, size_t *outlen, struct fgit_index *idx,
			 const struct fgit_index_write_opts *opts)
{
	return serialize(out, outlen, idx, opts, SER_FULL, NULL, NULL, -1);
}

int fgit_index_write_fd(struct fgit_index *idx, int fd,
			const struct fgit_index_write_opts *opts)
{
	return serialize(NULL, NULL, idx, opts, SER_FULL, NULL, NULL, fd);
}

static int serialize(unsigned char **out, size_t *outlen, struct fgit_index *idx,
		     const struct fgit_index_write_opts *opts, enum ser_mode mode,
		     const struct front *fr, unsigned char *sum_out, int fd)
{
	struct fgit_index_entry **list = mode == SER_FRONT ? fr->entries : idx->entries;
	static const struct fgit_index_write_opts defaults = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_buf b = FGIT_BUF_INIT, ext = FGIT_BUF_INIT;
	struct fgit_hash_ctx ctx, eoie_ctx, *eoie = NULL;
	size_t rawsz = fgit_hash_rawsz(idx->algo), i, per_block = 0;
	uint32_t *ieot = NULL;
	size_t ieot_nr = 0, block_start = 0, block_count = 0, entries_end;
	unsigned int version;
	size_t nr;
	int threads, ret = 0, extended = 0;
	const char *prev = "";
	size_t prev_len = 0, flushed = 0;
	unsigned char sum[FGIT_MAX_RAWSZ];

	if (!opts)
		opts = &defaults;
	if (opts->version != FGIT_INDEX_WRITE_OPTS_VERSION)
		return fgit_error_set(FGIT_EINVALID, "unsupported fgit_index_write_opts version %u",
				      opts->version);
	if ((ret = fgit_index_sort(idx)) < 0)
		return ret;
	version = opts->index_version ? opts->index_version : idx->version ? idx->version : 2;
	if (version < 2 || version > 4)
		return fgit_error_set(FGIT_EINVALID, "bad index version %u", version);
	nr = mode == SER_FRONT ? fr->nr : idx->nr;
	for (i = 0; i < nr; i++) {
		const struct fgit_index_entry *e = list[i];
		if (e->flags & (FGIT_INDEX_SKIP_WORKTREE | FGIT_INDEX_INTENT_TO_ADD))
			extended = 1;
		if (fgit_oid_is_zero(&e->oid))
			return fgit_error_set(FGIT_EINVALID, "cache entry has null sha1: %s",
					      e->path);
	}
	if (version == 2 || version == 3)
		version = extended ? 3 : 2;

	/* IEOT blocks, as git decides them. */
	threads = opts->threads < 0 ? 1 : opts->threads;
	if (threads != 1 && want_ext(opts->record_ieot, opts->threads)) {
		long blocks;
		if (!threads) {
			int cpus = opts->cpus > 0 ? opts->cpus : online_cpus();
			blocks = (long)(nr / THREAD_COST);
			if (blocks > cpus - 1)
				blocks = cpus - 1;
		} else {
			blocks = threads;
			if ((size_t)blocks > nr)
				blocks = (long)nr;
		}
		if (blocks > 1) {
			per_block = (nr + blocks - 1) / blocks;
			ieot = malloc(2 * (size_t)blocks * sizeof(*ieot) + 2 * sizeof(*ieot));
			if (!ieot)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
		}
	}

	fgit_checksum_init(&ctx, idx->algo);
	if (fgit_buf_grow(&b, fd >= 0 ? FLUSH_AT + 4096 : 12 + nr * 80 + 4096) < 0) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	fgit_buf_add(&b, "DIRC", 4);
	add_be32(&b, version);
	if (nr > UINT32_MAX) {
		ret = fgit_error_set(FGIT_EINVALID, "too many index entries");
		goto out;
	}
	add_be32(&b, (uint32_t)nr);

	block_start = b.len;
	for (i = 0; i < nr; i++) {
		if (fd >= 0 && b.len >= FLUSH_AT && (ret = flush_out(&b, &ctx, fd, &flushed)) < 0)
			goto out;
		const struct fgit_index_entry *e = list[i];
		if (ieot && i && i % per_block == 0) {
			ieot[2 * ieot_nr] = (uint32_t)block_start;
			ieot[2 * ieot_nr + 1] = (uint32_t)block_count;
			ieot_nr++;
			block_start = flushed + b.len;
			block_count = 0;
			/* git blanks the previous name: nothing in common */
			prev = "";
		}
		if ((ret = write_entry(&b, e, version, rawsz, prev, prev_len)) < 0)
			goto out;
		prev = e->path;
		prev_len = e->path_len;
		block_count++;
	}
	if (ieot) {
		ieot[2 * ieot_nr] = (uint32_t)block_start;
		ieot[2 * ieot_nr + 1] = (uint32_t)block_count;
		ieot_nr++;
	}
	entries_end = flushed + b.len;
	if (entries_end > UINT32_MAX) {
		ret = fgit_error_set(FGIT_EINVALID, "index too large");
		goto out;
	}

	if (want_ext(opts->record_eoie, opts->threads)) {
		fgit_checksum_init(&eoie_ctx, idx->algo);
		eoie = &eoie_ctx;
	}
	if (ieot) {
		fgit_buf_reset(&ext);
		add_be32(&ext, 1);
		for (i = 0; i < ieot_nr; i++) {
			add_be32(&ext, ieot[2 * i]);
			add_be32(&ext, ieot[2 * i + 1]);
		}
		if ((ret = ext_header(&b, eoie, "IEOT", ext.len)) < 0 ||
		    (ret = fgit_buf_add(&b, ext.ptr, ext.len)) < 0)
			goto out;
	}
	if (mode == SER_FRONT) {
		if ((ret = ext_header(&b, eoie, "link", fr->link.len)) < 0 ||
		    (ret = fgit_buf_add(&b, fr->link.ptr, fr->link.len)) < 0)
			goto out;
	}
	if (mode == SER_SHARED)
		goto no_extensions;
	if (idx->tree && !(opts->flags & FGIT_INDEX_WRITE_NO_CACHE_TREE)) {
		fgit_buf_reset(&ext);
		if ((ret = ct_write(&ext, idx->tree, idx->algo)) < 0 ||
		    (ret = ext_header(&b, eoie, "TREE", ext.len)) < 0 ||
		    (ret = fgit_buf_add(&b, ext.ptr, ext.len)) < 0)
			goto out;
	}
	if (idx->reuc.present) {
		fgit_buf_reset(&ext);
		if ((ret = reuc_write(&ext, &idx->reuc, idx->algo)) < 0 ||
		    (ret = ext_header(&b, eoie, "REUC", ext.len)) < 0 ||
		    (ret = fgit_buf_add(&b, ext.ptr, ext.len)) < 0)
			goto out;
	}
	if (idx->untr) {
		fgit_buf_reset(&ext);
		if ((ret = fgit_untr_write(&ext, idx->untr)) < 0 ||
		    (ret = ext_header(&b, eoie, "UNTR", ext.len)) < 0 ||
		    (ret = fgit_buf_add(&b, ext.ptr, ext.len)) < 0)
			goto out;
	}
no_extensions:
	if (eoie) {
		unsigned char h[FGIT_MAX_RAWSZ];
		fgit_checksum_final(h, eoie);
		if ((ret = ext_header(&b, NULL, "EOIE", 4 + rawsz)) < 0 ||
		    (ret = add_be32(&b, (uint32_t)entries_end)) < 0 ||
		    (ret = fgit_buf_add(&b, h, rawsz)) < 0)
			goto out;
	}
	fgit_checksum_update(&ctx, b.ptr, b.len);
	fgit_checksum_final(sum, &ctx);
	if ((ret = fgit_buf_add(&b, sum, rawsz)) < 0)
		goto out;
	if (fd >= 0 && fgit_write_all(fd, (const unsigned char *)b.ptr, b.len) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to write new index file");
		goto out;
	}
	if (sum_out)
		memcpy(sum_out, sum, rawsz);
	if (mode == SER_FULL) {
		memcpy(idx->checksum, sum, rawsz);
		idx->version = version;
	}
	if (fd < 0)
		*out = (unsigned char *)fgit_buf_detach(&b, outlen);
out:
	if (ret == FGIT_ENOMEM && fgit_error_last_code() != FGIT_ENOMEM)
		fgit_error_set(FGIT_ENOMEM, "out of memory");
	free(ieot);
	fgit_buf_release(&b);
	fgit_buf_release(&ext);
	return ret;
}

/* git's clean_shared_index_files(): expire the other sharedindex.* files. */
static void clean_shared(const char *dir, const char *keep_hex, int64_t expire)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	struct dirent *de;
	DIR *d;

	if (expire == -1)
		expire = (int64_t)time(NULL) - 14 * 24 * 3600;
	if (!expire || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (strncmp(de->d_name, "sharedindex.", 12) || !strcmp(de->d_name + 12, keep_hex))
			continue;
		fgit_buf_reset(&path);
		if (fgit_buf_addf(&path, "%s/%s", dir, de->d_name) < 0)
			break;
		/* NEEDSWORK: git warns "unable to unlink: %s"; we stay silent */
		if (!stat(path.ptr, &st) && (int64_t)st.st_mtime <= expire)
			unlink(path.ptr);
	}
	closedir(d);
	fgit_buf_release(&path);
}

/* Write the shared index for a split write; its checksum into sum. */
static int write_shared(struct fgit_index *idx, const char *path,
			const struct fgit_index_write_opts *opts, unsigned char *sum)
{
	struct fgit_buf dir = FGIT_BUF_INIT, tmp = FGIT_BUF_INIT, dst = FGIT_BUF_INIT;
	unsigned char *data = NULL;
	char hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid oid;
	size_t len = 0;
	int fd = -1, ret;

	if (opts->shared_index_dir) {
		ret = fgit_buf_adds(&dir, opts->shared_index_dir);
	} else {
		const char *slash = strrchr(path, '/');
		ret = slash ? fgit_buf_add(&dir, path, slash - path) : fgit_buf_adds(&dir, ".");
	}
	if (ret < 0 || (ret = fgit_buf_addf(&tmp, "%s/sharedindex_XXXXXX", dir.ptr)) < 0)
		goto out;
	if ((ret = serialize(&data, &len, idx, opts, SER_SHARED, NULL, sum, -1)) < 0)
		goto out;
	fd = mkstemp(tmp.ptr);
	if (fd < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to create '%s'", tmp.ptr);
		goto out;
	}
	if (fchmod(fd, 0644) < 0 || fgit_write_all(fd, data, len) < 0 || close(fd) < 0) {
		fd = -1;
		ret = fgit_error_errno(FGIT_ERROR, "unable to write '%s'", tmp.ptr);
		unlink(tmp.ptr);
		goto out;
	}
	fd = -1;
	fgit_oid_from_raw(&oid, sum, idx->algo);
	if ((ret = fgit_buf_addf(&dst, "%s/sharedindex.%s", dir.ptr,
				 fgit_oid_to_hex(hex, &oid))) < 0)
		goto out;
	if (rename(tmp.ptr, dst.ptr) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to rename '%s' to '%s'",
				       tmp.ptr, dst.ptr);
		unlink(tmp.ptr);
		goto out;
	}
	clean_shared(dir.ptr, hex, opts->shared_index_expire);
	ret = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.ptr);
	}
	if (ret == FGIT_ENOMEM && fgit_error_last_code() != FGIT_ENOMEM)
		fgit_error_set(FGIT_ENOMEM, "out of memory");
	free(data);
	fgit_buf_release(&dir);
	fgit_buf_release(&tmp);
	fgit_buf_release(&dst);
	return ret;
}

/* EWAH-encode the sorted bit positions (git's bit count: the last one + 1). */
static int ewah_encode(struct fgit_buf *out, const size_t *bits, size_t n)
{
	size_t nw = n ? bits[n - 1] / 64 + 1 : 0, i;
	uint64_t *w = calloc(nw ? nw : 1, sizeof(*w));
	int ret;

	if (!w)
		return FGIT_ENOMEM;
	for (i = 0; i < n; i++)
		w[bits[i] / 64] |= (uint64_t)1 << (bits[i] % 64);
	ret = fgit_ewah_write(out, w, nw, n ? (uint32_t)(bits[n - 1] + 1) : 0);
	free(w);
	return ret;
}

static int same_data(const struct fgit_index_entry *a, const struct fgit_index_entry *b)
{
	return a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->dev == b->dev && a->ino == b->ino && a->mode == b->mode &&
	       a->uid == b->uid && a->gid == b->gid && a->size == b->size &&
	       fgit_oid_equal(&a->oid, &b->oid) &&
	       (a->flags & FGIT_INDEX_ONDISK_FLAGS) == (b->flags & FGIT_INDEX_ONDISK_FLAGS);
}

static void front_release(struct front *fr, size_t nameless)
{
	size_t i;
	for (i = 0; i < nameless; i++)
		free(fr->entries[i]);
	free(fr->entries);
	fgit_buf_release(&fr->link);
}

/*
 * Compare idx with its shared index `base` (both sorted): 1 and *fr filled
 * when a front against base is the way to write, 0 when a new shared index
 * is due (splitIndex.maxPercentChange), negative on error.
 */
static int build_front(struct front *fr, size_t *nameless, struct fgit_index *idx,
		       const struct fgit_index *base, const struct fgit_index_write_opts *opts)
{
	size_t i = 0, j = 0, ndel = 0, nrep = 0, nnew = 0, k;
	size_t *del = NULL, *rep = NULL;
	struct fgit_index_entry **added = NULL;
	int max = opts->split_max_percent < 0 ? 20 : opts->split_max_percent, ret = 0;

	if (max == 0)
		return 0;
	del = malloc((base->nr + 1) * sizeof(*del));
	rep = malloc((base->nr + 1) * sizeof(*rep));
	added = malloc((idx->nr + 1) * sizeof(*added));
	fr->entries = malloc((idx->nr + 1) * sizeof(*fr->entries));
	if (!del || !rep || !added || !fr->entries) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	while (i < idx->nr || j < base->nr) {
		const struct fgit_index_entry *e = i < idx->nr ? idx->entries[i] : NULL;
		const struct fgit_index_entry *b = j < base->nr ? base->entries[j] : NULL;
		int c = !e ? 1 : !b ? -1 :
			index_entry_cmp(e->path, e->path_len, e->stage, b->path, b->path_len, b->stage);
		if (c < 0) {
			added[nnew++] = idx->entries[i++];
		} else if (c > 0) {
			del[ndel++] = j++;
		} else {
			/*
			 * Changed entries go to the front; so do racy ones,
			 * where their stat data can be smudged, and those the
			 * front already replaced when it was read (git keeps
			 * CE_UPDATE_IN_BASE on them).
			 */
			if (!same_data(e, b) || fgit_index_entry_is_racy(idx, e) ||
			    (e->internal & ENTRY_FROM_BASE)) {
				struct fgit_index_entry *n = malloc(sizeof(*n) + 1);
				if (!n) {
					ret = FGIT_ENOMEM;
					goto out;
				}
				memcpy(n, e, offsetof(struct fgit_index_entry, path_len));
				n->path_len = 0;
				n->path[0] = '\0';
				fr->entries[nrep] = n;
				rep[nrep++] = j;
				*nameless = nrep;
			}
			i++;
			j++;
		}
	}
	if (max != 100 && (uint64_t)idx->nr * max < (uint64_t)nnew * 100) {
		ret = 0;
		goto out;
	}
	for (k = 0; k < nnew; k++)
		fr->entries[nrep + k] = added[k];
	fr->nr = nrep + nnew;
	if (fgit_buf_add(&fr->link, idx->base_oid, fgit_hash_rawsz(idx->algo)) < 0 ||
	    ewah_encode(&fr->link, del, ndel) < 0 || ewah_encode(&fr->link, rep, nrep) < 0) {
		ret = FGIT_ENOMEM;
		goto out;
	}
	ret = 1;
out:
	if (ret == FGIT_ENOMEM)
		fgit_error_set(FGIT_ENOMEM, "out of memory");
	free(del);
	free(rep);
	free(added);
	return ret;
}

int fgit_index_write(struct fgit_index *idx, const char *path,
		     const struct fgit_index_write_opts *opts)
{
	struct fgit_lockfile *lk = NULL;
	int ret;

	if ((ret = fgit_lockfile_acquire(&lk, path, 0)) < 0)
		return ret;
	return fgit_index_write_locked(idx, lk, opts);
}

int fgit_index_write_locked(struct fgit_index *idx, struct fgit_lockfile *lk,
			    const struct fgit_index_write_opts *opts)
{
	static const struct fgit_index_write_opts defaults = FGIT_INDEX_WRITE_OPTS_INIT;
	const char *path = fgit_lockfile_target(lk);
	unsigned char sum[FGIT_MAX_RAWSZ];
	struct stat st;
	int ret;

	if (!opts)
		opts = &defaults;
	if ((opts->flags & FGIT_INDEX_WRITE_IF_UNCHANGED) && idx->have_file) {
		/* under the lock: is the file still the one we loaded? */
		size_t rawsz = fgit_hash_rawsz(idx->algo);
		unsigned char tail[FGIT_MAX_RAWSZ];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
		int same = rawsz <= sizeof(tail) && end >= (off_t)rawsz &&
			pread(fd, tail, rawsz, end - (off_t)rawsz) == (ssize_t)rawsz &&
			!memcmp(tail, idx->checksum, rawsz);
		if (fd >= 0)
			close(fd);
		if (!same) {
			ret = fgit_error_set(FGIT_ELOCKED, "'%s' changed since it was read", path);
			goto fail;
		}
	}
	if (opts->flags & FGIT_INDEX_WRITE_SPLIT) {
		struct front fr = { NULL, 0, FGIT_BUF_INIT };
		size_t nameless = 0;
		int incremental = 0;

		if ((ret = fgit_index_sort(idx)) < 0)
			goto fail;
		if (idx->has_base) {
			struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
			struct fgit_buf bp = FGIT_BUF_INIT;
			struct fgit_index *base = NULL;
			struct fgit_oid oid;
			char hex[FGIT_MAX_HEXSZ + 1];
			const char *slash = strrchr(path, '/');

			fgit_oid_from_raw(&oid, idx->base_oid, idx->algo);
			fgit_oid_to_hex(hex, &oid);
			if (opts->shared_index_dir)
				ret = fgit_buf_addf(&bp, "%s/sharedindex.%s", opts->shared_index_dir, hex);
			else if (slash)
				ret = fgit_buf_addf(&bp, "%.*s/sharedindex.%s", (int)(slash - path), path, hex);
			else
				ret = fgit_buf_addf(&bp, "sharedindex.%s", hex);
			lo.algo = idx->algo;
			lo.threads = 1;
			/* a shared index gone or unreadable: write a new one */
			if (!ret && !fgit_index_load(&base, bp.ptr, &lo) &&
			    !memcmp(base->checksum, idx->base_oid, fgit_hash_rawsz(idx->algo)))
				incremental = build_front(&fr, &nameless, idx, base, opts);
			fgit_index_free(base);
			fgit_buf_release(&bp);
			if (incremental < 0) {
				ret = incremental;
				front_release(&fr, nameless);
				goto fail;
			}
			if (!incremental) {
				front_release(&fr, nameless);
				memset(&fr, 0, sizeof(fr));
				nameless = 0;
			}
		}
		if (!incremental) {
			static const unsigned char empty_ewah[20] = { 0, 0, 0, 0, 0, 0, 0, 1 };
			if ((ret = write_shared(idx, path, opts, sum)) < 0) {
				front_release(&fr, nameless);
				goto fail;
			}
			fgit_buf_add(&fr.link, sum, fgit_hash_rawsz(idx->algo));
			fgit_buf_add(&fr.link, empty_ewah, sizeof(empty_ewah));
			if ((ret = fgit_buf_add(&fr.link, empty_ewah, sizeof(empty_ewah))) < 0) {
				front_release(&fr, nameless);
				goto fail;
			}
			memcpy(idx->base_oid, sum, fgit_hash_rawsz(idx->algo));
			idx->has_base = 1;
		}
		ret = serialize(NULL, NULL, idx, opts, SER_FRONT, &fr, idx->checksum,
				fgit_lockfile_fd(lk));
		front_release(&fr, nameless);
		if (ret < 0)
			goto fail;
	} else if ((ret = fgit_index_write_fd(idx, fgit_lockfile_fd(lk), opts)) < 0) {
		goto fail;
	}
	if (fstat(fgit_lockfile_fd(lk), &st) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "could not stat '%s'",
				       fgit_lockfile_lock_path(lk));
		goto fail;
	}
	if ((ret = fgit_lockfile_commit(lk)) < 0)
		goto out;
	idx->have_file = 1;
	idx->changed = 0;
	idx->mtime_sec = (uint32_t)st.st_mtim.tv_sec;
	idx->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	goto out;
fail:
	fgit_lockfile_rollback(lk);
out:
	return ret;
}
