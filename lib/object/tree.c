/*
 * Trees: iteration, lookup, fsck-style validation and serialization.
 *
 * A tree is a sequence of "<octal mode> <name>\0<raw id>" entries.  Every
 * read here is bounded by the end pointer of the iterator, so a truncated
 * or hostile tree yields FGIT_EINVALID, never a read past the buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/object.h"

void fgit_tree_iter_init(struct fgit_tree_iter *it, const void *buf, size_t len,
			 int algo)
{
	it->pos = buf;
	it->end = it->pos + len;
	it->algo = algo ? algo : FGIT_HASH_SHA1;
}

/*
 * Decode one entry at p (end bounds it).  Sets *mode_digits to the number
 * of digits in the mode and *next to the following entry.
 */
static int decode_entry(struct fgit_tree_entry *out, const unsigned char *p,
			const unsigned char *end, int algo,
			const unsigned char **next, int *zero_padded)
{
	size_t rawsz = fgit_hash_rawsz(algo), avail = (size_t)(end - p);
	const unsigned char *nul, *name;
	unsigned int mode = 0;

	/* Shortest entry: "0 x\0" + raw id. */
	if (avail < rawsz + 4)
		return fgit_error_set(FGIT_EINVALID, "too-short tree object");
	nul = memchr(p, '\0', avail - rawsz);
	if (!nul)
		return fgit_error_set(FGIT_EINVALID, "too-short tree object");
	if (*p == ' ')
		return fgit_error_set(FGIT_EINVALID, "malformed mode in tree entry");
	if (zero_padded)
		*zero_padded = *p == '0';
	while (p < nul && *p != ' ') {
		if (*p < '0' || *p > '7' || mode > (~0u >> 3))
			return fgit_error_set(FGIT_EINVALID,
					      "malformed mode in tree entry");
		mode = (mode << 3) | (unsigned)(*p - '0');
		p++;
	}
	if (p == nul)
		return fgit_error_set(FGIT_EINVALID, "malformed mode in tree entry");
	name = p + 1;
	if (name == nul)
		return fgit_error_set(FGIT_EINVALID, "empty filename in tree entry");
	out->mode = mode;
	out->name = (const char *)name;
	out->name_len = (size_t)(nul - name);
	fgit_oid_from_raw(&out->oid, nul + 1, algo);
	*next = nul + 1 + rawsz;
	return 0;
}

int fgit_tree_iter_next(struct fgit_tree_entry *out, struct fgit_tree_iter *it)
{
	const unsigned char *next;
	int r;

	if (it->pos >= it->end)
		return 0;
	r = decode_entry(out, it->pos, it->end, it->algo, &next, NULL);
	if (r < 0) {
		it->pos = it->end;
		return r;
	}
	it->pos = next;
	return 1;
}

unsigned int fgit_mode_canon(unsigned int mode)
{
	switch (mode & 0170000) {
	case 0100000:
		return (mode & 0111) ? FGIT_MODE_EXEC : FGIT_MODE_BLOB;
	case 0120000:
		return FGIT_MODE_LINK;
	case 0040000:
		return FGIT_MODE_TREE;
	default:
		return FGIT_MODE_GITLINK;
	}
}

int fgit_tree_entry_cmp(const char *a, size_t alen, unsigned int amode,
			const char *b, size_t blen, unsigned int bmode)
{
	size_t n = alen < blen ? alen : blen;
	int c = memcmp(a, b, n);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = n < alen ? (unsigned char)a[n] : fgit_mode_is_tree(amode) ? '/' : 0;
	cb = n < blen ? (unsigned char)b[n] : fgit_mode_is_tree(bmode) ? '/' : 0;
	return (int)ca - (int)cb;
}

int fgit_tree_find(struct fgit_tree_entry *out, const void *buf, size_t len,
		   int algo, const char *name, size_t name_len)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	int r;

	fgit_tree_iter_init(&it, buf, len, algo);
	while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
		if (e.name_len == name_len && !memcmp(e.name, name, name_len)) {
			*out = e;
			return 0;
		}
	}
	if (r < 0)
		return r;
	return fgit_error_set(FGIT_ENOTFOUND, "path '%.*s' does not exist",
			      (int)name_len, name);
}

