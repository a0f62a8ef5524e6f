/*
 * wildmatch against git itself.
 *
 * Our own table of patterns and texts; every (pattern, text) pair in four
 * modes (plain, WM_PATHNAME, WM_CASEFOLD, both) is checked against what git
 * 2.39 answers.  The oracle is `git ls-files -- <pathspec>` on an index
 * holding the texts: a pathspec without magic is matched by git with
 * wildmatch(flags 0), ":(glob)" with WM_PATHNAME, ":(icase)" adds
 * WM_CASEFOLD.  Git compares the pattern's literal leading part (up to the
 * first glob character) with memcmp and wildmatches the rest; we mirror that
 * split on our side (gitignore does the same split), and we skip the pairs
 * where pathspec's own "leading directory" rule decides instead.
 *
 * A handful of fixed expectations from gitignore(5) follow as a sanity
 * check that the oracle is being asked the right question.
 */
#include "unit.h"
#include "gitrun.h"
#include "fgit/wildmatch.h"

static const char *patterns[] = {
	"foo", "f*", "*o", "*", "?", "??", "???", "f?o", "*.c", "*.C",
	"a*b*c", "*a*a*b", "foo\\*", "foo\\*bar", "f\\oo", "\\[ab]", "[ab]c",
	"[!ab]c", "[^ab]c", "[a-c]x", "[!a-c]x", "[]]", "[]a]", "[!]]", "[]-]",
	"[a-]", "[-a]", "[a-c-e]", "[[:alpha:]]", "[[:digit:]]*",
	"[[:upper:]]*", "[[:lower:]]*", "[[:punct:]]", "[[:space:]]*",
	"[[:xdigit:]]", "[[:alnum:]][[:alnum:]]", "[[:bogus:]]", "[[:alpha:]",
	"[", "a[", "[a", "[[:", "[\\]]", "[\\-a]", "[A-Z]*", "[a-z]*",
	"[A]*", "[a]*", "foo/*", "foo/**", "foo/**/bar", "foo/**/**/bar",
	"**/bar", "**/foo", "**", "*/bar", "foo*bar", "foo**bar", "foo/*/bar",
	"foo?bar", "foo[/]bar", "**/*.c", "a/**/b/**/c", "*/*/*", "**/*",
	"foo/**/", "f[^eiu]o", "a\\", "a\\b", "*[al]?", "\\*", "*\\*", "[[]",
	"[[]]", "[?]", "[*]*", "x*y*z*", "*foo", "**foo", "foo/b?r", "FOO",
	"Foo/*", "[ --/]", "a**b", "**/**", "foo**", "fo*/bar", "[[:a", "x[[:]",
	"[[:cntrl:][:graph:]]", "[[:print:]]", "[[:blank:]]*", "\\a\\b\\c",
	"a/*", "a/**", "*/b", "**/b", "a/**/c", "**/x/**", "*a*a*a*c",
	"[a-c][!a-c]*", "[z-a]*", "[!]-]*", "**a", "a*/", "F*O",
};

static const char *texts[] = {
	"foo", "f", "fo", "foo.c", "bar.c", "a.C", "abc", "axbxc", "aab",
	"aaab", "foo*", "foo*bar", "fooxbar", "foo/bar", "foo/baz/bar",
	"foo/x/y/bar", "foox/bar", "bar", "x/bar", "x/y/bar", "ac", "bc",
	"cc", "bx", "dx", "]", "a", "-", "b", "d", "1", "1abc", "Abc", "ABC",
	"FOO", "Foo/bar", "[ab]", "[", "a[", "a\\b", "a\\", "a/b/c",
	"a/x/b/y/c", "a/b", "*", "?", "x", "xyz", "xaybzc", "a b", " lead",
	"foo?bar", "foo-bar", "foo/bar/baz", "fie", "fao", "FoO", "Fxo",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", "x/a/b/c",
	"dir/x/sub/y", "Q", "%", "~tilde", "tab\tname", "foo/bar.c",
	"deep/a/b/c/d/e.c", "[a]", "a[b", "\x7f" "del", "caps/Foo",
	"z", "zz/z", "foo/", "e",
};

#define NPAT (sizeof(patterns) / sizeof(patterns[0]))
#define NTXT (sizeof(texts) / sizeof(texts[0]))
#define BATCH 24

