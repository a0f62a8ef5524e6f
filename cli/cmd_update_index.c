/*
 * git update-index: register file contents, stat data and flags in the
 * index.  Arguments are handled in order, as git does: an option such as
 * --add, --remove or --chmod=+x applies to the paths after it.  The index
 * is written once at the end through index.lock when anything changed.
 *
 * Built: paths, --add, --remove, --force-remove, --replace, --cacheinfo
 * (both forms), --chmod, --[no-]assume-unchanged, --[no-]skip-worktree,
 * --refresh, --really-refresh, -q, --unmerged, --ignore-missing,
 * --index-version, --verbose, --info-only, --stdin, --index-info, -z,
 * --[no-|force-|test-]untracked-cache.
 * Others exit 129.
 * File contents go through the to-git conversion (clean filter, eol,
 * ident) of their path, core.safecrlf checked when they are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "untr_setup.h"
#include "convert_setup.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/hash.h"
#include "fgit/index.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/quote.h"
#include "fgit/repo.h"
#include "fgit/worktree.h"

struct ui {
	struct fgit_repo *repo;
	struct fgit_index *idx;
	struct fgit_odb *odb;
	struct fgit_wt_stat_options so;
	const char *prefix, *top;
	int allow_add, allow_remove, force_remove, info_only, verbose, quiet;
	int allow_unmerged, ignore_missing, chmod, mark_valid, mark_skip;
	int changed, has_errors, nul;
};

static void report(struct ui *u, const char *fmt, const char *path)
{
	if (u->verbose) {
		printf(fmt, path);
		putchar('\n');
	}
}

static char *fs_path(struct ui *u, const char *path)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	fgit_buf_addf(&b, "%s/%s", u->top, path);
	return fgit_buf_detach(&b, NULL);
}

/* Hash (and unless --info-only write) the file as a blob. */
static int index_file(struct ui *u, struct fgit_oid *out, const char *path, const char *fspath,
		      const struct stat *st)
{
	struct fgit_buf b = FGIT_BUF_INIT, conv = FGIT_BUF_INIT;
	int r;

	if (S_ISLNK(st->st_mode)) {
		char tmp[4096];
		ssize_t n = readlink(fspath, tmp, sizeof(tmp));
		if (n < 0)
			return -1;
		fgit_buf_add(&b, tmp, (size_t)n);
	} else {
		int fd = open(fspath, O_RDONLY);
		char tmp[65536];
		ssize_t n;
		if (fd < 0)
			return -1;
		while ((n = read(fd, tmp, sizeof(tmp))) > 0)
			fgit_buf_add(&b, tmp, (size_t)n);
		close(fd);
		if (n < 0)
			return -1;
		if (cli_convert_to_git(&conv, path, b.ptr, b.len, u->info_only ? 0 : CLI_CONVERT_WRITE)) {
			struct fgit_buf t = b;
			b = conv;
			conv = t;
		}
	}
	if (u->info_only)
		r = fgit_hash_object(out, fgit_repo_algo(u->repo), FGIT_OBJ_BLOB, b.ptr, b.len);
	else
		r = fgit_odb_write(out, u->odb, FGIT_OBJ_BLOB, b.ptr, b.len);
	fgit_buf_release(&b);
	fgit_buf_release(&conv);
	return r;
}

static int add_one(struct ui *u, const char *path, const char *fspath, const struct stat *st)
{
	const struct fgit_index_entry *old = fgit_index_lookup(u->idx, path, 0);
	struct fgit_index_entry *e;
	size_t len = strlen(path);

	if (old && !fgit_worktree_entry_changed(u->idx, old, st, fspath, &u->so))
		return 0;
	if (!old) {
		size_t pos;
		if (!u->allow_add && fgit_index_find_any_stage(&pos, u->idx, path, len) <= 0)
			return error("%s: cannot add to the index - missing --add option?", path);
	}
	if (fgit_index_entry_new(&e, path, len))
		die_last();
	if (old)
		e->mode = old->mode;
	fgit_worktree_fill_stat(e, st, &u->so);
	if (old)
		e->flags = old->flags & FGIT_INDEX_ONDISK_FLAGS & ~FGIT_INDEX_INTENT_TO_ADD;
	if (index_file(u, &e->oid, path, fspath, st)) {
		fgit_index_entry_free(e);
		return error("%s: failed to insert into database", path);
	}
	if (fgit_index_add(u->idx, e))
		return error_last();
	u->changed = 1;
	return 0;
}

