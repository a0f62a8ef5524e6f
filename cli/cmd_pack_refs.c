/* git pack-refs: [--all] [--no-prune]; the work is fgit_refdb_pack(). */
#include <stdlib.h>
#include "cli.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

static const char *const pack_refs_usage[] = {
	"git pack-refs [--all] [--no-prune]",
	NULL
};

/* Is oid there, and what does it peel to (tags followed to a non-tag)? */
static int check_object(struct fgit_oid *peeled, const char *name, const struct fgit_oid *oid,
			void *payload)
{
	struct fgit_odb *odb = payload;
	struct fgit_oid cur = *oid;
	int depth, tagged = 0;

	for (depth = 0; depth < 100; depth++) {
		enum fgit_object_type type;
		struct fgit_tag tag;
		size_t size;
		void *buf;

		if (fgit_odb_read(&buf, &size, &type, odb, &cur)) {
			fgit_error_clear();
			if (!tagged) {
				error("%s does not point to a valid object!", name);
				return -1;
			}
			return 0;	/* a tag to a missing object: packed, not peeled */
		}
		if (type != FGIT_OBJ_TAG || fgit_tag_parse(&tag, buf, size, oid->algo)) {
			free(buf);
			fgit_error_clear();
			if (tagged)
				*peeled = cur;
			return tagged;
		}
		cur = tag.object;
		tagged = 1;
		free(buf);
	}
	return 0;
}

CLI_CMD(pack_refs)
{
	int all = 0, prune = 1, r;
	struct fgit_repo *repo;
	struct fgit_refdb *db;
	struct fgit_odb *odb;
	struct cli_option opts[] = {
		OPT_BOOL(0, "all", &all, "pack everything"),
		OPT_BOOL(0, "prune", &prune, "prune loose refs (default)"),
		OPT_END(),
	};

	if (cli_parse_options(argc, argv, "pack-refs", opts, pack_refs_usage, 0))
		cli_usage_with_options(pack_refs_usage, opts, 0);
	repo = cli_repo();
	if (fgit_repo_refdb(&db, repo) || fgit_repo_odb(&odb, repo))
		die_last();
	r = fgit_refdb_pack(db, (all ? FGIT_PACK_REFS_ALL : 0) | (prune ? FGIT_PACK_REFS_PRUNE : 0),
			    check_object, odb);
	if (r == FGIT_ELOCKED)
		die_last();
	if (r)
		die("unable to write new packed-refs: %s", fgit_error_last());
	return 0;
}
