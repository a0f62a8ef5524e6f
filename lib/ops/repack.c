/*
 * git repack, in-process: no pack-objects child and no pipe of object
 * names (seed 003: the fastest pipe is none).  The walk of refs, reflogs
 * and index feeds the packer directly; the new pack is renamed into place
 * (pack, rev, idx: the idx last, so readers never see an idx without its
 * pack) before any old pack is deleted.  Then prune-packed and
 * update-server-info, as git's repack runs them.
 */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/index.h"
#include "fgit/lockfile.h"
#include "fgit/midx.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pack.h"
#include "fgit/prune.h"
#include "fgit/refs.h"
#include "fgit/reflog_dir.h"
#include "fgit/repack.h"
#include "fgit/repo.h"
#include "fgit/revwalk.h"

struct old_pack {
	char *path;		/* .../pack-<hash>.pack */
	int kept;
};

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* base is "pack-<hex>.pack" (hex not empty). */
static int is_pack_named(const char *base, const char *hex)
{
	size_t n = strlen(hex);
	return n && !strncmp(base, "pack-", 5) && !strncmp(base + 5, hex, n) &&
	       !strcmp(base + 5 + n, ".pack");
}

/* path with ".pack" replaced by ext (malloc'd). */
static char *sibling(const char *pack_path, const char *ext)
{
	size_t n = strlen(pack_path);
	char *s = malloc(n + strlen(ext) + 1);
	if (!s)
		return NULL;
	memcpy(s, pack_path, n - 5);
	strcpy(s + n - 5, ext);
	return s;
}

static void remove_pack_files(const char *pack_path)
{
	static const char *const exts[] = { ".idx", ".rev", ".bitmap", ".promisor", ".mtimes",
					    ".pack" };
	size_t i;
	/* the idx first: readers then no longer find the pack */
	for (i = 0; i < sizeof(exts) / sizeof(*exts); i++) {
		char *p = sibling(pack_path, exts[i]);
		if (p)
			unlink(p);
		free(p);
	}
}

struct loosen_ctx {
	struct fgit_odb *odb;
	struct fgit_packer *pk;
	struct timeval mtime[2];
	int ret;
};

static int loosen_cb(const struct fgit_idx_entry *e, int has_crc, void *payload)
{
	struct loosen_ctx *c = payload;
	char hex[FGIT_MAX_HEXSZ + 1], path[4096];
	void *buf;
	size_t len;
	enum fgit_object_type type;
	struct fgit_oid oid;
	int ret;

	if (fgit_packer_contains(c->pk, &e->oid))
		return 0;
	fgit_oid_to_hex(hex, &e->oid);
	snprintf(path, sizeof(path), "%s/%.2s/%s", fgit_odb_path(c->odb), hex, hex + 2);
	if (!access(path, F_OK))
		return 0;
	if ((ret = fgit_odb_read(&buf, &len, &type, c->odb, &e->oid)) < 0)
		return c->ret = ret;
	ret = fgit_odb_write_loose(&oid, c->odb, type, buf, len);
	free(buf);
	if (ret < 0)
		return c->ret = ret;
	/* as git's --unpack-unreachable: the pack's age, for prune --expire */
	utimes(path, c->mtime);
	return 0;
}

/* -A: objects of a pack about to go that the new pack lacks become loose. */
static int loosen_pack(struct fgit_odb *odb, struct fgit_packer *pk, const char *pack_path)
{
	struct fgit_buf idx = FGIT_BUF_INIT;
	struct loosen_ctx c = { odb, pk, { { 0, 0 }, { 0, 0 } }, 0 };
	struct stat st;
	char *idx_path = sibling(pack_path, ".idx");
	int ret;

	if (!idx_path)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (!stat(pack_path, &st)) {
		c.mtime[0].tv_sec = c.mtime[1].tv_sec = st.st_mtime;
	} else {
		gettimeofday(&c.mtime[0], NULL);
		c.mtime[1] = c.mtime[0];
	}
	ret = fgit_buf_read_file(&idx, idx_path);
	if (!ret)
		ret = fgit_idx_parse((const unsigned char *)idx.ptr, idx.len, fgit_odb_algo(odb),
				     loosen_cb, &c);
	if (!ret && c.ret)
		ret = c.ret;
	fgit_buf_release(&idx);
	free(idx_path);
	return ret < 0 ? ret : 0;
}

