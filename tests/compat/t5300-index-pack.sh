#!/bin/sh
# index-pack, verify-pack and show-index against git on packs git made and on
# hand-made bad packs: same stdout and exit code, byte-identical .idx/.rev,
# and nothing left behind when a pack is refused.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
MKPACK="python3 $HERE/mkpack-index.py"

git init -q small && (
	cd small &&
	for i in $(seq 1 30); do
		seq 1 $((i * 20)) >f$((i % 5)) && echo $i >>g &&
		git add . && git commit -qm c$i || exit 1
	done &&
	git tag -a -m tag v1 && git repack -adq
) || exit 1
SMALL=$(ls "$TRASH"/small/.git/objects/pack/*.pack)

git init -q deep && (
	cd deep &&
	sh "$HERE/gen-history.sh" 600 30 | git fast-import --quiet &&
	git repack -adfq --depth=50 --window=50
) || exit 1
DEEP=$(ls "$TRASH"/deep/.git/objects/pack/*.pack)

# index_both PACK ARGS...: run git and fgit index-pack ARGS on copies of PACK
# named p.pack in g/ and f/; same stdout and exit code, same files.
index_both()
{
	_p=$1; shift
	rm -rf "$TRASH/g" "$TRASH/f" && mkdir "$TRASH/g" "$TRASH/f" &&
	cp "$_p" "$TRASH/g/p.pack" && cp "$_p" "$TRASH/f/p.pack" &&
	g_rc=0 && f_rc=0 &&
	{ (cd "$TRASH/g" && git index-pack "$@" >"$CMP/git.out" 2>"$CMP/git.err") || g_rc=$?; } &&
	{ (cd "$TRASH/f" && "$FGIT" index-pack "$@" >"$CMP/fgit.out" 2>"$CMP/fgit.err") || f_rc=$?; } &&
	{ cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail index-pack "$@"; } &&
	same_files
}

same_files()
{
	(cd "$TRASH/g" && ls -l | awk '{print $1, $5, $9}') >"$CMP/gl" &&
	(cd "$TRASH/f" && ls -l | awk '{print $1, $5, $9}') >"$CMP/fl" &&
	diff -u "$CMP/gl" "$CMP/fl" &&
	for x in $(cd "$TRASH/g" && ls); do cmp "$TRASH/g/$x" "$TRASH/f/$x" || return 1; done
}

for what in SMALL DEEP; do
	eval "P=\$$what"
	test_expect_success "$what: .idx identical, hash on stdout" '
		index_both "$P" p.pack
	'
	test_expect_success "$what: --threads=1 and --threads=2" '
		index_both "$P" --threads=1 p.pack && index_both "$P" --threads=2 p.pack
	'
	test_expect_success "$what: --rev-index writes an identical .rev" '
		index_both "$P" --rev-index p.pack && test -f "$TRASH/f/p.rev"
	'
	test_expect_success "$what: -o and --index-version=1" '
		index_both "$P" -o x.idx p.pack && index_both "$P" --index-version=1 -o v1.idx p.pack
	'
	test_expect_success "$what: 64-bit offset table (--index-version=2,0x100)" '
		index_both "$P" --index-version=2,0x100 --rev-index p.pack
	'
	test_expect_success "$what: verify-pack -v, -s and plain" '
		index_both "$P" p.pack && cd "$TRASH/f" &&
		compare verify-pack -v p.idx && compare verify-pack -s p.pack p &&
		compare verify-pack p.idx
	'
	test_expect_success "$what: show-index of v2, v1 and 64-bit offsets" '
		index_both "$P" p.pack && cd "$TRASH/f" &&
		compare_stdin p.idx show-index &&
		"$FGIT" index-pack --index-version=1 -o v1.idx p.pack >/dev/null &&
		compare_stdin v1.idx show-index &&
		"$FGIT" index-pack --index-version=2,0x40 -o big.idx p.pack >/dev/null &&
		compare_stdin big.idx show-index
	'
done

# stdin_both PACK ARGS...: index-pack --stdin ARGS in clones of an empty
# repository; same stdout and exit code, same files in objects/pack.
stdin_both()
{
	rm -rf "$TRASH/r" && git init -q --bare "$TRASH/r" && stdin_in_r "$@"
}

# stdin_in_r PACK ARGS...: the same in copies of the repository $TRASH/r.
stdin_in_r()
{
	_p=$1; shift
	rm -rf "$TRASH/g" "$TRASH/f" &&
	cp -R "$TRASH/r" "$TRASH/g" && cp -R "$TRASH/r" "$TRASH/f" &&
	g_rc=0 && f_rc=0 &&
	{ (cd "$TRASH/g" && git index-pack --stdin "$@" <"$_p" >"$CMP/git.out" 2>"$CMP/git.err") || g_rc=$?; } &&
	{ (cd "$TRASH/f" && "$FGIT" index-pack --stdin "$@" <"$_p" >"$CMP/fgit.out" 2>"$CMP/fgit.err") || f_rc=$?; } &&
	{ cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail index-pack --stdin "$@"; } &&
	if [ "$g_rc" != 0 ]; then
		# git leaves its tmp_pack_* behind; fgit leaves nothing.
		test "$(ls "$TRASH/f/objects/pack")" = "$(ls "$TRASH/r/objects/pack")"
		return
	fi &&
	(cd "$TRASH/g/objects/pack" && ls -l | awk '{print $1, $5, $9}') >"$CMP/gl" &&
	(cd "$TRASH/f/objects/pack" && ls -l | awk '{print $1, $5, $9}') >"$CMP/fl" &&
	diff -u "$CMP/gl" "$CMP/fl" &&
	for x in $(cd "$TRASH/g/objects/pack" && ls); do
		cmp "$TRASH/g/objects/pack/$x" "$TRASH/f/objects/pack/$x" || return 1
	done
}

test_expect_success '--stdin: pack stored in objects/pack, "pack\t<hash>"' '
	stdin_both "$DEEP" && fsck_ok "$TRASH/f"
'
test_expect_success '--stdin --keep and --keep=<msg>: "keep\t<hash>" and the .keep' '
	stdin_both "$SMALL" --keep && stdin_both "$DEEP" --keep="fetch from somewhere"
'
test_expect_success '--stdin --rev-index, --threads=1, -v' '
	stdin_both "$SMALL" --rev-index && stdin_both "$DEEP" --threads=1 -v
'
test_expect_success '--stdin -v and --progress-title: final meter lines (rate masked)' '
	for title in "" "Foo bar"; do
		stdin_both "$DEEP" -v ${title:+--progress-title "$title"} &&
		tr "\r" "\n" <"$CMP/git.err" | grep "done\.$" | sed "s/| [0-9.]* [KMG]*i*B*\/s/| RATE/" >"$CMP/g.m" &&
		tr "\r" "\n" <"$CMP/fgit.err" | grep "done\.$" | sed "s/| [0-9.]* [KMG]*i*B*\/s/| RATE/" >"$CMP/f.m" &&
		test -s "$CMP/g.m" && diff -u "$CMP/g.m" "$CMP/f.m" || return 1
	done
'
test_expect_success '--stdin from a pipe, with a named output pack' '
	rm -rf g f && git init -q --bare g && git init -q --bare f &&
	(cd g && cat "$DEEP" | git index-pack --stdin "$TRASH/g/out.pack") >"$CMP/git.out" &&
	(cd f && cat "$DEEP" | "$FGIT" index-pack --stdin "$TRASH/f/out.pack") >"$CMP/fgit.out" &&
	cmp "$CMP/git.out" "$CMP/fgit.out" &&
	cmp g/out.pack f/out.pack && cmp g/out.idx f/out.idx
'
# thin_both BASE-REV PACK ARGS...: index-pack --stdin ARGS of a thin pack in
# bare repositories holding deep's history up to BASE-REV (pushed by git).
thin_both()
{
	_b=$1; _p=$2; shift 2
	rm -rf "$TRASH/r" && git init -q --bare "$TRASH/r" &&
	if [ -n "$_b" ]; then (cd "$TRASH/deep" && git push -q "$TRASH/r" "$_b:refs/heads/main"); fi &&
	stdin_in_r "$_p" "$@"
}

test_expect_success '--fix-thin: thin pack completed with local bases, pack and .idx identical' '
	(cd deep && printf "%s\n^%s\n" $(git rev-parse main) $(git rev-parse main~60) |
	 git pack-objects --revs --thin --stdout -q) >thin.pack &&
	git verify-pack thin.pack 2>/dev/null; test $? != 0 || true &&
	thin_both main~60 "$TRASH/thin.pack" --fix-thin &&
	test -n "$(ls "$TRASH/f/objects/pack/"*.pack)" &&
	thin_both main~60 "$TRASH/thin.pack" --fix-thin --threads=1 -v --rev-index &&
	tr "\r" "\n" <"$CMP/git.err" | grep "local objects\.$" >"$CMP/g.m" &&
	tr "\r" "\n" <"$CMP/fgit.err" | grep "local objects\.$" >"$CMP/f.m" &&
	test -s "$CMP/g.m" && diff -u "$CMP/g.m" "$CMP/f.m" && fsck_ok "$TRASH/f"
'
test_expect_success '--fix-thin: bases missing locally stay unresolved; without --stdin refused' '
	thin_both "" "$TRASH/thin.pack" --fix-thin && thin_both main~60 "$TRASH/thin.pack" &&
	cp thin.pack t.pack && compare_fail index-pack --fix-thin t.pack
'
test_expect_success 'an object the repository has with other content: SHA1 COLLISION' '
	rm -rf r && git init -q --bare r &&
	x=$(git -C small rev-parse HEAD:f1) &&
	mkdir -p r/objects/$(echo $x | cut -c1-2) &&
	printf "blob 21\000not the real content\n" | python3 -c "import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))" \
		>r/objects/$(echo $x | cut -c1-2)/$(echo $x | cut -c3-) &&
	stdin_in_r "$SMALL" && grep "SHA1 COLLISION FOUND WITH $x !" "$CMP/fgit.err" &&
	stdin_in_r "$SMALL" --threads=1 && diff -u "$CMP/git.err" "$CMP/fgit.err" &&
	cp "$SMALL" "$TRASH/r/c.pack" && cd r && compare_err index-pack c.pack
'
test_expect_success 'objects the repository has already, with the same content: accepted' '
	rm -rf r && git clone -q --bare small r && stdin_in_r "$SMALL" && test -s "$CMP/fgit.out"
'
test_expect_success '--stdin outside a repository fails as git does' '
	mkdir -p nore && cd nore && GIT_CEILING_DIRECTORIES=$TRASH compare_stdin "$SMALL" index-pack --stdin
'
test_expect_success 'usage errors exit 129' '
	compare index-pack && compare index-pack --bogus x.pack &&
	compare index-pack a.pack b.pack && compare index-pack --threads=x a.pack
'
test_expect_success 'a pack name not ending in .pack' '
	cp "$SMALL" x.pk && compare_fail index-pack x.pk &&
	compare_fail index-pack --rev-index -o y.foo x.pk
'
test_expect_success 'pack.writeReverseIndex and pack.indexVersion from the configuration' '
	rm -rf g f && mkdir g f && cp "$DEEP" g/p.pack && cp "$DEEP" f/p.pack &&
	(cd g && git -c pack.writeReverseIndex=true -c pack.indexVersion=1 index-pack p.pack) >"$CMP/git.out" &&
	(cd f && "$FGIT" -c pack.writeReverseIndex=true -c pack.indexVersion=1 index-pack p.pack) >"$CMP/fgit.out" &&
	cmp "$CMP/git.out" "$CMP/fgit.out" && same_files && test -f f/p.rev &&
	rm -rf g f && mkdir g f && cp "$DEEP" g/p.pack && cp "$DEEP" f/p.pack &&
	(cd g && git -c pack.writeReverseIndex=true index-pack --no-rev-index p.pack) >"$CMP/git.out" &&
	(cd f && "$FGIT" -c pack.writeReverseIndex=true index-pack --no-rev-index p.pack) >"$CMP/fgit.out" &&
	same_files && ! test -f f/p.rev &&
	cd f && compare -c pack.indexVersion=3 index-pack p.pack
'
test_expect_success '-v: final progress lines as git prints them' '
	index_both "$DEEP" -v p.pack &&
	tr "\r" "\n" <"$CMP/git.err" | grep "done\.$" >"$CMP/g.meters" &&
	tr "\r" "\n" <"$CMP/fgit.err" | grep "done\.$" >"$CMP/f.meters" &&
	diff -u "$CMP/g.meters" "$CMP/f.meters"
'

# Hand-made packs (mkpack-index.py): each refused like git (exit code, "fatal:"
# or "error:" first), with no .idx left behind; the good ones identical.
for c in ok duplicate empty; do
	test_expect_success "hand-made pack: $c" '
		$MKPACK '$c' "$TRASH/mk.pack" && index_both "$TRASH/mk.pack" --rev-index p.pack
	'
done
for c in size-larger size-smaller size-overflow bad-type zlib-corrupt ofs-out-of-bound \
	 ofs-mid-entry missing-base delta-outside-base delta-base-size delta-result-size \
	 ref-cycle count-too-high bad-version bad-signature; do
	test_expect_success "bad pack refused: $c" '
		$MKPACK '$c' "$TRASH/mk.pack" && index_both "$TRASH/mk.pack" p.pack &&
		head -1 "$CMP/git.err" | cut -d: -f1 >"$CMP/gp" &&
		head -1 "$CMP/fgit.err" | cut -d: -f1 >"$CMP/fp" &&
		cmp "$CMP/gp" "$CMP/fp" && ! test -f "$TRASH/f/p.idx"
	'
done
test_expect_success 'same messages as git for bad packs' '
	for c in size-larger size-smaller bad-type zlib-corrupt ofs-out-of-bound missing-base \
		 delta-outside-base delta-base-size ref-cycle count-too-high bad-version; do
		$MKPACK $c "$TRASH/mk.pack" && index_both "$TRASH/mk.pack" p.pack &&
		{ diff -u "$CMP/git.err" "$CMP/fgit.err" || return 1; }
	done
'
test_expect_success '--strict refuses duplicates like git' '
	$MKPACK duplicate "$TRASH/mk.pack" && cp mk.pack d.pack &&
	compare_fail index-pack --strict d.pack 2>/dev/null
'

test_expect_success 'truncated pack and bad trailer, from a file and from stdin' '
	head -c 3000 "$DEEP" >"$TRASH/t.pack" && index_both "$TRASH/t.pack" p.pack &&
	! test -f "$TRASH/f/p.idx" &&
	stdin_both "$TRASH/t.pack" && test -z "$(ls "$TRASH/f/objects/pack")" &&
	cp "$DEEP" "$TRASH/c.pack" && chmod u+w "$TRASH/c.pack" &&
	printf "\377" | dd of="$TRASH/c.pack" bs=1 seek=$(($(wc -c <"$DEEP") - 1)) conv=notrunc 2>/dev/null &&
	index_both "$TRASH/c.pack" p.pack && stdin_both "$TRASH/c.pack" &&
	test -z "$(ls "$TRASH/f/objects/pack")"
'
test_expect_success 'junk after the pack: refused from a file' '
	cat "$SMALL" >"$TRASH/j.pack" && echo junk >>"$TRASH/j.pack" &&
	index_both "$TRASH/j.pack" p.pack && stdin_both "$TRASH/j.pack"
'
test_expect_success 'verify-pack on a corrupt pack: "bad" and exit 1, others still checked' '
	rm -rf v && mkdir v && cd v && cp "$SMALL" ok.pack && cp "$DEEP" bad.pack &&
	git index-pack ok.pack >/dev/null && git index-pack bad.pack >/dev/null &&
	chmod u+w bad.pack && printf "\377" | dd of=bad.pack bs=1 seek=40 conv=notrunc 2>/dev/null &&
	compare_fail verify-pack -v bad.idx ok.idx && compare verify-pack -s ok.idx
'
test_expect_success 'show-index on truncated input' '
	head -c 500 "$TRASH/small/.git/objects/pack/"*.idx >cut.idx &&
	compare_fail show-index <cut.idx &&
	: >empty && compare_stdin empty show-index
'
test_expect_success 'a pack fgit indexed is accepted by git (verify-pack, fsck)' '
	rm -rf r && git init -q --bare r && cd r &&
	"$FGIT" index-pack --stdin <"$DEEP" >/dev/null &&
	git verify-pack objects/pack/*.idx && git fsck --strict --no-progress --no-dangling 2>&1 >/dev/null | grep -v "^notice" | { ! grep .; }
'

# An object above 64 MiB is inflated and named in pieces (lib/pack/indexer.c
# BIG_OBJECT): the same .idx as git's, in far less memory than the object.
test_expect_success 'a 100 MB blob: same .idx as git, peak RSS far below the object' '
	rm -rf bigr && git init -q bigr && cd bigr &&
	head -c 100000000 /dev/urandom >big && echo small >small &&
	git -c core.bigFileThreshold=1g add big small && git commit -qm big &&
	git -c core.bigFileThreshold=1g -c pack.compression=1 repack -adq &&
	BIG=$(ls "$TRASH"/bigr/.git/objects/pack/*.pack) &&
	index_both "$BIG" -o p.idx p.pack && index_both "$BIG" --threads=1 -o p.idx p.pack &&
	rm -rf "$TRASH/f" && mkdir "$TRASH/f" && cp "$BIG" "$TRASH/f/p.pack" &&
	/usr/bin/time -f %M -o "$CMP/rss" "$FGIT" index-pack "$TRASH/f/p.pack" >/dev/null &&
	echo "peak RSS $(cat "$CMP/rss") KiB for a 97657 KiB blob" && test "$(cat "$CMP/rss")" -lt 32768 &&
	rm -rf "$TRASH/r" && git init -q --bare "$TRASH/r" && cd "$TRASH/r" &&
	cat "$BIG" | /usr/bin/time -f %M -o "$CMP/rss" "$FGIT" index-pack --stdin >/dev/null &&
	echo "--stdin: peak RSS $(cat "$CMP/rss") KiB" && test "$(cat "$CMP/rss")" -lt 32768 &&
	git cat-file blob $(git -C "$TRASH/bigr" rev-parse HEAD:big) | cmp - "$TRASH/bigr/big" &&
	git fsck --strict --no-progress --no-dangling 2>&1 >/dev/null | grep -v "^notice" | { ! grep .; }
'

test_done
