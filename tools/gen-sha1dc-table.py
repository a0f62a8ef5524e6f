#!/usr/bin/env python3
"""
Generate lib/hash/sha1dc_table.c: the disturbance vectors (DVs) the SHA-1
collision detector checks, their message differences, recompression steps
and unavoidable bit conditions.  Everything here is derived from the
definitions in the papers, by this script:

  - M. Stevens, "Counter-cryptanalysis", CRYPTO 2013: detect a block that
    is one half of a near-collision attack by recompressing it with the
    message difference of each known DV, from an internal state where the
    attack's state difference is zero, and comparing outputs.
  - M. Stevens, D. Shumow, "Speeding up detection of SHA-1 collision
    attacks using unavoidable attack conditions", USENIX Security 2017:
    only recompress for a DV when the message block satisfies the bit
    conditions every attack following that DV must satisfy.
  - S. Manuel, "Classification and generation of disturbance vectors for
    collision attacks against SHA-1" (DCC 2011): the type I and II DV
    families, named I(K,b) and II(K,b).

DV definitions (a DV is an 80-word sequence obeying the message expansion
recurrence, so sixteen consecutive words fix it):
  I(K,b):  DV[K..K+15] = 0 except DV[K+15] = 2^b
  II(K,b): DV[K..K+15] = 0 except DV[K+1] = DV[K+3] = rol(2^b, 31),
           DV[K+15] = 2^b
Check: the XOR difference of the colliding blocks of SHAttered (2017) and of
"SHA-1 is a Shambles" (2020) is exactly dm of II(52,0) below (asserted by
tests/unit/hash/sha1dc.c against tests/data/shattered/).

Message difference: a disturbance in step i at bit b is one 6-step local
collision: W[i] bit b, corrected in W[i+1] bit b+5, W[i+2] bit b,
W[i+3..i+5] bit b+30.  dm is the XOR of all those.

Recompression step testt: the state before step t has no difference when
DV[t-5..t-1] are all zero; we take the largest multiple of 4 in the last such
run (a multiple of 4 so the SHA-extension path can stop its rounds there).

Unavoidable conditions (our derivation, see sha1dc.c's header comment): in
a local collision starting at step i, bit b, the perturbation W[i] bit b, the
rol-5 term of step i+1 and the E term of step i+5 all carry the sign of the
state difference dA[i+1]; the corrections in W must carry the opposite sign.
The sign of an XOR difference in W is fixed by the bit's value in the
message (0 -> +, 1 -> -), so each pair of such W bits gives a relation
W[i] bit x XOR W[j] bit y = v on the message alone.  We use the W bits in
W[WMIN..WMAX] (below), skip bit 31 (its sign is meaningless mod 2^32) and any
W bit where more than one local collision contributes.  Every condition kept
is satisfied by the 22 attack blocks of the test files (11 blocks, both
messages of each pair).  The F terms are left out: in the majority rounds
they would give more relations, but the attack blocks break some of them.
"""
import sys

M = 0xffffffff


def rol(x, n):
    n %= 32
    return ((x << n) | (x >> (32 - n))) & M


def extend(window, k):
    dv = {k + j: window[j] for j in range(16)}
    for i in range(k + 16, 80):
        dv[i] = rol(dv[i - 3] ^ dv[i - 8] ^ dv[i - 14] ^ dv[i - 16], 1)
    for i in range(k + 15, 10, -1):
        dv[i - 16] = rol(dv[i], 31) ^ dv[i - 3] ^ dv[i - 8] ^ dv[i - 14]
    return dv


def make_dv(t, k, b):
    w = [0] * 16
    w[15] = 1 << b
    if t == 2:
        w[1] = w[3] = rol(1 << b, 31)
    return extend(w, k)


LC = ((0, 0, 'P'), (1, 5, 'R'), (2, 0, 'F'), (3, 30, 'F'), (4, 30, 'F'), (5, 30, 'E'))


def message_diff(dv):
    dm = [0] * 80
    for i in range(-5, 80):
        for off, r, _ in LC:
            if 0 <= i + off < 80:
                dm[i + off] ^= rol(dv[i], r)
    return dm


def contributions(dv):
    cnt = {}
    for i in range(-5, 80):
        for b in range(32):
            if dv[i] >> b & 1:
                for off, r, _ in LC:
                    if 0 <= i + off < 80:
                        key = (i + off, (b + r) % 32)
                        cnt[key] = cnt.get(key, 0) + 1
    return cnt


