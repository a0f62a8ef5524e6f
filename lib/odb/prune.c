/*
 * prune-packed (include/fgit/prune.h): loose copies of packed objects.
 */
#include <stdio.h>
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
