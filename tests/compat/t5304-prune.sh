#!/bin/sh
# prune-packed and prune against git: same stdout and exit code, the same
# loose objects left, git fsck happy afterwards.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

setup_repo()
{
	git init -q . &&
	for i in 1 2 3 4; do
		echo $i >f$i && git add f$i && git commit -qm c$i || return 1
	done &&
	git repack -q && mkdir -p .git/objects/00 &&
	echo loose-only >l && git add l && git commit -qm loose &&
	echo unreachable | git hash-object -w --stdin >/dev/null
}

loose_left() { (cd "$1/.git/objects" && find . -path ./pack -prune -o -print | sort); }

test_expect_success 'prune-packed -n lists packed loose objects in git order' '
	compare_write setup_repo prune-packed -n && loose_left w.git >a && loose_left w >b &&
	cmp a b
'
test_expect_success 'prune-packed removes them and empty fan-out directories' '
	compare_write setup_repo prune-packed && loose_left w.git >a && loose_left w >b &&
	cmp a b && fsck_ok w
'
test_expect_success 'prune-packed -q, and nothing to do' '
	compare_write setup_repo prune-packed -q &&
	(cd w && "$FGIT" prune-packed -n >out && test ! -s out)
'
test_expect_success 'prune-packed usage' '
	(cd w && compare_err prune-packed -h && compare_err prune-packed --bogus)
'
test_expect_success 'count-objects -v after prune-packed' '
	(cd w && compare count-objects -v) && (cd w.git && compare count-objects -v)
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
