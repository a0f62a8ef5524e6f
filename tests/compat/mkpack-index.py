#!/usr/bin/env python3
"""mkpack-index.py CASE OUT: write a small hand-made pack exercising one kind of
bad (or unusual) input, for the index-pack compat tests.  Everything here is
built from the pack format description (gitformat-pack), not from git."""
import hashlib, struct, sys, zlib

def hdr(t, size):
    b = [(t << 4) | (size & 15)]
    size >>= 4
    while size:
        b[-1] |= 0x80
        b.append(size & 0x7f)
        size >>= 7
    return bytes(b)

def ofs(rel):
    b = [rel & 0x7f]
    rel >>= 7
    while rel:
        rel -= 1
        b.insert(0, 0x80 | (rel & 0x7f))
        rel >>= 7
    return bytes(b)

def varint(n):
    out = []
    while True:
        c = n & 0x7f
        n >>= 7
        out.append(c | (0x80 if n else 0))
        if not n:
            return bytes(out)

def delta(base_len, result_len, ops):
    return varint(base_len) + varint(result_len) + ops

def copy(off, size):
    cmd, args = 0x80, b''
    for i in range(4):
        if off >> (8 * i) & 0xff:
            cmd |= 1 << i
            args += bytes([off >> (8 * i) & 0xff])
    for i in range(3):
        if size >> (8 * i) & 0xff:
            cmd |= 0x10 << i
            args += bytes([size >> (8 * i) & 0xff])
    return bytes([cmd]) + args

def oid(t, data):
    name = {1: b'commit', 2: b'tree', 3: b'blob', 4: b'tag'}[t]
    return hashlib.sha1(name + b' %d\0' % len(data) + data).digest()

def pack(entries, count=None):
    body = b''
    for e in entries:
        body += e
    data = b'PACK' + struct.pack('>II', 2, len(entries) if count is None else count) + body
    return data + hashlib.sha1(data).digest()

def entry(t, data, size=None, extra=b''):
    return hdr(t, len(data) if size is None else size) + extra + zlib.compress(data)

BASE = b''.join(b'line %d of the base blob\n' % i for i in range(200))
B2 = b'another blob\n' * 10

def offsets(entries):
    o, out = 12, []
    for e in entries:
        out.append(o)
        o += len(e)
    return out

def build(case):
    e0 = entry(3, BASE)
    if case == 'ok':
        d = delta(len(BASE), 30, copy(0, 20) + bytes([10]) + b'0123456789')
        e1 = hdr(6, len(d)) + ofs(12 - 12 + 0 + 0 + len(e0)) + zlib.compress(d)
        e2 = hdr(7, len(d)) + oid(3, BASE) + zlib.compress(d)
        return pack([e0, e1, entry(3, B2), e2])
    if case == 'size-larger':          # header says more than the data holds
        return pack([entry(3, BASE, size=len(BASE) + 5)])
    if case == 'size-smaller':
        return pack([entry(3, BASE, size=len(BASE) - 5)])
    if case == 'size-overflow':
        return pack([bytes([0xbf] + [0xff] * 10 + [0x01]) + zlib.compress(BASE)])
    if case == 'bad-type':
        return pack([entry(5, BASE)])
    if case == 'zlib-corrupt':
        e = bytearray(entry(3, BASE))
        e[10] ^= 0xff
        return pack([bytes(e)])
    if case == 'ofs-out-of-bound':
        d = delta(len(BASE), 5, bytes([5]) + b'abcde')
        return pack([e0, hdr(6, len(d)) + ofs(len(e0) + 100) + zlib.compress(d)])
    if case == 'ofs-mid-entry':       # points inside the base entry
        d = delta(len(BASE), 5, bytes([5]) + b'abcde')
        return pack([e0, hdr(6, len(d)) + ofs(len(e0) - 3) + zlib.compress(d)])
    if case == 'missing-base':
        d = delta(len(BASE), 5, bytes([5]) + b'abcde')
        return pack([e0, hdr(7, len(d)) + b'\x12' * 20 + zlib.compress(d)])
    if case == 'delta-outside-base':
        d = delta(len(BASE), 40, copy(len(BASE) - 10, 40))
        return pack([e0, hdr(6, len(d)) + ofs(len(e0)) + zlib.compress(d)])
    if case == 'delta-base-size':
        d = delta(len(BASE) + 1, 5, bytes([5]) + b'abcde')
        return pack([e0, hdr(6, len(d)) + ofs(len(e0)) + zlib.compress(d)])
    if case == 'delta-result-size':
        d = delta(len(BASE), 6, bytes([5]) + b'abcde')
        return pack([e0, hdr(6, len(d)) + ofs(len(e0)) + zlib.compress(d)])
    if case == 'ref-cycle':
        d1 = delta(5, 5, bytes([5]) + b'abcde')
        a = hdr(7, len(d1)) + oid(3, b'abcde') + zlib.compress(d1)
        return pack([e0, a, a])
    if case == 'duplicate':
        return pack([e0, entry(3, B2), e0])
    if case == 'count-too-high':
        return pack([e0], count=3)
    if case == 'huge-count':
        return pack([e0], count=0xffffffff)
    if case == 'empty':
        return pack([])
    if case == 'bad-version':
        p = bytearray(pack([e0]))
        p[7] = 4
        p[-20:] = hashlib.sha1(bytes(p[:-20])).digest()
        return bytes(p)
    if case == 'bad-signature':
        p = bytearray(pack([e0]))
        p[0:4] = b'PACX'
        return bytes(p)
    raise SystemExit('unknown case ' + case)

open(sys.argv[2], 'wb').write(build(sys.argv[1]))
