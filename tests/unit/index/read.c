#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/*
 * fgit reads what git writes: indexes built by git in scratch repositories
 * (v2, v3 with intent-to-add and skip-worktree, v4, cache tree, resolve
 * undo, split index, untracked cache, EOIE/IEOT) must give exactly the
 * entries `git ls-files -s --debug` prints; written back by fgit they must
 * read the same in git, and plain ones must come out byte for byte.
 */
#include "unit.h"
#include "helpers.h"
#include "fgit/hash.h"

static char *dir;

/* Compare fgit's dump of dir/.git/index (loaded with opts) with git's. */
static int same_as_git(const struct fgit_index_load_opts *opts, const char *file,
		       struct fgit_index **keep)
{
	struct fgit_buf ours = FGIT_BUF_INIT, theirs = FGIT_BUF_INIT, path = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;
	int ok = 0;

	fgit_buf_addf(&path, "%s/.git/%s", dir, file ? file : "index");
	if (fgit_index_load(&idx, path.ptr, opts) < 0) {
		printf("  load failed: %s\n", fgit_error_last());
		goto out;
	}
	dump_index(&ours, idx);
	if (capture(&theirs, "cd '%s' && GIT_INDEX_FILE='%s' " GIT " ls-files -s --debug",
		    dir, path.ptr) != 0) {
		printf("  git ls-files failed\n");
		goto out;
	}
	ok = ours.len == theirs.len && !memcmp(ours.ptr, theirs.ptr, ours.len);
	if (!ok)
		printf("  fgit:\n%s  git:\n%s", ours.ptr, theirs.ptr);
	if (ok && keep) {
		*keep = idx;
		idx = NULL;
	}
out:
	fgit_index_free(idx);
	fgit_buf_release(&ours);
	fgit_buf_release(&theirs);
	fgit_buf_release(&path);
	return ok;
}

/*
 * Write idx to .git/index.fgit; git must list the same entries from it and
 * status must not change; with `identical`, the bytes must equal git's.
 */
static int roundtrip(struct fgit_index *idx, const struct fgit_index_write_opts *wo,
		     int identical)
{
	struct fgit_buf a = FGIT_BUF_INIT, b = FGIT_BUF_INIT, p = FGIT_BUF_INIT,
		       orig = FGIT_BUF_INIT, mine = FGIT_BUF_INIT;
	int ok = 0;

	fgit_buf_addf(&p, "%s/.git/index.fgit", dir);
	unlink(p.ptr);
	if (fgit_index_write(idx, p.ptr, wo) < 0) {
		printf("  write failed: %s\n", fgit_error_last());
		goto out;
	}
	if (capture(&a, "cd '%s' && " GIT " ls-files -s --debug", dir) ||
	    capture(&b, "cd '%s' && GIT_INDEX_FILE='%s' " GIT " ls-files -s --debug", dir, p.ptr)) {
		printf("  git ls-files failed\n");
		goto out;
	}
	if (a.len != b.len || memcmp(a.ptr, b.ptr, a.len)) {
		printf("  git reads differently:\n%s---\n%s", a.ptr, b.ptr);
		goto out;
	}
	if (identical) {
		fgit_buf_addf(&orig, "%s/.git/index", dir);
		fgit_buf_reset(&a);
		fgit_buf_read_file(&a, orig.ptr);
		fgit_buf_read_file(&mine, p.ptr);
		if (a.len != mine.len || memcmp(a.ptr, mine.ptr, a.len)) {
			printf("  bytes differ (git %zu, fgit %zu); cmp:\n", a.len, mine.len);
			sh("cmp -l '%s' '%s' | head -5", orig.ptr, p.ptr);
			goto out;
		}
	}
	if (capture(&a, "cd '%s' && " GIT " --no-optional-locks status --porcelain=v2 --untracked-files=all 2>/dev/null", dir) ||
	    capture(&b, "cd '%s' && GIT_INDEX_FILE='%s' " GIT " --no-optional-locks status --porcelain=v2 --untracked-files=all 2>/dev/null",
		    dir, p.ptr)) {
		printf("  git status failed\n");
		goto out;
	}
	if (a.len != b.len || memcmp(a.ptr, b.ptr, a.len)) {
		printf("  git status differs:\n%s---\n%s", a.ptr, b.ptr);
		goto out;
	}
	ok = 1;
out:
	fgit_buf_release(&a);
	fgit_buf_release(&b);
	fgit_buf_release(&p);
	fgit_buf_release(&orig);
	fgit_buf_release(&mine);
	return ok;
}

