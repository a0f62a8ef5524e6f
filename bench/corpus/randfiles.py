#!/usr/bin/env python3
"""Write COUNT files of SIZE bytes of seeded random data under OUT/tree.

Usage: randfiles.py OUT COUNT SIZE TOP SUB SEED
Files go to tree/dTT/dSSS/fNNNNNN (TOP x SUB leaf directories, files dealt
round-robin so every directory gets the same share); with SUB = 0 there is
one level, tree/dTT/fNNNNNN.  OUT/paths lists every file's absolute path, one
a line, in creation order (the input for hash-object --stdin-paths).
The same SEED gives the same bytes on every machine (random.Random is
Mersenne Twister, fixed across Python versions), so every figure is on the
same data.
"""
import os
import random
import sys


def main():
    out, count, size, top, sub, seed = sys.argv[1], *map(int, sys.argv[2:])
    rng = random.Random(seed)
    tree = os.path.join(os.path.abspath(out), "tree")
    leaves = []
    for t in range(top):
        if sub == 0:
            leaves.append(os.path.join(tree, "d%02d" % t))
        for s in range(sub):
            leaves.append(os.path.join(tree, "d%02d" % t, "d%03d" % s))
    for d in leaves:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(out, "paths"), "w") as paths:
        for i in range(count):
            p = os.path.join(leaves[i % len(leaves)], "f%06d" % i)
            with open(p, "wb") as f:
                left = size
                while left:
                    n = min(left, 1 << 20)
                    f.write(rng.randbytes(n))
                    left -= n
            paths.write(p + "\n")


if __name__ == "__main__":
    main()
