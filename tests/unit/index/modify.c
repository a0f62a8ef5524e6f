/*
 * Changing an index: order kept, lookups stage-aware, and the bookkeeping
 * git does on the way.  The oracle is git itself: the same change made with
 * `git update-index` must give the same bytes as fgit's change written back
 * (cache-tree invalidation, resolve-undo recording included).
 */
#include "unit.h"
#include "helpers.h"

static char *dir;
static const char *blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

static struct fgit_index_entry *mk(const char *path, unsigned stage, const char *hex)
{
	struct fgit_index_entry *e = NULL;
	if (fgit_index_entry_new(&e, path, strlen(path)) < 0)
		return NULL;
	e->mode = 0100644;
	e->stage = stage;
	fgit_oid_from_hex(&e->oid, hex ? hex : blob, FGIT_HASH_SHA1);
	return e;
}

TEST(index_modify, sorted_insert_and_lookup)
{
	struct fgit_index *idx = NULL;
	static const char *paths[] = { "b", "a/c", "a.", "a-b", "a/b", "ab", "c/d/e" };
	size_t i, pos;

	CHECK(fgit_index_new(&idx, FGIT_HASH_SHA1) == 0);
	for (i = 0; i < 7; i++)
		CHECK(fgit_index_add(idx, mk(paths[i], 0, NULL)) == 0);
	CHECK(fgit_index_entrycount(idx) == 7);
	for (i = 1; i < 7; i++)
		CHECK(strcmp(fgit_index_get(idx, i - 1)->path, fgit_index_get(idx, i)->path) < 0);
	CHECK(!strcmp(fgit_index_get(idx, 0)->path, "a-b"));
	CHECK(!strcmp(fgit_index_get(idx, 1)->path, "a."));
	CHECK(!strcmp(fgit_index_get(idx, 2)->path, "a/b"));
	CHECK(fgit_index_find(&pos, idx, "a/b", 3, 0) == 0 && pos == 2);
	CHECK(fgit_index_find(&pos, idx, "a/bb", 4, 0) == FGIT_ENOTFOUND && pos == 3);
	CHECK(fgit_index_find(&pos, idx, "a/b", 3, 1) == FGIT_ENOTFOUND && pos == 3);
	/* stages sort after stage 0 of the same path; stage 0 replaces them */
	CHECK(fgit_index_remove_path(idx, "b") == 0);
	CHECK(fgit_index_add(idx, mk("b", 3, NULL)) == 0);
	CHECK(fgit_index_add(idx, mk("b", 1, NULL)) == 0);
	CHECK(fgit_index_add(idx, mk("b", 2, NULL)) == 0);
	CHECK(fgit_index_find_any_stage(&pos, idx, "b", 1) && fgit_index_get(idx, pos)->stage == 1);
	CHECK(fgit_index_reuc_count(idx) == 0);
	CHECK(fgit_index_get(idx, pos + 1)->stage == 2 && fgit_index_get(idx, pos + 2)->stage == 3);
	CHECK(fgit_index_lookup(idx, "b", 2) && !fgit_index_lookup(idx, "b", 0));
	CHECK(fgit_index_reuc_count(idx) == 0);	/* stage 0 is never recorded */
	CHECK(fgit_index_add(idx, mk("b", 0, NULL)) == 0);
	CHECK(fgit_index_entrycount(idx) == 7);
	CHECK(fgit_index_lookup(idx, "b", 0) && !fgit_index_lookup(idx, "b", 1));
	CHECK(fgit_index_reuc_count(idx) == 1);
	CHECK(fgit_index_reuc_lookup(idx, "b")->mode[2] == 0100644);
	CHECK(fgit_index_remove_path(idx, "zz") == FGIT_ENOTFOUND);
	{
		static const char *bad[] = { "/a", "a/", "a//b", ".", "..", "a/../b", ".git",
					     "x/.GIT/y", ".Git", "a/./b" };
		for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			CHECK(fgit_index_add(idx, mk(bad[i], 0, NULL)) == FGIT_EINVALID);
			CHECK(!strncmp(fgit_error_last(), "invalid path '", 14));
		}
		CHECK(fgit_index_add(idx, mk(".gitignore", 0, NULL)) == 0);
		CHECK(fgit_index_add(idx, mk("a/.git2/..x", 0, NULL)) == 0);
	}
	CHECK(fgit_index_remove_at(idx, 99) == FGIT_ENOTFOUND);
	fgit_index_free(idx);
}

