/* Internal layout of the refdb (lib/refs only). */
#ifndef FGIT_LIB_REFS_H
#define FGIT_LIB_REFS_H

#include <pthread.h>
#include <sys/stat.h>
#include "fgit/refs.h"

#define MAX_SYMREF_DEPTH 5

/*
 * One packed ref: pointers into the snapshot's copy of the file.  Ids are
 * converted from hex only when used: a lookup in a 20,000-ref file should
 * not pay for 40,000 conversions (measured: rev-parse HEAD with 20,000
 * packed tags: 4.7 ms of CPU before, 2.8-4.5 ms after, git 1.0-1.6 ms;
 * preliminary, noisy machine).  NEEDSWORK: a binary search over the
 * sorted file as git does would avoid reading it all.
 */
struct packed_ref {
	const char *name;
	const char *hex;
	const char *peeled_hex;		/* NULL: no "^" line */
	int has_peeled;
};

struct packed_snapshot {
	int refcount;
	struct packed_ref *refs;
	size_t nr;
	char *mem;		/* the file, names point into it */
	struct stat st;
	int missing;
	int peeled_trait;	/* PEELED_* from the header: which refs have known peeled values */
};

enum { PEELED_NONE, PEELED_TAGS, PEELED_FULLY };

/* Does packed-refs know p's peeled value (a "^" line or its absence)? */
int refs_packed_knows_peeled(const struct packed_snapshot *s, const struct packed_ref *p);

struct fgit_refdb {
	char *git_dir;
	char *common_dir;
	char *packed_path;
	int algo;
	pthread_mutex_t lock;
	struct packed_snapshot *packed;
	int log_refs;			/* enum fgit_log_refs_mode */
	long ref_lock_timeout_ms;	/* core.filesRefLockTimeout */
	long packed_lock_timeout_ms;	/* core.packedRefsTimeout */
	int (*object_type)(const struct fgit_oid *oid, void *payload);
	void *object_type_payload;
};


/* A counted reference to the current packed-refs snapshot (re-read if the
 * file changed), and its release. */
int refs_packed_get(struct packed_snapshot **out, struct fgit_refdb *db);
void refs_packed_put(struct fgit_refdb *db, struct packed_snapshot *s);
/* The index of the first packed ref not sorting before name. */
size_t refs_packed_lower_bound(const struct packed_snapshot *s, const char *name);
const struct packed_ref *refs_packed_find(const struct packed_snapshot *s, const char *name);
int refs_packed_oid(struct fgit_oid *out, const struct packed_ref *p, int peeled,
		    const char *path, int algo);
/* HEAD, pseudo-refs, refs/bisect/, refs/worktree/, refs/rewritten/. */
int refs_is_per_worktree(const char *name);
/* <git_dir or common_dir>/<prefix><name>; malloc'd. */
char *refs_path(struct fgit_refdb *db, const char *prefix, const char *name);
/* Read a loose ref (not packed): 0, FGIT_ENOTFOUND, FGIT_EINVALID. */
int refs_read_loose(struct fgit_oid *oid, char **target, unsigned int *flags,
		    struct fgit_refdb *db, const char *name);

/* Append a reflog entry to logs/<name> if that file exists, or create it
 * when core.logAllRefUpdates (or force_create) says so. */
int refs_log_write(struct fgit_refdb *db, const char *name, const struct fgit_oid *old_oid,
		   const struct fgit_oid *new_oid, const char *committer, const char *msg,
		   int force_create);

/* Remove the loose file of name if it still holds oid, under its lock
 * (pack-refs' pruning: packed-refs and the reflog are left alone). */
int refs_prune_loose(struct fgit_refdb *db, const char *name, const struct fgit_oid *oid);

/* Prefix the last error message with "cannot lock ref '<name>': " and
 * return code. */
int refs_lock_error(int code, const char *name);

struct fgit_buf;
/* Append a packed-refs entry as it was ("<hex> <name>\n" and "^<hex>\n"). */
void refs_packed_write_entry(struct fgit_buf *b, const struct packed_ref *p, size_t hexsz);

/* Remove <dir>/<prefix><name> if it is there. */
int refs_unlink(struct fgit_refdb *db, const char *prefix, const char *name);

#endif