/*
 * git's repack --write-midx: a midx over the new pack, the kept packs and
 * the old packs that stay (all of them unless -ad deletes them), given
 * by name as git's `multi-pack-index write --stdin-packs`.
 */
static int write_midx(struct fgit_odb *odb, struct fgit_refdb *refdb, const struct old_pack *old,
		      size_t nold, const char *new_pack, int deleting,
		      const struct fgit_repack_options *opts)
{
	struct fgit_midx_options mo = FGIT_MIDX_OPTIONS_INIT;
	const char *objdir = fgit_odb_path(odb);
	size_t dirlen = strlen(objdir), n = 0, i;
	char **names = calloc(nold + 1, sizeof(*names));
	int ret = 0;

	if (!names)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < nold; i++) {
		const char *p = old[i].path, *b = strrchr(p, '/');
		/* local packs only (objects_dir/pack/<name>), the new one once */
		if (!b || (size_t)(b - p) != dirlen + 5 || strncmp(p, objdir, dirlen) ||
		    strncmp(p + dirlen, "/pack/", 6))
			continue;
		if ((deleting && !old[i].kept) ||
		    is_pack_named(b + 1, new_pack))
			continue;
		if (!(names[n] = sibling(b + 1, ".idx"))) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	if (*new_pack && asprintf(&names[n++], "pack-%s.idx", new_pack) < 0) {
		names[--n] = NULL;
		ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto out;
	}
	mo.algo = fgit_odb_algo(odb);
	mo.only_packs = (const char *const *)names;
	mo.nr_only_packs = n;
	mo.progress_fd = opts->pack.progress ? opts->pack.progress_fd : -1;
	if (opts->write_midx_bitmap) {
		mo.write_bitmap = 1;
		mo.bitmap_hash_cache = opts->bitmap_hash_cache;
		mo.odb = odb;
		mo.refdb = refdb;
		mo.nthreads = opts->pack.nthreads;
	}
	ret = fgit_midx_write(objdir, &mo);
	if (ret > 0)	/* reported already: git's repack stops there */
		ret = fgit_error_set(FGIT_ERROR, "could not write multi-pack-index");
	/* the midx bitmap covers them: git removes the packs' own */
	for (i = 0; !ret && opts->write_midx_bitmap && i < n; i++) {
		struct fgit_buf p = FGIT_BUF_INIT;
		if (fgit_buf_addf(&p, "%s/pack/%.*s.bitmap", objdir, (int)(strlen(names[i]) - 4),
				  names[i]) < 0) {
			ret = FGIT_ENOMEM;
			break;
		}
		unlink(p.ptr);
		fgit_buf_release(&p);
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* ---- counting from the old bitmap ---- */

/* the tips go into a buffer of struct fgit_oid (it grows as it must) */
struct tips {
	struct fgit_odb *odb;
	struct fgit_buf v;
};

static int tips_push(struct tips *t, const struct fgit_oid *oid)
{
	return fgit_buf_add(&t->v, oid, sizeof(*oid));
}

static int tip_ref_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		      void *payload)
{
	(void)name;
	if (flags & FGIT_REF_BROKEN)
		return 0;	/* as the walk's --all */
	return tips_push(payload, oid);
}

static int tip_reflog_cb(const char *refname, const struct fgit_oid *old_oid,
			 const struct fgit_oid *new_oid, void *payload)
{
	struct tips *t = payload;
	int ret;
	(void)refname;
	/* as the walk's --reflog: ids that are missing are skipped */
	if (!fgit_oid_is_zero(old_oid) && fgit_odb_exists(t->odb, old_oid) &&
	    (ret = tips_push(t, old_oid)) < 0)
		return ret;
	if (!fgit_oid_is_zero(new_oid) && fgit_odb_exists(t->odb, new_oid) &&
	    (ret = tips_push(t, new_oid)) < 0)
		return ret;
	return 0;
}

/*
 * The tips of the walk below (refs, HEAD, reflogs; no index here) counted
 * from the old pack's bitmap, as git's pack-objects does.  On the history
 * corpus the walk of every tree was about 40% of repack -ad and finding
 * each walked object in the old pack another 16%.  1 when the bitmap
 * cannot answer: the caller walks.
 */
static int add_from_bitmap(struct fgit_packer *pk, struct fgit_odb *odb,
			   struct fgit_refdb *refdb, struct fgit_repo *repo)
{
	struct tips t = { odb, FGIT_BUF_INIT };
	struct fgit_oid head;
	int ret;

	if ((ret = fgit_refdb_foreach(refdb, "refs/", tip_ref_cb, &t)) < 0)
		goto out;
	if (fgit_refdb_resolve(&head, NULL, NULL, refdb, "HEAD") == 0 &&
	    (ret = tips_push(&t, &head)) < 0)
		goto out;
	fgit_error_clear();
	if ((ret = fgit_reflog_dir_foreach_all(fgit_repo_git_dir(repo), fgit_repo_common_dir(repo),
					       fgit_odb_algo(odb), tip_reflog_cb, &t)) < 0)
		goto out;
	ret = fgit_packer_add_bitmap(pk, (const struct fgit_oid *)t.v.ptr,
				     t.v.len / sizeof(struct fgit_oid));
out:
	fgit_buf_release(&t.v);
	return ret;
}

static int load_index(struct fgit_index **out, struct fgit_repo *repo)
{
	struct fgit_index_load_opts o = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_buf path = FGIT_BUF_INIT;
	int ret;

	if (fgit_buf_addf(&path, "%s/index", fgit_repo_git_dir(repo)))
		return FGIT_ENOMEM;
	o.algo = fgit_repo_algo(repo);
	o.shared_index_dir = fgit_repo_git_dir(repo);
	o.flags = FGIT_INDEX_LOAD_MISSING_OK;
	ret = fgit_index_load(out, path.ptr, &o);
	fgit_buf_release(&path);
	return ret;
}

int fgit_repack(struct fgit_repack_result *out, struct fgit_repo *repo,
		const struct fgit_repack_options *opts)
{
	struct fgit_pack_objects_options po = opts->pack;
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	struct fgit_packer *pk = NULL;
	struct fgit_objwalk *w = NULL;
	struct fgit_index *own_index = NULL;
	const struct fgit_index *index = opts->index;
	struct old_pack *old = NULL;
	struct fgit_buf base = FGIT_BUF_INIT;
	struct fgit_idx_options io = FGIT_IDX_OPTIONS_INIT;
	size_t nold = 0, i;
	int all = opts->all || opts->loosen_unreachable;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = fgit_repo_odb(&odb, repo)) < 0 || (ret = fgit_repo_refdb(&refdb, repo)) < 0)
		return ret;
	if ((ret = fgit_odb_refresh(odb)) < 0)
		return ret;
	nold = fgit_odb_pack_count(odb);
	old = calloc(nold + 1, sizeof(*old));
	if (!old)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < nold; i++) {
		char *keep;
		old[i].path = strdup(fgit_odb_pack_path(odb, i));
		keep = old[i].path ? sibling(old[i].path, ".keep") : NULL;
		if (!keep) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		old[i].kept = !access(keep, F_OK);
		free(keep);
	}

	if (!opts->pack_kept_objects)
		po.skip |= FGIT_PACK_SKIP_KEPT;
	if (!all)
		po.skip |= FGIT_PACK_SKIP_PACKED;
	if (opts->local)
		po.skip |= FGIT_PACK_SKIP_NONLOCAL;
	if ((ret = fgit_packer_new(&pk, odb, &po)) < 0)
		goto out;
	if (all && !index && !fgit_repo_work_tree(repo)) {
		if ((ret = add_from_bitmap(pk, odb, refdb, repo)) < 0)
			goto out;
		if (!ret)
			goto counted;
	}
	if ((ret = fgit_objwalk_new(&w, odb, FGIT_OBJWALK_OBJECTS |
				    (all ? 0 : FGIT_OBJWALK_UNPACKED))) < 0)
		goto out;
	if ((ret = fgit_objwalk_add_all_refs(w, refdb, 0)) < 0 ||
	    (ret = fgit_objwalk_add_reflogs(w, fgit_repo_git_dir(repo),
					    fgit_repo_common_dir(repo), 0)) < 0)
		goto out;
	if (!index && fgit_repo_work_tree(repo)) {
		if ((ret = load_index(&own_index, repo)) < 0)
			goto out;
		index = own_index;
	}
	if (index && (ret = fgit_objwalk_add_index(w, index, 0)) < 0)
		goto out;
	if ((ret = fgit_packer_add_walk(pk, w)) < 0)
		goto out;
	/*
	 * The walk is done, and the bases it cached (trees, mostly) are not
	 * what writing reads: hand both back before the write phase grows
	 * the heap again.  repack -ad of the history corpus (one run each,
	 * loaded machine), peak RSS: 594 MiB before, 441 MiB after; git's
	 * 538 MiB; CPU 12.9 s before, 10.7 s after.
	 */
	fgit_objwalk_free(w);
	w = NULL;