static int remove_one(struct ui *u, const char *path)
{
	if (!u->allow_remove)
		return error("%s: does not exist and --remove not passed", path);
	if (fgit_index_remove_path(u->idx, path) == 0)
		u->changed = 1;
	fgit_error_clear();
	report(u, "remove '%s'", path);
	return 0;
}

static void chmod_path(struct ui *u, const char *path)
{
	size_t pos;
	struct fgit_index_entry *e;
	int flip = u->chmod;

	if (fgit_index_find(&pos, u->idx, path, strlen(path), 0) ||
	    !(e = fgit_index_get_mut(u->idx, pos)) || (e->mode & 0170000) != 0100000)
		die("git update-index: cannot chmod %cx '%s'", flip, path);
	e->mode = flip == '+' ? 0100755 : 0100644;
	fgit_index_invalidate_path(u->idx, path);
	u->changed = 1;
	if (u->verbose)
		printf("chmod %cx '%s'\n", flip, path);
}

static void mark_flag(struct ui *u, const char *path, unsigned flag, int set)
{
	size_t pos;
	struct fgit_index_entry *e;

	if (fgit_index_find(&pos, u->idx, path, strlen(path), 0) ||
	    !(e = fgit_index_get_mut(u->idx, pos)))
		die("Unable to mark file %s", path);
	if (set)
		e->flags |= flag;
	else
		e->flags &= ~flag;
	u->changed = 1;
}

static void update_one(struct ui *u, const char *arg)
{
	struct fgit_buf nb = FGIT_BUF_INIT;
	char *path, *fspath;
	struct stat st;

	/* git's prefix_path: ".", ".." and "//" resolved, the top not left */
	if (fgit_path_normalize(&nb, u->prefix, arg, u->top))
		die_last();
	path = fgit_buf_detach(&nb, NULL);
	if (!fgit_index_path_valid(path)) {
		fprintf(stderr, "Ignoring path %s\n", path);
		goto chmod;
	}
	if (u->mark_valid || u->mark_skip) {
		if (u->mark_valid)
			mark_flag(u, path, FGIT_INDEX_ASSUME_VALID, u->mark_valid > 0);
		if (u->mark_skip)
			mark_flag(u, path, FGIT_INDEX_SKIP_WORKTREE, u->mark_skip > 0);
		free(path);
		return;
	}
	if (u->force_remove) {
		if (fgit_index_remove_path(u->idx, path) == 0)
			u->changed = 1;
		fgit_error_clear();
		report(u, "remove '%s'", path);
		goto chmod;
	}
	fspath = fs_path(u, path);
	if (lstat(fspath, &st)) {
		if (errno != ENOENT && errno != ENOTDIR)
			die_errno("lstat(\"%s\")", path);
		if (remove_one(u, path))
			die("Unable to process path %s", path);
	} else if (S_ISDIR(st.st_mode)) {
		const struct fgit_index_entry *e = fgit_index_lookup(u->idx, path, 0);
		if (!e || (e->mode & 0170000) != 0160000) {
			error("%s: is a directory - add files inside instead", path);
			die("Unable to process path %s", path);
		}
		/* NEEDSWORK: git records the submodule's HEAD here */
	} else {
		if (add_one(u, path, fspath, &st))
			die("Unable to process path %s", path);
		report(u, "add '%s'", path);
	}
	free(fspath);
chmod:
	if (u->chmod)
		chmod_path(u, path);
	free(path);
}

static void cacheinfo(struct ui *u, unsigned int mode, const char *hex, const char *path)
{
	struct fgit_index_entry *e;
	struct fgit_oid oid;
	size_t pos;

	if (fgit_oid_from_hex(&oid, hex, fgit_repo_algo(u->repo)))
		die("git update-index: --cacheinfo cannot add %s", path);
	if (!u->allow_add && fgit_index_find_any_stage(&pos, u->idx, path, strlen(path)) <= 0) {
		error("%s: cannot add to the index - missing --add option?", path);
		die("git update-index: --cacheinfo cannot add %s", path);
	}
	if (fgit_index_entry_new(&e, path, strlen(path)))
		die_last();
	e->mode = fgit_mode_canon(mode);
	e->oid = oid;
	if (fgit_index_add(u->idx, e)) {
		error("Invalid path '%s'", path);
		die("git update-index: --cacheinfo cannot add %s", path);
	}
	u->changed = 1;
	report(u, "add '%s'", path);
}

