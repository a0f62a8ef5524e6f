#!/bin/sh
# Corrupt and hostile object databases: git's kind of message (the same
# fatal:/error: prefix), the same exit code, never a crash.
MKPACK="$(cd "$(dirname "$0")" && pwd)/mkpack.py"
. "$(dirname "$0")/lib.sh"

mkrepo() {
	rm -rf "$TRASH/$1" && git init -q "$TRASH/$1" && cd "$TRASH/$1" &&
	for i in 1 2 3; do seq 1 $((i * 300)) >f && echo $i >g && git add f g &&
		git commit -qm $i || return 1; done
}

# Overwrite n bytes at offset off of file with garbage.
poke() { chmod u+w "$1" && printf "$4" | dd of="$1" bs=1 seek="$2" count="$3" conv=notrunc 2>/dev/null; }

# Every single-object and batch mode on one object id.
all_modes() {
	compare_fail cat-file -p "$1" && compare_fail cat-file blob "$1" &&
	echo "$1" >"$CMP/in" && _stdin="$CMP/in" && _run_both cat-file --batch &&
	[ "$g_rc" = "$f_rc" ] && cmp -s "$CMP/git.out" "$CMP/fgit.out" &&
	compare_stdin "$CMP/in" cat-file --batch-check
}

test_expect_success 'loose object with a corrupt body' '
	mkrepo loose1 && o=$(git rev-parse HEAD:f) &&
	p=.git/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) &&
	poke $p 20 8 "XXXXXXXX" &&
	compare cat-file -t $o && compare cat-file -s $o && all_modes $o
'

test_expect_success 'loose object that is not zlib at all' '
	mkrepo loose2 && o=$(git rev-parse HEAD:f) &&
	p=.git/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) &&
	chmod u+w $p && echo "plain text" >$p &&
	compare_fail cat-file -t $o && compare_fail cat-file -s $o && all_modes $o
'

test_expect_success 'truncated loose object' '
	mkrepo loose3 && o=$(git rev-parse HEAD:f) &&
	p=.git/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) &&
	chmod u+w $p && head -c 30 $p >$p.t && mv $p.t $p &&
	compare cat-file -t $o && all_modes $o
'

test_expect_success 'empty loose object file' '
	mkrepo loose4 && o=$(git rev-parse HEAD:g) &&
	p=.git/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) &&
	chmod u+w $p && : >$p &&
	compare_fail cat-file -t $o && all_modes $o
'

packrepo() { mkrepo "$1" && git repack -adq && PACK=$(ls .git/objects/pack/*.pack) && IDX=${PACK%.pack}.idx; }

test_expect_success 'truncated pack' '
	packrepo pack1 && o=$(git rev-parse HEAD:f) && chmod u+w $PACK &&
	head -c 200 $PACK >$PACK.t && mv $PACK.t $PACK &&
	compare_fail cat-file -t $o && all_modes $o && compare_fail cat-file -p HEAD
'

test_expect_success 'corrupt byte inside pack data' '
	packrepo pack2 && o=$(git rev-parse HEAD:f) &&
	off=$(git show-index <$IDX | grep $o | cut -d" " -f1) &&
	poke $PACK $((off + 6)) 4 "\377\377\377\377" &&
	compare cat-file -t $o && all_modes $o
'

test_expect_success 'pack does not match its index (pack checksum in .idx)' '
	packrepo pack3 && o=$(git rev-parse HEAD:f) &&
	sz=$(stat -c %s $IDX) && poke $IDX $((sz - 40)) 2 "ab" &&
	compare_fail cat-file -t $o && all_modes $o
'

test_expect_success 'wrong trailing checksum of the .idx itself (git does not check on read)' '
	packrepo pack4 && o=$(git rev-parse HEAD:f) &&
	sz=$(stat -c %s $IDX) && poke $IDX $((sz - 20)) 2 "ab" &&
	compare cat-file -p $o && compare cat-file --batch-all-objects --batch-check
'

# NEEDSWORK: git also reports a non-monotonic fan-out with "error:" lines
# on each lookup; fgit skips such an .idx silently (same exit code).
test_expect_success '.idx with a wrong size is ignored' '
	packrepo pack5 && o=$(git rev-parse HEAD:f) &&
	chmod u+w $IDX && echo junk >>$IDX &&
	compare_fail cat-file -t $o && compare cat-file --batch-all-objects --batch-check
'

test_expect_success 'pack with a bad version' '
	packrepo pack7 && o=$(git rev-parse HEAD:f) && poke $PACK 7 1 "\011" &&
	compare_fail cat-file -t $o && all_modes $o
'

hostile() {
	rm -rf "$TRASH/h" && git init -q "$TRASH/h" && cd "$TRASH/h" &&
	H=$(python3 "$MKPACK" "$1" .git/objects/pack)
}

test_expect_success 'delta that copies from outside its base' '
	hostile delta-outside-base && compare cat-file -t $H && all_modes $H
'

test_expect_success 'delta whose base size does not match' '
	hostile delta-bad-base-size && compare cat-file -s $H && all_modes $H
'

test_expect_success 'entry claiming a size that overflows' '
	hostile huge-size && compare_fail cat-file -t $H && all_modes $H
'

test_expect_success 'delta claiming a huge result' '
	hostile huge-delta-result && compare cat-file -t $H &&
	compare_fail cat-file -p $H
'

test_expect_success 'unknown entry type' '
	hostile bad-type && compare_fail cat-file -t $H && all_modes $H
'

test_expect_success 'REF_DELTA cycle: fgit fails cleanly (git 2.39 loops forever)' '
	hostile delta-cycle &&
	rc=0; timeout 20 "$FGIT" cat-file -p $H >/dev/null 2>"$CMP/err" || rc=$?;
	[ $rc = 128 ] && grep -q "^fatal: " "$CMP/err" &&
	rc=0; timeout 20 "$FGIT" cat-file -t $H >/dev/null 2>"$CMP/err" || rc=$?;
	[ $rc = 128 ]
'

test_done
