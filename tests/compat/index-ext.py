#!/usr/bin/env python3
# Print the extensions of an index file, one per line: signature, size and
# payload in hex (only those named on the command line after the file, when
# any), so compat tests can compare what git and fgit record, e.g. the
# cache tree (TREE) after a commit, without the stat data of the entries.
# The entries are decoded (versions 2, 3 and 4) to find where they end.
import struct, sys

data = open(sys.argv[1], "rb").read()
want = set(a.encode() for a in sys.argv[2:])
sig, version, count = struct.unpack(">4sII", data[:12])
if sig != b"DIRC" or version not in (2, 3, 4):
    sys.exit("not an index file")
pos = 12
for _ in range(count):
    flags = struct.unpack(">H", data[pos + 60:pos + 62])[0]
    head = 62 + (2 if flags & 0x4000 else 0)
    if version == 4:
        p = pos + head
        while data[p] & 0x80:
            p += 1
        pos = data.index(b"\0", p + 1) + 1
    else:
        nul = data.index(b"\0", pos + head)
        pos += (nul - pos + 8) & ~7
end = len(data) - 20
while pos + 8 <= end:
    sig, size = struct.unpack(">4sI", data[pos:pos + 8])
    if not want or sig in want:
        print(sig.decode("latin-1"), size, data[pos + 8:pos + 8 + size].hex())
    pos += 8 + size
