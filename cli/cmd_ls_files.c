/*
 * git ls-files: the index's entries (-c, -s, -u), those changed in the work
 * tree (-d, -m), and untracked or ignored files (-o, -i) found by
 * fgit_dirwalk.  Names are relative to the current directory unless
 * --full-name, C-quoted unless -z.  Order and tags follow git 2.39:
 * others first, then one pass over the index.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/odb.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"
#include "fgit/worktree.h"

static const char *const ls_files_usage[] = {
	"git ls-files [<options>] [<file>...]",
	NULL
};

struct ls {
	struct fgit_repo *repo;
	struct fgit_index *idx;
	struct fgit_pathspec *ps;
	unsigned char *seen;	/* --error-unmatch: element matched */
	unsigned char *exact;	/* ... and matched a path exactly */
	unsigned char *tmp;
	const char *prefix;	/* for relative names; "" with --full-name */
	int nul, quote_path, show_stage, abbrev;
	struct fgit_odb *odb;
	struct fgit_buf out;
};

static const char *tag_cached = "", *tag_unmerged = "", *tag_removed = "",
	*tag_other = "", *tag_modified = "", *tag_skip_worktree = "";

static struct fgit_ignore *ignore;
static int exc_given;
static const char *exclude_per_dir;

/* Exclude options in command-line order, applied once parsing is done. */
struct exc_op { int kind; const char *arg; };	/* 0 -x, 1 -X, 2 standard */
static struct exc_op exc_ops[256];
static size_t exc_nr;

static void add_op(int kind, const char *arg)
{
	if (exc_nr == sizeof(exc_ops) / sizeof(exc_ops[0]))
		die("too many exclude options");
	exc_ops[exc_nr].kind = kind;
	exc_ops[exc_nr++].arg = arg;
	exc_given = 1;
}

static int opt_exclude(const struct cli_option *opt, const char *arg, int unset)
{
	add_op(0, arg);
	return 0;
}

static int opt_exclude_from(const struct cli_option *opt, const char *arg, int unset)
{
	add_op(1, arg);
	return 0;
}

static int opt_exclude_standard(const struct cli_option *opt, const char *arg, int unset)
{
	add_op(2, NULL);
	exclude_per_dir = ".gitignore";
	return 0;
}

static void setup_ignore(struct fgit_repo *repo)
{
	struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
	int b;
	size_t i;

	if (!exc_given)
		return;
	o.per_dir_name = exclude_per_dir;
	o.workdir = fgit_repo_work_tree(repo);
	if (!fgit_config_get_bool(&b, fgit_repo_config(repo), "core.ignorecase") && b)
		o.flags |= FGIT_IGNORE_ICASE;
	fgit_error_clear();
	if (fgit_ignore_new(&ignore, &o))
		die_last();
	for (i = 0; i < exc_nr; i++) {
		int r = 0;
		if (exc_ops[i].kind == 0)
			r = fgit_ignore_add_pattern(ignore, exc_ops[i].arg, "--exclude option");
		else if (exc_ops[i].kind == 1)
			r = fgit_ignore_add_file(ignore, exc_ops[i].arg, exc_ops[i].arg);
		else
			r = cli_add_standard_excludes(ignore, repo);
		if (r < 0)
			die_last();
	}
}

static void flush_out(struct ls *ls, int force)
{
	if (force || ls->out.len > 65536) {
		fwrite(ls->out.ptr, 1, ls->out.len, stdout);
		fgit_buf_reset(&ls->out);
	}
}

static void write_name(struct ls *ls, const char *path, size_t len, int dir)
{
	struct fgit_buf rel = FGIT_BUF_INIT, full = FGIT_BUF_INIT;

	fgit_buf_add(&full, path, len);
	if (dir)
		fgit_buf_addch(&full, '/');
	if (*ls->prefix)
		cli_add_relative(&rel, full.ptr, ls->prefix);
	else
		fgit_buf_add(&rel, full.ptr, full.len);
	if (ls->nul)
		fgit_buf_add(&ls->out, rel.ptr, rel.len);
	else
		cli_add_c_quoted(&ls->out, rel.ptr, rel.len, ls->quote_path);
	fgit_buf_addch(&ls->out, ls->nul ? '\0' : '\n');
	fgit_buf_release(&rel);
	fgit_buf_release(&full);
	flush_out(ls, 0);
}

/*
 * With --error-unmatch git skips an element once it matched a path
 * exactly (do_match_pathspec's MATCHED_EXACTLY check), so e.g. a
 * conflicted path is listed once: the same here.
 */