TEST(index_modify, file_directory_conflicts)
{
	struct fgit_index *idx = NULL;

	CHECK(fgit_index_new(&idx, FGIT_HASH_SHA1) == 0);
	CHECK(fgit_index_add(idx, mk("a/b/c", 0, NULL)) == 0);
	CHECK(fgit_index_add(idx, mk("a-b", 0, NULL)) == 0);
	CHECK(fgit_index_add(idx, mk("a", 0, NULL)) == FGIT_EEXISTS);
	CHECK(!strcmp(fgit_error_last(), "'a' appears as both a file and as a directory"));
	CHECK(fgit_index_add(idx, mk("a/b", 0, NULL)) == FGIT_EEXISTS);
	CHECK(fgit_index_add(idx, mk("a/b/c/d", 0, NULL)) == FGIT_EEXISTS);
	CHECK(fgit_index_add(idx, mk("a/b", 2, NULL)) == 0);	/* other stage: no conflict */
	/* stage 0 without the check: allowed, and it resolves the stage-2 entry */
	CHECK(fgit_index_add_ex(idx, mk("a/b", 0, NULL), FGIT_INDEX_ADD_SKIP_DFCHECK) == 0);
	CHECK(fgit_index_entrycount(idx) == 3 && !fgit_index_lookup(idx, "a/b", 2));
	CHECK(fgit_index_remove_path(idx, "a/b") == 0);
	/* replacing: the file in the way goes */
	CHECK(fgit_index_add_ex(idx, mk("a/b/c/d", 0, NULL), FGIT_INDEX_ADD_OK_TO_REPLACE) == 0);
	CHECK(!fgit_index_lookup(idx, "a/b/c", 0) && fgit_index_lookup(idx, "a/b/c/d", 0));
	CHECK(fgit_index_add_ex(idx, mk("a", 0, NULL), FGIT_INDEX_ADD_OK_TO_REPLACE) == 0);
	CHECK(fgit_index_entrycount(idx) == 2);
	CHECK(fgit_index_lookup(idx, "a", 0) && fgit_index_lookup(idx, "a-b", 0));
	fgit_index_free(idx);
}

TEST(index_modify, append_then_sort)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_entry *e;
	char name[32];
	int i;

	CHECK(fgit_index_new(&idx, FGIT_HASH_SHA1) == 0);
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "d%d/f%d", (i * 7919) % 97, (i * 104729) % 2000);
		CHECK(fgit_index_append(idx, mk(name, 0, NULL)) == 0);
	}
	e = mk("d0/f0", 0, "5626abf0f72e58d7a153368ba57db4c673c0e171");
	CHECK(fgit_index_append(idx, e) == 0);	/* a duplicate: the last one wins */
	CHECK(fgit_index_sort(idx) == 0);
	CHECK(fgit_index_entrycount(idx) == 2000);
	for (i = 1; i < 2000; i++)
		CHECK(strcmp(fgit_index_get(idx, i - 1)->path, fgit_index_get(idx, i)->path) < 0);
	CHECK(fgit_index_lookup(idx, "d0/f0", 0) == e);
	fgit_index_free(idx);
}

static int setup(void)
{
	scratch_done(dir);
	dir = scratch_new();
	if (!dir)
		return 0;
	return sh("cd '%s' && " GIT " init -q && " GIT " hash-object -w --stdin </dev/null >/dev/null && "
		  "for p in a/b/c a/b/d a/e f/g h; do printf '100644 %s\\t%%s\\n' $p; done | "
		  GIT " update-index --index-info && " GIT " write-tree >/dev/null", dir, blob) == 0;
}

/* Load .git/index; apply fn; write to .git/index.fgit; run cmd with git; compare. */
static int same_change(int (*fn)(struct fgit_index *), const char *gitcmd)
{
	struct fgit_buf p = FGIT_BUF_INIT, q = FGIT_BUF_INIT, a = FGIT_BUF_INIT, b = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;
	int ok = 0;

	fgit_buf_addf(&p, "%s/.git/index", dir);
	fgit_buf_addf(&q, "%s/.git/index.fgit", dir);
	if (fgit_index_load(&idx, p.ptr, NULL) < 0 || fn(idx) < 0 ||
	    fgit_index_write(idx, q.ptr, NULL) < 0) {
		printf("  %s\n", fgit_error_last());
		goto out;
	}
	if (sh("cd '%s' && %s", dir, gitcmd) != 0)
		goto out;
	fgit_buf_read_file(&a, p.ptr);
	fgit_buf_read_file(&b, q.ptr);
	ok = a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
	if (!ok)
		sh("cd '%s/.git' && xxd index | tail -8; echo; xxd index.fgit | tail -8", dir);
out:
	fgit_index_free(idx);
	fgit_buf_release(&p);
	fgit_buf_release(&q);
	fgit_buf_release(&a);
	fgit_buf_release(&b);
	return ok;
}

static int add_deep(struct fgit_index *idx)
{
	return fgit_index_add(idx, mk("a/b/new", 0, NULL));
}

