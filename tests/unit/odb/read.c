#include <sys/stat.h>
#include <zlib.h>
#include "unit.h"
#include "helper.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/odb.h"

static struct ref_obj *ref;
static size_t nref;
static struct fgit_odb *odb;

TEST(odb, setup)
{
	char path[512];
	CHECK(make_repo("read") == 0);
	CHECK(load_reference(&ref, &nref) == 0);
	snprintf(path, sizeof(path), "%s/.git/objects", test_repo);
	CHECK_MSG(fgit_odb_open(&odb, path, NULL) == 0, "%s", fgit_error_last());
}

TEST(odb, read_every_object_like_git)
{
	size_t i;
	CHECK(odb && nref > 100);
	for (i = 0; i < nref; i++) {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		char hex[FGIT_MAX_HEXSZ + 1];
		int r = fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid);
		CHECK_MSG(r == 0, "%s: %s", fgit_oid_to_hex(hex, &ref[i].oid), fgit_error_last());
		CHECK(type == ref[i].type && size == ref[i].size);
		CHECK(!memcmp(buf, ref[i].data, size));
		free(buf);
	}
}

TEST(odb, info_matches_git_batch_check)
{
	char cmd[512], line[512];
	FILE *f;
	int n = 0;
	snprintf(cmd, sizeof(cmd), "git -C %s cat-file --batch-all-objects --batch-check="
		 "'%%(objectname) %%(objecttype) %%(objectsize) %%(objectsize:disk) %%(deltabase)'",
		 test_repo);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char hex[64], type[16], base[64], mine[512], bhex[FGIT_MAX_HEXSZ + 1];
		unsigned long long size, disk;
		struct fgit_oid oid;
		struct fgit_object_info info;
		sscanf(line, "%63s %15s %llu %llu %63s", hex, type, &size, &disk, base);
		fgit_oid_from_hex(&oid, hex, FGIT_HASH_SHA1);
		CHECK(fgit_odb_read_info(&info, odb, &oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE |
					 FGIT_INFO_DISK_SIZE | FGIT_INFO_DELTA_BASE) == 0);
		snprintf(mine, sizeof(mine), "%s %s %llu %llu %s\n", hex,
			 fgit_object_type_name(info.type), (unsigned long long)info.size,
			 (unsigned long long)info.disk_size, fgit_oid_to_hex(bhex, &info.delta_base));
		CHECK_MSG(!strcmp(mine, line), "git: %sfgit: %s", line, mine);
		n++;
	}
	pclose(f);
	CHECK(n == (int)nref);
}

TEST(odb, prefix_and_abbrev)
{
	struct fgit_oid p, o;
	char hex[FGIT_MAX_HEXSZ + 1], cmd[512], line[128];
	FILE *f;
	fgit_oid_to_hex(hex, &ref[0].oid);
	fgit_oid_from_hex_prefix(&p, hex, 12, FGIT_HASH_SHA1);
	CHECK(fgit_odb_resolve_prefix(&o, odb, &p, 12) == 0 && fgit_oid_equal(&o, &ref[0].oid));
	fgit_oid_from_hex_prefix(&p, hex, 1, FGIT_HASH_SHA1);
	CHECK(fgit_odb_resolve_prefix(&o, odb, &p, 1) == FGIT_EAMBIGUOUS);
	/* git rev-parse --short=4 gives the shortest unique abbreviation >= 4 */
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse --short=4 %s", test_repo, hex);
	f = popen(cmd, "r");
	CHECK(f && fgets(line, sizeof(line), f));
	pclose(f);
	CHECK_MSG(fgit_odb_abbrev_len(odb, &ref[0].oid, 4) == (int)strlen(line) - 1,
		  "%d vs %s", fgit_odb_abbrev_len(odb, &ref[0].oid, 4), line);
}

static int count_cb(const struct fgit_oid *oid, void *payload)
{
	(*(size_t *)payload)++;
	return 0;
}

TEST(odb, foreach_visits_all)
{
	size_t n = 0;
	CHECK(fgit_odb_foreach(odb, 0, count_cb, &n) == 0);
	CHECK(n == nref);
	n = 0;
	CHECK(fgit_odb_foreach(odb, FGIT_FOREACH_PACKED | FGIT_FOREACH_LOOSE |
			       FGIT_FOREACH_PACK_ORDER, count_cb, &n) == 0);
	CHECK(n == nref);
}

