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

#include <stdint.h>
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

/* git's refname_is_safe(), all a name to delete must be: under refs/ with
 * no "."/".." or empty components, or all capitals and '_' (1 or 0). */
int fgit_refname_is_safe(const char *name);

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

/*
 * git's dwim_log(): the reflog a name given on the command line means,
 * trying the dwim rules in order; a candidate counts if it resolves and
 * has a reflog (or the ref it resolves to has one).  Returns the number of
 * matches; *log_out (malloc'd, may be NULL) is the first.
 */
int fgit_refdb_dwim_log(char **log_out, struct fgit_refdb *db, const char *name, size_t len);

/* ---- writing (the files backend, as git 2.39 writes it) ---- */

/*
 * Which refs get a reflog created on update (core.logAllRefUpdates).  An
 * existing reflog is always appended to, whatever the mode.  The default
 * of fgit_refdb_open() is FGIT_LOG_REFS_NORMAL; fgit_repo_refdb() sets it
 * from the config (unset: NONE in a bare repository, NORMAL otherwise).
 */
enum fgit_log_refs_mode {
	FGIT_LOG_REFS_NONE = 0,
	FGIT_LOG_REFS_NORMAL = 1,	/* refs/heads/, refs/remotes/, refs/notes/, HEAD */
	FGIT_LOG_REFS_ALWAYS = 2,	/* every ref */
};
void fgit_refdb_set_log_refs(struct fgit_refdb *db, enum fgit_log_refs_mode mode);

/*
 * How long ref writes retry a lock held by someone else, in milliseconds:
 * "<ref>.lock" (git's core.filesRefLockTimeout, default 100) and
 * "packed-refs.lock" (core.packedRefsTimeout, default 1000); 0: no retry,
 * negative: forever.  fgit_repo_refdb() sets them from the config.
 */
void fgit_refdb_set_lock_timeouts(struct fgit_refdb *db, long ref_ms, long packed_ms);

/*
 * How ref writes check the objects they store (git refuses a missing
 * object, and a non-commit under refs/heads/): type_of returns the
 * object's enum fgit_object_type, or a negative code if it is missing.
 * Without one (the default) ids are stored unchecked.  fgit_repo_refdb()
 * installs one reading the repository's object database.
 */
void fgit_refdb_set_object_type_cb(struct fgit_refdb *db,
				   int (*type_of)(const struct fgit_oid *oid, void *payload),
				   void *payload);

/*
 * A ref transaction: all updates are checked and locked ("<ref>.lock",
 * and "packed-refs.lock" when a deletion touches packed-refs) before
 * anything is written; then the new values are renamed into place, the
 * reflogs appended and the locks released.  Either every update happens
 * or (an error before the first rename) none does.
 *
 * Messages (fgit_error_last()) are git's, ready for "fatal: %s":
 *   "cannot lock ref '<ref>': is at <hex> but expected <hex>"
 *   "cannot lock ref '<ref>': reference already exists"
 *   "cannot lock ref '<ref>': unable to resolve reference '<ref>'"
 *   "cannot lock ref '<ref>': '<a>' exists; cannot create '<a/b>'"
 *   "cannot lock ref '<ref>': Unable to create '<abs>.lock': File exists.\n\n..."
 *   "multiple updates for ref '<ref>' not allowed"
 * Codes: FGIT_ELOCKED (a lock file exists), FGIT_EEXISTS / FGIT_EINVALID
 * (old value mismatch, D/F conflict, bad name), FGIT_ERROR otherwise.
 *
 * A transaction belongs to one thread; different transactions on one
 * refdb may run in different threads (the lock files serialize them, as
 * between git processes).
 */
struct fgit_ref_transaction;

