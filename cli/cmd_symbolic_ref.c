/* git symbolic-ref: read, write (<name> <ref>, -m) or delete (-d) a symbolic ref. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const symref_usage[] = {
	"git symbolic-ref [-m <reason>] <name> <ref>",
	"git symbolic-ref [-q] [--short] [--no-recurse] <name>",
	"git symbolic-ref --delete [-q] <name>",
	NULL
};

CLI_CMD(symbolic_ref)
{
	int quiet = 0, shorten = 0, recurse = 1, del = 0, n;
	const char *msg = NULL;
	struct fgit_repo *repo;
	struct fgit_refdb *db;
	char *target = NULL;
	unsigned int flags = 0;
	int r;
	struct cli_option opts[] = {
		OPT__QUIET(&quiet, "suppress error message for non-symbolic (detached) refs"),
		OPT_BOOL('d', "delete", &del, "delete symbolic ref"),
		OPT_BOOL(0, "short", &shorten, "shorten ref output"),
		OPT_BOOL(0, "recurse", &recurse, "recursively dereference (default)"),
		OPT_STRING('m', NULL, &msg, "reason", "reason of the update"),
		OPT_END(),
	};

	n = cli_parse_options(argc, argv, "symbolic-ref", opts, symref_usage, 0);
	repo = cli_repo();
	if (msg && !*msg)
		die("Refusing to perform update with empty message");
	if (fgit_repo_refdb(&db, repo))
		die_last();
	if (del) {
		if (n != 1)
			cli_usage_with_options(symref_usage, opts, 0);
		r = fgit_refdb_read_raw(NULL, NULL, &flags, db, argv[0]);
		if (r && r != FGIT_ENOTFOUND && r != FGIT_EINVALID)
			die_last();
		if (!(flags & FGIT_REF_SYMBOLIC))
			die("Cannot delete %s, not a symbolic ref", argv[0]);
		if (!strcmp(argv[0], "HEAD"))
			die("deleting '%s' is not allowed", argv[0]);
		if (fgit_refdb_update(db, argv[0], NULL, NULL, FGIT_REF_NO_DEREF, NULL, NULL)) {
			error_last();
			return 1;
		}
		return 0;
	}
	if (n == 2) {
		char *ident;
		if (!strcmp(argv[0], "HEAD") && strncmp(argv[1], "refs/", 5))
			die("Refusing to point HEAD outside of refs/");
		if (fgit_refname_check(argv[1], FGIT_REFNAME_ALLOW_ONELEVEL))
			die("Refusing to set '%s' to invalid ref '%s'", argv[0], argv[1]);
		ident = cli_reflog_ident(fgit_repo_config(repo));
		r = fgit_refdb_symref(db, argv[0], argv[1], msg, ident);
		free(ident);
		if (r) {
			error_last();
			return 1;
		}
		return 0;
	}
	if (n != 1)
		cli_usage_with_options(symref_usage, opts, 0);

	if (recurse) {
		/* follow the chain; the last name counts even if it does not exist */
		r = fgit_refdb_resolve(NULL, &target, &flags, db, argv[0]);
		if (r && r != FGIT_ENOTFOUND)
			die_last();
		if (r == FGIT_ENOTFOUND && !(flags & FGIT_REF_SYMBOLIC)) {
			free(target);
			target = NULL;
		}
	} else {
		r = fgit_refdb_read_raw(NULL, &target, &flags, db, argv[0]);
		if (r && r != FGIT_ENOTFOUND)
			die_last();
	}
	if (!(flags & FGIT_REF_SYMBOLIC)) {
		if (quiet)
			return 1;
		die("ref %s is not a symbolic ref", argv[0]);
	}
	if (shorten) {
		char *s = fgit_refdb_shorten(db, target, 0);
		free(target);
		target = s;
	}
	puts(target);
	free(target);
	return 0;
}
