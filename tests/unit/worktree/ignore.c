/*
 * Ignore rules against git itself, on real directory trees.
 *
 * A generated tree (fixed seed) gets .gitignore files in many directories,
 * drawn from our own pool of patterns covering gitignore(5): comments,
 * trailing spaces, escapes, negation, directory-only, anchoring, "**",
 * sets.  Then, with core.ignorecase off and on:
 *   - every file and directory (and a few missing paths) goes through
 *     `git check-ignore -v -n --no-index --stdin -z`, and our
 *     fgit_ignore_check_path must name the same source, line and pattern;
 *   - `git ls-files -o -i --exclude-standard` must equal the ignored files
 *     found by a directory walk using the push/lookup/pop API.
 */
#include <dirent.h>
#include "unit.h"
#include "gitrun.h"
#include "fgit/common.h"
#include "fgit/ignore.h"

static const char *pool[] = {
	"# a comment", "*.o", "!keep.o", "build/", "/top-only", "docs/*.html",
	"**/logs", "logs/**", "a/**/z", "foo*", "*~", "\\#hash", "\\!bang",
	"trailing-space   ", "escaped\\ ", "[Tt]emp", "*.[ch]x", "sub/",
	"!sub/important", "Foo.TXT", "**/deep/**/x.c", "*/mid", "/anch/*.txt",
	"!foo1", "plain", "!*.txt", "*.txt", "d?r/", "x/**/", "!build/",
	"#not-a-pattern", "", "   ", "/", "!", "dir1/dir2", "**/a", "a/**",
	"\\ lead", "[!a-m]*.log", "*.LOG", "/**/deepfile", "mid/**/end",
	"!important", "important", "anch/", "!*/", "x.c/", "f[[:digit:]]",
	"foo\\", "[a-", "CamelCase", "camel*",
};
#define NPOOL (sizeof(pool) / sizeof(pool[0]))

static const char *names[] = {
	"a.o", "keep.o", "build", "top-only", "x.html", "logs", "z", "foo1",
	"file~", "#hash", "!bang", "trailing-space", "escaped ", "temp",
	"Temp", "m.cx", "m.hx", "sub", "important", "Foo.TXT", "foo.txt",
	"x.c", "deep", "mid", "anch", "n.txt", "a", "plain", "README", "docs",
	"dir1", "dir2", "d1r", "dar", " lead", "b.log", "z.log", "X.LOG",
	"deepfile", "end", "f1", "fx", "foo\\", "CamelCase", "camelcase", "x",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static unsigned long rng;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng >> 33) % n);
}

struct tree {
	char *dir;
	struct fgit_buf paths;	/* NUL-separated, files and dirs */
	size_t npaths;
};

static int mkdirs_file(struct tree *t, const char *rel, const char *data)
{
	return write_file_at(t->dir, rel, data, strlen(data));
}

static void gen_dir(struct tree *t, const char *rel, int depth)
{
	unsigned n = 5 + rnd(8), i;
	struct fgit_buf gi = FGIT_BUF_INIT;

	/* a .gitignore in most directories */
	if (rnd(4)) {
		unsigned k = 1 + rnd(8);
		/* now and then a UTF-8 BOM, or CRLF line ends */
		const char *eol = rnd(5) == 0 ? "\r\n" : "\n";
		if (rnd(7) == 0)
			fgit_buf_adds(&gi, "\xef\xbb\xbf");
		for (i = 0; i < k; i++)
			fgit_buf_addf(&gi, "%s%s", pool[rnd(NPOOL)], eol);
		if (rnd(3) == 0)
			fgit_buf_adds(&gi, "last-line-no-newline");
		{
			struct fgit_buf p = FGIT_BUF_INIT;
			fgit_buf_addf(&p, "%s%s.gitignore", rel, *rel ? "/" : "");
			mkdirs_file(t, p.ptr, gi.ptr);
			fgit_buf_release(&p);
		}
	}
	fgit_buf_release(&gi);
	for (i = 0; i < n; i++) {
		const char *nm = names[rnd(NNAMES)];
		struct fgit_buf p = FGIT_BUF_INIT;
		struct stat st;
		fgit_buf_addf(&p, "%s%s%s", rel, *rel ? "/" : "", nm);
		if (depth < 5 && rnd(depth < 2 ? 3 : 5) == 0) {
			struct fgit_buf abs = FGIT_BUF_INIT;
			fgit_buf_addf(&abs, "%s/%s", t->dir, p.ptr);
			if (lstat(abs.ptr, &st) && !mkdir(abs.ptr, 0777)) {
				fgit_buf_add(&t->paths, p.ptr, p.len + 1);
				t->npaths++;
				gen_dir(t, p.ptr, depth + 1);
			}
			fgit_buf_release(&abs);
		} else {
			struct fgit_buf abs = FGIT_BUF_INIT;
			fgit_buf_addf(&abs, "%s/%s", t->dir, p.ptr);
			if (lstat(abs.ptr, &st)) {
				mkdirs_file(t, p.ptr, "x\n");
				fgit_buf_add(&t->paths, p.ptr, p.len + 1);
				t->npaths++;
			}
			fgit_buf_release(&abs);
		}
		fgit_buf_release(&p);
	}
}

