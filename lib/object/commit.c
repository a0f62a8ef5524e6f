/*
 * Commits, tags and idents: lenient parsing as git's object parser does
 * (for revision walking), strict validation as git fsck does, and
 * serialization.  Everything is bounded by the (buf, len) given; parsed
 * fields point into that buffer.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/object.h"

/* If [p, end) starts with keyword (incl. its space), return the value start. */
static const char *skip_kw(const char *p, const char *end, const char *kw)
{
	size_t n = strlen(kw);
	if ((size_t)(end - p) < n || memcmp(p, kw, n))
		return NULL;
	return p + n;
}

/* End of the line starting at p (the '\n', or end). */
static const char *eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

/* Parse "<hex>\n" at p; returns pointer after the newline or NULL. */
static const char *parse_oid_line(struct fgit_oid *out, const char *p,
				  const char *end, int algo)
{
	size_t hexsz = fgit_hash_hexsz(algo);
	if ((size_t)(end - p) < hexsz + 1 || p[hexsz] != '\n' ||
	    fgit_oid_from_hex(out, p, algo) < 0)
		return NULL;
	return p + hexsz + 1;
}

static int64_t parse_i64(const char *p, const char *end, const char **stop)
{
	uint64_t v = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (v > (uint64_t)INT64_MAX / 10)
			v = (uint64_t)INT64_MAX / 10;	/* saturate */
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	*stop = p;
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

int fgit_ident_split(struct fgit_ident *out, const char *line, size_t len)
{
	const char *end = line + len, *lt, *gt, *p, *q;
	struct fgit_ident id;

	memset(&id, 0, sizeof(id));
	lt = memchr(line, '<', len);
	if (!lt)
		return fgit_error_set(FGIT_EINVALID, "malformed ident");
	gt = NULL;
	for (p = end; p > lt; p--)
		if (p[-1] == '>') {
			gt = p - 1;
			break;
		}
	if (!gt)
		return fgit_error_set(FGIT_EINVALID, "malformed ident");
	id.name = line;
	for (q = lt; q > line && q[-1] == ' '; q--)
		;
	id.name_len = (size_t)(q - line);
	id.email = lt + 1;
	id.email_len = (size_t)(gt - lt - 1);
	p = gt + 1;
	while (p < end && *p == ' ')
		p++;
	if (p < end) {
		const char *stop;
		id.date = p;
		id.date_len = (size_t)(end - p);
		id.time = parse_i64(p, end, &stop);
		p = stop;
		while (p < end && *p == ' ')
			p++;
		if (p < end && (*p == '+' || *p == '-')) {
			int sign = *p == '-' ? -1 : 1;
			int64_t tz = parse_i64(p + 1, end, &stop);
			id.tz = sign * (int)(tz > 9999 ? 9999 : tz);
		}
	}
	*out = id;
	return 0;
}

int fgit_commit_parse(struct fgit_commit *out, const void *buf, size_t len, int algo)
{
	const char *p = buf, *end = p + len, *v, *e;
	struct fgit_commit c;
	struct fgit_oid tmp;

	if (!algo)
		algo = FGIT_HASH_SHA1;
	memset(&c, 0, sizeof(c));
	c.algo = algo;
	if (!(v = skip_kw(p, end, "tree ")) || !(p = parse_oid_line(&c.tree, v, end, algo)))
		return fgit_error_set(FGIT_EINVALID, "bad tree pointer in commit");
	c.parents = p;
	while ((v = skip_kw(p, end, "parent "))) {
		if (!(p = parse_oid_line(&tmp, v, end, algo)))
			return fgit_error_set(FGIT_EINVALID, "bad parents in commit");
		c.nparents++;
	}
	/* The remaining headers, up to the blank line. */
	c.message_offset = len;
	while (p < end) {
		if (*p == '\n') {
			c.message_offset = (size_t)(p + 1 - (const char *)buf);
			break;
		}
		e = eol(p, end);
		if ((v = skip_kw(p, e, "author ")) && !c.author) {
			c.author = v;
			c.author_len = (size_t)(e - v);
		} else if ((v = skip_kw(p, e, "committer ")) && !c.committer) {
			struct fgit_ident id;
			c.committer = v;
			c.committer_len = (size_t)(e - v);
			if (fgit_ident_split(&id, v, c.committer_len) == 0)
				c.committer_time = id.time;
		} else if ((v = skip_kw(p, e, "encoding ")) && !c.encoding) {
			c.encoding = v;
			c.encoding_len = (size_t)(e - v);
		}
		p = e < end ? e + 1 : end;
	}
	*out = c;
	fgit_error_clear();
	return 0;
}

void fgit_commit_parent(struct fgit_oid *out, const struct fgit_commit *c, size_t i)
{
	size_t line = 7 + fgit_hash_hexsz(c->algo) + 1;
	fgit_oid_from_hex(out, c->parents + i * line + 7, c->algo);
}

/*
 * The header of a commit or tag must end with a blank line or the end of
 * the buffer after a newline, and contain no NUL (fsck's verify_headers).
 */
static int verify_headers(const char *buf, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\0')
			return fgit_error_set(FGIT_EINVALID,
					      "nulInHeader: unterminated header: NUL at offset %zu", i);
		if (buf[i] == '\n' && i + 1 < len && buf[i + 1] == '\n')
			return 0;
	}
	if (len && buf[len - 1] == '\n')
		return 0;
	return fgit_error_set(FGIT_EINVALID, "unterminatedHeader: unterminated header");
}

