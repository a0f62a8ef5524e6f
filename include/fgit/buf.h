/*
 * fgit_buf — a growable byte buffer (in the manner of git's strbuf).
 *
 * Invariants: `ptr` is never NULL (an empty buffer points at a shared empty
 * string); ptr[len] is always NUL; the content may contain NULs; only
 * fgit_buf_detach() takes ownership of the memory.  A buffer is owned by one
 * thread at a time.  Functions that allocate return FGIT_ENOMEM (and set the
 * error) on failure, leaving the buffer as it was.
 */
#ifndef FGIT_BUF_H
#define FGIT_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct fgit_buf {
	char *ptr;
	size_t len;
	size_t alloc;		/* 0: ptr is the shared empty string */
};

extern char fgit_buf__empty[];
#define FGIT_BUF_INIT { fgit_buf__empty, 0, 0 }

void fgit_buf_init(struct fgit_buf *b, size_t hint);
/* Free the memory and reset to FGIT_BUF_INIT. */
void fgit_buf_release(struct fgit_buf *b);
/* Make room for `extra` more bytes beyond len. */
int fgit_buf_grow(struct fgit_buf *b, size_t extra);
/* Take the memory (malloc'd, NUL-terminated); the buffer is reset. */
char *fgit_buf_detach(struct fgit_buf *b, size_t *len_out);
int fgit_buf_add(struct fgit_buf *b, const void *data, size_t len);
int fgit_buf_adds(struct fgit_buf *b, const char *s);
int fgit_buf_addch(struct fgit_buf *b, int c);
int fgit_buf_addf(struct fgit_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fgit_buf_vaddf(struct fgit_buf *b, const char *fmt, va_list ap);
int fgit_buf_set(struct fgit_buf *b, const void *data, size_t len);
void fgit_buf_setlen(struct fgit_buf *b, size_t len);
static inline void fgit_buf_reset(struct fgit_buf *b) { fgit_buf_setlen(b, 0); }
/* Read a whole file (regular file or symlink target is NOT followed specially). */
int fgit_buf_read_file(struct fgit_buf *b, const char *path);
/* Read all of fd until EOF, appending. */
int fgit_buf_read_fd(struct fgit_buf *b, int fd, size_t hint);
void fgit_buf_rtrim(struct fgit_buf *b);

#endif
