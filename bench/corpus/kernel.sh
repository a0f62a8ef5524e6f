#!/bin/sh
# kernel: the Linux 6.1 tree from Debian's linux-source-6.1, committed with git.
#
# Debian's tarball puts `/*` (and a comment) at the end of the top-level
# .gitignore so that nothing in its build tree is tracked; a git user of the
# upstream tree does not have it, so those lines are cut before `git add`.
# Result: $BENCH_DIR/kernel/linux (worktree + .git, one commit on main, packed
# by `git gc` in the foreground, as the commit's automatic gc would have done
# in the background).  Prints what it built.
set -eu
. "$(dirname "$0")/../lib.sh"

TARBALL=/usr/src/linux-source-6.1.tar.xz
OUT=$BENCH_DIR/kernel
DONE=$OUT/.done

if [ -f "$DONE" ]; then
	cat "$DONE"
	exit 0
fi
if [ ! -f "$TARBALL" ]; then
	[ "$(id -u)" = 0 ] || die "$TARBALL missing: apt-get install linux-source-6.1"
	say "installing linux-source-6.1"
	apt-get install -y -q linux-source-6.1 >/dev/null
fi

t0=$(now)
rm -rf "$OUT"
mkdir -p "$OUT"
say "kernel: extracting $TARBALL"
tar -C "$OUT" -xJf "$TARBALL"
mv "$OUT/linux-source-6.1" "$OUT/linux"
cd "$OUT/linux"

# Cut Debian's block: the `/*` rule, the `!/debian/` after it and the
# comment before it.  Checked, so a changed package fails loudly.
grep -qx '/\*' .gitignore || die ".gitignore has no '/*' line: package changed?"
awk '
	{ line[NR] = $0 }
	$0 == "/*" && !cut { cut = NR }
	END {
		n = cut - 1
		while (n > 0 && (line[n] ~ /^#/ || line[n] == "")) n--
		for (i = 1; i <= n; i++) print line[i]
	}' .gitignore > .gitignore.new
mv .gitignore.new .gitignore
! grep -qx '/\*' .gitignore || die "could not cut '/*' from .gitignore"

say "kernel: git add"
git init -q -b main .
git add -A
git -c gc.auto=0 commit -q -m "Linux 6.1 (Debian linux-source-6.1)"
git gc -q
files=$(git ls-files | wc -l)
objects=$(git count-objects -v | awk '/^in-pack:/ { print $2 }')
size=$(du -sh --exclude=.git . | cut -f1)
{
	echo "kernel: $OUT/linux"
	echo "  commit $(git rev-parse HEAD), $files files, $size worktree, $objects objects (packed by git gc)"
	echo "  built in $(elapsed "$t0") s on $(date -u +%F)"
} > "$DONE"
cat "$DONE"