static int setup_repo(void)
{
	scratch_done(dir);
	dir = scratch_new();
	return dir && sh("cd '%s' && " GIT " init -q && mkdir -p a/b c && echo 1 >top && "
			 "echo 2 >a/x && echo 3 >a/b/y && echo 4 >c/z && ln -s top link && "
			 "printf '#!/bin/sh\\n' >run && chmod +x run && " GIT " add . && "
			 GIT " commit -q -m init", dir) == 0;
}

TEST(index_read, v2_with_tree)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_buf t = FGIT_BUF_INIT;
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1];
	int count, subs;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && " GIT " write-tree >/dev/null", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_version(idx) == 2);
	CHECK(fgit_index_has_cache_tree(idx));
	CHECK(fgit_index_cache_tree_get(&count, &subs, &oid, idx, "") == 0);
	CHECK(count == 6 && subs == 2);
	CHECK(capture(&t, "cd '%s' && " GIT " rev-parse HEAD^{tree}", dir) == 0);
	CHECK(!strncmp(t.ptr, fgit_oid_to_hex(hex, &oid), 40));
	CHECK(fgit_index_cache_tree_get(&count, &subs, &oid, idx, "a/b") == 0 && count == 1);
	CHECK(capture(&t, "cd '%s' && " GIT " rev-parse HEAD:a/b", dir) == 0);
	CHECK(!strncmp(t.ptr, fgit_oid_to_hex(hex, &oid), 40));
	CHECK(roundtrip(idx, &wo, 1));
	fgit_buf_release(&t);
	fgit_index_free(idx);
}

TEST(index_read, v3_extended_flags)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	const struct fgit_index_entry *e;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && echo new >c/new && " GIT " add -N c/new && "
		 GIT " update-index --skip-worktree a/x && " GIT " update-index --assume-unchanged top && "
		 GIT " write-tree >/dev/null 2>&1; true", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_version(idx) == 3);
	CHECK((e = fgit_index_lookup(idx, "c/new", 0)) && (e->flags & FGIT_INDEX_INTENT_TO_ADD));
	CHECK((e = fgit_index_lookup(idx, "a/x", 0)) && (e->flags & FGIT_INDEX_SKIP_WORKTREE));
	CHECK((e = fgit_index_lookup(idx, "top", 0)) && (e->flags & FGIT_INDEX_ASSUME_VALID));
	CHECK(roundtrip(idx, &wo, 1));
	/* asking for version 2 still writes 3 while extended flags are in use */
	wo.index_version = 2;
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
}

TEST(index_read, v4_prefix_compression)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && mkdir -p deep/er/path && for i in 1 2 3 4 5 6 7 8 9 10 11; do "
		 "echo $i >deep/er/path/file$i; echo $i >deep/er/f$i; done && "
		 GIT " add . && " GIT " update-index --index-version 4 && "
		 GIT " write-tree >/dev/null", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_version(idx) == 4);
	CHECK(roundtrip(idx, &wo, 1));
	/* and converted by fgit: v4 -> v2 -> git reads the same */
	wo.index_version = 2;
	CHECK(roundtrip(idx, &wo, 0));
	fgit_index_free(idx);
}

TEST(index_read, v2_to_v4_matches_git)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;

	CHECK(setup_repo());
	CHECK(same_as_git(NULL, NULL, &idx));
	/* fgit writes v4; git converts the original; the bytes must agree */
	wo.index_version = 4;
	CHECK(sh("cd '%s' && " GIT " update-index --index-version 4", dir) == 0);
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
}

