/*
 * Multi-pack-index reading: objects are found through git's midx (the copy
 * the midx chose, not the newest pack's), every object reads as git reads
 * it, and hostile midx files are rejected at open without harm.
 */
#include <sys/stat.h>
#include "unit.h"
#include "helper.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/midx.h"
#include "fgit/odb.h"
#include "odb/odb_internal.h"

static struct ref_obj *ref;
static size_t nref;
static char objdir[512], midx_path[600], old_pack[600];

static int sh(const char *fmt, const char *arg)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg);
	return system(cmd) == 0 ? 0 : -1;
}

TEST(midx, setup)
{
	FILE *f;
	CHECK(make_repo("midx") == 0);
	/* An older pack holding everything, then a newer one holding it all
	 * again: without a midx the newest pack wins; the midx prefers the
	 * old one. */
	CHECK(sh("set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent GIT_AUTHOR_NAME=A"
		 " GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 " cd %s; git repack -q -a -d;"
		 " for p in .git/objects/pack/*.pack; do touch -d '2001-01-01' $p; done;"
		 " echo more > m; git add m; git commit -qm more; git repack -qa;"
		 " old=$(ls -tr .git/objects/pack/*.pack | head -1);"
		 " git multi-pack-index write --preferred-pack=$(basename $old)",
		 test_repo) == 0);
	snprintf(objdir, sizeof(objdir), "%s/.git/objects", test_repo);
	snprintf(midx_path, sizeof(midx_path), "%s/pack/multi-pack-index", objdir);
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "ls -tr %s/pack/*.pack | head -1", objdir);
		f = popen(cmd, "r");
	}
	CHECK(f && fgets(old_pack, sizeof(old_pack), f));
	pclose(f);
	old_pack[strcspn(old_pack, "\n")] = 0;
	CHECK(load_reference(&ref, &nref) == 0);
}

TEST(midx, lookup_goes_through_the_midx)
{
	struct fgit_odb *odb;
	struct fgit_midx *m;
	size_t i, via_old = 0;
	CHECK_MSG(fgit_odb_open(&odb, objdir, NULL) == 0, "%s", fgit_error_last());
	CHECK(odb->midx != NULL);
	CHECK(odb->npacks == 2 && odb->packs[0]->in_midx && odb->packs[1]->in_midx);
	CHECK(fgit_midx_open(&m, midx_path, FGIT_HASH_SHA1) == 0);
	CHECK(fgit_midx_checksum_ok(m));
	for (i = 0; i < nref; i++) {
		struct pack *p;
		uint64_t off, moff;
		uint32_t pos, pid;
		if (!fgit_midx_find(&pos, m, &ref[i].oid))
			continue;	/* loose */
		CHECK(odb_find_packed(&p, &off, odb, &ref[i].oid) == 1);
		CHECK(fgit_midx_entry_at(&pid, &moff, m, pos) == 0);
		CHECK(off == moff);
		CHECK(!strcmp(strrchr(p->idx_path, '/') + 1, fgit_midx_pack_name(m, pid)));
		if (!strncmp(p->pack_path, old_pack, strlen(p->pack_path)))
			via_old++;
	}
	/* the newest pack would have answered every lookup without the midx */
	CHECK_MSG(via_old > 100, "only %zu objects read from the preferred pack", via_old);
	for (i = 0; i < nref; i++) {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		CHECK(fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) == 0);
		CHECK(type == ref[i].type && size == ref[i].size && !memcmp(buf, ref[i].data, size));
		free(buf);
	}
	fgit_midx_free(m);
	fgit_odb_free(odb);
}

/* Write a corrupted copy of the midx: `patch` bytes at `at` (or truncate). */
static int corrupt(const char *out, long at, const void *patch, size_t n, long truncate_to)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	FILE *f;
	if (fgit_buf_read_file(&b, midx_path) < 0)
		return -1;
	if (at >= 0 && (size_t)at + n <= b.len)
		memcpy(b.ptr + at, patch, n);
	if (truncate_to >= 0 && (size_t)truncate_to < b.len)
		b.len = (size_t)truncate_to;
	f = fopen(out, "wb");
	fwrite(b.ptr, 1, b.len, f);
	fclose(f);
	fgit_buf_release(&b);
	return 0;
}

TEST(midx, hostile_files_rejected)
{
	static const unsigned char big[8] = { 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const unsigned char zero4[4] = { 0, 0, 0, 0 };
	static const unsigned char many[1] = { 0xff };
	static const unsigned char fan[4] = { 0xff, 0xff, 0xff, 0xff };
	char bad[700];
	struct fgit_midx *m;
	struct fgit_odb *odb;
	size_t i;
	snprintf(bad, sizeof(bad), "%s/bad-midx", test_repo);
	CHECK(corrupt(bad, -1, NULL, 0, 10) == 0);
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "too small"));
	CHECK(corrupt(bad, 0, "XIDM", 4, -1) == 0);
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "signature"));
	CHECK(corrupt(bad, 12 + 4, big, 8, -1) == 0);	/* first chunk offset huge */
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "improper chunk offset"));
	CHECK(corrupt(bad, 12 + 12, zero4, 4, -1) == 0);	/* early terminator */
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(corrupt(bad, 6, many, 1, -1) == 0);		/* 255 chunks */
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(corrupt(bad, -1, NULL, 0, 500) == 0);		/* chunks cut off */
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	CHECK(corrupt(bad, 8, fan, 4, -1) == 0);		/* 2^32-1 packs */
	CHECK(fgit_midx_open(&m, bad, FGIT_HASH_SHA1) == FGIT_EINVALID);
	/* an installed bad midx: ignored, objects still read through the packs */
	CHECK(rename(bad, midx_path) == 0);
	CHECK(fgit_odb_open(&odb, objdir, NULL) == 0);
	CHECK(odb->midx == NULL);
	for (i = 0; i < nref; i++) {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		CHECK(fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) == 0);
		CHECK(size == ref[i].size && !memcmp(buf, ref[i].data, size));
		free(buf);
	}
	fgit_odb_free(odb);
	free_reference(ref, nref);
	remove_repo();
}