TEST(odb, write_then_git_reads)
{
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1], cmd[512], out[256];
	const char *data = "hello from fgit\n";
	FILE *f;
	CHECK(fgit_odb_write(&oid, odb, FGIT_OBJ_BLOB, data, strlen(data)) == 0);
	snprintf(cmd, sizeof(cmd), "git -C %s cat-file -p %s", test_repo, fgit_oid_to_hex(hex, &oid));
	f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof(out), f));
	pclose(f);
	CHECK(!strcmp(out, data));
	snprintf(cmd, sizeof(cmd), "git -C %s fsck --strict >/dev/null 2>&1", test_repo);
	CHECK(system(cmd) == 0);
}

/*
 * A fan-out directory removed under a handle that keeps it open (git's
 * prune-packed rmdirs empty ones): the next write into it must create
 * it again, not fail or vanish into the removed directory.
 */
TEST(odb, write_after_fanout_dir_removed)
{
	struct fgit_oid oid, got;
	char data[64], dir[600], file[700], hex[FGIT_MAX_HEXSZ + 1], cmd[800];
	struct stat st;
	int i, found = 0;

	for (i = 0; i < 10000 && !found; i++) {
		snprintf(data, sizeof(data), "fan-out probe %d\n", i);
		CHECK(fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, data, strlen(data)) == 0);
		snprintf(dir, sizeof(dir), "%s/.git/objects/%02x", test_repo, oid.hash[0]);
		found = stat(dir, &st) != 0;
	}
	CHECK(found);
	CHECK(fgit_odb_write(&got, odb, FGIT_OBJ_BLOB, data, strlen(data)) == 0);
	CHECK(fgit_oid_equal(&got, &oid));
	fgit_oid_to_hex(hex, &oid);
	snprintf(file, sizeof(file), "%s/%s", dir, hex + 2);
	CHECK(unlink(file) == 0 && rmdir(dir) == 0);
	CHECK_MSG(fgit_odb_write(&got, odb, FGIT_OBJ_BLOB, data, strlen(data)) == 0, "%s",
		  fgit_error_last());
	CHECK(stat(file, &st) == 0);
	snprintf(cmd, sizeof(cmd), "git -C %s cat-file -e %s", test_repo, hex);
	CHECK(system(cmd) == 0);
	/* and once more, through whatever the handle now keeps */
	snprintf(data, sizeof(data), "fan-out probe again\n");
	CHECK(fgit_odb_write(&got, odb, FGIT_OBJ_BLOB, data, strlen(data)) == 0);
}

TEST(odb, stream_equals_read)
{
	size_t i;
	for (i = 0; i < nref; i++) {
		struct fgit_odb_stream *s;
		enum fgit_object_type type;
		uint64_t size;
		struct fgit_buf b = FGIT_BUF_INIT;
		char chunk[777];
		long n;
		CHECK(fgit_odb_stream_open(&s, &type, &size, odb, &ref[i].oid) == 0);
		CHECK(type == ref[i].type && size == ref[i].size);
		while ((n = fgit_odb_stream_read(s, chunk, sizeof(chunk))) > 0)
			fgit_buf_add(&b, chunk, (size_t)n);
		fgit_odb_stream_free(s);
		CHECK(n == 0 && b.len == size && !memcmp(b.ptr, ref[i].data, size));
		fgit_buf_release(&b);
	}
}

/* One buffer reused for every object, growing and shrinking. */
static int read_all_into(struct fgit_odb *o)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t i, k;
	int bad = 0;
	for (k = 0; k < 2 * nref && !bad; k++) {
		enum fgit_object_type type;
		i = k < nref ? k : 2 * nref - 1 - k;	/* forwards, then back */
		if (fgit_odb_read_into(&b, &type, o, &ref[i].oid) != 0 ||
		    type != ref[i].type || b.len != ref[i].size ||
		    memcmp(b.ptr, ref[i].data, b.len) || b.ptr[b.len])
			bad = 1;
	}
	fgit_buf_release(&b);
	return bad ? -1 : 0;
}

