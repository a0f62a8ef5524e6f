#!/bin/sh
# pack-objects against git: packs compared as object sets (sorted
# show-index ids), accepted by git index-pack/verify-pack; .idx and .rev
# byte-identical to what git index-pack writes for fgit's pack; options,
# stdin forms, filters, progress totals, bad input.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

git init -q repo && cd repo &&
sh "$HERE/gen-history.sh" 300 20 5 | git fast-import --quiet && git checkout -q main &&
git tag -a -m t1 t1 main~100 && git tag light main~50 && git branch side main~20 &&
git repack -adq && echo loose1 >l1 && echo loose2 >l2 && git add l1 l2 &&
git commit -q -m loose && cd "$TRASH" && : >"$TRASH/empty" || exit 1

# ids in a pack, sorted: index it with git (which also checks it)
pack_ids()
{
	rm -f "$TRASH/chk.idx" "$TRASH/chk.pack" && cp "$1" "$TRASH/chk.pack" &&
	git index-pack --strict "$TRASH/chk.pack" >/dev/null &&
	git show-index <"$TRASH/chk.idx" | cut -d" " -f2 | sort
}

# same_pack_objects STDIN ARGS...: --stdout packs of git and fgit hold the same objects
same_pack_objects()
{
	_in=$1; shift
	git pack-objects --stdout "$@" <"$_in" >"$TRASH/g.pack" 2>/dev/null || return 1
	"$FGIT" pack-objects --stdout "$@" <"$_in" >"$TRASH/f.pack" 2>"$TRASH/f.err" ||
		{ cat "$TRASH/f.err"; return 1; }
	pack_ids "$TRASH/g.pack" >"$TRASH/g.ids" && pack_ids "$TRASH/f.pack" >"$TRASH/f.ids" &&
	git verify-pack "$TRASH/chk.idx" >/dev/null &&
	{ cmp -s "$TRASH/g.ids" "$TRASH/f.ids" || { echo "objects differ: $*";
	  diff "$TRASH/g.ids" "$TRASH/f.ids" | head -5; return 1; }; }
}

test_expect_success 'object list on stdin' '
	(cd repo && git rev-list --objects --all >"$TRASH/list" &&
	 same_pack_objects "$TRASH/list" && same_pack_objects "$TRASH/list" --delta-base-offset &&
	 git rev-list --objects main~5..main | cut -d" " -f1 >"$TRASH/bare" &&
	 same_pack_objects "$TRASH/bare")'
test_expect_success '--revs, --all, --reflog, --indexed-objects' '
	(cd repo && printf "main\n" >"$TRASH/r1" && same_pack_objects "$TRASH/r1" --revs &&
	 printf "main\n^side\n" >"$TRASH/r2" && same_pack_objects "$TRASH/r2" --revs &&
	 printf "t1\n--not\nmain~150\n" >"$TRASH/r3" && same_pack_objects "$TRASH/r3" --revs &&
	 printf "side..main\n" >"$TRASH/r4" && same_pack_objects "$TRASH/r4" --revs &&
	 : >"$TRASH/empty" && same_pack_objects "$TRASH/empty" --all &&
	 same_pack_objects "$TRASH/empty" --all --reflog --indexed-objects &&
	 same_pack_objects "$TRASH/r4" --revs --indexed-objects)'
test_expect_success 'reuse and delta options' '
	(cd repo && same_pack_objects "$TRASH/empty" --all --no-reuse-delta &&
	 same_pack_objects "$TRASH/empty" --all --no-reuse-object --threads=2 &&
	 same_pack_objects "$TRASH/empty" --all --window=0 &&
	 same_pack_objects "$TRASH/empty" --all --no-reuse-delta --window=3 --depth=4 --threads=1 &&
	 git verify-pack -v "$TRASH/chk.idx" | grep "^chain length" >"$TRASH/chains" &&
	 ! grep -q "chain length = [5-9]" "$TRASH/chains" &&
	 same_pack_objects "$TRASH/empty" --all --no-reuse-delta --window-memory=64k)'
