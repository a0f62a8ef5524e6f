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

Unavoidable conditions (sound under a stated model).  A pair "follows the
DV" over steps JMIN..JMAX (35..65, the range of the USENIX paper's
conditions; before it attacks pay for deviations with message
modification, after it the last local collisions are cut short) when:
  (1) the messages differ by dm (XOR);
  (2) state word A[m], m = 31..66, differs modularly by sum(+-2^b) over the
      bits b of DV[m-1] (the local collisions' additive differences);
  (3) bitwise, that difference may take any signed-digit form whose
      nonzero digits each lie at most CARRY (4) bits above a DV bit: carry
      chains up to 4 bits, with merges and cancellations between them
      (SHAttered's A[40] is +2^31 - 2^30 written as +2^30).
Everything else (the other state bits) is free.  Step j is then one
additive equation mod 2^32; F's output difference is modelled exactly per
bit from the digits of its inputs and every value of the other bits
(step_solutions).  The derivation:
  a. prune_forms: drop every form of every word that no solution of some
     step can use given the forms left for the step's other words, until
     nothing changes.  A carry in one word needs a carry in a later one to
     absorb it, and the chain dies where nothing can, so most carried
     forms go (and only forms no pair can have).
  b. step_relations: per step, the +-1 features of its words (signs of the
     modular differences, digits nonzero in every remaining form) and its
     message bits; a pair equal (or opposite) in every solution of the
     step is a relation.  Words' forms are chosen afresh per step, a
     relaxation: a real pair's values are among the solutions.
  c. relations are joined with union-find with parity; each class with
     message bits gives W[i] bit x ^ W[j] bit y = v between them.
Every condition is thus implied by (1)-(3) for every pair, whichever of
its two messages we see (all variables are dm bits, flipped together).
CARRY = 6 and 8 give the same number of conditions per DV as 4; CARRY = 0
(no carries, the model of an earlier version) gives a handful more, which
carried pairs do violate: the test data sha1dc_ubc_nocarry.inc keeps them
so tests/unit/hash/sha1dc_ubc.c can show its pair builder catches that.
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


def fround(j):
    return 'xor' if j < 40 or j >= 60 else 'maj'

def fdiff_set(kind, inputs):
    """
    inputs: list of 3 entries, each None (no difference) or +1/-1 (the
    bit goes 0->1 / 1->0).  Returns the set of F(after) - F(before) over
    every value of the inputs without a difference.
    """
    out = set()
    free = [n for n in range(3) if inputs[n] is None]
    for m in range(1 << len(free)):
        bef, aft = [0, 0, 0], [0, 0, 0]
        for n in range(3):
            if inputs[n] is None:
                bef[n] = aft[n] = (m >> free.index(n)) & 1
            else:
                bef[n] = 0 if inputs[n] > 0 else 1
                aft[n] = 1 - bef[n]
        if kind == 'xor':
            f = lambda x: x[0] ^ x[1] ^ x[2]
        else:
            f = lambda x: (x[0] & x[1]) | (x[0] & x[2]) | (x[1] & x[2])
        out.add(f(aft) - f(bef))
    return out

# Carry model: a DV bit's difference may spread into a carry chain.
CARRY = 4


def digit_reps(D, allowed):
    """
    Every signed-digit representation (digits -1/0/+1, bit 0 first) of D
    mod 2^32 whose nonzero digits lie in `allowed`, as tuples of
    (position, digit).  A digit's parity must match the remainder's, so
    only odd remainders branch.
    """
    out = []
    def go(k, R, acc):
        if k == 32:
            out.append(tuple(acc))
            return
        if R % 2 == 0:
            go(k + 1, R // 2, acc)
            return
        if k not in allowed:
            return
        for d in (1, -1):
            go(k + 1, (R - d) // 2, acc + [(k, d)])
    go(0, D, [])
    return out


def word_forms(bits, carry):
    """
    The differences a state word with the DV bits `bits` may have, as a
    list of (signs, digits): every sign vector of the modular difference
    sum(+-2^b) and every bitwise form of it (signed digits) whose nonzero
    digits each lie at most `carry` bits above one of the DV bits (carry
    chains bounded; merges and cancellations as they come).
    """
    pos = [b for b in range(32) if bits >> b & 1]
    allowed = set()
    for b in pos:
        allowed.update(range(b, min(b + carry, 31) + 1))
    out = []
    for m in range(1 << len(pos)):
        signs = tuple(1 if m >> n & 1 else -1 for n in range(len(pos)))
        D = sum(s << b for s, b in zip(signs, pos)) % (1 << 32)
        for digits in digit_reps(D, allowed):
            out.append((signs, digits))
    return out


_FDIFF = {}
_STEPS = {}


def step_solutions(doms, dmj, kind):
    """
    Step j computes A[j+1] = rol5(A[j]) + F(A[j-1], rol30(A[j-2]),
    rol30(A[j-3])) + rol30(A[j-4]) + K + W[j].  doms: the forms still
    allowed for A[j-4..j+1] (word_forms entries).  Returns every
    (input forms, output signs, W signs) for which the step's difference
    equation holds mod 2^32 for some difference of F per bit (exact over
    every value of the bits without a difference) and any other bits; W
    signs: one per bit of dm[j], + iff the message bit is 0.  A[j+1]
    enters by its modular difference only.
    """
    key = (doms, dmj, kind)
    if key in _STEPS:
        return _STEPS[key]
    M32 = (1 << 32) - 1
    outsigns = sorted({f[0] for f in doms[5]})
    wbits = [b for b in range(32) if dmj >> b & 1]
    rhs = {}
    for signs in outsigns:
        V0 = sum(s << b for s, b in zip(signs, _bits_of(doms[5])))
        for m in range(1 << len(wbits)):
            ws = tuple(1 if m >> n & 1 else -1 for n in range(len(wbits)))
            V = (V0 - sum(s << b for s, b in zip(ws, wbits))) & M32
            rhs.setdefault(V, []).append((signs, ws))
    sols = []

    def rot(digits, r):
        return [((p + r) % 32, d) for p, d in digits]

    def go(i, chosen):
        if i < 5:
            for f in doms[i]:
                go(i + 1, chosen + [f])
            return
        e, d3, c2, b1, a0 = [f[1] for f in chosen]
        base = 0
        for p, d in rot(a0, 5) + rot(e, 30):
            base += d << p
        fin = {}
        for n, digits in enumerate((b1, rot(c2, 30), rot(d3, 30))):
            for p, d in digits:
                fin.setdefault(p, [None, None, None])[n] = d
        sums = {base & M32}
        for p, inp in fin.items():
            k = (kind, tuple(inp))
            if k not in _FDIFF:
                _FDIFF[k] = fdiff_set(kind, inp)
            sums = {(x + (d << p)) & M32 for x in sums for d in _FDIFF[k]}
        for X in sums:
            for signs, ws in rhs.get(X, ()):
                sols.append((tuple(chosen), signs, ws))
    go(0, [])
    _STEPS[key] = sols
    return sols


_BITS_BY_DOM = {}


def _bits_of(dom):
    """The DV bit positions of a word (its forms' signs pair up with them)."""
    return _BITS_BY_DOM[dom]


def prune_forms(dv, dm, jmin, jmax, carry):
    """
    The forms each state word A[jmin-4..jmax+1] can take in a pair that
    follows the DV over steps jmin..jmax: start from every form
    (word_forms) and drop any form no solution of some step uses, given the
    forms still allowed for the step's other words, until nothing changes
    (generalised arc consistency).  Only forms no pair can have are
    dropped.  A carry in one word usually forces one in a later word
    (through F or the rotations) and the chain dies where nothing can
    absorb it, so most carried forms go.
    """
    doms = {}
    for m in range(jmin - 4, jmax + 2):
        d = tuple(word_forms(dv[m - 1], carry))
        _BITS_BY_DOM[d] = [b for b in range(32) if dv[m - 1] >> b & 1]
        doms[m] = d
    changed = True
    while changed:
        changed = False
        for j in range(jmin, jmax + 1):
            ws = [doms[m] for m in range(j - 4, j + 2)]
            sols = step_solutions(tuple(ws), dm[j], fround(j))
            assert sols, "DV cannot be followed at step %d" % j
            used = [set() for _ in range(6)]
            outs = set()
            for forms, signs, _ in sols:
                for n in range(5):
                    used[n].add(forms[n])
                outs.add(signs)
            used[5] = {f for f in ws[5] if f[0] in outs}
            for n in range(6):
                if len(used[n]) < len(ws[n]):
                    nd = tuple(f for f in ws[n] if f in used[n])
                    _BITS_BY_DOM[nd] = _BITS_BY_DOM[ws[n]]
                    doms[j - 4 + n] = nd
                    changed = True
    return doms


def word_features(m, dom):
    """
    The +-1 quantities of state word A[m] the relations are about, each a
    function of the pair's actual difference in that word (so shared by
    every step that reads the word): the sign of the modular difference at
    each DV bit below 31 (2^31 = -2^31 has none), and the digit at each
    position that is nonzero in every form still allowed (the bit goes
    0->1 or 1->0 there whatever the carries).  Returns (names, values):
    values[form] = tuple of the features.
    """
    pos = _bits_of(dom)
    always = [p for p in range(32)
              if all(any(q == p for q, _ in f[1]) for f in dom)]
    names = [('s', m, b) for b in pos if b < 31] + [('d', m, p) for p in always]
    vals = {}
    for f in dom:
        dd = dict(f[1])
        vals[f] = tuple(s for s, b in zip(f[0], pos) if b < 31) + \
            tuple(dd[p] for p in always)
    return names, vals


def step_relations(doms, dm, j):
    """
    Pairs of step j's variables (the features of A[j-4..j+1], then the
    bits of W[j] at dm[j]) that are equal (+1) or opposite (-1) in every
    solution of the step.  Each word's form is chosen afresh per step
    here (within its pruned set): a relaxation, so every relation found
    holds for every pair that follows the DV.
    """
    ws = tuple(doms[m] for m in range(j - 4, j + 2))
    sols = step_solutions(ws, dm[j], fround(j))
    feats = [word_features(j - 4 + n, ws[n]) for n in range(6)]
    outfeat = {}
    for f in ws[5]:
        outfeat.setdefault(f[0], set()).add(feats[5][1][f])
    vs = [v for n in range(6) for v in feats[n][0]]
    vs += [('w', j, b) for b in range(32) if dm[j] >> b & 1]
    P = set()
    for forms, signs, wsg in sols:
        sig = tuple(x for n in range(5) for x in feats[n][1][forms[n]])
        for of in outfeat[signs]:
            P.add(sig + of + wsg)
    rels = []
    for a in range(len(vs)):
        for b in range(a + 1, len(vs)):
            prods = {p[a] * p[b] for p in P}
            if len(prods) == 1:
                rels.append((vs[a], vs[b], prods.pop()))
    return rels


def conditions_exact(dv, dm, jmin, jmax, known, carry):
    doms = prune_forms(dv, dm, jmin, jmax, carry)
    par = {}
    def find(x):
        if x not in par:
            par[x] = (x, 1)
        p, s = par[x]
        if p == x:
            return x, 1
        r, s2 = find(p)
        par[x] = (r, s * s2)
        return r, s * s2
    for j in range(jmin, jmax + 1):
        for x, y, s in step_relations(doms, dm, j):
            rx, px = find(x)
            ry, py = find(y)
            if rx == ry:
                assert px * py == s, "contradiction at step %d" % j
            else:
                par[rx] = (ry, px * py * s)
    comps = {}
    for x in list(par):
        if x[0] == 'w':
            r, p = find(x)
            comps.setdefault(r, []).append((x, p))
    # Any spanning tree of a class gives the same conditions; prefer pairs
    # whose word T = W[i] ^ rol(W[j], r) other DVs already read (fewer
    # words for the vectorised check to compute).
    out = set()
    for r, lst in comps.items():
        lst.sort()
        edges = []
        for a in range(len(lst)):
            for b in range(a + 1, len(lst)):
                (_, i, xb), pa = lst[a]
                (_, j, yb), pb = lst[b]
                key = (i, j, (xb - yb) % 32)
                edges.append((key not in known, j - i, key, a, b))
        edges.sort()
        comp = list(range(len(lst)))
        def root(n):
            while comp[n] != n:
                n = comp[n]
            return n
        for _, _, key, a, b in edges:
            ra, rb = root(a), root(b)
            if ra == rb:
                continue
            comp[ra] = rb
            known.add(key)
            (_, i, xb), pa = lst[a]
            (_, j, yb), pb = lst[b]
            # w = +1 <=> W bit 0, so equal signs <=> equal bits
            out.add((i, xb, j, yb, 0 if pa * pb == 1 else 1))
    return sorted(out)


def last_zero_run(dv):
    ts = [t for t in range(20, 81) if all(dv[k] == 0 for k in range(t - 5, t))]
    hi = max(ts)
    lo = hi
    while lo - 1 in ts:
        lo -= 1
    return lo, hi


JMIN, JMAX = 35, 65

# The 32 DVs of the USENIX 2017 detector (16 of each type).
DVS = [(1, k, b) for k, b in [(43, 0), (44, 0), (45, 0), (46, 0), (46, 2), (47, 0),
                              (47, 2), (48, 0), (48, 2), (49, 0), (49, 2), (50, 0),
                              (50, 2), (51, 0), (51, 2), (52, 0)]] + \
      [(2, k, b) for k, b in [(45, 0), (46, 0), (46, 2), (47, 0), (48, 0), (49, 0),
                              (49, 2), (50, 0), (50, 2), (51, 0), (51, 2), (52, 0),
                              (53, 0), (54, 0), (55, 0), (56, 0)]]


def table(carry, rows=None):
    """
    (groups, conds) for every DV under the carry bound `carry`; fills rows
    (type, K, b, testt, dm) when given.
    """
    groups = {}
    conds = []
    known = set()
    for n, (t, k, b) in enumerate(DVS):
        dv = make_dv(t, k, b)
        lo, hi = last_zero_run(dv)
        testt = hi - hi % 4
        assert testt >= lo
        dm = message_diff(dv)
        if rows is not None:
            rows.append((t, k, b, testt, dm))
        per = {}
        for (i, x, j, y, v) in conditions_exact(dv, dm, JMIN, JMAX, known, carry):
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
    return groups, conds


def main():
    rows = []
    groups, conds = table(CARRY, rows)
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
    # Tests only: the same conditions without carries (CARRY = 0), which
    # carried pairs do violate; tests/unit/hash/sha1dc_ubc.c shows its pair
    # builder finds such violations, so it would catch an unsafe table.
    if len(sys.argv) > 2:
        g0, c0 = table(0)
        write_scalar(sys.argv[2] + "/sha1dc_ubc_nocarry.inc", g0, c0)
    sys.stderr.write("testt: %s\n" % sorted(set(r[3] for r in rows)))


def write_scalar(path, groups, conds):
    """Uses uint32_t W[80], sets uint32_t mask."""
    order = sorted(groups.items(), key=lambda kv: kv[1])
    per_dv = {}
    for (g, n, m0, m1) in conds:
        per_dv.setdefault(n, []).append((g, m0, m1))
    with open(path, "w") as o:
        o.write("/* Generated by tools/gen-sha1dc-table.py; do not edit. */\n")
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


VEC_TERMS = 7


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
    write_scalar(outdir + "/sha1dc_ubc_scalar.inc", groups, conds)
    # AVX-512 in two phases: each DV's VEC_TERMS strongest terms (most
    # bits) over 16 lanes, then the rest of its conditions in scalar code
    # for the (lane, DV) pairs still alive, which are few: most blocks fail
    # every DV within a handful of terms, and all 372 terms in vector form
    # cost ~27 TSC ticks per block (sha1bench ticks) against SHA-NI's ~70.
    def terms(n):
        out = []
        for (g, m0, m1) in per_dv[n]:
            if m0:
                out.append((bin(m0).count("1"), g, m0, 0))
            if m1:
                out.append((bin(m1).count("1"), g, 0, m1))
        out.sort(key=lambda t: (-t[0], t[1]))
        return out[:VEC_TERMS], out[VEC_TERMS:]
    vec_groups = sorted({t[1] for n in per_dv for t in terms(n)[0]})
    with open(outdir + "/x86/sha1dc_ubc_avx512.inc", "w") as o:
        o.write(hdr)
        for (i, j, r), g in order:
            if g not in vec_groups:
                continue
            rot = "W[%d]" % j if r == 0 else "_mm512_rol_epi32(W[%d], %d)" % (j, r)
            o.write("const __m512i T%d = _mm512_xor_si512(W[%d], %s);\n" % (g, i, rot))
        for n in sorted(per_dv):
            o.write("{\n\t__m512i bad = _mm512_setzero_si512();\n")
            for (_, g, m0, m1) in terms(n)[0]:
                if m0:
                    o.write("\tbad = _mm512_ternarylogic_epi32(bad, T%d, "
                            "_mm512_set1_epi32((int)0x%08xu), 0xf8);\n" % (g, m0))
                if m1:
                    o.write("\tbad = _mm512_ternarylogic_epi32(bad, T%d, "
                            "_mm512_set1_epi32((int)0x%08xu), 0xf2);\n" % (g, m1))
            o.write("\talive[%d] = _mm512_mask_testn_epi32_mask(lanes, bad, bad);\n}\n" % n)
        o.write("/* The rest, lane by lane: WLANE(i, l) is W[i] of lane l. */\n")
        for n in sorted(per_dv):
            rest = terms(n)[1]
            if not rest:
                continue
            o.write("for (unsigned a = alive[%d]; a; a &= a - 1) {\n"
                    "\tconst unsigned l = (unsigned)__builtin_ctz(a);\n\tif (" % n)
            parts = []
            for (_, g, m0, m1) in rest:
                i, j, r = [k for k, v in groups.items() if v == g][0]
                t = "(WLANE(%d, l) ^ %s)" % (i, "WLANE(%d, l)" % j if r == 0
                                             else "ROL32(WLANE(%d, l), %d)" % (j, r))
                if m0:
                    parts.append("(%s & 0x%08xu)" % (t, m0))
                if m1:
                    parts.append("(~%s & 0x%08xu)" % (t, m1))
            o.write(" |\n\t    ".join(parts))
            o.write(")\n\t\talive[%d] &= (__mmask16)~(1u << l);\n}\n" % n)
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