TEST(index_read, long_names)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_buf name = FGIT_BUF_INIT;
	int i;

	CHECK(setup_repo());
	/* names of 4000+ bytes: the length field saturates at 0xFFF */
	for (i = 0; i < 21; i++)
		fgit_buf_addf(&name, "%0200d/", i);
	CHECK(sh("cd '%s' && blob=$(" GIT " hash-object -w top) && "
		 "printf '100644 %%s\\t%%s\\n' $blob %sfile $blob %sfilf $blob %.*s/x | "
		 GIT " update-index --index-info", dir, name.ptr, name.ptr, 4094, name.ptr) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_entrycount(idx) == 9);
	CHECK(roundtrip(idx, &wo, 1));
	wo.index_version = 4;
	CHECK(sh("cd '%s' && " GIT " update-index --index-version 4", dir) == 0);
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
	CHECK(same_as_git(NULL, NULL, NULL));
	fgit_buf_release(&name);
}

TEST(index_read, resolve_undo)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	const struct fgit_index_reuc *r;
	struct fgit_buf t = FGIT_BUF_INIT;
	char hex[FGIT_MAX_HEXSZ + 1];

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && " GIT " checkout -q -b side && echo side >top && " GIT " commit -qam side && "
		 GIT " checkout -q master && echo main >top && " GIT " commit -qam main && "
		 "(" GIT " merge side >/dev/null 2>&1; true)", dir) == 0);
	/* conflicted: stages 1-3 */
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_lookup(idx, "top", 1) && fgit_index_lookup(idx, "top", 2) &&
	      fgit_index_lookup(idx, "top", 3) && !fgit_index_lookup(idx, "top", 0));
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
	idx = NULL;
	CHECK(sh("cd '%s' && echo resolved >top && " GIT " add top", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_reuc_count(idx) == 1);
	CHECK((r = fgit_index_reuc_lookup(idx, "top")));
	CHECK(r->mode[0] == 0100644 && r->mode[1] == 0100644 && r->mode[2] == 0100644);
	CHECK(capture(&t, "cd '%s' && " GIT " ls-files --resolve-undo", dir) == 0);
	CHECK(strstr(t.ptr, fgit_oid_to_hex(hex, &r->oid[2])) != NULL);
	CHECK(roundtrip(idx, &wo, 1));
	fgit_buf_release(&t);
	fgit_index_free(idx);
}

TEST(index_read, split_index)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && " GIT " update-index --split-index && "
		 "echo changed >a/x && " GIT " add a/x && " GIT " rm -q --cached c/z && "
		 "echo n >new && " GIT " add new && " GIT " update-index --chmod=+x top",
		 dir) == 0);
	CHECK(sh("cd '%s' && ls .git/sharedindex.* >/dev/null", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_was_split(idx));
	CHECK(fgit_index_lookup(idx, "new", 0) && !fgit_index_lookup(idx, "c/z", 0));
	CHECK(fgit_index_lookup(idx, "top", 0)->mode == 0100755);
	/* the shared index gone: git's words */
	CHECK(sh("cd '%s/.git' && mkdir away && mv sharedindex.* away/", dir) == 0);
	{
		struct fgit_buf p = FGIT_BUF_INIT;
		struct fgit_index *none = NULL;
		fgit_buf_addf(&p, "%s/.git/index", dir);
		CHECK(fgit_index_load(&none, p.ptr, NULL) == FGIT_ENOTFOUND);
		CHECK_MSG(strstr(fgit_error_last(), "/.git/sharedindex.") &&
			  strstr(fgit_error_last(), ": index file open failed: No such file or directory"),
			  "%s", fgit_error_last());
		fgit_buf_release(&p);
	}
	CHECK(sh("cd '%s/.git' && mv away/* . && rmdir away", dir) == 0);
	/* written back unsplit: the same bytes as git's --no-split-index */
	CHECK(sh("cd '%s' && " GIT " update-index --no-split-index", dir) == 0);
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
}

