/*
 * The indexer on packs built here: many delta trees (OFS and REF deltas,
 * chains and siblings) resolved by several threads must name every object
 * as hashing its content directly does, identically for 1 and 4 threads;
 * the .idx it writes must parse back to the same entries.  Runs under
 * ThreadSanitizer (make tsan).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/pack.h"

#define ROOTS 40
#define DEPTH 12
#define MAXOBJ (ROOTS * (1 + DEPTH * 2))

struct obj {
	unsigned char *data;
	size_t len;
	struct fgit_oid oid;
	uint64_t offset;
};

static struct obj objs[MAXOBJ];
static int nobj;

static void put_hdr(struct fgit_buf *b, int type, size_t size)
{
	unsigned char c = (unsigned char)(type << 4 | (size & 15));
	size >>= 4;
	while (size) {
		fgit_buf_addch(b, c | 0x80);
		c = size & 0x7f;
		size >>= 7;
	}
	fgit_buf_addch(b, c);
}

static void put_varint(struct fgit_buf *b, size_t n)
{
	do {
		unsigned char c = n & 0x7f;
		n >>= 7;
		fgit_buf_addch(b, c | (n ? 0x80 : 0));
	} while (n);
}

static void put_ofs(struct fgit_buf *b, uint64_t rel)
{
	unsigned char tmp[16];
	int i = 15;
	tmp[i] = rel & 0x7f;
	while (rel >>= 7) {
		rel--;
		tmp[--i] = 0x80 | (rel & 0x7f);
	}
	fgit_buf_add(b, tmp + i, (size_t)(16 - i));
}

static void put_zlib(struct fgit_buf *b, const void *data, size_t len)
{
	uLongf n = compressBound(len);
	fgit_buf_grow(b, n);
	compress2((Bytef *)b->ptr + b->len, &n, data, len, 6);
	fgit_buf_setlen(b, b->len + n);
}

/* A delta from base: copy its first half, insert a few new bytes, copy the rest. */
static void make_delta(struct fgit_buf *d, struct obj *out, const struct obj *base, int salt)
{
	size_t half = base->len / 2;
	char ins[64];
	int n = snprintf(ins, sizeof(ins), "inserted %d\n", salt);

	out->len = base->len + (size_t)n;
	out->data = malloc(out->len);
	memcpy(out->data, base->data, half);
	memcpy(out->data + half, ins, (size_t)n);
	memcpy(out->data + half + n, base->data + half, base->len - half);
	fgit_buf_reset(d);
	put_varint(d, base->len);
	put_varint(d, out->len);
	/* copy [0, half): offset 0, size half (< 64 KiB here) */
	fgit_buf_addch(d, 0x80 | 0x10 | 0x20);
	fgit_buf_addch(d, half & 0xff);
	fgit_buf_addch(d, (half >> 8) & 0xff);
	fgit_buf_addch(d, n);
	fgit_buf_add(d, ins, (size_t)n);
	fgit_buf_addch(d, 0x80 | 0x01 | 0x02 | 0x10 | 0x20);
	fgit_buf_addch(d, half & 0xff);
	fgit_buf_addch(d, (half >> 8) & 0xff);
	fgit_buf_addch(d, (base->len - half) & 0xff);
	fgit_buf_addch(d, ((base->len - half) >> 8) & 0xff);
	fgit_hash_object(&out->oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, out->data, out->len);
}

