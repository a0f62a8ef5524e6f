#!/bin/sh
# kernel-grep: the kernel corpus plus one commit on top, for `grep <pat> HEAD~1`
# (issue 5: "a tree-ish one commit back with changes").  A bare repository
# sharing the kernel corpus' objects (objects/info/alternates), whose main
# is a commit that edits 200 .c files (a line appended to each) on top of
# the kernel commit: HEAD~1 is the kernel tree, HEAD the changed one.  The
# kernel corpus itself is not touched.
set -eu
. "$(dirname "$0")/../lib.sh"

OUT=$BENCH_DIR/kernel-grep
DONE=$OUT/.done
if [ -f "$DONE" ]; then
	cat "$DONE"
	exit 0
fi
sh "$(dirname "$0")/kernel.sh" >/dev/null
SRC=$BENCH_DIR/kernel/linux
rm -rf "$OUT"
mkdir -p "$OUT"
git clone -q --bare --shared "$SRC" "$OUT/linux.git"
cd "$OUT/linux.git"
export GIT_INDEX_FILE="$OUT/index.tmp"
git read-tree HEAD
git ls-files -- '*.c' | awk 'NR % 150 == 1' | head -200 | while read -r f; do
	blob=$( { git cat-file blob ":$f"; echo "/* fgit bench: changed INITRAMFS_ROOT_UID */"; } |
		git hash-object -w --stdin)
	git update-index --cacheinfo "100644,$blob,$f"
done
tree=$(git write-tree)
commit=$(echo "bench: 200 files changed" | git commit-tree "$tree" -p HEAD)
git update-ref refs/heads/main "$commit"
rm -f "$GIT_INDEX_FILE"
{
	echo "kernel-grep: $OUT/linux.git (alternates to $SRC)"
	echo "  HEAD $(git rev-parse HEAD), HEAD~1 $(git rev-parse HEAD~1)"
} > "$DONE"
cat "$DONE"
