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

struct fgit_odb;
struct fgit_revwalk;

struct fgit_commit_node {
	struct fgit_oid oid;		/* first: the key of the walker's map */
	int64_t date;			/* committer time */
	struct fgit_commit_node **parents;
	uint32_t nparents;
	uint32_t flags;			/* walker-private marks */
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

#endif