TEST(index_read, untracked_cache)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_index_entry *e;
	size_t len;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && echo u >untracked && mkdir -p ud/x/y ue && echo v >ud/f && "
		 "echo w >ud/x/y/g && echo '*.o' >.gitignore && echo o >ue/a.o && echo p >ud/x/p.o && "
		 GIT " config core.untrackedCache true && " GIT " update-index --untracked-cache && "
		 GIT " status >/dev/null && " GIT " status >/dev/null", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(fgit_index_has_untracked_cache(idx));
	{
		struct fgit_buf u = FGIT_BUF_INIT;
		CHECK(fgit_untr_write(&u, fgit_index_untracked_cache(idx)) == 0 && u.len > 0);
		len = u.len;
		fgit_buf_release(&u);
		CHECK(len > 0);
	}
	CHECK(roundtrip(idx, &wo, 1));
	/* a malformed one is dropped */
	{
		struct fgit_buf f = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
		struct fgit_index *bad = NULL;
		struct fgit_hash_ctx c;
		char *u;
		size_t sz;
		fgit_buf_addf(&p, "%s/.git/index", dir);
		CHECK(fgit_buf_read_file(&f, p.ptr) == 0);
		u = memmem(f.ptr, f.len, "UNTR", 4);
		CHECK(u != NULL);
		sz = (size_t)(unsigned char)u[4] << 24 | (unsigned char)u[5] << 16 |
		     (unsigned char)u[6] << 8 | (unsigned char)u[7];
		u[8 + sz - 2] ^= 0x55;	/* inside the hashes/bitmaps: no longer parses, or the NUL goes */
		u[8 + sz - 1] = 'x';
		fgit_checksum_init(&c, FGIT_HASH_SHA1);
		fgit_checksum_update(&c, f.ptr, f.len - 20);
		fgit_checksum_final((unsigned char *)f.ptr + f.len - 20, &c);
		{
			FILE *o = fopen(p.ptr, "wb");
			fwrite(f.ptr, 1, f.len, o);
			fclose(o);
		}
		CHECK(fgit_index_load(&bad, p.ptr, NULL) == 0);
		CHECK(!fgit_index_has_untracked_cache(bad));
		CHECK(fgit_index_entrycount(bad) == fgit_index_entrycount(idx));
		fgit_index_free(bad);
		fgit_buf_release(&f);
		fgit_buf_release(&p);
	}
	/* adding an entry invalidates the top directory and keeps the cache */
	CHECK(fgit_index_entry_new(&e, "zz", 2) == 0);
	*e = *fgit_index_get(idx, 0);
	memcpy(e->path, "zz", 3);
	e->path_len = 2;
	e->internal = 0;
	CHECK(fgit_index_add(idx, e) == 0);
	CHECK(fgit_index_has_untracked_cache(idx));
	CHECK(!fgit_index_untracked_cache(idx)->root->valid);
	CHECK(fgit_index_untracked_cache(idx)->root->nr_untracked == 0);
	fgit_index_free(idx);
}

/* 3000 entries added without files (fast), then rewritten by git with threads. */
static int setup_big(const char *config, int version)
{
	scratch_done(dir);
	dir = scratch_new();
	return dir && sh("cd '%s' && " GIT " init -q && " GIT " hash-object -w --stdin </dev/null >/dev/null && i=0; while [ $i -lt 3000 ]; do "
			 "printf '100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\\td%%d/sub/file%%d\\n' "
			 "$((i / 50)) $i; i=$((i+1)); done | " GIT " update-index --index-info && "
			 GIT " %s update-index --index-version %d", dir, config, version) == 0;
}

TEST(index_read, eoie_ieot_v2)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup_big("-c index.threads=4 -c index.recordOffsetTable=true", 2));
	CHECK(sh("cd '%s' && " GIT " -c index.threads=4 write-tree >/dev/null", dir) == 0);
	CHECK(sh("grep -q IEOT '%s/.git/index' && grep -q EOIE '%s/.git/index'", dir, dir) == 0);
	lo.threads = 4;
	CHECK(same_as_git(&lo, NULL, &idx));
	CHECK(fgit_index_load_threads(idx) == 4);
	wo.threads = 4;
	wo.record_ieot = 1;
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
	/* 4 IEOT blocks on 2 threads: two runs of two blocks */
	lo.threads = 2;
	CHECK(same_as_git(&lo, NULL, &idx));
	CHECK(fgit_index_load_threads(idx) == 2);
	fgit_index_free(idx);
	lo.threads = 1;
	CHECK(same_as_git(&lo, NULL, NULL));
}

