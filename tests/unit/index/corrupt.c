/*
 * Corrupt index files give clean errors in git's words, and no input makes
 * the loader read out of bounds: every truncation and every byte changed
 * (with the checksum fixed up so the parser, not the checksum, sees it).
 */
#include "unit.h"
#include "helpers.h"
#include "fgit/hash.h"

static char *dir;
static struct fgit_buf orig = FGIT_BUF_INIT;	/* git's index: entries a, b; TREE */
static size_t esz = 64;				/* size of one entry (1-char name, v2) */
static const char *shared_dir;			/* for split-index files */
static int load_threads = 1;

static int setup(void)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	int ok;
	if (dir)
		return 1;
	dir = scratch_new();
	if (!dir)
		return 0;
	ok = sh("cd '%s' && " GIT " init -q && echo a >a && echo b >b && " GIT " add . && "
		       GIT " write-tree >/dev/null", dir) == 0;
	fgit_buf_addf(&p, "%s/.git/index", dir);
	ok = ok && fgit_buf_read_file(&orig, p.ptr) == 0;
	fgit_buf_release(&p);
	return ok;
}

/* Write data to dir/idx (with a fresh checksum when fix) and load it. */
static int load_bytes(struct fgit_index **out, const unsigned char *data, size_t len,
		      int fix, unsigned int flags)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_buf p = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;
	FILE *f;
	int ret;

	fgit_buf_addf(&p, "%s/idx", dir);
	unlink(p.ptr);	/* not truncated: ext4 would flush it (auto_da_alloc) */
	f = fopen(p.ptr, "wb");
	fwrite(data, 1, len, f);
	if (fix) {
		struct fgit_hash_ctx c;
		unsigned char sum[20];
		fgit_checksum_init(&c, FGIT_HASH_SHA1);
		fgit_checksum_update(&c, data, len);
		fgit_checksum_final(sum, &c);
		fwrite(sum, 1, 20, f);
	}
	fclose(f);
	lo.flags = flags;
	lo.shared_index_dir = shared_dir;
	lo.threads = load_threads;
	ret = fgit_index_load(&idx, p.ptr, &lo);
	if (out && !ret)
		*out = idx;
	else
		fgit_index_free(idx);
	fgit_buf_release(&p);
	return ret;
}

/* Body (no checksum) of the original. */
#define BODY ((const unsigned char *)orig.ptr)
#define BODYLEN (orig.len - 20)

TEST(index_corrupt, bad_checksum)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup());
	fgit_buf_add(&b, orig.ptr, orig.len);
	b.ptr[b.len - 1] ^= 1;
	/* git 2.39 reads it (only fsck verifies): so does fgit by default */
	CHECK(load_bytes(&idx, (unsigned char *)b.ptr, b.len, 0, 0) == 0);
	CHECK(fgit_index_entrycount(idx) == 2);
	fgit_index_free(idx);
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 0, FGIT_INDEX_LOAD_VERIFY) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "bad index file sha1 signature"));
	CHECK(fgit_index_error_is_hdr());
	/* the original verifies */
	CHECK(load_bytes(NULL, (unsigned char *)orig.ptr, orig.len, 0, FGIT_INDEX_LOAD_VERIFY) == 0);
	CHECK(!fgit_index_error_is_hdr());
	fgit_buf_release(&b);
}

TEST(index_corrupt, header)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	CHECK(setup());
	fgit_buf_add(&b, BODY, BODYLEN);
	b.ptr[3] = 'X';
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	CHECK_MSG(!strcmp(fgit_error_last(), "bad signature 0x58524944"), "%s", fgit_error_last());
	CHECK(fgit_index_error_is_hdr());
	b.ptr[3] = 'C';
	b.ptr[7] = 5;
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "bad index version 5"));
	CHECK(load_bytes(NULL, (unsigned char *)"DIRC", 4, 0, 0) == FGIT_EINVALID);
	CHECK_MSG(strstr(fgit_error_last(), "/idx: index file smaller than expected") != NULL,
		  "%s", fgit_error_last());
	fgit_buf_release(&b);
}

TEST(index_corrupt, truncated_entries)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	CHECK(setup());
	/* cut in the middle of the second entry */
	CHECK(load_bytes(NULL, BODY, 12 + esz + 30, 1, 0) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "index file corrupt"));
	/* more entries announced than there are */
	fgit_buf_add(&b, BODY, BODYLEN);
	b.ptr[11] = 3;
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "index file corrupt"));
	b.ptr[11] = (char)0xff;
	b.ptr[10] = (char)0xff;
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	fgit_buf_release(&b);
}

