/* Concurrent transactions on one refdb: compare-and-swap increments of one
 * ref from several threads never lose an update (the lock file serializes
 * them as between processes), while readers see only whole values. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/common.h"
#include "fgit/refs.h"

#define THREADS 4
#define ROUNDS 50

static char dir[64];
static struct fgit_refdb *db;
static int successes[THREADS];

static void value(struct fgit_oid *o, unsigned int n)
{
	char hex[41];
	snprintf(hex, sizeof(hex), "%040x", n);
	fgit_oid_from_hex(o, hex, FGIT_HASH_SHA1);
}

static unsigned int number(const struct fgit_oid *o)
{
	char hex[41];
	fgit_oid_to_hex(hex, o);
	return (unsigned int)strtoul(hex + 32, NULL, 16);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, i;

	for (i = 0; i < ROUNDS; i++) {
		struct fgit_oid cur, next;
		if (fgit_refdb_resolve(&cur, NULL, NULL, db, "refs/heads/counter"))
			continue;
		value(&next, number(&cur) + 1);
		if (!fgit_refdb_update(db, "refs/heads/counter", &next, &cur, FGIT_REF_SKIP_REFLOG,
				       NULL, "T <t@t> 0 +0000"))
			successes[id]++;
	}
	return NULL;
}

TEST(tx_mt, cas_counter)
{
	pthread_t th[THREADS];
	struct fgit_oid start, end;
	int i, total = 0;
	char cmd[100];

	strcpy(dir, "/tmp/fgit-unit-txmt-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	CHECK(fgit_refdb_open(&db, dir, dir, FGIT_HASH_SHA1) == 0);
	value(&start, 1);
	CHECK(fgit_refdb_update(db, "refs/heads/counter", &start, NULL, 0, NULL, "T <t@t> 0 +0000") == 0);
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += successes[i];
	}
	CHECK(fgit_refdb_resolve(&end, NULL, NULL, db, "refs/heads/counter") == 0);
	CHECK_MSG(number(&end) == 1u + (unsigned int)total, "%u vs %d", number(&end), total);
	CHECK(total > 0);
	fgit_refdb_free(db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}