TEST(index_read, eoie_ieot_v4)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup_big("-c index.threads=3 -c index.recordOffsetTable=true", 4));
	CHECK(sh("grep -q IEOT '%s/.git/index'", dir) == 0);
	lo.threads = 3;
	CHECK(same_as_git(&lo, NULL, &idx));
	CHECK(fgit_index_load_threads(idx) == 3);
	wo.threads = 3;
	wo.record_ieot = 1;
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
	/* 3 v4 blocks on 2 threads: the second thread decodes across a block start */
	lo.threads = 2;
	CHECK(same_as_git(&lo, NULL, &idx));
	CHECK(fgit_index_load_threads(idx) == 2);
	fgit_index_free(idx);
	lo.threads = 1;
	CHECK(same_as_git(&lo, NULL, NULL));
}

TEST(index_read, eoie_only)
{
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup_big("-c index.recordEndOfIndexEntries=true", 3));
	CHECK(sh("grep -q EOIE '%s/.git/index' && ! grep -q IEOT '%s/.git/index'", dir, dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	wo.record_eoie = 1;
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
}

TEST(index_read, threads_without_ieot)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup_big("", 2));
	lo.threads = 2;
	CHECK(same_as_git(&lo, NULL, &idx));
	CHECK(fgit_index_load_threads(idx) == 2);
	fgit_index_free(idx);
	lo.threads = 7;
	CHECK(same_as_git(&lo, NULL, NULL));
	lo.threads = 3;
	lo.flags = FGIT_INDEX_LOAD_VERIFY;
	CHECK(same_as_git(&lo, NULL, NULL));
	scratch_done(dir);
	dir = NULL;
}

/* Tiny indexes with IEOT (one block per entry, up to index.threads) and auto threads. */
TEST(index_read, ieot_small_and_auto_like_git)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;

	CHECK(setup_repo());
	CHECK(same_as_git(NULL, NULL, &idx));
	CHECK(sh("cd '%s' && " GIT " -c index.threads=4 -c index.recordOffsetTable=true "
		 "update-index --force-write-index", dir) == 0);
	CHECK(sh("grep -q IEOT '%s/.git/index'", dir) == 0);
	wo.threads = 4;
	wo.record_ieot = 1;
	CHECK(roundtrip(idx, &wo, 1));
	/* index.threads=true: blocks from the CPU count; 2 CPUs here give none */
	CHECK(sh("cd '%s' && " GIT " -c index.threads=true update-index --force-write-index", dir) == 0);
	wo.threads = 0;
	wo.record_ieot = -1;
	CHECK(roundtrip(idx, &wo, 1));
	/* v4 with IEOT, each block restarting its prefix compression */
	CHECK(sh("cd '%s' && " GIT " -c index.threads=3 update-index --index-version 4", dir) == 0);
	wo.threads = 3;
	wo.index_version = 4;
	CHECK(roundtrip(idx, &wo, 1));
	fgit_index_free(idx);
	CHECK(same_as_git(NULL, NULL, NULL));
}

