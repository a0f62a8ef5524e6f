#!/bin/sh
# big: 2,000 files of 256 KiB of random data in 20 directories (a repository
# with nothing committed).  $BENCH_DIR/big/{tree,paths}.
set -eu
. "$(dirname "$0")/../lib.sh"
OUT=$BENCH_DIR/big
DONE=$OUT/.done
[ -f "$DONE" ] && { cat "$DONE"; exit 0; }
t0=$(now)
rm -rf "$OUT" && mkdir -p "$OUT"
say "big: writing 2,000 files of 256 KiB"
python3 "$(dirname "$0")/randfiles.py" "$OUT" 2000 262144 20 0 2
git -C "$OUT/tree" init -q -b main
echo "big: $OUT/tree, 2000 files x 256 KiB; list $OUT/paths; built in $(elapsed "$t0") s on $(date -u +%F)" > "$DONE"
cat "$DONE"
