/*
 * git rev-parse: where the repository is (--git-dir, --show-toplevel, ...)
 * and what revisions name (see cli/revision helpers in lib/repo).
 * Arguments are handled in order, as git does, so output lines follow them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static void put_bool(int b)
{
	puts(b ? "true" : "false");
}

/* Repository-location options; 1 if arg was one. */
static int location_option(struct fgit_repo *repo, const char *arg)
{
	if (!strcmp(arg, "--git-dir")) {
		puts(fgit_repo_git_dir_display(repo));
	} else if (!strcmp(arg, "--absolute-git-dir")) {
		puts(fgit_repo_git_dir(repo));
	} else if (!strcmp(arg, "--git-common-dir")) {
		puts(fgit_repo_common_dir_display(repo));
	} else if (!strcmp(arg, "--show-toplevel")) {
		if (!fgit_repo_work_tree(repo))
			die("this operation must be run in a work tree");
		puts(fgit_repo_work_tree(repo));
	} else if (!strcmp(arg, "--is-inside-work-tree")) {
		put_bool(fgit_repo_inside_work_tree(repo));
	} else if (!strcmp(arg, "--is-inside-git-dir")) {
		put_bool(fgit_repo_inside_git_dir(repo));
	} else if (!strcmp(arg, "--is-bare-repository")) {
		put_bool(fgit_repo_is_bare(repo));
	} else if (!strcmp(arg, "--is-shallow-repository")) {
		struct fgit_buf p = FGIT_BUF_INIT;
		fgit_buf_addf(&p, "%s/shallow", fgit_repo_common_dir(repo));
		put_bool(access(p.ptr, F_OK) == 0);
		fgit_buf_release(&p);
	} else if (!strcmp(arg, "--show-prefix")) {
		puts(fgit_repo_inside_work_tree(repo) ? fgit_repo_prefix(repo) : "");
	} else if (!strcmp(arg, "--show-cdup")) {
		const char *p;
		if (!fgit_repo_inside_work_tree(repo)) {
			if (fgit_repo_work_tree(repo))
				puts(fgit_repo_work_tree(repo));
			return 1;
		}
		for (p = fgit_repo_prefix(repo); *p; p++)
			if (*p == '/')
				fputs("../", stdout);
		putchar('\n');
	} else {
		return 0;
	}
	return 1;
}

enum show_type { SHOW_NORMAL, SHOW_REVERSED };

struct rp {
	struct fgit_repo *repo;
	int verify, quiet, abbrev, abbrev_ref, abbrev_ref_strict;
	int symbolic;			/* 1: --symbolic, 2: --symbolic-full-name */
	int revs_count;
	int shown;			/* revisions shown (--default applies when none) */
	int as_is;			/* 1: after a filename, 2: after "--" */
	int has_dashdash;
	int show_revs, show_flags;	/* --revs-only / --no-revs style filters */
	struct fgit_oid verify_oid;
	char *verify_name;
	enum show_type verify_type;
};

static void die_no_single_rev(struct rp *rp)
{
	if (rp->quiet)
		exit(1);
	die("Needed a single revision");
}

static void print_with_type(enum show_type type, const char *s)
{
	if (type == SHOW_REVERSED)
		putchar('^');
	puts(s);
}