/* Write the pack to a temporary file; returns its fd. */
static int build_pack(int drop_base)
{
	struct fgit_buf p = FGIT_BUF_INIT, d = FGIT_BUF_INIT;
	struct fgit_hash_ctx c;
	unsigned char sum[20];
	char path[] = "/tmp/fgit-unit-pack-XXXXXX";
	int r, k, fd;
	uint32_t count;

	nobj = 0;
	fgit_buf_add(&p, "PACK\0\0\0\2\0\0\0\0", 12);
	for (r = 0; r < ROOTS; r++) {
		struct obj *root = &objs[nobj++];
		int chain_tip;
		struct fgit_buf body = FGIT_BUF_INIT;
		for (k = 0; k < 50 + r * 7; k++)
			fgit_buf_addf(&body, "root %d line %d\n", r, k);
		root->len = body.len;
		root->data = (unsigned char *)fgit_buf_detach(&body, NULL);
		fgit_hash_object(&root->oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, root->data, root->len);
		root->offset = p.len;
		if (!(drop_base && r == 3)) {
			put_hdr(&p, FGIT_OBJ_BLOB, root->len);
			put_zlib(&p, root->data, root->len);
		}
		chain_tip = nobj - 1;
		for (k = 0; k < DEPTH; k++) {
			/* a chain link (OFS) and a sibling off the same base (REF on odd roots) */
			struct obj *base = &objs[chain_tip], *o = &objs[nobj++];
			make_delta(&d, o, base, r * 100 + k);
			o->offset = p.len;
			if (drop_base && r == 3) {
				put_hdr(&p, FGIT_OBJ_REF_DELTA, d.len);
				fgit_buf_add(&p, base->oid.hash, 20);
			} else {
				put_hdr(&p, FGIT_OBJ_OFS_DELTA, d.len);
				put_ofs(&p, o->offset - base->offset);
			}
			put_zlib(&p, d.ptr, d.len);
			o = &objs[nobj++];
			make_delta(&d, o, base, r * 100 + k + 50);
			o->offset = p.len;
			if (r & 1) {
				put_hdr(&p, FGIT_OBJ_REF_DELTA, d.len);
				fgit_buf_add(&p, base->oid.hash, 20);
			} else {
				put_hdr(&p, FGIT_OBJ_OFS_DELTA, d.len);
				put_ofs(&p, o->offset - base->offset);
			}
			put_zlib(&p, d.ptr, d.len);
			chain_tip = nobj - 2;
		}
	}
	count = (uint32_t)nobj - (drop_base ? 1 : 0);
	p.ptr[8] = (char)(count >> 24);
	p.ptr[9] = (char)(count >> 16);
	p.ptr[10] = (char)(count >> 8);
	p.ptr[11] = (char)count;
	fgit_checksum_init(&c, FGIT_HASH_SHA1);
	fgit_checksum_update(&c, p.ptr, p.len);
	fgit_checksum_final(sum, &c);
	fgit_buf_add(&p, sum, 20);
	fd = mkstemp(path);
	if (fd >= 0) {
		unlink(path);
		if (write(fd, p.ptr, p.len) != (ssize_t)p.len) {
			close(fd);
			fd = -1;
		}
	}
	fgit_buf_release(&p);
	fgit_buf_release(&d);
	return fd;
}

static void free_objs(void)
{
	int i;
	for (i = 0; i < nobj; i++)
		free(objs[i].data);
	nobj = 0;
}

static int find_offset(uint64_t off)
{
	int i;
	for (i = 0; i < nobj; i++)
		if (objs[i].offset == off)
			return i;
	return -1;
}

struct seen {
	int n, bad;
};

static int check_idx_entry(const struct fgit_idx_entry *e, int has_crc, void *payload)
{
	struct seen *s = payload;
	int i = find_offset(e->offset);
	if (i < 0 || !fgit_oid_equal(&objs[i].oid, &e->oid) || !has_crc)
		s->bad++;
	s->n++;
	return 0;
}

static void run(int nthreads)
{
	struct fgit_index_pack_options opts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_indexer *ix = NULL;
	struct fgit_buf idx = FGIT_BUF_INIT;
	struct seen s = { 0, 0 };
	uint32_t i;
	int fd = build_pack(0);

	CHECK(fd >= 0);
	lseek(fd, 0, SEEK_SET);
	opts.nthreads = nthreads;
	opts.flags = FGIT_INDEX_PACK_STATS;
	CHECK_MSG(fgit_indexer_run(&ix, fd, -1, &opts) == 0, "%s", fgit_error_last());
	close(fd);
	CHECK(fgit_indexer_count(ix) == (uint32_t)nobj);
	for (i = 0; i < fgit_indexer_count(ix); i++) {
		struct fgit_pack_entry_info e;
		int k;
		fgit_indexer_entry(&e, ix, i);
		k = find_offset(e.offset);
		CHECK(k >= 0);
		CHECK_MSG(fgit_oid_equal(&e.oid, &objs[k].oid), "object %d misnamed", k);
		CHECK(e.type == FGIT_OBJ_BLOB);
	}
	CHECK(fgit_indexer_idx(&idx, ix, NULL, 1) == 0);
	CHECK(fgit_idx_parse((const unsigned char *)idx.ptr, idx.len, FGIT_HASH_SHA1,
			     check_idx_entry, &s) == 0);
	CHECK(s.n == nobj && s.bad == 0);
	fgit_buf_release(&idx);
	fgit_indexer_free(ix);
	free_objs();
}

