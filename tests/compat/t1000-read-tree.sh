#!/bin/sh
# read-tree against git: the index it writes (ls-files -s --debug, the
# cache tree through write-tree, diff-files), messages and exit codes.
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d/e && echo a >a && echo b >d/b && echo c >d/e/c && ln -s a link &&
	git add . && git commit -q -m1 && git tag t1 && echo a2 >a && git rm -q --cached d/b &&
	echo n >n && git add a n && git commit -q -m2 && git tag -a -m tag t2
}
setup_unmerged()
{
	setup_repo && h=$(git rev-parse HEAD:a) && printf "0 0000000000000000000000000000000000000000\ta\n100644 $h 1\ta\n100644 $h 2\ta\n" | git update-index --index-info
}

state()
{
	(cd "$1" && git ls-files -s --debug | grep -v "^  \(ctime\|mtime\|dev\|uid\)" &&
	 git diff-files --name-status && git write-tree &&
	 git status --porcelain) >"$2" 2>/dev/null
}

check()
{
	compare_write "${SETUP:-setup_repo}" "$@" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $*"; diff -u "$CMP/git.err" "$CMP/fgit.err" | head -20; return 1; }
	# without -m no stat data is kept: the index files are the same bytes
	[ "$g_rc" != 0 ] || case " $* " in *" -m "*) ;; *)
		cmp "$TRASH/w.git/.git/index" "$TRASH/w/.git/index" || { echo "index files differ"; return 1; }
	esac
	state "$TRASH/w.git" "$CMP/w.git.state"; state "$TRASH/w" "$CMP/w.state"
	cmp "$CMP/w.git.state" "$CMP/w.state" || { diff -u "$CMP/w.git.state" "$CMP/w.state" | head -30; return 1; }
	fsck_ok "$TRASH/w"
}

test_expect_success 'read-tree of one tree, commit, tag; --empty' '
	check read-tree t1 && check read-tree HEAD && check read-tree t2 && check read-tree "HEAD^{tree}" &&
	check read-tree HEAD:d && check read-tree --empty && check read-tree'
test_expect_success 'read-tree -m keeps stat data of unchanged entries' '
	check read-tree -m HEAD && check read-tree -m t1 && check read-tree -m -i HEAD &&
	SETUP=setup_unmerged check read-tree -m HEAD && SETUP=setup_unmerged check read-tree HEAD'
test_expect_success 'read-tree errors and refusals' '
	check read-tree nope && check read-tree --empty HEAD && check read-tree -m &&
	check read-tree -i HEAD && check read-tree HEAD:a &&
	compare_write setup_repo read-tree -u -m HEAD; [ $f_rc = 129 ] &&
	compare_write setup_repo read-tree --prefix=x/ HEAD; [ $f_rc = 129 ]'
test_done