static int ps_match(struct ls *ls, const char *path, size_t len, unsigned flags)
{
	size_t i, n;
	int any = 0;

	if (!ls->ps)
		return 1;
	if (!ls->seen)
		return fgit_pathspec_match(ls->ps, path, len, flags, NULL);
	n = fgit_pathspec_count(ls->ps);
	memset(ls->tmp, 0, n);
	if (!fgit_pathspec_match(ls->ps, path, len, flags, ls->tmp))
		return 0;
	for (i = 0; i < n; i++) {
		const char *m;
		if (!ls->tmp[i] || ls->exact[i])
			continue;
		any = 1;
		ls->seen[i] = 1;
		m = fgit_pathspec_item_match(ls->ps, i);
		if (strlen(m) == len && !memcmp(m, path, len))
			ls->exact[i] = 1;
	}
	return any;
}

static int show_other(const char *path, size_t len, int is_dir, void *payload)
{
	struct ls *ls = payload;

	if (!ps_match(ls, path, len, is_dir ? FGIT_PATHSPEC_MATCH_DIR : 0))
		return 0;
	fgit_buf_adds(&ls->out, tag_other);
	write_name(ls, path, len, is_dir);
	return 0;
}

static int show_valid_bit, show_fsmonitor;

static void show_ce(struct ls *ls, const struct fgit_index_entry *e, const char *tag)
{
	unsigned int is_dir = (e->mode & 0170000) == 0160000;

	if (!ps_match(ls, e->path, e->path_len, is_dir ? FGIT_PATHSPEC_MATCH_DIR : 0))
		return;
	if (*tag && show_valid_bit && (e->flags & FGIT_INDEX_ASSUME_VALID)) {
		fgit_buf_addch(&ls->out, tag[0] >= 'A' && tag[0] <= 'Z' ? tag[0] + 32 : tag[0]);
		fgit_buf_adds(&ls->out, tag + 1);
	} else {
		fgit_buf_adds(&ls->out, tag);
	}
	if (ls->show_stage) {
		char hex[FGIT_MAX_HEXSZ + 1];
		fgit_oid_to_hex(hex, &e->oid);
		if (ls->abbrev) {
			int n;
			if (!ls->odb && fgit_repo_odb(&ls->odb, ls->repo))
				die_last();
			n = fgit_odb_abbrev_len(ls->odb, &e->oid, ls->abbrev);
			if (n > 0 && (size_t)n < strlen(hex))
				hex[n] = '\0';
		}
		fgit_buf_addf(&ls->out, "%06o %s %u\t", e->mode, hex, e->stage);
	}
	write_name(ls, e->path, e->path_len, 0);
}

/* The leading directory all positive pathspec elements share ("" or "a/"). */
static char *common_dir(const struct fgit_pathspec *ps)
{
	size_t i, n = ps ? fgit_pathspec_count(ps) : 0, best = (size_t)-1;
	const char *first = NULL;
	char *out;

	for (i = 0; i < n; i++) {
		unsigned magic = fgit_pathspec_item_magic(ps, i);
		const char *m = fgit_pathspec_item_match(ps, i);
		size_t len;

		if (magic & FGIT_PATHSPEC_EXCLUDE)
			continue;
		if (magic & FGIT_PATHSPEC_ICASE) {
			best = 0;
			continue;
		}
		len = (magic & FGIT_PATHSPEC_LITERAL) ? strlen(m) : strcspn(m, "*?[\\");
		if (!first) {
			first = m;
		} else {
			size_t k = 0;
			while (k < len && first[k] == m[k])
				k++;
			len = k;
		}
		if (len < best)
			best = len;
	}
	if (!first || best == (size_t)-1)
		best = 0;
	while (best && first[best - 1] != '/')
		best--;
	out = malloc(best + 1);
	if (!out)
		die("out of memory");
	if (best)
		memcpy(out, first, best);
	out[best] = '\0';
	return out;
}

