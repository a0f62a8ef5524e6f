/* git's ways of saying things went wrong, for the CLI only. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void report(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	if (suffix)
		fprintf(stderr, "%s%s: %s\n", prefix, msg, suffix);
	else
		fprintf(stderr, "%s%s\n", prefix, msg);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("fatal: ", fmt, ap, NULL);
	va_end(ap);
	exit(128);
}

void die_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	report("fatal: ", fmt, ap, strerror(e));
	va_end(ap);
	exit(128);
}

void die_last(void)
{
	die("%s", fgit_error_last());
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("error: ", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int error_last(void)
{
	return error("%s", fgit_error_last());
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("warning: ", fmt, ap, NULL);
	va_end(ap);
}

void die_unimplemented(const char *cmd, const char *what)
{
	fflush(stdout);
	if (what)
		fprintf(stderr, "fatal: fgit %s: '%s' is not implemented yet\n", cmd, what);
	else
		fprintf(stderr, "fatal: fgit: '%s' is a git command that fgit does not implement yet\n", cmd);
	exit(129);
}

void cli_flush_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			exit(141);
		die_errno("write failure on standard output");
	}
}