counted:
	fgit_odb_drop_cache(odb);
	malloc_trim(0);
	if ((ret = fgit_packer_mark_tags(pk, refdb)) < 0)
		goto out;

	if (!fgit_packer_count(pk)) {
		ret = 1;	/* --non-empty: no pack */
	} else {
		if (fgit_buf_addf(&base, "%s/pack/pack", fgit_odb_path(odb))) {
			ret = FGIT_ENOMEM;
			goto out;
		}
		if ((ret = fgit_packer_write_files(out->pack, pk, base.ptr, opts->write_rev, &io)) < 0)
			goto out;
		if (opts->write_bitmap && all &&
		    (ret = fgit_packer_write_bitmap(pk, base.ptr, out->pack, refdb,
						    opts->bitmap_hash_cache ?
						    FGIT_PACKER_BITMAP_HASH_CACHE : 0)) < 0)
			goto out;
		fgit_packer_stats(&out->stats, pk);
	}

	if (opts->write_midx &&
	    (ret = write_midx(odb, refdb, old, nold, out->pack, opts->delete_redundant && all,
			      opts)) < 0)
		goto out;
	if (opts->delete_redundant && all) {
		for (i = 0; i < nold; i++) {
			const char *b = strrchr(old[i].path, '/');
			b = b ? b + 1 : old[i].path;
			if (old[i].kept)
				continue;
			if (is_pack_named(b, out->pack))
				continue;	/* the same pack again */
			if (opts->loosen_unreachable && (ret = loosen_pack(odb, pk, old[i].path)) < 0)
				goto out;
			if ((ret = fgit_midx_drop_if_names(fgit_odb_path(odb), fgit_odb_algo(odb),
							   old[i].path)) < 0)
				goto out;
			remove_pack_files(old[i].path);
		}
	}
	if ((ret = fgit_odb_refresh(odb)) < 0)
		goto out;
	if (opts->delete_redundant && (ret = fgit_odb_prune_packed(odb, 0, -1, NULL, NULL)) < 0)
		goto out;
	if (opts->update_server_info && (ret = fgit_update_server_info(repo, 0)) < 0)
		goto out;
	ret = out->pack[0] ? 0 : 1;
