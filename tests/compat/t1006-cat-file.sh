#!/bin/sh
# cat-file: single-object modes, batch modes, formats, all-objects.
. "$(dirname "$0")/lib.sh"

# A repository with every object type, odd names, deltas in a pack and
# some loose objects on top.
git init -q repo && cd repo &&
for i in 1 2 3 4 5 6; do
	seq 1 $((i * 50)) >file && seq $i 200 >"sp ace" && printf 'tab\there %s\n' $i >"ta	b" &&
	mkdir -p dir/sub && echo $i >dir/sub/n && echo "é $i" >"é" &&
	git add -A && git commit -qm "commit $i" || exit 1
done
chmod +x file && ln -s file link && git add -A && git commit -qm exec &&
git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),gitlink &&
git commit -qm gitlink && git tag lightweight && git tag -a -m "annotated" v1.0 &&
git tag -a -m "tag of tag" nested v1.0 &&
git repack -adq && echo loose >loose && git add loose && git commit -qm loose || exit 1
cd "$TRASH/repo"

BLOB=$(git rev-parse HEAD:file)
TREE=$(git rev-parse HEAD^{tree})
SUBTREE=$(git rev-parse HEAD:dir)
TAG=$(git rev-parse v1.0)
NESTED=$(git rev-parse nested)
COMMIT=$(git rev-parse HEAD)
MISSING=0123456789012345678901234567890123456789

test_expect_success '-t and -s on every type' '
	cd "$TRASH/repo" &&
	for o in $BLOB $TREE $SUBTREE $TAG $NESTED $COMMIT HEAD v1.0 main; do
		compare cat-file -t $o && compare cat-file -s $o || return 1
	done
'

test_expect_success '-p pretty-prints trees (modes, quoting, gitlinks), others raw' '
	cd "$TRASH/repo" &&
	for o in $BLOB $TREE $SUBTREE $TAG $NESTED $COMMIT HEAD; do
		compare cat-file -p $o || return 1
	done
'

test_expect_success '-e: present, missing' '
	cd "$TRASH/repo" &&
	compare cat-file -e $BLOB && compare cat-file -e $MISSING
'

test_expect_success 'abbreviated ids' '
	cd "$TRASH/repo" &&
	compare cat-file -t $(echo $BLOB | cut -c1-7) &&
	compare cat-file -p $(echo $COMMIT | cut -c1-10)
'

test_expect_success '<type> <object>, peeling tags and commits' '
	cd "$TRASH/repo" &&
	compare cat-file blob $BLOB && compare cat-file tree $TREE &&
	compare cat-file commit $COMMIT && compare cat-file tag $TAG &&
	compare cat-file commit v1.0 && compare cat-file tree v1.0 &&
	compare cat-file commit nested && compare cat-file tree HEAD
'

test_expect_success 'errors: missing, bad names, wrong types' '
	cd "$TRASH/repo" &&
	compare_fail cat-file -t $MISSING && compare_fail cat-file -s $MISSING &&
	compare_fail cat-file -p $MISSING && compare_fail cat-file -t no-such-ref &&
	compare_fail cat-file -e no-such-ref && compare_fail cat-file blob HEAD &&
	compare_fail cat-file tag HEAD && compare_fail cat-file bogus HEAD &&
	compare_fail cat-file blob $MISSING
'

test_expect_success 'usage errors exit 129' '
	cd "$TRASH/repo" &&
	compare_fail cat-file -p && compare_fail cat-file -t HEAD HEAD &&
	compare_fail cat-file blob && compare_fail cat-file --batch-all-objects &&
	compare_fail cat-file --batch HEAD && compare_fail cat-file --bogus
'

cd "$TRASH/repo"
cat >"$CMP/in" <<IN
$BLOB
$TREE
$COMMIT
$TAG
$MISSING
HEAD
v1.0
$(echo $COMMIT | cut -c1-8)
not a ref at all
0
IN
# an abbreviation several objects share
printf '%s\n' "$(git cat-file --batch-all-objects --batch-check='%(objectname)' | cut -c1 | sort | uniq -d | head -1)" >>"$CMP/in"

test_expect_success '--batch-check and --batch, default format' '
	cd "$TRASH/repo" &&
	compare_stdin "$CMP/in" cat-file --batch-check &&
	compare_stdin "$CMP/in" cat-file --batch
