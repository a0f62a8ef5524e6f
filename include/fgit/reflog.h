/*
 * Reflog expiry as `git reflog expire` and `git reflog delete` do it (the
 * reading and rewriting of reflog files is in refs.h): entries older than
 * the expire time go, entries older than the expire-unreachable time go if
 * their old or new commit is not reachable from the ref's tip (from any
 * ref for HEAD), and one entry can be dropped by position (ref@{N}).
 *
 * Not thread-safe per repository (it walks commits); different reflogs of
 * one repository may not be expired concurrently either (git's locks would
 * refuse the second).
 */
#ifndef FGIT_REFLOG_H
#define FGIT_REFLOG_H

#include <stdint.h>
#include "oid.h"

struct fgit_repo;
struct fgit_config;

#define FGIT_EXPIRE_NEVER 0		/* nothing is that old */
#define FGIT_EXPIRE_ALL INT64_MAX	/* everything is older */

/* Expiry dates: fgit_date_parse_expiry() in date.h (same 0 / INT64_MAX). */

enum fgit_reflog_expire_opt_flags {
	FGIT_EXPIRE_REWRITE = 1 << 0,	/* --rewrite */
	FGIT_EXPIRE_UPDATEREF = 1 << 1,	/* --updateref */
	FGIT_EXPIRE_DRY_RUN = 1 << 2,	/* -n */
	FGIT_EXPIRE_VERBOSE = 1 << 3,	/* --verbose: report kept and pruned entries */
	FGIT_EXPIRE_EXPLICIT_TOTAL = 1 << 4,	/* --expire given: config does not apply */
	FGIT_EXPIRE_EXPLICIT_UNREACH = 1 << 5,	/* --expire-unreachable given */
};

struct fgit_reflog_expire_opts {
	int64_t expire_total;		/* entries older than this go */
	int64_t expire_unreachable;	/* ... and these if unreachable */
	unsigned int flags;
	long recno;			/* > 0: drop this entry (counted oldest first, from 1) */
	/* With FGIT_EXPIRE_VERBOSE, what happens to each entry: kind is
	 * "keep" or "prune"; msg is the entry's message. */
	void (*report)(const char *kind, const char *msg, void *payload);
	void *payload;
};

/*
 * Fill in expire_total and expire_unreachable for refname unless given
 * explicitly (flags): gc.<pattern>.reflogExpire[Unreachable] for the
 * first pattern matching refname, "never" for refs/stash, else
 * gc.reflogExpire (default 90 days) and gc.reflogExpireUnreachable (30
 * days).  Every such value is checked, matching or not: FGIT_EINVALID
 * with git's message ("'<v>' for '<key>' is not a valid timestamp") and
 * the key in *bad_key_out (malloc'd; may be NULL) for a bad one.
 */
int fgit_reflog_expire_config(struct fgit_reflog_expire_opts *opts, struct fgit_config *cfg,
			      const char *refname, int64_t now, char **bad_key_out);

/*
 * Expire the reflog of refname (a full ref name) by opts, rewriting it
 * under its locks (nothing if it has no reflog).  Errors: the lock
 * messages of fgit_reflog_rewrite().
 */
int fgit_reflog_expire(struct fgit_repo *repo, const char *refname,
		       const struct fgit_reflog_expire_opts *opts);

/*
 * The number of entries in refname's reflog that `ref@{N}` or
 * `ref@{<date>}` counts for reflog delete: for a date (before != NULL),
 * the entries older than *before.
 */
long fgit_reflog_count(struct fgit_repo *repo, const char *refname, const int64_t *before);

#endif
