#!/usr/bin/env python3
# Print the UNTR extension of an index file in hex (nothing when absent),
# so compat tests can compare the untracked cache git and fgit write.
# The extensions follow the entries; rather than decoding entries of every
# index version, take the last "UNTR" signature whose size fits the file.
import struct, sys

data = open(sys.argv[1], "rb").read()
end = len(data) - 20
pos = data.rfind(b"UNTR", 12, end)
while pos >= 0:
    if pos + 8 <= end:
        size = struct.unpack(">I", data[pos + 4:pos + 8])[0]
        if pos + 8 + size <= end:
            print(data[pos + 8:pos + 8 + size].hex())
            break
    pos = data.rfind(b"UNTR", 12, pos)
