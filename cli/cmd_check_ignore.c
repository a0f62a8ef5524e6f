/*
 * git check-ignore: which gitignore pattern decides each path.  Paths the
 * index tracks (or directories holding tracked paths) are never reported as
 * ignored unless --no-index.  Uses fgit_ignore_check_path, which moves the
 * per-directory stack to each path's directory (sorted input reuses it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "wt_setup.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"

static const char *const check_ignore_usage[] = {
	"git check-ignore [<options>] <pathname>...",
	"git check-ignore [<options>] --stdin",
	NULL
};

struct ci {
	struct fgit_repo *repo;
	struct fgit_index *idx;		/* NULL with --no-index */
	struct fgit_ignore *ig;
	const char *prefix;
	int quiet, verbose, non_matching, nul, quote_path;
	struct fgit_buf out;
};

/* git's resolve_dtype: the index first, then lstat. */
static enum fgit_ignore_dtype resolve(const char *path, void *payload)
{
	struct ci *ci = payload;
	struct fgit_buf fs = FGIT_BUF_INIT;
	struct stat st;
	enum fgit_ignore_dtype t = FGIT_IGNORE_DT_FILE;
	size_t pos, len = strlen(path);

	if (ci->idx) {
		const struct fgit_index_entry *e;
		if (fgit_index_find_any_stage(&pos, ci->idx, path, len) > 0) {
			e = fgit_index_get(ci->idx, pos);
			return (e->mode & 0170000) == 0160000 ? FGIT_IGNORE_DT_DIR : FGIT_IGNORE_DT_FILE;
		}
		e = fgit_index_get(ci->idx, pos);
		if (e && e->path_len > len && !memcmp(e->path, path, len) && e->path[len] == '/')
			return FGIT_IGNORE_DT_DIR;
	}
	fgit_buf_addf(&fs, "%s/%s", fgit_repo_work_tree(ci->repo), path);
	if (!lstat(fs.ptr, &st) && S_ISDIR(st.st_mode))
		t = FGIT_IGNORE_DT_DIR;
	fgit_buf_release(&fs);
	return t;
}

/* Does some index entry match the pathspec (git's seen[] check)? */
static int in_index(struct ci *ci, const struct fgit_pathspec *ps, const char *match)
{
	size_t i, n, pos, len = strlen(match);
	const struct fgit_index_entry *e;

	if (!ci->idx)
		return 0;
	n = fgit_index_entrycount(ci->idx);
	if (!strpbrk(match, "*?[\\") && !(fgit_pathspec_item_magic(ps, 0) & FGIT_PATHSPEC_ICASE)) {
		if (len && match[len - 1] == '/')
			len--;
		if (fgit_index_find_any_stage(&pos, ci->idx, match, len) > 0)
			return 1;
		e = fgit_index_get(ci->idx, pos);
		return e && e->path_len > len && !memcmp(e->path, match, len) && e->path[len] == '/';
	}
	for (i = 0; i < n; i++) {
		e = fgit_index_get(ci->idx, i);
		if (fgit_pathspec_match(ps, e->path, e->path_len, 0, NULL))
			return 1;
	}
	return 0;
}

static void output(struct ci *ci, const char *path, const struct fgit_ignore_pattern *p)
{
	struct fgit_buf *b = &ci->out;

	if (!ci->nul) {
		if (ci->verbose) {
			if (p) {
				const char *src = fgit_ignore_pattern_source(p);
				cli_add_c_quoted(b, src, strlen(src), ci->quote_path);
				fgit_buf_addf(b, ":%u:%s\t", fgit_ignore_pattern_lineno(p),
					      fgit_ignore_pattern_text(p));
			} else {
				fgit_buf_adds(b, "::\t");
			}
		}
		cli_add_c_quoted(b, path, strlen(path), ci->quote_path);
		fgit_buf_addch(b, '\n');
	} else if (!ci->verbose) {
		fgit_buf_adds(b, path);
		fgit_buf_addch(b, '\0');
	} else if (p) {
		fgit_buf_addf(b, "%s%c%u%c%s%c%s%c", fgit_ignore_pattern_source(p), 0,
			      fgit_ignore_pattern_lineno(p), 0, fgit_ignore_pattern_text(p), 0,
			      path, 0);
	} else {
		fgit_buf_addf(b, "%c%c%c%s%c", 0, 0, 0, path, 0);
	}
}

