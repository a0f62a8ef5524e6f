/*
 * One big object streamed into a pack of its own, as git 2.39 stores a
 * file above core.bigFileThreshold (its "bulk check-in"): the file is read
 * once in fixed pieces that are named (collision-detecting SHA-1) and
 * deflated in the same pass, so memory stays bounded however big the file
 * is, and what is stored is exactly what was named.  The pack says it holds
 * one object; its name is its trailer, its .idx is version 2; both are
 * written to temporary files and renamed into place, the pack first.  An
 * object the repository already has leaves nothing behind.
 *
 * zlib, not libdeflate, deflates here: libdeflate needs the whole input at
 * once.  With git's level and zlib's defaults the pack's bytes (and so its
 * name) are git's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "pack/pack_internal.h"

#define PIECE (16u << 10)	/* git's buffers: see stream_object */

struct one_entry {
	const struct fgit_oid *oid;
	uint32_t crc;
};

static const unsigned char *one_oid(const void *ctx, uint32_t i)
{
	return ((const struct one_entry *)ctx)->oid->hash;
}

static uint64_t one_offset(const void *ctx, uint32_t i)
{
	return 12;	/* right after the pack header */
}

static uint32_t one_crc(const void *ctx, uint32_t i)
{
	return ((const struct one_entry *)ctx)->crc;
}

/*
 * Read the object's bytes from fd into the pack, naming them on the way.
 * At level 0 zlib cuts stored blocks to the room left in the output
 * buffer, so the pack's bytes depend on how deflate() is called: as git
 * does, 16 KiB buffers, input refilled only when used up, Z_FINISH from
 * the moment the last piece is read, output written only when the buffer
 * is full or the stream ends.
 */
static int stream_object(struct pack_writer *w, struct fgit_hash_ctx *hc, uint32_t *crc,
			 int fd, uint64_t size, int level, const char *path)
{
	unsigned char in[PIECE], out[PIECE];
	uint64_t left = size;
	z_stream zs;
	int ret = 0, zr = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, level) != Z_OK)
		return fgit_error_set(FGIT_ENOMEM, "unable to start deflate");
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	while (zr != Z_STREAM_END) {
		if (left && !zs.avail_in) {
			size_t want = left < PIECE ? (size_t)left : PIECE, got = 0;
			ssize_t n = 1;
			while (got < want && n > 0) {
				n = read(fd, in + got, want - got);
				if (n < 0 && errno == EINTR)
					n = 1;
				else if (n > 0)
					got += (size_t)n;
			}
			if (got < want) {
				ret = n == 0
					? fgit_error_set(FGIT_ERROR, "failed to read %d bytes from '%s'",
							 (int)want, path)
					: fgit_error_errno(FGIT_ERROR, "failed to read from '%s'", path);
				break;
			}
			fgit_objname_update(hc, in, want);
			left -= want;
			zs.next_in = in;
			zs.avail_in = (uInt)want;
		}
		zr = deflate(&zs, left ? Z_NO_FLUSH : Z_FINISH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			ret = fgit_error_set(FGIT_ERROR, "unable to deflate new object");
			break;
		}
		if (!zs.avail_out || zr == Z_STREAM_END) {
			if ((ret = pw_put(w, out, sizeof(out) - zs.avail_out, crc)) < 0)
				break;
			zs.next_out = out;
			zs.avail_out = sizeof(out);
		}
	}
	deflateEnd(&zs);
	return ret;
}

int fgit_pack_write_fd(struct fgit_oid *out, struct fgit_odb *odb, enum fgit_object_type type,
		       int fd, uint64_t size, int level, const char *path)
{
	struct fgit_buf tmp = FGIT_BUF_INIT, dst = FGIT_BUF_INIT, idx = FGIT_BUF_INIT;
	struct pack_writer w = { -1, NULL, 0, 0, 0, { 0 } };
	struct fgit_idx_options iopts = FGIT_IDX_OPTIONS_INIT;
	struct fgit_hash_ctx hc;
	struct one_entry e;
	struct idx_src src;
	struct fgit_oid oid, packname = { { 0 }, 0 };
	unsigned char hdr[16];
	char hex[FGIT_MAX_HEXSZ + 1];
	int pfd = -1, ret, hl;
	size_t rawsz = fgit_hash_rawsz(fgit_odb_algo(odb));

	if (level < 0 || level > 9)
		level = Z_DEFAULT_COMPRESSION;
	fgit_buf_addf(&tmp, "%s/pack/tmp_pack_XXXXXX", fgit_odb_path(odb));
	if ((pfd = mkstemp(tmp.ptr)) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to create temporary file '%s'", tmp.ptr);
		fgit_buf_setlen(&tmp, 0);
		goto out;
	}
	if ((ret = pw_init(&w, pfd, fgit_odb_algo(odb))) < 0 ||
	    (ret = pw_put_pack_header(&w, 1)) < 0)
		goto out;
	e.crc = (uint32_t)crc32(0, NULL, 0);
	hl = pack_obj_header(hdr, type, size);
	if ((ret = pw_put(&w, hdr, (size_t)hl, &e.crc)) < 0)
		goto out;
	fgit_objname_init_header(&hc, fgit_odb_algo(odb), type, size);
	if ((ret = stream_object(&w, &hc, &e.crc, fd, size, level, path)) < 0 ||
	    (ret = fgit_objname_final(&oid, &hc)) < 0)
		goto out;
	if (fgit_odb_exists(odb, &oid)) {	/* git keeps no second copy */
		*out = oid;
		goto out;
	}
	if ((ret = pw_finish(&w, packname.hash, rawsz)) < 0)
		goto out;
	if (fchmod(pfd, 0444) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to chmod '%s'", tmp.ptr);
		goto out;
	}
	if (close(pfd) < 0) {
		pfd = -1;
		ret = fgit_error_errno(FGIT_ERROR, "unable to write '%s'", tmp.ptr);
		goto out;
	}
	pfd = -1;
	fgit_buf_addf(&dst, "%s/pack/pack-", fgit_odb_path(odb));
	packname.algo = fgit_odb_algo(odb);
	fgit_buf_add(&dst, fgit_oid_to_hex(hex, &packname), 2 * rawsz);
	fgit_buf_add(&dst, ".pack", 5);
	if (rename(tmp.ptr, dst.ptr) < 0) {
		ret = fgit_error_errno(FGIT_ERROR, "unable to rename temporary '*.pack' file to '%s'",
				       dst.ptr);
		goto out;
	}
	fgit_buf_setlen(&tmp, 0);	/* nothing to remove any more */
	e.oid = &oid;
	src.nr = 1;
	src.pack_hash = packname.hash;
	src.oid = one_oid;
	src.offset = one_offset;
	src.crc = one_crc;
	src.ctx = &e;
	fgit_buf_setlen(&dst, dst.len - 5);
	fgit_buf_add(&dst, ".idx", 4);
	if ((ret = pack_idx_write(&idx, &src, &iopts)) < 0 ||
	    (ret = fgit_pack_write_file(dst.ptr, idx.ptr, idx.len, 0444)) < 0)
		goto out;
	*out = oid;
	ret = 0;
out:
	if (pfd >= 0)
		close(pfd);
	if (tmp.len)
		unlink(tmp.ptr);
	pw_release(&w);
	fgit_buf_release(&tmp);
	fgit_buf_release(&dst);
	fgit_buf_release(&idx);
	return ret;
}
