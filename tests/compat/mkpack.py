#!/usr/bin/env python3
"""Write a hand-made (possibly hostile) pack + .idx v2 for the corruption tests.

usage: mkpack.py <case> <objects/pack dir>
Prints the ids of interesting objects, one per line.
"""
import hashlib, struct, sys, zlib

def hdr(t, size):
    c = (t << 4) | (size & 15)
    size >>= 4
    out = []
    while size:
        out.append(c | 0x80)
        c = size & 0x7f
        size >>= 7
    out.append(c)
    return bytes(out)

def varint(n):
    out = []
    while True:
        c = n & 0x7f
        n >>= 7
        if n:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)

def ofs(n):
    """OFS_DELTA's base distance encoding (gitformat-pack "offset encoding")."""
    out = [n & 0x7f]
    n >>= 7
    while n:
        n -= 1
        out.insert(0, 0x80 | (n & 0x7f))
        n >>= 7
    return bytes(out)

def oid(t, data):
    return hashlib.sha1(b"%s %d\0" % (t, len(data)) + data).digest()

def write(entries, outdir):
    """entries: list of (name20, type, declared_size, payload, refbase20 or None)"""
    body = b"PACK" + struct.pack(">II", 2, len(entries))
    recs = []
    for name, t, size, payload, base in entries:
        off = len(body)
        raw = hdr(t, size) + (base or b"") + zlib.compress(payload)
        body += raw
        recs.append((name, zlib.crc32(raw) & 0xffffffff, off))
    packsum = hashlib.sha1(body).digest()
    body += packsum
    recs.sort()
    idx = b"\377tOc" + struct.pack(">I", 2)
    fan = [0] * 256
    for name, _, _ in recs:
        fan[name[0]] += 1
    total = 0
    for i in range(256):
        total += fan[i]
        idx += struct.pack(">I", total)
    idx += b"".join(r[0] for r in recs)
    idx += b"".join(struct.pack(">I", r[1]) for r in recs)
    idx += b"".join(struct.pack(">I", r[2]) for r in recs)
    idx += packsum
    idx += hashlib.sha1(idx).digest()
    name = packsum.hex()
    open("%s/pack-%s.pack" % (outdir, name), "wb").write(body)
    open("%s/pack-%s.idx" % (outdir, name), "wb").write(idx)

case, outdir = sys.argv[1], sys.argv[2]
base = b"hello world\n" * 10
bid = oid(b"blob", base)
fake = hashlib.sha1(case.encode()).digest()
if case == "delta-outside-base":
    delta = varint(len(base)) + varint(100) + bytes([0x80 | 0x01 | 0x10, 0xff, 100])
    write([(bid, 3, len(base), base, None), (fake, 7, len(delta), delta, bid)], outdir)
elif case == "delta-bad-base-size":
    delta = varint(len(base) + 5) + varint(5) + bytes([5]) + b"abcde"
    write([(bid, 3, len(base), base, None), (fake, 7, len(delta), delta, bid)], outdir)
elif case == "huge-size":
    write([(fake, 3, 1 << 60, b"tiny", None)], outdir)
elif case == "huge-delta-result":
    delta = varint(len(base)) + varint(1 << 50) + bytes([0x80 | 0x10, 10])
    write([(bid, 3, len(base), base, None), (fake, 7, len(delta), delta, bid)], outdir)
elif case == "delta-cycle":
    a = hashlib.sha1(b"a").digest()
    b = hashlib.sha1(b"b").digest()
    d = varint(3) + varint(3) + bytes([3]) + b"abc"
    write([(a, 7, len(d), d, b), (b, 7, len(d), d, a)], outdir)
    fake = a
elif case in ("ofs-before-start", "ofs-mid-object"):
    # OFS_DELTA right after the base, its base offset pointing before the
    # pack's first byte, or into the middle of the base's zlib data
    d = varint(len(base)) + varint(3) + bytes([3]) + b"abc"
    off = 12 + len(hdr(3, len(base))) + len(zlib.compress(base))
    rel = off + 100 if case == "ofs-before-start" else off - 12 - 3
    write([(bid, 3, len(base), base, None), (fake, 6, len(d), d, ofs(rel))], outdir)
elif case == "delta-missing-base":
    d = varint(3) + varint(3) + bytes([3]) + b"abc"
    write([(fake, 7, len(d), d, hashlib.sha1(b"nowhere").digest())], outdir)
elif case == "size-larger-than-data":
    write([(fake, 3, len(base) + 50, base, None)], outdir)
elif case == "delta-truncated-insert":
    delta = varint(len(base)) + varint(20) + bytes([20]) + b"short"
    write([(bid, 3, len(base), base, None), (fake, 7, len(delta), delta, bid)], outdir)
elif case == "bad-type":
    write([(fake, 5, len(base), base, None)], outdir)
print(fake.hex())