static int check_one(struct ci *ci, const char *arg)
{
	struct fgit_pathspec *ps;
	const struct fgit_ignore_pattern *p = NULL;
	const char *args[1] = { arg };
	char *match;
	size_t len;
	int r, found = 0;

	if (fgit_pathspec_new(&ps, ci->prefix, args, 1, 0, fgit_repo_work_tree(ci->repo)))
		die_last();
	{
		/* git allows only :(top) here */
		static const struct { unsigned bit; const char *name; char mn; } magic[] = {
			{ FGIT_PATHSPEC_LITERAL, "literal", 0 },
			{ FGIT_PATHSPEC_GLOB, "glob", 0 },
			{ FGIT_PATHSPEC_ICASE, "icase", 0 },
			{ FGIT_PATHSPEC_EXCLUDE, "exclude", '!' },
		};
		unsigned m = fgit_pathspec_item_magic(ps, 0);
		struct fgit_buf sb = FGIT_BUF_INIT;
		size_t k;
		for (k = 0; k < sizeof(magic) / sizeof(magic[0]); k++) {
			if (!(m & magic[k].bit))
				continue;
			if (sb.len)
				fgit_buf_adds(&sb, ", ");
			fgit_buf_addf(&sb, "'%s'", magic[k].name);
			if (magic[k].mn)
				fgit_buf_addf(&sb, " (mnemonic: '%c')", magic[k].mn);
		}
		if (sb.len)
			die("%s: pathspec magic not supported by this command: %s", arg, sb.ptr);
	}
	match = strdup(fgit_pathspec_item_match(ps, 0));
	if (!match)
		die("out of memory");
	len = strlen(match);
	if (!in_index(ci, ps, match)) {
		enum fgit_ignore_dtype dt = FGIT_IGNORE_DT_UNKNOWN;
		if (len && match[len - 1] == '/') {
			match[--len] = '\0';
			dt = FGIT_IGNORE_DT_DIR;
		}
		if (len) {
			r = fgit_ignore_check_path(&p, ci->ig, match, dt);
			if (r < 0)
				die_last();
			if (!ci->verbose && p && fgit_ignore_pattern_negated(p))
				p = NULL;
		}
	}
	if (!ci->quiet && (p || ci->non_matching))
		output(ci, arg, p);
	if (p)
		found = 1;
	free(match);
	fgit_pathspec_free(ps);
	return found;
}

/* git's unquote_c_style for --stdin lines starting with '"'. */
static int unquote(struct fgit_buf *out, const char *s)
{
	if (*s++ != '"')
		return -1;
	while (*s && *s != '"') {
		if (*s != '\\') {
			fgit_buf_addch(out, *s++);
			continue;
		}
		s++;
		switch (*s) {
		case 'a': fgit_buf_addch(out, '\a'); s++; break;
		case 'b': fgit_buf_addch(out, '\b'); s++; break;
		case 't': fgit_buf_addch(out, '\t'); s++; break;
		case 'n': fgit_buf_addch(out, '\n'); s++; break;
		case 'v': fgit_buf_addch(out, '\v'); s++; break;
		case 'f': fgit_buf_addch(out, '\f'); s++; break;
		case 'r': fgit_buf_addch(out, '\r'); s++; break;
		case '"': case '\\': fgit_buf_addch(out, *s++); break;
		case '0': case '1': case '2': case '3':
			if (s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
				fgit_buf_addch(out, (char)(((s[0] - '0') << 6) | ((s[1] - '0') << 3) | (s[2] - '0')));
				s += 3;
				break;
			}
			return -1;
		default:
			return -1;
		}
	}
	return *s == '"' && !s[1] ? 0 : -1;
}