static const char *g_workdir;

static enum fgit_ignore_dtype resolve(const char *path, void *payload)
{
	struct fgit_buf abs = FGIT_BUF_INIT;
	struct stat st;
	enum fgit_ignore_dtype t = FGIT_IGNORE_DT_UNKNOWN;
	fgit_buf_addf(&abs, "%s/%s", g_workdir, path);
	if (!lstat(abs.ptr, &st))
		t = S_ISDIR(st.st_mode) ? FGIT_IGNORE_DT_DIR : FGIT_IGNORE_DT_FILE;
	fgit_buf_release(&abs);
	return t;
}

static int new_ignore(struct fgit_ignore **ig, const char *dir, int icase,
		      const char *xfile)
{
	struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
	struct fgit_buf p = FGIT_BUF_INIT;
	int ret;
	o.workdir = dir;
	o.flags = icase ? FGIT_IGNORE_ICASE : 0;
	o.resolve_dtype = resolve;
	g_workdir = dir;
	if ((ret = fgit_ignore_new(ig, &o)))
		return ret;
	if ((ret = fgit_ignore_add_file(*ig, xfile, xfile)))
		return ret;
	fgit_buf_addf(&p, "%s/.git/info/exclude", dir);
	ret = fgit_ignore_add_file(*ig, p.ptr, ".git/info/exclude");
	fgit_buf_release(&p);
	return ret;
}

/* Walk like ls-files -o -i: collect ignored files, sorted by the caller. */
static int walk(struct fgit_ignore *ig, struct fgit_buf *rel,
		struct fgit_buf *out, size_t *count)
{
	struct fgit_buf abs = FGIT_BUF_INIT;
	DIR *d;
	struct dirent *de;
	size_t base = rel->len;
	int ret = 0;

	fgit_buf_addf(&abs, "%s/%s", g_workdir, rel->ptr);
	d = opendir(abs.ptr);
	fgit_buf_release(&abs);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		enum fgit_ignore_dtype dt;
		int ign;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!base && !strcmp(de->d_name, ".git")))
			continue;
		fgit_buf_setlen(rel, base);
		if (base)
			fgit_buf_addch(rel, '/');
		fgit_buf_adds(rel, de->d_name);
		dt = de->d_type == DT_DIR ? FGIT_IGNORE_DT_DIR :
		     de->d_type == DT_UNKNOWN ? FGIT_IGNORE_DT_UNKNOWN :
		     FGIT_IGNORE_DT_FILE;
		if (dt == FGIT_IGNORE_DT_UNKNOWN)
			dt = resolve(rel->ptr, NULL);
		if (dt == FGIT_IGNORE_DT_DIR) {
			if ((ret = fgit_ignore_push_dir(ig, rel->ptr, rel->len)))
				break;
			ret = walk(ig, rel, out, count);
			fgit_ignore_pop_dir(ig);
			if (ret)
				break;
			continue;
		}
		ign = fgit_ignore_lookup(NULL, ig, rel->ptr, rel->len, dt);
		if (ign) {
			fgit_buf_add(out, rel->ptr, rel->len + 1);
			(*count)++;
		}
	}
	closedir(d);
	fgit_buf_setlen(rel, base);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* NUL-separated list -> sorted, newline-joined string. */
static void sorted_lines(struct fgit_buf *list, size_t n, struct fgit_buf *out)
{
	const char **v = calloc(n + 1, sizeof(*v));
	size_t i = 0, off = 0;
	while (off < list->len && i < n) {
		v[i++] = list->ptr + off;
		off += strlen(list->ptr + off) + 1;
	}
	qsort(v, i, sizeof(*v), cmp_str);
	fgit_buf_reset(out);
	for (n = 0; n < i; n++)
		fgit_buf_addf(out, "%s\n", v[n]);
	free(v);
}

