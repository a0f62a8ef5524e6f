#!/bin/sh
# Reachability bitmaps fgit writes (repack -b, repack -b --write-midx, pack-objects
# --write-bitmap-index): git reads them (rev-list --test-bitmap, the same
# object sets and counts with and without --use-bitmap-index, fsck), the
# same files and header flags as git's, fgit's own reader sends the pack
# from them, and git's refusals alike.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

# more than 100 commits (so selection skips some), a merged side branch,
# an annotated tag, a lightweight tag on an old commit, a tag on a blob
git init -q tmpl && cd tmpl &&
sh "$HERE/gen-history.sh" 450 30 5 | git fast-import --quiet && git checkout -q main &&
git checkout -q -b side main~120 && echo s1 >s1 && git add s1 && git commit -q -m s1 &&
echo s2 >s2 && git add s2 && git commit -q -m s2 && git checkout -q main &&
git merge -q --no-edit side && git tag -a -m v1 v1 main~50 && git tag old main~400 &&
git tag -a -m blob blobtag "$(git rev-parse main:s1)" && git repack -adq &&
cd "$TRASH" || exit 1

setup() { cp -a "$TRASH/tmpl/." .; }
bare() { cp -a "$TRASH/tmpl/.git/." . && git config core.bare true; }
state() { (cd "$1" && ls "${2:-.git}"/objects/pack | sed "s/pack-[0-9a-f]*/pack-X/" &&
	   git count-objects -v | grep -v size); }

# what git makes of the bitmap in $1: each of the commits in $2 verified,
# object sets and counts with the bitmap equal to the walk's
bitmap_ok()
{
	for c in $2; do
		git -C "$1" rev-list --test-bitmap "$c" >"$CMP/tb" 2>&1 &&
		grep -q "^OK!" "$CMP/tb" || { echo "test-bitmap $c:"; tail -2 "$CMP/tb"; return 1; }
	done &&
	for r in --all "main~200..main" "side --not main~300"; do
		git -C "$1" rev-list --use-bitmap-index --objects $r | cut -c1-40 | sort >"$CMP/b1" &&
		git -C "$1" rev-list --objects $r | cut -c1-40 | sort >"$CMP/b2" &&
		cmp -s "$CMP/b1" "$CMP/b2" || { echo "objects differ: $r"; return 1; }
		a=$(git -C "$1" rev-list --use-bitmap-index --count --objects $r) &&
		b=$(git -C "$1" rev-list --count --objects $r) &&
		[ "$a" = "$b" ] || { echo "counts differ: $r $a $b"; return 1; }
	done &&
	fsck_ok "$1"
}

same_state()
{
	state "$TRASH/w.git" ${1:-} >"$CMP/s1" && state "$TRASH/w" ${1:-} >"$CMP/s2" &&
	diff -u "$CMP/s1" "$CMP/s2"
}