static void refresh(struct ui *u, int really)
{
	size_t i, n = fgit_index_entrycount(u->idx);
	struct fgit_wt_stat_options so = u->so;

	so.ignore_valid = really;
	for (i = 0; i < n; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(u->idx, i);
		struct stat st;
		char *fspath;
		int c;

		if (e->stage) {
			while (i + 1 < n && !strcmp(fgit_index_get(u->idx, i + 1)->path, e->path))
				i++;
			if (u->allow_unmerged)
				continue;
			if (!u->quiet)
				printf("%s: needs merge\n", e->path);
			u->has_errors = 1;
			continue;
		}
		if (!really && (e->flags & FGIT_INDEX_ASSUME_VALID))
			continue;
		if (e->flags & FGIT_INDEX_SKIP_WORKTREE)
			continue;
		fspath = fs_path(u, e->path);
		if (lstat(fspath, &st)) {
			free(fspath);
			if (u->quiet || (u->ignore_missing && errno == ENOENT))
				continue;
			printf("%s: needs update\n", e->path);
			u->has_errors = 1;
			continue;
		}
		so.stat_only = 1;
		c = fgit_worktree_entry_changed(u->idx, e, &st, fspath, &so);
		so.stat_only = 0;
		if (!c && !fgit_index_entry_is_racy(u->idx, e)) {
			free(fspath);
			continue;
		}
		if (fgit_worktree_entry_changed(u->idx, e, &st, fspath, &so)) {
			free(fspath);
			if (really && (e->flags & FGIT_INDEX_ASSUME_VALID)) {
				e->flags &= ~FGIT_INDEX_ASSUME_VALID;
				u->changed = 1;
			}
			if (u->quiet)
				continue;
			printf("%s: needs update\n", e->path);
			u->has_errors = 1;
			continue;
		}
		free(fspath);
		if (c) {
			unsigned int mode = e->mode;
			fgit_worktree_fill_stat(e, &st, &so);
			e->mode = mode;
			if (really)
				e->flags &= ~FGIT_INDEX_ASSUME_VALID;
			u->changed = 1;
		}
	}
}

/*
 * One record of stdin (a line, or NUL-terminated with -z) into *line,
 * without its terminator.  0 at the end of input.
 */
static int read_record(struct fgit_buf *line, int nul)
{
	int c;

	fgit_buf_reset(line);
	while ((c = getchar()) != EOF && c != (nul ? 0 : '\n')) {
		char ch = (char)c;
		fgit_buf_add(line, &ch, 1);
	}
	return c != EOF || line->len;
}

/* A path from stdin: C-quoted unless -z.  NULL if malformed. */
static char *stdin_path(struct ui *u, const char *s, size_t n)
{
	struct fgit_buf b = FGIT_BUF_INIT;

	if (!u->nul && n && s[0] == '"') {
		const char *end;
		if (fgit_unquote_c_style(&b, s, &end) < 0 || end != s + n) {
			fgit_buf_release(&b);
			return NULL;
		}
	} else {
		fgit_buf_add(&b, s, n);
	}
	return fgit_buf_detach(&b, NULL);
}

/* --stdin: each path as if it were an argument. */
static void paths_from_stdin(struct ui *u)
{
	struct fgit_buf line = FGIT_BUF_INIT;

	while (read_record(&line, u->nul)) {
		char *path = stdin_path(u, line.ptr, line.len);
		if (!path)
			die("line is badly quoted");
		update_one(u, path);
		free(path);
	}
	fgit_buf_release(&line);
}

/*
 * --index-info: "<mode> SP <id> TAB <path>", "<mode> SP <type> SP <id> TAB
 * <path>" (ls-tree) or "<mode> SP <id> SP <stage> TAB <path>" (ls-files
 * -s); mode 0 removes the path.  Paths are from the top of the worktree.
 */
