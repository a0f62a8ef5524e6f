/*
 * Commit-graph files (objects/info/commit-graph; gitformat-commit-graph):
 * every commit's tree, parents, date and generation in one sorted table,
 * so walks need not inflate and parse commits.
 *
 * Reading maps the file read-only and validates it once at open (chunk
 * table, chunk sizes against the commit count, fan-out order, parent
 * positions in range), so the accessors are plain loads; the trailing
 * checksum is checked by fgit_commit_graph_verify.  An open graph is
 * immutable: any number of threads may read it.
 *
 * Writing produces what git 2.39 writes for the same commits (chunks OIDF,
 * OIDL, CDAT, GDA2 with corrected commit dates, GDO2 when an offset needs
 * more than 31 bits, EDGE for octopus merges), through a lock file, mode
 * 0444.  Split graphs and changed-path filters are not written.
 */
#ifndef FGIT_COMMIT_GRAPH_H
#define FGIT_COMMIT_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

struct fgit_odb;
struct fgit_refdb;
struct fgit_commit_graph;

/* Open objects_dir/info/commit-graph.  FGIT_ENOTFOUND if absent;
 * FGIT_EINVALID with git's wording if malformed. */
int fgit_commit_graph_open(struct fgit_commit_graph **out, const char *objects_dir, int algo);
void fgit_commit_graph_free(struct fgit_commit_graph *g);

uint32_t fgit_commit_graph_count(const struct fgit_commit_graph *g);
/* 1 and *pos if the graph has the commit, else 0. */
int fgit_commit_graph_find(uint32_t *pos, const struct fgit_commit_graph *g,
			   const struct fgit_oid *oid);
void fgit_commit_graph_oid(struct fgit_oid *out, const struct fgit_commit_graph *g,
			   uint32_t pos);
void fgit_commit_graph_tree(struct fgit_oid *out, const struct fgit_commit_graph *g,
			    uint32_t pos);
/* Commit (committer) date. */
uint64_t fgit_commit_graph_date(const struct fgit_commit_graph *g, uint32_t pos);
/* Topological level (CDAT's generation v1). */
uint32_t fgit_commit_graph_level(const struct fgit_commit_graph *g, uint32_t pos);
/* git's generation: the corrected commit date when the graph has GDA2,
 * otherwise the topological level. */
uint64_t fgit_commit_graph_generation(const struct fgit_commit_graph *g, uint32_t pos);
/*
 * The parents' positions, in order: up to max written to out; returns the
 * number of parents (which may exceed max), or FGIT_EINVALID for a
 * malformed octopus list.
 */
int fgit_commit_graph_parents(uint32_t *out, size_t max, const struct fgit_commit_graph *g,
			      uint32_t pos);

enum fgit_commit_graph_write_flags {
	FGIT_CG_APPEND = 1 << 0,	/* also every commit of the existing graph */
};

struct fgit_commit_graph_options {
	unsigned int version;		/* FGIT_COMMIT_GRAPH_OPTIONS_VERSION */
	int algo;
	unsigned int flags;		/* enum fgit_commit_graph_write_flags */
	int progress_fd;		/* -1: none (git's meters are delayed) */
	void (*report)(int level, const char *msg, void *payload);	/* 0 warning, 1 error, 2 bare */
	void *payload;
};
#define FGIT_COMMIT_GRAPH_OPTIONS_VERSION 1
#define FGIT_COMMIT_GRAPH_OPTIONS_INIT { FGIT_COMMIT_GRAPH_OPTIONS_VERSION, 1, 0, -1, NULL, NULL }

/*
 * Write the graph of the given commits and everything they reach (ids that
 * are tags are peeled; other non-commits are skipped).  Nothing is written
 * for an empty set.  0 or negative.
 */
int fgit_commit_graph_write(const char *objects_dir, struct fgit_odb *odb,
			    const struct fgit_oid *starts, size_t nstarts,
			    const struct fgit_commit_graph_options *opts);
/* The starts git uses for `write --reachable`: every ref under refs/,
 * peeled (malloc'd array in *out, owned by the caller). */
int fgit_commit_graph_ref_tips(struct fgit_oid **out, size_t *n, struct fgit_refdb *refs);
/* The starts of a plain `write`: every commit in the local packs. */
int fgit_commit_graph_pack_tips(struct fgit_oid **out, size_t *n, struct fgit_odb *odb);

/* `git commit-graph verify`: 0 if sound (or absent), 1 after reporting. */
int fgit_commit_graph_verify(const char *objects_dir, struct fgit_odb *odb,
			     const struct fgit_commit_graph_options *opts);

#endif
