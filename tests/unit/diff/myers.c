/*
 * Myers diff: every hunk list must be a valid edit script (replaying it on
 * the old text gives the new one) of minimal size (checked against an
 * O(NM) longest-common-subsequence table on small random texts).
 */
#include "unit.h"
#include "fgit/diff.h"

struct rec {
	struct fgit_diff_hunk h[4096];
	int n;
};

static int collect(const struct fgit_diff_hunk *h, void *p)
{
	struct rec *r = p;
	if (r->n < 4096)
		r->h[r->n++] = *h;
	return 0;
}

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 16;
}

/* text of n lines drawn from an alphabet of k distinct lines */
static size_t make_text(char *out, int n, int k, int *lines)
{
	size_t len = 0;
	int i;
	for (i = 0; i < n; i++) {
		lines[i] = (int)(rnd() % k);
		len += (size_t)sprintf(out + len, "line %d\n", lines[i]);
	}
	return len;
}

static int lcs(const int *a, int n, const int *b, int m)
{
	static int t[201][201];
	int i, j;
	for (i = n; i >= 0; i--)
		for (j = m; j >= 0; j--) {
			if (i == n || j == m)
				t[i][j] = 0;
			else if (a[i] == b[j])
				t[i][j] = 1 + t[i + 1][j + 1];
			else
				t[i][j] = t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] : t[i][j + 1];
		}
	return t[0][0];
}

TEST(myers, random_minimal_and_valid)
{
	static char ta[8000], tb[8000];
	static int la[200], lb[200];
	static struct rec r;
	int iter;

	for (iter = 0; iter < 3000; iter++) {
		int n = (int)(rnd() % 60), m = (int)(rnd() % 60), k = 1 + (int)(rnd() % 8);
		size_t lena = make_text(ta, n, k, la), lenb = make_text(tb, m, k, lb);
		int i, ai = 0, bi = 0, dels = 0, adds = 0;

		r.n = 0;
		CHECK(fgit_diff_lines(ta, lena, tb, lenb, collect, &r) == 0);
		for (i = 0; i < r.n; i++) {
			/* unchanged stretch before the hunk must match */
			CHECK((int)r.h[i].old_start - ai == (int)r.h[i].new_start - bi);
			while (ai < (int)r.h[i].old_start) {
				CHECK(la[ai] == lb[bi]);
				ai++;
				bi++;
			}
			ai += (int)r.h[i].old_count;
			bi += (int)r.h[i].new_count;
			dels += (int)r.h[i].old_count;
			adds += (int)r.h[i].new_count;
		}
		CHECK(n - ai == m - bi);
		while (ai < n) {
			CHECK(la[ai] == lb[bi]);
			ai++;
			bi++;
		}
		CHECK_MSG(dels + adds == n + m - 2 * lcs(la, n, lb, m),
			  "iteration %d: %d edits, optimal %d", iter, dels + adds,
			  n + m - 2 * lcs(la, n, lb, m));
	}
}

TEST(myers, no_trailing_newline_is_a_change)
{
	size_t add, del;
	CHECK(fgit_diff_count("a\nb", 3, "a\nb\n", 4, &add, &del) == 0);
	CHECK(add == 1 && del == 1);
	CHECK(fgit_diff_count("", 0, "x\ny\n", 4, &add, &del) == 0);
	CHECK(add == 2 && del == 0);
	CHECK(fgit_diff_count("x\ny\n", 4, "", 0, &add, &del) == 0);
	CHECK(add == 0 && del == 2);
}
