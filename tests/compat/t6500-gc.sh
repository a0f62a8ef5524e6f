#!/bin/sh
# gc against git: same output and exit code, the same objects kept (packed
# or loose), the same loose files, identical commit-graph and info/refs, and
# git fsck happy.  pack-refs and reflog expire are not built into fgit's gc
# yet: these repositories turn them off (gc.packRefs, gc.reflogExpire*).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

base_repo()
{
	git init -q . &&
	git config gc.packRefs false && git config gc.reflogExpire never &&
	git config gc.reflogExpireUnreachable never && git config gc.autoDetach false &&
	for i in $(seq 1 12); do
		echo $i >f$((i % 4)) && git add . && git commit -qm c$i || return 1
	done &&
	git tag -a -m t v1 HEAD~3 && git branch side HEAD~5 &&
	git repack -dq &&
	for i in 1 2 3; do echo $i$i >g && git add g && git commit -qm d$i || return 1; done
}

# an unreachable blob in a pack of its own (mtime $1) and loose ones (old
# and new), a midx over the packs
with_garbage()
{
	base_repo &&
	b=$(echo lost-in-pack | git hash-object -w --stdin) &&
	echo $b | git pack-objects -q .git/objects/pack/pack >/dev/null &&
	rm -f .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-) &&
	touch -d "$1" .git/objects/pack/*.pack &&
	echo old-loose | git hash-object -w --stdin >/dev/null &&
	touch -d 2000-01-01 .git/objects/??/* &&
	echo new-loose | git hash-object -w --stdin >/dev/null &&
	git multi-pack-index write
}
garbage_old() { with_garbage 2001-01-01; }
garbage_new() { with_garbage "1 hour ago"; }

state()
{
	(cd "$1" && ls .git && ls .git/objects/info &&
	 ls .git/objects/pack | sed "s/pack-[0-9a-f]*/pack-X/" &&
	 find .git/objects -path .git/objects/pack -prune -o -type f -print | sort &&
	 git cat-file --batch-all-objects --batch-check | sort &&
	 cat .git/info/refs && sed "s/pack-[0-9a-f]*/pack-X/" .git/objects/info/packs &&
	 git count-objects -v | grep -v size)
}

gc_case()
{
	compare_write "$@" && state w.git >s1 && state w >s2 && diff -u s1 s2 &&
	{ ! test -f w.git/.git/objects/info/commit-graph ||
	  cmp w.git/.git/objects/info/commit-graph w/.git/objects/info/commit-graph; } &&
	fsck_ok w
}

test_expect_success 'gc: one pack, commit-graph, server info' '
	gc_case base_repo gc
'
test_expect_success 'gc with unreachable objects: old pack dropped, recent one loosened' '
	gc_case garbage_old gc && gc_case garbage_new gc
'
test_expect_success 'gc --prune=now, --prune=<date>, --no-prune, --prune' '
	gc_case garbage_new gc --prune=now && gc_case garbage_new gc --prune=2001-06-01 &&
	gc_case garbage_new gc --no-prune && gc_case garbage_old gc --prune
'
test_expect_success 'gc.pruneExpire from the configuration' '
	gc_case garbage_new -c gc.pruneExpire=now gc &&
	gc_case garbage_old -c gc.pruneExpire=never gc
'
test_expect_success 'gc -q and --aggressive' '
	gc_case garbage_new gc -q && gc_case base_repo gc --aggressive
'
many_loose()
{
	base_repo && git repack -adq && i=0 &&
	while [ $(ls .git/objects/17 2>/dev/null | wc -l) -lt 3 ]; do
		i=$((i + 1)); echo loose$i >l$i && git add l$i || return 1
	done && git commit -qm many
}
many_packs()
{
	base_repo && for i in 1 2 3; do echo p$i >p && git add p && git commit -qm p$i &&
		git repack -dq || return 1; done
}
test_expect_success 'gc --auto: nothing to do, too many loose, too many packs' '
	gc_case base_repo gc --auto &&
	gc_case many_loose -c gc.auto=256 gc --auto &&
	gc_case many_packs -c gc.autoPackLimit=2 gc --auto &&
	gc_case many_packs -c gc.auto=0 gc --auto
'
test_expect_success 'gc --auto message (stderr)' '
	compare_write many_loose -c gc.auto=256 gc --auto &&
	cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write many_loose -c gc.auto=256 -c gc.autoDetach=true gc --auto -q &&
	cmp "$CMP/git.err" "$CMP/fgit.err"
'
locked() { base_repo && echo "1 $(hostname)" >.git/gc.pid; }
test_expect_success 'another gc running (gc.pid): fatal, --force, quiet under --auto' '
	compare_write locked gc && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	gc_case locked gc --force &&
	gc_case locked -c gc.autoPackLimit=1 gc --auto
'
plain_repo() { git init -q . && echo a >a && git add a && git commit -qm a; }
test_expect_success 'steps not built yet are refused (129), not skipped' '
	rm -rf p && mkdir p && (cd p && plain_repo >/dev/null &&
	{ "$FGIT" gc 2>err; test $? = 129; } && grep pack-refs err &&
	{ "$FGIT" -c gc.packRefs=false gc 2>err; test $? = 129; } && grep reflog err) &&
	rm -rf b.git && git clone -q --bare w b.git && git -C b.git config gc.packRefs false &&
	git -C b.git config gc.reflogExpire never && git -C b.git config gc.reflogExpireUnreachable never &&
	{ "$FGIT" -C b.git gc 2>err; test $? = 129; } && grep bitmaps err
'
bare_repo() { base_repo && git config core.bare true && git config repack.writeBitmaps false; }
test_expect_success 'bare repository with repack.writeBitmaps=false' '
	gc_case bare_repo gc
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
