#!/bin/sh
# repack and update-server-info against git: in copies of one repository,
# the same objects afterwards (cat-file --batch-all-objects), the same
# packs/loose counts, info/refs and objects/info/packs alike, .keep
# honoured, git fsck --strict happy; -adf pack size within 2% of git's;
# -b writes a bitmap git verifies (more in t5310); --write-midx a midx over
# the same number of packs that git verifies; -ad drops a stale midx.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

git init -q tmpl && cd tmpl &&
sh "$HERE/gen-history.sh" 400 25 9 | git fast-import --quiet && git checkout -q main &&
git tag -a -m v1 v1 main~200 && git branch side main~30 && git repack -adq &&
git checkout -q -b topic && echo t >t && git add t && git commit -q -m topic &&
git checkout -q main && echo staged >staged && git add staged &&
# an unreachable object in the pack and one loose
git branch gone main~1 && git commit -q --allow-empty -m tmp && git branch gone2 &&
git reset -q --hard HEAD~1 && git repack -adq && git branch -D gone2 >/dev/null &&
git reflog expire --expire=now --all && echo unreach | git hash-object -w --stdin >/dev/null &&
cd "$TRASH" || exit 1

setup() { cp -a "$TRASH/tmpl/." .; }
objects() { git -C "$1" cat-file --batch-all-objects --batch-check; }
state() { (cd "$1" && ls .git/objects/pack | sed "s/pack-[0-9a-f]*/pack-X/" | sort | uniq -c &&
	   git count-objects | sed "s/, [0-9]* kilobytes//"); }

# repack_same ARGS...: git and fgit repack copies; same output, objects, state
repack_same()
{
	compare_write setup repack "$@" &&
	objects "$TRASH/w.git" >"$TRASH/go" && objects "$TRASH/w" >"$TRASH/fo" &&
	{ cmp -s "$TRASH/go" "$TRASH/fo" || { echo "objects differ: repack $*"; diff "$TRASH/go" "$TRASH/fo" | head; return 1; }; } &&
	state "$TRASH/w.git" >"$TRASH/gs" && state "$TRASH/w" >"$TRASH/fs" &&
	{ cmp -s "$TRASH/gs" "$TRASH/fs" || { echo "state differs: repack $*"; diff "$TRASH/gs" "$TRASH/fs"; return 1; }; } &&
	fsck_ok "$TRASH/w"
}

test_expect_success 'repack (incremental), -d, -q' '
	repack_same -q && repack_same -d -q && repack_same'
test_expect_success 'repack -a, -ad, -adf, -adF, -l' '
	repack_same -a -q && repack_same -a -d -q && repack_same -adf -q &&
	repack_same -adF -q && repack_same -adl -q'
test_expect_success 'repack -Ad loosens unreachable packed objects' '
	repack_same -A -d -q'
test_expect_success 'options: --window, --depth, --threads, -n' '
	repack_same -adf -q --window=3 --depth=5 --threads=1 &&
	git verify-pack -v "$TRASH"/w/.git/objects/pack/*.idx | grep "^chain length" >"$TRASH/ch" &&
	! grep -q "chain length = [6-9]" "$TRASH/ch" &&
	repack_same -ad -q -n &&
	cmp "$TRASH/w.git/.git/objects/info/packs" "$TRASH/w/.git/objects/info/packs"'
test_expect_success 'server info files' '
	repack_same -ad -q && cmp "$TRASH/w.git/.git/info/refs" "$TRASH/w/.git/info/refs" &&
	sed "s/pack-[0-9a-f]*/X/" "$TRASH/w.git/.git/objects/info/packs" >"$TRASH/ip1" &&
	sed "s/pack-[0-9a-f]*/X/" "$TRASH/w/.git/objects/info/packs" >"$TRASH/ip2" &&
	cmp "$TRASH/ip1" "$TRASH/ip2" &&
	compare_write setup update-server-info && cmp "$TRASH/w.git/.git/info/refs" "$TRASH/w/.git/info/refs" &&
	cmp "$TRASH/w.git/.git/objects/info/packs" "$TRASH/w/.git/objects/info/packs"'
