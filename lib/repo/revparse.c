/*
 * Revision syntax (gitrevisions(7)): the part of it that names one object.
 *
 * A spec is taken apart from the right, as the syntax nests: "X^{type}",
 * "X^N" and "X~N" each apply to the revision X on their left; what remains
 * is a name (a full id, a ref by git's dwim rules, or an abbreviated id).
 * "<rev>:<path>" splits at the first ':' outside braces.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "repo.h"

enum want {
	WANT_ANY,
	WANT_COMMITTISH,
	WANT_TREEISH,
};

struct ctx {
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	const char *spec;
	char *ref;		/* full ref name when spec is a bare ref */
	char *ambiguous;
	char *broken;
	int why;
};

static int read_obj(void **buf, size_t *len, enum fgit_object_type *type,
		    struct ctx *c, const struct fgit_oid *oid)
{
	int r = fgit_odb_read(buf, len, type, c->odb, oid);
	if (r == FGIT_ENOTFOUND)
		fgit_error_clear();
	return r;
}

static int obj_type(enum fgit_object_type *type, struct ctx *c, const struct fgit_oid *oid)
{
	struct fgit_object_info info;
	int r = fgit_odb_read_info(&info, c->odb, oid, FGIT_INFO_TYPE);
	if (r)
		return r;
	*type = info.type;
	return 0;
}

/*
 * Peel oid towards `target` (FGIT_OBJ_NONE: peel tags away).  Commits peel
 * to their tree when a tree is wanted.  Stops with *type_out the type where
 * it could go no further.
 */
static int peel(struct fgit_oid *oid, enum fgit_object_type *type_out, struct ctx *c,
		enum fgit_object_type target)
{
	int depth;

	for (depth = 0; depth < 64; depth++) {
		enum fgit_object_type t;
		void *buf = NULL;
		size_t len;
		int r;

		if ((r = obj_type(&t, c, oid)))
			return r;
		*type_out = t;
		if (t == target)
			return 0;
		if (t == FGIT_OBJ_TAG) {
			struct fgit_tag tag;
			if ((r = read_obj(&buf, &len, &t, c, oid)))
				return r;
			r = fgit_tag_parse(&tag, buf, len, fgit_odb_algo(c->odb));
			free(buf);
			if (r)
				return r;
			*oid = tag.object;
			continue;
		}
		/* commits lead to their tree for any other type, as in git */
		if (t == FGIT_OBJ_COMMIT && target != FGIT_OBJ_NONE) {
			struct fgit_commit cm;
			if ((r = read_obj(&buf, &len, &t, c, oid)))
				return r;
			r = fgit_commit_parse(&cm, buf, len, fgit_odb_algo(c->odb));
			free(buf);
			if (r)
				return r;
			*oid = cm.tree;
			continue;
		}
		return 0;	/* cannot go further */
	}
	return fgit_error_set(FGIT_EINVALID, "tag chain too long");
}

static int peel_to_commit(struct fgit_oid *oid, struct ctx *c)
{
	enum fgit_object_type t;
	int r = peel(oid, &t, c, FGIT_OBJ_COMMIT);
	if (r)
		return r;
	return t == FGIT_OBJ_COMMIT ? 0 : FGIT_ENOTFOUND;
}

static int parent(struct fgit_oid *oid, struct ctx *c, unsigned long n, int first_only_steps)
{
	void *buf = NULL;
	size_t len;
	enum fgit_object_type t;
	struct fgit_commit cm;
	int r;

	if ((r = read_obj(&buf, &len, &t, c, oid)))
		return r;
	r = fgit_commit_parse(&cm, buf, len, fgit_odb_algo(c->odb));
	if (!r) {
		if (n == 0 || n > cm.nparents)
			r = FGIT_ENOTFOUND;
		else
			fgit_commit_parent(oid, &cm, n - 1);
	}
	free(buf);
	return r;
}

