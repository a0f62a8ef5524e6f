/*
 * git pack-refs for the files backend: with packed-refs.lock held, the
 * loose refs chosen (tags, or everything under refs/ with --all; never
 * symrefs, per-worktree refs or refs to missing objects) are merged into
 * the packed-refs snapshot and the file rewritten, sorted, with git's
 * "peeled fully-peeled sorted" header and a "^<id>" line after each
 * annotated tag.  Then each loose file packed is removed under its own
 * lock, only if it still holds the value packed (git's prune_ref), so a
 * concurrent update is never lost.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/lockfile.h"
#include "fgit/refs.h"
#include "refs_internal.h"

struct pack_item {
	char *name;
	struct fgit_oid oid, peeled;
	int has_peeled;
};

struct pack_ctx {
	struct fgit_refdb *db;
	unsigned int flags;
	fgit_pack_refs_check_cb check;
	void *payload;
	struct pack_item *items;
	size_t nr, alloc;
	int err;
};

static int collect(const char *name, const struct fgit_oid *oid, unsigned int flags,
		   void *payload)
{
	struct pack_ctx *c = payload;
	struct pack_item *it;
	struct fgit_oid peeled;
	int r;

	if (flags & (FGIT_REF_PACKED | FGIT_REF_SYMBOLIC | FGIT_REF_BROKEN))
		return 0;
	if (refs_is_per_worktree(name))
		return 0;
	if (!(c->flags & FGIT_PACK_REFS_ALL) && strncmp(name, "refs/tags/", 10))
		return 0;
	r = c->check ? c->check(&peeled, name, oid, c->payload) : 0;
	if (r < 0)
		return 0;	/* missing object: not packed (the caller reported it) */
	if (c->nr == c->alloc) {
		size_t n = c->alloc ? 2 * c->alloc : 64;
		struct pack_item *p = realloc(c->items, n * sizeof(*p));
		if (!p)
			return c->err = fgit_error_set(FGIT_ENOMEM, "out of memory");
		c->items = p;
		c->alloc = n;
	}
	it = &c->items[c->nr];
	if (!(it->name = strdup(name)))
		return c->err = fgit_error_set(FGIT_ENOMEM, "out of memory");
	it->oid = *oid;
	it->has_peeled = r == 1;
	if (it->has_peeled)
		it->peeled = peeled;
	c->nr++;
	return 0;
}

void refs_packed_write_entry(struct fgit_buf *b, const struct packed_ref *p, size_t hexsz)
{
	fgit_buf_add(b, p->hex, hexsz);
	fgit_buf_addf(b, " %s\n", p->name);
	if (p->has_peeled) {
		fgit_buf_addch(b, '^');
		fgit_buf_add(b, p->peeled_hex, hexsz);
		fgit_buf_addch(b, '\n');
	}
}

static int write_packed(struct fgit_lockfile *lk, struct fgit_refdb *db,
			const struct packed_snapshot *s, const struct pack_item *items, size_t nr,
			fgit_pack_refs_check_cb check, void *payload)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	size_t i = 0, j = 0, hexsz = fgit_hash_hexsz(db->algo);
	char hex[FGIT_MAX_HEXSZ + 1];
	int r;

	fgit_buf_adds(&b, "# pack-refs with: peeled fully-peeled sorted \n");
	/* both lists are sorted: merge, loose values winning */
	while (i < s->nr || j < nr) {
		int c = i >= s->nr ? 1 : j >= nr ? -1 : strcmp(s->refs[i].name, items[j].name);
		if (c < 0) {
			const struct packed_ref *p = &s->refs[i++];
			struct fgit_oid oid, peeled;
			/* an older file that does not know every peeled value:
			 * peel through the objects, as git does */
			if (!refs_packed_knows_peeled(s, p) && check &&
			    !fgit_oid_from_hex(&oid, p->hex, db->algo)) {
				fgit_buf_addf(&b, "%.*s %s\n", (int)hexsz, p->hex, p->name);
				if (check(&peeled, p->name, &oid, payload) == 1)
					fgit_buf_addf(&b, "^%s\n", fgit_oid_to_hex(hex, &peeled));
				continue;
			}
			refs_packed_write_entry(&b, p, hexsz);
			continue;
		}
		if (c == 0)
			i++;
		fgit_buf_addf(&b, "%s %s\n", fgit_oid_to_hex(hex, &items[j].oid), items[j].name);
		if (items[j].has_peeled)
			fgit_buf_addf(&b, "^%s\n", fgit_oid_to_hex(hex, &items[j].peeled));
		j++;
	}
	r = fgit_lockfile_write(lk, b.ptr, b.len);
	fgit_buf_release(&b);
	return r;
}

int fgit_refdb_pack(struct fgit_refdb *db, unsigned int flags, fgit_pack_refs_check_cb check,
		    void *payload)
{
	struct pack_ctx c = { db, flags, check, payload, NULL, 0, 0, 0 };
	struct fgit_lockfile *lk = NULL;
	struct packed_snapshot *s = NULL;
	size_t i;
	int r;

	if ((r = fgit_lockfile_acquire_timeout(&lk, db->packed_path, 0,
						 db->packed_lock_timeout_ms)))
		return r;
	if ((r = refs_packed_get(&s, db)))
		goto out;
	r = fgit_refdb_foreach(db, "refs/", collect, &c);
	if (c.err || r < 0) {
		r = c.err ? c.err : r;
		goto out;
	}
	if ((r = write_packed(lk, db, s, c.items, c.nr, check, payload)))
		goto out;
	r = fgit_lockfile_commit(lk);
	lk = NULL;
	if (r)
		goto out;
	if (flags & FGIT_PACK_REFS_PRUNE)
		for (i = c.nr; i-- > 0;) {
			refs_prune_loose(db, c.items[i].name, &c.items[i].oid);
			fgit_error_clear();	/* git goes on silently */
		}
out:
	if (s)
		refs_packed_put(db, s);
	fgit_lockfile_rollback(lk);
	for (i = 0; i < c.nr; i++)
		free(c.items[i].name);
	free(c.items);
	return r;
}