static void run_tree(unsigned long seed, int icase)
{
	struct tree t = { 0 };
	struct fgit_buf in = FGIT_BUF_INIT, out = FGIT_BUF_INIT;
	struct fgit_buf xfile = FGIT_BUF_INIT, mine = FGIT_BUF_INIT;
	struct fgit_buf a = FGIT_BUF_INIT, b = FGIT_BUF_INIT, rel = FGIT_BUF_INIT;
	struct fgit_ignore *ig = NULL;
	const char *init[] = { "init", "-q", ".", NULL };
	const char *ci[] = { "-c", NULL, "-c", NULL, "check-ignore", "-v",
			     "-n", "--no-index", "--stdin", "-z", NULL };
	const char *ls[] = { "-c", NULL, "-c", NULL, "ls-files", "-z", "-o",
			     "-i", "--exclude-standard", NULL };
	struct fgit_buf cfg1 = FGIT_BUF_INIT, cfg2 = FGIT_BUF_INIT;
	size_t off = 0, i, checked = 0, nmine = 0, ngit = 0;
	int bad = 0;

	rng = seed;
	t.dir = scratch_dir();
	CHECK(t.dir);
	CHECK(gitrun(t.dir, init, NULL, 0, &out) == 0);
	gen_dir(&t, "", 0);
	/* info/exclude and core.excludesFile from the pool as well */
	fgit_buf_reset(&in);
	fgit_buf_adds(&in, "*.html\n!x.html\nREADME\n");
	CHECK(write_file_at(t.dir, ".git/info/exclude", in.ptr, in.len) == 0);
	fgit_buf_addf(&xfile, "%s/excludes", t.dir);
	CHECK(mkdirs_file(&t, "excludes", "README\n*.c\n!m.*\nz\n") == 0);
	fgit_buf_addf(&cfg1, "core.excludesFile=%s", xfile.ptr);
	fgit_buf_addf(&cfg2, "core.ignorecase=%s", icase ? "true" : "false");
	ci[1] = ls[1] = cfg1.ptr;
	ci[3] = ls[3] = cfg2.ptr;

	/* a few paths that do not exist */
	fgit_buf_add(&t.paths, "missing/a.o", 12);
	fgit_buf_add(&t.paths, "build/x", 8);
	fgit_buf_add(&t.paths, "zz/top-only", 12);
	t.npaths += 3;

	fgit_buf_reset(&out);
	CHECK(gitrun(t.dir, ci, t.paths.ptr, t.paths.len, &out) >= 0);
	CHECK(new_ignore(&ig, t.dir, icase, xfile.ptr) == 0);

	/* records: source NUL line NUL pattern NUL path NUL */
	for (i = 0; i < t.npaths && off < out.len; i++) {
		const char *src = out.ptr + off, *line, *pat, *path;
		const struct fgit_ignore_pattern *p = NULL;
		char want[4096], got[4096];
		line = src + strlen(src) + 1;
		pat = line + strlen(line) + 1;
		path = pat + strlen(pat) + 1;
		off = (path - out.ptr) + strlen(path) + 1;
		CHECK(fgit_ignore_check_path(&p, ig, path,
					     FGIT_IGNORE_DT_UNKNOWN) >= 0);
		snprintf(want, sizeof(want), "%s:%s:%s", src, line, pat);
		if (p)
			snprintf(got, sizeof(got), "%s:%u:%s",
				 fgit_ignore_pattern_source(p),
				 fgit_ignore_pattern_lineno(p),
				 fgit_ignore_pattern_text(p));
		else
			snprintf(got, sizeof(got), "::");
		checked++;
		if (strcmp(want, got) && bad++ < 15)
			printf("  seed %lu icase %d path '%s': git '%s', fgit '%s'\n",
			       seed, icase, path, want, got);
	}
	CHECK_MSG(checked == t.npaths, "git answered %zu of %zu paths",
		  checked, t.npaths);
	fgit_ignore_free(ig);
	ig = NULL;

	/* the walk, against ls-files -o -i; with command-line patterns on
	 * odd seeds (they override every file) */
	fgit_buf_reset(&out);
	if (seed & 1) {
		const char *lsx[] = { "-c", cfg1.ptr, "-c", cfg2.ptr,
				      "ls-files", "-z", "-o", "-i",
				      "--exclude-standard", "-x", "!keep.o",
				      "-x", "Temp", "-x", "!*.txt", NULL };
		CHECK(gitrun(t.dir, lsx, NULL, 0, &out) == 0);
	} else {
		CHECK(gitrun(t.dir, ls, NULL, 0, &out) == 0);
	}
	for (off = 0; off < out.len; off += strlen(out.ptr + off) + 1)
		ngit++;
	CHECK(new_ignore(&ig, t.dir, icase, xfile.ptr) == 0);
	if (seed & 1) {
		CHECK(fgit_ignore_add_pattern(ig, "!keep.o", "--exclude option") == 0);
		CHECK(fgit_ignore_add_pattern(ig, "Temp", "--exclude option") == 0);
		CHECK(fgit_ignore_add_pattern(ig, "!*.txt", "--exclude option") == 0);
	}
	CHECK(fgit_ignore_push_dir(ig, "", 0) == 0);
	CHECK(walk(ig, &rel, &mine, &nmine) == 0);
	fgit_ignore_pop_dir(ig);
	CHECK(fgit_ignore_depth(ig) == 0);
	sorted_lines(&out, ngit, &a);
	sorted_lines(&mine, nmine, &b);
	if (strcmp(a.ptr, b.ptr)) {
		FILE *f1 = fopen("/tmp/fgit-ignore-git.txt", "w");
		FILE *f2 = fopen("/tmp/fgit-ignore-fgit.txt", "w");
		if (f1) { fputs(a.ptr, f1); fclose(f1); }
		if (f2) { fputs(b.ptr, f2); fclose(f2); }
		bad++;
		printf("  seed %lu icase %d: walk differs from ls-files -o -i "
		       "(%zu vs %zu; see /tmp/fgit-ignore-{git,fgit}.txt)\n",
		       seed, icase, ngit, nmine);
	}
	printf("  seed %lu icase %d: %zu paths checked, %zu ignored files walked\n",
	       seed, icase, checked, nmine);

	fgit_ignore_free(ig);
	scratch_remove(t.dir);
	fgit_buf_release(&t.paths);
	fgit_buf_release(&in);
	fgit_buf_release(&out);
	fgit_buf_release(&xfile);
	fgit_buf_release(&mine);
	fgit_buf_release(&a);
	fgit_buf_release(&b);
	fgit_buf_release(&rel);
	fgit_buf_release(&cfg1);
	fgit_buf_release(&cfg2);
	CHECK_MSG(bad == 0, "%d mismatches", bad);
	CHECK(ngit > 0);
}

