/*
 * prune-packed (include/fgit/prune.h): loose copies of packed objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <utime.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/progress.h"
#include "fgit/prune.h"
#include "odb/odb_internal.h"

struct pp_ctx {
	struct fgit_odb *odb;
	unsigned int flags;
	void (*cb)(const char *path, void *payload);
	void *payload;
	int n;
};

static int pp_cb(const struct fgit_oid *oid, const char *path, void *payload)
{
	struct pp_ctx *c = payload;
	if (!odb_packed_anywhere(c->odb, oid))
		return 0;
	if (c->cb)
		c->cb(path, c->payload);
	if (!(c->flags & FGIT_PRUNE_PACKED_DRY_RUN))
		unlink(path);
	c->n++;
	return 0;
}

int fgit_odb_prune_packed(struct fgit_odb *odb, unsigned int flags, int progress_fd,
			  void (*cb)(const char *path, void *payload), void *payload)
{
	struct pp_ctx c = { odb, flags, cb, payload, 0 };
	struct fgit_progress *pr;
	char dir[4096];
	int d, r = 0;

	pr = fgit_progress_new("Removing duplicate objects", 256, progress_fd,
			       FGIT_PROGRESS_DELAYED);
	for (d = 0; d < 256 && r >= 0; d++) {
		r = odb_walk_loose(odb, d, pp_cb, NULL, &c);
		if (!(flags & FGIT_PRUNE_PACKED_DRY_RUN)) {
			snprintf(dir, sizeof(dir), "%s/%02x", odb->path, d);
			rmdir(dir);
		}
		fgit_progress_set(pr, (uint64_t)d + 1);
	}
	fgit_progress_done(pr);
	return r < 0 ? r : c.n;
}

int fgit_odb_force_loose(struct fgit_odb *odb, const struct fgit_oid *oid, int64_t mtime)
{
	char path[4096];
	struct utimbuf ut;
	enum fgit_object_type type;
	void *data;
	size_t len;
	int r;

	odb_loose_path(path, sizeof(path), odb, oid);
	if (access(path, F_OK) != 0) {
		if ((r = fgit_odb_read(&data, &len, &type, odb, oid)) < 0)
			return r;
		r = odb_loose_write_buf(odb, oid, type, data, len);
		free(data);
		if (r < 0)
			return r;
	}
	ut.actime = ut.modtime = (time_t)mtime;
	utime(path, &ut);
	return 0;
}
