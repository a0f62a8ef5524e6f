/*
 * git add: stage work-tree content.  The order of git's builtin/add.c is
 * kept because it shows in the output: tracked paths are refreshed first
 * ("add"/"remove" lines in index order), then the ignored-paths message,
 * then the untracked files found by the walk, then --chmod; the index is
 * written once, through the index.lock taken before it was read.
 *
 * The work itself (hashing and writing on every core) is fgit_add_paths()
 * in lib/ops/add.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "add_setup.h"
#include "attr_setup.h"
#include "wt_setup.h"
#include "fgit/add.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/lockfile.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"
#include "fgit/worktree.h"

static const char *const add_usage[] = {
	"git add [<options>] [--] <pathspec>...",
	NULL
};

struct add_state {
	struct fgit_repo *repo;
	struct fgit_index *idx;
	int verbose, dry_run, ignore_errors, failed;
	int embedded_advised, advice_embedded, chmod_failed;
	int updating;			/* refreshing tracked paths (git's "updating") */
	struct fgit_buf *untracked;	/* walk results, NUL-separated */
	size_t nuntracked;
	const struct fgit_pathspec *ps;
	unsigned char *seen, *tmp;
};

static int advice_on(struct fgit_repo *repo, const char *key)
{
	int b = 1;
	if (fgit_config_get_bool(&b, fgit_repo_config(repo), key))
		b = 1;
	fgit_error_clear();
	return b;
}

static void print_embedded_advice(const char *name)
{
	fflush(stdout);
	fprintf(stderr,
		"hint: You've added another git repository inside your current repository.\n"
		"hint: Clones of the outer repository will not contain the contents of\n"
		"hint: the embedded repository and will not know how to obtain it.\n"
		"hint: If you meant to add a submodule, use:\n"
		"hint: \n"
		"hint: \tgit submodule add <url> %s\n"
		"hint: \n"
		"hint: If you added this path by mistake, you can remove it from the\n"
		"hint: index with:\n"
		"hint: \n"
		"hint: \tgit rm --cached %s\n"
		"hint: \n"
		"hint: See \"git help submodule\" for more information.\n", name, name);
}

static int report(enum fgit_add_event ev, const char *path, const char *msg, void *payload)
{
	struct add_state *s = payload;

	switch (ev) {
	case FGIT_ADD_ADDED:
	case FGIT_ADD_EMBEDDED:
		if (s->verbose || s->dry_run)
			printf("add '%s%s'\n", path, ev == FGIT_ADD_EMBEDDED ? "/" : "");
		if (ev == FGIT_ADD_EMBEDDED && !s->dry_run) {
			warning("adding embedded git repository: %s", path);
			if (!s->embedded_advised && s->advice_embedded) {
				print_embedded_advice(path);
				s->embedded_advised = 1;
			}
		}
		return 0;
	case FGIT_ADD_REMOVED:
		if (s->verbose || s->dry_run)
			printf("remove '%s'\n", path);
		return 0;
	case FGIT_ADD_WARNING:
	case FGIT_ADD_ERROR:
	case FGIT_ADD_FATAL:
		return cli_add_report_common(ev, path, msg);
	case FGIT_ADD_FAILED:
		cli_add_report_common(ev, path, msg);
		s->failed = 1;
		if (!s->ignore_errors)
			die(s->updating ? "updating files failed" : "adding files failed");
		return 0;
	}
	return 0;
}

static int collect_untracked(const char *path, size_t len, int is_dir, void *payload)
{
	struct add_state *s = payload;
	size_t np = fgit_pathspec_count(s->ps);

	if (np) {
		memset(s->tmp, 0, np);
		if (!fgit_pathspec_match(s->ps, path, len, is_dir ? FGIT_PATHSPEC_MATCH_DIR : 0, s->tmp))
			return 0;
		for (size_t i = 0; i < np; i++)
			s->seen[i] |= s->tmp[i];
	}
	fgit_buf_add(s->untracked, path, len);
	fgit_buf_addch(s->untracked, '\0');
	s->nuntracked++;
	return 0;
}