/* Case-insensitive ".git" as fsck's is_hfs/ntfs checks reduce to, simply. */
static int is_dotgit(const char *s, size_t n)
{
	return n == 4 && s[0] == '.' && (s[1] | 32) == 'g' && (s[2] | 32) == 'i' &&
	       (s[3] | 32) == 't';
}

/*
 * ".gitmodules" and ".gitattributes" as a checkout could write them:
 * any case, and NTFS's trailing dots and spaces or stream suffix.
 * NEEDSWORK: git also matches NTFS short names ("gitmod~1") and names
 * with the code points HFS+ ignores.
 */
enum fgit_dotfile fgit_tree_dotfile(const char *name, size_t len)
{
	static const struct {
		const char *word;
		enum fgit_dotfile which;
	} files[] = {
		{ "gitmodules", FGIT_DOTFILE_GITMODULES },
		{ "gitattributes", FGIT_DOTFILE_GITATTRIBUTES },
	};
	size_t i, n, k;

	if (!len || name[0] != '.')
		return FGIT_DOTFILE_NONE;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		n = strlen(files[i].word);
		if (len < n + 1 || strncasecmp(name + 1, files[i].word, n))
			continue;
		for (k = n + 1; k < len && (name[k] == ' ' || name[k] == '.'); k++)
			;
		if (k == len || name[k] == ':')
			return files[i].which;
	}
	return FGIT_DOTFILE_NONE;
}

/*
 * fsck's tree rules.  Errors always fail; warnings and infos fail only
 * under FGIT_CHECK_STRICT (git fsck --strict promotes warnings; infos are
 * reported by strict fsck as well for bad modes).
 */
int fgit_tree_check(const void *buf, size_t len, int algo, unsigned int flags)
{
	const unsigned char *p = buf, *end = p + len, *next;
	struct fgit_tree_entry e, prev;
	int strict = flags & FGIT_CHECK_STRICT, have_prev = 0, zp;
	int bad_modes = 0, zero_pad = 0, empty = 0, full = 0, dot = 0,
	    dotdot = 0, dotgit = 0, null_id = 0, not_sorted = 0, dups = 0, attr_link = 0;

	if (!algo)
		algo = FGIT_HASH_SHA1;
	while (p < end) {
		if (decode_entry(&e, p, end, algo, &next, &zp) < 0)
			return fgit_error_set(FGIT_EINVALID,
					      "badTree: cannot be parsed as a tree");
		p = next;
		zero_pad |= zp;
		if (fgit_oid_is_zero(&e.oid))
			null_id = 1;
		if (!e.name_len)
			empty = 1;
		if (memchr(e.name, '/', e.name_len))
			full = 1;
		if (e.name_len == 1 && e.name[0] == '.')
			dot = 1;
		if (e.name_len == 2 && !memcmp(e.name, "..", 2))
			dotdot = 1;
		if (is_dotgit(e.name, e.name_len))
			dotgit = 1;
		if (e.mode == FGIT_MODE_LINK) {
			switch (fgit_tree_dotfile(e.name, e.name_len)) {
			case FGIT_DOTFILE_GITMODULES:
				return fgit_error_set(FGIT_EINVALID,
					"gitmodulesSymlink: .gitmodules is a symbolic link");
			case FGIT_DOTFILE_GITATTRIBUTES:
				attr_link = 1;	/* an info */
				break;
			default:
				break;
			}
		}
		switch (e.mode) {
		case FGIT_MODE_BLOB: case FGIT_MODE_EXEC: case FGIT_MODE_LINK:
		case FGIT_MODE_TREE: case FGIT_MODE_GITLINK:
			break;
		case 0100664:
			if (strict)
				bad_modes = 1;
			break;
		default:
			bad_modes = 1;
		}
		if (have_prev) {
			int c = fgit_tree_entry_cmp(prev.name, prev.name_len, prev.mode,
						    e.name, e.name_len, e.mode);
			if (prev.name_len == e.name_len &&
			    !memcmp(prev.name, e.name, e.name_len))
				dups = 1;
			else if (c > 0)
				not_sorted = 1;
		}
		prev = e;
		have_prev = 1;
	}
	if (dups)
		return fgit_error_set(FGIT_EINVALID,
				      "duplicateEntries: contains duplicate file entries");
	if (not_sorted)
		return fgit_error_set(FGIT_EINVALID, "treeNotSorted: not properly sorted");
	if (!strict)
		return 0;
	if (null_id)
		return fgit_error_set(FGIT_EINVALID,
				      "nullSha1: contains entries pointing to null sha1");
	if (full)
		return fgit_error_set(FGIT_EINVALID, "fullPathname: contains full pathnames");
	if (empty)
		return fgit_error_set(FGIT_EINVALID, "emptyName: contains empty pathname");
	if (dot)
		return fgit_error_set(FGIT_EINVALID, "hasDot: contains '.'");
	if (dotdot)
		return fgit_error_set(FGIT_EINVALID, "hasDotdot: contains '..'");
	if (dotgit)
		return fgit_error_set(FGIT_EINVALID, "hasDotgit: contains '.git'");
	if (attr_link && !(flags & FGIT_CHECK_NO_INFO))
		return fgit_error_set(FGIT_EINVALID,
				      "gitattributesSymlink: .gitattributes is a symlink");
	if (bad_modes && !(flags & FGIT_CHECK_NO_INFO))
		return fgit_error_set(FGIT_EINVALID, "badFilemode: contains bad file modes");
	if (zero_pad)
		return fgit_error_set(FGIT_EINVALID,
				      "zeroPaddedFilemode: contains zero-padded file modes");
	return 0;
}