TEST(index, one_thread)
{
	run(1);
}

TEST(index, four_threads)
{
	run(4);
}

TEST(index, missing_base_is_unresolved)
{
	struct fgit_index_pack_options opts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_indexer *ix = NULL;
	int fd = build_pack(1), ret;
	char want[64];

	CHECK(fd >= 0);
	lseek(fd, 0, SEEK_SET);
	opts.nthreads = 3;
	ret = fgit_indexer_run(&ix, fd, -1, &opts);
	close(fd);
	/* root 3 is gone: its 2 * DEPTH deltas cannot be resolved */
	snprintf(want, sizeof(want), "pack has %d unresolved deltas", 2 * DEPTH);
	CHECK(ret == FGIT_EINVALID);
	CHECK_MSG(!strcmp(fgit_error_last(), want), "got '%s'", fgit_error_last());
	CHECK(ix == NULL);
	free_objs();
}

TEST(index, truncated_everywhere)
{
	/* Every prefix of a small pack is refused cleanly, never accepted. */
	struct fgit_index_pack_options opts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_buf all = FGIT_BUF_INIT;
	int fd = build_pack(0);
	off_t size = lseek(fd, 0, SEEK_END);
	size_t cut;

	CHECK(fd >= 0);
	lseek(fd, 0, SEEK_SET);
	CHECK(fgit_buf_read_fd(&all, fd, (size_t)size) == 0);
	close(fd);
	opts.nthreads = 2;
	for (cut = 0; cut < all.len; cut += 1 + cut / 3) {
		struct fgit_indexer *ix = NULL;
		char path[] = "/tmp/fgit-unit-cut-XXXXXX";
		int t = mkstemp(path);
		CHECK(t >= 0);
		unlink(path);
		CHECK(write(t, all.ptr, cut) == (ssize_t)cut);
		lseek(t, 0, SEEK_SET);
		CHECK_MSG(fgit_indexer_run(&ix, t, -1, &opts) < 0, "prefix %zu accepted", cut);
		close(t);
	}
	fgit_buf_release(&all);
	free_objs();
}

struct feeder {
	int fd;
	const char *data;
	size_t len;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;
	size_t off = 0;
	/* small writes, so the reader sees the pack arrive piecemeal */
	while (off < f->len) {
		size_t n = f->len - off < 3000 ? f->len - off : 3000;
		ssize_t w = write(f->fd, f->data + off, n);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

TEST(index, from_a_pipe_with_copy)
{
	struct fgit_index_pack_options opts = FGIT_INDEX_PACK_OPTIONS_INIT;
	struct fgit_indexer *ix = NULL;
	struct fgit_buf all = FGIT_BUF_INIT;
	struct feeder f;
	pthread_t t;
	int fd = build_pack(0), pfd[2], copy;
	char path[] = "/tmp/fgit-unit-copy-XXXXXX";
	uint32_t i;

	CHECK(fd >= 0);
	lseek(fd, 0, SEEK_SET);
	CHECK(fgit_buf_read_fd(&all, fd, 0) == 0);
	close(fd);
	CHECK(pipe(pfd) == 0);
	copy = mkstemp(path);
	CHECK(copy >= 0);
	unlink(path);
	f.fd = pfd[1];
	f.data = all.ptr;
	f.len = all.len;
	CHECK(pthread_create(&t, NULL, feed, &f) == 0);
	opts.nthreads = 3;
	CHECK_MSG(fgit_indexer_run(&ix, pfd[0], copy, &opts) == 0, "%s", fgit_error_last());
	pthread_join(t, NULL);
	close(pfd[0]);
	close(copy);
	for (i = 0; i < fgit_indexer_count(ix); i++) {
		struct fgit_pack_entry_info e;
		int k;
		fgit_indexer_entry(&e, ix, i);
		k = find_offset(e.offset);
		CHECK(k >= 0 && fgit_oid_equal(&e.oid, &objs[k].oid));
	}
	fgit_indexer_free(ix);
	fgit_buf_release(&all);
	free_objs();
}