static int remove_one(struct fgit_index *idx)
{
	return fgit_index_remove_path(idx, "f/g");
}

static int file_over_dir(struct fgit_index *idx)
{
	int ret = fgit_index_remove_path(idx, "a/b/c");
	if (!ret)
		ret = fgit_index_remove_path(idx, "a/b/d");
	if (!ret)
		ret = fgit_index_add(idx, mk("a/b", 0, NULL));
	return ret;
}

TEST(index_modify, cache_tree_invalidation_like_git)
{
	CHECK(setup());
	CHECK(same_change(add_deep, GIT " update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,a/b/new"));
	CHECK(setup());
	CHECK(same_change(remove_one, GIT " update-index --force-remove f/g"));
	CHECK(setup());
	CHECK(same_change(file_over_dir, GIT " update-index --force-remove a/b/c a/b/d && "
			  GIT " update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,a/b"));
}

static int resolve(struct fgit_index *idx)
{
	return fgit_index_add(idx, mk("h", 0, "5626abf0f72e58d7a153368ba57db4c673c0e171"));
}

TEST(index_modify, resolve_undo_like_git)
{
	CHECK(setup());
	/* a conflict on h: three stages; then resolve it at stage 0 */
	CHECK(sh("cd '%s' && x=$(echo x | " GIT " hash-object -w --stdin) && "
		 "y=$(echo y | " GIT " hash-object -w --stdin) && "
		 GIT " update-index --force-remove h && "
		 "printf '100644 %s 1\\th\\n100644 '$x' 2\\th\\n100644 '$y' 3\\th\\n' | "
		 GIT " update-index --index-info && echo z | " GIT " hash-object -w --stdin >/dev/null",
		 dir, blob) == 0);
	CHECK(same_change(resolve, GIT " update-index --cacheinfo 100644,5626abf0f72e58d7a153368ba57db4c673c0e171,h"));
}

TEST(index_modify, cache_tree_api)
{
	struct fgit_index *idx = NULL;
	struct fgit_oid oid, got;
	int n, s;

	CHECK(fgit_index_new(&idx, FGIT_HASH_SHA1) == 0);
	CHECK(!fgit_index_has_cache_tree(idx));
	fgit_oid_from_hex(&oid, blob, FGIT_HASH_SHA1);
	CHECK(fgit_index_cache_tree_set(idx, "x/y", 3, 0, &oid) == 0);
	CHECK(fgit_index_cache_tree_get(&n, &s, &got, idx, "x/y") == 0 && n == 3 && fgit_oid_equal(&oid, &got));
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "x") == 0 && n == -1 && s == 1);
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "") == 0 && n == -1 && s == 1);
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "q") == FGIT_ENOTFOUND);
	fgit_index_invalidate_path(idx, "x/y/z");
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "x/y") == 0 && n == -1);
	fgit_index_invalidate_path(idx, "x/y");	/* a file named like the dir: subtree goes */
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "x/y") == FGIT_ENOTFOUND);
	CHECK(fgit_index_cache_tree_set(idx, "x/z/w", 1, 0, &oid) == 0);
	CHECK(fgit_index_cache_tree_remove(idx, "x/z") == 0);
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "x") == 0 && s == 0);
	CHECK(fgit_index_cache_tree_remove(idx, "x/z") == FGIT_ENOTFOUND);
	CHECK(fgit_index_cache_tree_remove(idx, "x") == 0);
	CHECK(fgit_index_cache_tree_get(&n, &s, NULL, idx, "") == 0 && s == 0);
	fgit_index_free(idx);
}

TEST(index_modify, lock_held)
{
	struct fgit_buf p = FGIT_BUF_INIT, want = FGIT_BUF_INIT, before = FGIT_BUF_INIT, after = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup());
	fgit_buf_addf(&p, "%s/.git/index", dir);
	CHECK(fgit_index_load(&idx, p.ptr, NULL) == 0);
	CHECK(!fgit_index_is_changed(idx));
	CHECK(fgit_buf_read_file(&before, p.ptr) == 0);
	CHECK(sh("touch '%s.lock'", p.ptr) == 0);
	CHECK(fgit_index_add(idx, mk("zz", 0, NULL)) == 0);
	CHECK(fgit_index_write(idx, p.ptr, NULL) == FGIT_ELOCKED);
	fgit_buf_addf(&want, "Unable to create '%s.lock': File exists.", p.ptr);
	CHECK_MSG(!strncmp(fgit_error_last(), want.ptr, want.len) &&
		  strstr(fgit_error_last(), "Another git process seems to be running"),
		  "%s", fgit_error_last());
	CHECK(fgit_buf_read_file(&after, p.ptr) == 0);
	CHECK(before.len == after.len && !memcmp(before.ptr, after.ptr, before.len));
	CHECK(sh("test -f '%s.lock' && rm '%s.lock'", p.ptr, p.ptr) == 0);
	/* and once free, the write goes through and git agrees */
	CHECK(fgit_index_is_changed(idx));
	CHECK(fgit_index_write(idx, p.ptr, NULL) == 0);
	CHECK(!fgit_index_is_changed(idx));
	CHECK(sh("test ! -f '%s.lock'", p.ptr) == 0);
	CHECK(capture(&after, "cd '%s' && " GIT " ls-files", dir) == 0);
	CHECK(!strcmp(after.ptr, "a/b/c\na/b/d\na/e\nf/g\nh\nzz\n"));
	fgit_index_free(idx);
	fgit_buf_release(&p);
	fgit_buf_release(&want);
	fgit_buf_release(&before);
	fgit_buf_release(&after);
	scratch_done(dir);
	dir = NULL;
}