/* Abbreviated ids: candidates, filtered by what the context wants. */
struct prefix_hits {
	struct fgit_oid oids[16];
	size_t n;
	int more;
};

static int collect(const struct fgit_oid *oid, void *payload)
{
	struct prefix_hits *h = payload;
	size_t i;

	for (i = 0; i < h->n; i++)
		if (fgit_oid_equal(&h->oids[i], oid))
			return 0;
	if (h->n == 16) {
		h->more = 1;
		return 1;
	}
	h->oids[h->n++] = *oid;
	return 0;
}

static int resolve_short(struct fgit_oid *out, struct ctx *c, const char *hex, size_t n,
			 enum want want)
{
	struct fgit_oid prefix;
	struct prefix_hits h = { .n = 0 };
	size_t i, kept = 0;
	int r;

	if (fgit_oid_from_hex_prefix(&prefix, hex, n, fgit_odb_algo(c->odb)))
		return FGIT_ENOTFOUND;
	r = fgit_odb_foreach_prefix(c->odb, &prefix, n, collect, &h);
	if (r < 0)
		return r;
	if (h.n > 1 && want != WANT_ANY && !h.more) {
		for (i = 0; i < h.n; i++) {
			struct fgit_oid o = h.oids[i];
			enum fgit_object_type t;
			if (peel(&o, &t, c, want == WANT_TREEISH ? FGIT_OBJ_TREE : FGIT_OBJ_COMMIT))
				continue;
			if (t == FGIT_OBJ_COMMIT || (want == WANT_TREEISH && t == FGIT_OBJ_TREE))
				h.oids[kept++] = h.oids[i];
		}
		fgit_error_clear();
		if (kept)
			h.n = kept;
	}
	if (h.n == 0)
		return FGIT_ENOTFOUND;
	if (h.n > 1 || h.more)
		return fgit_error_set(FGIT_EAMBIGUOUS, "short object ID %.*s is ambiguous",
				      (int)n, hex);
	*out = h.oids[0];
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (fgit_hexval(s[i]) < 0)
			return 0;
	return 1;
}

/* A plain name: full id, ref, abbreviated id. */
static int get_basic(struct fgit_oid *out, struct ctx *c, const char *name, size_t len,
		     enum want want, int top)
{
	size_t hexsz = fgit_hash_hexsz(c->repo->algo);
	char *ref = NULL;
	int n;

	if (len == 1 && name[0] == '@') {
		name = "HEAD";
		len = 4;
	}
	if (memchr(name, '@', len) && len > 1) {
		const char *p;
		for (p = name; p + 1 < name + len; p++)
			if (p[0] == '@' && p[1] == '{')
				return fgit_error_set(FGIT_ERROR, "'%.*s': @{...} is not implemented yet",
						      (int)len, name);
	}
	if (len == hexsz && is_hex(name, len))
		return fgit_oid_from_hex(out, name, c->repo->algo) ? FGIT_ENOTFOUND : 0;
	n = fgit_refdb_dwim(out, &ref, c->broken ? NULL : &c->broken, c->refdb, name, len);
	if (n < 0)
		return n;
	if (n > 1 && !c->ambiguous)
		c->ambiguous = strndup(name, len);
	if (n > 0) {
		if (top) {
			free(c->ref);
			c->ref = ref;
		} else {
			free(ref);
		}
		return 0;
	}
	if (len >= 4 && len < hexsz && is_hex(name, len))
		return resolve_short(out, c, name, len, want);
	return FGIT_ENOTFOUND;
}

static int get_oid_1(struct fgit_oid *out, struct ctx *c, const char *name, size_t len,
		     enum want want, int top);

