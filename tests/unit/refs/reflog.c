/* Reflog reading: git's line format, malformed lines skipped as git skips
 * them (short, no '>', no zone, zero time), and the rewrite keeping only
 * some entries with --rewrite's chaining. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/refs.h"

static char dir[64];

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

#define A "1111111111111111111111111111111111111111"
#define B "2222222222222222222222222222222222222222"
#define C "3333333333333333333333333333333333333333"

static const char log_text[] =
	A " " B " C O Mitter <c@x> 1112912053 -0700\tfirst\n"
	A " " B " short\n"
	A " " B " No Email 1112912053 -0700\tno gt\n"
	A " " B " X <x> 0 +0000\tzero time\n"
	A " " B " X <x> 1112912053\tno zone\n"
	"garbage\n"
	"\n"
	B " " C " X <x> 1112912054 +0100\n"
	B " " C " X <x> 1112912055 +0100\tlast, no newline";

struct collect {
	struct fgit_buf out;
};

static int collect_cb(const struct fgit_reflog_entry *e, void *payload)
{
	struct collect *c = payload;
	char h[41];
	fgit_buf_addf(&c->out, "%s %lld %d [%s] [%s]\n", fgit_oid_to_hex(h, &e->new_oid),
		      (long long)e->time, e->tz, e->ident, e->msg);
	return 0;
}

static int keep_odd(const struct fgit_reflog_entry *e, void *payload)
{
	int *n = payload;
	return (*n)++ % 2 == 0;
}

TEST(reflog, parse_and_skip)
{
	struct fgit_refdb *db;
	struct collect c = { FGIT_BUF_INIT };
	char cmd[100];

	strcpy(dir, "/tmp/fgit-unit-reflog-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	put("logs/refs/heads/main", log_text);
	CHECK(fgit_refdb_open(&db, dir, dir, FGIT_HASH_SHA1) == 0);
	CHECK(fgit_reflog_exists(db, "refs/heads/main"));
	CHECK(!fgit_reflog_exists(db, "refs/heads/other"));
	CHECK(fgit_reflog_foreach(db, "refs/heads/main", 0, collect_cb, &c) == 0);
	CHECK_MSG(!strcmp(c.out.ptr,
		B " 1112912053 -700 [C O Mitter <c@x>] [first]\n"
		C " 1112912054 100 [X <x>] []\n"
		C " 1112912055 100 [X <x>] [last, no newline]\n"), "%s", c.out.ptr);
	fgit_buf_reset(&c.out);
	CHECK(fgit_reflog_foreach(db, "refs/heads/other", 1, collect_cb, &c) == 0 && !c.out.len);
	fgit_buf_release(&c.out);
	fgit_refdb_free(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

TEST(reflog, rewrite_chains_old_values)
{
	struct fgit_refdb *db;
	struct fgit_buf b = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	char cmd[100];
	int n = 0;

	strcpy(dir, "/tmp/fgit-unit-reflog-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	put("refs/heads/main", B "\n");
	put("logs/refs/heads/main",
	    "0000000000000000000000000000000000000000 " A " X <x> 1000000001 +0000\tone\n"
	    A " " B " X <x> 1000000002 +0000\ttwo\n"
	    B " " C " X <x> 1000000003 -0130\n");
	CHECK(fgit_refdb_open(&db, dir, dir, FGIT_HASH_SHA1) == 0);
	CHECK(fgit_reflog_rewrite(db, "refs/heads/main", FGIT_REFLOG_REWRITE | FGIT_REFLOG_UPDATEREF,
				  keep_odd, &n) == 0);
	fgit_buf_addf(&p, "%s/logs/refs/heads/main", dir);
	CHECK(fgit_buf_read_file(&b, p.ptr) == 0);
	/* kept: 1st and 3rd; the 3rd's old value is the 1st's new one; git
	 * writes "%+05d" zones and always a tab */
	CHECK_MSG(!strcmp(b.ptr,
		"0000000000000000000000000000000000000000 " A " X <x> 1000000001 +0000\tone\n"
		A " " C " X <x> 1000000003 -0130\t\n"), "%s", b.ptr);
	fgit_buf_reset(&p);
	fgit_buf_addf(&p, "%s/refs/heads/main", dir);
	fgit_buf_reset(&b);
	CHECK(fgit_buf_read_file(&b, p.ptr) == 0 && !strcmp(b.ptr, C "\n"));
	fgit_buf_release(&b);
	fgit_buf_release(&p);
	fgit_refdb_free(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}
