/*
 * Pathspecs against git itself: a repository whose index holds a few
 * thousand generated paths (odd names included); for each of our pathspec
 * sets, run from the top or a subdirectory, `git ls-files -z --full-name
 * -- <set>` must list exactly the index paths our fgit_pathspec_match
 * accepts; errors must carry git's message; --error-unmatch must complain
 * about the same elements our `seen` array leaves unset.  The pruning
 * query is checked to be sound: no match below a directory said to have
 * none.
 */
#include "unit.h"
#include "gitrun.h"
#include "fgit/common.h"
#include "fgit/pathspec.h"

static const char *dirnames[] = {
	"src", "lib", "Docs", "docs", "weird", "a", "b", "x", "deep", "Src",
};
static const char *filenames[] = {
	"a.c", "b.h", "README", "x.txt", "Y.TXT", "*.c", "q?x", "[ab]",
	"sp ace", "foo", "foo.c", "Makefile", "lib.c", "index.html", "z",
	"dot.", "-dash", "back\\slash",
};

static unsigned long rng = 42;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng >> 33) % n);
}

struct repo {
	char *dir;
	struct fgit_buf paths;	/* NUL-separated, sorted as git lists them */
	size_t npaths;
	struct fgit_buf dirs;	/* NUL-separated directories */
};

static void gen(struct fgit_buf *in, struct fgit_buf *dirs, const char *rel,
		int depth, size_t *n)
{
	size_t i, k = 4 + rnd(12);
	for (i = 0; i < k; i++) {
		struct fgit_buf p = FGIT_BUF_INIT;
		const char *sep = *rel ? "/" : "";
		if (depth < 4 && rnd(3) == 0) {
			fgit_buf_addf(&p, "%s%s%s", rel, sep,
				      dirnames[rnd(sizeof(dirnames) / sizeof(*dirnames))]);
			/* skip names already used as files */
			fgit_buf_add(dirs, p.ptr, p.len + 1);
			gen(in, dirs, p.ptr, depth + 1, n);
		} else {
			fgit_buf_addf(&p, "%s%s%s", rel, sep,
				      filenames[rnd(sizeof(filenames) / sizeof(*filenames))]);
			fgit_buf_addf(in, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\t%s%c",
				      p.ptr, 0);
			(*n)++;
		}
		fgit_buf_release(&p);
	}
}

static struct repo R;

static int setup(void)
{
	struct fgit_buf in = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	const char *init[] = { "init", "-q", ".", NULL };
	const char *ui[] = { "update-index", "-z", "--index-info", NULL };
	const char *ls[] = { "ls-files", "-z", NULL };
	size_t n = 0, off;
	int i;

	if (R.dir)
		return 0;
	R.dir = scratch_dir();
	if (!R.dir || gitrun(R.dir, init, NULL, 0, &out))
		return -1;
	/* directory names never collide with file names, so no D/F clash */
	for (i = 0; i < 12; i++)
		gen(&in, &R.dirs, "", 0, &n);
	{
		static const char *fixed[] = { "src/a.c", "src/lib/foo.c",
			"Docs/x.txt", "lib/foo", "a/sp ace", "b/q?x", "x/[ab]",
			"weird/*.c", "weird/a.c", "src/dot." };
		for (i = 0; i < (int)(sizeof(fixed) / sizeof(*fixed)); i++)
			fgit_buf_addf(&in, "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\t%s%c",
				      fixed[i], 0);
		fgit_buf_add(&R.dirs, "src/lib", 8);
	}
	gitrun(R.dir, ui, in.ptr, in.len, &out);
	fgit_buf_reset(&out);
	if (gitrun(R.dir, ls, NULL, 0, &out))
		return -1;
	fgit_buf_add(&R.paths, out.ptr, out.len);
	for (off = 0; off < out.len; off += strlen(out.ptr + off) + 1)
		R.npaths++;
	/* the subdirectories we run from must exist on disk */
	for (off = 0; off < R.dirs.len; off += strlen(R.dirs.ptr + off) + 1) {
		struct fgit_buf p = FGIT_BUF_INIT;
		fgit_buf_addf(&p, "%s/.keep", R.dirs.ptr + off);
		write_file_at(R.dir, p.ptr, "", 0);
		fgit_buf_release(&p);
	}
	fgit_buf_release(&in);
	fgit_buf_release(&out);
	return 0;
}

