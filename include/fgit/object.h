/*
 * Git objects: types, names, parsing and serialization with git's strict
 * validation rules.  Parsers never read past the buffer they are given.
 */
#ifndef FGIT_OBJECT_H
#define FGIT_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

enum fgit_object_type {
	FGIT_OBJ_BAD = -1,
	FGIT_OBJ_NONE = 0,
	FGIT_OBJ_COMMIT = 1,
	FGIT_OBJ_TREE = 2,
	FGIT_OBJ_BLOB = 3,
	FGIT_OBJ_TAG = 4,
	/* 5 is reserved */
	FGIT_OBJ_OFS_DELTA = 6,
	FGIT_OBJ_REF_DELTA = 7,
};

/* "commit", "tree", "blob", "tag" (or NULL for others). */
const char *fgit_object_type_name(enum fgit_object_type t);
/* Inverse of the above over len bytes; FGIT_OBJ_BAD if unknown. */
enum fgit_object_type fgit_object_type_from_name(const char *s, size_t len);

struct fgit_buf;

/* ---- trees ---------------------------------------------------------- */

/* File modes as git stores them in trees. */
#define FGIT_MODE_TREE		0040000
#define FGIT_MODE_BLOB		0100644
#define FGIT_MODE_EXEC		0100755
#define FGIT_MODE_LINK		0120000
#define FGIT_MODE_GITLINK	0160000

/*
 * One tree entry.  `name` points into the tree buffer (borrowed, valid as
 * long as the buffer) and is NOT NUL-terminated: use name_len.  `mode` is
 * the mode as written in the tree (e.g. 040000, 0100644, or a non-canonical
 * mode such as 0100664 that an old git wrote).
 */
struct fgit_tree_entry {
	unsigned int mode;
	const char *name;
	size_t name_len;
	struct fgit_oid oid;
};

/*
 * Iterator over a tree buffer.  Plain value, no allocation; never reads
 * outside [buf, buf+len).  Usage:
 *
 *	struct fgit_tree_iter it;
 *	struct fgit_tree_entry e;
 *	int r;
 *	fgit_tree_iter_init(&it, buf, len, FGIT_HASH_SHA1);
 *	while ((r = fgit_tree_iter_next(&e, &it)) > 0)
 *		...;
 *	if (r < 0) ... corrupt tree, message set ...
 */
struct fgit_tree_iter {
	const unsigned char *pos, *end;
	int algo;
};
void fgit_tree_iter_init(struct fgit_tree_iter *it, const void *buf, size_t len,
			 int algo);
/*
 * 1 and *out filled: an entry; 0: end of tree; FGIT_EINVALID: malformed
 * entry (git's messages: "too-short tree object", "malformed mode in tree
 * entry", "empty filename in tree entry"); the iterator then stays at end.
 */
int fgit_tree_iter_next(struct fgit_tree_entry *out, struct fgit_tree_iter *it);

/* Is mode a directory (040000 and old variants)? */
static inline int fgit_mode_is_tree(unsigned int mode)
{
	return (mode & 0170000) == 0040000;
}
/* The canonical mode git uses for a stored mode (as git's canon_mode). */
unsigned int fgit_mode_canon(unsigned int mode);

/*
 * Compare two entries in git's tree order: names bytewise, a tree's name
 * compared as if followed by '/'.  Returns <0, 0, >0.
 */
int fgit_tree_entry_cmp(const char *a, size_t alen, unsigned int amode,
			const char *b, size_t blen, unsigned int bmode);

/*
 * Find `name` (name_len bytes) in a tree buffer; 0 and *out filled,
 * FGIT_ENOTFOUND, or FGIT_EINVALID for a malformed tree.
 */
int fgit_tree_find(struct fgit_tree_entry *out, const void *buf, size_t len,
		   int algo, const char *name, size_t name_len);

enum fgit_check_flags {
	/* Treat fsck warnings as errors (git fsck --strict). */
	FGIT_CHECK_STRICT = 1 << 0,
	/*
	 * With FGIT_CHECK_STRICT: leave out fsck's infos (badFilemode,
	 * gitattributesSymlink), which git reports as warnings even when it
	 * promotes warnings to errors (unpack-objects --strict).
	 */
	FGIT_CHECK_NO_INFO = 1 << 1,
};

/*
 * Validate a tree as git fsck does: well-formed entries, known modes,
 * sorted without duplicates, no "", ".", "..", ".git" or "/" in names.
 * 0 if fine; FGIT_EINVALID with a message in fsck's words, e.g.
 * "treeNotSorted: not properly sorted".  Without FGIT_CHECK_STRICT only
 * fsck's errors fail (bad modes, zero-padded modes, ".git" etc. are warnings).
 */
int fgit_tree_check(const void *buf, size_t len, int algo, unsigned int flags);

/*
 * Which of git's checked dotfiles a tree entry name is (as fsck matches
 * it: any case, NTFS variants); FGIT_DOTFILE_NONE for any other name.
 */
