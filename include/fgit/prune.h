/*
 * Removing objects the repository does not need: loose objects that a pack
 * also holds (git prune-packed), in lib/odb.
 *
 * Thread safety: these walk and delete files; run one at a time per
 * repository (as git, which relies on its callers for that too).
 */
#ifndef FGIT_PRUNE_H
#define FGIT_PRUNE_H

#include <stdint.h>

struct fgit_odb;

enum fgit_prune_packed_flags {
	FGIT_PRUNE_PACKED_DRY_RUN = 1 << 0,	/* report, delete nothing */
};

/*
 * Delete every loose object of odb that one of its packs (or an alternate's)
 * also holds, fan-out directory by directory (00..ff, readdir order inside),
 * then remove fan-out directories left empty (not on a dry run).  cb, if not
 * NULL, gets each object file's path before it is deleted.  progress_fd >= 0
 * shows git's delayed "Removing duplicate objects" meter.  Returns the
 * number of objects (to be) removed, or a negative error.
 */
int fgit_odb_prune_packed(struct fgit_odb *odb, unsigned int flags, int progress_fd,
			  void (*cb)(const char *path, void *payload), void *payload);

#endif
