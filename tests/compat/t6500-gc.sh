#!/bin/sh
# gc against git: same output and exit code, the same objects kept (packed
# or loose), the same loose files, identical commit-graph and info/refs, and
# git fsck happy; bitmaps git reads in bare repositories, worktrees pruned
# alike.  Most repositories turn pack-refs and reflog expiry off
# (gc.packRefs, gc.reflogExpire*); one case checks them.
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
# the defaults: pack-refs --all --prune, reflog expire --all (entries dated
# long ago are dropped), as git's gc runs them
default_repo()
{
	git init -q . && git config gc.autoDetach false &&
	for i in 1 2 3 4 5; do
		echo $i >f && git add f &&
		GIT_COMMITTER_DATE="$((1000000000 + i * 86400)) +0000" git commit -qm c$i || return 1
	done &&
	git tag v1 HEAD~2 && git tag -a -m t v2 HEAD~1 && git branch side HEAD~1 &&
	git update-ref refs/custom/x HEAD~3
}
test_expect_success 'gc packs refs and expires reflogs by default, as git' '
	gc_case default_repo gc &&
	cmp w.git/.git/packed-refs w/.git/packed-refs &&
	(cd w.git/.git && find refs logs -type f | sort) >l1 && (cd w/.git && find refs logs -type f | sort) >l2 &&
	cmp l1 l2 && for f in $(cat l1); do case $f in logs/*) cmp w.git/.git/$f w/.git/$f || return 1;; esac; done
'
bare_bitmaps() { base_repo && git config core.bare true; }
test_expect_success 'gc in a bare repository writes a bitmap git reads' '
	gc_case bare_bitmaps gc && test -f w/.git/objects/pack/pack-*.bitmap &&
	git -C w rev-list --test-bitmap HEAD >out 2>&1 && grep -q "^OK!" out &&
	git -C w rev-list --use-bitmap-index --objects --all | cut -c1-40 | sort >b1 &&
	git -C w rev-list --objects --all | cut -c1-40 | sort >b2 && cmp b1 b2 &&
	gc_case bare_bitmaps -c pack.writeBitmapHashCache=false gc &&
	head -c 8 w.git/.git/objects/pack/pack-*.bitmap >h1 &&
	head -c 8 w/.git/objects/pack/pack-*.bitmap >h2 && cmp h1 h2
'
# linked worktrees: one gone long ago (pruned), one gone recently (kept
# until gc.worktreePruneExpire), one gone but locked, one alive, and
# entries that are not worktrees at all
worktrees()
{
	base_repo && git worktree add -q wt-old && git worktree add -q wt-new &&
	git worktree add -q wt-locked && git worktree lock wt-locked &&
	git worktree add -q wt-alive && rm -rf wt-old wt-new wt-locked &&
	touch -d 2001-01-01 .git/worktrees/wt-old/index .git/worktrees/wt-locked/index &&
	mkdir .git/worktrees/no-gitdir && echo junk >.git/worktrees/not-a-dir &&
	mkdir .git/worktrees/empty-gitdir && : >.git/worktrees/empty-gitdir/gitdir
}
# duplicate entries: two ids whose gitdir names one worktree, one naming
# the main repository's git dir, a locked copy (kept, not compared)
worktrees_dup()
{
	base_repo && git worktree add -q wt-a && git worktree add -q wt-b &&
	cp -r .git/worktrees/wt-a .git/worktrees/wt-a2 &&
	cp -r .git/worktrees/wt-a .git/worktrees/a0 &&
	cp -r .git/worktrees/wt-b .git/worktrees/wt-main &&
	echo "$PWD/.git" >.git/worktrees/wt-main/gitdir &&
	cp -r .git/worktrees/wt-b .git/worktrees/wt-b-locked &&
	: >.git/worktrees/wt-b-locked/locked
}
test_expect_success 'gc prunes duplicate worktree entries as git' '
	gc_case worktrees_dup gc && ls w.git/.git/worktrees >l1 && ls w/.git/worktrees >l2 &&
	cmp l1 l2 && ! test -d w/.git/worktrees/wt-a2 && test -d w/.git/worktrees/wt-b-locked
'
test_expect_success 'gc prunes worktrees as git worktree prune --expire 3.months.ago' '
	gc_case worktrees gc && ls w.git/.git/worktrees >l1 && ls w/.git/worktrees >l2 &&
	cmp l1 l2 && test -d w/.git/worktrees/wt-new &&
	gc_case worktrees -c gc.worktreePruneExpire=now gc &&
	ls w.git/.git/worktrees >l1 && ls w/.git/worktrees >l2 && cmp l1 l2 &&
	gc_case worktrees -c gc.worktreePruneExpire=never gc &&
	ls w.git/.git/worktrees >l1 && ls w/.git/worktrees >l2 && cmp l1 l2
'
bare_repo() { base_repo && git config core.bare true && git config repack.writeBitmaps false; }
test_expect_success 'bare repository with repack.writeBitmaps=false' '
	gc_case bare_repo gc
'

auto_repo()
{
	git init -q . && git config gc.auto 1 && git config gc.autoDetach false &&
	i=0 && while [ $i -lt 1500 ]; do echo $i >f$i; i=$((i + 1)); done && git add .
}
test_expect_success 'commit runs gc --auto afterwards, as git does' '
	GIT_AUTHOR_DATE="1500000000 +0000" GIT_COMMITTER_DATE="1500000000 +0000" \
		compare_write auto_repo commit -m one &&
	git -C w.git count-objects -v | grep -v size >c1 && git -C w count-objects -v | grep -v size >c2 &&
	cmp c1 c2 && grep -q "in-pack: 1502" c2 &&
	GIT_AUTHOR_DATE="1500000000 +0000" GIT_COMMITTER_DATE="1500000000 +0000" \
		compare_write auto_repo -c maintenance.auto=false commit -m one &&
	git -C w count-objects -v | grep -q "in-pack: 0"
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