test_expect_success 'repack -adb: a bitmap git verifies, same files and flags as git' '
	compare_write setup repack -adb -q && same_state &&
	bitmap_ok "$TRASH/w" "HEAD HEAD~1 HEAD~20 side" &&
	head -c 8 w.git/.git/objects/pack/*.bitmap >h1 && head -c 8 w/.git/objects/pack/*.bitmap >h2 &&
	cmp h1 h2
'
test_expect_success 'the name-hash cache off (pack.writeBitmapHashCache=false)' '
	compare_write setup -c pack.writeBitmapHashCache=false repack -adb -q && same_state &&
	head -c 8 w.git/.git/objects/pack/*.bitmap >h1 && head -c 8 w/.git/objects/pack/*.bitmap >h2 &&
	cmp h1 h2 && bitmap_ok "$TRASH/w" HEAD
'
test_expect_success 'repack.writeBitmaps and pack.writeBitmaps with -a, -A' '
	compare_write setup -c repack.writeBitmaps=true repack -adq && same_state &&
	compare_write setup -c pack.writeBitmaps=true repack -Adq && same_state &&
	bitmap_ok "$TRASH/w" HEAD &&
	compare_write setup -c repack.writeBitmaps=false repack -adbq && same_state
'
test_expect_success 'a bare repository: -a writes a bitmap by default, -a -l too' '
	compare_write bare repack -adq && same_state . && bitmap_ok "$TRASH/w" HEAD &&
	compare_write bare repack -adlq && same_state . &&
	compare_write bare -c repack.writeBitmaps=false repack -adq && same_state .
'
test_expect_success 'repack again without -b drops the bitmap of the same pack' '
	rebm() { setup && git repack -adbq; } &&
	compare_write rebm repack -adq && same_state
'
test_expect_success 'pack-objects --write-bitmap-index: with --all only, as git' '
	compare_write setup pack-objects --write-bitmap-index --all -q pk &&
	ls w.git/pk-* | sed "s/pk-[0-9a-f]*/pk-X/;s|.*/||" >l1 &&
	ls w/pk-* | sed "s/pk-[0-9a-f]*/pk-X/;s|.*/||" >l2 && cmp l1 l2 && grep -q bitmap l2 &&
	CMP_STDIN=$TRASH/tmpl/.git/packed-refs compare_write setup pack-objects --revs --write-bitmap-index -q pk &&
	ls w.git/pk-* | sed "s/pk-[0-9a-f]*/pk-X/;s|.*/||" >l1 &&
	ls w/pk-* | sed "s/pk-[0-9a-f]*/pk-X/;s|.*/||" >l2 && cmp l1 l2 && ! grep -q bitmap l2
'
# tree entry lists as the writer keeps them: a tree of 300 entries, one
# blob under two names, one subtree at two paths, a gitlink (not an object
# of the pack), the empty tree; built on two threads and on one
git init -q shapes && (cd shapes &&
	for i in $(seq 1 300); do echo "$i" >"f$i"; done && mkdir -p d/e && echo x >d/e/x &&
	echo x >d/y && cp -r d d2 && git add . && git commit -q -m c1 &&
	git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),sub" &&
	git commit -q -m c2 && echo z >d2/e/z && echo 7 >f7 && git add . && git commit -q -m c3 &&
	git branch empty "$(git commit-tree -m empty "$(git mktree </dev/null)")" &&
	git repack -adq) || exit 1
shapes() { cp -a "$TRASH/shapes/." .; }
for th in 2 1; do
test_expect_success "entry lists of every shape, pack.threads=$th" '
	compare_write shapes -c pack.threads='$th' repack -adbq && same_state &&
	for c in HEAD HEAD~1 HEAD~2 empty; do
		git -C w rev-list --test-bitmap $c >tb 2>&1 && grep -q "^OK!" tb || return 1
	done &&
	git -C w rev-list --use-bitmap-index --objects --all | cut -c1-40 | sort >b1 &&
	git -C w rev-list --objects --all | cut -c1-40 | sort >b2 && cmp b1 b2 &&
	fsck_ok w
'
done
test_expect_success 'fgit sends a clone from the bitmap it wrote' '
	compare_write setup repack -adbq &&
	(cd w && "$FGIT" pack-objects --all --stdout -q </dev/null >../p.pack) &&
	git index-pack -o p.idx p.pack && git show-index <p.idx | cut -d" " -f2 | sort >o1 &&
	git -C w rev-list --objects --all --reflog --indexed-objects | cut -d" " -f1 | sort -u >o2 &&
	cmp o1 o2
'
# the whole pack sent from a bitmap git wrote: git sends it as it is with
# --delta-base-offset, with OFS_DELTA entries rewritten to REF_DELTA
# without, and so must fgit, byte for byte; one entry above 1 MiB and one
# delta above 1 MiB (fgit reads the pack through a 1 MiB window)
git init -q big && (cd big && head -c 4000000 /dev/urandom >c &&
	head -c 1200000 /dev/urandom >x && head -c 1200000 /dev/urandom >y &&
	cat c x >f && git add f && git commit -q -m 1 && cat c y >f && git add f &&
	git commit -q -m 2 && rm c x y && echo s >s && git add s && git commit -q -m s &&
	git tag -a -m t t1 HEAD~1 && git repack -adbq) || exit 1
