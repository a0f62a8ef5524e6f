/*
 * Repacking a repository in-process (what `git repack` does through a
 * pack-objects child): everything reachable from refs, reflogs and the
 * index is walked and packed by lib/pack/objects.c, old packs and packed
 * loose objects removed, and the files dumb transports read
 * (objects/info/packs, info/refs) updated; a multi-pack-index naming a
 * deleted pack is removed, or (write_midx) rewritten over what is left.  Also update-server-info and
 * prune-packed on their own.
 *
 * Not thread-safe against other writers of the same repository beyond
 * what git itself guarantees (packs are renamed into place before old
 * ones are deleted).
 */
#ifndef FGIT_REPACK_H
#define FGIT_REPACK_H

#include "pack.h"

struct fgit_repo;
struct fgit_index;
struct fgit_odb;

struct fgit_repack_options {
	unsigned int version;		/* FGIT_REPACK_OPTIONS_VERSION */
	int all;			/* -a: everything into one pack */
	int loosen_unreachable;		/* -A: like -a, objects of deleted packs
					 * that the new pack lacks become loose */
	int delete_redundant;		/* -d */
	int local;			/* -l: --local to pack-objects */
	int update_server_info;		/* not -n */
	int write_rev;			/* pack.writeReverseIndex */
	/* the index whose objects count as reachable (git's --indexed-objects);
	 * NULL: <git dir>/index */
	const struct fgit_index *index;
	/* window, depth, threads, reuse, compression, progress */
	struct fgit_pack_objects_options pack;
	/* reachability bitmaps for the new pack (with all or
	 * loosen_unreachable only: -b, repack.writeBitmaps) */
	int write_bitmap;
	int bitmap_hash_cache;		/* pack.writeBitmapHashCache (1) */
	int pack_kept_objects;		/* --pack-kept-objects: .keep packs'
					 * objects are packed too */
	/* --write-midx: a multi-pack-index over the packs left (the new
	 * one, kept ones, old ones not deleted) */
	int write_midx;
	/* with write_midx: its reachability bitmap (-b or repack.writeBitmaps
	 * with --write-midx); the .bitmap of each pack in it is removed */
	int write_midx_bitmap;
};
#define FGIT_REPACK_OPTIONS_VERSION 1
#define FGIT_REPACK_OPTIONS_INIT \
	{ FGIT_REPACK_OPTIONS_VERSION, 0, 0, 0, 0, 1, 0, NULL, FGIT_PACK_OBJECTS_OPTIONS_INIT, \
	  0, 1, 0, 0, 0 }

struct fgit_repack_result {
	char pack[FGIT_MAX_HEXSZ + 1];	/* hash of the pack written; "" if none */
	struct fgit_pack_objects_stats stats;
};

/*
 * Repack.  1 if there was nothing new to pack (git's "Nothing new to
 * pack."), 0 when a pack was written, negative on error (nothing removed
 * then).  Kept packs (.keep) are honoured: their objects are not
 * repacked and they are never removed.
 */
int fgit_repack(struct fgit_repack_result *out, struct fgit_repo *repo,
		const struct fgit_repack_options *opts);

/*
 * git update-server-info: info/refs (each ref under refs/ and, for tags,
 * the peeled id as "<ref>^{}") and objects/info/packs.  force: rewrite
 * even when unchanged.
 */
int fgit_update_server_info(struct fgit_repo *repo, int force);

#endif