enum fgit_ref_update_flags {
	/* Act on the name itself even if it is a symref (git's --no-deref);
	 * by default an update of a symref (HEAD) updates the ref it points
	 * to, and both get a reflog entry. */
	FGIT_REF_NO_DEREF = 1 << 0,
	/* Create the reflog even if core.logAllRefUpdates would not. */
	FGIT_REF_CREATE_REFLOG = 1 << 1,
	/* Write only the reflog entry, not the ref (git's REF_LOG_ONLY). */
	FGIT_REF_LOG_ONLY = 1 << 2,
	/* Skip the reflog entry (git's REF_SKIP_REFLOG). */
	FGIT_REF_SKIP_REFLOG = 1 << 3,
};

/* Start an empty transaction; *out is owned by the caller (free it with
 * fgit_ref_transaction_free(), which also aborts it). */
int fgit_ref_transaction_begin(struct fgit_ref_transaction **out, struct fgit_refdb *db);

/*
 * Queue an update of name.  new_oid: the new value; NULL deletes the ref
 * (loose file, packed-refs entry and reflog).  old_oid: NULL for no check;
 * a zero id: the ref must not exist; otherwise it must have that value.
 * flags: enum fgit_ref_update_flags.  msg: the reflog message (may be NULL;
 * whitespace runs are folded into one space as git does).  The name is
 * checked here (FGIT_EINVALID, "refusing to update ref with bad name
 * '<name>'"); values are checked by prepare/commit.
 */
int fgit_ref_transaction_update(struct fgit_ref_transaction *tx, const char *name,
				const struct fgit_oid *new_oid, const struct fgit_oid *old_oid,
				unsigned int flags, const char *msg);

/* Queue a check that name has old_oid (zero id: does not exist), without
 * changing it (update-ref --stdin's "verify"). */
int fgit_ref_transaction_verify(struct fgit_ref_transaction *tx, const char *name,
				const struct fgit_oid *old_oid, unsigned int flags);

/*
 * Queue making name a symbolic ref to target ("ref: <target>\n"), as
 * `git symbolic-ref name target` does: the symref itself is written (never
 * followed); if target resolves and name has a reflog (or should get one
 * by core.logAllRefUpdates), an entry from name's old resolved value to
 * target's value is appended with msg (which may be NULL: no message).
 * Lock errors are the lock file's own message, without "cannot lock ref",
 * as git words them here.
 */
int fgit_ref_transaction_symref(struct fgit_ref_transaction *tx, const char *name,
				const char *target, const char *msg);

/*
 * Lock every ref and check old values (git's ref_transaction_prepare).
 * Optional: commit prepares first if needed.  On failure the transaction
 * is aborted (every lock released) and may only be freed.
 */
int fgit_ref_transaction_prepare(struct fgit_ref_transaction *tx);

/*
 * Write everything queued.  committer: the ident written in reflog
 * entries, "Name <email> 1234567890 +0000" (the caller builds it from
 * GIT_COMMITTER_* and user.* as for a commit).  Returns 0 or a negative
 * code with git's message; the transaction is finished either way and may
 * only be freed.
 */
int fgit_ref_transaction_commit(struct fgit_ref_transaction *tx, const char *committer);

/* Release every lock taken and forget the queued updates. */
void fgit_ref_transaction_abort(struct fgit_ref_transaction *tx);
/* Abort if needed and free.  NULL is accepted. */
void fgit_ref_transaction_free(struct fgit_ref_transaction *tx);

/*
 * One-shot helpers: a transaction with one update (update-ref <ref> <new>
 * [<old>]); deletion with new_oid NULL.
 */
int fgit_refdb_update(struct fgit_refdb *db, const char *name, const struct fgit_oid *new_oid,
		      const struct fgit_oid *old_oid, unsigned int flags, const char *msg,
		      const char *committer);
int fgit_refdb_symref(struct fgit_refdb *db, const char *name, const char *target,
		      const char *msg, const char *committer);

/* ---- reflogs ---- */