static int entry_qsort_cmp(const void *a, const void *b)
{
	const struct fgit_tree_entry *x = a, *y = b;
	return fgit_tree_entry_cmp(x->name, x->name_len, x->mode,
				   y->name, y->name_len, y->mode);
}

/* The octal digits of mode, git's "%o", into p (at most 11); their count. */
static size_t put_mode(char *p, unsigned int mode)
{
	char tmp[12];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + (mode & 7));
		mode >>= 3;
	} while (mode);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/*
 * Entries built from the index (write-tree, commit) arrive in tree order
 * already: one pass checks that and the sort is skipped; the buffer is
 * sized once and each entry written with plain copies.  commit -a of the
 * 100,000-file corpus builds 5,000 trees and spent most of their
 * serialisation in vsnprintf for the mode and in qsort's merge sort.
 */
int fgit_tree_serialize(struct fgit_buf *out, struct fgit_tree_entry *entries,
			size_t n)
{
	size_t i, need = 0, rawsz;
	int sorted = 1, r;
	char *p;

	for (i = 0; i < n; i++) {
		const struct fgit_tree_entry *e = &entries[i];
		if (!e->name_len || memchr(e->name, '/', e->name_len) ||
		    memchr(e->name, '\0', e->name_len))
			return fgit_error_set(FGIT_EINVALID, "invalid tree entry name '%.*s'",
					      (int)e->name_len, e->name);
		if (i && sorted && entry_qsort_cmp(&entries[i - 1], e) >= 0)
			sorted = 0;
		/* 11 octal digits, a space, the name, a NUL, the id */
		if (e->name_len > SIZE_MAX / 2 - need - 12 - FGIT_MAX_RAWSZ)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		need += 12 + e->name_len + 1 + FGIT_MAX_RAWSZ;
	}
	if (!sorted)
		qsort(entries, n, sizeof(*entries), entry_qsort_cmp);
	if ((r = fgit_buf_grow(out, need)) < 0)
		return r;
	p = out->ptr + out->len;
	for (i = 0; i < n; i++) {
		const struct fgit_tree_entry *e = &entries[i];
		if (i && entries[i - 1].name_len == e->name_len &&
		    !memcmp(entries[i - 1].name, e->name, e->name_len))
			return fgit_error_set(FGIT_EINVALID, "duplicate tree entry '%.*s'",
					      (int)e->name_len, e->name);
		rawsz = fgit_hash_rawsz(e->oid.algo ? e->oid.algo : FGIT_HASH_SHA1);
		p += put_mode(p, e->mode);
		*p++ = ' ';
		memcpy(p, e->name, e->name_len);
		p += e->name_len;
		*p++ = '\0';
		memcpy(p, e->oid.hash, rawsz);
		p += rawsz;
	}
	fgit_buf_setlen(out, (size_t)(p - out->ptr));
	return 0;
}
