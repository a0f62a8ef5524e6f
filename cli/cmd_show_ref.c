/*
 * git show-ref: list refs (loose and packed, in git's order) with their
 * ids, filtered by --heads/--tags and tail patterns, or --verify full names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/config.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const show_ref_usage[] = {
	"git show-ref [-q | --quiet] [--verify] [--head] [-d | --dereference]\n"
	"             [-s | --hash[=<n>]] [--abbrev[=<n>]] [--tags]\n"
	"             [--heads] [--] [<pattern>...]",
	"git show-ref --exclude-existing[=<pattern>]",
	NULL
};

struct show {
	struct fgit_repo *repo;
	struct fgit_odb *odb;
	struct fgit_refdb *db;
	int deref, hash_only, abbrev, quiet, heads, tags, show_head;
	const char **patterns;
	int npatterns;
	int found;
};

static int abbrev_arg(const char *arg, int *out)
{
	char *end;
	long v;

	if (!arg) {
		*out = -1;	/* the repository's default, once it is known */
		return 0;
	}
	v = strtol(arg, &end, 10);
	if (!*arg || *end) {
		error("option `abbrev' expects a numerical value");
		return -1;
	}
	*out = v < 4 ? 4 : v > 40 ? 40 : (int)v;
	return 0;
}

static int abbrev_v;
static int hash_v;
static int opt_abbrev(const struct cli_option *opt, const char *arg, int unset)
{
	if (unset) {
		abbrev_v = 0;
		return 0;
	}
	return abbrev_arg(arg, &abbrev_v);
}

static int opt_hash(const struct cli_option *opt, const char *arg, int unset)
{
	hash_v = 1;
	if (arg) {
		char *end;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end) {
			error("option `hash' expects a numerical value");
			return -1;
		}
		abbrev_v = v < 4 ? 4 : v > 40 ? 40 : (int)v;
	}
	return 0;
}

static void print_oid(struct show *s, const struct fgit_oid *oid, const char *name,
		      const char *suffix)
{
	char hex[FGIT_MAX_HEXSZ + 1];

	fgit_oid_to_hex(hex, oid);
	if (s->abbrev) {
		int len = fgit_odb_abbrev_len(s->odb, oid, s->abbrev);
		if (len > 0 && (size_t)len < strlen(hex))
			hex[len] = '\0';
	}
	if (s->hash_only && !suffix)
		printf("%s\n", hex);
	else
		printf("%s %s%s\n", hex, name, suffix ? suffix : "");
}

static void show_one(struct show *s, const char *name, const struct fgit_oid *oid)
{
	struct fgit_object_info info;
	struct fgit_oid peeled;

	if (!fgit_odb_exists(s->odb, oid)) {
		char hex[FGIT_MAX_HEXSZ + 1];
		die("git show-ref: bad ref %s (%s)", name, fgit_oid_to_hex(hex, oid));
	}
	s->found = 1;
	if (s->quiet)
		return;
	print_oid(s, oid, name, NULL);
	if (!s->deref)
		return;
	if (fgit_refdb_peeled(&peeled, s->db, name) != 0) {
		/* peel through the objects */
		if (fgit_odb_read_info(&info, s->odb, oid, FGIT_INFO_TYPE) || info.type != FGIT_OBJ_TAG)
			return;
		peeled = *oid;
		while (1) {
			void *buf;
			size_t len;
			enum fgit_object_type t;
			struct fgit_tag tag;
			if (fgit_odb_read(&buf, &len, &t, s->odb, &peeled))
				die_last();
			if (t != FGIT_OBJ_TAG) {
				free(buf);
				break;
			}
			if (fgit_tag_parse(&tag, buf, len, fgit_odb_algo(s->odb))) {
				free(buf);
				die_last();
			}
			peeled = tag.object;
			free(buf);
		}
	}
	print_oid(s, &peeled, name, "^{}");
}

