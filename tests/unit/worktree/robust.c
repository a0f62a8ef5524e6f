/*
 * Hostile input for the worktree matchers: random bytes as patterns,
 * ignore files, paths and pathspecs.  Nothing here has an expected answer
 * beyond "returns, does not crash, does not read out of bounds" (run under
 * AddressSanitizer to mean it), and a few invariants that hold for any
 * input.
 */
#include "unit.h"
#include "fgit/common.h"
#include "fgit/ignore.h"
#include "fgit/pathspec.h"
#include "fgit/wildmatch.h"

static unsigned long rng = 99;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng >> 33) % n);
}

/* Random bytes drawn mostly from the characters that mean something. */
static size_t fill(char *buf, size_t max, int nul_ok)
{
	static const char alpha[] = "*?[]!^-\\/:.az AZ09#\r\n()[:alpha:]";
	size_t n = rnd(max), i;
	for (i = 0; i < n; i++) {
		if (rnd(8) == 0)
			buf[i] = (char)rnd(256);
		else
			buf[i] = alpha[rnd(sizeof(alpha) - 1)];
		if (!nul_ok && !buf[i])
			buf[i] = 'x';
	}
	buf[n] = '\0';
	return n;
}

TEST(robust, wildmatch_random)
{
	char p[64], t[64];
	int i;
	for (i = 0; i < 200000; i++) {
		/* exact-size heap copies, so ASan sees any overread */
		size_t pl = fill(p, 40, 1), tl = fill(t, 40, 1);
		char *hp = malloc(pl ? pl : 1), *ht = malloc(tl ? tl : 1);
		unsigned fl = rnd(4);
		int r;
		memcpy(hp, p, pl);
		memcpy(ht, t, tl);
		r = fgit_wildmatch_mem(hp, pl, ht, tl, fl);
		CHECK(r == 0 || r == 1);
		/* a pattern without special characters matches only itself */
		if (fgit_wildmatch_literal_prefix(hp, pl) == pl && !(fl & 1))
			CHECK(r == (pl == tl && !memcmp(hp, ht, pl)));
		free(hp);
		free(ht);
	}
}

TEST(robust, ignore_random_files)
{
	char buf[512], path[64];
	int i, j;
	for (i = 0; i < 3000; i++) {
		struct fgit_ignore *ig = NULL;
		struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
		size_t n = fill(buf, sizeof(buf) - 1, 1);
		char *copy = malloc(n ? n : 1);
		o.per_dir_name = NULL;
		o.flags = rnd(2) ? FGIT_IGNORE_ICASE : 0;
		CHECK(fgit_ignore_new(&ig, &o) == 0);
		memcpy(copy, buf, n);
		CHECK(fgit_ignore_add_buffer(ig, copy, n, "random") == 0);
		free(copy);
		fill(buf, 40, 0);
		CHECK(fgit_ignore_add_pattern(ig, buf, "cmdline") == 0);
		for (j = 0; j < 20; j++) {
			const struct fgit_ignore_pattern *p;
			size_t k, pl = fill(path, 40, 0);
			int r;
			/* check_path wants a tidy relative path */
			for (k = 0; k < pl; k++)
				if (path[k] == '/' && (k == 0 || path[k - 1] == '/' ||
						       k + 1 == pl))
					path[k] = '_';
			r = fgit_ignore_check_path(&p, ig, path,
						   (enum fgit_ignore_dtype)rnd(3));
			CHECK(r == 0 || r == 1);
			if (r == 1)
				CHECK(p && !fgit_ignore_pattern_negated(p));
			if (p)
				CHECK(fgit_ignore_pattern_text(p)[0] != '\0');
		}
		fgit_ignore_free(ig);
	}
}

TEST(robust, pathspec_random)
{
	char a[4][48], path[64];
	int i, j;
	for (i = 0; i < 20000; i++) {
		const char *args[4];
		struct fgit_pathspec *ps = NULL;
		size_t n = 1 + rnd(4), k;
		int ret;
		for (k = 0; k < n; k++) {
			fill(a[k], 40, 0);
			args[k] = a[k];
		}
		ret = fgit_pathspec_new(&ps, rnd(2) ? "sub/dir" : "", args, n,
					rnd(32), "/top");
		if (ret) {
			CHECK(ret < 0 && !ps);
			CHECK(fgit_error_last()[0] != '\0');
			continue;
		}
		for (j = 0; j < 20; j++) {
			size_t pl = fill(path, 40, 0);
			unsigned char seen[8] = { 0 };
			int m = fgit_pathspec_match(ps, path, pl, rnd(2), NULL);
			int m2 = fgit_pathspec_match(ps, path, pl, 0, seen);
			CHECK(m == 0 || m == 1);
			CHECK(m2 == 0 || m2 == 1);
			fgit_pathspec_could_match_under(ps, path, pl);
		}
		fgit_pathspec_free(ps);
	}
}