keep_setup() { setup && p=$(ls .git/objects/pack/*.pack) && touch "${p%.pack}.keep" &&
	echo new >new && git add new && git commit -q -m new; }
test_expect_success '.keep packs are kept and not repacked' '
	compare_write keep_setup repack -adq && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" && fsck_ok "$TRASH/w"'
test_expect_success 'nothing new to pack' '
	compare_write setup repack -ad && compare_write setup repack'
test_expect_success '-adf pack size within 2% of git' '
	compare_write setup repack -adf -q &&
	g=$(cat "$TRASH"/w.git/.git/objects/pack/*.pack | wc -c) &&
	f=$(cat "$TRASH"/w/.git/objects/pack/*.pack | wc -c) &&
	echo "git $g fgit $f" && test $((f * 100)) -le $((g * 102))'
test_expect_success 'repack -adb, .keep packs packed into it, bitmap git verifies' '
	repack_same -adb -q && test -f "$TRASH"/w/.git/objects/pack/pack-*.bitmap &&
	git -C "$TRASH/w" rev-list --test-bitmap HEAD >"$TRASH/tb" 2>&1 && grep -q "^OK!" "$TRASH/tb" &&
	compare_write keep_setup repack -adbq && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" && fsck_ok "$TRASH/w" &&
	git -C "$TRASH/w" rev-list --test-bitmap HEAD >"$TRASH/tb" 2>&1 && grep -q "^OK!" "$TRASH/tb"'
test_expect_success 'repack -b without -a: git fatal' '
	compare_write setup repack -b -q && cmp "$CMP/git.err" "$CMP/fgit.err"'
# three packs and a midx over them
midx_setup() { setup && for f in m1 m2; do echo $f >$f && git add $f &&
	git commit -q -m $f && git repack -q || return 1; done &&
	git multi-pack-index write; }
# midx_same ARGS...: repack_same, then a midx in both or neither, naming as
# many packs, that git verifies
midx_same()
{
	repack_same "$@" || return 1
	g=$(od -An -tu1 -j8 -N4 "$TRASH/w.git/.git/objects/pack/multi-pack-index" 2>/dev/null)
	f=$(od -An -tu1 -j8 -N4 "$TRASH/w/.git/objects/pack/multi-pack-index" 2>/dev/null)
	[ "$g" = "$f" ] || { echo "midx packs: git $g fgit $f"; return 1; }
	[ -z "$f" ] || git -C "$TRASH/w" multi-pack-index verify --no-progress
}
test_expect_success 'repack --write-midx: incremental, -a, -ad, -Ad, nothing new' '
	midx_same --write-midx -q && midx_same -a --write-midx -q &&
	midx_same -ad --write-midx -q && midx_same -Ad --write-midx -q &&
	midx_same -d --write-midx -q &&
	compare_write midx_setup repack -ad --write-midx && cmp "$CMP/git.err" "$CMP/fgit.err" &&
	compare_write midx_setup repack -ad --write-midx'
test_expect_success 'repack --write-midx over several packs and a midx, .keep packs' '
	compare_write midx_setup repack --write-midx -q && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" &&
	git -C "$TRASH/w" multi-pack-index verify --no-progress &&
	compare_write midx_setup repack -ad --write-midx -q && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" &&
	git -C "$TRASH/w" multi-pack-index verify --no-progress && fsck_ok "$TRASH/w" &&
	compare_write keep_setup repack -ad --write-midx -q && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" &&
	git -C "$TRASH/w" multi-pack-index verify --no-progress && fsck_ok "$TRASH/w"'
test_expect_success 'repack -ad drops a midx naming a deleted pack, as git' '
	compare_write midx_setup repack -ad -q && state "$TRASH/w.git" >"$TRASH/gs" &&
	state "$TRASH/w" >"$TRASH/fs" && cmp "$TRASH/gs" "$TRASH/fs" && fsck_ok "$TRASH/w"'
# the multi-pack bitmap's name carries the midx checksum, which differs
# with the new pack's bytes; more in t5310
test_expect_success 'repack -adb --write-midx, repack.writeBitmaps with --write-midx: a midx bitmap' '
	for c in "repack -adb --write-midx -q" "-c repack.writeBitmaps=true repack --write-midx -q"; do
		compare_write midx_setup $c &&
		state "$TRASH/w.git" | sed "s/index-[0-9a-f]*[.]bitmap/index-X.bitmap/" >"$TRASH/gs" &&
		state "$TRASH/w" | sed "s/index-[0-9a-f]*[.]bitmap/index-X.bitmap/" >"$TRASH/fs" &&
		cmp "$TRASH/gs" "$TRASH/fs" && grep -q "index-X.bitmap" "$TRASH/fs" &&
		git -C "$TRASH/w" rev-list --test-bitmap HEAD >"$TRASH/tb" 2>&1 &&
		grep -q "^OK!" "$TRASH/tb" && fsck_ok "$TRASH/w" || return 1
	done'
test_done