static int peel_onion(struct fgit_oid *out, struct ctx *c, const char *name, size_t len,
		      const char *open)
{
	const char *type = open + 2;
	size_t tlen = (size_t)(name + len - 1 - type);
	enum fgit_object_type target, got;
	enum want want = WANT_ANY;
	int r;

	if (tlen >= 1 && type[0] == '/')
		return fgit_error_set(FGIT_ERROR, "'%.*s': ^{/<regex>} is not implemented yet",
				      (int)len, name);
	if (tlen == 0)
		target = FGIT_OBJ_NONE;
	else if (tlen == 6 && !memcmp(type, "object", 6))
		target = FGIT_OBJ_BAD;
	else if ((target = fgit_object_type_from_name(type, tlen)) == FGIT_OBJ_BAD)
		return FGIT_ENOTFOUND;
	if (target == FGIT_OBJ_COMMIT)
		want = WANT_COMMITTISH;
	else if (target == FGIT_OBJ_TREE)
		want = WANT_TREEISH;
	r = get_oid_1(out, c, name, (size_t)(open - name), want, 0);
	if (r)
		return r;
	if (target == FGIT_OBJ_BAD) {
		/* ^{object}: it must exist */
		return fgit_odb_exists(c->odb, out) ? 0 : FGIT_ENOTFOUND;
	}
	r = peel(out, &got, c, target);
	if (r)
		return r;
	if (target != FGIT_OBJ_NONE && got != target) {
		c->why = FGIT_REVPARSE_PEEL_ERROR;
		return fgit_error_set(FGIT_EINVALID,
				      "%.*s: expected %s type, but the object dereferences to %s type",
				      (int)len, name, fgit_object_type_name(target),
				      fgit_object_type_name(got));
	}
	return 0;
}

static int get_oid_1(struct fgit_oid *out, struct ctx *c, const char *name, size_t len,
		     enum want want, int top)
{
	const char *cp;
	unsigned long num = 0;
	int r, has_num;

	if (!len)
		return FGIT_ENOTFOUND;
	if (name[len - 1] == '}') {
		for (cp = name + len - 1; cp > name; cp--)
			if (cp[0] == '{' && cp[-1] == '^')
				return peel_onion(out, c, name, len, cp - 1);
	}
	cp = name + len;
	while (cp > name && isdigit((unsigned char)cp[-1]))
		cp--;
	if (cp > name && (cp[-1] == '^' || cp[-1] == '~')) {
		const char *d;
		char op = cp[-1];
		has_num = cp < name + len;
		for (d = cp; d < name + len; d++) {
			if (num > (~0UL - 9) / 10)
				return FGIT_ENOTFOUND;
			num = num * 10 + (unsigned long)(*d - '0');
		}
		if (!has_num)
			num = 1;
		r = get_oid_1(out, c, name, (size_t)(cp - 1 - name), WANT_COMMITTISH, 0);
		if (r)
			return r;
		if ((r = peel_to_commit(out, c)))
			return r;
		if (op == '^')
			return num ? parent(out, c, num, 0) : 0;
		while (num--)
			if ((r = parent(out, c, 1, 1)))
				return r;
		return 0;
	}
	return get_basic(out, c, name, len, want, top);
}

/* "./x" and "../x" are relative to the cwd within the worktree (prefix). */
static int resolve_relative(struct fgit_buf *full, const char *prefix, const char *path)
{
	const char *p;

	if (!(!strcmp(path, ".") || !strncmp(path, "./", 2) ||
	      !strcmp(path, "..") || !strncmp(path, "../", 3)))
		return fgit_buf_adds(full, path);
	fgit_buf_adds(full, prefix);
	p = path;
	while (*p) {
		if (p[0] == '.' && (p[1] == '/' || !p[1])) {
			p += p[1] ? 2 : 1;
		} else if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2])) {
			if (!full->len)
				return fgit_error_set(FGIT_EINVALID, "outside repository");
			fgit_buf_setlen(full, full->len - 1);
			while (full->len && full->ptr[full->len - 1] != '/')
				fgit_buf_setlen(full, full->len - 1);
			p += p[2] ? 3 : 2;
		} else {
			break;
		}
	}
	fgit_buf_adds(full, p);
	while (full->len && full->ptr[full->len - 1] == '/')
		fgit_buf_setlen(full, full->len - 1);
	return 0;
}

