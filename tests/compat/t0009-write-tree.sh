#!/bin/sh
# write-tree against git: nested trees, --prefix, --missing-ok, unmerged
# and missing entries, cache-tree reuse after index changes.
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d/e f && echo a >a && echo b >d/b && echo c >d/e/c &&
	echo x >f/x && printf y >"$(printf 'sp ace')" && ln -s a link && chmod +x d/b &&
	git add . && git update-index --add --cacheinfo 160000,$(git hash-object a),sub
}

test_expect_success 'write-tree of a fresh index (no cache tree)' '
	compare_write setup_repo write-tree && fsck_ok "$TRASH/w" &&
	(cd w && test "$(git write-tree)" = "$(cat "$CMP/git.out")")'
test_expect_success 'write-tree --prefix' '
	compare_write setup_repo write-tree --prefix=d/ && compare_write setup_repo write-tree --prefix=d/e &&
	compare_write setup_repo write-tree --prefix=nope/'

setup_changed()
{
	setup_repo && git write-tree >/dev/null && echo new >d/e/c && echo n >f/new &&
	git add d/e/c f/new && git rm -q --cached a
}
test_expect_success 'write-tree reuses only valid cache-tree nodes' '
	compare_write setup_changed write-tree && fsck_ok "$TRASH/w" &&
	(cd w && git update-index --add --cacheinfo 100644,$(git hash-object --stdin -w </dev/null),d/z &&
	 "$FGIT" write-tree >../f2 && git write-tree >../g2 && cmp ../f2 ../g2 && git status --porcelain >/dev/null)'

setup_missing()
{
	setup_repo && git update-index --add --cacheinfo 100644,1111111111111111111111111111111111111111,d/missing
}
test_expect_success 'write-tree with a missing object' '
	compare_write setup_missing write-tree && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write setup_missing write-tree --missing-ok'

# git checks a directory's subdirectories before its own files: d/a is
# missing too, but git names d/e/missing; f/ holds 40 files, one missing
# among them, so several lookups run ahead of each other.
setup_missing2()
{
	setup_repo && git update-index --add --cacheinfo 100644,2222222222222222222222222222222222222222,d/a &&
	git update-index --add --cacheinfo 100644,3333333333333333333333333333333333333333,d/e/missing &&
	for i in $(seq 10 49); do echo $i >f/n$i; done && git add f &&
	git update-index --add --cacheinfo 100644,4444444444444444444444444444444444444444,f/n25x
}
setup_missing3()
{
	setup_missing2 && git update-index --force-remove d/a d/e/missing
}
test_expect_success 'write-tree with missing objects: the same one named' '
	compare_write setup_missing2 write-tree && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write setup_missing3 write-tree && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write setup_missing2 write-tree --missing-ok'

setup_unmerged()
{
	git init -q . && echo a >a && git add a && git commit -q -m1 && git checkout -q -b side &&
	echo s >a && git commit -q -am s && git checkout -q main && echo m >a && git commit -q -am m &&
	{ git merge -q side; true; }
}
test_expect_success 'write-tree with unmerged entries' '
	compare_write setup_unmerged write-tree && cmp "$CMP/git.err" "$CMP/fgit.err"'
test_expect_success 'write-tree from a subdirectory and usage' '
	compare_write setup_repo -C d write-tree && (cd w && compare write-tree extra)'
test_expect_success 'write-tree records the same cache tree as git (identical index files)' '
	mkdir c1 && (cd c1 && setup_repo && git write-tree >/dev/null && echo n >d/b && git add d/b) &&
	cp -a c1 c2 && git -C c1 write-tree >g3 && (cd c2 && "$FGIT" write-tree >../f3) &&
	cmp g3 f3 && cmp c1/.git/index c2/.git/index'

test_done