/* A split write is what `git update-index --split-index` writes. */
TEST(index_read, split_write_like_git)
{
	struct fgit_index *idx = NULL, *back = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_buf g = FGIT_BUF_INIT, p = FGIT_BUF_INIT, a = FGIT_BUF_INIT;
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;

	CHECK(setup_repo());
	/*
	 * Entries racily clean when git writes the shared index are also
	 * put in its front (timing dependent): write the index a second
	 * after the files so none is racy.
	 */
	CHECK(sh("cd '%s' && echo n >new && " GIT " add -N new && " GIT " write-tree >/dev/null 2>&1; "
		 "sleep 1 && " GIT " update-index --force-write-index", dir) == 0);
	CHECK(same_as_git(NULL, NULL, &idx));
	fgit_buf_addf(&g, "%s/.git", dir);
	fgit_buf_addf(&p, "%s/.git/index.fgit", dir);
	wo.flags = FGIT_INDEX_WRITE_SPLIT;
	wo.shared_index_dir = g.ptr;
	/* stale shared indexes expire as in git (default: two weeks) */
	CHECK(sh("cd '%s/.git' && touch -d '3 weeks ago' sharedindex.1111111111111111111111111111111111111111 && "
		 "touch -d '1 week ago' sharedindex.2222222222222222222222222222222222222222", dir) == 0);
	CHECK(fgit_index_write(idx, p.ptr, &wo) == 0);
	CHECK(sh("cd '%s/.git' && ! test -f sharedindex.1111111111111111111111111111111111111111 && "
		 "rm sharedindex.2222222222222222222222222222222222222222", dir) == 0);
	CHECK(sh("cd '%s/.git' && ls sharedindex.* | wc -l | grep -qx 1", dir) == 0);
	/* git splits the same index: the same shared file, the same front */
	CHECK(sh("cd '%s' && " GIT " update-index --split-index", dir) == 0);
	CHECK(sh("cd '%s/.git' && ls sharedindex.* | wc -l | grep -qx 1", dir) == 0);
	CHECK(sh("cmp '%s/.git/index' '%s'", dir, p.ptr) == 0);
	/* and both read it back */
	lo.shared_index_dir = g.ptr;
	CHECK(fgit_index_load(&back, p.ptr, &lo) == 0);
	CHECK(fgit_index_was_split(back) && fgit_index_entrycount(back) == fgit_index_entrycount(idx));
	CHECK(same_as_git(NULL, "index.fgit", NULL));
	CHECK(capture(&a, "cd '%s' && GIT_INDEX_FILE='%s' " GIT " ls-files | wc -l", dir, p.ptr) == 0);
	CHECK(atoi(a.ptr) == 7);
	fgit_index_free(idx);
	fgit_index_free(back);
	fgit_buf_release(&g);
	fgit_buf_release(&p);
	fgit_buf_release(&a);
}

/* Writing split again: only the changes go to the index file, git reads it. */
TEST(index_read, split_write_incremental)
{
	struct fgit_index *idx = NULL, *back = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_buf g = FGIT_BUF_INIT, p = FGIT_BUF_INIT, a = FGIT_BUF_INIT, b = FGIT_BUF_INIT;
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index_entry *e;
	size_t i;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && sleep 1 && " GIT " update-index --split-index", dir) == 0);
	fgit_buf_addf(&g, "%s/.git", dir);
	fgit_buf_addf(&p, "%s/.git/index", dir);
	lo.shared_index_dir = g.ptr;
	CHECK(fgit_index_load(&idx, p.ptr, &lo) == 0);
	CHECK(fgit_index_was_split(idx));
	/* change one entry, remove one, add one */
	CHECK(fgit_index_entry_new(&e, "a/x", 3) == 0);
	*e = *fgit_index_lookup(idx, "a/x", 0);
	memcpy(e->path, "a/x", 4);
	e->internal = 0;
	e->size = 12345;
	CHECK(fgit_index_add(idx, e) == 0);
	CHECK(fgit_index_remove_path(idx, "c/z") == 0);
	CHECK(fgit_index_entry_new(&e, "b/new", 5) == 0);
	*e = *fgit_index_lookup(idx, "top", 0);
	memcpy(e->path, "b/new", 6);
	e->path_len = 5;
	e->internal = 0;
	CHECK(fgit_index_add(idx, e) == 0);
	wo.flags = FGIT_INDEX_WRITE_SPLIT;
	wo.shared_index_dir = g.ptr;
	CHECK(fgit_index_write(idx, p.ptr, &wo) == 0);
	/* no new shared index; git lists what fgit holds */
	CHECK(sh("cd '%s/.git' && ls sharedindex.* | wc -l | grep -qx 1", dir) == 0);
	CHECK(capture(&a, "cd '%s' && " GIT " ls-files -s", dir) == 0);
	fgit_buf_reset(&b);
	for (i = 0; i < fgit_index_entrycount(idx); i++) {
		char hex[FGIT_MAX_HEXSZ + 1];
		const struct fgit_index_entry *x = fgit_index_get(idx, i);
		fgit_buf_addf(&b, "%06o %s %u\t%s\n", x->mode, fgit_oid_to_hex(hex, &x->oid),
			      x->stage, x->path);
	}
	CHECK_MSG(!strcmp(a.ptr, b.ptr), "git:\n%sfgit:\n%s", a.ptr, b.ptr);
	CHECK(capture(&a, "cd '%s' && " GIT " ls-files -s --debug | grep -c 'size: 12345'", dir) == 0);
	CHECK(atoi(a.ptr) == 1);
	/* fgit reads its own front the way git does (replaced entries marked) */
	CHECK(same_as_git(&lo, NULL, &back));
	CHECK(fgit_index_entrycount(back) == 6);
	fgit_index_free(back);
	back = NULL;
	/* past splitIndex.maxPercentChange: a new shared index */
	wo.split_max_percent = 0;
	CHECK(fgit_index_write(idx, p.ptr, &wo) == 0);
	CHECK(sh("cd '%s/.git' && ls sharedindex.* | wc -l | grep -qx 2", dir) == 0);
	CHECK(same_as_git(&lo, NULL, NULL));
	/* and git carries on from there */
	CHECK(sh("cd '%s' && echo more >more && " GIT " add more && " GIT " update-index --no-split-index", dir) == 0);
	CHECK(capture(&a, "cd '%s' && " GIT " ls-files | tr '\\n' ' '", dir) == 0);
	CHECK_MSG(!strcmp(a.ptr, "a/b/y a/x b/new link more run top "), "%s", a.ptr);
	fgit_index_free(idx);
	fgit_buf_release(&g);
	fgit_buf_release(&p);
	fgit_buf_release(&a);
	fgit_buf_release(&b);
}