static int tail_match(struct show *s, const char *name)
{
	size_t reflen = strlen(name);
	int i;

	if (!s->npatterns)
		return 1;
	for (i = 0; i < s->npatterns; i++) {
		size_t len = strlen(s->patterns[i]);
		if (len > reflen || memcmp(s->patterns[i], name + reflen - len, len))
			continue;
		if (len == reflen || name[reflen - len - 1] == '/')
			return 1;
	}
	return 0;
}

static int each_ref(const char *name, const struct fgit_oid *oid, unsigned int flags,
		    void *payload)
{
	struct show *s = payload;

	if ((flags & FGIT_REF_BROKEN) && (flags & FGIT_REF_SYMBOLIC))
		return 0;	/* dangling symrefs are skipped */
	if (s->heads || s->tags) {
		if (!((s->heads && !strncmp(name, "refs/heads/", 11)) ||
		      (s->tags && !strncmp(name, "refs/tags/", 10))))
			return 0;
	}
	if (!tail_match(s, name))
		return 0;
	show_one(s, name, oid);
	return 0;
}

CLI_CMD(show_ref)
{
	struct show s;
	int verify = 0, n, i;
	const char *exclude = NULL;
	struct cli_option opts[] = {
		OPT_BOOL(0, "tags", &s.tags, "only show tags (can be combined with heads)"),
		OPT_BOOL(0, "heads", &s.heads, "only show heads (can be combined with tags)"),
		OPT_BOOL(0, "verify", &verify, "stricter reference checking, requires exact ref path"),
		OPT_BOOL(0, "head", &s.show_head, "show the HEAD reference, even if it would be filtered out"),
		OPT_BOOL('d', "dereference", &s.deref, "dereference tags into object IDs"),
		OPT_CALLBACK_F('s', "hash", NULL, "n",
			       "only show SHA1 hash using <n> digits", CLI_OPT_OPTARG, opt_hash),
		OPT_CALLBACK_F(0, "abbrev", NULL, "n", "use <n> digits to display object names",
			       CLI_OPT_OPTARG, opt_abbrev),
		OPT__QUIET(&s.quiet, "do not print results to stdout (useful with --verify)"),
		OPT_UNIMPLEMENTED(0, "exclude-existing"),
		OPT_END(),
	};
	(void)exclude;
	memset(&s, 0, sizeof(s));
	n = cli_parse_options(argc, argv, "show-ref", opts, show_ref_usage, 0);
	s.hash_only = hash_v;
	s.abbrev = abbrev_v;
	s.patterns = argv;
	s.npatterns = n;
	s.repo = cli_repo();
	if (s.abbrev < 0)
		s.abbrev = fgit_repo_default_abbrev(s.repo);
	if (fgit_repo_odb(&s.odb, s.repo) || fgit_repo_refdb(&s.db, s.repo))
		die_last();

	if (verify) {
		if (!n)
			die("--verify requires a reference");
		for (i = 0; i < n; i++) {
			struct fgit_oid oid;
			const char *p = argv[i];
			int r = 1;
			if (!strncmp(p, "refs/", 5) || !strcmp(p, "HEAD"))
				r = fgit_refdb_resolve(&oid, NULL, NULL, s.db, p);
			if (r == FGIT_ERROR || r == FGIT_ENOMEM)
				die_last();
			if (r == 0) {
				show_one(&s, p, &oid);
			} else {
				fgit_error_clear();
				if (s.quiet)
					return 1;
				die("'%s' - not a valid ref", p);
			}
		}
		return 0;
	}
	if (s.show_head) {
		struct fgit_oid oid;
		if (fgit_refdb_resolve(&oid, NULL, NULL, s.db, "HEAD") == 0)
			show_one(&s, "HEAD", &oid);
		fgit_error_clear();
	}
	if (fgit_refdb_foreach(s.db, "refs/", each_ref, &s) < 0)
		die_last();
	return s.found ? 0 : 1;
}
