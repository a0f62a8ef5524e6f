#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/refs.h"
#include "helpers.h"

static const char *A = "1111111111111111111111111111111111111111";
static const char *B = "2222222222222222222222222222222222222222";
static const char *C = "3333333333333333333333333333333333333333";

static struct fgit_refdb *setup(void)
{
	struct fgit_refdb *db;
	char line[512];
	strcpy(dir, "/tmp/fgit-unit-refs-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	put("HEAD", "ref: refs/heads/main\n");
	snprintf(line, sizeof(line), "%s\n", A);
	put("refs/heads/main", line);
	snprintf(line, sizeof(line),
		 "# pack-refs with: peeled fully-peeled sorted \n"
		 "%s refs/heads/main\n%s refs/heads/packed\n%s refs/tags/v1\n^%s\n", B, B, C, A);
	put("packed-refs", line);
	put("refs/heads/sym", "ref: refs/heads/packed\n");
	put("refs/heads/dangling", "ref: refs/heads/nowhere\n");
	put("refs/heads/broken", "not a ref\n");
	put("refs/heads/x.lock", "junk\n");
	if (fgit_refdb_open(&db, dir, dir, FGIT_HASH_SHA1))
		abort();
	return db;
}

static void teardown(struct fgit_refdb *db)
{
	char cmd[100];
	fgit_refdb_free(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		abort();
}

TEST(refs, loose_overrides_packed_and_symrefs_resolve)
{
	struct fgit_refdb *db = setup();
	struct fgit_oid oid, want;
	char *name = NULL;
	unsigned int flags;

	CHECK(fgit_refdb_resolve(&oid, &name, &flags, db, "HEAD") == 0);
	fgit_oid_from_hex(&want, A, FGIT_HASH_SHA1);
	CHECK(fgit_oid_equal(&oid, &want) && !strcmp(name, "refs/heads/main"));
	CHECK(flags & FGIT_REF_SYMBOLIC);
	free(name);
	CHECK(fgit_refdb_resolve(&oid, NULL, NULL, db, "refs/heads/sym") == 0);
	fgit_oid_from_hex(&want, B, FGIT_HASH_SHA1);
	CHECK(fgit_oid_equal(&oid, &want));
	name = NULL;
	CHECK(fgit_refdb_resolve(&oid, &name, &flags, db, "refs/heads/dangling") == FGIT_ENOTFOUND);
	CHECK(name && !strcmp(name, "refs/heads/nowhere"));
	free(name);
	CHECK(fgit_refdb_read_raw(&oid, NULL, &flags, db, "refs/heads/broken") == FGIT_EINVALID);
	CHECK(fgit_refdb_peeled(&oid, db, "refs/tags/v1") == 0);
	fgit_oid_from_hex(&want, A, FGIT_HASH_SHA1);
	CHECK(fgit_oid_equal(&oid, &want));
	CHECK(fgit_refdb_peeled(&oid, db, "refs/heads/packed") == FGIT_ENOTFOUND);
	teardown(db);
}

struct seen {
	char names[16][64];
	unsigned int flags[16];
	int n;
};

static int record(const char *name, const struct fgit_oid *oid, unsigned int flags, void *payload)
{
	struct seen *s = payload;
	if (s->n < 16) {
		snprintf(s->names[s->n], 64, "%s", name);
		s->flags[s->n++] = flags;
	}
	return 0;
}

TEST(refs, iteration_is_sorted_merged_and_skips_bad_names)
{
	struct fgit_refdb *db = setup();
	struct seen s = { .n = 0 };
	CHECK(fgit_refdb_foreach(db, "refs/", record, &s) == 0);
	CHECK_MSG(s.n == 6, "%d refs", s.n);
	CHECK(!strcmp(s.names[0], "refs/heads/broken") && (s.flags[0] & FGIT_REF_BROKEN));
	CHECK(!strcmp(s.names[1], "refs/heads/dangling") && (s.flags[1] & FGIT_REF_BROKEN) &&
	      (s.flags[1] & FGIT_REF_SYMBOLIC));
	CHECK(!strcmp(s.names[2], "refs/heads/main") && !(s.flags[2] & FGIT_REF_PACKED));
	CHECK(!strcmp(s.names[3], "refs/heads/packed") && (s.flags[3] & FGIT_REF_PACKED));
	CHECK(!strcmp(s.names[4], "refs/heads/sym"));
	CHECK(!strcmp(s.names[5], "refs/tags/v1") && (s.flags[5] & FGIT_REF_PEELED));
	s.n = 0;
	CHECK(fgit_refdb_foreach(db, "refs/tags/", record, &s) == 0 && s.n == 1);
	teardown(db);
}

TEST(refs, dwim_and_shorten)
{
	struct fgit_refdb *db = setup();
	struct fgit_oid oid;
	char *ref = NULL, *shortname;
	CHECK(fgit_refdb_dwim(&oid, &ref, NULL, db, "main", 4) == 1);
	CHECK(!strcmp(ref, "refs/heads/main"));
	free(ref);
	ref = NULL;
	CHECK(fgit_refdb_dwim(&oid, &ref, NULL, db, "HEAD", 4) == 1 && !strcmp(ref, "refs/heads/main"));
	free(ref);
	CHECK(fgit_refdb_dwim(&oid, NULL, NULL, db, "nothing", 7) == 0);
	shortname = fgit_refdb_shorten(db, "refs/heads/main", 1);
	CHECK(!strcmp(shortname, "main"));
	free(shortname);
	put("refs/tags/main", "1111111111111111111111111111111111111111\n");
	shortname = fgit_refdb_shorten(db, "refs/heads/main", 1);
	CHECK_MSG(!strcmp(shortname, "heads/main"), "%s", shortname);
	free(shortname);
	teardown(db);
}

TEST(refs, corrupt_packed_refs_is_an_error)
{
	struct fgit_refdb *db = setup();
	struct fgit_oid oid;
	put("packed-refs", "garbage\n");
	CHECK(fgit_refdb_resolve(&oid, NULL, NULL, db, "refs/heads/packed") == FGIT_ERROR);
	CHECK(strstr(fgit_error_last(), "unexpected line in"));
	put("packed-refs", "1111111111111111111111111111111111111111 refs/heads/x");
	CHECK(fgit_refdb_resolve(&oid, NULL, NULL, db, "refs/heads/packed") == FGIT_ERROR);
	CHECK(strstr(fgit_error_last(), "unterminated line in"));
	teardown(db);
}

TEST(refs, refname_rules)
{
	const char *good[] = { "refs/heads/main", "refs/heads/a.b", "refs/tags/v1.0", "a/b", NULL };
	const char *bad[] = { "refs/heads/a..b", "refs/heads/.x", "refs/heads/x.lock",
			      "refs/heads/a b", "refs/heads/a~", "refs/heads/a^", "refs/heads/a:",
			      "refs/heads/a?", "refs/heads/a[", "refs/heads/a\\\\", "refs//x",
			      "refs/heads/", "/refs/x", "refs/x.", "@", "refs/a@{b", "main", NULL };
	int i;
	for (i = 0; good[i]; i++)
		CHECK_MSG(fgit_refname_check(good[i], 0) == 0, "%s", good[i]);
	for (i = 0; bad[i]; i++)
		CHECK_MSG(fgit_refname_check(bad[i], 0) != 0, "%s", bad[i]);
	CHECK(fgit_refname_check("HEAD", FGIT_REFNAME_ALLOW_ONELEVEL) == 0);
}