enum fgit_dotfile {
	FGIT_DOTFILE_NONE = 0,
	FGIT_DOTFILE_GITMODULES,
	FGIT_DOTFILE_GITATTRIBUTES,
};
enum fgit_dotfile fgit_tree_dotfile(const char *name, size_t len);

/*
 * Serialize entries (sorted in place into tree order first) into out
 * (appended).  FGIT_EINVALID on duplicate or empty names or names with
 * '/' or NUL.
 */
int fgit_tree_serialize(struct fgit_buf *out, struct fgit_tree_entry *entries,
			size_t n);

/* ---- commits -------------------------------------------------------- */

/*
 * A parsed commit header: fields point into the caller's buffer (borrowed;
 * valid as long as the buffer).  Ident fields ("Name <email> 123 +0000",
 * without the "author "/"committer " keyword and without the newline) are
 * (pointer, length) pairs; NULL when absent.
 */
struct fgit_commit {
	struct fgit_oid tree;
	size_t nparents;
	const char *parents;		/* first "parent " line; see fgit_commit_parent */
	const char *author;
	size_t author_len;
	const char *committer;
	size_t committer_len;
	const char *encoding;		/* value of the "encoding" header or NULL */
	size_t encoding_len;
	int64_t committer_time;		/* seconds since epoch; 0 if unparsable */
	size_t message_offset;		/* offset of the message (after the blank
					 * line); == len when there is none */
	int algo;
};

/*
 * Parse a commit as git's parse_commit does: "tree <hex>" first, then
 * "parent <hex>" lines, then the other headers up to a blank line.
 * FGIT_EINVALID (message set) when the tree or a parent line is malformed.
 * Thread-safe; no allocation.
 */
int fgit_commit_parse(struct fgit_commit *out, const void *buf, size_t len, int algo);
/* The i-th parent (i < c->nparents) of a parsed commit. */
void fgit_commit_parent(struct fgit_oid *out, const struct fgit_commit *c, size_t i);

/* Validate a commit as git fsck does (header order, idents, dates). */
int fgit_commit_check(const void *buf, size_t len, int algo, unsigned int flags);

/*
 * Serialize a commit into out (appended).  author/committer are full ident
 * lines without keyword or newline; extra_headers (may be NULL) is inserted
 * verbatim after committer and must end with '\n'; message is written after
 * the blank line as is.
 */
int fgit_commit_serialize(struct fgit_buf *out, const struct fgit_oid *tree,
			  const struct fgit_oid *parents, size_t nparents,
			  const char *author, const char *committer,
			  const char *extra_headers, const char *message);

/* ---- tags ----------------------------------------------------------- */

/* A parsed tag header; borrowed pointers into the caller's buffer. */
struct fgit_tag {
	struct fgit_oid object;
	enum fgit_object_type type;
	const char *name;		/* "tag" header value */
	size_t name_len;
	const char *tagger;		/* NULL when there is no tagger line */
	size_t tagger_len;
	size_t message_offset;		/* == len when there is no message */
	int algo;
};

/*
 * Parse a tag as git's parse_tag does: "object <hex>", "type <type>",
 * "tag <name>", optional "tagger ...".  FGIT_EINVALID (message set).
 */
int fgit_tag_parse(struct fgit_tag *out, const void *buf, size_t len, int algo);
/* Validate a tag as git fsck does. */
int fgit_tag_check(const void *buf, size_t len, int algo, unsigned int flags);
/* Serialize a tag into out (appended); tagger may be NULL. */
int fgit_tag_serialize(struct fgit_buf *out, const struct fgit_oid *object,
		       enum fgit_object_type type, const char *name,
		       const char *tagger, const char *message);

/* ---- idents --------------------------------------------------------- */

/* An ident "Name <email> 1234567890 +0100"; pointers into the line. */
struct fgit_ident {
	const char *name;
	size_t name_len;
	const char *email;
	size_t email_len;
	int64_t time;
	int tz;				/* e.g. -700 for "-0700" */
	const char *date;		/* "1234567890 +0100" or NULL */
	size_t date_len;
};
/* Split an ident leniently (as git's split_ident_line); FGIT_EINVALID. */
int fgit_ident_split(struct fgit_ident *out, const char *line, size_t len);

/*
 * Check an object's content by type (tree, commit, tag as above; blobs are
 * always fine).  The dispatcher hash-object and fsck use.
 */
int fgit_object_check(enum fgit_object_type type, const void *buf, size_t len,
		      int algo, unsigned int flags);

/*
 * Call cb for each object this one points to, as fsck walks it: a tree's
 * entries (not gitlinks, which name commits of other repositories), a
 * commit's tree and parents, a tag's object.  Blobs point nowhere.  Stops
 * when cb returns non-zero and returns that; FGIT_EINVALID (message set)
 * if the object cannot be parsed.
 */
int fgit_object_foreach_link(enum fgit_object_type type, const void *buf, size_t len,
			     int algo,
			     int (*cb)(const struct fgit_oid *oid, enum fgit_object_type type,
				       void *payload),
			     void *payload);

#endif