test_expect_success 'the whole pack from a bitmap git wrote, as git sends it (both delta forms)' '
	git verify-pack -v big/.git/objects/pack/*.idx >vp &&
	awk "NF == 7 && \$4 > 1048576" vp | grep -q . &&
	awk "NF == 5 && \$4 > 1048576" vp | grep -q . &&
	cd big && compare_stdin /dev/null pack-objects --all --stdout -q &&
	compare_stdin /dev/null pack-objects --all --stdout -q --delta-base-offset &&
	cmp "$CMP/fgit.out" .git/objects/pack/*.pack &&
	cd "$TRASH" && rm -rf tbg && cp -a tmpl tbg && git -C tbg repack -adbq &&
	for o in --no-delta-base-offset --delta-base-offset; do
		(cd tbg && "$FGIT" pack-objects --all --stdout -q $o </dev/null >../p.pack) &&
		git index-pack -o p.idx p.pack && git show-index <p.idx | cut -d" " -f2 | sort >o1 &&
		git show-index <"$(ls tbg/.git/objects/pack/*.idx)" | cut -d" " -f2 | sort >o2 &&
		cmp o1 o2 && rm p.pack p.idx || return 1
	done
'
test_expect_success 'incremental repack with bitmaps: git fatal, exit 128' '
	compare_write setup repack -b && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write setup -c repack.writeBitmaps=true repack -d &&
	cmp "$CMP/git.err" "$CMP/fgit.err"
'
# multi-pack bitmaps: repack -b --write-midx.  The new pack's bytes (so
# its name and the midx's) differ from git's, so the midx fgit wrote is
# checked against the one git writes over the same packs
midx_state() { state "$@" | sed "s/index-[0-9a-f]*[.]bitmap/index-X.bitmap/"; }
midx_like_git()
{
	rm -rf "$TRASH/mg" && cp -a "$1" "$TRASH/mg" &&
	(cd "$TRASH/mg" && rm -f .git/objects/pack/multi-pack-index* ${2:+$2} &&
	 ls .git/objects/pack | grep "idx$" >../mg.packs &&
	 git multi-pack-index write --stdin-packs --bitmap <../mg.packs) &&
	cmp "$1/.git/objects/pack/multi-pack-index" "$TRASH/mg/.git/objects/pack/multi-pack-index"
}
more() { setup && echo m1 >m1 && git add m1 && git commit -q -m m1 && git repack -q &&
	echo m2 >m2 && git add m2 && git commit -q -m m2; }
test_expect_success 'repack -adb --write-midx: a midx bitmap git verifies, midx as git writes it' '
	compare_write setup repack -adb --write-midx -q && midx_state "$TRASH/w.git" >s1 &&
	midx_state "$TRASH/w" >s2 && cmp s1 s2 && grep -q "index-X.bitmap" s2 &&
	bitmap_ok "$TRASH/w" "HEAD HEAD~1 HEAD~20 side" && midx_like_git "$TRASH/w"
'
test_expect_success 'repack -b --write-midx without -a: several packs, the packs'"'"' own bitmaps go' '
	compare_write more repack -b --write-midx -q && midx_state "$TRASH/w.git" >s1 &&
	midx_state "$TRASH/w" >s2 && cmp s1 s2 && bitmap_ok "$TRASH/w" "HEAD side" &&
	midx_like_git "$TRASH/w" &&
	more2() { more && git repack -adbq && echo m3 >m3 && git add m3 && git commit -q -m m3; } &&
	compare_write more2 repack -b --write-midx -q && midx_state "$TRASH/w.git" >s1 &&
	midx_state "$TRASH/w" >s2 && cmp s1 s2 && bitmap_ok "$TRASH/w" "HEAD side" &&
	midx_like_git "$TRASH/w"
'
test_expect_success 'a bare repository: --write-midx alone writes no bitmap, repack.writeBitmaps does' '
	compare_write bare repack -ad --write-midx -q && midx_state "$TRASH/w.git" . >s1 &&
	midx_state "$TRASH/w" . >s2 && cmp s1 s2 &&
	compare_write bare -c repack.writeBitmaps=true repack -ad --write-midx -q &&
	midx_state "$TRASH/w.git" . >s1 && midx_state "$TRASH/w" . >s2 && cmp s1 s2 &&
	grep -q "index-X.bitmap" s2 &&
	for c in HEAD HEAD~1 side; do
		git -C "$TRASH/w" rev-list --test-bitmap $c >tb 2>&1 && grep -q "^OK!" tb || return 1
	done
'
test_expect_success 'pack.writeBitmapHashCache=false: the same header flags as git' '
	compare_write setup -c pack.writeBitmapHashCache=false repack -adb --write-midx -q &&
	head -c 8 w.git/.git/objects/pack/multi-pack-index-*.bitmap >h1 &&
	head -c 8 w/.git/objects/pack/multi-pack-index-*.bitmap >h2 && cmp h1 h2 &&
	bitmap_ok "$TRASH/w" HEAD
'
# pack-objects --all --stdout counting from a multi-pack bitmap (git
# 2.39 prefers it to a pack's own): the object set git sends, a repository
# git fsck accepts once the pack and the refs are in it; a stale bitmap
# (its header names an older midx) is not read, by git nor by fgit
sent_like_git()
{
	for o in --no-delta-base-offset --delta-base-offset; do
		(cd "$1" && git pack-objects --all --stdout -q $o </dev/null >"$TRASH/g.pack" &&
		 "$FGIT" pack-objects --all --stdout -q $o </dev/null >"$TRASH/f.pack") &&
		rm -f g.idx f.idx && git index-pack -o g.idx g.pack && git index-pack -o f.idx f.pack &&
		git verify-pack f.idx && git show-index <g.idx | cut -d" " -f2 | sort >o1 &&
		git show-index <f.idx | cut -d" " -f2 | sort >o2 && cmp o1 o2 || return 1
	done &&
	rm -rf cl && git init -q --bare cl && cp f.pack f.idx cl/objects/pack/ &&
	git -C "$1" for-each-ref --format="%(objectname) %(refname)" >cl/packed-refs &&
	cp "$1/.git/HEAD" cl/HEAD && fsck_ok cl
}
midxbm() { setup && echo m1 >m1 && git add m1 && git commit -q -m m1 && git tag -a -m m v2 &&
	git repack -q && echo m2 >m2 && git add m2 && git commit -q -m m2 && git repack -q; }
test_expect_success 'pack-objects --all --stdout from a multi-pack bitmap git wrote, and fgit wrote' '
	rm -rf mb && mkdir mb && (cd mb && midxbm && git multi-pack-index write --bitmap &&
	ls .git/objects/pack/multi-pack-index-*.bitmap) && sent_like_git mb &&
	rm -rf mb && mkdir mb && (cd mb && midxbm && "$FGIT" multi-pack-index write --bitmap &&
	ls .git/objects/pack/multi-pack-index-*.bitmap) && sent_like_git mb &&
	rm -rf mb && mkdir mb && (cd mb && midxbm && git repack -adbq &&
	git multi-pack-index write --bitmap &&
	ls .git/objects/pack/multi-pack-index-*.bitmap .git/objects/pack/pack-*.bitmap) &&
	sent_like_git mb
'
test_expect_success 'a stale multi-pack bitmap is not read' '
	rm -rf mb && mkdir mb && (cd mb && midxbm && git multi-pack-index write --bitmap &&
	cp .git/objects/pack/multi-pack-index-*.bitmap ../old.bitmap &&
	echo m3 >m3 && git add m3 && git commit -q -m m3 && git repack -q &&
	git multi-pack-index write && sum=$(tail -c 20 .git/objects/pack/multi-pack-index | od -An -tx1 | tr -d " \n") &&
	cp ../old.bitmap .git/objects/pack/multi-pack-index-$sum.bitmap) && sent_like_git mb
'
echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