static void index_info(struct ui *u)
{
	struct fgit_buf line = FGIT_BUF_INIT;
	int algo = fgit_repo_algo(u->repo);
	size_t hexsz = fgit_hash_hexsz(algo);

	while (read_record(&line, u->nul)) {
		const char *l = line.ptr, *tab = memchr(l, '\t', line.len), *p, *hex;
		unsigned long mode;
		unsigned int stage = 0;
		struct fgit_index_entry *e;
		struct fgit_oid oid;
		char *end, *path;

		if (!tab)
			goto bad;
		mode = strtoul(l, &end, 8);
		if (end == l || *end != ' ' || mode > 0777777)
			goto bad;
		p = end + 1;
		/* the id is the hexsz-character word ending at the tab or before " <stage>" */
		if ((size_t)(tab - p) >= hexsz + 2 && tab[-2] == ' ' && tab[-1] >= '0' && tab[-1] <= '3') {
			stage = (unsigned)(tab[-1] - '0');
			hex = tab - 2 - hexsz;
		} else {
			hex = tab - hexsz;
		}
		if (hex < p || (hex > p && hex[-1] != ' ') || fgit_oid_from_hex(&oid, hex, algo))
			goto bad;
		path = stdin_path(u, tab + 1, line.len - (size_t)(tab + 1 - l));
		if (!path)
			goto bad;
		if (!mode) {
			if (fgit_index_remove_path(u->idx, path) == 0)
				u->changed = 1;
			fgit_error_clear();	/* git says nothing here, even with -v */
			free(path);
			continue;
		}
		if (fgit_index_entry_new(&e, path, strlen(path)) < 0) {
			fprintf(stderr, "Ignoring path %s\n", path);
			fgit_error_clear();
			free(path);
			continue;
		}
		e->mode = fgit_mode_canon((unsigned int)mode);
		e->oid = oid;
		e->stage = (uint16_t)stage;
		if (fgit_index_add(u->idx, e)) {
			fprintf(stderr, "Ignoring path %s\n", path);
			fgit_error_clear();
			free(path);
			continue;
		}
		u->changed = 1;
		report(u, "add '%s'", path);
		free(path);
		continue;
bad:
		die("malformed index info %s", line.ptr);
	}
	fgit_buf_release(&line);
}

static void test_step(int n, void *payload)
{
	if (n)
		fputc('.', stderr);
	else
		fprintf(stderr, "Testing mtime in '%s' ", (const char *)payload);
}

/* --test-untracked-cache: 0 when the file system suits the cache, else 1 */
static int test_untracked_cache(struct ui *u)
{
	const char *why;
	char *cwd;
	int r;

	if (!u->top)
		die("this operation must be run in a work tree");
	if (chdir(u->top))
		die_errno("cannot chdir to '%s'", u->top);
	if (!(cwd = getcwd(NULL, 0)))
		die_errno("unable to get current working directory");
	r = fgit_untr_test_mtime(&why, "", test_step, cwd);
	free(cwd);
	if (r < 0)
		die_last();
	if (!r) {
		fprintf(stderr, "\n%s\n", why);
		return 1;
	}
	fputs(" OK\n", stderr);
	return 0;
}

static void usage_ui(void)
{
	cli_usage("git update-index [<options>] [--] [<file>...]");
}

