#!/bin/sh
# small: 100,000 files of 1 KiB of random data in 5,000 directories
# (50 x 100, 20 files each), committed with git so status/add cases can use
# it too (and packed by git gc).  $BENCH_DIR/small/{tree,paths}; tree is the
# repository's worktree.
set -eu
. "$(dirname "$0")/../lib.sh"
OUT=$BENCH_DIR/small
DONE=$OUT/.done
[ -f "$DONE" ] && { cat "$DONE"; exit 0; }
t0=$(now)
rm -rf "$OUT" && mkdir -p "$OUT"
say "small: writing 100,000 files"
python3 "$(dirname "$0")/randfiles.py" "$OUT" 100000 1024 50 100 1
say "small: git add + commit"
git -C "$OUT/tree" init -q -b main
git -C "$OUT/tree" add -A
git -C "$OUT/tree" -c gc.auto=0 commit -q -m "100,000 random 1 KiB files"
git -C "$OUT/tree" gc -q
{
	echo "small: $OUT/tree, 100000 files x 1 KiB, 5000 leaf dirs; list $OUT/paths"
	echo "  commit $(git -C "$OUT/tree" rev-parse HEAD); built in $(elapsed "$t0") s on $(date -u +%F)"
} > "$DONE"
cat "$DONE"
