/*
 * index-tool: look at index files the way the tests do.
 *   index-tool dump <index> [threads]      entries as `git ls-files -s --debug`
 *   index-tool rewrite <in> <out> [version [threads ieot eoie]]
 *   index-tool load <index> <threads> <runs>  time loads (ms per load, min/median/max)
 *   index-tool write <index> <out> <runs>     time writes of the loaded index
 */
#include <time.h>
#include "../unit/index/helpers.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct fgit_index_load_opts lo = FGIT_INDEX_LOAD_OPTS_INIT;
	struct fgit_index *idx = NULL;
	struct fgit_buf out = FGIT_BUF_INIT;

	if (argc < 3) {
		fprintf(stderr, "usage: index-tool dump|rewrite|load <index> ...\n");
		return 129;
	}
	if (!strcmp(argv[1], "write") && argc >= 5) {
		/* index-tool write <in> <out> <runs>: time serialise + lock + rename */
		int runs = atoi(argv[4]), i;
		double *t = calloc(runs, sizeof(*t));
		if (fgit_index_load(&idx, argv[2], &lo) < 0) {
			fprintf(stderr, "fatal: %s\n", fgit_error_last());
			return 128;
		}
		for (i = 0; i < runs; i++) {
			double s = now_ms();
			if (fgit_index_write(idx, argv[3], NULL) < 0) {
				fprintf(stderr, "fatal: %s\n", fgit_error_last());
				return 128;
			}
			t[i] = now_ms() - s;
		}
		qsort(t, runs, sizeof(*t), cmp_double);
		printf("write runs=%d min=%.2fms median=%.2fms max=%.2fms\n",
		       runs, t[0], t[runs / 2], t[runs - 1]);
		return 0;
	}
	if (!strcmp(argv[1], "load") && argc >= 5) {
		int runs = atoi(argv[4]), i;
		double *t = calloc(runs, sizeof(*t));
		lo.threads = atoi(argv[3]);
		for (i = 0; i < runs; i++) {
			double s = now_ms();
			if (fgit_index_load(&idx, argv[2], &lo) < 0) {
				fprintf(stderr, "fatal: %s\n", fgit_error_last());
				return 128;
			}
			t[i] = now_ms() - s;
			if (i == 0)
				printf("loaded %zu entries with %u thread(s)\n",
				       fgit_index_entrycount(idx), fgit_index_load_threads(idx));
			fgit_index_free(idx);
		}
		qsort(t, runs, sizeof(*t), cmp_double);
		printf("threads=%d runs=%d min=%.2fms median=%.2fms max=%.2fms\n",
		       lo.threads, runs, t[0], t[runs / 2], t[runs - 1]);
		return 0;
	}
	lo.threads = !strcmp(argv[1], "dump") && argc > 3 ? atoi(argv[3]) : 1;
	if (fgit_index_load(&idx, argv[2], &lo) < 0) {
		if (fgit_index_error_is_hdr())
			fprintf(stderr, "error: %s\nfatal: index file corrupt\n", fgit_error_last());
		else
			fprintf(stderr, "fatal: %s\n", fgit_error_last());
		return 128;
	}
	if (!strcmp(argv[1], "dump")) {
		dump_index(&out, idx);
		fwrite(out.ptr, 1, out.len, stdout);
	} else if (!strcmp(argv[1], "rewrite") && argc > 3) {
		struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
		if (argc > 4)
			wo.index_version = atoi(argv[4]);
		if (argc > 7) {
			wo.threads = atoi(argv[5]);
			wo.record_ieot = atoi(argv[6]);
			wo.record_eoie = atoi(argv[7]);
		}
		if (fgit_index_write(idx, argv[3], &wo) < 0) {
			fprintf(stderr, "fatal: %s\n", fgit_error_last());
			return 128;
		}
	}
	fgit_index_free(idx);
	fgit_buf_release(&out);
	return 0;
}
