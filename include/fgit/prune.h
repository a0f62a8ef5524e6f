/*
 * Removing objects the repository does not need: loose objects that a pack
 * also holds (git prune-packed, lib/odb), and unreachable loose objects
 * (git prune, lib/ops).
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

struct fgit_repo;
struct fgit_oid;

/*
 * Make oid a loose object (written from its packed copy unless a loose file
 * exists) and set the file's mtime to `mtime`, as git's repack does for
 * unreachable objects it leaves for prune to judge by age (lib/odb).
 */
int fgit_odb_force_loose(struct fgit_odb *odb, const struct fgit_oid *oid, int64_t mtime);

struct fgit_prune_options {
	unsigned int version;		/* FGIT_PRUNE_OPTIONS_VERSION */
	/* Loose objects (and tmp_ files) modified after this are kept, and
	 * so is what such unreachable objects reach; INT64_MAX: no limit. */
	int64_t expire;
	int dry_run;			/* -n: report, delete nothing */
	int verbose;			/* -v: report what is deleted */
	int progress_fd;		/* -1: none */
	const char *index_path;		/* NULL: <git dir>/index */
	const struct fgit_oid *tips;	/* more heads to keep (git prune <head>...) */
	size_t ntips;
	/* stdout lines as git prints them ("<hex> <type>", "rm -f <path>",
	 * "Removing stale temporary file <path>"), without the newline */
	void (*out)(const char *line, void *payload);
	/* stderr lines without a prefix ("bad sha1 file: <path>") */
	void (*err)(const char *line, void *payload);
	void *payload;
	/* how paths under the objects directory are shown ("" = as is):
	 * git prints them under its own spelling, e.g. ".git/objects" */
	const char *display_objects_dir;
	/* Already known to be reachable (sorted by id, e.g. what gc's repack
	 * just packed from the same tips): the walk from the tips is skipped. */
	const struct fgit_oid *reachable;
	size_t nreachable;
};
#define FGIT_PRUNE_OPTIONS_VERSION 1
#define FGIT_PRUNE_OPTIONS_INIT { FGIT_PRUNE_OPTIONS_VERSION, INT64_MAX, 0, 0, -1, NULL, \
				  NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 }

/*
 * `git prune`: delete loose objects that nothing reaches (refs, HEAD,
 * reflogs, the index and its cache tree, opts->tips, and unreachable objects
 * newer than opts->expire) and that are not newer than opts->expire, in
 * fan-out order; stale temporary files too; then prune-packed.  Returns the
 * number of objects (to be) removed, or a negative error.
 */
int fgit_prune(struct fgit_repo *repo, const struct fgit_prune_options *opts);

struct fgit_objwalk;
/*
 * Add what git counts as reachable for prune and repack to an object walk:
 * every ref and HEAD, every reflog entry, and the index (index_path, or
 * $GIT_INDEX_FILE, or <git dir>/index; entries and cache tree).
 */
int fgit_reachability_tips(struct fgit_objwalk *w, struct fgit_repo *repo,
			   const char *index_path);

#endif