/* fsck's ident rules over one line [p, e) (e at the '\n'). */
static int check_ident(const char *p, const char *e, const char *what)
{
	const char *q, *stop;

	if (p < e && *p == '<')
		return fgit_error_set(FGIT_EINVALID,
			"missingNameBeforeEmail: invalid %s line - missing space before email", what);
	for (q = p; q < e && *q != '<' && *q != '>'; q++)
		;
	if (q < e && *q == '>')
		return fgit_error_set(FGIT_EINVALID, "badName: invalid %s line - bad name", what);
	if (q >= e)
		return fgit_error_set(FGIT_EINVALID, "missingEmail: invalid %s line - missing email", what);
	if (q == p || q[-1] != ' ')
		return fgit_error_set(FGIT_EINVALID,
			"missingSpaceBeforeEmail: invalid %s line - missing space before email", what);
	for (q++; q < e && *q != '<' && *q != '>'; q++)
		;
	if (q >= e || *q != '>')
		return fgit_error_set(FGIT_EINVALID, "badEmail: invalid %s line - bad email", what);
	q++;
	if (q >= e || *q != ' ')
		return fgit_error_set(FGIT_EINVALID,
			"missingSpaceBeforeDate: invalid %s line - missing space before date", what);
	q++;
	if (q + 1 < e && *q == '0' && q[1] != ' ')
		return fgit_error_set(FGIT_EINVALID,
			"zeroPaddedDate: invalid %s line - zero-padded date", what);
	{
		const char *d = q;
		int digits = 0;
		while (q < e && *q >= '0' && *q <= '9') {
			q++;
			digits++;
		}
		if (digits > 19 || (digits == 19 && memcmp(d, "9223372036854775807", 19) > 0))
			return fgit_error_set(FGIT_EINVALID,
				"badDateOverflow: invalid %s line - date causes integer overflow", what);
		if (!digits || q >= e || *q != ' ')
			return fgit_error_set(FGIT_EINVALID, "badDate: invalid %s line - bad date", what);
	}
	q++;
	stop = q;
	if (e - stop != 5 || (*stop != '+' && *stop != '-') ||
	    stop[1] < '0' || stop[1] > '9' || stop[2] < '0' || stop[2] > '9' ||
	    stop[3] < '0' || stop[3] > '9' || stop[4] < '0' || stop[4] > '9')
		return fgit_error_set(FGIT_EINVALID,
			"badTimezone: invalid %s line - bad time zone", what);
	return 0;
}

int fgit_commit_check(const void *buf, size_t len, int algo, unsigned int flags)
{
	const char *p = buf, *end = p + len, *v, *e;
	struct fgit_oid tmp;
	int r, authors = 0;

	if (!algo)
		algo = FGIT_HASH_SHA1;
	if ((r = verify_headers(buf, len)) < 0)
		return r;
	if (!(v = skip_kw(p, end, "tree ")))
		return fgit_error_set(FGIT_EINVALID,
				      "missingTree: invalid format - expected 'tree' line");
	if (!(p = parse_oid_line(&tmp, v, end, algo)))
		return fgit_error_set(FGIT_EINVALID,
				      "badTreeSha1: invalid 'tree' line format - bad sha1");
	while ((v = skip_kw(p, end, "parent ")))
		if (!(p = parse_oid_line(&tmp, v, end, algo)))
			return fgit_error_set(FGIT_EINVALID,
					      "badParentSha1: invalid 'parent' line format - bad sha1");
	while ((v = skip_kw(p, end, "author "))) {
		authors++;
		e = eol(v, end);
		if ((r = check_ident(v, e, "author/committer")) < 0)
			return r;
		p = e + 1;
	}
	if (authors < 1)
		return fgit_error_set(FGIT_EINVALID,
				      "missingAuthor: invalid format - expected 'author' line");
	if (authors > 1)
		return fgit_error_set(FGIT_EINVALID,
				      "multipleAuthors: invalid format - multiple 'author' lines");
	if (!(v = skip_kw(p, end, "committer ")))
		return fgit_error_set(FGIT_EINVALID,
				      "missingCommitter: invalid format - expected 'committer' line");
	e = eol(v, end);
	if ((r = check_ident(v, e, "author/committer")) < 0)
		return r;
	if ((flags & FGIT_CHECK_STRICT) && memchr(buf, '\0', len))
		return fgit_error_set(FGIT_EINVALID, "nulInCommit: NUL byte in the commit object body");
	return 0;
}