static void show_rev(struct rp *rp, enum show_type type, const struct fgit_oid *oid,
		     const char *name)
{
	char hex[FGIT_MAX_HEXSZ + 1];

	rp->shown++;
	if (!rp->show_revs)
		return;
	if ((rp->symbolic || rp->abbrev_ref) && name) {
		if (rp->symbolic == 2 || rp->abbrev_ref) {
			struct fgit_refdb *db;
			char *full = NULL;
			int n;
			if (fgit_repo_refdb(&db, rp->repo))
				die_last();
			if (!strcmp(name, "@"))
				name = "HEAD";
			n = fgit_refdb_dwim(NULL, &full, NULL, db, name, strlen(name));
			if (n == 1) {
				if (rp->abbrev_ref) {
					char *s = fgit_refdb_shorten(db, full, rp->abbrev_ref_strict);
					free(full);
					full = s;
				}
				print_with_type(type, full);
			} else if (n > 1) {
				error("refname '%s' is ambiguous", name);
			}
			free(full);
		} else {
			print_with_type(type, name);
		}
		return;
	}
	fgit_oid_to_hex(hex, oid);
	if (rp->abbrev) {
		struct fgit_odb *odb;
		int len = rp->abbrev;
		if (fgit_repo_odb(&odb, rp->repo))
			die_last();
		len = fgit_odb_abbrev_len(odb, oid, rp->abbrev);
		if (len > 0 && (size_t)len < strlen(hex))
			hex[len] = '\0';
	}
	print_with_type(type, hex);
}

/* Resolve or report; 0 on success. */
static int lookup(struct rp *rp, struct fgit_oid *oid, const char *spec, int *why)
{
	struct fgit_revparse_info info = FGIT_REVPARSE_INFO_INIT;
	int r;

	if (strstr(spec, "@{") || !strncmp(spec, ":/", 2) || strstr(spec, "^{/"))
		die_unimplemented("rev-parse", spec);
	r = fgit_revparse_ext(oid, &info, rp->repo, spec);
	*why = info.why;
	cli_revparse_warnings(rp->repo, &info);
	fgit_revparse_info_release(&info);
	if (r && r != FGIT_ENOTFOUND) {
		if (r == FGIT_EAMBIGUOUS) {
			if (!rp->quiet)
				error_last();
		} else if (*why == FGIT_REVPARSE_PEEL_ERROR) {
			error_last();
		} else if (*why != FGIT_REVPARSE_PATH_ERROR && *why != FGIT_REVPARSE_BAD) {
			die_last();
		}
	}
	return r;
}

static void verify_filename(struct rp *rp, const char *arg, int why, const char *msg)
{
	struct stat st;
	char *path;

	if (why == FGIT_REVPARSE_PATH_ERROR)
		die("%s", msg);
	if (arg[0] == '-')
		die("option '%s' must come before non-option arguments", arg);
	if (!fgit_repo_work_tree(rp->repo))
		goto ambiguous;
	path = cli_prefix_path(fgit_repo_prefix(rp->repo), arg);
	if (lstat(path, &st) == 0) {
		free(path);
		return;
	}
	free(path);
ambiguous:
	die("ambiguous argument '%s': unknown revision or path not in the working tree.\n"
	    "Use '--' to separate paths from revisions, like this:\n"
	    "'git <command> [<revision>...] -- [<file>...]'", arg);
}

static void show_file(struct rp *rp, const char *arg)
{
	if (rp->show_flags)
		puts(arg);
}

/* "A..B" (either side may be empty: HEAD); 1 if handled. */
static int try_difference(struct rp *rp, const char *arg)
{
	const char *dotdot = strstr(arg, "..");
	char *a, *b;
	struct fgit_oid oa, ob;
	int why, ok;

	if (!dotdot)
		return 0;
	if (dotdot[2] == '.')
		die_unimplemented("rev-parse", "A...B");
	a = strndup(arg, (size_t)(dotdot - arg));
	b = strdup(dotdot + 2);
	if (!*a) {
		free(a);
		a = strdup("HEAD");
	}
	if (!*b) {
		free(b);
		b = strdup("HEAD");
	}
	ok = !lookup(rp, &oa, a, &why) && !lookup(rp, &ob, b, &why);
	if (ok) {
		show_rev(rp, SHOW_NORMAL, &ob, b);
		show_rev(rp, SHOW_REVERSED, &oa, a);
	}
	fgit_error_clear();
	free(a);
	free(b);
	return ok;
}