out:
	for (i = 0; i < nold; i++)
		free(old[i].path);
	free(old);
	fgit_objwalk_free(w);
	fgit_packer_free(pk);
	fgit_index_free(own_index);
	fgit_buf_release(&base);
	return ret;
}

/* ---- update-server-info ---- */

struct refs_out {
	struct fgit_odb *odb;
	struct fgit_buf *b;
	int algo;
};

static int info_ref_cb(const char *name, const struct fgit_oid *oid, unsigned int flags,
		       void *payload)
{
	struct refs_out *r = payload;
	char hex[FGIT_MAX_HEXSZ + 1];
	struct fgit_oid cur = *oid;
	int hops = 0;

	if (flags & FGIT_REF_BROKEN)
		return 0;
	fgit_buf_addf(r->b, "%s\t%s\n", fgit_oid_to_hex(hex, oid), name);
	for (;;) {
		void *buf;
		size_t len;
		enum fgit_object_type t;
		struct fgit_tag tag;
		if (fgit_odb_read(&buf, &len, &t, r->odb, &cur) < 0)
			return 0;
		if (t != FGIT_OBJ_TAG || fgit_tag_parse(&tag, buf, len, r->algo) < 0 ||
		    ++hops > 100) {
			free(buf);
			break;
		}
		cur = tag.object;
		free(buf);
	}
	if (hops)
		fgit_buf_addf(r->b, "%s\t%s^{}\n", fgit_oid_to_hex(hex, &cur), name);
	return 0;
}

