#!/bin/sh
# commit and the cache tree (the index's TREE extension) against git: after
# commit -a, a commit of what is staged and two commits in a row, the
# extensions of fgit's index must be git's byte for byte (the entries' stat
# data differ between the two copies, so they are not compared); commit ids,
# status and fsck as well.  The first index has no TREE at all (as after
# git reset into a fresh index), the others one that the changes invalidate
# in part.
EXT="python3 $(cd "$(dirname "$0")" && pwd)/index-ext.py"
. "$(dirname "$0")/lib.sh"

make_files()
{
	for d in a a/x a/y b b/z c; do
		mkdir -p $d && for f in 1 2 3; do echo "$d $f" >$d/f$f; done
	done && echo top >top && ln -s top link && chmod +x b/f1
}

# a committed tree, its index rebuilt without a cache tree
setup_notree()
{
	git init -q . && make_files && git add . && git commit -q -m base &&
	rm .git/index && git reset -q && ! $EXT .git/index TREE | grep -q . &&
	echo changed >a/x/f1
}
# a full cache tree, then changes here and there
setup_tree()
{
	git init -q . && make_files && git add . && git commit -q -m base &&
	$EXT .git/index TREE | grep -q . &&
	echo changed >a/y/f2 && echo more >>top && rm b/z/f3 && rm -r c && chmod -x b/f1
}
# one change staged (its directories invalidated), one not
setup_staged()
{
	setup_tree && git add a/y/f2 && echo new >a/new && git add a/new
}

same_ext()
{
	$EXT "$TRASH/w.git/.git/index" >"$CMP/g.ext" && $EXT "$TRASH/w/.git/index" >"$CMP/f.ext" &&
	grep -q '^TREE ' "$CMP/g.ext" &&
	{ cmp -s "$CMP/g.ext" "$CMP/f.ext" || { echo "index extensions differ after: $*";
		diff "$CMP/g.ext" "$CMP/f.ext" | cut -c1-160 | head; return 1; }; } &&
	test "$(git -C "$TRASH/w.git" rev-parse HEAD)" = "$(git -C "$TRASH/w" rev-parse HEAD)" &&
	git -C "$TRASH/w.git" status --porcelain >"$CMP/g.st" && git -C "$TRASH/w" status --porcelain >"$CMP/f.st" &&
	cmp "$CMP/g.st" "$CMP/f.st" && fsck_ok "$TRASH/w"
}

check()
{
	compare_write "$@" && cmp "$CMP/git.err" "$CMP/fgit.err" && same_ext "$@"
}

test_expect_success 'commit -a into an index without a cache tree' '
	check setup_notree commit -q -a -m one && check setup_notree commit -a -m one'
test_expect_success 'commit -a with a cache tree: changes, removals, a directory gone' '
	check setup_tree commit -q -a -m two'
test_expect_success 'commit of what is staged keeps the rest of the cache tree' '
	check setup_staged commit -q -m three'

# two commits in a row: the second one starts from the cache tree the first wrote
twice()
{
	rm -rf "$TRASH/$2" && mkdir "$TRASH/$2" && (cd "$TRASH/$2" && setup_notree >/dev/null 2>&1 &&
	"$1" commit -q -a -m one && echo again >a/x/f2 && echo b >>b/z/f1 && rm top &&
	"$1" commit -q -a -m two)
}
test_expect_success 'commit -a twice: the second reuses what the first recorded' '
	twice git w.git && twice "$FGIT" w && same_ext twice'

test_done
