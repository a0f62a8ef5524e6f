#!/usr/bin/env python3
"""Emit a git fast-import stream: a generated history for object-database
benchmarks (fixed seed, so every run builds the same objects).

usage: gen-history.py [files] [commits] | git fast-import
"""
import random, sys

files = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
commits = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
rnd = random.Random(1234)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
         "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho"]

def line():
    return " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 12))) + "\n"

content = {}
for i in range(files):
    d = "dir%02d/sub%d" % (i % 40, i % 7)
    content["%s/file%05d.txt" % (d, i)] = [line() for _ in range(rnd.randint(5, 120))]

out = sys.stdout.buffer
def data(b):
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")

paths = sorted(content)
for c in range(commits):
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer Bench <bench@example.com> %d +0000\n" % (1600000000 + c * 60))
    data(b"commit %d\n" % c)
    if c == 0:
        touched = paths
    else:
        touched = rnd.sample(paths, rnd.randint(1, 5))
    for p in touched:
        lines = content[p]
        if c:
            for _ in range(rnd.randint(1, 4)):
                op = rnd.random()
                k = rnd.randrange(len(lines) + 1)
                if op < 0.4 or not lines:
                    lines.insert(k, line())
                elif op < 0.7:
                    del lines[min(k, len(lines) - 1)]
                else:
                    lines[min(k, len(lines) - 1)] = line()
        out.write(b"M 100644 inline %s\n" % p.encode())
        data("".join(lines).encode())
    out.write(b"\n")