/* :<path> and :<stage>:<path>, looked up in the index. */
static int index_path(struct fgit_oid *out, struct ctx *c, const char *spec)
{
	struct fgit_index_load_opts opts = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_buf full = FGIT_BUF_INIT, ipath = FGIT_BUF_INIT, disk = FGIT_BUF_INIT;
	const char *env = getenv("GIT_INDEX_FILE"), *path = spec + 1;
	const char *prefix = c->repo->prefix ? c->repo->prefix : "";
	const struct fgit_index_entry *e;
	struct fgit_index *idx = NULL;
	unsigned int stage = 0;
	size_t pos;
	struct stat st;
	int r;

	if (spec[1] >= '0' && spec[1] <= '3' && spec[2] == ':') {
		stage = (unsigned int)(spec[1] - '0');
		path = spec + 3;
	}
	if ((r = resolve_relative(&full, prefix, path)))
		goto out;
	if (env && *env)
		fgit_buf_adds(&ipath, env);
	else
		fgit_buf_addf(&ipath, "%s/index", c->repo->git_dir);
	opts.algo = c->repo->algo;
	opts.shared_index_dir = c->repo->git_dir;
	opts.flags = FGIT_INDEX_LOAD_MISSING_OK;
	if ((r = fgit_index_load(&idx, ipath.ptr, &opts)))
		goto out;
	e = fgit_index_lookup(idx, full.ptr, stage);
	if (e) {
		*out = e->oid;
		r = 0;
		goto out;
	}
	c->why = FGIT_REVPARSE_PATH_ERROR;
	if (fgit_index_find_any_stage(&pos, idx, full.ptr, full.len)) {
		r = fgit_error_set(FGIT_EINVALID, "path '%s' is in the index, but not at stage %u",
				   full.ptr, stage);
		goto out;
	}
	if (*prefix) {
		struct fgit_buf in_prefix = FGIT_BUF_INIT;
		fgit_buf_addf(&in_prefix, "%s%s", prefix, full.ptr);
		if (fgit_index_lookup(idx, in_prefix.ptr, stage)) {
			r = fgit_error_set(FGIT_EINVALID, "path '%s' is in the index, but not '%s'",
					   in_prefix.ptr, full.ptr);
			fgit_buf_release(&in_prefix);
			goto out;
		}
		fgit_buf_release(&in_prefix);
	}
	if (c->repo->work_tree)
		fgit_buf_addf(&disk, "%s/%s", c->repo->work_tree, full.ptr);
	if (disk.len && lstat(disk.ptr, &st) == 0)
		r = fgit_error_set(FGIT_EINVALID, "path '%s' exists on disk, but not in the index",
				   full.ptr);
	else
		r = fgit_error_set(FGIT_EINVALID,
				   "path '%s' does not exist (neither on disk nor in the index)",
				   full.ptr);
out:
	fgit_index_free(idx);
	fgit_buf_release(&full);
	fgit_buf_release(&ipath);
	fgit_buf_release(&disk);
	return r;
}

