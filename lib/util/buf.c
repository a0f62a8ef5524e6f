/* fgit_buf: see include/fgit/buf.h for the invariants. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"

char fgit_buf__empty[1];

void fgit_buf_init(struct fgit_buf *b, size_t hint)
{
	b->ptr = fgit_buf__empty;
	b->len = b->alloc = 0;
	if (hint)
		fgit_buf_grow(b, hint);
}

void fgit_buf_release(struct fgit_buf *b)
{
	if (b->alloc)
		free(b->ptr);
	b->ptr = fgit_buf__empty;
	b->len = b->alloc = 0;
}

int fgit_buf_grow(struct fgit_buf *b, size_t extra)
{
	size_t need, n;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		return fgit_error_set(FGIT_ENOMEM, "buffer size overflow");
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	n = b->alloc ? b->alloc : 64;
	while (n < need)
		n = n < SIZE_MAX / 2 ? n * 2 : need;
	p = realloc(b->alloc ? b->ptr : NULL, n);
	if (!p)
		return fgit_error_set(FGIT_ENOMEM, "out of memory allocating %zu bytes", n);
	if (!b->alloc)
		p[0] = '\0';
	b->ptr = p;
	b->alloc = n;
	return 0;
}

char *fgit_buf_detach(struct fgit_buf *b, size_t *len_out)
{
	char *p;
	if (len_out)
		*len_out = b->len;
	if (!b->alloc) {
		p = calloc(1, 1);
	} else {
		p = b->ptr;
	}
	b->ptr = fgit_buf__empty;
	b->len = b->alloc = 0;
	return p;
}

int fgit_buf_add(struct fgit_buf *b, const void *data, size_t len)
{
	if (fgit_buf_grow(b, len))
		return FGIT_ENOMEM;
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int fgit_buf_adds(struct fgit_buf *b, const char *s)
{
	return fgit_buf_add(b, s, strlen(s));
}

int fgit_buf_addch(struct fgit_buf *b, int c)
{
	if (fgit_buf_grow(b, 1))
		return FGIT_ENOMEM;
	b->ptr[b->len++] = (char)c;
	b->ptr[b->len] = '\0';
	return 0;
}

int fgit_buf_vaddf(struct fgit_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (fgit_buf_grow(b, 64))
		return FGIT_ENOMEM;
	va_copy(cp, ap);
	n = vsnprintf(b->ptr + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return fgit_error_set(FGIT_ERROR, "bad format string");
	if ((size_t)n >= b->alloc - b->len) {
		if (fgit_buf_grow(b, (size_t)n))
			return FGIT_ENOMEM;
		va_copy(cp, ap);
		vsnprintf(b->ptr + b->len, b->alloc - b->len, fmt, cp);
		va_end(cp);
	}
	b->len += (size_t)n;
	return 0;
}

int fgit_buf_addf(struct fgit_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = fgit_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

int fgit_buf_set(struct fgit_buf *b, const void *data, size_t len)
{
	fgit_buf_setlen(b, 0);
	return fgit_buf_add(b, data, len);
}

void fgit_buf_setlen(struct fgit_buf *b, size_t len)
{
	if (!b->alloc)
		return;
	b->len = len;
	b->ptr[len] = '\0';
}

int fgit_buf_read_fd(struct fgit_buf *b, int fd, size_t hint)
{
	size_t old = b->len;
	if (fgit_buf_grow(b, hint ? hint : 8192))
		return FGIT_ENOMEM;
	for (;;) {
		ssize_t n;
		if (b->alloc - b->len - 1 < 4096 &&
		    fgit_buf_grow(b, b->alloc)) {
			fgit_buf_setlen(b, old);
			return FGIT_ENOMEM;
		}
		n = read(fd, b->ptr + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fgit_buf_setlen(b, old);
			return fgit_error_errno(FGIT_ERROR, "read error");
		}
		if (!n)
			break;
		b->len += (size_t)n;
	}
	b->ptr[b->len] = '\0';
	return 0;
}

int fgit_buf_read_file(struct fgit_buf *b, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	if (fd < 0)
		return fgit_error_errno(errno == ENOENT ? FGIT_ENOTFOUND : FGIT_ERROR,
					"could not open '%s'", path);
	r = fgit_buf_read_fd(b, fd, fstat(fd, &st) == 0 ? (size_t)st.st_size + 1 : 0);
	close(fd);
	return r;
}

void fgit_buf_rtrim(struct fgit_buf *b)
{
	while (b->len && (b->ptr[b->len - 1] == ' ' || b->ptr[b->len - 1] == '\t' ||
			  b->ptr[b->len - 1] == '\n' || b->ptr[b->len - 1] == '\r'))
		b->len--;
	if (b->alloc)
		b->ptr[b->len] = '\0';
}