int fgit_commit_serialize(struct fgit_buf *out, const struct fgit_oid *tree,
			  const struct fgit_oid *parents, size_t nparents,
			  const char *author, const char *committer,
			  const char *extra_headers, const char *message)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	size_t i;
	int r;

	if ((r = fgit_buf_addf(out, "tree %s\n", fgit_oid_to_hex(hex, tree))) < 0)
		return r;
	for (i = 0; i < nparents; i++)
		if ((r = fgit_buf_addf(out, "parent %s\n", fgit_oid_to_hex(hex, &parents[i]))) < 0)
			return r;
	if ((r = fgit_buf_addf(out, "author %s\ncommitter %s\n", author, committer)) < 0)
		return r;
	if (extra_headers && (r = fgit_buf_adds(out, extra_headers)) < 0)
		return r;
	if ((r = fgit_buf_addch(out, '\n')) < 0)
		return r;
	return message ? fgit_buf_adds(out, message) : 0;
}

/* ---- tags ---- */

int fgit_tag_parse(struct fgit_tag *out, const void *buf, size_t len, int algo)
{
	const char *p = buf, *end = p + len, *v, *e;
	struct fgit_tag t;

	if (!algo)
		algo = FGIT_HASH_SHA1;
	memset(&t, 0, sizeof(t));
	t.algo = algo;
	if (!(v = skip_kw(p, end, "object ")) || !(p = parse_oid_line(&t.object, v, end, algo)))
		return fgit_error_set(FGIT_EINVALID, "bad tag: no object");
	if (!(v = skip_kw(p, end, "type ")))
		return fgit_error_set(FGIT_EINVALID, "bad tag: no type");
	e = eol(v, end);
	if (e >= end)
		return fgit_error_set(FGIT_EINVALID, "bad tag: no type");
	t.type = fgit_object_type_from_name(v, (size_t)(e - v));
	if (t.type == FGIT_OBJ_BAD)
		return fgit_error_set(FGIT_EINVALID, "bad tag: unknown type '%.*s'",
				      (int)(e - v), v);
	p = e + 1;
	if (!(v = skip_kw(p, end, "tag ")))
		return fgit_error_set(FGIT_EINVALID, "bad tag: no tag name");
	e = eol(v, end);
	if (e >= end)
		return fgit_error_set(FGIT_EINVALID, "bad tag: no tag name");
	t.name = v;
	t.name_len = (size_t)(e - v);
	p = e + 1;
	if ((v = skip_kw(p, end, "tagger "))) {
		e = eol(v, end);
		t.tagger = v;
		t.tagger_len = (size_t)(e - v);
		p = e < end ? e + 1 : end;
	}
	/* Skip any other headers up to the blank line. */
	t.message_offset = len;
	while (p < end) {
		if (*p == '\n') {
			t.message_offset = (size_t)(p + 1 - (const char *)buf);
			break;
		}
		e = eol(p, end);
		p = e < end ? e + 1 : end;
	}
	*out = t;
	return 0;
}

