#include "unit.h"
#include "helper.h"
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

TEST(odb, teardown)
{
	fgit_odb_free(odb);
	free_reference(ref, nref);
	remove_repo();
}
