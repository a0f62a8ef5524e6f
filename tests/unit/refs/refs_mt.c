/* Several threads resolving and iterating refs of one refdb while
 * packed-refs is rewritten underneath: results stay consistent and the
 * ThreadSanitizer build (make tsan) reports no race. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/refs.h"

static char dir[64];
static struct fgit_refdb *db;
static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void write_packed(int generation)
{
	struct fgit_buf b = FGIT_BUF_INIT, p = FGIT_BUF_INIT, tmp = FGIT_BUF_INIT;
	FILE *f;
	int i;
	fgit_buf_adds(&b, "# pack-refs with: peeled fully-peeled sorted \n");
	for (i = 0; i < 200; i++)
		fgit_buf_addf(&b, "%040d refs/heads/b%03d\n", i, i);
	fgit_buf_addf(&p, "%s/packed-refs", dir);
	fgit_buf_addf(&tmp, "%s/packed-refs.new%d", dir, generation);
	f = fopen(tmp.ptr, "w");
	if (f) {
		fwrite(b.ptr, 1, b.len, f);
		fclose(f);
		rename(tmp.ptr, p.ptr);
	}
	fgit_buf_release(&b);
	fgit_buf_release(&p);
	fgit_buf_release(&tmp);
}

static int count_cb(const char *name, const struct fgit_oid *oid, unsigned int flags, void *payload)
{
	(*(int *)payload)++;
	return 0;
}

static void *reader(void *arg)
{
	int round, i;
	for (round = 0; round < 200; round++) {
		int n = 0;
		for (i = 0; i < 200; i += 37) {
			char name[64], hex[41];
			struct fgit_oid oid;
			snprintf(name, sizeof(name), "refs/heads/b%03d", i);
			if (fgit_refdb_resolve(&oid, NULL, NULL, db, name) ||
			    strcmp(fgit_oid_to_hex(hex, &oid) + 37, (snprintf(name, 4, "%03d", i), name))) {
				pthread_mutex_lock(&fail_lock);
				failures++;
				pthread_mutex_unlock(&fail_lock);
			}
		}
		if (fgit_refdb_foreach(db, "refs/", count_cb, &n) || n != 200) {
			pthread_mutex_lock(&fail_lock);
			failures++;
			pthread_mutex_unlock(&fail_lock);
		}
	}
	return NULL;
}

TEST(refs_mt, concurrent_readers_and_packed_refs_rewrites)
{
	pthread_t t[4];
	int i;
	strcpy(dir, "/tmp/fgit-unit-refsmt-XXXXXX");
	CHECK(mkdtemp(dir));
	write_packed(0);
	CHECK(fgit_refdb_open(&db, dir, dir, FGIT_HASH_SHA1) == 0);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (i = 1; i < 50; i++) {
		write_packed(i);
		usleep(1000);
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	fgit_refdb_free(db);
	{
		char cmd[100];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
	CHECK_MSG(failures == 0, "%d failures", failures);
}