TEST(index_corrupt, order)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;
	const unsigned char *e1 = BODY + 12, *e2 = BODY + 12 + esz;

	CHECK(setup());
	/* swapped: git reads it as it is, fsck complains */
	fgit_buf_add(&b, BODY, 12);
	fgit_buf_add(&b, e2, esz);
	fgit_buf_add(&b, e1, esz);
	fgit_buf_add(&b, e2 + esz, BODYLEN - 12 - 2 * esz);
	CHECK(load_bytes(&idx, (unsigned char *)b.ptr, b.len, 1, 0) == 0);
	CHECK(!strcmp(fgit_index_get(idx, 0)->path, "b"));
	fgit_index_free(idx);
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, FGIT_INDEX_LOAD_VERIFY) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "unordered stage entries in index"));
	/* the same path twice at stage 0 */
	memcpy(b.ptr + 12, e1, esz);
	memcpy(b.ptr + 12 + esz, e1, esz);
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, FGIT_INDEX_LOAD_VERIFY) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "multiple stage entries for merged file 'a'"));
	/* stage 1 before stage 0 */
	b.ptr[12 + 60] |= 0x10;
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, FGIT_INDEX_LOAD_VERIFY) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "unordered stage entries for 'a'"));
	fgit_buf_release(&b);
}

TEST(index_corrupt, extensions)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_index *idx = NULL;

	CHECK(setup());
	fgit_buf_add(&b, BODY, BODYLEN);
	fgit_buf_add(&b, "abcd\0\0\0\0", 8);
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "index uses abcd extension, which we do not understand"));
	CHECK(fgit_index_error_is_hdr());
	/* optional: dropped, even with a size past the end (as git) */
	b.ptr[BODYLEN] = 'A';
	b.ptr[b.len - 1] = 100;
	CHECK(load_bytes(&idx, (unsigned char *)b.ptr, b.len, 1, 0) == 0);
	CHECK(fgit_index_entrycount(idx) == 2 && fgit_index_has_cache_tree(idx));
	CHECK(!strcmp(fgit_index_ignored_extension(idx, 0), "Abcd"));
	CHECK(!fgit_index_ignored_extension(idx, 1));
	fgit_index_free(idx);
	/* a known extension running past the end is corrupt */
	fgit_buf_setlen(&b, BODYLEN);
	fgit_buf_add(&b, "REUC\0\0\0\x40", 8);
	CHECK(load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0) == FGIT_EINVALID);
	CHECK(!strcmp(fgit_error_last(), "index file corrupt"));
	fgit_buf_release(&b);
}

TEST(index_corrupt, missing)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index *idx = NULL;

	CHECK(fgit_index_load(&idx, "/nonexistent/index", NULL) == FGIT_ENOTFOUND);
	CHECK(strstr(fgit_error_last(), "/nonexistent/index: index file open failed") != NULL);
	lo.flags = FGIT_INDEX_LOAD_MISSING_OK;
	CHECK(fgit_index_load(&idx, "/nonexistent/index", &lo) == 0);
	CHECK(fgit_index_entrycount(idx) == 0);
	fgit_index_free(idx);
}

/* Every prefix and every byte changed, in v2, v3 and v4 with extensions: no crash. */
static int hammer(const struct fgit_buf *file, int threads)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t body = file->len - 20, i;
	static const unsigned char vals[] = { 0x00, 0xff, 0x80 };
	int v, loaded = 0;

	(void)threads;
	for (i = 0; i <= body; i++)
		if (load_bytes(NULL, (const unsigned char *)file->ptr, i, 1, 0) == 0)
			loaded++;
	for (i = 0; i < body; i++) {
		for (v = 0; v < 3; v++) {
			fgit_buf_set(&b, file->ptr, body);
			b.ptr[i] = (char)vals[v];
			load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, FGIT_INDEX_LOAD_VERIFY);
		}
	}
	fgit_buf_release(&b);
	return loaded >= 0;
}