static void handle_arg(struct rp *rp, const char *arg)
{
	struct fgit_oid oid;
	int why = 0;
	char msg[1024];

	if (rp->as_is) {
		show_file(rp, arg);
		if (rp->as_is < 2)
			verify_filename(rp, arg, 0, NULL);
		return;
	}
	if (try_difference(rp, arg))
		return;
	{
		size_t n = strlen(arg);
		if (n >= 2 && arg[n - 2] == '^' && (arg[n - 1] == '!' || arg[n - 1] == '@'))
			die_unimplemented("rev-parse", arg);
	}
	{
		const char *name = arg;
		enum show_type type = SHOW_NORMAL;
		if (arg[0] == '^') {
			name++;
			type = SHOW_REVERSED;
		}
		if (!lookup(rp, &oid, name, &why)) {
			if (rp->verify) {
				rp->revs_count++;
				rp->verify_oid = oid;
				free(rp->verify_name);
				rp->verify_name = strdup(name);
				rp->verify_type = type;
			} else {
				show_rev(rp, type, &oid, name);
			}
			return;
		}
	}
	snprintf(msg, sizeof(msg), "%s", fgit_error_last());
	if (rp->verify)
		die_no_single_rev(rp);
	if (rp->has_dashdash)
		die("bad revision '%s'", arg);
	rp->as_is = 1;
	show_file(rp, arg);
	verify_filename(rp, arg, why, msg);
}

/* Options that change how revisions are shown; 1 if arg was one. */
static int rev_option(struct rp *rp, const char *arg)
{
	const char *v;

	if (!strcmp(arg, "--verify")) {
		rp->verify = 1;
		rp->show_flags = 0;
	} else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
		rp->quiet = 1;
	} else if (!strcmp(arg, "--short") || !strncmp(arg, "--short=", 8)) {
		size_t hexsz = fgit_hash_hexsz(fgit_repo_algo(rp->repo));
		rp->verify = 1;
		rp->show_flags = 0;
		if (arg[7] == '=') {
			unsigned long n = strtoul(arg + 8, NULL, 10);
			if (n < 4)
				n = 4;
			else if (n >= hexsz)
				n = hexsz;
			rp->abbrev = (int)n;
		} else {
			rp->abbrev = fgit_repo_default_abbrev(rp->repo);
		}
	} else if (!strcmp(arg, "--abbrev-ref") || !strncmp(arg, "--abbrev-ref=", 13)) {
		int warn = 1;
		rp->abbrev_ref = 1;
		if (fgit_config_get_bool(&warn, fgit_repo_config(rp->repo),
					 "core.warnambiguousrefs") != 0)
			warn = 1;
		fgit_error_clear();
		rp->abbrev_ref_strict = warn;
		if (arg[12] == '=') {
			v = arg + 13;
			if (!strcmp(v, "strict"))
				rp->abbrev_ref_strict = 1;
			else if (!strcmp(v, "loose"))
				rp->abbrev_ref_strict = 0;
			else
				die("unknown mode for --abbrev-ref: %s", v);
		}
	} else if (!strcmp(arg, "--symbolic")) {
		rp->symbolic = 1;
	} else if (!strcmp(arg, "--symbolic-full-name")) {
		rp->symbolic = 2;
	} else if (!strcmp(arg, "--revs-only")) {
		rp->show_flags = 0;
	} else if (!strcmp(arg, "--no-revs")) {
		rp->show_revs = 0;
	} else if (!strcmp(arg, "--no-flags") || !strcmp(arg, "--flags")) {
		rp->show_flags = arg[2] == 'f';
	} else {
		return 0;
	}
	return 1;
}

struct ref_show {
	struct rp *rp;
	size_t strip;
};

static int show_reference(const char *name, const struct fgit_oid *oid, unsigned int flags,
			  void *payload)
{
	struct ref_show *rs = payload;

	if (flags & FGIT_REF_BROKEN) {
		warning((flags & FGIT_REF_SYMBOLIC) ? "ignoring dangling symref %s" :
			"ignoring broken ref %s", name);
		return 0;
	}
	/* git's per-kind iterators hand out names without their prefix */
	show_rev(rs->rp, SHOW_NORMAL, oid, name + rs->strip);
	return 0;
}