/* Write path with content unless it already holds exactly that. */
static int write_if_changed(const char *path, const struct fgit_buf *b, int force)
{
	struct fgit_buf old = FGIT_BUF_INIT;
	int same = 0;
	char *dir = strdup(path), *slash;

	if (!dir)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdir(dir, 0777);
	}
	free(dir);
	if (!force && fgit_buf_read_file(&old, path) == 0)
		same = old.len == b->len && !memcmp(old.ptr, b->ptr, b->len);
	fgit_buf_release(&old);
	fgit_error_clear();
	if (same)
		return 0;
	return fgit_write_file_locked(path, b->ptr, b->len, 0);
}

int fgit_update_server_info(struct fgit_repo *repo, int force)
{
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	struct fgit_buf b = FGIT_BUF_INIT, path = FGIT_BUF_INIT, old = FGIT_BUF_INIT;
	struct refs_out r;
	size_t i;
	char **names = NULL;
	size_t nnames = 0;
	int ret;

	if ((ret = fgit_repo_odb(&odb, repo)) < 0 || (ret = fgit_repo_refdb(&refdb, repo)) < 0)
		return ret;
	r.odb = odb;
	r.b = &b;
	r.algo = fgit_odb_algo(odb);
	if ((ret = fgit_refdb_foreach(refdb, "refs/", info_ref_cb, &r)) < 0)
		goto out;
	fgit_buf_addf(&path, "%s/info/refs", fgit_repo_common_dir(repo));
	if ((ret = write_if_changed(path.ptr, &b, force)) < 0)
		goto out;

	/* objects/info/packs: packs listed before keep their place (git) */
	fgit_buf_reset(&b);
	{
		/* the directory as it is now: the odb may still list packs just
		 * deleted */
		struct fgit_buf dir = FGIT_BUF_INIT;
		DIR *d;
		struct dirent *de;
		size_t alloc = 16;
		fgit_buf_addf(&dir, "%s/pack", fgit_odb_path(odb));
		names = calloc(alloc, sizeof(*names));
		d = names ? opendir(dir.ptr) : NULL;
		while (d && (de = readdir(d))) {
			struct stat st;
			char *idx;
			if (strncmp(de->d_name, "pack-", 5) || !has_suffix(de->d_name, ".pack"))
				continue;
			fgit_buf_reset(&path);
			fgit_buf_addf(&path, "%s/%s", dir.ptr, de->d_name);
			idx = sibling(path.ptr, ".idx");
			if (!idx || stat(idx, &st)) {
				free(idx);
				continue;
			}
			free(idx);
			if (nnames + 1 >= alloc) {
				char **nn = realloc(names, alloc * 2 * sizeof(*nn));
				if (!nn)
					break;
				names = nn;
				alloc *= 2;
			}
			names[nnames++] = strdup(de->d_name);
		}
		if (d)
			closedir(d);
		fgit_buf_release(&dir);
		if (!names) {
			ret = fgit_error_set(FGIT_ENOMEM, "out of memory");
			goto out;
		}
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/info/packs", fgit_odb_path(odb));
	}
	if (!force && fgit_buf_read_file(&old, path.ptr) == 0) {
		char *line = old.ptr, *nl;
		while (line < old.ptr + old.len && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (line[0] == 'P' && line[1] == ' ')
				for (i = 0; i < nnames; i++)
					if (names[i] && !strcmp(names[i], line + 2)) {
						fgit_buf_addf(&b, "P %s\n", names[i]);
						free(names[i]);
						names[i] = NULL;
					}
			line = nl + 1;
		}
	}
	fgit_error_clear();
	for (i = 0; i < nnames; i++)
		if (names[i])
			fgit_buf_addf(&b, "P %s\n", names[i]);
	fgit_buf_addch(&b, '\n');
	ret = write_if_changed(path.ptr, &b, force);
out:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	fgit_buf_release(&b);
	fgit_buf_release(&path);
	fgit_buf_release(&old);
	return ret;
}