static const char **split_list(struct fgit_buf *b, size_t n)
{
	const char **list = calloc(n + 1, sizeof(*list));
	size_t i, off = 0;

	if (!list)
		die("out of memory");
	for (i = 0; i < n; i++) {
		list[i] = b->ptr + off;
		off += strlen(b->ptr + off) + 1;
	}
	return list;
}

/*
 * Is a leading directory of match (relative to the top of the work
 * tree, the current directory) a symbolic link?  git refuses such a
 * pathspec, wildcards or not.
 */
static int beyond_symlink(const char *match)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char *slash;
	struct stat st;
	int r = 0;

	for (slash = strchr(match, '/'); slash && !r; slash = strchr(slash + 1, '/')) {
		fgit_buf_set(&b, match, (size_t)(slash - match));
		if (lstat(b.ptr, &st))
			break;
		r = S_ISLNK(st.st_mode);
	}
	fgit_buf_release(&b);
	return r;
}

/* The literal part of a pathspec element, up to its first wildcard. */
static size_t nowildcard_len(const char *m, unsigned magic)
{
	if (magic & FGIT_PATHSPEC_LITERAL)
		return strlen(m);
	return strcspn(m, "*?[\\");
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * git's DIR_COLLECT_IGNORED: the ignored paths the walk met that a
 * pathspec element names, itself or as a leading directory.
 */
static size_t collect_ignored(char ***out, struct add_state *s, struct fgit_ignore *ig)
{
	size_t i, n = fgit_pathspec_count(s->ps), k = 0;
	char **list = calloc(n + 1, sizeof(*list));

	if (!list)
		die("out of memory");
	for (i = 0; i < n; i++) {
		unsigned magic = fgit_pathspec_item_magic(s->ps, i);
		const char *m = fgit_pathspec_item_match(s->ps, i);
		size_t nw = nowildcard_len(m, magic), len = strlen(m), pos;
		struct fgit_buf p = FGIT_BUF_INIT;

		if (magic & FGIT_PATHSPEC_EXCLUDE)
			continue;
		for (pos = 1; pos <= nw && pos <= len; pos++) {
			struct stat st;
			int isdir, found = 0;
			size_t ipos;
			if (pos < len && m[pos] != '/')
				continue;
			if (pos < nw && pos == len)
				break;
			if (pos == nw && nw < len && m[pos] != '/')
				break;
			fgit_buf_reset(&p);
			fgit_buf_add(&p, m, pos);
			if (lstat(p.ptr, &st))
				break;
			isdir = S_ISDIR(st.st_mode);
			if (fgit_index_find_any_stage(&ipos, s->idx, p.ptr, p.len))
				break;	/* tracked */
			if (fgit_ignore_check_path(NULL, ig, p.ptr,
						   isdir ? FGIT_IGNORE_DT_DIR : FGIT_IGNORE_DT_FILE) > 0)
				found = 1;
			if (found) {
				size_t j;
				for (j = 0; j < k; j++)
					if (!strcmp(list[j], p.ptr))
						break;
				if (j == k)
					list[k++] = fgit_buf_detach(&p, NULL);
				break;
			}
			if (!isdir)
				break;
		}
		fgit_buf_release(&p);
	}
	fgit_error_clear();
	qsort(list, k, sizeof(*list), str_cmp);
	*out = list;
	return k;
}

static void chmod_pathspec(struct add_state *s, char flip, int *changed)
{
	size_t i, n = fgit_index_entrycount(s->idx);

	for (i = 0; i < n; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(s->idx, i);
		if (!fgit_pathspec_match(s->ps, e->path, e->path_len, 0, NULL))
			continue;
		if ((e->mode & 0170000) != 0100000) {
			s->chmod_failed = 1;
			error("cannot chmod %cx '%s'", flip, e->path);
			continue;
		}
		if (s->dry_run)
			continue;
		if (e->mode != (flip == '+' ? 0100755u : 0100644u)) {
			e->mode = flip == '+' ? 0100755 : 0100644;
			fgit_index_invalidate_path(s->idx, e->path);
			*changed = 1;
		}
	}
}

/* add --refresh: stat data of matching entries, content unchanged. */
static void refresh(struct add_state *s, struct fgit_wt_stat_options *so, int *changed)
{
	size_t i, n = fgit_index_entrycount(s->idx), np = fgit_pathspec_count(s->ps);
	int header = 0;

	for (i = 0; i < n; i++) {
		struct fgit_index_entry *e = fgit_index_get_mut(s->idx, i);
		struct stat st;
		int c;

		memset(s->tmp, 0, np);
		if (!fgit_pathspec_match(s->ps, e->path, e->path_len, 0, s->tmp))
			continue;
		for (size_t k = 0; k < np; k++)
			s->seen[k] |= s->tmp[k];
		if (e->stage || (e->flags & FGIT_INDEX_SKIP_WORKTREE))
			continue;
		if (lstat(e->path, &st))
			c = FGIT_WT_TYPE;
		else
			c = fgit_worktree_entry_changed(s->idx, e, &st, e->path, so);
		fgit_error_clear();
		if (c > 0 && !(c & FGIT_WT_TYPE) && !(c & FGIT_WT_MODE) &&
		    fgit_worktree_stat_differs(e, &st, so) && !fgit_worktree_entry_changed(s->idx, e, &st, e->path, so))
			c = 0;
		if (!c) {
			if (fgit_worktree_stat_differs(e, &st, so)) {
				unsigned mode = e->mode;
				fgit_worktree_fill_stat(e, &st, so);
				e->mode = mode;
				*changed = 1;
				fgit_index_mark_changed(s->idx);
			}
			continue;
		}
		if (s->verbose) {
			if (!header)
				printf("Unstaged changes after refreshing the index:\n");
			header = 1;
			printf("%c\t%s\n", (c & FGIT_WT_TYPE) && lstat(e->path, &st) ? 'D' : 'M', e->path);
		}
	}
}

CLI_CMD(add)
{
	struct add_state s;
	struct fgit_add_options ao = FGIT_ADD_OPTIONS_INIT;
	struct fgit_lockfile *lk = NULL;
	struct fgit_ignore *ig = NULL;
	struct fgit_buf untracked = FGIT_BUF_INIT;
	const char *chmod_arg = NULL, *pathspec_from_file = NULL, *top;
	const char **args = NULL;
	char *index_path;
	size_t nargs, i, np;
	int force = 0, update = 0, all = -1, intent = 0, refresh_only = 0, pathspec_nul = 0;
	int ignore_missing = 0, changed = 0, r, require_pathspec, add_new;
	struct cli_option opts[] = {
		OPT_BOOL('n', "dry-run", &s.dry_run, "dry run"),
		OPT_BOOL('v', "verbose", &s.verbose, "be verbose"),
		OPT_GROUP(""),
		OPT_UNIMPLEMENTED('i', "interactive"),
		OPT_UNIMPLEMENTED('p', "patch"),
		OPT_UNIMPLEMENTED('e', "edit"),
		OPT_BOOL('f', "force", &force, "allow adding otherwise ignored files"),
		OPT_BOOL('u', "update", &update, "update tracked files"),
		OPT_UNIMPLEMENTED(0, "renormalize"),
		OPT_BOOL('N', "intent-to-add", &intent, "record only the fact that the path will be added later"),
		OPT_BOOL('A', "all", &all, "add changes from all tracked and untracked files"),
		{ CLI_OPT_SET_INT, 0, "ignore-removal", &all, NULL,
		  "ignore paths removed in the working tree (same as --no-all)", CLI_OPT_NONEG, 0, NULL },
		OPT_BOOL(0, "refresh", &refresh_only, "don't add, only refresh the index"),
		OPT_BOOL(0, "ignore-errors", &s.ignore_errors, "just skip files which cannot be added because of errors"),
		OPT_BOOL(0, "ignore-missing", &ignore_missing, "check if - even missing - files are ignored in dry run"),
		OPT_UNIMPLEMENTED(0, "sparse"),
		OPT_STRING(0, "chmod", &chmod_arg, "(+|-)x", "override the executable bit of the listed files"),
		OPT_STRING(0, "pathspec-from-file", &pathspec_from_file, "file", "read pathspec from file"),
		OPT_BOOL(0, "pathspec-file-nul", &pathspec_nul, "with --pathspec-from-file, pathspec elements are separated with NUL character"),
		OPT_END(),
	};

	memset(&s, 0, sizeof(s));
	nargs = (size_t)cli_parse_options(argc, argv, "add", opts, add_usage, 0);
	args = argv;
	if (all > 0 && update)
		die("options '%s' and '%s' cannot be used together", "-A", "-u");
	if (ignore_missing && !s.dry_run)
		die("the option '%s' requires '%s'", "--ignore-missing", "--dry-run");
	if (ignore_missing)
		die_unimplemented("add", "--ignore-missing");
	if (chmod_arg && ((chmod_arg[0] != '-' && chmod_arg[0] != '+') ||
			  chmod_arg[1] != 'x' || chmod_arg[2]))
		die("--chmod param '%s' must be either -x or +x", chmod_arg);

	s.repo = cli_repo();
	cli_require_work_tree(s.repo);
	top = fgit_repo_work_tree(s.repo);
	args = cli_pathspec_args(&nargs, args, pathspec_from_file, pathspec_nul);

	add_new = !update && !refresh_only;
	require_pathspec = !(update || all > 0);
	if (require_pathspec && !nargs) {
		fflush(stdout);
		fprintf(stderr, "Nothing specified, nothing added.\n");
		if (advice_on(s.repo, "advice.addEmptyPathspec"))
			fprintf(stderr, "hint: Maybe you wanted to say 'git add .'?\n"
				"hint: Turn this message off by running\n"
				"hint: \"git config advice.addEmptyPathspec false\"\n");
		return 0;
	}
	if (!nargs) {
		static const char *whole[] = { ":/", NULL };
		args = whole;
		nargs = 1;
	}
	if (fgit_pathspec_new((struct fgit_pathspec **)&s.ps, fgit_repo_prefix(s.repo),
			      args, nargs, cli_pathspec_flags(), top))
		die_last();
	if (chdir(top))
		die_errno("cannot chdir to '%s'", top);
	np = fgit_pathspec_count(s.ps);
	for (i = 0; i < np; i++)
		if (beyond_symlink(fgit_pathspec_item_match(s.ps, i)))
			die("pathspec '%s' is beyond a symbolic link",
			    fgit_pathspec_item_original(s.ps, i));
	s.seen = calloc(np + 1, 1);
	s.tmp = calloc(np + 1, 1);
	if (!s.seen || !s.tmp)
		die("out of memory");

	index_path = cli_index_path(s.repo);
	if (fgit_lockfile_acquire(&lk, index_path, 0))
		die_last();
	s.idx = cli_index_load(s.repo, index_path);
	s.advice_embedded = advice_on(s.repo, "advice.addEmbeddedRepo");
	cli_add_options(&ao, s.repo, ".");
	ao.report = report;
	ao.payload = &s;
	if (s.dry_run)
		ao.flags |= FGIT_ADD_DRY_RUN;
	if (intent)
		ao.flags |= FGIT_ADD_INTENT_TO_ADD;
	if (all == 0 && !update)
		ao.flags |= FGIT_ADD_IGNORE_REMOVAL;

	if (add_new) {
		struct fgit_dirwalk_options wo = FGIT_DIRWALK_OPTIONS_INIT;
		if (!force)
			ig = cli_standard_ignore(s.repo);
		s.untracked = &untracked;
		wo.index = s.idx;
		wo.ignore = ig;
		wo.pathspec = s.ps;
		wo.cb = collect_untracked;
		wo.payload = &s;
		if (fgit_dirwalk("", &wo) < 0)
			die_last();
	}
	if (refresh_only) {
		refresh(&s, &ao.stat, &changed);
		for (i = 0; i < np; i++)
			if (!s.seen[i] && !(fgit_pathspec_item_magic(s.ps, i) & FGIT_PATHSPEC_EXCLUDE))
				die("pathspec '%s' did not match any files",
				    fgit_pathspec_item_original(s.ps, i));
		goto write;
	}

	/* tracked paths first, in index order */
	{
		const char **tracked;
		size_t nt;
		if (fgit_add_tracked_paths(&tracked, &nt, s.idx, s.ps, s.seen))
			die_last();
		for (i = 0; i < np; i++) {
			const char *m = fgit_pathspec_item_match(s.ps, i);
			struct stat st;
			if ((fgit_pathspec_item_magic(s.ps, i) & FGIT_PATHSPEC_EXCLUDE) || s.seen[i] || !m[0])
				continue;
			if ((fgit_pathspec_item_magic(s.ps, i) & (FGIT_PATHSPEC_GLOB | FGIT_PATHSPEC_ICASE)) ||
			    lstat(m, &st))
				die("pathspec '%s' did not match any files",
				    fgit_pathspec_item_original(s.ps, i));
		}
		s.updating = 1;
		r = fgit_add_paths(s.idx, tracked, nt, &ao, &changed);
		free(tracked);
		if (r == FGIT_ENOTSUPP)
			die_unimplemented("add", fgit_error_last());
		if (r < 0)
			die_last();
		s.updating = 0;
	}
	if (add_new) {
		char **ignored = NULL;
		size_t nig = 0;
		const char **list;
		int c2 = 0;

		if (ig)
			nig = collect_ignored(&ignored, &s, ig);
		if (nig) {
			fflush(stdout);
			fprintf(stderr, "The following paths are ignored by one of your .gitignore files:\n");
			for (i = 0; i < nig; i++)
				fprintf(stderr, "%s\n", ignored[i]);
			if (advice_on(s.repo, "advice.addIgnoredFile"))
				fprintf(stderr, "hint: Use -f if you really want to add them.\n"
					"hint: Turn this message off by running\n"
					"hint: \"git config advice.addIgnoredFile false\"\n");
			s.failed = 1;
		}
		for (i = 0; i < nig; i++)
			free(ignored[i]);
		free(ignored);
		list = split_list(&untracked, s.nuntracked);
		r = fgit_add_paths(s.idx, list, s.nuntracked, &ao, &c2);
		free(list);
		if (r == FGIT_ENOTSUPP)
			die_unimplemented("add", fgit_error_last());
		if (r < 0)
			die_last();
		changed |= c2;
	}
	if (chmod_arg)
		chmod_pathspec(&s, chmod_arg[0], &changed);
write:
	cli_flush_stdout();
	if (!s.dry_run && (changed || fgit_index_is_changed(s.idx))) {
		struct fgit_index_write_opts wo;
		fgit_add_smudge_racy(s.idx, ".", &ao.stat);
		cli_index_write_opts(&wo, s.repo);
		if (fgit_index_write_locked(s.idx, lk, &wo))
			die("Unable to write new index file");
	} else {
		fgit_lockfile_rollback(lk);
	}
	fgit_buf_release(&untracked);
	free(index_path);
	/* git ORs chmod_pathspec's -1 into its exit status: 255 */
	return s.chmod_failed ? 255 : s.failed ? 1 : 0;
}
