/*
 * References: loose files under refs/, packed-refs (with "^<id>" peeled
 * lines), symbolic refs (HEAD), per-worktree refs, iteration in git's
 * order, and the refname rules of git-check-ref-format(1).
 *
 * A corrupt packed-refs file fails every lookup that needs it with
 * FGIT_ERROR and git's message ("unexpected line in <path>: <line>",
 * "unterminated line in ..."), as git dies on it; a broken loose file only
 * makes that ref FGIT_EINVALID.
 *
 * Thread safety: an fgit_refdb may be read by any number of threads at
 * once (the packed-refs snapshot is swapped under a lock when the file
 * changes).  Returned strings belong to the caller unless said otherwise.
 */
#ifndef FGIT_REFS_H
#define FGIT_REFS_H

#include "oid.h"

struct fgit_refdb;

enum fgit_ref_flags {
	FGIT_REF_SYMBOLIC = 1 << 0,	/* the name itself is a symref */
	FGIT_REF_PACKED = 1 << 1,	/* the value came from packed-refs */
	FGIT_REF_BROKEN = 1 << 2,	/* unreadable, or a symref to nothing */
	FGIT_REF_PEELED = 1 << 3,	/* packed-refs knows the peeled id */
};

/*
 * Open the refs of a repository.  git_dir holds the per-worktree refs
 * (HEAD, refs/bisect, refs/worktree, refs/rewritten, pseudo-refs), common_dir
 * the rest and packed-refs (they are equal outside linked worktrees).
 */
int fgit_refdb_open(struct fgit_refdb **out, const char *git_dir,
		    const char *common_dir, int algo);
void fgit_refdb_free(struct fgit_refdb *db);

/*
 * Read one ref without following symrefs.  A symref gives
 * FGIT_REF_SYMBOLIC and its target in *target_out (malloc'd; target_out may
 * be NULL); otherwise the id in *oid_out.  FGIT_ENOTFOUND if absent;
 * FGIT_EINVALID for a loose file that is neither.
 */
int fgit_refdb_read_raw(struct fgit_oid *oid_out, char **target_out, unsigned int *flags_out,
			struct fgit_refdb *db, const char *name);

/*
 * Resolve name, following symrefs (at most 5 levels).  On success *oid_out
 * is the final id.  *resolved_out (malloc'd, may be NULL) receives the name
 * of the last ref in the chain, also when that ref does not exist
 * (FGIT_ENOTFOUND with *resolved_out set: an unborn branch).  *flags_out
 * gets FGIT_REF_SYMBOLIC if name was a symref.
 */
int fgit_refdb_resolve(struct fgit_oid *oid_out, char **resolved_out, unsigned int *flags_out,
		       struct fgit_refdb *db, const char *name);

/* 1 if a ref (loose or packed; symrefs not followed) of that name exists. */
int fgit_refdb_exists(struct fgit_refdb *db, const char *name);

/*
 * Call cb for every ref whose name starts with prefix ("refs/",
 * "refs/heads/", "" for all under refs/), in strcmp order of the full
 * names, loose values overriding packed ones.  Symrefs are followed; refs
 * that cannot be resolved are passed with FGIT_REF_BROKEN and a zero id
 * (callers that skip them warn "ignoring broken ref").  Stops when cb
 * returns non-zero and returns that value.
 */
typedef int (*fgit_ref_cb)(const char *name, const struct fgit_oid *oid,
			   unsigned int flags, void *payload);
int fgit_refdb_foreach(struct fgit_refdb *db, const char *prefix, fgit_ref_cb cb,
		       void *payload);

/* The peeled id packed-refs records for name; FGIT_ENOTFOUND otherwise. */
int fgit_refdb_peeled(struct fgit_oid *out, struct fgit_refdb *db, const char *name);

enum fgit_refname_flags {
	FGIT_REFNAME_ALLOW_ONELEVEL = 1 << 0,
	FGIT_REFNAME_REFSPEC_PATTERN = 1 << 1,	/* one '*' allowed */
};
/* git check-ref-format's rules: 0 if valid, FGIT_EINVALID otherwise (no
 * message set). */
int fgit_refname_check(const char *name, unsigned int flags);

/*
 * Abbreviate a full ref name as git's shorten_unambiguous_ref() does with
 * its rev-parse rules ("refs/heads/main" -> "main" unless "refs/tags/main"
 * etc. also exists).  strict: core.warnAmbiguousRefs.  malloc'd.
 */
char *fgit_refdb_shorten(struct fgit_refdb *db, const char *name, int strict);

/*
 * git's dwim for a name given on the command line: try "%s",
 * "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s",
 * "refs/remotes/%s/HEAD" in order.  Returns the number of rules that
 * matched (0: none; negative: FGIT_ERROR for a corrupt packed-refs); *oid_out and *ref_out (malloc'd, may be NULL) from
 * the first match, *ref_out being the ref it resolves to after symrefs
 * ("HEAD" -> "refs/heads/main"; "HEAD" itself when detached), as git's
 * dwim_ref() reports it.
 * *broken_out (malloc'd, may be NULL) names the first candidate that exists
 * but is broken or a symref to nothing (git warns "ignoring broken ref
 * <name>" or "ignoring dangling symref <name>").
 */
int fgit_refdb_dwim(struct fgit_oid *oid_out, char **ref_out, char **broken_out,
		    struct fgit_refdb *db, const char *name, size_t len);

#endif
