/* Object type names. */
#include <string.h>
#include "fgit/object.h"

static const char *const names[] = {
	[FGIT_OBJ_COMMIT] = "commit",
	[FGIT_OBJ_TREE] = "tree",
	[FGIT_OBJ_BLOB] = "blob",
	[FGIT_OBJ_TAG] = "tag",
	[FGIT_OBJ_OFS_DELTA] = "OFS_DELTA",
	[FGIT_OBJ_REF_DELTA] = "REF_DELTA",
};

const char *fgit_object_type_name(enum fgit_object_type t)
{
	if (t < 0 || t >= (int)(sizeof(names) / sizeof(names[0])))
		return NULL;
	return names[t];
}

enum fgit_object_type fgit_object_type_from_name(const char *s, size_t len)
{
	int t;
	for (t = FGIT_OBJ_COMMIT; t <= FGIT_OBJ_TAG; t++)
		if (strlen(names[t]) == len && !memcmp(names[t], s, len))
			return t;
	return FGIT_OBJ_BAD;
}
