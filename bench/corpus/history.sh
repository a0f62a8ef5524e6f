#!/bin/sh
# history: the kernel corpus plus HISTORY_COMMITS generated commits
# (corpus/history-gen.py, fixed seed and parameters), fast-imported, then
# packed by `git repack -adf --window=10 --depth=50` into one pack.
# Result: $BENCH_DIR/history/history.git (bare).  Prints what it built,
# including the object count.  Takes long on 2 cores: run it early, niced.
set -eu
. "$(dirname "$0")/../lib.sh"

HISTORY_COMMITS=32000       # ~13.3 objects each on top of the kernel's 83,016
HISTORY_VERSION=1           # bump when history-gen.py's parameters change
OUT=$BENCH_DIR/history
REPO=$OUT/history.git
DONE=$OUT/.done-v$HISTORY_VERSION
GEN=$(cd "$(dirname "$0")" && pwd)/history-gen.py

if [ -f "$DONE" ]; then
	cat "$DONE"
	exit 0
fi
sh "$(dirname "$0")/kernel.sh" >/dev/null
KERNEL=$BENCH_DIR/kernel/linux

t0=$(now)
rm -rf "$OUT"
mkdir -p "$OUT"
git clone -q --bare "$KERNEL" "$REPO"
base=$(git -C "$REPO" rev-parse main)

say "history: generating $HISTORY_COMMITS commits on $base"
t1=$(now)
python3 "$GEN" "$KERNEL" "$base" "$HISTORY_COMMITS" |
	git -C "$REPO" fast-import --quiet
t_import=$(elapsed "$t1")

say "history: git repack -adf --window=10 --depth=50"
t1=$(now)
git -C "$REPO" repack -q -adf --window=10 --depth=50
t_repack=$(elapsed "$t1")
git -C "$REPO" prune-packed
rm -f "$REPO"/objects/pack/tmp_*

objects=$(git -C "$REPO" count-objects -v | awk '/^in-pack:/ { print $2 }')
loose=$(git -C "$REPO" count-objects -v | awk '/^count:/ { print $2 }')
commits=$(git -C "$REPO" rev-list --count --all)
pack=$(du -sh "$REPO"/objects/pack/*.pack | cut -f1)
[ "$objects" -ge 500000 ] || say "history: WARNING: only $objects objects (< 500,000)"
{
	echo "history: $REPO"
	echo "  $objects objects in one pack ($pack), $loose loose; $commits commits;" \
		"main $(git -C "$REPO" rev-parse main)"
	echo "  fast-import ${t_import} s, repack ${t_repack} s, total $(elapsed "$t0") s" \
		"on $(date -u +%F)"
} > "$DONE"
cat "$DONE"