TEST(ignore, tree_seed1) { run_tree(1, 0); }
TEST(ignore, tree_seed2) { run_tree(2, 0); }
TEST(ignore, tree_seed3_icase) { run_tree(3, 1); }
TEST(ignore, tree_seed8_icase) { run_tree(8, 1); }
TEST(ignore, tree_seed6_icase) { run_tree(6, 1); }
TEST(ignore, tree_seed7) { run_tree(7, 0); }
TEST(ignore, tree_seed5) { run_tree(5, 0); }

/* Precedence without a tree: command line over exclude files. */
TEST(ignore, precedence_and_negation)
{
	struct fgit_ignore *ig = NULL;
	const struct fgit_ignore_pattern *p = NULL;
	struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
	o.per_dir_name = NULL;
	CHECK(fgit_ignore_new(&ig, &o) == 0);
	CHECK(fgit_ignore_add_buffer(ig, "*.o\n", 4, "global") == 0);
	CHECK(fgit_ignore_add_buffer(ig, "!a.o\n", 5, "info") == 0);
	CHECK(fgit_ignore_push_dir(ig, "", 0) == 0);
	CHECK(fgit_ignore_lookup(&p, ig, "a.o", 3, FGIT_IGNORE_DT_FILE) == 0);
	CHECK(p && fgit_ignore_pattern_negated(p));
	CHECK(!strcmp(fgit_ignore_pattern_source(p), "info"));
	CHECK(fgit_ignore_lookup(&p, ig, "b.o", 3, FGIT_IGNORE_DT_FILE) == 1);
	CHECK(fgit_ignore_add_pattern(ig, "a.*", "--exclude option") == 0);
	CHECK(fgit_ignore_lookup(&p, ig, "a.o", 3, FGIT_IGNORE_DT_FILE) == 1);
	CHECK(!strcmp(fgit_ignore_pattern_text(p), "a.*"));
	CHECK(fgit_ignore_push_dir(ig, "x/y", 3) < 0);	/* not a child */
	fgit_ignore_free(ig);
}
