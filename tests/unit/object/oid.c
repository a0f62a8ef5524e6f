#include "unit.h"
#include "fgit/oid.h"
#include "fgit/common.h"

TEST(oid, hex_roundtrip)
{
	struct fgit_oid o;
	char hex[FGIT_MAX_HEXSZ + 1];
	const char *h = "0123456789abcdefABCDEF0123456789abcdef01";
	CHECK(fgit_oid_from_hex(&o, h, FGIT_HASH_SHA1) == 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &o), "0123456789abcdefabcdef0123456789abcdef01"));
}

TEST(oid, hex_rejects_bad_digit)
{
	struct fgit_oid o;
	CHECK(fgit_oid_from_hex(&o, "0123456789abcdefabcdef0123456789abcdefg1", FGIT_HASH_SHA1) < 0);
	CHECK(fgit_oid_from_hex(&o, "0123", FGIT_HASH_SHA1) < 0);
}

TEST(oid, prefix_match)
{
	struct fgit_oid o, p;
	fgit_oid_from_hex(&o, "abcdef0123456789abcdef0123456789abcdef01", FGIT_HASH_SHA1);
	fgit_oid_from_hex_prefix(&p, "abcde", 5, FGIT_HASH_SHA1);
	CHECK(fgit_oid_match_prefix(&o, &p, 5));
	fgit_oid_from_hex_prefix(&p, "abcdf", 5, FGIT_HASH_SHA1);
	CHECK(!fgit_oid_match_prefix(&o, &p, 5));
}