/* <tree-ish>:<path> */
static int tree_path(struct fgit_oid *out, struct ctx *c, const char *rev, size_t revlen,
		     const char *path)
{
	struct fgit_buf full = FGIT_BUF_INIT;
	const char *p, *prefix = c->repo->prefix ? c->repo->prefix : "";
	enum fgit_object_type t;
	struct stat st;
	int r;

	if ((r = resolve_relative(&full, prefix, path)))
		goto out;

	r = get_oid_1(out, c, rev, revlen, WANT_TREEISH, 0);
	if (r)
		goto out;
	if ((r = peel(out, &t, c, FGIT_OBJ_TREE)))
		goto out;
	if (t != FGIT_OBJ_TREE) {
		r = FGIT_ENOTFOUND;
		goto out;
	}
	p = full.ptr;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		struct fgit_tree_entry e;
		void *buf = NULL;
		size_t len;

		if (n == 0) {
			p++;
			continue;
		}
		if (t != FGIT_OBJ_TREE)
			goto missing;
		if ((r = read_obj(&buf, &len, &t, c, out)))
			goto out;
		r = fgit_tree_find(&e, buf, len, fgit_odb_algo(c->odb), p, n);
		free(buf);
		if (r == FGIT_ENOTFOUND)
			goto missing;
		if (r)
			goto out;
		*out = e.oid;
		t = fgit_mode_is_tree(e.mode) ? FGIT_OBJ_TREE : FGIT_OBJ_BLOB;
		p += n;
	}
	r = 0;
	goto out;
missing:
	c->why = FGIT_REVPARSE_PATH_ERROR;
	{
		struct fgit_buf on_disk = FGIT_BUF_INIT;
		int exists = 0;
		if (c->repo->work_tree) {
			fgit_buf_addf(&on_disk, "%s/%s", c->repo->work_tree, full.ptr);
			exists = lstat(on_disk.ptr, &st) == 0;
		}
		fgit_buf_release(&on_disk);
		if (exists)
			r = fgit_error_set(FGIT_EINVALID, "path '%s' exists on disk, but not in '%.*s'",
					   full.ptr, (int)revlen, rev);
		else
			r = fgit_error_set(FGIT_EINVALID, "path '%s' does not exist in '%.*s'",
					   full.ptr, (int)revlen, rev);
	}
out:
	fgit_buf_release(&full);
	return r;
}

void fgit_revparse_info_release(struct fgit_revparse_info *info)
{
	free(info->ref);
	free(info->ambiguous);
	free(info->broken);
	info->ref = info->ambiguous = info->broken = NULL;
}

int fgit_revparse_ext(struct fgit_oid *out, struct fgit_revparse_info *info,
		      struct fgit_repo *repo, const char *spec)
{
	struct ctx c = { repo, NULL, NULL, spec, NULL, NULL, NULL, 0 };
	struct fgit_oid oid;
	const char *cp;
	int depth = 0, r;

	if ((r = fgit_repo_odb(&c.odb, repo)) || (r = fgit_repo_refdb(&c.refdb, repo)))
		return r;
	if (spec[0] == ':' && spec[1] == '/')
		return fgit_error_set(FGIT_ERROR, "'%s': :/<regex> is not implemented yet", spec);
	for (cp = spec; *cp; cp++) {
		if (*cp == '{')
			depth++;
		else if (depth && *cp == '}')
			depth--;
		else if (!depth && *cp == ':')
			break;
	}
	fgit_oid_zero(&oid, repo->algo);
	if (spec[0] == ':')
		r = index_path(&oid, &c, spec);
	else if (*cp == ':')
		r = tree_path(&oid, &c, spec, (size_t)(cp - spec), cp + 1);
	else
		r = get_oid_1(&oid, &c, spec, strlen(spec), WANT_ANY, 1);
	if (r == FGIT_ENOTFOUND)
		fgit_error_set(FGIT_ENOTFOUND, "unknown revision '%s'", spec);
	if (!r)
		*out = oid;
	if (info) {
		info->why = r == FGIT_ENOTFOUND ? FGIT_REVPARSE_BAD : r ? c.why : 0;
		info->ref = r ? NULL : c.ref;
		info->ambiguous = c.ambiguous;
		info->broken = c.broken;
		if (!r)
			c.ref = NULL;
		c.ambiguous = c.broken = NULL;
	}
	free(c.ref);
	free(c.ambiguous);
	free(c.broken);
	return r;
}

int fgit_revparse_single(struct fgit_oid *out, struct fgit_repo *repo, const char *spec)
{
	return fgit_revparse_ext(out, NULL, repo, spec);
}