struct fgit_reflog_entry {
	struct fgit_oid old_oid, new_oid;
	const char *ident;	/* "Name <email>" (borrowed, not NUL-free of spaces) */
	int64_t time;
	int tz;			/* e.g. -700 for "-0700" */
	const char *msg;	/* without the trailing newline; "" if none */
};
typedef int (*fgit_reflog_cb)(const struct fgit_reflog_entry *e, void *payload);

/* 1 if logs/<name> exists (as a file). */
int fgit_reflog_exists(struct fgit_refdb *db, const char *name);
/* Call cb for each entry, oldest first (newest first with reverse);
 * stops when cb returns non-zero and returns that.  A missing reflog has no
 * entries; malformed lines are skipped as git skips them. */
int fgit_reflog_foreach(struct fgit_refdb *db, const char *name, int reverse,
			fgit_reflog_cb cb, void *payload);
/* Call cb with the name of every reflog (logs/HEAD, logs/refs/...) whose
 * ref resolves, in git's order: logs/ walked depth-first in directory
 * order. */
enum fgit_reflog_names_flags {
	/* also the per-worktree reflogs (HEAD...) of the other worktrees, as
	 * "main-worktree/HEAD" and "worktrees/<id>/HEAD" (names every refdb
	 * function accepts) */
	FGIT_REFLOG_ALL_WORKTREES = 1 << 0,
};
int fgit_reflog_foreach_name(struct fgit_refdb *db, unsigned int flags,
			     int (*cb)(const char *name, void *payload), void *payload);
/* Remove logs/<name> (and its empty parent directories). */
int fgit_reflog_delete_all(struct fgit_refdb *db, const char *name);

/*
 * Rewrite a reflog through "logs/<name>.lock" with the ref itself locked
 * ("<name>.lock"), keeping the entries keep() accepts (keep returns 1 to
 * keep, 0 to drop, negative to fail).  flags: FGIT_REFLOG_REWRITE chains
 * each kept entry's old id to the previous kept entry's new id;
 * FGIT_REFLOG_UPDATEREF sets the ref to the last kept entry's new id;
 * FGIT_REFLOG_DRY_RUN only calls keep().
 */
enum fgit_reflog_expire_flags {
	FGIT_REFLOG_REWRITE = 1 << 0,
	FGIT_REFLOG_UPDATEREF = 1 << 1,
	FGIT_REFLOG_DRY_RUN = 1 << 2,
};
int fgit_reflog_rewrite(struct fgit_refdb *db, const char *name, unsigned int flags,
			int (*keep)(const struct fgit_reflog_entry *e, void *payload),
			void *payload);

/* ---- packing ---- */

enum fgit_pack_refs_flags {
	FGIT_PACK_REFS_ALL = 1 << 0,	/* every ref, not only tags */
	FGIT_PACK_REFS_PRUNE = 1 << 1,	/* remove the loose refs packed */
};
/*
 * How pack-refs learns about the object a ref points to: return 1 for an
 * annotated tag (its fully peeled id in *peeled_out), 0 for another
 * object, negative if the object is missing (the ref is then not packed;
 * git reports "error: <name> does not point to a valid object!").
 */
typedef int (*fgit_pack_refs_check_cb)(struct fgit_oid *peeled_out, const char *name,
				       const struct fgit_oid *oid, void *payload);
/*
 * git pack-refs: with packed-refs.lock held, merge the loose refs chosen
 * by flags (tags, or all with FGIT_PACK_REFS_ALL; never symrefs,
 * per-worktree or broken refs) into packed-refs, written sorted with git's
 * header and peeled lines; then (FGIT_PACK_REFS_PRUNE) remove each loose
 * file packed, under its lock and only if unchanged.  check may be NULL
 * (no peeling, nothing skipped).  FGIT_ELOCKED if packed-refs.lock exists.
 */
int fgit_refdb_pack(struct fgit_refdb *db, unsigned int flags, fgit_pack_refs_check_cb check,
		    void *payload);

#endif
