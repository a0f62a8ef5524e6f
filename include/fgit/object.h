/*
 * Git objects: types, names, parsing and serialization with git's strict
 * validation rules.  Parsers never read past the buffer they are given.
 */
#ifndef FGIT_OBJECT_H
#define FGIT_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

enum fgit_object_type {
	FGIT_OBJ_BAD = -1,
	FGIT_OBJ_NONE = 0,
	FGIT_OBJ_COMMIT = 1,
	FGIT_OBJ_TREE = 2,
	FGIT_OBJ_BLOB = 3,
	FGIT_OBJ_TAG = 4,
	/* 5 is reserved */
	FGIT_OBJ_OFS_DELTA = 6,
	FGIT_OBJ_REF_DELTA = 7,
};

/* "commit", "tree", "blob", "tag" (or NULL for others). */
const char *fgit_object_type_name(enum fgit_object_type t);
/* Inverse of the above over len bytes; FGIT_OBJ_BAD if unknown. */
enum fgit_object_type fgit_object_type_from_name(const char *s, size_t len);

#endif
