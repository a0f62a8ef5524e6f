#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/hash.h"
#include "fgit/object.h"

static const char *H1 = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
static const char *H2 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/* git's id for an object (the oracle), via git hash-object --literally. */
static int git_hash(char *hex, const char *type, const void *buf, size_t len)
{
	char cmd[256], path[] = "/tmp/fgit-unit-obj-XXXXXX";
	FILE *f;
	int fd = mkstemp(path), ok;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(path);
		return -1;
	}
	fwrite(buf, 1, len, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "git hash-object --literally -t %s --stdin < %s", type, path);
	f = popen(cmd, "r");
	ok = f && fgets(hex, 64, f);
	if (f)
		pclose(f);
	unlink(path);
	if (!ok)
		return -1;
	hex[40] = 0;
	return 0;
}

static void mkentry(struct fgit_tree_entry *e, unsigned mode, const char *name, const char *hex)
{
	e->mode = mode;
	e->name = name;
	e->name_len = strlen(name);
	fgit_oid_from_hex(&e->oid, hex, FGIT_HASH_SHA1);
}

TEST(tree, serialize_sorts_and_matches_git)
{
	struct fgit_tree_entry e[4], got;
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_tree_iter it;
	struct fgit_oid id;
	char hex[FGIT_MAX_HEXSZ + 1], ghex[64];
	int n = 0, r;

	mkentry(&e[0], FGIT_MODE_TREE, "a", H2);
	mkentry(&e[1], FGIT_MODE_BLOB, "a.c", H1);
	mkentry(&e[2], FGIT_MODE_EXEC, "a-b", H1);
	mkentry(&e[3], FGIT_MODE_LINK, "Z", H1);
	CHECK(fgit_tree_serialize(&b, e, 4) == 0);
	CHECK(fgit_tree_check(b.ptr, b.len, FGIT_HASH_SHA1, FGIT_CHECK_STRICT) == 0);
	fgit_hash_object(&id, FGIT_HASH_SHA1, FGIT_OBJ_TREE, b.ptr, b.len);
	CHECK(git_hash(ghex, "tree", b.ptr, b.len) == 0);
	CHECK_MSG(!strcmp(fgit_oid_to_hex(hex, &id), ghex), "%s vs %s", hex, ghex);
	/* git order: "Z", "a-b", "a.c", "a" (as "a/") */
	fgit_tree_iter_init(&it, b.ptr, b.len, FGIT_HASH_SHA1);
	while ((r = fgit_tree_iter_next(&got, &it)) > 0) {
		static const char *order[] = { "Z", "a-b", "a.c", "a" };
		CHECK(got.name_len == strlen(order[n]) && !memcmp(got.name, order[n], got.name_len));
		n++;
	}
	CHECK(r == 0 && n == 4);
	CHECK(fgit_tree_find(&got, b.ptr, b.len, FGIT_HASH_SHA1, "a.c", 3) == 0 &&
	      got.mode == FGIT_MODE_BLOB);
	CHECK(fgit_tree_find(&got, b.ptr, b.len, FGIT_HASH_SHA1, "nope", 4) == FGIT_ENOTFOUND);
	fgit_buf_release(&b);
}

TEST(tree, truncation_never_overreads)
{
	struct fgit_tree_entry e[2], got;
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_tree_iter it;
	size_t cut;

	mkentry(&e[0], FGIT_MODE_BLOB, "file", H1);
	mkentry(&e[1], FGIT_MODE_TREE, "dir", H2);
	CHECK(fgit_tree_serialize(&b, e, 2) == 0);
	for (cut = 0; cut < b.len; cut++) {
		/* exact-size copy so ASan would catch an overread */
		char *copy = malloc(cut ? cut : 1);
		int r, n = 0;
		memcpy(copy, b.ptr, cut);
		fgit_tree_iter_init(&it, copy, cut, FGIT_HASH_SHA1);
		while ((r = fgit_tree_iter_next(&got, &it)) > 0)
			n++;
		free(copy);
		CHECK(r <= 0);
		CHECK_MSG(r < 0 || cut == 0 || n == 1, "cut %zu r %d n %d", cut, r, n);
	}
	fgit_buf_release(&b);
}

