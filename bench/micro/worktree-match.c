/*
 * Micro-benchmark of the worktree matchers (in process, no I/O):
 *
 *   ignore:   100,000 paths in ~5,000 directories walked in order through
 *             the push/lookup/pop API against 200 ignore patterns (a mix of
 *             literal names, "*.ext", "prefix*", anchored paths and
 *             wildcards); compared with the same patterns each run through
 *             wildmatch, as an fnmatch-per-pattern matcher would (a cost
 *             baseline only: it ignores directory-only patterns and the
 *             excluded-parent rule, so its hit count differs).
 *   pathspec: 2,000 literal pathspecs (files and directories) against the
 *             100,000 paths; compared with trying every element in turn.
 *
 * Usage: worktree-match [runs] [dump-dir|-] [only: ignore|pathspec]
 *   With dump-dir, also writes dump-dir/paths (NUL-separated),
 *   dump-dir/patterns and dump-dir/pathspecs (NUL-separated) so the same
 *   inputs can be given to git for comparison (bench/micro/run.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fgit/buf.h"
#include "fgit/ignore.h"
#include "fgit/pathspec.h"
#include "fgit/wildmatch.h"

#define NPATHS 100000
#define NPATTERNS 200
#define NSPECS 2000

static unsigned long rng = 7;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng >> 33) % n);
}

static const char *words[] = {
	"src", "lib", "core", "util", "net", "fs", "drivers", "include", "arch",
	"test", "docs", "build", "tools", "scripts", "kernel", "mm", "ipc",
	"crypto", "block", "sound", "firmware", "init", "security", "virt",
};
static const char *exts[] = {
	".c", ".h", ".o", ".txt", ".md", ".py", ".sh", ".S", ".json", ".tmp",
	".log", ".d", ".so", ".a", ".rs", ".go",
};
#define NW (sizeof(words) / sizeof(*words))
#define NE (sizeof(exts) / sizeof(*exts))

static char **paths;
static size_t npaths;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void gen_paths(void)
{
	size_t i, j;
	char buf[256];
	/* 5,000 directories, 20 files each */
	paths = malloc(NPATHS * sizeof(*paths));
	for (i = 0; i < NPATHS / 20; i++) {
		int depth = 1 + rnd(4), k, n = 0;
		for (k = 0; k < depth; k++)
			n += sprintf(buf + n, "%s%s%u/", k ? "" : "", words[rnd(NW)],
				     k == depth - 1 ? (unsigned)i : rnd(3));
		for (j = 0; j < 20; j++) {
			sprintf(buf + n, "%s_%zu%s", words[rnd(NW)], j, exts[rnd(NE)]);
			paths[npaths++] = strdup(buf);
		}
	}
	qsort(paths, npaths, sizeof(*paths), cmp);
}

static void gen_patterns(struct fgit_buf *out)
{
	int i;
	for (i = 0; i < NPATTERNS; i++) {
		switch (i % 10) {
		case 0: case 1: case 2: case 3:	/* literal names */
			fgit_buf_addf(out, "%s_%d%s\n", words[rnd(NW)], 20 + i,
				      exts[rnd(NE)]);
			break;
		case 4: case 5: case 6:		/* suffixes */
			fgit_buf_addf(out, "*.%s%d\n", exts[rnd(NE)] + 1, i);
			break;
		case 7:				/* prefixes */
			fgit_buf_addf(out, "%sx%d*\n", words[rnd(NW)], i);
			break;
		case 8:				/* anchored */
			fgit_buf_addf(out, "/%s%d/%s\n", words[rnd(NW)], i,
				      words[rnd(NW)]);
			break;
		case 9:				/* wildcards */
			fgit_buf_addf(out, "%s?%d*[0-9].%s\n", words[rnd(NW)],
				      i, exts[rnd(NE)] + 1);
			break;
		}
	}
	/* and a few that do match, so some lookups succeed early */
	fgit_buf_adds(out, "*.o\n*.tmp\n!keep.tmp\nbuild*/\n");
}

/*
 * CPU time of this process: the machine is shared (2 cores, several
 * users), so wall time mostly measures the neighbours; single-threaded
 * matching is fairly measured by its CPU time.
 */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Walk the sorted paths, pushing and popping directories as a walk would. */
static size_t run_ignore(struct fgit_ignore *ig)
{
	size_t i, hits = 0;
	fgit_ignore_push_dir(ig, "", 0);
	for (i = 0; i < npaths; i++) {
		const char *p = paths[i];
		const struct fgit_ignore_pattern *pat;
		if (fgit_ignore_check_path(&pat, ig, p, FGIT_IGNORE_DT_FILE) == 1)
			hits++;
	}
	while (fgit_ignore_depth(ig))
		fgit_ignore_pop_dir(ig);
	return hits;
}

/* Baseline: every pattern through wildmatch, last match wins. */
static size_t run_naive_ignore(char **pats, size_t npats)
{
	size_t i, j, hits = 0;
	for (i = 0; i < npaths; i++) {
		const char *p = paths[i], *base = strrchr(p, '/');
		base = base ? base + 1 : p;
		for (j = npats; j-- > 0;) {
			const char *pt = pats[j];
			int neg = *pt == '!';
			if (neg)
				pt++;
			if (strchr(pt, '/') ? fgit_wildmatch(pt + (*pt == '/'), p,
							      FGIT_WM_PATHNAME)
					    : fgit_wildmatch(pt, base, 0)) {
				hits += !neg;
				break;
			}
		}
	}
	return hits;
}

static size_t run_pathspec(const struct fgit_pathspec *ps)
{
	size_t i, hits = 0;
	for (i = 0; i < npaths; i++)
		hits += fgit_pathspec_match(ps, paths[i], strlen(paths[i]), 0, NULL);
	return hits;
}

