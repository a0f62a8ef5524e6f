/* Object ids: hex conversion and helpers. */
#include "fgit/common.h"
#include "fgit/oid.h"

size_t fgit_hash_rawsz(int algo)
{
	switch (algo) {
	case FGIT_HASH_SHA1: return FGIT_SHA1_RAWSZ;
	case FGIT_HASH_SHA256: return 32;
	default: return 0;
	}
}

static const signed char hexval_table[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int fgit_hexval(int c)
{
	return hexval_table[(unsigned char)c] - 1;
}

int fgit_oid_from_hex_prefix(struct fgit_oid *out, const char *hex, size_t n, int algo)
{
	size_t raw = fgit_hash_rawsz(algo), i;
	struct fgit_oid o;

	if (!raw || n > 2 * raw)
		return FGIT_EINVALID;
	memset(&o, 0, sizeof(o));
	o.algo = algo;
	for (i = 0; i < n; i++) {
		int v = fgit_hexval(hex[i]);
		if (v < 0)
			return FGIT_EINVALID;
		o.hash[i / 2] |= (unsigned char)(i & 1 ? v : v << 4);
	}
	*out = o;
	return 0;
}

int fgit_oid_from_hex(struct fgit_oid *out, const char *hex, int algo)
{
	return fgit_oid_from_hex_prefix(out, hex, fgit_hash_hexsz(algo), algo);
}

char *fgit_oid_to_hex(char *out, const struct fgit_oid *oid)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = fgit_hash_rawsz(oid->algo ? oid->algo : FGIT_HASH_SHA1), i;
	for (i = 0; i < n; i++) {
		out[2 * i] = digits[oid->hash[i] >> 4];
		out[2 * i + 1] = digits[oid->hash[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}

int fgit_oid_is_zero(const struct fgit_oid *oid)
{
	size_t i;
	for (i = 0; i < FGIT_MAX_RAWSZ; i++)
		if (oid->hash[i])
			return 0;
	return 1;
}

void fgit_oid_zero(struct fgit_oid *out, int algo)
{
	memset(out, 0, sizeof(*out));
	out->algo = algo;
}

int fgit_oid_match_prefix(const struct fgit_oid *oid, const struct fgit_oid *prefix, size_t n)
{
	size_t full = n / 2;
	if (memcmp(oid->hash, prefix->hash, full))
		return 0;
	if (n & 1)
		return (oid->hash[full] & 0xf0) == (prefix->hash[full] & 0xf0);
	return 1;
}
