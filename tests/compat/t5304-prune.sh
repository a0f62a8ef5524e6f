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

# prune: objects kept by refs, detached HEAD, reflogs, the index and its
# cache tree; old and new unreachable objects; temporary and stray files.
setup_prune()
{
	git init -q . &&
	for i in 1 2 3; do echo $i >f && git add f && git commit -qm c$i || return 1; done &&
	git checkout -qb gone && echo g >g && git add g && git commit -qm gone &&
	git checkout -q main && git branch -D -q gone &&
	git checkout -q --detach main~1 &&
	echo staged >s && git add s && mkdir d && echo t >d/t && git add d && git write-tree >/dev/null &&
	echo old1 | git hash-object -w --stdin >/dev/null &&
	echo old2 | git hash-object -w --stdin >/dev/null &&
	printf "tree %s\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n\nx\n" \
		$(git rev-parse main^{tree}) | git hash-object -t commit -w --stdin >/dev/null &&
	touch -d 2000-01-01 .git/objects/??/* &&
	echo new | git hash-object -w --stdin >/dev/null &&
	mkdir -p .git/objects/ab && echo x >.git/objects/ab/garbage &&
	echo t >.git/objects/ab/tmp_obj_old && touch -d 2000-01-01 .git/objects/ab/tmp_obj_old &&
	echo t >.git/objects/pack/tmp_pack_old && touch -d 2000-01-01 .git/objects/pack/tmp_pack_old &&
	git repack -dq && git rev-parse HEAD:f | git hash-object -w --stdin >/dev/null
}

prune_case()
{
	compare_write setup_prune "$@" && loose_left w.git >a && loose_left w >b && cmp a b &&
	(cd w.git && git count-objects -v) >c && (cd w && git count-objects -v) >d && cmp c d &&
	fsck_ok w
}

test_expect_success 'prune: everything unreachable (no --expire)' '
	prune_case prune
'
test_expect_success 'prune -n and -v: git'"'"'s lines' '
	prune_case prune -n && prune_case prune -v && prune_case prune -n -v
'
test_expect_success 'prune --expire: relative, absolute, now, never' '
	prune_case prune -v --expire=2.weeks.ago && prune_case prune -v --expire 2001-01-01 &&
	prune_case prune -v --expire=now && prune_case prune -v --expire=never &&
	prune_case prune -v --expire=1999-06-01
'
test_expect_success 'prune <head>: more tips kept' '
	prune_case prune -v --expire=now &&
	compare_write setup_prune prune -v main~1
'
test_expect_success 'prune usage and a bad date' '
	(cd w && compare_err prune -h && compare_fail prune --expire=bogus-date)
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