'

test_expect_success 'custom formats: every atom, %(rest), literals' '
	cd "$TRASH/repo" &&
	compare_stdin "$CMP/in" cat-file "--batch-check=%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)" &&
	compare_stdin "$CMP/in" cat-file "--batch-check=<%(objecttype)> [%(rest)] 100%" &&
	compare_stdin "$CMP/in" cat-file "--batch=%(objectname)" &&
	compare_stdin "$CMP/in" cat-file --batch-check= &&
	compare_fail cat-file "--batch-check=%(nonsense)"
'

test_expect_success '-z: NUL-terminated input' '
	cd "$TRASH/repo" &&
	tr "\n" "\0" <"$CMP/in" >"$CMP/inz" &&
	compare_stdin "$CMP/inz" cat-file --batch-check -z
'

test_expect_success '--batch-command with and without --buffer' '
	cd "$TRASH/repo" &&
	printf "info %s\ncontents %s\ninfo %s\ncontents HEAD\n" $BLOB $TREE $MISSING >"$CMP/cmd" &&
	compare_stdin "$CMP/cmd" cat-file --batch-command &&
	compare_stdin "$CMP/cmd" cat-file --batch-command="%(objectname) %(objecttype) %(rest)" &&
	printf "info %s\nflush\ncontents %s\n" $BLOB $TREE >"$CMP/cmdf" &&
	compare_stdin "$CMP/cmdf" cat-file --batch-command --buffer &&
	_stdin="$CMP/cmdf" && _run_both cat-file --batch-command &&
	[ "$g_rc" = "$f_rc" ] && [ "$g_rc" = 128 ] &&
	printf "bogus %s\n" $BLOB >"$CMP/cmdb" && _stdin="$CMP/cmdb" &&
	_run_both cat-file --batch-command && [ "$g_rc" = "$f_rc" ]
'

test_expect_success '--batch-all-objects, sorted' '
	cd "$TRASH/repo" &&
	compare cat-file --batch-all-objects --batch-check &&
	compare cat-file --batch-all-objects --batch &&
	compare cat-file --batch-all-objects "--batch-check=%(objectname) %(objectsize:disk) %(deltabase)" &&
	compare cat-file --batch-all-objects --batch-check --buffer
'

