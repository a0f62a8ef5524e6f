/* Ref transactions: values, reflogs, symrefs through HEAD, packed-refs
 * deletion, and all-or-nothing failure (tests/compat/t1400 compares the
 * same things with git itself). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/refs.h"

static char dir[64];
static const char *ID = "C O Mitter <c@example.com> 1112912053 -0700";

static void put(const char *name, const char *content)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	FILE *f;
	char *slash;
	fgit_buf_addf(&p, "%s/%s", dir, name);
	for (slash = strchr(p.ptr + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p.ptr, 0777);
		*slash = '/';
	}
	f = fopen(p.ptr, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
	fgit_buf_release(&p);
}

static int get(struct fgit_buf *out, const char *name)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	int r;
	fgit_buf_reset(out);
	fgit_buf_addf(&p, "%s/%s", dir, name);
	r = fgit_buf_read_file(out, p.ptr);
	fgit_buf_release(&p);
	return r;
}

static int present(const char *name)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	struct stat st;
	int r;
	fgit_buf_addf(&p, "%s/%s", dir, name);
	r = lstat(p.ptr, &st) == 0;
	fgit_buf_release(&p);
	return r;
}

static struct fgit_oid oid(char c)
{
	char hex[41];
	struct fgit_oid o;
	memset(hex, c, 40);
	hex[40] = '\0';
	fgit_oid_from_hex(&o, hex, FGIT_HASH_SHA1);
	return o;
}

static struct fgit_refdb *setup(void)
{
	struct fgit_refdb *db;
	strcpy(dir, "/tmp/fgit-unit-reftx-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	put("HEAD", "ref: refs/heads/main\n");
	put("refs/heads/main", "1111111111111111111111111111111111111111\n");
	put("packed-refs", "# pack-refs with: peeled fully-peeled sorted \n"
	    "2222222222222222222222222222222222222222 refs/heads/packed\n"
	    "3333333333333333333333333333333333333333 refs/tags/v1\n"
	    "^1111111111111111111111111111111111111111\n");
	put("logs/refs/heads/main", "");
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

TEST(tx, update_via_head_logs_both)
{
	struct fgit_refdb *db = setup();
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_oid n = oid('4'), o = oid('1');
	int r = fgit_refdb_update(db, "HEAD", &n, &o, 0, "  move\n it ", ID);

	CHECK(r == 0);
	CHECK(get(&b, "refs/heads/main") == 0 &&
	      !strcmp(b.ptr, "4444444444444444444444444444444444444444\n"));
	CHECK(get(&b, "HEAD") == 0 && !strcmp(b.ptr, "ref: refs/heads/main\n"));
	CHECK(get(&b, "logs/HEAD") == 0 &&
	      !strcmp(b.ptr, "1111111111111111111111111111111111111111 "
		      "4444444444444444444444444444444444444444 "
		      "C O Mitter <c@example.com> 1112912053 -0700\tmove it\n"));
	CHECK(get(&b, "logs/refs/heads/main") == 0 && strstr(b.ptr, "\tmove it\n"));
	CHECK(!present("refs/heads/main.lock") && !present("HEAD.lock"));
	fgit_buf_release(&b);
	teardown(db);
}

TEST(tx, old_mismatch_changes_nothing)
{
	struct fgit_refdb *db = setup();
	struct fgit_ref_transaction *tx;
	struct fgit_oid n = oid('4'), bad = oid('9'), zero;
	struct fgit_buf b = FGIT_BUF_INIT;

	fgit_oid_zero(&zero, FGIT_HASH_SHA1);
	CHECK(fgit_ref_transaction_begin(&tx, db) == 0);
	CHECK(fgit_ref_transaction_update(tx, "refs/heads/new", &n, &zero, 0, "x") == 0);
	CHECK(fgit_ref_transaction_update(tx, "refs/heads/main", &n, &bad, 0, "x") == 0);
	CHECK(fgit_ref_transaction_commit(tx, ID) == FGIT_EINVALID);
	CHECK_MSG(!strcmp(fgit_error_last(), "cannot lock ref 'refs/heads/main': is at "
			  "1111111111111111111111111111111111111111 but expected "
			  "9999999999999999999999999999999999999999"), "%s", fgit_error_last());
	fgit_ref_transaction_free(tx);
	CHECK(!present("refs/heads/new") && !present("refs/heads/new.lock"));
	CHECK(get(&b, "refs/heads/main") == 0 && b.ptr[0] == '1');
	CHECK(!present("logs/HEAD"));
	fgit_buf_release(&b);
	teardown(db);
}

TEST(tx, delete_packed_rewrites_file)
{
	struct fgit_refdb *db = setup();
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_oid o = oid('2');

	CHECK(fgit_refdb_update(db, "refs/heads/packed", NULL, &o, 0, NULL, ID) == 0);
	CHECK(get(&b, "packed-refs") == 0);
	CHECK_MSG(!strcmp(b.ptr, "# pack-refs with: peeled fully-peeled sorted \n"
			  "3333333333333333333333333333333333333333 refs/tags/v1\n"
			  "^1111111111111111111111111111111111111111\n"), "%s", b.ptr);
	CHECK(!fgit_refdb_exists(db, "refs/heads/packed"));
	CHECK(!present("packed-refs.lock"));
	fgit_buf_release(&b);
	teardown(db);
}

TEST(tx, existing_lock_is_refused)
{
	struct fgit_refdb *db = setup();
	struct fgit_oid n = oid('4');
	struct fgit_buf b = FGIT_BUF_INIT;

	put("refs/heads/main.lock", "");
	CHECK(fgit_refdb_update(db, "refs/heads/main", &n, NULL, 0, NULL, ID) == FGIT_ELOCKED);
	CHECK(!strncmp(fgit_error_last(), "cannot lock ref 'refs/heads/main': Unable to create '", 52));
	CHECK(get(&b, "refs/heads/main") == 0 && b.ptr[0] == '1');
	CHECK(present("refs/heads/main.lock"));
	fgit_buf_release(&b);
	teardown(db);
}

TEST(tx, symref_and_df_conflicts)
{
	struct fgit_refdb *db = setup();
	struct fgit_oid n = oid('4');
	struct fgit_buf b = FGIT_BUF_INIT;

	CHECK(fgit_refdb_symref(db, "HEAD", "refs/heads/packed", "switch", ID) == 0);
	CHECK(get(&b, "HEAD") == 0 && !strcmp(b.ptr, "ref: refs/heads/packed\n"));
	CHECK(fgit_refdb_update(db, "refs/heads/main/sub", &n, NULL, 0, NULL, ID) == FGIT_EEXISTS);
	CHECK_MSG(!strcmp(fgit_error_last(), "cannot lock ref 'refs/heads/main/sub': "
			  "'refs/heads/main' exists; cannot create 'refs/heads/main/sub'"),
		  "%s", fgit_error_last());
	CHECK(fgit_refdb_update(db, "refs/tags", &n, NULL, 0, NULL, ID) == FGIT_EEXISTS);
	fgit_buf_release(&b);
	teardown(db);
}