/*
 * Compare one set.  `global` is a git option such as "--glob-pathspecs"
 * (or NULL) and `flags` our equivalent.  Returns 0 when equal.
 */
static int compare_set(const char *prefix, const char *global, unsigned flags,
		       const char *const *args, size_t nargs, size_t *nmatch)
{
	struct fgit_buf out = FGIT_BUF_INIT, mine = FGIT_BUF_INIT,
			err = FGIT_BUF_INIT, cwd = FGIT_BUF_INIT;
	const char *av[4096];
	struct fgit_pathspec *ps = NULL;
	size_t n = 0, i, off;
	int rc, ret, bad = 0;

	if (global)
		av[n++] = global;
	av[n++] = "ls-files";
	av[n++] = "-z";
	av[n++] = "--full-name";
	av[n++] = "--";
	for (i = 0; i < nargs && n < 4090; i++)
		av[n++] = args[i];
	av[n] = NULL;
	fgit_buf_addf(&cwd, "%s/%s", R.dir, prefix);
	gitrun_err = &err;
	rc = gitrun(cwd.ptr, av, NULL, 0, &out);
	gitrun_err = NULL;

	ret = fgit_pathspec_new(&ps, prefix, args, nargs,
				flags | FGIT_PATHSPEC_PREFER_CWD, R.dir);
	if (ret == FGIT_ENOTSUPP) {
		/* refused on purpose (attr magic); git would run */
		goto done;
	}
	if (rc != 0 || ret != 0) {
		/* both must fail, with git's message */
		const char *msg = fgit_error_last();
		if (rc == 0 || ret == 0) {
			printf("  prefix '%s' %s: git rc %d, fgit %d (%s) git said: %s\n",
			       prefix, args[0], rc, ret, ret ? msg : "", err.ptr);
			bad = 1;
		} else if (ret != FGIT_ENOTSUPP &&
			   (strncmp(err.ptr, "fatal: ", 7) ||
			    strncmp(err.ptr + 7, msg, strlen(msg)) ||
			    err.ptr[7 + strlen(msg)] != '\n')) {
			printf("  prefix '%s' %s: git said '%s', fgit '%s'\n",
			       prefix, args[0], err.ptr, msg);
			bad = 1;
		}
		goto done;
	}
	for (off = 0; off < R.paths.len; off += strlen(R.paths.ptr + off) + 1) {
		const char *p = R.paths.ptr + off;
		if (fgit_pathspec_match(ps, p, strlen(p), 0, NULL)) {
			fgit_buf_add(&mine, p, strlen(p) + 1);
			(*nmatch)++;
		}
	}
	if (out.len != mine.len || memcmp(out.ptr, mine.ptr, out.len)) {
		size_t a = 0, b = 0;
		printf("  prefix '%s' %s%s (+%zu more): differs\n", prefix,
		       global ? global : "", args[0], nargs - 1);
		while ((a < out.len || b < mine.len) && bad < 8) {
			const char *x = a < out.len ? out.ptr + a : NULL;
			const char *y = b < mine.len ? mine.ptr + b : NULL;
			int c = !x ? 1 : !y ? -1 : strcmp(x, y);
			if (c < 0)
				printf("    only git:  %s\n", x);
			else if (c > 0)
				printf("    only fgit: %s\n", y);
			if (c <= 0)
				a += strlen(x) + 1;
			if (c >= 0)
				b += strlen(y) + 1;
			if (c)
				bad++;
		}
		bad = 1;
	}
	/* pruning is sound: nothing matches below a pruned directory */
	for (off = 0; off < R.dirs.len && !bad; off += strlen(R.dirs.ptr + off) + 1) {
		const char *d = R.dirs.ptr + off;
		size_t dl = strlen(d), o2;
		if (fgit_pathspec_could_match_under(ps, d, dl))
			continue;
		for (o2 = 0; o2 < mine.len; o2 += strlen(mine.ptr + o2) + 1)
			if (!strncmp(mine.ptr + o2, d, dl) && mine.ptr[o2 + dl] == '/') {
				printf("  pruned '%s' but '%s' matches\n", d, mine.ptr + o2);
				bad = 1;
				break;
			}
	}
done:
	fgit_pathspec_free(ps);
	fgit_buf_release(&out);
	fgit_buf_release(&mine);
	fgit_buf_release(&err);
	fgit_buf_release(&cwd);
	return bad;
}