static const char *mode_magic[4] = { ":()", ":(glob)", ":(icase)",
				     ":(glob,icase)" };
static const unsigned mode_flags[4] = { 0, FGIT_WM_PATHNAME, FGIT_WM_CASEFOLD,
					FGIT_WM_PATHNAME | FGIT_WM_CASEFOLD };

static int valid_path(const char *t)
{
	size_t n = strlen(t);
	if (!n || t[0] == '/' || t[n - 1] == '/' || strstr(t, "//"))
		return 0;
	return 1;
}

static int conflicts(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la < lb)
		return !strncmp(a, b, la) && b[la] == '/';
	if (lb < la)
		return !strncmp(a, b, lb) && a[lb] == '/';
	return 0;
}

static int ncmp(const char *a, const char *b, size_t n, int icase)
{
	return icase ? strncasecmp(a, b, n) : strncmp(a, b, n);
}

/* Our answer, computed the way git's pathspec code calls wildmatch. */
static int ours(const char *pat, const char *text, unsigned flags)
{
	size_t plen = strlen(pat), tlen = strlen(text);
	size_t pre = fgit_wildmatch_literal_prefix(pat, plen);
	int icase = !!(flags & FGIT_WM_CASEFOLD);
	if (pre > tlen || ncmp(pat, text, pre, icase))
		return 0;
	return fgit_wildmatch_mem(pat + pre, plen - pre, text + pre,
				  tlen - pre, flags);
}

/* Does pathspec's literal "leading directory" rule decide this pair? */
static int pathspec_rule(const char *pat, const char *text, int icase)
{
	size_t plen = strlen(pat), tlen = strlen(text);
	if (plen > tlen || ncmp(pat, text, plen, icase))
		return 0;
	return plen == tlen || pat[plen - 1] == '/' || text[plen] == '/';
}

TEST(wildmatch, table_against_git)
{
	/*
	 * One index holds every text once per pattern and group, under
	 * "p<i>g<r>/": the groups keep texts that would clash as file and
	 * directory apart, and the prefix lets a single ls-files call per
	 * mode answer for all patterns at once.  A literal prefix ending in
	 * '/' changes nothing for the wildmatch part: git matches the literal
	 * part with memcmp and wildmatches the rest either way.
	 */
	int repo_of[NTXT];
	int ngroup = 0, i, j, r, m, b0;
	char *dir = NULL;
	static unsigned char git_says[4][NPAT][NTXT];
	size_t checked = 0, skipped = 0, bad = 0;
	struct fgit_buf in = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	const char *init[] = { "init", "-q", ".", NULL };
	const char *ui[] = { "update-index", "-z", "--index-info", NULL };

	for (i = 0; i < (int)NTXT; i++) {
		repo_of[i] = -1;
		if (!valid_path(texts[i]))
			continue;
		for (r = 0;; r++) {
			int ok = 1;
			for (j = 0; j < i && ok; j++)
				if (repo_of[j] == r && conflicts(texts[i], texts[j]))
					ok = 0;
			if (ok)
				break;
		}
		CHECK(r < 8);
		repo_of[i] = r;
		if (r + 1 > ngroup)
			ngroup = r + 1;
	}
	/*
	 * git matches every pathspec against every entry (the O(N x M) of
	 * seed 002), so patterns go in batches, each in its own repository.
	 */
	memset(git_says, 0, sizeof(git_says));
	for (b0 = 0; b0 < (int)NPAT; b0 += BATCH) {
		int b1 = b0 + BATCH < (int)NPAT ? b0 + BATCH : (int)NPAT;
		dir = scratch_dir();
		CHECK(dir);
		fgit_buf_reset(&in);
		CHECK(gitrun(dir, init, NULL, 0, &out) == 0);
		for (i = b0; i < b1; i++)
			for (j = 0; j < (int)NTXT; j++)
				if (repo_of[j] >= 0)
					fgit_buf_addf(&in, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tp%dg%d/%s%c",
						      i, repo_of[j], texts[j], 0);
		CHECK(gitrun(dir, ui, in.ptr, in.len, &out) == 0);
		for (m = 0; m < 4; m++) {
			struct fgit_buf specs = FGIT_BUF_INIT;
			const char *ls[4 + BATCH * 8];
			size_t off = 0, n = 0, k;
			ls[n++] = "ls-files";
			ls[n++] = "-z";
			ls[n++] = "--";
			for (i = b0; i < b1; i++)
				for (r = 0; r < ngroup; r++)
					fgit_buf_addf(&specs, "%sp%dg%d/%s%c",
						      mode_magic[m], i, r,
						      patterns[i], 0);
			for (k = 0; k < specs.len; k += strlen(specs.ptr + k) + 1)
				ls[n++] = specs.ptr + k;
			ls[n] = NULL;
			fgit_buf_reset(&out);
			CHECK(gitrun(dir, ls, NULL, 0, &out) == 0);
			fgit_buf_release(&specs);
			while (off < out.len) {
				const char *name = out.ptr + off;
				char *slash;
				int pi = (int)strtol(name + 1, &slash, 10);
				r = (int)strtol(slash + 1, &slash, 10);
				CHECK(pi >= b0 && pi < b1 && *slash == '/');
				for (j = 0; j < (int)NTXT; j++)
					if (repo_of[j] == r &&
					    !strcmp(texts[j], slash + 1))
						git_says[m][pi][j] = 1;
				off += strlen(name) + 1;
			}
		}
		scratch_remove(dir);
		dir = NULL;
	}
	fgit_buf_release(&in);
	fgit_buf_release(&out);

	for (m = 0; m < 4; m++) {
		for (i = 0; i < (int)NPAT; i++) {
			for (j = 0; j < (int)NTXT; j++) {
				int want, got;
				if (repo_of[j] < 0)
					continue;
				if (pathspec_rule(patterns[i], texts[j], m >= 2)) {
					skipped++;
					continue;
				}
				want = git_says[m][i][j];
				got = ours(patterns[i], texts[j], mode_flags[m]);
				checked++;
				if (want != got) {
					if (bad++ < 20)
						printf("  mode %s pattern '%s' text '%s': git %d, fgit %d\n",
						       mode_magic[m], patterns[i], texts[j], want, got);
				}
			}
		}
	}
	printf("  %zu pairs checked against git, %zu decided by pathspec rules\n",
	       checked, skipped);
	CHECK_MSG(bad == 0, "%zu mismatches", bad);
	CHECK(checked > 10000);
}

