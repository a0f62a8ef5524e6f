/*
 * libfgit — common definitions: error codes and the per-thread error message.
 *
 * Every library function that can fail returns int: 0 (or a non-negative
 * count) on success, a negative FGIT_E* code on failure.  The library never
 * prints and never exits; the failing call leaves a message in a per-thread
 * slot that the caller reads with fgit_error_last().  All functions here are
 * thread-safe.
 */
#ifndef FGIT_COMMON_H
#define FGIT_COMMON_H

#include <stddef.h>
#include <stdint.h>

enum fgit_error_code {
	FGIT_OK = 0,
	FGIT_ERROR = -1,	/* generic failure */
	FGIT_ENOTFOUND = -3,	/* object, ref, file, key does not exist */
	FGIT_EEXISTS = -4,	/* would overwrite */
	FGIT_EAMBIGUOUS = -5,	/* short id or name matches several */
	FGIT_ELOCKED = -14,	/* a .lock file is held by someone else */
	FGIT_EINVALID = -20,	/* corrupt or malformed input */
	FGIT_ECOLLISION = -21,	/* SHA-1 collision attack detected */
	FGIT_ENOMEM = -22,	/* out of memory */
	FGIT_ENOTSUPP = -23,	/* valid input that fgit does not handle yet */
};

/*
 * The message of the last error set on this thread (never NULL; "" when
 * none).  Borrowed: valid until the next library call on this thread.
 */
const char *fgit_error_last(void);

/* The code of the last error set on this thread. */
int fgit_error_last_code(void);

/*
 * Set this thread's error message (printf-style) and return `code`, so an
 * error path reads `return fgit_error_set(FGIT_EINVALID, "bad %s", x);`.
 */
int fgit_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like fgit_error_set, appending ": strerror(errno)". */
int fgit_error_errno(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Clear this thread's error. */
void fgit_error_clear(void);

/*
 * Write all len bytes to fd, retrying short writes and EINTR.  Returns 0,
 * or -1 with errno set (EIO when write() made no progress); the caller
 * words the error, as each knows what it was writing.
 */
int fgit_write_all(int fd, const void *data, size_t len);

/*
 * calloc(n, size) for big arrays: from 1 MiB on, on 2 MiB-aligned memory
 * advised for transparent huge pages (a fault per 2 MiB instead of per
 * 4 KiB).  Freed with free().  NULL when out of memory or n * size
 * overflows.
 */
void *fgit_calloc_huge(size_t n, size_t size);

#endif
