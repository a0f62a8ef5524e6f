#!/bin/sh
# file1g: one file of 1073741824 bytes of random data, in a repository with
# nothing committed.  $BENCH_DIR/file1g/tree/d00/f000000.
set -eu
. "$(dirname "$0")/../lib.sh"
OUT=$BENCH_DIR/file1g
DONE=$OUT/.done
[ -f "$DONE" ] && { cat "$DONE"; exit 0; }
t0=$(now)
rm -rf "$OUT" && mkdir -p "$OUT"
say "file1g: writing one file of 1073741824 bytes"
python3 "$(dirname "$0")/randfiles.py" "$OUT" 1 1073741824 1 0 4
git -C "$OUT/tree" init -q -b main
echo "file1g: $OUT/tree/d00/f000000, 1073741824 bytes; built in $(elapsed "$t0") s on $(date -u +%F)" > "$DONE"
cat "$DONE"
