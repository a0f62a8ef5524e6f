#!/bin/sh
# file256m: one file of 268435456 bytes of random data, in a repository with
# nothing committed.  $BENCH_DIR/file256m/tree/d00/f000000.
set -eu
. "$(dirname "$0")/../lib.sh"
OUT=$BENCH_DIR/file256m
DONE=$OUT/.done
[ -f "$DONE" ] && { cat "$DONE"; exit 0; }
t0=$(now)
rm -rf "$OUT" && mkdir -p "$OUT"
say "file256m: writing one file of 268435456 bytes"
python3 "$(dirname "$0")/randfiles.py" "$OUT" 1 268435456 1 0 3
git -C "$OUT/tree" init -q -b main
echo "file256m: $OUT/tree/d00/f000000, 268435456 bytes; built in $(elapsed "$t0") s on $(date -u +%F)" > "$DONE"
cat "$DONE"
