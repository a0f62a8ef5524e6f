/*
 * Several threads read every object of a repository with several packs and
 * a multi-pack-index through one shared fgit_odb and compare each result
 * with git's, while the midx is rewritten (fgit_midx_write) and the
 * database refreshed between chunks, swapping midx files under the
 * readers.  Run under ThreadSanitizer by `make test`.
 */
#include <stdatomic.h>
#include "unit.h"
#include "helper.h"
#include "fgit/common.h"
#include "fgit/midx.h"
#include "fgit/odb.h"
#include "fgit/thread.h"

static struct ref_obj *ref;
static size_t nref;
static struct fgit_odb *odb;
static char objdir[512];
static atomic_int failures, swapping;

/* One chunk of lookups; every 64th chunk also swaps the midx. */
static int chunk(size_t begin, size_t end, int worker, void *payload)
{
	size_t k;
	if (begin % (64 * 16) == 0 && !atomic_exchange(&swapping, 1)) {
		struct fgit_midx_options mo = FGIT_MIDX_OPTIONS_INIT;
		char mp[600];
		snprintf(mp, sizeof(mp), "%s/pack/multi-pack-index", objdir);
		unlink(mp);
		if (fgit_midx_write(objdir, &mo) != 0)
			atomic_fetch_add(&failures, 1);
		fgit_odb_refresh(odb);
		atomic_store(&swapping, 0);
	}
	for (k = begin; k < end; k++) {
		size_t i = (k * 7 + (size_t)worker) % nref;
		struct fgit_object_info info;
		enum fgit_object_type type;
		size_t size;
		void *buf;
		if (fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) < 0) {
			atomic_fetch_add(&failures, 1);
			continue;
		}
		if (type != ref[i].type || size != ref[i].size || memcmp(buf, ref[i].data, size))
			atomic_fetch_add(&failures, 1);
		free(buf);
		if (fgit_odb_read_info(&info, odb, &ref[i].oid, FGIT_INFO_TYPE | FGIT_INFO_SIZE) < 0 ||
		    info.type != ref[i].type)
			atomic_fetch_add(&failures, 1);
	}
	return 0;
}

TEST(midx_mt, parallel_reads_through_a_changing_midx)
{
	char cmd[1024];

	CHECK(make_repo("midxmt") == 0);
	snprintf(cmd, sizeof(cmd), "set -e; cd %s; export GIT_AUTHOR_NAME=A"
		 " GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@d;"
		 " for i in 1 2 3; do echo $i >> f; git add f; git commit -qm m$i;"
		 " git repack -q; done; git multi-pack-index write", test_repo);
	CHECK(system(cmd) == 0);
	CHECK(load_reference(&ref, &nref) == 0);
	snprintf(objdir, sizeof(objdir), "%s/.git/objects", test_repo);
	CHECK(fgit_odb_open(&odb, objdir, NULL) == 0);
	CHECK(fgit_parallel_for(3 * nref, 16, 4, chunk, NULL) == 0);
	fgit_odb_free(odb);
	free_reference(ref, nref);
	remove_repo();
	CHECK(atomic_load(&failures) == 0);
}
