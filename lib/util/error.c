/*
 * Per-thread error slot.  The library reports failures by return code and
 * leaves the text here; the CLI turns it into git's "fatal:"/"error:" lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fgit/common.h"

static _Thread_local char err_msg[1024];
static _Thread_local int err_code;

const char *fgit_error_last(void)
{
	return err_msg;
}

int fgit_error_last_code(void)
{
	return err_code;
}

static void vset(const char *fmt, va_list ap, int with_errno, int saved_errno)
{
	int n = vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(err_msg))
		n = sizeof(err_msg) - 1;
	if (with_errno)
		snprintf(err_msg + n, sizeof(err_msg) - n, ": %s",
			 strerror(saved_errno));
}

int fgit_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap, 0, 0);
	va_end(ap);
	err_code = code;
	return code;
}

int fgit_error_errno(int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap, 1, saved);
	va_end(ap);
	err_code = code;
	errno = saved;
	return code;
}

void fgit_error_clear(void)
{
	err_msg[0] = '\0';
	err_code = 0;
}
