#include "unit.h"
#include "fgit/hash.h"
#include "fgit/oidmap.h"

struct ent {
	struct fgit_oid oid;
	int value;
};

TEST(oidmap, put_get_replace)
{
	static struct ent e[5000], dup;
	struct fgit_oidmap m = FGIT_OIDMAP_INIT;
	int i, err;

	for (i = 0; i < 5000; i++) {
		fgit_hash_object(&e[i].oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, &i, sizeof(i));
		e[i].value = i;
		CHECK(fgit_oidmap_put(&m, &e[i], &err) == NULL && !err);
	}
	CHECK(m.count == 5000);
	for (i = 0; i < 5000; i++) {
		struct ent *f = fgit_oidmap_get(&m, &e[i].oid);
		CHECK(f && f->value == i);
	}
	dup = e[17];
	dup.value = -1;
	CHECK(fgit_oidmap_put(&m, &dup, &err) == &e[17]);
	CHECK(((struct ent *)fgit_oidmap_get(&m, &e[17].oid))->value == -1);
	CHECK(m.count == 5000);
	i = 99999;
	fgit_hash_object(&dup.oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, &i, sizeof(i));
	CHECK(fgit_oidmap_get(&m, &dup.oid) == NULL);
	fgit_oidmap_release(&m);
}
