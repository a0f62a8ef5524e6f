/*
 * Several threads read every object of a real (git-built, deltified) pack
 * through one shared fgit_odb, in different orders, and compare each
 * result with git's.  Run under ThreadSanitizer by `make tsan`.
 */
#include <pthread.h>
#include "unit.h"
#include "helper.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/odb.h"

#define NTHREADS 4
#define ROUNDS 3

static struct ref_obj *ref;
static size_t nref;
static struct fgit_odb *odb;
/* where each ref object lives (fgit_odb_foreach_located), pack -1 if not packed */
static struct place { int pack; uint64_t off; } *place;

static int place_cb(const struct fgit_oid *oid, int pack, uint64_t off, void *payload)
{
	size_t i;
	for (i = 0; i < nref; i++)
		if (fgit_oid_equal(&ref[i].oid, oid)) {
			place[i].pack = pack;
			place[i].off = off;
		}
	return 0;
}

struct worker {
	int id;
	int failures;
	char msg[256];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct fgit_buf into = FGIT_BUF_INIT;
	size_t k, i, round;
	for (round = 0; round < ROUNDS; round++) {
		for (k = 0; k < nref; k++) {
			void *buf;
			size_t size;
			enum fgit_object_type type;
			struct fgit_object_info info;
			/* thread-specific order: forwards, backwards, strided */
			i = w->id % 2 ? nref - 1 - k : (k * 7 + (size_t)w->id) % nref;
			if (w->id >= 2) {	/* lent: at its place, or by id */
				struct fgit_odb_view v;
				int pack = w->id == 2 ? place[i].pack : -1;
				if (fgit_odb_read_located_view(&v, odb, &ref[i].oid, pack,
							       place[i].off, UINT64_MAX)) {
					snprintf(w->msg, sizeof(w->msg), "%s", fgit_error_last());
					w->failures++;
					continue;
				}
				if (v.type != ref[i].type || v.size != ref[i].size ||
				    memcmp(v.data, ref[i].data, v.size) || v.data[v.size])
					w->failures++;
				fgit_odb_view_release(&v);
				continue;
			}
			if (w->id == 1 && fgit_odb_read_into(&into, &type, odb, &ref[i].oid) == 0) {
				buf = NULL;	/* one thread reads into its buffer */
				size = into.len;
			} else if (w->id == 1 ||
				   fgit_odb_read(&buf, &size, &type, odb, &ref[i].oid) < 0) {
				snprintf(w->msg, sizeof(w->msg), "%s", fgit_error_last());
				w->failures++;
				continue;
			}
			if (type != ref[i].type || size != ref[i].size ||
			    memcmp(buf ? buf : into.ptr, ref[i].data, size))
				w->failures++;
			free(buf);
			if (fgit_odb_read_info(&info, odb, &ref[i].oid,
					       FGIT_INFO_TYPE | FGIT_INFO_SIZE |
					       FGIT_INFO_DISK_SIZE) < 0 ||
			    info.type != ref[i].type || info.size != ref[i].size)
				w->failures++;
		}
		if (w->id == 0)
			fgit_odb_refresh(odb);	/* the write lock, meanwhile */
	}
	fgit_buf_release(&into);
	return NULL;
}

static void *warm_bases(void *arg)
{
	fgit_odb_warm_bases(arg);
	return NULL;
}

TEST(odb_mt, parallel_reads_match_git)
{
	char path[512];
	pthread_t t[NTHREADS], warm;
	struct worker w[NTHREADS];
	int i, failures = 0;

	CHECK(make_repo("mt") == 0);
	CHECK(load_reference(&ref, &nref) == 0);
	snprintf(path, sizeof(path), "%s/.git/objects", test_repo);
	/* every way of using the delta-base cache (every level, checkpoints,
	 * pack order with a budget small enough to evict all the time, bases
	 * read whole kept too; and that in a cache of 16 KiB, always evicting;
	 * reads counted down the chains (each thread reads every object, so
	 * the counts run out early), with room and always evicting) */
	for (int access = 0; access < 7; access++) {
		static const enum fgit_odb_access how[] = {
			FGIT_ODB_ACCESS_NORMAL, FGIT_ODB_ACCESS_RANDOM, FGIT_ODB_ACCESS_PACK_ORDER,
			FGIT_ODB_ACCESS_ONCE_EACH, FGIT_ODB_ACCESS_ONCE_EACH,
			FGIT_ODB_ACCESS_ALL_BY_ID, FGIT_ODB_ACCESS_ALL_BY_ID,
		};
		struct fgit_odb_options opts = FGIT_ODB_OPTIONS_INIT;
		opts.delta_base_cache_limit = access == 2 ? 64 << 10
			: access == 4 || access == 6 ? 16384 : 0;
		CHECK(fgit_odb_open(&odb, path, &opts) == 0);
		if (!place) {
			CHECK((place = calloc(nref, sizeof(*place))) != NULL);
			for (size_t k = 0; k < nref; k++)
				place[k].pack = -1;
			CHECK(fgit_odb_foreach_located(odb, FGIT_FOREACH_PACKED |
						       FGIT_FOREACH_PACK_ORDER, place_cb,
						       NULL) == 0);
		}
		fgit_odb_set_access(odb, how[access]);
		/* the bases looked up by one more thread while the others read
		 * (grep --cached does that while it lists the index) */
		if (how[access] == FGIT_ODB_ACCESS_ONCE_EACH)
			CHECK(pthread_create(&warm, NULL, warm_bases, odb) == 0);
		for (i = 0; i < NTHREADS; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].id = i;
			CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
		}
		if (how[access] == FGIT_ODB_ACCESS_ONCE_EACH)
			pthread_join(warm, NULL);
		for (i = 0; i < NTHREADS; i++) {
			pthread_join(t[i], NULL);
			failures += w[i].failures;
			if (w[i].failures)
				printf("  thread %d: %d failures (%s)\n", i, w[i].failures, w[i].msg);
		}
		fgit_odb_free(odb);
	}
	free_reference(ref, nref);
	free(place);
	place = NULL;
	remove_repo();
	CHECK(failures == 0);
}