TEST(index_corrupt, hammer)
{
	struct fgit_buf f = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	CHECK(setup());
	CHECK(sh("cd '%s' && mkdir -p d/e && echo c >d/e/c && echo x >d/x && " GIT " add . && "
		 GIT " commit -qm x && " GIT " checkout -qb s && echo s >a && " GIT " commit -qam s && "
		 GIT " checkout -q master && echo m >a && " GIT " commit -qam m && "
		 "(" GIT " merge s >/dev/null 2>&1; true) && echo r >a && " GIT " add a && "
		 "echo n >n && " GIT " add -N n && " GIT " write-tree >/dev/null 2>&1; true", dir) == 0);
	fgit_buf_addf(&p, "%s/.git/index", dir);
	CHECK(fgit_buf_read_file(&f, p.ptr) == 0);
	CHECK(hammer(&f, 1));
	CHECK(sh("cd '%s' && " GIT " update-index --index-version 4", dir) == 0);
	fgit_buf_reset(&f);
	CHECK(fgit_buf_read_file(&f, p.ptr) == 0);
	CHECK(hammer(&f, 1));
	fgit_buf_release(&f);
	fgit_buf_release(&p);
}

TEST(index_corrupt, hammer_split_index)
{
	struct fgit_buf f = FGIT_BUF_INIT, p = FGIT_BUF_INIT, g = FGIT_BUF_INIT;
	CHECK(setup());
	CHECK(sh("cd '%s' && " GIT " update-index --split-index && echo q >q && " GIT " add q && "
		 GIT " rm -q --cached b && echo a2 >a && " GIT " add a", dir) == 0);
	fgit_buf_addf(&p, "%s/.git/index", dir);
	fgit_buf_addf(&g, "%s/.git", dir);
	CHECK(fgit_buf_read_file(&f, p.ptr) == 0);
	shared_dir = g.ptr;
	{
		struct fgit_index *idx = NULL;
		CHECK(load_bytes(&idx, (unsigned char *)f.ptr, f.len, 0, 0) == 0);
		CHECK(fgit_index_was_split(idx) && !fgit_index_lookup(idx, "b", 0) &&
		      fgit_index_lookup(idx, "q", 0));
		fgit_index_free(idx);
	}
	CHECK(hammer(&f, 1));
	shared_dir = NULL;
	fgit_buf_release(&f);
	fgit_buf_release(&p);
	fgit_buf_release(&g);
}

/* The extensions and block starts of a v4 index with IEOT, loaded by threads. */
TEST(index_corrupt, hammer_ieot)
{
	struct fgit_buf f = FGIT_BUF_INIT, p = FGIT_BUF_INIT, b = FGIT_BUF_INIT;
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01 };
	size_t body, i, tail;
	int v;

	scratch_done(dir);
	dir = scratch_new();
	CHECK(dir);
	CHECK(sh("cd '%s' && " GIT " init -q && i=0; while [ $i -lt 2400 ]; do "
		 "printf '100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\td%%d/f%%d\n' $((i / 40)) $i; "
		 "i=$((i+1)); done | " GIT " update-index --index-info && "
		 GIT " -c index.threads=3 -c index.recordOffsetTable=true update-index --index-version 4",
		 dir) == 0);
	fgit_buf_addf(&p, "%s/.git/index", dir);
	CHECK(fgit_buf_read_file(&f, p.ptr) == 0);
	body = f.len - 20;
	load_threads = 3;
	{
		struct fgit_index *idx = NULL;
		CHECK(load_bytes(&idx, (unsigned char *)f.ptr, f.len, 0, 0) == 0);
		CHECK(fgit_index_load_threads(idx) == 3);
		fgit_index_free(idx);
	}
	tail = body > 150 ? body - 150 : 0;
	for (i = 0; i < body; i++) {
		/* the extensions, the header, and a window at each third */
		if (i >= 12 && i < tail && !(i > body / 3 - 20 && i < body / 3 + 20) &&
		    !(i > 2 * body / 3 - 20 && i < 2 * body / 3 + 20))
			continue;
		for (v = 0; v < 3; v++) {
			fgit_buf_set(&b, f.ptr, body);
			b.ptr[i] = (char)vals[v];
			load_bytes(NULL, (unsigned char *)b.ptr, b.len, 1, 0);
		}
	}
	load_threads = 1;
	fgit_buf_release(&f);
	fgit_buf_release(&p);
	fgit_buf_release(&b);
	scratch_done(dir);
	dir = NULL;
}
