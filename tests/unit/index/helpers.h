/*
 * Shared by the index tests and tests/tools/index-tool.c: print an index
 * the way `git ls-files -s --debug` does, run git in a scratch repository,
 * capture its output.
 */
#ifndef FGIT_TEST_INDEX_HELPERS_H
#define FGIT_TEST_INDEX_HELPERS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/index.h"
#include "fgit/oid.h"

/* The flags word git prints: its in-memory ce_flags for an entry read from disk. */
static inline unsigned int debug_flags(const struct fgit_index_entry *e)
{
	unsigned int f = (unsigned)e->stage << 12;
	if (e->flags & FGIT_INDEX_ASSUME_VALID)
		f |= 0x8000;
	if (e->flags & (FGIT_INDEX_SKIP_WORKTREE | FGIT_INDEX_INTENT_TO_ADD))
		f |= 0x4000;
	if (e->flags & FGIT_INDEX_SKIP_WORKTREE)
		f |= 1u << 30;
	if (e->flags & FGIT_INDEX_INTENT_TO_ADD)
		f |= 1u << 29;
	/*
	 * git marks shared-index entries that the split front replaced with
	 * CE_UPDATE_IN_BASE (1 << 27); lib/index records that in bit 0x4
	 * of `internal` (lib/index/index_internal.h, ENTRY_FROM_BASE).
	 */
	if (e->internal & 0x4)
		f |= 1u << 27;
	return f;
}

/* Paths are printed raw: tests use names git does not quote. */
static inline void dump_entry(struct fgit_buf *out, const struct fgit_index_entry *e)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	fgit_buf_addf(out, "%06o %s %u\t%s\n", (unsigned)e->mode,
		      fgit_oid_to_hex(hex, &e->oid), (unsigned)e->stage, e->path);
	fgit_buf_addf(out, "  ctime: %u:%u\n", e->ctime_sec, e->ctime_nsec);
	fgit_buf_addf(out, "  mtime: %u:%u\n", e->mtime_sec, e->mtime_nsec);
	fgit_buf_addf(out, "  dev: %u\tino: %u\n", e->dev, e->ino);
	fgit_buf_addf(out, "  uid: %u\tgid: %u\n", e->uid, e->gid);
	fgit_buf_addf(out, "  size: %u\tflags: %x\n", e->size, debug_flags(e));
}

static inline void dump_index(struct fgit_buf *out, const struct fgit_index *idx)
{
	size_t i;
	for (i = 0; i < fgit_index_entrycount(idx); i++)
		dump_entry(out, fgit_index_get(idx, i));
}

/* Run a shell command; its exit status. */
static inline int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sh(const char *fmt, ...)
{
	struct fgit_buf cmd = FGIT_BUF_INIT;
	va_list ap;
	int ret;
	va_start(ap, fmt);
	fgit_buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	ret = system(cmd.ptr);
	fgit_buf_release(&cmd);
	return ret;
}

/* Capture a command's stdout into out (reset first); its exit status. */
static inline int capture(struct fgit_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int capture(struct fgit_buf *out, const char *fmt, ...)
{
	struct fgit_buf cmd = FGIT_BUF_INIT;
	char buf[65536];
	va_list ap;
	size_t n;
	FILE *f;

	fgit_buf_reset(out);
	va_start(ap, fmt);
	fgit_buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	f = popen(cmd.ptr, "r");
	fgit_buf_release(&cmd);
	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fgit_buf_add(out, buf, n);
	return pclose(f);
}

/* A fresh scratch directory (malloc'd path), removed by scratch_done(). */
static inline char *scratch_new(void)
{
	char tmpl[] = "/tmp/fgit-index-test.XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static inline void scratch_done(char *dir)
{
	if (dir && !getenv("FGIT_TEST_KEEP"))
		sh("rm -rf '%s'", dir);
	free(dir);
}

/* Git with a fixed identity and no user/system config. */
#define GIT "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x " \
	"GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x git"

/* Is the file at path byte-identical to data? */
static inline int file_equals(const char *path, const unsigned char *data, size_t len)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int eq = fgit_buf_read_file(&b, path) == 0 && b.len == len && !memcmp(b.ptr, data, len);
	fgit_buf_release(&b);
	return eq;
}

#endif