/* Whole-pattern expectations straight from gitignore(5)'s examples. */
TEST(wildmatch, documented_examples)
{
	const unsigned P = FGIT_WM_PATHNAME;
	CHECK(fgit_wildmatch("**/foo", "foo", P));
	CHECK(fgit_wildmatch("**/foo", "a/b/foo", P));
	CHECK(fgit_wildmatch("**/foo/bar", "x/foo/bar", P));
	CHECK(fgit_wildmatch("abc/**", "abc/x/y", P));
	CHECK(!fgit_wildmatch("abc/**", "abc", P));
	CHECK(fgit_wildmatch("a/**/b", "a/b", P));
	CHECK(fgit_wildmatch("a/**/b", "a/x/y/b", P));
	CHECK(!fgit_wildmatch("a/*/b", "a/x/y/b", P));
	CHECK(fgit_wildmatch("a/*/b", "a/x/y/b", 0));
	CHECK(fgit_wildmatch("*.TXT", "read.me.txt", FGIT_WM_CASEFOLD));
	CHECK(!fgit_wildmatch("*.TXT", "read.me.txt", 0));
	CHECK(!fgit_wildmatch("foo[", "foo[", 0));
	CHECK(fgit_wildmatch_mem("a\0b", 3, "a\0b", 3, 0));
	CHECK(fgit_wildmatch_literal_prefix("abc*d", 5) == 3);
	CHECK(fgit_wildmatch_literal_prefix("ab\\c", 4) == 2);
}

/*
 * Pathological backtracking must stay fast (pruning works).  Not in the git
 * table: git 2.39 itself needs seconds for "*a*a*a*a*a*a*a*b" against a
 * long run of 'a's in its non-pathname mode.
 */
TEST(wildmatch, no_exponential_blowup)
{
	char text[200];
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	CHECK(!fgit_wildmatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", text, 0));
	CHECK(!fgit_wildmatch("**/*a*a*a*a*a*a*a*a*a*a*a*a*b", text,
			      FGIT_WM_PATHNAME));
}
