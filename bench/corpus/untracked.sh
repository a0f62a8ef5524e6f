#!/bin/sh
# untracked: the small corpus checked out again (a --shared clone, so the
# small corpus itself is never touched) plus 10,000 untracked files and a
# committed .gitignore of 200 patterns, for status's untracked walk:
#   - 5,000 files in 50 new directories u00..u49 (100 each);
#   - 5,000 files, one in each tracked leaf directory;
#   - 200 patterns: literal names, "*.ext" suffixes, "prefix*", directory-only
#     and anchored patterns and a few wildcards; 2 of them match: "*.o" (the
#     500 "x.o" files in u00..u04) and "/u4[5-9]/" (500 files in 5 directories).
# $BENCH_DIR/untracked/tree; .git/index-uc is a copy of the index with the
# untracked cache filled by git (core.untrackedCache=true).
set -eu
. "$(dirname "$0")/../lib.sh"
OUT=$BENCH_DIR/untracked
DONE=$OUT/.done
[ -f "$DONE" ] && { cat "$DONE"; exit 0; }
sh "$(dirname "$0")/small.sh" >/dev/null
t0=$(now)
rm -rf "$OUT" && mkdir -p "$OUT"
say "untracked: cloning the small corpus (100,000 files)"
git clone -q --shared "$BENCH_DIR/small/tree" "$OUT/tree"
cd "$OUT/tree"
python3 - <<'PY'
import os
pats = []
for i in range(40): pats.append("never-%03d.log" % i)
for i in range(40): pats.append("*.ext%03d" % i)
for i in range(30): pats.append("tmp%03d*" % i)
for i in range(30): pats.append("builddir%03d/" % i)
for i in range(30): pats.append("/top%03d" % i)
for i in range(28): pats.append("cache[0-9]%02d?.bak" % i)
pats += ["*.o", "/u4[5-9]/"]
assert len(pats) == 200
open(".gitignore", "w").write("\n".join(pats) + "\n")
for d in range(50):
    os.makedirs("u%02d" % d, exist_ok=True)
    for f in range(100):
        name = "x%03d.o" % f if d < 5 and f < 100 else "new%03d.txt" % f
        open("u%02d/%s" % (d, name), "w").write("u\n")
n = 0
for a in sorted(os.listdir(".")):
    if not a.startswith("d") or not os.path.isdir(a): continue
    for b in sorted(os.listdir(a)):
        open("%s/%s/untracked.txt" % (a, b), "w").write("u\n")
        n += 1
assert n == 5000, n
PY
git add .gitignore && git -c gc.auto=0 commit -q -m "200 ignore patterns"
git status --porcelain >/dev/null
cp .git/index .git/index-uc
GIT_INDEX_FILE=.git/index-uc git -c core.untrackedCache=true status --porcelain >/dev/null
{
	echo "untracked: $OUT/tree, the small corpus + 10,000 untracked files, 200 ignore patterns"
	echo "  built in $(elapsed "$t0") s on $(date -u +%F)"
} > "$DONE"
cat "$DONE"