CLI_CMD(update_index)
{
	struct ui u;
	char *index_path;
	int i, end_opts = 0, version = 0, untracked = 0;

	memset(&u, 0, sizeof(u));
	u.repo = cli_repo();
	u.prefix = fgit_repo_prefix(u.repo);
	u.top = fgit_repo_work_tree(u.repo);
	cli_wt_stat_options(&u.so, u.repo);
	cli_convert_setup(u.repo, "update-index");
	if (fgit_repo_odb(&u.odb, u.repo))
		die_last();
	index_path = cli_index_path(u.repo);
	u.idx = cli_index_load(u.repo, index_path);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (end_opts || a[0] != '-' || !a[1]) {
			if (!u.top)
				die("this operation must be run in a work tree");
			update_one(&u, a);
			continue;
		}
		if (!strcmp(a, "--"))
			end_opts = 1;
		else if (!strcmp(a, "--add"))
			u.allow_add = 1;
		else if (!strcmp(a, "--no-add"))
			u.allow_add = 0;
		else if (!strcmp(a, "--remove"))
			u.allow_remove = 1;
		else if (!strcmp(a, "--no-remove"))
			u.allow_remove = 0;
		else if (!strcmp(a, "--force-remove"))
			u.force_remove = 1;
		else if (!strcmp(a, "--replace"))
			;	/* fgit_index_add always replaces conflicting paths' own entries */
		else if (!strcmp(a, "-q"))
			u.quiet = 1;
		else if (!strcmp(a, "--unmerged"))
			u.allow_unmerged = 1;
		else if (!strcmp(a, "--ignore-missing"))
			u.ignore_missing = 1;
		else if (!strcmp(a, "--verbose"))
			u.verbose = 1;
		else if (!strcmp(a, "--info-only"))
			u.info_only = 1;
		else if (!strcmp(a, "--refresh"))
			refresh(&u, 0);
		else if (!strcmp(a, "--really-refresh"))
			refresh(&u, 1);
		else if (!strcmp(a, "--assume-unchanged"))
			u.mark_valid = 1;
		else if (!strcmp(a, "--no-assume-unchanged"))
			u.mark_valid = -1;
		else if (!strcmp(a, "--skip-worktree"))
			u.mark_skip = 1;
		else if (!strcmp(a, "--no-skip-worktree"))
			u.mark_skip = -1;
		else if (!strcmp(a, "--chmod=+x") || !strcmp(a, "--chmod=-x"))
			u.chmod = a[8];
		else if (!strncmp(a, "--chmod=", 8))
			die("option 'chmod' expects \"+x\" or \"-x\"");
		else if (!strcmp(a, "--cacheinfo")) {
			unsigned int mode;
			char *end;
			const char *c1, *c2;
			if (i + 1 < argc && (c1 = strchr(argv[i + 1], ',')) && (c2 = strchr(c1 + 1, ','))) {
				struct fgit_buf hex = FGIT_BUF_INIT;
				mode = (unsigned int)strtoul(argv[i + 1], &end, 8);
				if (end != c1)
					die("option 'cacheinfo' expects <mode>,<sha1>,<path>");
				fgit_buf_add(&hex, c1 + 1, (size_t)(c2 - c1 - 1));
				cacheinfo(&u, mode, hex.ptr, c2 + 1);
				fgit_buf_release(&hex);
				i++;
			} else if (i + 3 < argc) {
				mode = (unsigned int)strtoul(argv[i + 1], &end, 8);
				if (*end)
					die("option 'cacheinfo' expects <mode>,<sha1>,<path>");
				cacheinfo(&u, mode, argv[i + 2], argv[i + 3]);
				i += 3;
			} else {
				die("option 'cacheinfo' expects <mode>,<sha1>,<path>");
			}
		} else if (!strncmp(a, "--index-version", 15)) {
			const char *v = a[15] == '=' ? a + 16 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			if (!v)
				die("option `index-version' requires a value");
			version = (int)strtol(v, &end, 10);
			if (*end || version < 2 || version > 4)
				die("index-version %d not in range: %d..%d", version, 2, 4);
			u.changed = 1;
		} else if (!strcmp(a, "-z")) {
			u.nul = 1;
		} else if (!strcmp(a, "--stdin") || !strcmp(a, "--index-info")) {
			if (i != argc - 1) {
				error("option '%s' must be the last argument", a + 2);
				usage_ui();
			}
			if (a[2] == 's') {
				if (!u.top)
					die("this operation must be run in a work tree");
				paths_from_stdin(&u);
			} else {
				index_info(&u);
			}
		} else if (!strcmp(a, "--untracked-cache") || !strcmp(a, "--force-untracked-cache")) {
			untracked = 1;
		} else if (!strcmp(a, "--no-untracked-cache")) {
			untracked = -1;
		} else if (!strcmp(a, "--test-untracked-cache")) {
			untracked = 2;
		} else if (!strcmp(a, "-h")) {
			usage_ui();
		} else {
			die_unimplemented("update-index", a);
		}
	}
	if (untracked == 2) {
		/* git tests and returns: what the other options did is not written */
		free(index_path);
		cli_flush_stdout();
		return test_untracked_cache(&u);
	}
	if (untracked) {
		/* git tests and warns against the configuration, then obeys */
		enum cli_untr_setting set = cli_untr_setting(u.repo);
		if (untracked > 0) {
			if (set == CLI_UNTR_REMOVE)
				warning("core.untrackedCache is set to false; remove or change it, "
					"if you really want to enable the untracked cache");
			cli_untr_add(u.repo, u.idx);
			if (u.verbose)
				printf("Untracked cache enabled for '%s'\n", u.top ? u.top : "(null)");
		} else {
			if (set == CLI_UNTR_WRITE)
				warning("core.untrackedCache is set to true; remove or change it, "
					"if you really want to disable the untracked cache");
			fgit_index_untracked_cache_drop(u.idx);
			if (u.verbose)
				printf("Untracked cache disabled\n");
		}
		u.changed = 1;
	}
	if (fgit_index_is_changed(u.idx))
		u.changed = 1;	/* e.g. core.untrackedCache applied on load */
	if (u.changed) {
		struct fgit_index_write_opts wo = FGIT_INDEX_WRITE_OPTS_INIT;
		cli_index_write_options(&wo, u.repo, u.idx);
		if (version)
			wo.index_version = (unsigned)version;
		if (fgit_index_write(u.idx, index_path, &wo))
			die_last();
	}
	free(index_path);
	cli_flush_stdout();
	return u.has_errors ? 1 : 0;
}
