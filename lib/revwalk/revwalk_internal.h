/*
 * Internals of lib/revwalk shared by its .c files.  Not installed.
 */
#ifndef FGIT_REVWALK_INTERNAL_H
#define FGIT_REVWALK_INTERNAL_H

#include "fgit/revwalk.h"

/* Memory that lives as long as the walker (16-byte aligned). */
void *rw_arena_alloc(struct fgit_revwalk *w, size_t n);
/* The node for an id, created unparsed if new; NULL when out of memory. */
struct fgit_commit_node *rw_node_for(struct fgit_revwalk *w, const struct fgit_oid *oid);
/* Parse a node once (parents become unparsed nodes). */
int rw_parse_node(struct fgit_revwalk *w, struct fgit_commit_node *n);

/* A max-heap of commits by committer date; ties: first queued first (as
 * git's insert-by-date list).  Zero-initialise; free(v) when done. */
struct rw_qent {
	struct fgit_commit_node *n;
	uint64_t seq;
};
struct rw_queue {
	struct rw_qent *v;
	size_t nr, alloc;
	uint64_t seq;
};
int rw_qpush(struct rw_queue *q, struct fgit_commit_node *n);
struct fgit_commit_node *rw_qpop(struct rw_queue *q);

/* Flags used by the object walk on commit nodes (bits 0-7 are revwalk.c's). */
enum {
	RW_SEEN = 1 << 8,
	RW_UNINTERESTING = 1 << 9,
	RW_ADDED = 1 << 10,
};

#endif