/* Baseline: each literal element compared in turn (git's loop). */
static size_t run_naive_pathspec(char **specs, size_t n)
{
	size_t i, j, hits = 0;
	size_t *lens = malloc(n * sizeof(*lens));
	for (j = 0; j < n; j++)
		lens[j] = strlen(specs[j]);
	for (i = 0; i < npaths; i++) {
		const char *p = paths[i];
		size_t pl = strlen(p);
		for (j = 0; j < n; j++) {
			size_t l = lens[j];
			if (l <= pl && !strncmp(specs[j], p, l) &&
			    (l == pl || p[l] == '/')) {
				hits++;
				break;
			}
		}
	}
	free(lens);
	return hits;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int runs, size_t hits,
		   size_t ops)
{
	qsort(t, runs, sizeof(*t), cmpd);
	printf("%-34s CPU median %8.2f ms  min %8.2f  max %8.2f  (%d runs, %.0f ns/path, %zu hits)\n",
	       what, t[runs / 2] * 1e3, t[0] * 1e3, t[runs - 1] * 1e3, runs,
	       t[runs / 2] * 1e9 / ops, hits);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5, r;
	const char *dump = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
	const char *only = argc > 3 ? argv[3] : "";
	struct fgit_buf pat = FGIT_BUF_INIT;
	char *pats[NPATTERNS + 8], *specs[NSPECS];
	size_t npats = 0, nspecs = 0, hits = 0, i;
	double t[64], t0;
	struct fgit_pathspec *ps;

	if (runs < 1 || runs > 64)
		runs = 5;
	gen_paths();
	gen_patterns(&pat);
	{
		char *s = strdup(pat.ptr), *save, *line;
		for (line = strtok_r(s, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			pats[npats++] = line;
	}
	/* pathspecs: 1,500 files and 500 directories of the tree, shuffled */
	for (i = 0; i < NSPECS; i++) {
		const char *p = paths[rnd(npaths)];
		if (i % 4 == 3) {
			const char *slash = strrchr(p, '/');
			specs[nspecs++] = strndup(p, slash ? slash - p : strlen(p));
		} else {
			specs[nspecs++] = strdup(p);
		}
	}

	printf("%zu paths, %zu ignore patterns, %zu literal pathspecs\n",
	       npaths, npats, nspecs);
	for (r = 0; r < runs && strcmp(only, "pathspec"); r++) {
		struct fgit_ignore *ig;
		struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
		o.per_dir_name = NULL;
		t0 = now();
		fgit_ignore_new(&ig, &o);
		fgit_ignore_add_buffer(ig, pat.ptr, pat.len, "bench");
		hits = run_ignore(ig);
		fgit_ignore_free(ig);
		t[r] = now() - t0;
	}
	if (strcmp(only, "pathspec"))
		report("ignore: fgit_ignore (compiled)", t, runs, hits, npaths);
	for (r = 0; r < runs && !*only; r++) {
		t0 = now();
		hits = run_naive_ignore(pats, npats);
		t[r] = now() - t0;
	}
	if (!*only)
		report("ignore: wildmatch every pattern", t, runs, hits, npaths);

	for (r = 0; r < runs && strcmp(only, "ignore"); r++) {
		t0 = now();
		fgit_pathspec_new(&ps, "", (const char *const *)specs, nspecs, 0, NULL);
		hits = run_pathspec(ps);
		fgit_pathspec_free(ps);
		t[r] = now() - t0;
	}
	if (strcmp(only, "ignore"))
		report("pathspec: fgit_pathspec (hashed)", t, runs, hits, npaths);
	for (r = 0; r < (runs < 3 ? runs : 3) && !*only; r++) {
		t0 = now();
		hits = run_naive_pathspec(specs, nspecs);
		t[r] = now() - t0;
	}
	if (!*only)
		report("pathspec: every element in turn", t,
		       runs < 3 ? runs : 3, hits, npaths);

	/* the cost per path must not grow with the number of literals */
	if (!*only || !strcmp(only, "scaling")) {
		static const size_t counts[] = { 20, 200, 2000, 20000 };
		char **many = malloc(20000 * sizeof(*many));
		size_t c;
		for (i = 0; i < 20000; i++)
			many[i] = i < nspecs ? specs[i] : strdup(paths[rnd(npaths)]);
		for (c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
			char label[64];
			for (r = 0; r < runs; r++) {
				fgit_pathspec_new(&ps, "", (const char *const *)many,
						  counts[c], 0, NULL);
				t0 = now();
				hits = run_pathspec(ps);
				t[r] = now() - t0;
				fgit_pathspec_free(ps);
			}
			snprintf(label, sizeof(label), "pathspec: %zu literals (match only)",
				 counts[c]);
			report(label, t, runs, hits, npaths);
		}
	}

	if (dump) {
		char fn[4096];
		FILE *f;
		snprintf(fn, sizeof(fn), "%s/paths", dump);
		if ((f = fopen(fn, "w"))) {
			for (i = 0; i < npaths; i++)
				fwrite(paths[i], 1, strlen(paths[i]) + 1, f);
			fclose(f);
		}
		snprintf(fn, sizeof(fn), "%s/patterns", dump);
		if ((f = fopen(fn, "w"))) {
			fputs(pat.ptr, f);
			fclose(f);
		}
		snprintf(fn, sizeof(fn), "%s/pathspecs", dump);
		if ((f = fopen(fn, "w"))) {
			for (i = 0; i < nspecs; i++)
				fwrite(specs[i], 1, strlen(specs[i]) + 1, f);
			fclose(f);
		}
	}
	return 0;
}
