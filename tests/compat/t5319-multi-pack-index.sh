#!/bin/sh
# multi-pack-index write/verify/expire against git: the same stdout, stderr
# and exit code, a byte-identical multi-pack-index, the same files left in
# objects/pack, and git's verify accepting what fgit wrote.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

# Six packs: five incremental ones, then one holding everything again (so
# every object has two copies); mtimes set so that some copies tie.
git init -q base && (
	cd base &&
	for i in 1 2 3 4 5; do
		for j in 1 2 3; do seq $i $((i * 40 + j)) >f$j; done &&
		mkdir -p d$i && echo $i >d$i/x &&
		git add . && git commit -qm c$i && git repack -dq || exit 1
	done &&
	git repack -aq &&
	n=0 && for p in $(ls .git/objects/pack/*.pack); do
		n=$((n + 1)); touch -d "2020-01-0$(( (n % 3) + 1 )) 00:00:00" $p
	done
) || exit 1

# copies_run SETUP ARGS...: copy base (or $MIDX_BASE) to g/ and f/, run SETUP in each (a
# shell snippet), then git ARGS in g and fgit ARGS in f (stdin from
# $MIDX_STDIN if set); same stdout and exit code.
copies_run()
{
	_s=$1; shift
	for d in g f; do
		rm -rf "$TRASH/$d" && cp -a "$TRASH/${MIDX_BASE:-base}" "$TRASH/$d" &&
		(cd "$TRASH/$d" && eval "$_s") >/dev/null 2>&1 || { echo "setup failed"; return 1; }
	done
	g_rc=0; (cd "$TRASH/g" && git "$@" <"${MIDX_STDIN:-/dev/null}" >"$CMP/git.out" \
		2>"$CMP/git.err") || g_rc=$?
	f_rc=0; (cd "$TRASH/f" && "$FGIT" "$@" <"${MIDX_STDIN:-/dev/null}" >"$CMP/fgit.out" \
		2>"$CMP/fgit.err") || f_rc=$?
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

# midx_both SETUP ARGS...: copy base to g/ and f/, run SETUP in each (a
# shell snippet), then git ARGS in g and fgit ARGS in f; same stdout, stderr
# and exit code, same files in objects/pack, identical midx.
midx_both()
{
	copies_run "$@" || return 1
	# progress meters: only each meter's final line is compared
	for x in git fgit; do
		tr '\r' '\n' <"$CMP/$x.err" | grep -v '%.*[0-9])$' >"$CMP/$x.err2"
	done
	cmp -s "$CMP/git.err2" "$CMP/fgit.err2" || {
		echo "stderr differs"; diff -u "$CMP/git.err2" "$CMP/fgit.err2"; return 1; }
	(cd "$TRASH/g/.git/objects/pack" && ls) >"$CMP/gl" &&
	(cd "$TRASH/f/.git/objects/pack" && ls) >"$CMP/fl" &&
	diff -u "$CMP/gl" "$CMP/fl" || return 1
	if [ -f "$TRASH/g/.git/objects/pack/multi-pack-index" ]; then
		cmp "$TRASH/g/.git/objects/pack/multi-pack-index" \
			"$TRASH/f/.git/objects/pack/multi-pack-index" || return 1
		if git -C "$TRASH/g" multi-pack-index verify 2>/dev/null; then
			git -C "$TRASH/f" multi-pack-index verify || return 1
		fi
	fi
	return 0
}

first_pack() { ls .git/objects/pack/*.pack | head -${1:-1} | tail -1 | xargs basename; }

test_expect_success 'write over six packs with duplicates: identical midx' '
	midx_both : multi-pack-index write
'
# Offsets past 2 GiB and 4 GiB need packs that big, so these .idx files
# are made by hand (names are SHA-1s of counters, copies shared between
# packs), each beside an empty .pack: writing a midx reads only the .idx.
git init -q big && python3 - big/.git/objects/pack <<\PYEOF || exit 1
import hashlib, os, struct, sys, zlib
def idx(name, objs):
    objs = sorted(objs)
    out = bytearray(b"\377tOc" + struct.pack(">I", 2))
    fan = [0] * 256
    for n, _ in objs:
        fan[n[0]] += 1
    total = 0
    for c in fan:
        total += c
        out += struct.pack(">I", total)
    for n, _ in objs:
        out += n
    for n, _ in objs:
        out += struct.pack(">I", zlib.crc32(n))
    large = []
    for _, off in objs:
        if off < 1 << 31:
            out += struct.pack(">I", off)
        else:
            out += struct.pack(">I", 0x80000000 | len(large))
            large.append(off)
    for off in large:
        out += struct.pack(">Q", off)
    out += hashlib.sha1(name.encode()).digest()
    out += hashlib.sha1(out).digest()
    base = os.path.join(sys.argv[1], "pack-" + hashlib.sha1(name.encode()).hexdigest())
    open(base + ".idx", "wb").write(out)
    open(base + ".pack", "wb").close()
oid = lambda i: hashlib.sha1(b"obj %d" % i).digest()
idx("small", [(oid(i), 12 + 100 * i) for i in range(0, 300)])
# the first entry of a pack is at 12: a .idx cannot have only large offsets
idx("2g", [(oid(i), 12 if i == 200 else (1 << 31) + 37 * i) for i in range(200, 500)])
idx("5g", [(oid(i), 12 if i == 450 else (5 << 30) + 41 * i) for i in range(450, 700)])
PYEOF
(cd big/.git/objects/pack && n=0 && for p in *.pack; do
	n=$((n + 1)); touch -d "2020-02-0$n 00:00:00" $p; done) || exit 1
test_expect_success 'offsets over 31 and 32 bits (LOFF), with and without an old midx' '
	MIDX_BASE=big midx_both "rm .git/objects/pack/pack-\$(echo -n 5g | sha1sum | cut -c1-40).*" \
		multi-pack-index write &&
	MIDX_BASE=big midx_both : multi-pack-index write &&
	MIDX_BASE=big midx_both "echo pack-\$(echo -n small | sha1sum | cut -c1-40).idx | git multi-pack-index write --stdin-packs" \
		multi-pack-index write &&
	MIDX_BASE=big midx_both "git multi-pack-index write" \
		multi-pack-index write --preferred-pack=pack-$(echo -n 2g | sha1sum | cut -c1-40).pack
'
test_expect_success 'broken .idx files: git'"'"'s error, then its warning' '
	MIDX_BASE=big midx_both "cd .git/objects/pack && printf \"\\377tOc\" >pack-a.idx && touch pack-a.pack &&
		head -c 3000 \$(ls *.idx | tail -1) >pack-b.idx && touch pack-b.pack" \
		multi-pack-index write
'
test_expect_success 'write --no-progress and --progress (delayed meters stay quiet)' '
	midx_both : multi-pack-index write --no-progress &&
	midx_both : multi-pack-index write --progress
'
test_expect_success '--preferred-pack by .pack and by .idx name' '
	midx_both : multi-pack-index write --preferred-pack=$(ls base/.git/objects/pack/*.pack | sed -n 2p | xargs basename) &&
	midx_both : multi-pack-index write --preferred-pack=$(ls base/.git/objects/pack/*.idx | sed -n 4p | xargs basename)
'
test_expect_success 'unknown preferred pack: git'"'"'s warning' '
	midx_both : multi-pack-index write --preferred-pack=pack-nope.pack
'
test_expect_success 'write again with nothing new leaves the midx alone' '
	midx_both "git multi-pack-index write" multi-pack-index write --preferred-pack=x
'
test_expect_success 'incremental: an existing midx plus new packs' '
	midx_both "git multi-pack-index write && echo new >n && git add n && git commit -qm n && git repack -dq && touch -d 2019-01-01 \$(ls -t .git/objects/pack/*.pack | head -1)" multi-pack-index write
'
test_expect_success 'git reads fgit-written midx, fgit reads git-written one' '
	midx_both "git multi-pack-index write" cat-file --batch-all-objects --batch-check &&
	(cd f && "$FGIT" rev-list 2>/dev/null; git log --format=%H | "$FGIT" cat-file --batch >../f.out) &&
	(cd g && git log --format=%H | git cat-file --batch >../g.out) && cmp f.out g.out
'
test_expect_success 'count-objects -v with a midx (and after expire)' '
	midx_both "git multi-pack-index write" count-objects -v &&
	midx_both "git multi-pack-index write --preferred-pack=\$(ls -S .git/objects/pack/*.pack | head -1 | xargs basename) && git multi-pack-index expire" count-objects -v
'
test_expect_success 'write --stdin-packs' '
	ls base/.git/objects/pack/*.idx | sed -n "2p;5p" | xargs -n1 basename >sel &&
	_stdin=$TRASH/sel &&
	for d in g f; do rm -rf $d && cp -a base $d; done &&
	(cd g && git multi-pack-index write --stdin-packs <../sel) &&
	(cd f && "$FGIT" multi-pack-index write --stdin-packs <../sel) &&
	cmp g/.git/objects/pack/multi-pack-index f/.git/objects/pack/multi-pack-index
'
test_expect_success '--object-dir' '
	midx_both : multi-pack-index --object-dir=.git/objects write &&
	midx_both : multi-pack-index write --object-dir .git/objects
'
test_expect_success 'no packs: error and exit 1, nothing written' '
	midx_both "rm -f .git/objects/pack/*" multi-pack-index write
'
test_expect_success 'verify: sound, absent, bad checksum, missing pack' '
	midx_both "git multi-pack-index write" multi-pack-index verify &&
	midx_both : multi-pack-index verify &&
	midx_both "git multi-pack-index write && chmod u+w .git/objects/pack/multi-pack-index && printf x | dd of=.git/objects/pack/multi-pack-index bs=1 seek=100 conv=notrunc" multi-pack-index verify &&
	midx_both "git multi-pack-index write && printf junk >.git/objects/pack/multi-pack-index" multi-pack-index verify &&
	midx_both "git multi-pack-index write && rm -f \$(ls .git/objects/pack/*.pack | sed -n 2p)" multi-pack-index verify
'
test_expect_success 'verify --progress: final meter lines' '
	midx_both "git multi-pack-index write" multi-pack-index verify --progress
'
test_expect_success 'expire drops packs no midx object uses, keeps .keep' '
	midx_both "git multi-pack-index write --preferred-pack=\$(ls -S .git/objects/pack/*.pack | head -1 | xargs basename)" multi-pack-index expire &&
	midx_both "git multi-pack-index write --preferred-pack=\$(ls -S .git/objects/pack/*.pack | head -1 | xargs basename) && touch \$(ls .git/objects/pack/*.pack | sed -n 3p | sed s/pack\$/keep/)" multi-pack-index expire &&
	midx_both "git multi-pack-index write" multi-pack-index expire &&
	midx_both : multi-pack-index expire
'
test_expect_success 'usage errors exit 129 as git' '
	cd base && compare_err multi-pack-index &&
	compare_err multi-pack-index bogus &&
	compare_err multi-pack-index write extra
'
# multi-pack bitmaps: the same midx (RIDX chunk included) and files as
# git's; the bitmap need not be byte-identical, but git must verify it
bitmap_ok()
{
	for c in $(git -C "$1" rev-list --all | sed -n "1p;2p;\$p"); do
		git -C "$1" rev-list --test-bitmap "$c" >"$CMP/tb" 2>&1 &&
		grep -q "^OK!" "$CMP/tb" || { echo "test-bitmap $c:"; tail -2 "$CMP/tb"; return 1; }
	done &&
	a=$(git -C "$1" rev-list --use-bitmap-index --count --objects --all) &&
	b=$(git -C "$1" rev-list --count --objects --all) &&
	[ "$a" = "$b" ] || { echo "counts differ: $a $b"; return 1; }
	git -C "$1" multi-pack-index verify --no-progress && fsck_ok "$1"
}
test_expect_success 'write --bitmap: oldest pack preferred, RIDX chunk, a bitmap git verifies' '
	midx_both : multi-pack-index write --bitmap && bitmap_ok f &&
	midx_both "touch -d 2019-06-01 \$(ls .git/objects/pack/*.pack | sed -n 4p)" \
		multi-pack-index write --bitmap && bitmap_ok f &&
	midx_both "touch -d 2019-06-01 .git/objects/pack/*.pack" multi-pack-index write --bitmap &&
	bitmap_ok f
'
test_expect_success 'write --bitmap --preferred-pack, unknown preferred pack, --progress' '
	midx_both : multi-pack-index write --bitmap --preferred-pack=$(ls base/.git/objects/pack/*.pack | sed -n 3p | xargs basename) &&
	bitmap_ok f &&
	midx_both : multi-pack-index write --bitmap --preferred-pack=pack-nope.pack && bitmap_ok f &&
	midx_both : multi-pack-index write --bitmap --progress
'
test_expect_success 'write --bitmap --stdin-packs: a closed set; one missing objects' '
	ls -S base/.git/objects/pack/*.idx | sed -n "1p;3p;5p" | xargs -n1 basename >sel3 &&
	MIDX_STDIN=$TRASH/sel3 midx_both : multi-pack-index write --stdin-packs --bitmap &&
	bitmap_ok f &&
	ls base/.git/objects/pack/*.idx | sed -n "2p;5p;6p" | xargs -n1 basename >sel3 &&
	MIDX_STDIN=$TRASH/sel3 midx_both : multi-pack-index write --stdin-packs --bitmap
'
test_expect_success '--preferred-pack over an existing midx: every object of that pack counts' '
	for n in 1 3 6; do
		midx_both "git multi-pack-index write" multi-pack-index write --preferred-pack=$(ls base/.git/objects/pack/*.pack | sed -n ${n}p | xargs basename) || return 1
	done
'
test_expect_success 'write --bitmap over an existing midx: with a bitmap, without, stale' '
	midx_both "git multi-pack-index write --bitmap" multi-pack-index write --bitmap &&
	midx_both "git multi-pack-index write" multi-pack-index write --bitmap && bitmap_ok f &&
	midx_both "git multi-pack-index write --bitmap" multi-pack-index write &&
	midx_both "git multi-pack-index write --bitmap && echo new >n && git add n && git commit -qm n && git repack -dq" \
		multi-pack-index write --bitmap && bitmap_ok f
'
test_expect_success 'a bitmap whose checksum does not match its midx is rewritten' '
	stale="git multi-pack-index write --bitmap && b=\$(ls .git/objects/pack/*.bitmap) && chmod u+w \$b && printf xxxx | dd of=\$b bs=1 seek=12 conv=notrunc" &&
	midx_both "$stale" multi-pack-index write --bitmap && bitmap_ok f &&
	midx_both "git multi-pack-index write --bitmap && b=\$(ls .git/objects/pack/*.bitmap) && chmod u+w \$b && printf junk >\$b" \
		multi-pack-index write --bitmap && bitmap_ok f
'
test_expect_success 'fgit reads around a midx bitmap: pack-objects --all --stdout, count-objects' '
	midx_both "git multi-pack-index write --bitmap" count-objects -v &&
	(cd f && "$FGIT" pack-objects --all --stdout -q >../mb.pack) &&
	git index-pack -o mb.idx mb.pack && git show-index <mb.idx | cut -d" " -f2 | sort >o1 &&
	git -C f rev-list --objects --all | cut -d" " -f1 | sort >o2 && cmp o1 o2
'
test_expect_success 'write --bitmap without any commit: an empty bitmap, as git' '
	blobs="rm -rf .git/objects/pack/* .git/refs/heads/* .git/refs/tags/* .git/logs && echo a | git hash-object -w --stdin | git pack-objects -q .git/objects/pack/pack" &&
	midx_both "$blobs" multi-pack-index write --bitmap &&
	git -C f multi-pack-index verify
'
test_expect_success 'write --bitmap over packs missing a parent: warning, error, exit 1, midx kept' '
	ls -t base/.git/objects/pack/*.idx | tail -n +2 | head -1 | xargs -n1 basename >sel1 &&
	MIDX_STDIN=$TRASH/sel1 copies_run "git multi-pack-index write" \
		multi-pack-index write --stdin-packs --bitmap &&
	tail -1 "$CMP/git.err" >e1 && tail -1 "$CMP/fgit.err" >e2 && cmp e1 e2 &&
	grep "^warning: Failed to write bitmap index. Packfile doesn.t have full closure" "$CMP/fgit.err" &&
	cmp g/.git/objects/pack/multi-pack-index f/.git/objects/pack/multi-pack-index &&
	! ls f/.git/objects/pack/*.bitmap 2>/dev/null
'
test_expect_success 'write --bitmap --refs-snapshot: preferred tips, a bitmap git verifies' '
	midx_both "git rev-parse HEAD~3 | sed s/^/+/ >snap && git rev-parse HEAD HEAD:f1 >>snap" \
		multi-pack-index write --bitmap --refs-snapshot=snap && bitmap_ok f &&
	midx_both "printf \"%s\\r\\n\" \$(git rev-parse HEAD~1) >snap" \
		multi-pack-index write --bitmap --refs-snapshot=snap && bitmap_ok f &&
	midx_both ": >snap" multi-pack-index write --bitmap --refs-snapshot=snap && bitmap_ok f &&
	midx_both "git multi-pack-index write --bitmap" \
		multi-pack-index write --bitmap --refs-snapshot=nonexistent &&
	midx_both : multi-pack-index write --refs-snapshot=nonexistent
'
test_expect_success 'write --bitmap --refs-snapshot: git'"'"'s fatal lines, no midx' '
	midx_both : multi-pack-index write --bitmap --refs-snapshot=nonexistent &&
	for line in zz + "++\$(git rev-parse HEAD)" "\$(git rev-parse HEAD) x" \
		1111111111111111111111111111111111111111; do
		midx_both "git rev-parse HEAD >snap && echo \"$line\" >>snap" \
			multi-pack-index write --bitmap --refs-snapshot=snap || return 1
	done
'
# repack_both SETUP ARGS...: as midx_both, but packs differ in bytes (delta
# search), so compare what they hold: the same number of packs, the same
# objects in the new pack, the same objects overall, and git's verify and
# fsck on fgit's result.
repack_both()
{
	copies_run "$@" || return 1
	for d in g f; do
		(cd "$TRASH/$d" && ls .git/objects/pack | wc -l &&
		 git cat-file --batch-all-objects --batch-check | sort &&
		 new=$(ls -t .git/objects/pack/*.idx | head -1) &&
		 git show-index <$new | cut -d" " -f2 | sort) >"$CMP/$d.state" || return 1
	done
	diff -u "$CMP/g.state" "$CMP/f.state" &&
	git -C "$TRASH/f" multi-pack-index verify && fsck_ok "$TRASH/f"
}

test_expect_success 'repack --batch-size=0 packs every midx pack into one, in-process' '
	repack_both "git multi-pack-index write" multi-pack-index repack --batch-size=0 &&
	repack_both "git multi-pack-index write" multi-pack-index repack
'
test_expect_success 'repack with batch sizes: oldest small packs first' '
	repack_both "git multi-pack-index write" multi-pack-index repack --batch-size=700 &&
	repack_both "git multi-pack-index write" multi-pack-index repack --batch-size=1k &&
	repack_both "git multi-pack-index write" multi-pack-index repack --batch-size=100m
'
test_expect_success 'repack: .keep packs left out; no midx; fewer than two packs' '
	repack_both "git multi-pack-index write && touch \$(ls .git/objects/pack/*.pack | sed -n 2p | sed s/pack\$/keep/)" multi-pack-index repack &&
	repack_both : multi-pack-index repack &&
	repack_both "git repack -adq && git multi-pack-index write" multi-pack-index repack
'
test_expect_success 'repack --batch-size=nonsense: usage error' '
	(cd base && compare_err multi-pack-index repack --batch-size=x)
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