test_expect_success '--batch-all-objects, sorted: deep chains, objects in two packs, tiny cache' '
	git init -q "$TRASH/deep" && cd "$TRASH/deep" &&
	seq 1 2000 >f && mkdir d && seq 5 900 >d/g &&
	for i in $(seq 1 70); do
		sed -i "$((i * 20))s/.*/v$i/" f && echo "$i" >>d/g && echo $i >"d/n$((i % 9))" &&
		git add -A && git commit -qm $i || return 1
	done &&
	git repack -adfq --depth=50 --window=50 &&
	git rev-list --objects HEAD~30 | cut -d" " -f1 |
		git pack-objects -q .git/objects/pack/pack >/dev/null &&
	test $(ls .git/objects/pack/*.pack | wc -l) = 2 &&
	compare cat-file --batch-all-objects --batch &&
	compare -c core.deltaBaseCacheLimit=4k cat-file --batch-all-objects --batch &&
	compare -c core.deltaBaseCacheLimit=64k cat-file --batch-all-objects --batch &&
	compare -c core.deltaBaseCacheLimit=64k cat-file --batch-all-objects --batch-check
'

test_expect_success '--batch-all-objects --unordered (compared as sets)' '
	cd "$TRASH/repo" &&
	compare_sorted cat-file --batch-all-objects --unordered --batch-check &&
	compare_sorted cat-file --batch-all-objects --unordered "--batch-check=%(objectname) %(objectsize:disk) %(deltabase)" &&
	compare_sorted cat-file --batch-all-objects --unordered --batch
'

test_expect_success 'an object both loose and packed is listed once' '
	cd "$TRASH/repo" &&
	git cat-file blob $BLOB | git hash-object -w --stdin >/dev/null &&
	git cat-file blob $BLOB >/dev/null &&
	compare cat-file --batch-all-objects --batch-check &&
	compare_sorted cat-file --batch-all-objects --unordered --batch-check
'

test_expect_success '--batch-all-objects --unordered: loose, then one pack in pack order, as git' '
	git init -q "$TRASH/order" && cd "$TRASH/order" &&
	for i in 1 2 3 4 5; do seq $i 500 >f$i && git add f$i && git commit -qm $i ||
		return 1; done &&
	git repack -adq && git cat-file blob HEAD:f1 | git hash-object -w --stdin >/dev/null &&
	for i in 1 2 3; do echo loose$i >l$i || return 1; done &&
	git add l1 l2 l3 && git commit -qm loose &&
	compare cat-file --batch-all-objects --unordered --batch-check &&
	compare cat-file --batch-all-objects --unordered --batch &&
	compare cat-file --batch-all-objects --unordered --batch --buffer
'

test_expect_success 'revision syntax (fgit_revparse_single)' '
	cd "$TRASH/repo" &&
	compare cat-file -p HEAD^{tree} && compare cat-file -p HEAD:dir/sub/n &&
	compare cat-file -t HEAD~2 && compare cat-file -s "HEAD^:sp ace" &&
	compare cat-file tree v1.0^{} && compare_fail cat-file -p HEAD:no/such/path &&
	compare_fail cat-file -e HEAD:nope && compare_fail cat-file -t HEAD^{blob} &&
	printf "HEAD:file\nHEAD~1:dir rest of line\nHEAD:nope\nv1.0^{}\n" >"$CMP/revs" &&
	compare_stdin "$CMP/revs" cat-file --batch-check &&
	compare_stdin "$CMP/revs" cat-file "--batch-check=%(objectname) %(rest)" &&
	compare_stdin "$CMP/revs" cat-file --batch
'

test_expect_success 'alternates' '
	git clone -q -s "$TRASH/repo" "$TRASH/alt" && cd "$TRASH/alt" &&
	echo new >new && git add new && git commit -qm new &&
	compare cat-file -p $BLOB && compare cat-file --batch-all-objects --batch-check &&
	compare cat-file -t HEAD
'

test_expect_success 'a big blob (streamed) and an empty one' '
	cd "$TRASH/repo" &&
	head -c 3000000 /dev/urandom >big && : >empty &&
	B=$(git hash-object -w big) && E=$(git hash-object -w empty) &&
	compare cat-file -p $B && compare cat-file -s $B && compare cat-file blob $E &&
	printf "%s\n%s\n" $B $E >"$CMP/bigin" && compare_stdin "$CMP/bigin" cat-file --batch
'

test_expect_success 'index v1 and a pack with 64-bit offsets' '
	git init -q "$TRASH/v1" && cd "$TRASH/v1" &&
	for i in 1 2 3; do seq $i 300 >f && git add f && git commit -qm $i; done &&
	git repack -adq && p=$(ls .git/objects/pack/*.pack) &&
	git index-pack --index-version=1 -o "${p%.pack}.idx.new" "$p" &&
	mv "${p%.pack}.idx.new" "${p%.pack}.idx" &&
	compare cat-file --batch-all-objects --batch &&
	git index-pack --index-version=2,0x40 -o "${p%.pack}.idx.new" "$p" &&
	mv "${p%.pack}.idx.new" "${p%.pack}.idx" &&
	compare cat-file --batch-all-objects "--batch-check=%(objectname) %(objectsize:disk) %(deltabase)"
'

test_expect_success 'several packs with a multi-pack-index' '
	git init -q "$TRASH/midx" && cd "$TRASH/midx" &&
	for i in 1 2 3; do seq $i 300 >f && git add f && git commit -qm $i &&
		git repack -dq || return 1; done &&
	git multi-pack-index write && test -f .git/objects/pack/multi-pack-index &&
	compare cat-file --batch-all-objects --batch &&
	compare_sorted cat-file --batch-all-objects --unordered --batch-check &&
	compare count-objects -v
'

test_expect_success 'REF_DELTA (thin-style) pack' '
	git init -q "$TRASH/ref" && cd "$TRASH/ref" &&
	for i in 1 2 3 4; do seq $i 400 >f && git add f && git commit -qm $i; done &&
	git -c repack.useDeltaBaseOffset=false repack -adfq &&
	p=$(ls .git/objects/pack/*.pack) &&
	git verify-pack -v "${p%.pack}.idx" | grep -q " 1 [0-9a-f]\{40\}$" &&
	compare cat-file --batch-all-objects --batch
'

test_done
