#!/bin/sh
# repack -ad in a bare repository whose single pack has a .bitmap: fgit
# counts the objects to pack from that bitmap instead of walking the trees.
# The new pack must hold exactly git's objects (cat-file
# --batch-all-objects), whatever changed since the bitmap was written: a
# ref deleted, a ref moved to a commit without a bitmap of its own, a
# reflog keeping an old commit, a tip added since (a loose commit), a tag
# on a blob, no name-hash cache; and git must accept the new bitmap.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

# more than 100 commits (the bitmap selects some only), a merged side
# branch, a branch "gone" whose commits nothing else reaches, tags
git init -q tmpl && cd tmpl &&
sh "$HERE/gen-history.sh" 450 30 7 | git fast-import --quiet && git checkout -q main &&
git checkout -q -b side main~120 && echo s1 >s1 && git add s1 && git commit -q -m s1 &&
git checkout -q main && git merge -q --no-edit side &&
git checkout -q -b gone main~200 && echo g1 >g1 && git add g1 && git commit -q -m g1 &&
echo g2 >g2 && git add g2 && git commit -q -m g2 &&
git checkout -q -b tmp main~5 && echo t1 >t1 && git add t1 && git commit -q -m t1 &&
git checkout -q main && git tag -a -m v1 v1 main~50 && git tag old main~400 &&
cd "$TRASH" && git clone -q --bare tmpl bm.git &&
git -C bm.git config core.logAllRefUpdates always &&
git -C bm.git repack -adbq && ls bm.git/objects/pack/*.bitmap >/dev/null &&
git -C bm.git -c pack.writeBitmapHashCache=false repack -adbq 2>/dev/null &&
cp -a bm.git nohash.git && git -C bm.git repack -adbq || exit 1

export GIT_AUTHOR_DATE='1112912000 +0000' GIT_COMMITTER_DATE='1112912000 +0000'
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com

# the object sets of git's and fgit's repository, a bitmap git verifies
same_objects()
{
	git -C "$TRASH/w.git" cat-file --batch-all-objects --batch-check | sort >"$CMP/o1" &&
	git -C "$TRASH/w" cat-file --batch-all-objects --batch-check | sort >"$CMP/o2" &&
	diff -u "$CMP/o1" "$CMP/o2" | head -20 && cmp -s "$CMP/o1" "$CMP/o2" &&
	ls "$TRASH/w.git/objects/pack" | sed "s/pack-[0-9a-f]*/pack-X/" >"$CMP/p1" &&
	ls "$TRASH/w/objects/pack" | sed "s/pack-[0-9a-f]*/pack-X/" >"$CMP/p2" &&
	diff -u "$CMP/p1" "$CMP/p2" &&
	fsck_ok "$TRASH/w" && git -C "$TRASH/w" verify-pack "$TRASH"/w/objects/pack/*.idx
}
bitmap_ok()
{
	# HEAD is checked when it has a bitmap (git keeps the old selection
	# too, which may lack it); the ranges below check the others
	git -C "$TRASH/w" rev-list --test-bitmap HEAD >"$CMP/tb" 2>&1
	grep -q "^OK!" "$CMP/tb" || grep -q "have an indexed bitmap" "$CMP/tb" ||
	{ echo "test-bitmap:"; tail -2 "$CMP/tb"; return 1; }
	a=$(git -C "$TRASH/w" rev-list --use-bitmap-index --count --objects --all) &&
	b=$(git -C "$TRASH/w.git" rev-list --count --objects --all) &&
	[ "$a" = "$b" ] || { echo "counts: $a (fgit, bitmap) $b (git)"; return 1; }
	for r in "main~200..main" "main~30 --not main~300" "--all --not main~100"; do
		git -C "$TRASH/w" rev-list --use-bitmap-index --objects $r | cut -c1-40 | sort >"$CMP/b1" &&
		git -C "$TRASH/w" rev-list --objects $r | cut -c1-40 | sort >"$CMP/b2" &&
		cmp -s "$CMP/b1" "$CMP/b2" || { echo "objects differ: $r"; return 1; }
	done
}

plain() { cp -a "$TRASH/bm.git/." .; }
deleted() { plain && git update-ref -d refs/heads/gone; }
moved() { plain && git update-ref refs/heads/side main~77 && git tag mid main~133 &&
	  git update-ref -d refs/tags/v1; }
reflog() { plain && git update-ref refs/heads/tmp main~10 && git update-ref -d refs/heads/gone; }
newtip() { plain && c=$(git commit-tree -p main -m new main^{tree}) &&
	   git update-ref refs/heads/new "$c"; }
blobtag() { plain && git tag -a -m blob blobtag "$(git rev-parse main:s1)"; }
nohash() { cp -a "$TRASH/nohash.git/." . && git update-ref -d refs/heads/gone; }
symref() { plain && git symbolic-ref HEAD refs/heads/side && git update-ref -d refs/heads/main; }

test_expect_success 'repack -ad from the old bitmap: git objects, a bitmap git verifies' '
	compare_write plain repack -adq && same_objects && bitmap_ok
'
test_expect_success 'a ref deleted since the bitmap: its commits go, as with git' '
	compare_write deleted repack -adq && same_objects && bitmap_ok &&
	! git -C w cat-file -e "$(git -C tmpl rev-parse gone)" 2>/dev/null
'
test_expect_success 'refs moved to commits without a bitmap, a tag deleted' '
	compare_write moved repack -adq && same_objects && bitmap_ok
'
test_expect_success 'a reflog keeps a commit no ref reaches' '
	compare_write reflog repack -adq && same_objects && bitmap_ok &&
	git -C w cat-file -e "$(git -C tmpl rev-parse tmp)"
'
test_expect_success 'a tip added since the bitmap (loose), a tag on a blob' '
	compare_write newtip repack -adq && same_objects && bitmap_ok &&
	compare_write blobtag repack -adq && same_objects && bitmap_ok
'
test_expect_success 'a bitmap without name-hash cache; HEAD on another branch' '
	compare_write nohash repack -adq && same_objects && bitmap_ok &&
	compare_write symref repack -adq && same_objects && bitmap_ok
'
test_expect_success 'repack -Ad loosens what the bitmap count left out, as git' '
	compare_write deleted repack -Adq && same_objects
'
test_done