int fgit_tag_check(const void *buf, size_t len, int algo, unsigned int flags)
{
	const char *p = buf, *end = p + len, *v, *e;
	struct fgit_oid tmp;
	int r;

	if (!algo)
		algo = FGIT_HASH_SHA1;
	if ((r = verify_headers(buf, len)) < 0)
		return r;
	if (!(v = skip_kw(p, end, "object ")))
		return fgit_error_set(FGIT_EINVALID,
				      "missingObject: invalid format - expected 'object' line");
	if (!(p = parse_oid_line(&tmp, v, end, algo)))
		return fgit_error_set(FGIT_EINVALID,
				      "badObjectSha1: invalid 'object' line format - bad sha1");
	if (!(v = skip_kw(p, end, "type ")))
		return fgit_error_set(FGIT_EINVALID,
				      "missingTypeEntry: invalid format - expected 'type' line");
	e = eol(v, end);
	if (e >= end)
		return fgit_error_set(FGIT_EINVALID,
				      "missingTypeEntry: invalid format - unexpected end after 'type' line");
	if (fgit_object_type_from_name(v, (size_t)(e - v)) == FGIT_OBJ_BAD)
		return fgit_error_set(FGIT_EINVALID, "badType: invalid 'type' value");
	p = e + 1;
	if (!(v = skip_kw(p, end, "tag ")))
		return fgit_error_set(FGIT_EINVALID,
				      "missingTagEntry: invalid format - expected 'tag' line");
	e = eol(v, end);
	if (e >= end)
		return fgit_error_set(FGIT_EINVALID,
				      "missingTagEntry: invalid format - unexpected end after 'type' line");
	p = e + 1;
	if (!(v = skip_kw(p, end, "tagger "))) {
		if (flags & FGIT_CHECK_STRICT)
			return fgit_error_set(FGIT_EINVALID,
					      "missingTaggerEntry: invalid format - expected 'tagger' line");
		return 0;
	}
	return check_ident(v, eol(v, end), "author/committer");
}

int fgit_tag_serialize(struct fgit_buf *out, const struct fgit_oid *object,
		       enum fgit_object_type type, const char *name,
		       const char *tagger, const char *message)
{
	char hex[FGIT_MAX_HEXSZ + 1];
	const char *tn = fgit_object_type_name(type);
	int r;

	if (!tn || type > FGIT_OBJ_TAG)
		return fgit_error_set(FGIT_EINVALID, "invalid object type for tag");
	if ((r = fgit_buf_addf(out, "object %s\ntype %s\ntag %s\n",
			       fgit_oid_to_hex(hex, object), tn, name)) < 0)
		return r;
	if (tagger && (r = fgit_buf_addf(out, "tagger %s\n", tagger)) < 0)
		return r;
	if ((r = fgit_buf_addch(out, '\n')) < 0)
		return r;
	return message ? fgit_buf_adds(out, message) : 0;
}

int fgit_object_check(enum fgit_object_type type, const void *buf, size_t len,
		      int algo, unsigned int flags)
{
	switch (type) {
	case FGIT_OBJ_TREE:
		return fgit_tree_check(buf, len, algo, flags);
	case FGIT_OBJ_COMMIT:
		return fgit_commit_check(buf, len, algo, flags);
	case FGIT_OBJ_TAG:
		return fgit_tag_check(buf, len, algo, flags);
	case FGIT_OBJ_BLOB:
		return 0;
	default:
		return fgit_error_set(FGIT_EINVALID, "invalid object type");
	}
}

int fgit_object_foreach_link(enum fgit_object_type type, const void *buf, size_t len,
			     int algo,
			     int (*cb)(const struct fgit_oid *oid, enum fgit_object_type type,
				       void *payload),
			     void *payload)
{
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	struct fgit_commit c;
	struct fgit_tag t;
	struct fgit_oid oid;
	size_t i;
	int r;

	switch (type) {
	case FGIT_OBJ_TREE:
		fgit_tree_iter_init(&it, buf, len, algo);
		while ((r = fgit_tree_iter_next(&e, &it)) > 0) {
			if (e.mode == FGIT_MODE_GITLINK)
				continue;
			r = cb(&e.oid, fgit_mode_is_tree(e.mode) ? FGIT_OBJ_TREE : FGIT_OBJ_BLOB,
			       payload);
			if (r)
				return r;
		}
		return r;
	case FGIT_OBJ_COMMIT:
		if ((r = fgit_commit_parse(&c, buf, len, algo)) < 0)
			return r;
		if ((r = cb(&c.tree, FGIT_OBJ_TREE, payload)))
			return r;
		for (i = 0; i < c.nparents; i++) {
			fgit_commit_parent(&oid, &c, i);
			if ((r = cb(&oid, FGIT_OBJ_COMMIT, payload)))
				return r;
		}
		return 0;
	case FGIT_OBJ_TAG:
		if ((r = fgit_tag_parse(&t, buf, len, algo)) < 0)
			return r;
		return cb(&t.object, t.type, payload);
	default:
		return 0;
	}
}
