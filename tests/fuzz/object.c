/*
 * Fuzz target (libFuzzer): every object parser and checker on arbitrary
 * bytes.  The input is copied to an exact-size buffer so ASan sees any read
 * past its end.  `make fuzz` builds it; `make fuzz-run` runs it a while.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct fgit_tree_iter it;
	struct fgit_tree_entry e;
	struct fgit_commit c;
	struct fgit_tag t;
	struct fgit_ident id;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	fgit_tree_iter_init(&it, buf, size, FGIT_HASH_SHA1);
	while (fgit_tree_iter_next(&e, &it) > 0)
		;
	fgit_tree_check(buf, size, FGIT_HASH_SHA1, 0);
	fgit_tree_check(buf, size, FGIT_HASH_SHA1, FGIT_CHECK_STRICT);
	fgit_tree_find(&e, buf, size, FGIT_HASH_SHA1, "a", 1);
	if (fgit_commit_parse(&c, buf, size, FGIT_HASH_SHA1) == 0) {
		size_t i;
		struct fgit_oid p;
		for (i = 0; i < c.nparents; i++)
			fgit_commit_parent(&p, &c, i);
		if (c.author)
			fgit_ident_split(&id, c.author, c.author_len);
	}
	fgit_commit_check(buf, size, FGIT_HASH_SHA1, FGIT_CHECK_STRICT);
	if (fgit_tag_parse(&t, buf, size, FGIT_HASH_SHA1) == 0 && t.tagger)
		fgit_ident_split(&id, t.tagger, t.tagger_len);
	fgit_tag_check(buf, size, FGIT_HASH_SHA1, FGIT_CHECK_STRICT);
	fgit_ident_split(&id, buf, size);
	free(buf);
	return 0;
}
