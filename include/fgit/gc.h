/*
 * git gc, in-process (lib/ops/gc.c): everything runs in this process, with
 * no child git and no pipe (seed 003).
 *
 * The steps are git 2.39's defaults: pack refs, expire reflogs, repack
 * (-d -l, -A with --unpack-unreachable=<prune expiry>, or -a with "now"),
 * prune --expire <prune expiry>, write the commit-graph from the refs,
 * under the gc.pid lock.  --auto does nothing unless objects/17 holds more
 * than gc.auto/256 loose objects (an incremental repack) or there are more
 * than gc.autoPackLimit packs (a full one).
 *
 * Pack refs and reflog expiry go through lib/ops (fgit_repo_pack_refs,
 * fgit_reflog_expire_all) unless gc.packRefs, gc.reflogExpire and
 * gc.reflogExpireUnreachable turn them off.  A full repack writes
 * reachability bitmaps as git's repack does (repack.writeBitmaps, by
 * default in a bare repository), and worktree prune runs with
 * gc.worktreePruneExpire (3.months.ago).  rerere gc is
 * skipped; cruft packs and --keep-largest-pack are refused by the CLI.
 */
#ifndef FGIT_GC_H
#define FGIT_GC_H

#include <stdint.h>

struct fgit_repo;

struct fgit_gc_options {
	unsigned int version;		/* FGIT_GC_OPTIONS_VERSION */
	int aggressive;			/* --aggressive: gc.aggressiveWindow/Depth (250/50) */
	int auto_gc;			/* --auto */
	int quiet;			/* -q */
	int force;			/* --force: ignore another gc's gc.pid */
	/* --prune=<date>: NULL means gc.pruneExpire (default "2.weeks.ago");
	 * --no-prune sets no_prune. */
	const char *prune_expire;
	int no_prune;
	int progress_fd;		/* meters (-1: none) */
	/* stderr lines as git prints them, without newline (level 0 warning:,
	 * 1 error:, 2 bare) */
	void (*report)(int level, const char *msg, void *payload);
	void *payload;
};
#define FGIT_GC_OPTIONS_VERSION 1
#define FGIT_GC_OPTIONS_INIT { FGIT_GC_OPTIONS_VERSION, 0, 0, 0, 0, NULL, 0, -1, NULL, NULL }

/*
 * Run gc.  0 on success (also when --auto finds nothing to do or another
 * gc holds the lock under --auto); FGIT_ELOCKED with git's message when
 * another gc runs.
 */
int fgit_gc(struct fgit_repo *repo, const struct fgit_gc_options *opts);

#endif