struct set {
	const char *prefix;
	const char *global;
	unsigned flags;
	const char *args[6];
};

static const struct set sets[] = {
	{ "", NULL, 0, { "src" } },
	{ "", NULL, 0, { "src/" } },
	{ "", NULL, 0, { "src/a.c", "lib/foo" } },
	{ "", NULL, 0, { "*.c" } },
	{ "", NULL, 0, { ":(glob)*.c" } },
	{ "", NULL, 0, { ":(glob)**/*.c" } },
	{ "", NULL, 0, { ":(glob)src/**" } },
	{ "", NULL, 0, { ":(glob)*/a.c" } },
	{ "", NULL, 0, { "src/*.h" } },
	{ "", NULL, 0, { ":(icase)SRC" } },
	{ "", NULL, 0, { ":(icase)*.TXT" } },
	{ "", NULL, 0, { ":!src" } },
	{ "", NULL, 0, { ":(exclude)*.c", "src" } },
	{ "", NULL, 0, { ":^src/lib", "src" } },
	{ "", NULL, 0, { "Docs/", ":!Docs/x*" } },
	{ "", NULL, 0, { ":(literal)weird/*.c" } },
	{ "", NULL, 0, { "weird/*.c" } },
	{ "", NULL, 0, { "weird/\\*.c" } },
	{ "", NULL, 0, { "src/l?b" } },
	{ "", NULL, 0, { "[sd]*" } },
	{ "", NULL, 0, { "." } },
	{ "", NULL, 0, { ":" } },
	{ "", NULL, 0, { ":/" } },
	{ "", NULL, 0, { "*[ab]" } },
	{ "", NULL, 0, { "./src/../lib//foo.c" } },
	{ "", NULL, 0, { "a/sp ace", "b/q?x", "x/[ab]" } },
	{ "", NULL, 0, { ":(icase,glob)S*/**/A.C" } },
	{ "", NULL, 0, { ":(exclude,icase)DOCS", "." } },
	{ "", NULL, 0, { "*dot." } },
	{ "", NULL, 0, { "src/dot./" } },
	{ "src", NULL, 0, { "." } },
	{ "src", NULL, 0, { "lib" } },
	{ "src", NULL, 0, { "../Docs" } },
	{ "src", NULL, 0, { ":/Docs" } },
	{ "src", NULL, 0, { ":(top)x" } },
	{ "src", NULL, 0, { "*.c" } },
	{ "src", NULL, 0, { ":!lib" } },
	{ "src", NULL, 0, { ":/!lib" } },
	{ "src", NULL, 0, { ":(icase)LIB" } },
	{ "src", NULL, 0, { ":(icase)../SRC" } },
	{ "src", NULL, 0, { ":(exclude)" } },
	{ "src", NULL, 0, { ":(exclude)../a" } },
	{ "src", NULL, 0, { ".." } },
	{ "src/lib", NULL, 0, { "../../Docs/*", "../a.c" } },
	{ "", "--glob-pathspecs", FGIT_PATHSPEC_GLOB_ALL, { "*.c", ":(literal)*.c" } },
	{ "", "--noglob-pathspecs", FGIT_PATHSPEC_NOGLOB_ALL, { "*.c", ":(glob)src/*" } },
	{ "", "--literal-pathspecs", FGIT_PATHSPEC_LITERAL_ALL, { ":(top)x", "*.c" } },
	{ "", "--icase-pathspecs", FGIT_PATHSPEC_ICASE_ALL, { "docs", "*.TXT" } },
	/* errors */
	{ "", NULL, 0, { ":(foo)x" } },
	{ "", NULL, 0, { ":%x" } },
	{ "", NULL, 0, { "" } },
	{ "", NULL, 0, { ":(literal,glob)x" } },
	{ "", NULL, 0, { ":(top" } },
	{ "src", NULL, 0, { "../../x" } },
	{ "", NULL, 0, { ":(attr:text)x" } },
};

