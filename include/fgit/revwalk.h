/*
 * Commit walking: a cache of parsed commits (id, date, parents) over an
 * object database, and the walks built on it: ahead/behind counts as
 * `git status` shows them against an upstream.  Later: merge bases,
 * rev-list orderings, commit-graph files.
 *
 * A walker is used by one thread at a time.
 */
#ifndef FGIT_REVWALK_H
#define FGIT_REVWALK_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"
#include "object.h"

struct fgit_odb;
struct fgit_revwalk;

struct fgit_commit_node {
	struct fgit_oid oid;		/* first: the key of the walker's map */
	int64_t date;			/* committer time */
	struct fgit_commit_node **parents;
	uint32_t nparents;
	uint32_t flags;			/* walker-private marks */
	struct fgit_oid tree;		/* the commit's root tree */
};

int fgit_revwalk_new(struct fgit_revwalk **out, struct fgit_odb *odb);
void fgit_revwalk_free(struct fgit_revwalk *walk);

/*
 * The parsed commit with this id (borrowed from the walker).  FGIT_ENOTFOUND
 * if missing, FGIT_EINVALID if the object is not a commit or is corrupt.
 */
int fgit_revwalk_commit(struct fgit_commit_node **out, struct fgit_revwalk *walk,
			const struct fgit_oid *oid);

/*
 * Commits come from objects/info/commit-graph when it has them (parents and
 * date without inflating the commit, as git does), else from the objects.
 */
/* The commit's root tree (from the graph, else by reading the commit). */
int fgit_revwalk_commit_tree(struct fgit_oid *out, struct fgit_revwalk *walk,
			     const struct fgit_commit_node *commit);
/* 1 and git's generation number (corrected commit date, or topological
 * level for a graph without GDA2) if the graph has the commit, else 0. */
int fgit_revwalk_generation(uint64_t *out, struct fgit_revwalk *walk,
			    const struct fgit_commit_node *commit);
/* How many commits this walker filled from the commit-graph (for tests). */
size_t fgit_revwalk_graph_hits(const struct fgit_revwalk *walk);

/*
 * Commits reachable from `ours` but not `theirs` (*ahead) and the reverse
 * (*behind): `git rev-list --left-right --count ours...theirs`.
 */
int fgit_revwalk_ahead_behind(size_t *ahead, size_t *behind, struct fgit_revwalk *walk,
			      const struct fgit_oid *ours, const struct fgit_oid *theirs);

/* ---- the object walk: `git rev-list [--objects]` ---------------------- */

/*
 * An object walk lists what a set of tips reaches minus what a set of
 * excluded tips reaches, in `git rev-list --objects` order:
 *
 *  - commits newest first (committer date; ties in the order queued), as
 *    rev-list's default order; with excluded tips the walk is "limited":
 *    it goes on until only excluded commits are queued (and git's slop of
 *    five more), so that a commit reached from both sides is left out;
 *  - then, in the order they were added: annotated tags (named by the tag
 *    object's own "tag" header), trees and blobs given directly (named by
 *    their path: "" or the index path), the root trees of the listed
 *    commits (named ""), each tree followed by its entries depth first,
 *    named by their path ("dir", "dir/file"); submodule entries are
 *    skipped.  Each object is listed once.
 *
 * Excluded trees: the trees of excluded commits that are parents of listed
 * commits (git's "edges") and excluded trees given directly are marked
 * with everything under them, and are skipped, as `rev-list --objects A ^B`.
 *
 * A walk is used by one thread at a time and run once.
 */
struct fgit_objwalk;
struct fgit_refdb;
struct fgit_index;

enum fgit_objwalk_flags {
	FGIT_OBJWALK_OBJECTS = 1 << 0,	/* list trees, blobs and tags (--objects) */
	/* --unpacked: leave out commits that are in a pack (their trees are
	 * not walked; their parents still are) */
	FGIT_OBJWALK_UNPACKED = 1 << 1,
};

enum fgit_objwalk_add_flags {
	FGIT_OBJWALK_EXCLUDE = 1 << 0,	/* ^rev: leave out what it reaches */
};

/* A new walk over odb (borrowed; must outlive the walk). */
int fgit_objwalk_new(struct fgit_objwalk **out, struct fgit_odb *odb, unsigned int flags);
void fgit_objwalk_free(struct fgit_objwalk *w);

/*
 * Add a tip of any type (tags are peeled, each annotated tag on the way
 * listed unless excluded).  name is what the tip is called for trees and
 * blobs given directly (their path; NULL for ""); it is copied.
 * FGIT_ENOTFOUND (git's "bad object <hex>" message) if missing.
 */
int fgit_objwalk_add(struct fgit_objwalk *w, const struct fgit_oid *oid,
		     const char *name, unsigned int flags);
/* --all: every ref under refs/ in refname order, then HEAD.  Broken refs
 * are skipped. */
int fgit_objwalk_add_all_refs(struct fgit_objwalk *w, struct fgit_refdb *db,
			      unsigned int flags);
/* --reflog: the old and new ids of every reflog entry (HEAD's reflog in
 * git_dir, those of refs/ in common_dir); ids that are missing are skipped. */
int fgit_objwalk_add_reflogs(struct fgit_objwalk *w, const char *git_dir,
			     const char *common_dir, unsigned int flags);
/* --indexed-objects: the index's blobs (named by path, submodules
 * skipped) and the valid trees of its cache tree (named by directory). */
int fgit_objwalk_add_index(struct fgit_objwalk *w, const struct fgit_index *idx,
			   unsigned int flags);

/*
 * Called during fgit_objwalk_run, before anything is listed, for each
 * excluded commit that is a parent of a listed one (git's "edges": what a
 * thin pack may use as delta bases), with its root tree.  Only with
 * FGIT_OBJWALK_OBJECTS.  A non-zero return stops the walk.
 */
typedef int (*fgit_objwalk_edge_cb)(const struct fgit_oid *commit, const struct fgit_oid *tree,
				    void *payload);
void fgit_objwalk_set_edge_cb(struct fgit_objwalk *w, fgit_objwalk_edge_cb cb, void *payload);

/*
 * Called for each listed object in order.  name (name_len bytes, not
 * NUL-terminated) is NULL for commits.  A non-zero return stops the walk
 * and is returned by fgit_objwalk_run.
 */
typedef int (*fgit_objwalk_cb)(const struct fgit_oid *oid, enum fgit_object_type type,
			       const char *name, size_t name_len, void *payload);

/*
 * Run the walk.  Errors: FGIT_ENOTFOUND / FGIT_EINVALID with git's
 * messages for missing or corrupt commits and trees ("bad tree object
 * <hex>"), FGIT_ENOMEM.
 */
int fgit_objwalk_run(struct fgit_objwalk *w, fgit_objwalk_cb cb, void *payload);

#endif
