#!/bin/sh
# status and commit -a on an index big enough (2,000 entries) for the
# batched lstat (io_uring statx, fgit/statbatch.h), with every kind of
# change among the entries of one batch; the same with batches refused
# (FGIT_NO_IO_URING) and with core.preloadIndex=false (one thread, one
# kernel worker).  Outputs against git, and the index fgit writes back
# must read as clean to git.
. "$(dirname "$0")/lib.sh"

git init -q big && cd big &&
for d in 0 1 2 3 4 5 6 7 8 9; do
	mkdir -p "d$d/s" && for i in $(seq 1 100); do echo "$d $i" >"d$d/f$i"; echo "$i" >"d$d/s/g$i"; done
done && ln -s d0/f1 lnk && ln -s nowhere dangling && echo top >top &&
git add . && git commit -q -m1 && cd "$TRASH" || exit 1

# every status format that matters here, three ways
st_all()
{
	for a in "" "-s" "-uno" "--porcelain=v2" "-s -uall"; do
		compare status $a && compare -c core.preloadIndex=false status $a &&
		(export FGIT_NO_IO_URING=1 && compare status $a) || return 1
	done
}

test_expect_success 'clean' '(cd big && st_all)'

test_expect_success 'changes of every kind in one batch, from the top and a subdirectory' '
	cp -R big c && cd c && sleep 1 &&
	echo "0 X" >d0/f2 && rm d0/f3 && rm d0/f4 && mkdir d0/f4 && echo in >d0/f4/x &&
	chmod +x d0/f5 && rm d0/f6 && ln -s top d0/f6 && rm lnk && echo notlink >lnk &&
	touch d1/f1 d1/f2 d2/s/g50 && echo 9 >d3/f9 && git rm -q --cached d4/f1 &&
	echo new >d5/new && rm -rf d6/s && echo grown >>d7/s/g7 && rm dangling &&
	git update-index --assume-unchanged d8/f8 && echo hidden >d8/f8 &&
	git update-index --skip-worktree d8/f9 && rm d8/f9 &&
	echo ita >d9/ita && git add -N d9/ita && st_all &&
	cd d0 && compare status -s && compare status -s .. && compare status -s ../d1 f2 &&
	(export FGIT_NO_IO_URING=1 && compare status -s ..)'

test_expect_success 'stat-only changes refreshed and written back, racy entries' '
	cp -R big r && cd r && sleep 1 && touch d0/f1 d5/s/g9 top &&
	"$FGIT" status --porcelain >../f.out && test ! -s ../f.out &&
	git diff-files --quiet && git ls-files --debug d0/f1 d5/s/g9 top >../f.dbg &&
	touch d0/f1 d5/s/g9 top && git status --porcelain >../g.out &&
	git ls-files --debug d0/f1 d5/s/g9 top >../g.dbg && cmp ../f.out ../g.out &&
	git read-tree HEAD && echo "0 Y" >d0/f2 && echo "1 Z" >d1/f2 &&
	"$FGIT" status -s >../f.out && git status -s >../g.out && cmp ../f.out ../g.out &&
	"$FGIT" status -s >../f.out && cmp ../f.out ../g.out && fsck_ok'

test_expect_success 'commit -a after one change, and after many' '
	setup_one() { cp -R "$TRASH/big/." . && echo changed >d3/s/g3; } &&
	compare_write setup_one commit -q -a -m two && test "$(git -C w.git rev-parse HEAD^{tree})" = "$(git -C w rev-parse HEAD^{tree})" &&
	git -C w diff-files --quiet && fsck_ok w &&
	setup_many() { cp -R "$TRASH/big/." . && echo a >d0/f1 && rm d1/f1 && chmod +x d2/f2 &&
		rm lnk && ln -s top lnk && touch d4/f4; } &&
	compare_write setup_many commit -q -a -m three &&
	test "$(git -C w.git rev-parse HEAD^{tree})" = "$(git -C w rev-parse HEAD^{tree})" &&
	git -C w status --porcelain >g.st && test ! -s g.st && fsck_ok w'

# git's has_symlink_leading_path: tracked entries below a directory that
# became a symbolic link are deleted, even where lstat through the link
# finds a file (d3 -> d4: other files of the same names; d5 moved to e5
# and linked back: the very same inodes), batched and not.
test_expect_success 'add -u, commit -a and add <path> below a symlinked directory' '
	setup_links() { cp -R "$TRASH/big/." . && rm -rf d3 && ln -s d4 d3 &&
		mv d5 e5 && ln -s e5 d5; } &&
	for nu in 0 1; do
		(export FGIT_NO_IO_URING=$nu && compare_write setup_links commit -q -a -m links &&
		 test "$(git -C w.git rev-parse HEAD^{tree})" = "$(git -C w rev-parse HEAD^{tree})" &&
		 test "$(git -C w.git rev-parse HEAD^)" = "$(git -C w rev-parse HEAD^)" &&
		 (cd w && compare status --porcelain) && fsck_ok w &&
		 compare_write setup_links add -u && git -C w.git ls-files -s >g.ls &&
		 git -C w ls-files -s >f.ls && cmp g.ls f.ls && grep -q "	d4/f1" g.ls && ! grep -q "	d5/" g.ls &&
		 ! grep -q "	d3/" g.ls) || return 1
	done &&
	cd w && compare_err add d3/f1 && compare_err add -n "d5/*" && compare_err add -n d3 &&
	cd d0 && compare_err add ../d5/f2'

test_done