TEST(index_modify, write_if_unchanged)
{
	struct fgit_buf p = FGIT_BUF_INIT, mid = FGIT_BUF_INIT, after = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL, *other = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;

	CHECK(setup());
	fgit_buf_addf(&p, "%s/.git/index", dir);
	CHECK(fgit_index_load(&idx, p.ptr, NULL) == 0);
	CHECK(fgit_index_load(&other, p.ptr, NULL) == 0);
	wo.flags = FGIT_INDEX_WRITE_IF_UNCHANGED;
	/* unchanged on disk: written */
	CHECK(fgit_index_add(idx, mk("y1", 0, NULL)) == 0);
	CHECK(fgit_index_write(idx, p.ptr, &wo) == 0);
	/* someone else wrote meanwhile: refused, their file kept */
	CHECK(fgit_index_add(other, mk("y2", 0, NULL)) == 0);
	CHECK(fgit_index_write(other, p.ptr, &wo) == FGIT_ELOCKED);
	CHECK(sh("test ! -f '%s.lock'", p.ptr) == 0);
	CHECK(capture(&after, "cd '%s' && " GIT " ls-files", dir) == 0);
	CHECK_MSG(strstr(after.ptr, "y1\n") && !strstr(after.ptr, "y2"), "%s", after.ptr);
	fgit_index_free(idx);
	fgit_index_free(other);
	fgit_buf_release(&p);
	fgit_buf_release(&mid);
	fgit_buf_release(&after);
	scratch_done(dir);
	dir = NULL;
}

TEST(index_modify, new_index_written_for_git)
{
	struct fgit_buf p = FGIT_BUF_INIT, out = FGIT_BUF_INIT, ours = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL, *back = NULL;
	struct fgit_index_entry *e;

	dir = scratch_new();
	CHECK(dir && sh("cd '%s' && " GIT " init -q", dir) == 0);
	CHECK(fgit_index_new(&idx, FGIT_HASH_SHA1) == 0);
	e = mk("dir/file", 0, NULL);
	e->ctime_sec = 1700000000; e->ctime_nsec = 5; e->mtime_sec = 1700000001; e->mtime_nsec = 6;
	e->dev = 7; e->ino = 8; e->uid = 9; e->gid = 10; e->size = 11;
	CHECK(fgit_index_add(idx, e) == 0);
	e = mk("exe", 0, NULL);
	e->mode = 0100755;
	e->flags = FGIT_INDEX_SKIP_WORKTREE;
	CHECK(fgit_index_add(idx, e) == 0);
	fgit_buf_addf(&p, "%s/.git/index", dir);
	CHECK(fgit_index_write(idx, p.ptr, NULL) == 0);
	CHECK(fgit_index_version(idx) == 3);
	CHECK(capture(&out, "cd '%s' && " GIT " ls-files -s --debug", dir) == 0);
	dump_index(&ours, idx);
	CHECK_MSG(!strcmp(out.ptr, ours.ptr), "git:\n%sfgit:\n%s", out.ptr, ours.ptr);
	CHECK(fgit_index_load(&back, p.ptr, NULL) == 0);
	CHECK(fgit_index_entrycount(back) == 2);
	{
		uint32_t sec, nsec, wsec, wnsec;
		fgit_index_file_mtime(back, &sec, &nsec);
		fgit_index_file_mtime(idx, &wsec, &wnsec);
		CHECK(sec && sec == wsec && nsec == wnsec);
		CHECK(!fgit_index_entry_is_racy(back, fgit_index_lookup(back, "dir/file", 0)));
	}
	fgit_index_free(idx);
	fgit_index_free(back);
	fgit_buf_release(&p);
	fgit_buf_release(&out);
	fgit_buf_release(&ours);
	scratch_done(dir);
	dir = NULL;
}