static int split_changes(struct fgit_index *idx)
{
	struct fgit_index_entry *e;
	int ret;
	if ((ret = fgit_index_entry_new(&e, "a/x", 3)) < 0)
		return ret;
	e->mode = 0100644;
	fgit_oid_from_hex(&e->oid, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", FGIT_HASH_SHA1);
	if ((ret = fgit_index_add(idx, e)) < 0)
		return ret;
	if ((ret = fgit_index_entry_new(&e, "b/new", 5)) < 0)
		return ret;
	e->mode = 0100644;
	fgit_oid_from_hex(&e->oid, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", FGIT_HASH_SHA1);
	if ((ret = fgit_index_add(idx, e)) < 0)
		return ret;
	return fgit_index_remove_path(idx, "c/z");
}

/* The same changes by git and by fgit on a split index: the same index file. */
TEST(index_read, split_write_incremental_like_git)
{
	struct fgit_index *idx = NULL;
	struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_buf g = FGIT_BUF_INIT, p = FGIT_BUF_INIT, q = FGIT_BUF_INIT;

	CHECK(setup_repo());
	CHECK(sh("cd '%s' && " GIT " hash-object -w --stdin </dev/null >/dev/null && sleep 1 && "
		 GIT " update-index --split-index && cp .git/index .git/index.orig", dir) == 0);
	fgit_buf_addf(&g, "%s/.git", dir);
	fgit_buf_addf(&p, "%s/.git/index.orig", dir);
	fgit_buf_addf(&q, "%s/.git/index.fgit", dir);
	lo.shared_index_dir = g.ptr;
	CHECK(fgit_index_load(&idx, p.ptr, &lo) == 0);
	CHECK(split_changes(idx) == 0);
	wo.flags = FGIT_INDEX_WRITE_SPLIT;
	wo.shared_index_dir = g.ptr;
	CHECK(fgit_index_write(idx, q.ptr, &wo) == 0);
	CHECK(sh("cd '%s' && " GIT " update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,a/x "
		 "--cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,b/new --force-remove c/z", dir) == 0);
	CHECK(sh("cd '%s/.git' && ls sharedindex.* | wc -l | grep -qx 1", dir) == 0);
	CHECK(sh("cmp '%s/.git/index' '%s' >/dev/null || (cd '%s/.git' && xxd index | tail -12; xxd index.fgit | tail -12; false)",
		 dir, q.ptr, dir) == 0);
	fgit_index_free(idx);
	fgit_buf_release(&g);
	fgit_buf_release(&p);
	fgit_buf_release(&q);
}