TEST(odb, read_into_equals_read)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_oid none;
	enum fgit_object_type type;
	CHECK(read_all_into(odb) == 0);
	CHECK(fgit_buf_add(&b, "stale", 5) == 0);
	memset(&none, 0, sizeof(none));
	none.algo = FGIT_HASH_SHA1;
	none.hash[0] = 0x42;
	CHECK(fgit_odb_read_into(&b, &type, odb, &none) == FGIT_ENOTFOUND);
	CHECK(b.len == 0);
	fgit_buf_release(&b);
}

/* Objects read whole that are delta bases go to the cache as well: the
 * same bytes either way, for reads into a buffer and malloc'd ones. */
TEST(odb, once_each_access_reads_alike)
{
	struct fgit_odb *o = NULL;
	char path[512];
	size_t i;
	snprintf(path, sizeof(path), "%s/.git/objects", test_repo);
	CHECK(fgit_odb_open(&o, path, NULL) == 0);
	fgit_odb_set_access(o, FGIT_ODB_ACCESS_ONCE_EACH);
	CHECK(read_all_into(o) == 0);
	for (i = 0; i < nref; i++) {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		CHECK(fgit_odb_read(&buf, &size, &type, o, &ref[nref - 1 - i].oid) == 0);
		CHECK(type == ref[nref - 1 - i].type && size == ref[nref - 1 - i].size &&
		      !memcmp(buf, ref[nref - 1 - i].data, size));
		free(buf);
	}
	fgit_odb_free(o);
}

/* A loose file at oid's path holding the deflated object `data` (whatever
 * oid names): a stale or bad loose copy, which a reader must not prefer to
 * a pack. */
static int write_loose_as(const char *objdir, const struct fgit_oid *oid, const char *data)
{
	char hex[FGIT_MAX_HEXSZ + 1], path[1024], raw[256];
	unsigned char z[512];
	uLongf zlen = sizeof(z);
	int n = snprintf(raw, sizeof(raw), "blob %zu", strlen(data));
	FILE *f;
	memcpy(raw + n + 1, data, strlen(data));
	n += 1 + (int)strlen(data);
	if (compress2(z, &zlen, (const Bytef *)raw, (uLong)n, 1) != Z_OK)
		return -1;
	fgit_oid_to_hex(hex, oid);
	snprintf(path, sizeof(path), "%s/%.2s", objdir, hex);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/%.2s/%s", objdir, hex, hex + 2);
	if (!(f = fopen(path, "wb")))
		return -1;
	n = fwrite(z, 1, zlen, f) == zlen;
	return fclose(f) == 0 && n ? 0 : -1;
}

/*
 * An object both in a pack and loose is read from the pack, as git reads
 * it: every pack (ours, the alternates') before any loose file.  The loose
 * copies here are wrong on purpose, so reading them would show.
 */
TEST(odb, packs_before_loose_files)
{
	char dir[512], objdir[600], cmd[2400];
	struct fgit_odb *o = NULL;
	size_t i, nloose = 0;
	snprintf(dir, sizeof(dir), "%s-alt", test_repo);
	snprintf(objdir, sizeof(objdir), "%s/objects", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s && git init -q --bare %s && "
		 "echo %s/.git/objects >%s/info/alternates", dir, dir, test_repo, objdir);
	CHECK(system(cmd) == 0);
	for (i = 0; i < nref; i++) {
		char hex[FGIT_MAX_HEXSZ + 1], path[1024];
		struct stat st;
		fgit_oid_to_hex(hex, &ref[i].oid);
		snprintf(path, sizeof(path), "%s/.git/objects/%.2s/%s", test_repo, hex, hex + 2);
		if (stat(path, &st) == 0)
			continue;	/* loose in the alternate: no pack to prefer */
		CHECK(write_loose_as(objdir, &ref[i].oid, "not this\n") == 0);
		nloose++;
	}
	CHECK(nloose > 100);
	CHECK_MSG(fgit_odb_open(&o, objdir, NULL) == 0, "%s", fgit_error_last());
	for (i = 0; i < nref; i++) {
		void *buf;
		size_t size;
		enum fgit_object_type type;
		CHECK(fgit_odb_read(&buf, &size, &type, o, &ref[i].oid) == 0);
		CHECK(type == ref[i].type && size == ref[i].size &&
		      !memcmp(buf, ref[i].data, size));
		free(buf);
	}
	CHECK(read_all_into(o) == 0);
	fgit_odb_free(o);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

TEST(odb, teardown)
{
	fgit_odb_free(odb);
	free_reference(ref, nref);
	remove_repo();
}
