/* Shared by the ref unit tests: a scratch git dir and a file writer. */
#ifndef FGIT_TEST_REFS_HELPERS_H
#define FGIT_TEST_REFS_HELPERS_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "fgit/buf.h"

static char dir[64];

/* Write dir/name (creating its directories) with content. */
static void put(const char *name, const char *content)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	FILE *f;
	char *slash;
	fgit_buf_addf(&p, "%s/%s", dir, name);
	for (slash = strchr(p.ptr + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p.ptr, 0777);
		*slash = '/';
	}
	f = fopen(p.ptr, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
	fgit_buf_release(&p);
}

#endif
