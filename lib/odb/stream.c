/*
 * Streaming reads for objects too big to hold: loose objects are inflated
 * from the file as the caller reads, undeltified packed objects from the
 * pack mapping; anything else (deltas, alternates) is read whole first.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "odb/odb_internal.h"

enum stream_kind { ST_MEM, ST_LOOSE, ST_PACK };

struct fgit_odb_stream {
	enum stream_kind kind;
	unsigned char *mem;
	size_t mem_len, mem_pos;
	int fd;
	z_stream zs;
	int z_ready;
	uint64_t left;			/* body bytes still to produce */
	unsigned char pend[64];		/* body bytes inflated with the header */
	size_t pend_len, pend_pos;
	char what[4200];		/* "packed object X (stored in P)" */
	unsigned char in[65536];
};

void fgit_odb_stream_free(struct fgit_odb_stream *s)
{
	if (!s)
		return;
	if (s->z_ready)
		inflateEnd(&s->zs);
	if (s->fd >= 0)
		close(s->fd);
	free(s->mem);
	free(s);
}

static int refill(struct fgit_odb_stream *s)
{
	ssize_t n;
	if (s->kind != ST_LOOSE || s->zs.avail_in)
		return 0;
	do
		n = read(s->fd, s->in, sizeof(s->in));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fgit_error_errno(FGIT_ERROR, "read error on loose object");
	s->zs.next_in = s->in;
	s->zs.avail_in = (uInt)n;
	return 0;
}

static int open_loose(struct fgit_odb_stream *s, enum fgit_object_type *type,
		      uint64_t *size, struct fgit_odb *odb, const struct fgit_oid *oid)
{
	char path[4096], hex[FGIT_MAX_HEXSZ + 1];
	unsigned char hdr[64];
	int zr, n, r;

	odb_loose_path(path, sizeof(path), odb, oid);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return FGIT_ENOTFOUND;
	if (inflateInit(&s->zs) != Z_OK)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	s->z_ready = 1;
	s->kind = ST_LOOSE;
	s->zs.next_out = hdr;
	s->zs.avail_out = sizeof(hdr);
	do {
		if ((r = refill(s)) < 0)
			return r;
		if (!s->zs.avail_in)
			break;
		zr = inflate(&s->zs, Z_SYNC_FLUSH);
	} while ((zr == Z_OK) && s->zs.avail_out &&
		 !memchr(hdr, 0, sizeof(hdr) - s->zs.avail_out));
	fgit_oid_to_hex(hex, oid);
	n = odb_parse_loose_header(hdr, sizeof(hdr) - s->zs.avail_out, type, size);
	if (n < 0 || *type == FGIT_OBJ_BAD)
		return fgit_error_set(FGIT_EINVALID, "loose object %s (stored in %s) is corrupt"
				      " (unable to unpack header of %s)", hex, path, path);
	s->pend_len = sizeof(hdr) - s->zs.avail_out - (size_t)n;
	memcpy(s->pend, hdr + n, s->pend_len);
	if (s->pend_len > *size)
		return fgit_error_set(FGIT_EINVALID, "loose object %s (stored in %s) is corrupt"
				      " (object is longer than its header says)", hex, path);
	s->left = *size - s->pend_len;
	snprintf(s->what, sizeof(s->what), "loose object %s (stored in %s)", hex, path);
	return 0;
}

int fgit_odb_stream_open(struct fgit_odb_stream **out, enum fgit_object_type *type_out,
			 uint64_t *size_out, struct fgit_odb *odb,
			 const struct fgit_oid *oid)
{
	struct fgit_odb_stream *s = calloc(1, sizeof(*s));
	enum fgit_object_type type;
	uint64_t size;
	struct pack *p;
	uint64_t off;
	int r;

	if (!s)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	s->fd = -1;
	if ((r = odb_find_packed(&p, &off, odb, oid)) < 0)
		goto fail;
	if (r) {
		const unsigned char *z;
		size_t zavail;
		if ((r = pack_entry_raw(p, off, &type, &size, &z, &zavail)) < 0)
			goto fail;
		if (type >= FGIT_OBJ_COMMIT && type <= FGIT_OBJ_TAG) {
			if (inflateInit(&s->zs) != Z_OK) {
				r = fgit_error_set(FGIT_ENOMEM, "out of memory");
				goto fail;
			}
			s->z_ready = 1;
			s->kind = ST_PACK;
			{
				char hex[FGIT_MAX_HEXSZ + 1];
				snprintf(s->what, sizeof(s->what), "packed object %s (stored in %s)",
					 fgit_oid_to_hex(hex, oid), p->pack_path);
			}
			s->zs.next_in = (unsigned char *)z;
			s->zs.avail_in = zavail > UINT32_MAX ? UINT32_MAX : (uInt)zavail;
			s->left = size;
			goto done;
		}
	} else {
		r = open_loose(s, &type, &size, odb, oid);
		if (r == 0)
			goto done;
		if (r != FGIT_ENOTFOUND)
			goto fail;
		if (s->z_ready)
			inflateEnd(&s->zs);
		s->z_ready = 0;
	}
	{
		void *buf;
		size_t len;
		if ((r = fgit_odb_read(&buf, &len, &type, odb, oid)) < 0)
			goto fail;
		s->kind = ST_MEM;
		s->mem = buf;
		s->mem_len = len;
		size = len;
	}
done:
	*type_out = type;
	*size_out = size;
	*out = s;
	return 0;
fail:
	fgit_odb_stream_free(s);
	return r;
}

long fgit_odb_stream_read(struct fgit_odb_stream *s, void *buf, size_t len)
{
	unsigned char *o = buf;
	size_t done = 0;
	int zr, r;

	if (len > LONG_MAX)
		len = LONG_MAX;
	if (s->kind == ST_MEM) {
		size_t n = s->mem_len - s->mem_pos;
		if (n > len)
			n = len;
		memcpy(buf, s->mem + s->mem_pos, n);
		s->mem_pos += n;
		return (long)n;
	}
	if (s->pend_pos < s->pend_len) {
		size_t n = s->pend_len - s->pend_pos;
		if (n > len)
			n = len;
		memcpy(o, s->pend + s->pend_pos, n);
		s->pend_pos += n;
		return (long)n;
	}
	if (!s->left || !len)
		return 0;
	if (len > s->left)
		len = (size_t)s->left;
	if (len > UINT32_MAX)
		len = UINT32_MAX;
	s->zs.next_out = o;
	s->zs.avail_out = (uInt)len;
	while (s->zs.avail_out) {
		if ((r = refill(s)) < 0)
			return r;
		zr = inflate(&s->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK)
			return fgit_error_set(FGIT_EINVALID, "%s is corrupt (inflate: data stream error"
					      " (%s))", s->what, s->zs.msg ? s->zs.msg : "corrupt object");
	}
	done = len - s->zs.avail_out;
	s->left -= done;
	if (!done && s->left)
		return fgit_error_set(FGIT_EINVALID, "%s is corrupt (object is truncated)", s->what);
	return (long)done;
}