CLI_CMD(check_ignore)
{
	struct ci ci;
	int n, i, from_stdin = 0, no_index = 0, num = 0;
	struct fgit_ignore_options io = FGIT_IGNORE_OPTIONS_INIT;
	struct cli_option opts[] = {
		OPT__QUIET(&ci.quiet, "suppress progress reporting"),
		OPT_BOOL('v', "verbose", &ci.verbose, "be verbose"),
		OPT_GROUP(""),
		OPT_BOOL(0, "stdin", &from_stdin, "read file names from stdin"),
		OPT_BOOL('z', NULL, &ci.nul, "terminate input and output records by a NUL character"),
		OPT_BOOL('n', "non-matching", &ci.non_matching, "show non-matching input paths"),
		OPT_BOOL(0, "no-index", &no_index, "ignore index when checking"),
		OPT_END(),
	};

	memset(&ci, 0, sizeof(ci));
	n = cli_parse_options(argc, argv, "check-ignore", opts, check_ignore_usage, 0);
	ci.repo = cli_repo();
	ci.prefix = fgit_repo_prefix(ci.repo);
	if (from_stdin) {
		if (n > 0)
			die("cannot specify pathnames with --stdin");
	} else {
		if (ci.nul)
			die("-z only makes sense with --stdin");
		if (n == 0)
			die("no path specified");
	}
	if (ci.quiet) {
		if (n > 1)
			die("--quiet is only valid with a single pathname");
		if (ci.verbose)
			die("cannot have both --quiet and --verbose");
	}
	if (ci.non_matching && !ci.verbose)
		die("--non-matching is only valid with --verbose");
	cli_require_work_tree(ci.repo);
	ci.quote_path = cli_quote_path(ci.repo);
	if (!no_index) {
		char *path = cli_index_path(ci.repo);
		ci.idx = cli_index_load(ci.repo, path);
		free(path);
	}
	io.workdir = fgit_repo_work_tree(ci.repo);
	io.resolve_dtype = resolve;
	io.payload = &ci;
	{
		int b;
		if (!fgit_config_get_bool(&b, fgit_repo_config(ci.repo), "core.ignorecase") && b)
			io.flags |= FGIT_IGNORE_ICASE;
		fgit_error_clear();
	}
	if (fgit_ignore_new(&ci.ig, &io) || cli_add_standard_excludes(ci.ig, ci.repo) < 0)
		die_last();

	if (!from_stdin) {
		for (i = 0; i < n; i++)
			num += check_one(&ci, argv[i]);
	} else {
		struct fgit_buf line = FGIT_BUF_INIT, uq = FGIT_BUF_INIT;
		int c, term = ci.nul ? '\0' : '\n', eof = 0;
		while (!eof) {
			fgit_buf_reset(&line);
			while ((c = getchar()) != EOF && c != term)
				fgit_buf_addch(&line, (char)c);
			if (c == EOF) {
				eof = 1;
				if (!line.len)
					break;
			}
			if (!ci.nul && line.ptr[0] == '"') {
				fgit_buf_reset(&uq);
				if (unquote(&uq, line.ptr))
					die("line is badly quoted");
				num += check_one(&ci, uq.ptr);
			} else {
				num += check_one(&ci, line.ptr);
			}
			fwrite(ci.out.ptr, 1, ci.out.len, stdout);
			fgit_buf_reset(&ci.out);
			fflush(stdout);
		}
		fgit_buf_release(&line);
		fgit_buf_release(&uq);
	}
	fwrite(ci.out.ptr, 1, ci.out.len, stdout);
	fgit_buf_release(&ci.out);
	cli_flush_stdout();
	return !num;
}
