/*
 * Threaded loading under ThreadSanitizer (`make tsan`): indexes whose
 * entries are parsed in blocks by several threads (IEOT in v2 and v4, the
 * scan path in v2), loaded by several threads at once, must give exactly
 * what one thread gives.
 */
#include <pthread.h>
#include "unit.h"
#include "helpers.h"

static char *dir;
static struct fgit_buf ref = FGIT_BUF_INIT;
static struct fgit_buf path = FGIT_BUF_INIT;

struct job {
	int threads;
	int ok;
};

static void *load_one(void *arg)
{
	struct job *j = arg;
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index *idx = NULL;
	struct fgit_buf out = FGIT_BUF_INIT;
	int i;

	lo.threads = j->threads;
	lo.flags = FGIT_INDEX_LOAD_VERIFY;
	j->ok = 1;
	for (i = 0; i < 3 && j->ok; i++) {
		if (fgit_index_load(&idx, path.ptr, &lo) < 0) {
			j->ok = 0;
			break;
		}
		fgit_buf_reset(&out);
		dump_index(&out, idx);
		j->ok = out.len == ref.len && !memcmp(out.ptr, ref.ptr, ref.len) &&
			(j->threads == 1 || fgit_index_load_threads(idx) > 1);
		fgit_index_free(idx);
	}
	fgit_buf_release(&out);
	return NULL;
}

static int run(const char *config, int version)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index *idx = NULL;
	struct job jobs[4];
	pthread_t t[4];
	int i, ok = 1;

	scratch_done(dir);
	dir = scratch_new();
	if (!dir || sh("cd '%s' && " GIT " init -q && i=0; while [ $i -lt 4000 ]; do "
		       "printf '100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\\td%%d/f%%d\\n' "
		       "$((i / 30)) $i; i=$((i+1)); done | " GIT " update-index --index-info && "
		       GIT " %s update-index --index-version %d --force-write-index",
		       dir, config, version) != 0)
		return 0;
	fgit_buf_reset(&path);
	fgit_buf_addf(&path, "%s/.git/index", dir);
	lo.threads = 1;
	if (fgit_index_load(&idx, path.ptr, &lo) < 0)
		return 0;
	fgit_buf_reset(&ref);
	dump_index(&ref, idx);
	fgit_index_free(idx);
	for (i = 0; i < 4; i++) {
		jobs[i].threads = i == 0 ? 1 : i + 1;
		pthread_create(&t[i], NULL, load_one, &jobs[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ok &= jobs[i].ok;
	}
	return ok;
}

TEST(index_load_mt, v2_scan)
{
	CHECK(run("", 2));
}

TEST(index_load_mt, v2_ieot)
{
	CHECK(run("-c index.threads=4 -c index.recordOffsetTable=true", 2));
}

TEST(index_load_mt, v4_ieot)
{
	CHECK(run("-c index.threads=3 -c index.recordOffsetTable=true", 4));
	scratch_done(dir);
	dir = NULL;
}