TEST(pathspec, sets_against_git)
{
	size_t i, n, total = 0;
	int bad = 0;
	CHECK(setup() == 0);
	CHECK(R.npaths > 1000);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		for (n = 0; n < 6 && sets[i].args[n]; n++)
			;
		bad += compare_set(sets[i].prefix, sets[i].global,
				   sets[i].flags, sets[i].args, n, &total);
	}
	printf("  %zu sets over %zu paths, %zu matches\n",
	       sizeof(sets) / sizeof(sets[0]), R.npaths, total);
	CHECK_MSG(bad == 0, "%d sets differ", bad);
}

TEST(pathspec, many_literals_against_git)
{
	const char *args[1200];
	char *own[1200];
	size_t n = 0, off, i, total = 0;
	CHECK(setup() == 0);
	/* every 7th path, some directories, some missing paths */
	for (off = 0, i = 0; off < R.paths.len && n < 900; i++) {
		if (i % 7 == 0)
			args[n++] = R.paths.ptr + off;
		off += strlen(R.paths.ptr + off) + 1;
	}
	for (off = 0, i = 0; off < R.dirs.len && n < 1000; i++) {
		if (i % 5 == 0)
			args[n++] = R.dirs.ptr + off;
		off += strlen(R.dirs.ptr + off) + 1;
	}
	for (i = 0; i < 50; i++) {
		own[i] = malloc(32);
		snprintf(own[i], 32, "missing/%zu", i);
		args[n++] = own[i];
	}
	CHECK(compare_set("", NULL, 0, args, n, &total) == 0);
	printf("  %zu literal pathspecs: %zu matches\n", n, total);
	for (i = 0; i < 50; i++)
		free(own[i]);
}

TEST(pathspec, seen_matches_error_unmatch)
{
	const char *args[] = { "src/a.c", "nope", "Docs", "*.zzz", ":(glob)**/README",
			       "lib/", ":!src" };
	const size_t n = sizeof(args) / sizeof(args[0]);
	const char *av[16] = { "ls-files", "--error-unmatch", "--" };
	struct fgit_buf out = FGIT_BUF_INIT, err = FGIT_BUF_INIT;
	struct fgit_buf want = FGIT_BUF_INIT, got = FGIT_BUF_INIT;
	struct fgit_pathspec *ps = NULL;
	unsigned char seen[16] = { 0 };
	size_t i, off;

	CHECK(setup() == 0);
	for (i = 0; i < n; i++)
		av[3 + i] = args[i];
	gitrun_err = &err;
	CHECK(gitrun(R.dir, av, NULL, 0, &out) == 1);
	gitrun_err = NULL;
	/* git: "error: pathspec 'X' did not match any file(s) known to git" */
	for (off = 0; off < err.len;) {
		const char *line = err.ptr + off, *nl = strchr(line, '\n');
		if (!strncmp(line, "error: pathspec '", 17)) {
			const char *q = strchr(line + 17, '\'');
			fgit_buf_add(&want, line + 17, q - line - 17);
			fgit_buf_addch(&want, '\n');
		}
		off = nl ? (size_t)(nl - err.ptr) + 1 : err.len;
	}
	CHECK(fgit_pathspec_new(&ps, "", args, n, FGIT_PATHSPEC_PREFER_CWD,
				R.dir) == 0);
	for (off = 0; off < R.paths.len; off += strlen(R.paths.ptr + off) + 1)
		fgit_pathspec_match(ps, R.paths.ptr + off,
				    strlen(R.paths.ptr + off), 0, seen);
	for (i = 0; i < n; i++)
		if (!seen[i] && !(fgit_pathspec_item_magic(ps, i) &
				  FGIT_PATHSPEC_EXCLUDE))
			fgit_buf_addf(&got, "%s\n", fgit_pathspec_item_original(ps, i));
	fgit_pathspec_free(ps);
	CHECK_MSG(!strcmp(want.ptr, got.ptr), "git: [%s] fgit: [%s]", want.ptr,
		  got.ptr);
	CHECK(want.len > 0);
	fgit_buf_release(&out);
	fgit_buf_release(&err);
	fgit_buf_release(&want);
	fgit_buf_release(&got);
}

TEST(pathspec, teardown)
{
	scratch_remove(R.dir);
	R.dir = NULL;
	fgit_buf_release(&R.paths);
	fgit_buf_release(&R.dirs);
}