test_expect_success 'reused pack is byte-identical to git where all entries are reused' '
	(cd repo && git repack -adq &&
	 git pack-objects --all --stdout -q --delta-base-offset <"$TRASH/empty" >"$TRASH/g.pack" &&
	 "$FGIT" pack-objects --all --stdout -q --delta-base-offset <"$TRASH/empty" >"$TRASH/f.pack" &&
	 cmp "$TRASH/g.pack" "$TRASH/f.pack")'
test_expect_success 'filters: --incremental, --unpacked, --honor-pack-keep, --keep-pack, --local' '
	(cd repo && echo more >l3 && git add l3 && git commit -q -m more &&
	 same_pack_objects "$TRASH/empty" --all --incremental &&
	 printf "main\n" >"$TRASH/r1" && same_pack_objects "$TRASH/r1" --revs --unpacked &&
	 p=$(ls .git/objects/pack/*.pack | head -1) && touch "${p%.pack}.keep" &&
	 same_pack_objects "$TRASH/empty" --all --honor-pack-keep &&
	 rm "${p%.pack}.keep" &&
	 same_pack_objects "$TRASH/empty" --all --keep-pack="$(basename "$p")" &&
	 same_pack_objects "$TRASH/empty" --all --local)'
test_expect_success '<base-name>: files, printed name, .idx and .rev as git index-pack writes them' '
	(cd repo && git rev-list --objects --all >"$TRASH/list" &&
	 h=$("$FGIT" pack-objects -q "$TRASH/out/p" <"$TRASH/list" 2>&1) || true;
	 mkdir -p "$TRASH/out" && h=$("$FGIT" pack-objects -q "$TRASH/out/p" <"$TRASH/list") &&
	 test -f "$TRASH/out/p-$h.pack" && test -f "$TRASH/out/p-$h.idx" &&
	 test ! -f "$TRASH/out/p-$h.rev" &&
	 test "$(tail -c 20 "$TRASH/out/p-$h.pack" | od -An -tx1 | tr -d " \n")" = "$h" &&
	 git index-pack --rev-index -o "$TRASH/out/chk.idx" "$TRASH/out/p-$h.pack" >/dev/null &&
	 cmp "$TRASH/out/chk.idx" "$TRASH/out/p-$h.idx" &&
	 git -c pack.writeReverseIndex=true pack-objects -q "$TRASH/out/g" <"$TRASH/list" >/dev/null &&
	 h2=$("$FGIT" -c pack.writeReverseIndex=true pack-objects -q --delta-base-offset "$TRASH/out/q" <"$TRASH/list") &&
	 git index-pack --rev-index -o "$TRASH/out/chk2.idx" "$TRASH/out/q-$h2.pack" >/dev/null &&
	 cmp "$TRASH/out/chk2.idx" "$TRASH/out/q-$h2.idx" && cmp "$TRASH/out/chk2.rev" "$TRASH/out/q-$h2.rev")'
test_expect_success 'progress totals' '
	(cd repo && git pack-objects --all --stdout --progress <"$TRASH/empty" 2>&1 >/dev/null |
		tr "\r" "\n" | grep -E "^(Enumerating|Counting) .*done" >"$TRASH/gp" &&
	 "$FGIT" pack-objects --all --stdout --progress <"$TRASH/empty" 2>&1 >/dev/null |
		tr "\r" "\n" | grep -E "^(Enumerating|Counting) .*done" >"$TRASH/fp" &&
	 cmp "$TRASH/gp" "$TRASH/fp" &&
	 "$FGIT" pack-objects --all --stdout --progress <"$TRASH/empty" 2>&1 >/dev/null |
		grep -q "^Total [0-9]* (delta [0-9]*), reused [0-9]* (delta [0-9]*), pack-reused 0$" &&
	 "$FGIT" pack-objects --all --stdout -q <"$TRASH/empty" 2>"$TRASH/q.err" >/dev/null &&
	 test ! -s "$TRASH/q.err")'
test_expect_success '--thin: deltas against the edges, completed by index-pack --fix-thin' '
	(cd repo && printf "main\n^main~8\n" >"$TRASH/rt" &&
	 "$FGIT" pack-objects --revs --stdout -q <"$TRASH/rt" >"$TRASH/full.pack" &&
	 "$FGIT" pack-objects --revs --stdout -q --thin <"$TRASH/rt" >"$TRASH/thin.pack" &&
	 test $(wc -c <"$TRASH/thin.pack") -lt $(wc -c <"$TRASH/full.pack") &&
	 rm -rf "$TRASH/thin.git" && git init -q --bare "$TRASH/thin.git" &&
	 git push -q "$TRASH/thin.git" main~8:refs/heads/base &&
	 git -C "$TRASH/thin.git" index-pack --stdin --fix-thin <"$TRASH/thin.pack" >/dev/null &&
	 git -C "$TRASH/thin.git" update-ref refs/heads/main $(git rev-parse main) &&
	 git -C "$TRASH/thin.git" fsck --strict --no-progress 2>&1 &&
	 git rev-list --objects main ^main~8 | cut -d" " -f1 | sort >"$TRASH/want" &&
	 git -C "$TRASH/thin.git" rev-list --objects main ^base | cut -d" " -f1 | sort >"$TRASH/got" &&
	 cmp "$TRASH/want" "$TRASH/got" &&
	 test_must_129() { "$@"; test $? = 128 || test $? = 129; } &&
	 ! "$FGIT" pack-objects --thin "$TRASH/x" <"$TRASH/rt" 2>/dev/null)'
test_expect_success '--all --stdout from a bitmap: the pack as git sends it' '
	rm -rf bm.git && git clone -q --bare --no-local repo bm.git &&
	(cd bm.git && git tag old main~37 && git tag -a -m late late main~123 && git repack -adbq &&
	 git pack-objects --all --stdout --progress <"$TRASH/empty" >"$TRASH/g.pack" 2>"$TRASH/g.err" &&
	 "$FGIT" pack-objects --all --stdout --progress <"$TRASH/empty" >"$TRASH/f.pack" 2>"$TRASH/f.err" &&
	 cmp "$TRASH/g.pack" "$TRASH/f.pack" &&
	 tr "\r" "\n" <"$TRASH/g.err" | grep -E "done|Total" >"$TRASH/g.lines" &&
	 tr "\r" "\n" <"$TRASH/f.err" | grep -E "done|Total" >"$TRASH/f.lines" &&
	 cmp "$TRASH/g.lines" "$TRASH/f.lines" &&
	 git pack-objects --all --stdout -q --delta-base-offset <"$TRASH/empty" >"$TRASH/g.pack" &&
	 "$FGIT" pack-objects --all --stdout -q --delta-base-offset <"$TRASH/empty" >"$TRASH/f.pack" &&
	 cmp "$TRASH/g.pack" "$TRASH/f.pack" &&
	 git tag -a -m loose newtag $(git commit-tree -m x main^{tree}) &&
	 same_pack_objects "$TRASH/empty" --all)'
test_expect_success 'bad input' '
	(cd repo && echo garbage >"$TRASH/bad" && compare_fail pack-objects --stdout <"$TRASH/bad" &&
	 echo 0123456789012345678901234567890123456789 >"$TRASH/missing" &&
	 compare_fail pack-objects --stdout <"$TRASH/missing" &&
	 printf "nosuch\n" >"$TRASH/badrev" && compare_fail pack-objects --revs --stdout <"$TRASH/badrev" &&
	 compare pack-objects && compare pack-objects --no-such-option)'
test_done
