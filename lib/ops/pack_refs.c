/*
 * git pack-refs over a repository (include/fgit/reflog.h): fgit_refdb_pack()
 * with the objects looked up in the repository's odb, tags peeled to
 * their final non-tag object, for the CLI and for gc.
 */
#include <stdlib.h>
#include "fgit/common.h"
#include "fgit/object.h"
#include "fgit/odb.h"
#include "fgit/reflog.h"
#include "fgit/refs.h"
#include "fgit/repo.h"

struct peel_ctx {
	struct fgit_odb *odb;
	void (*missing)(const char *name, void *payload);
	void *payload;
};

/* Is oid there, and what does it peel to (tags followed to a non-tag)? */
static int peel(struct fgit_oid *peeled, const char *name, const struct fgit_oid *oid,
		void *payload)
{
	struct peel_ctx *c = payload;
	struct fgit_oid cur = *oid;
	int depth, tagged = 0;

	for (depth = 0; depth < 100; depth++) {
		enum fgit_object_type type;
		struct fgit_tag tag;
		size_t size;
		void *buf;

		if (fgit_odb_read(&buf, &size, &type, c->odb, &cur)) {
			fgit_error_clear();
			if (!tagged) {
				if (c->missing)
					c->missing(name, c->payload);
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

int fgit_repo_pack_refs(struct fgit_repo *repo, unsigned int flags,
			void (*missing)(const char *name, void *payload), void *payload)
{
	struct peel_ctx c = { NULL, missing, payload };
	struct fgit_refdb *db;
	int r;

	if ((r = fgit_repo_refdb(&db, repo)) || (r = fgit_repo_odb(&c.odb, repo)))
		return r;
	return fgit_refdb_pack(db, flags, peel, &c);
}