CLI_CMD(ls_files)
{
	struct ls ls;
	int show_cached = 0, show_deleted = 0, show_others = 0, show_ignored = 0,
	    show_stage = 0, show_unmerged = 0, show_modified = 0, show_tag = 0,
	    show_dir = 0, no_empty = 0, error_unmatch = 0, full_name = 0, dedup = 0,
	    show_killed = 0, show_empty = 1;
	int n;
	size_t i, count;
	char *index_path;
	int abbrev_value = 0;
	struct cli_option opts[] = {
		OPT_BOOL('z', NULL, &ls.nul, "separate paths with the NUL character"),
		OPT_BOOL('t', NULL, &show_tag, "identify the file status with tags"),
		OPT_BOOL('v', NULL, &show_valid_bit, "use lowercase letters for 'assume unchanged' files"),
		OPT_BOOL('f', NULL, &show_fsmonitor, "use lowercase letters for 'fsmonitor clean' files"),
		OPT_BOOL('c', "cached", &show_cached, "show cached files in the output (default)"),
		OPT_BOOL('d', "deleted", &show_deleted, "show deleted files in the output"),
		OPT_BOOL('m', "modified", &show_modified, "show modified files in the output"),
		OPT_BOOL('o', "others", &show_others, "show other files in the output"),
		OPT_BOOL('i', "ignored", &show_ignored, "show ignored files in the output"),
		OPT_BOOL('s', "stage", &show_stage, "show staged contents' object name in the output"),
		OPT_BOOL('k', "killed", &show_killed, "show files on the filesystem that need to be removed"),
		OPT_BOOL(0, "directory", &show_dir, "show 'other' directories' names only"),
		OPT_UNIMPLEMENTED(0, "eol"),
		OPT_BOOL(0, "empty-directory", &show_empty, "don't show empty directories"),
		OPT_BOOL('u', "unmerged", &show_unmerged, "show unmerged files in the output"),
		OPT_UNIMPLEMENTED(0, "resolve-undo"),
		OPT_CALLBACK_F('x', "exclude", NULL, "pattern", "skip files matching pattern",
			       CLI_OPT_NONEG, opt_exclude),
		OPT_CALLBACK_F('X', "exclude-from", NULL, "file", "read exclude patterns from <file>",
			       CLI_OPT_NONEG, opt_exclude_from),
		OPT_STRING(0, "exclude-per-directory", &exclude_per_dir, "file",
			   "read additional per-directory exclude patterns in <file>"),
		{ CLI_OPT_CALLBACK, 0, "exclude-standard", NULL, NULL,
		  "add the standard git exclusions", CLI_OPT_NOARG | CLI_OPT_NONEG, 0, opt_exclude_standard },
		OPT_BOOL(0, "full-name", &full_name, "make the output relative to the project top directory"),
		OPT_UNIMPLEMENTED(0, "recurse-submodules"),
		OPT_BOOL(0, "error-unmatch", &error_unmatch, "if any <file> is not in the index, treat this as an error"),
		OPT_UNIMPLEMENTED(0, "with-tree"),
		OPT__ABBREV(&abbrev_value),
		OPT_UNIMPLEMENTED(0, "debug"),
		OPT_BOOL(0, "deduplicate", &dedup, "suppress duplicate entries"),
		OPT_UNIMPLEMENTED(0, "sparse"),
		OPT_UNIMPLEMENTED(0, "format"),
		OPT_END(),
	};

	memset(&ls, 0, sizeof(ls));
	n = cli_parse_options(argc, argv, "ls-files", opts, ls_files_usage, 0);
	no_empty = !show_empty;
	ls.repo = cli_repo();
	ls.abbrev = abbrev_value;
	if (ls.abbrev < 0)
		ls.abbrev = fgit_repo_default_abbrev(ls.repo);
	ls.prefix = full_name ? "" : fgit_repo_prefix(ls.repo);
	if (exclude_per_dir)
		exc_given = 1;
	if (show_killed)
		die_unimplemented("ls-files", "-k");
	if (show_tag || show_valid_bit || show_fsmonitor) {
		tag_cached = "H ";
		tag_unmerged = "M ";
		tag_removed = "R ";
		tag_modified = "C ";
		tag_other = "? ";
		tag_skip_worktree = "S ";
	}
	if (show_modified || show_others || show_deleted || show_ignored)
		cli_require_work_tree(ls.repo);
	if (show_unmerged)
		show_stage = 1;
	ls.show_stage = show_stage;
	if (show_ignored && !show_others && !show_cached)
		die("ls-files -i must be used with either -o or -c");
	if (show_ignored && !exc_given)
		die("ls-files --ignored needs some exclude pattern");
	ls.quote_path = cli_quote_path(ls.repo);
	{
		const char *top = fgit_repo_work_tree(ls.repo);
		static const char *cwd[] = { ".", NULL };
		const char **args = argv;
		size_t nargs = (size_t)n;
		if (!n && *fgit_repo_prefix(ls.repo)) {
			args = cwd;
			nargs = 1;
		}
		if (fgit_pathspec_new(&ls.ps, fgit_repo_prefix(ls.repo), args, nargs,
				      FGIT_PATHSPEC_PREFER_CWD, top))
			die_last();
	}
	if (n && error_unmatch) {
		ls.seen = calloc(fgit_pathspec_count(ls.ps), 1);
		ls.exact = calloc(fgit_pathspec_count(ls.ps), 1);
		ls.tmp = calloc(fgit_pathspec_count(ls.ps), 1);
		if (!ls.seen || !ls.exact || !ls.tmp)
			die("out of memory");
	}
	if (!(show_stage || show_deleted || show_others || show_unmerged || show_modified))
		show_cached = 1;

	index_path = cli_index_path(ls.repo);
	ls.idx = cli_index_load(ls.repo, index_path);

	setup_ignore(ls.repo);
	/*
	 * Work from the top, as git does: lstat of a short relative path
	 * walks fewer components than an absolute one (ls-files -m on a
	 * 78k-entry tree: 129 ms of system time with absolute paths).
	 */
	if (fgit_repo_work_tree(ls.repo) && chdir(fgit_repo_work_tree(ls.repo)))
		die_errno("cannot chdir to '%s'", fgit_repo_work_tree(ls.repo));
	if (show_others) {
		struct fgit_dirwalk_options wo = FGIT_DIRWALK_OPTIONS_INIT;
		char *start = common_dir(ls.ps);
		wo.flags = (show_ignored ? FGIT_DIRWALK_SHOW_IGNORED : 0) |
			   (show_dir ? FGIT_DIRWALK_DIRECTORY : 0) |
			   (no_empty ? FGIT_DIRWALK_NO_EMPTY_DIRECTORY : 0);
		wo.index = ls.idx;
		wo.ignore = ignore;
		wo.pathspec = ls.ps;
		wo.start = start;
		wo.cb = show_other;
		wo.payload = &ls;
		if (fgit_dirwalk("", &wo) < 0)
			die_last();
		free(start);
	}
	if (show_cached || show_stage || show_deleted || show_modified) {
		struct fgit_wt_stat_options so;
		struct fgit_buf fs = FGIT_BUF_INIT;
		size_t fs_base;

		cli_wt_stat_options(&so, ls.repo);
		fs_base = fs.len;
		count = fgit_index_entrycount(ls.idx);
		for (i = 0; i < count; i++) {
			const struct fgit_index_entry *e = fgit_index_get(ls.idx, i);
			struct stat st;
			int err, shown = 0;

			if (show_ignored) {
				const struct fgit_ignore_pattern *p = NULL;
				int dt = (e->mode & 0170000) == 0160000 ? FGIT_IGNORE_DT_DIR : FGIT_IGNORE_DT_FILE;
				int r = fgit_ignore_check_path(&p, ignore, e->path, (enum fgit_ignore_dtype)dt);
				if (r < 0)
					die_last();
				if (!r)
					continue;
			}
			if ((show_cached || show_stage) && (!show_unmerged || e->stage)) {
				show_ce(&ls, e, e->stage ? tag_unmerged :
					(e->flags & FGIT_INDEX_SKIP_WORKTREE) ? tag_skip_worktree : tag_cached);
				shown = 1;
			}
			if (!(shown && dedup) && (show_deleted || show_modified) &&
			    !(e->flags & FGIT_INDEX_SKIP_WORKTREE)) {
				fgit_buf_setlen(&fs, fs_base);
				fgit_buf_add(&fs, e->path, e->path_len);
				err = lstat(fs.ptr, &st);
				if (err && errno != ENOENT && errno != ENOTDIR)
					error("cannot lstat '%s': %s", fs.ptr, strerror(errno));
				if (err && show_deleted) {
					show_ce(&ls, e, tag_removed);
					shown = 1;
				}
				if (!(shown && dedup) && show_modified &&
				    (err || fgit_worktree_entry_changed(ls.idx, e, &st, fs.ptr, &so)))
					show_ce(&ls, e, tag_modified), shown = 1;
			}
			if (shown && dedup) {
				while (i + 1 < count &&
				       !strcmp(fgit_index_get(ls.idx, i + 1)->path, e->path))
					i++;
			}
		}
		fgit_buf_release(&fs);
	}
	flush_out(&ls, 1);
	cli_flush_stdout();
	if (ls.seen) {
		int bad = 0;
		count = fgit_pathspec_count(ls.ps);
		for (i = 0; i < count; i++) {
			if (ls.seen[i] || (fgit_pathspec_item_magic(ls.ps, i) & FGIT_PATHSPEC_EXCLUDE))
				continue;
			error("pathspec '%s' did not match any file(s) known to git",
			      fgit_pathspec_item_original(ls.ps, i));
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "Did you forget to 'git add'?\n");
			return 1;
		}
	}
	free(index_path);
	return 0;
}