def conditions(dv, wmin, wmax):
    """
    List of (i, x, j, y, v): W[i] bit x ^ W[j] bit y == v, between the W
    bits of one local collision that lie in W[wmin..wmax].
    """
    cnt = contributions(dv)
    out = set()
    for i in range(-5, 80):
        for b in range(32):
            if not dv[i] >> b & 1:
                continue
            terms = []
            for off, r, kind in LC:
                if kind == 'F':
                    continue
                j, y = i + off, (b + r) % 32
                if kind == 'P' and b == 31:
                    continue
                if wmin <= j <= wmax and y != 31 and cnt[(j, y)] == 1:
                    terms.append((j, y, kind))
            for t in terms[1:]:
                v = 1 if (terms[0][2] == 'P') != (t[2] == 'P') else 0
                out.add((terms[0][0], terms[0][1], t[0], t[1], v))
    return sorted(out)


def last_zero_run(dv):
    ts = [t for t in range(20, 81) if all(dv[k] == 0 for k in range(t - 5, t))]
    hi = max(ts)
    lo = hi
    while lo - 1 in ts:
        lo -= 1
    return lo, hi


# Message words the conditions may read.  Before step 20 attack paths are
# non-linear (the SHAttered and Shambles blocks break the rules at step 19);
# the attack must follow the DV's local collisions until the state
# difference vanishes before testt and, by the USENIX paper's analysis
# (conditions on steps 35-65), on to about step 65; after that the last
# local collisions are cut short by the end of the compression and their
# signs are free (the attack blocks break the rules at steps 73-78).
WMIN, WMAX = 20, 65

# The 32 DVs of the USENIX 2017 detector (16 of each type).
DVS = [(1, k, b) for k, b in [(43, 0), (44, 0), (45, 0), (46, 0), (46, 2), (47, 0),
                              (47, 2), (48, 0), (48, 2), (49, 0), (49, 2), (50, 0),
                              (50, 2), (51, 0), (51, 2), (52, 0)]] + \
      [(2, k, b) for k, b in [(45, 0), (46, 0), (46, 2), (47, 0), (48, 0), (49, 0),
                              (49, 2), (50, 0), (50, 2), (51, 0), (51, 2), (52, 0),
                              (53, 0), (54, 0), (55, 0), (56, 0)]]


def main():
    rows = []
    groups = {}
    conds = []
    for n, (t, k, b) in enumerate(DVS):
        dv = make_dv(t, k, b)
        lo, hi = last_zero_run(dv)
        testt = hi - hi % 4
        assert testt >= lo
        dm = message_diff(dv)
        rows.append((t, k, b, testt, dm))
        per = {}
        for (i, x, j, y, v) in conditions(dv, WMIN, WMAX):
            r = (x - y) % 32
            g = groups.setdefault((i, j, r), len(groups))
            m0, m1 = per.get(g, (0, 0))
            if v:
                m1 |= 1 << x
            else:
                m0 |= 1 << x
            per[g] = (m0, m1)
        for g, (m0, m1) in sorted(per.items()):
            conds.append((g, n, m0, m1))
    conds.sort()
    outdir = sys.argv[1] if len(sys.argv) > 1 else "lib/hash"
    with open(outdir + "/sha1dc_table.h", "w") as h:
        h.write("/* Generated by tools/gen-sha1dc-table.py; do not edit. */\n")
        h.write("#define FGIT_SHA1DC_NGROUPS %d\n#define FGIT_SHA1DC_NCONDS %d\n"
                % (len(groups), len(conds)))
        h.write("/* Highest W index the conditions read. */\n"
                "#define FGIT_SHA1DC_MAXW %d\n" % max(max(i, j) for (i, j, r) in groups))
    o = open(outdir + "/sha1dc_table.c", "w")
    o.write("/* Generated by tools/gen-sha1dc-table.py; do not edit. */\n")
    o.write('#include "hash/sha1dc.h"\n\n')
    o.write("const struct fgit_sha1dc_dv fgit_sha1dc_dvs[FGIT_SHA1DC_NDV] = {\n")
    for (t, k, b, testt, dm) in rows:
        o.write("\t{ %d, %d, %d, %d, {" % (t, k, b, testt))
        for i in range(80):
            if i % 6 == 0:
                o.write("\n\t\t")
            o.write("0x%08x," % dm[i] + (" " if i % 6 != 5 and i != 79 else ""))
        o.write("\n\t} },\n")
    o.write("};\n\n")
    o.write("const struct fgit_sha1dc_group fgit_sha1dc_groups[FGIT_SHA1DC_NGROUPS] = {\n")
    for (i, j, r), g in sorted(groups.items(), key=lambda kv: kv[1]):
        o.write("\t{ %d, %d, %d },\n" % (i, j, r))
    o.write("};\n\n")
    o.write("const struct fgit_sha1dc_cond fgit_sha1dc_conds[FGIT_SHA1DC_NCONDS] = {\n")
    for (g, n, m0, m1) in conds:
        o.write("\t{ %d, %d, 0x%08x, 0x%08x },\n" % (g, n, m0, m1))
    o.write("};\n")
    o.close()
    write_checks(outdir, groups, conds)
    sys.stderr.write("testt: %s\n" % sorted(set(r[3] for r in rows)))


