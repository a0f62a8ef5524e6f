/*
 * Several threads read every object of a repository with several packs and
 * a multi-pack-index through one shared fgit_odb and compare each result
 * with git's, while one of them rewrites the midx (fgit_midx_write) and
 * refreshes the database, which swaps midx files under the readers.  Run
 * under ThreadSanitizer by `make test`.
 */
#include <pthread.h>
#include "unit.h"
#include "helper.h"
#include "fgit/common.h"
#include "fgit/midx.h"
#include "fgit/odb.h"

#define NTHREADS 4
#define ROUNDS 3

static struct ref_obj *ref;
static size_t nref;
static struct fgit_odb *odb;
static char objdir[512];

struct worker {
	int id;
	int failures;
	char msg[256];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t k, i, round;
	for (round = 0; round < ROUNDS; round++) {
		for (k = 0; k < nref; k++) {
			void *buf;
			size_t size;
			enum fgit_object_type type;
			struct fgit_object_info info;
			/* thread-specific order: forwards, backwards, strided */
			i = w->id % 2 ? nref - 1 - k : (k * 7 + (size_t)w->id) % nref;
			if (fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) < 0) {
				snprintf(w->msg, sizeof(w->msg), "%s", fgit_error_last());
				w->failures++;
				continue;
			}
			if (type != ref[i].type || size != ref[i].size ||
			    memcmp(buf, ref[i].data, size))
				w->failures++;
			free(buf);
			if (fgit_odb_read_info(&info, odb, &ref[i].oid,
					       FGIT_INFO_TYPE | FGIT_INFO_SIZE |
					       FGIT_INFO_DISK_SIZE) < 0 ||
			    info.type != ref[i].type || info.size != ref[i].size)
				w->failures++;
		}
		if (w->id == 0) {
			struct fgit_midx_options mo = FGIT_MIDX_OPTIONS_INIT;
			char mp[600];
			snprintf(mp, sizeof(mp), "%s/pack/multi-pack-index", objdir);
			unlink(mp);
			if (fgit_midx_write(objdir, &mo) != 0)
				w->failures++;
			fgit_odb_refresh(odb);	/* the write lock, meanwhile */
		}
	}
	return NULL;
}

TEST(midx_mt, parallel_reads_through_a_changing_midx)
{
	char path[512];
	pthread_t t[NTHREADS];
	struct worker w[NTHREADS];
	int i, failures = 0;

	CHECK(make_repo("midxmt") == 0);
	snprintf(path, sizeof(path), "set -e; cd %s; export GIT_AUTHOR_NAME=A"
		 " GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 " for i in 1 2 3; do echo $i >> f; git add f; git commit -qm m$i;"
		 " git repack -q; done; git multi-pack-index write", test_repo);
	CHECK(system(path) == 0);
	CHECK(load_reference(&ref, &nref) == 0);
	snprintf(path, sizeof(path), "%s/.git/objects", test_repo);
	snprintf(objdir, sizeof(objdir), "%s", path);
	CHECK(fgit_odb_open(&odb, path, NULL) == 0);
	for (i = 0; i < NTHREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].id = i;
		CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		failures += w[i].failures;
		if (w[i].failures)
			printf("  thread %d: %d failures (%s)\n", i, w[i].failures, w[i].msg);
	}
	fgit_odb_free(odb);
	free_reference(ref, nref);
	remove_repo();
	CHECK(failures == 0);
}