TEST(tree, check_rules)
{
	static const struct { const char *raw; size_t len; const char *msg; } bad[] = {
		{ "100644 b\0AAAAAAAAAAAAAAAAAAAA100644 a\0AAAAAAAAAAAAAAAAAAAA", 58, "treeNotSorted" },
		{ "100644 a\0AAAAAAAAAAAAAAAAAAAA40000 a\0AAAAAAAAAAAAAAAAAAAA", 57, "duplicateEntries" },
		{ "abc a\0AAAAAAAAAAAAAAAAAAAA", 26, "badTree" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(fgit_tree_check(bad[i].raw, bad[i].len, FGIT_HASH_SHA1, 0) == FGIT_EINVALID);
		CHECK_MSG(strstr(fgit_error_last(), bad[i].msg), "%s", fgit_error_last());
	}
	/* warnings only under strict */
	CHECK(fgit_tree_check("100664 a\0AAAAAAAAAAAAAAAAAAAA", 29, FGIT_HASH_SHA1, 0) == 0);
	CHECK(fgit_tree_check("100664 a\0AAAAAAAAAAAAAAAAAAAA", 29, FGIT_HASH_SHA1,
			      FGIT_CHECK_STRICT) == FGIT_EINVALID);
	CHECK(fgit_tree_check("040000 a\0AAAAAAAAAAAAAAAAAAAA", 29, FGIT_HASH_SHA1,
			      FGIT_CHECK_STRICT) == FGIT_EINVALID);
	CHECK(strstr(fgit_error_last(), "zeroPadded"));
	CHECK(fgit_tree_check("100644 .git\0AAAAAAAAAAAAAAAAAAAA", 32, FGIT_HASH_SHA1,
			      FGIT_CHECK_STRICT) == FGIT_EINVALID);
}

static const char commit_text[] =
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
	"parent e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n"
	"parent 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
	"author A U Thor <author@example.com> 1112911993 -0700\n"
	"committer C O Mitter <committer@example.com> 1112912053 -0700\n"
	"encoding ISO-8859-1\n"
	"\n"
	"subject\n\nbody\n";

TEST(commit, parse)
{
	struct fgit_commit c;
	struct fgit_oid p;
	char hex[FGIT_MAX_HEXSZ + 1];
	size_t len = sizeof(commit_text) - 1;

	CHECK(fgit_commit_parse(&c, commit_text, len, FGIT_HASH_SHA1) == 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &c.tree), H2));
	CHECK(c.nparents == 2);
	fgit_commit_parent(&p, &c, 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &p), H1));
	fgit_commit_parent(&p, &c, 1);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &p), H2));
	CHECK(c.author_len == strlen("A U Thor <author@example.com> 1112911993 -0700"));
	CHECK(c.committer_time == 1112912053);
	CHECK(c.encoding_len == 10 && !memcmp(c.encoding, "ISO-8859-1", 10));
	CHECK(!strcmp(commit_text + c.message_offset, "subject\n\nbody\n"));
	CHECK(fgit_commit_check(commit_text, len, FGIT_HASH_SHA1, FGIT_CHECK_STRICT) == 0);
}

TEST(commit, parse_truncations_and_check_errors)
{
	size_t len = sizeof(commit_text) - 1, cut;
	struct fgit_commit c;
	for (cut = 0; cut < len; cut++) {
		char *copy = malloc(cut ? cut : 1);
		memcpy(copy, commit_text, cut);
		fgit_commit_parse(&c, copy, cut, FGIT_HASH_SHA1);
		fgit_commit_check(copy, cut, FGIT_HASH_SHA1, FGIT_CHECK_STRICT);
		free(copy);
	}
	CHECK(fgit_commit_parse(&c, "tree 123\n", 9, FGIT_HASH_SHA1) == FGIT_EINVALID);
	{
		const char *s = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
				"author A <a@b> 01 +0000\ncommitter A <a@b> 1 +0000\n\n";
		CHECK(fgit_commit_check(s, strlen(s), FGIT_HASH_SHA1, 0) == FGIT_EINVALID);
		CHECK(strstr(fgit_error_last(), "zeroPaddedDate"));
	}
	{
		const char *s = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
				"author A <a@b> 1 +0000\n\n";
		CHECK(fgit_commit_check(s, strlen(s), FGIT_HASH_SHA1, 0) == FGIT_EINVALID);
		CHECK(strstr(fgit_error_last(), "missingCommitter"));
	}
}

TEST(commit, serialize_matches_git)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	struct fgit_oid tree, par, id;
	char hex[FGIT_MAX_HEXSZ + 1], ghex[64];
	fgit_oid_from_hex(&tree, H2, FGIT_HASH_SHA1);
	fgit_oid_from_hex(&par, H1, FGIT_HASH_SHA1);
	CHECK(fgit_commit_serialize(&b, &tree, &par, 1, "A <a@b> 1 +0000",
				    "C <c@d> 2 -0130", NULL, "msg\n") == 0);
	CHECK(fgit_commit_check(b.ptr, b.len, FGIT_HASH_SHA1, FGIT_CHECK_STRICT) == 0);
	fgit_hash_object(&id, FGIT_HASH_SHA1, FGIT_OBJ_COMMIT, b.ptr, b.len);
	CHECK(git_hash(ghex, "commit", b.ptr, b.len) == 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &id), ghex));
	fgit_buf_release(&b);
}

TEST(tag, parse_and_check)
{
	const char *s = "object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
			"type tree\ntag v1.0\n"
			"tagger C <c@d> 2 +0000\n\nmessage\n";
	struct fgit_tag t;
	struct fgit_ident id;
	CHECK(fgit_tag_parse(&t, s, strlen(s), FGIT_HASH_SHA1) == 0);
	CHECK(t.type == FGIT_OBJ_TREE);
	CHECK(t.name_len == 4 && !memcmp(t.name, "v1.0", 4));
	CHECK(t.tagger && !strcmp(s + t.message_offset, "message\n"));
	CHECK(fgit_ident_split(&id, t.tagger, t.tagger_len) == 0);
	CHECK(id.name_len == 1 && id.email_len == 3 && id.time == 2 && id.tz == 0);
	CHECK(fgit_tag_check(s, strlen(s), FGIT_HASH_SHA1, FGIT_CHECK_STRICT) == 0);
	CHECK(fgit_tag_parse(&t, s, 50, FGIT_HASH_SHA1) == FGIT_EINVALID);
	{
		const char *u = "object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
				"type blab\ntag v\n\n";
		CHECK(fgit_tag_check(u, strlen(u), FGIT_HASH_SHA1, 0) == FGIT_EINVALID);
		CHECK(strstr(fgit_error_last(), "badType"));
	}
}