def write_checks(outdir, groups, conds):
    """
    Straight-line bodies of the check, so the compiler sees constants
    (rotation counts, masks) instead of table lookups:
      sha1dc_ubc_scalar.inc: uses uint32_t W[80], sets uint32_t mask.
      sha1dc_ubc_avx512.inc: uses __m512i W[80] and __mmask16 lanes,
                             sets __mmask16 alive[32].
      sha1dc_ubc_avx2.inc:   uses __m256i W[80] and unsigned lanes (8 bits),
                             sets unsigned alive[32].
    """
    order = sorted(groups.items(), key=lambda kv: kv[1])
    per_dv = {}
    for (g, n, m0, m1) in conds:
        per_dv.setdefault(n, []).append((g, m0, m1))
    hdr = "/* Generated by tools/gen-sha1dc-table.py; do not edit. */\n"
    with open(outdir + "/sha1dc_ubc_scalar.inc", "w") as o:
        o.write(hdr)
        for (i, j, r), g in order:
            rot = "W[%d]" % j if r == 0 else "ROL(W[%d], %d)" % (j, r)
            o.write("const uint32_t T%d = W[%d] ^ %s;\n" % (g, i, rot))
        for n in sorted(per_dv):
            terms = []
            for (g, m0, m1) in per_dv[n]:
                if m0:
                    terms.append("(T%d & 0x%08xu)" % (g, m0))
                if m1:
                    terms.append("(~T%d & 0x%08xu)" % (g, m1))
            o.write("mask |= (uint32_t)!(%s) << %d;\n" % (" |\n\t".join(terms), n))
    with open(outdir + "/x86/sha1dc_ubc_avx512.inc", "w") as o:
        o.write(hdr)
        for (i, j, r), g in order:
            rot = "W[%d]" % j if r == 0 else "_mm512_rol_epi32(W[%d], %d)" % (j, r)
            o.write("const __m512i T%d = _mm512_xor_si512(W[%d], %s);\n" % (g, i, rot))
        for n in sorted(per_dv):
            o.write("{\n\t__m512i bad = _mm512_setzero_si512();\n")
            for (g, m0, m1) in per_dv[n]:
                if m0:
                    o.write("\tbad = _mm512_ternarylogic_epi32(bad, T%d, "
                            "_mm512_set1_epi32((int)0x%08xu), 0xf8);\n" % (g, m0))
                if m1:
                    o.write("\tbad = _mm512_ternarylogic_epi32(bad, T%d, "
                            "_mm512_set1_epi32((int)0x%08xu), 0xf2);\n" % (g, m1))
            o.write("\talive[%d] = _mm512_mask_testn_epi32_mask(lanes, bad, bad);\n}\n" % n)
    # AVX2: 8 lanes, no ternary logic or rotate instructions.
    with open(outdir + "/x86/sha1dc_ubc_avx2.inc", "w") as o:
        o.write(hdr)
        for (i, j, r), g in order:
            rot = "W[%d]" % j if r == 0 else "ROL256(W[%d], %d)" % (j, r)
            o.write("const __m256i T%d = _mm256_xor_si256(W[%d], %s);\n" % (g, i, rot))
        for n in sorted(per_dv):
            o.write("{\n\t__m256i bad = _mm256_setzero_si256();\n")
            for (g, m0, m1) in per_dv[n]:
                if m0:
                    o.write("\tbad = _mm256_or_si256(bad, _mm256_and_si256(T%d, "
                            "_mm256_set1_epi32((int)0x%08xu)));\n" % (g, m0))
                if m1:
                    o.write("\tbad = _mm256_or_si256(bad, _mm256_andnot_si256(T%d, "
                            "_mm256_set1_epi32((int)0x%08xu)));\n" % (g, m1))
            o.write("\talive[%d] = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps("
                    "_mm256_cmpeq_epi32(bad, _mm256_setzero_si256()))) & lanes;\n}\n" % n)


if __name__ == '__main__':
    main()