/* --all, --branches, --tags, --remotes; 1 if arg was one. */
static int ref_option(struct rp *rp, const char *arg)
{
	static const struct { const char *opt, *prefix; } kinds[] = {
		{ "--all", "refs/" }, { "--branches", "refs/heads/" },
		{ "--tags", "refs/tags/" }, { "--remotes", "refs/remotes/" },
	};
	struct ref_show rs = { rp, 0 };
	struct fgit_refdb *db;
	size_t i, n;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		n = strlen(kinds[i].opt);
		if (strncmp(arg, kinds[i].opt, n))
			continue;
		if (arg[n] == '=' && i > 0)
			die_unimplemented("rev-parse", arg);
		if (arg[n])
			continue;
		if (fgit_repo_refdb(&db, rp->repo))
			die_last();
		rs.strip = i ? strlen(kinds[i].prefix) : 0;
		if (fgit_refdb_foreach(db, kinds[i].prefix, show_reference, &rs) < 0)
			die_last();
		return 1;
	}
	return 0;
}

/* Options of git's rev-parse fgit does not have yet: refused, not echoed. */
static const char *const not_yet[] = {
	"--git-path", "--resolve-git-dir", "--path-format", "--show-superproject-working-tree",
	"--shared-index-path", "--glob", "--exclude", "--disambiguate", "--since", "--after",
	"--until", "--before", "--bisect", "--sq", "--not", "--keep-dashdash",
	"--stop-at-non-option", "--prefix", "--show-ref-format", "--stdin", NULL
};

CLI_CMD(rev_parse)
{
	struct rp rp;
	const char *def = NULL;
	int i;

	if (argc > 1 && (!strcmp(argv[1], "--parseopt") || !strcmp(argv[1], "--sq-quote") ||
			 !strcmp(argv[1], "--local-env-vars")))
		die_unimplemented("rev-parse", argv[1]);
	memset(&rp, 0, sizeof(rp));
	rp.show_revs = rp.show_flags = 1;
	rp.repo = cli_repo();
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			rp.has_dashdash = 1;
			break;
		}

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (rp.as_is == 2 || arg[0] != '-') {
			handle_arg(&rp, arg);
			continue;
		}
		if (!strcmp(arg, "--")) {
			rp.as_is = 2;
			if (rp.show_flags)
				puts(arg);
			continue;
		}
		if (location_option(rp.repo, arg) || rev_option(&rp, arg) || ref_option(&rp, arg))
			continue;
		if (!strcmp(arg, "--show-object-format") || !strncmp(arg, "--show-object-format=", 21)) {
			puts(fgit_repo_algo(rp.repo) == FGIT_HASH_SHA256 ? "sha256" : "sha1");
			continue;
		}
		{
			const char *const *p;
			for (p = not_yet; *p; p++) {
				size_t n = strlen(*p);
				if (!strncmp(arg, *p, n) && (!arg[n] || arg[n] == '='))
					die_unimplemented("rev-parse", *p);
			}
		}
		if (!strcmp(arg, "--default")) {
			if (++i >= argc)
				die("--default requires an argument");
			def = argv[i];
			continue;
		}
		if (!strcmp(arg, "--end-of-options")) {
			handle_arg(&rp, i + 1 < argc ? argv[++i] : "");
			continue;
		}
		/* git passes unknown options through as flags */
		if (rp.show_flags)
			puts(arg);
	}
	if (def && !rp.shown && !rp.revs_count) {
		struct fgit_oid oid;
		int why;
		if (!lookup(&rp, &oid, def, &why)) {
			if (rp.verify) {
				rp.revs_count++;
				rp.verify_oid = oid;
				rp.verify_name = strdup(def);
			} else {
				show_rev(&rp, SHOW_NORMAL, &oid, def);
			}
		}
	}
	if (rp.verify) {
		if (rp.revs_count != 1)
			die_no_single_rev(&rp);
		show_rev(&rp, rp.verify_type, &rp.verify_oid, rp.verify_name);
	}
	free(rp.verify_name);
	return 0;
}
