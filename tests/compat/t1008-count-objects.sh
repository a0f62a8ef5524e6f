#!/bin/sh
# count-objects on repositories git wrote (sizes are git's own files).
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
for i in 1 2 3; do seq 1 $((i * 1000)) >f$i && git add f$i && git commit -qm $i; done || exit 1

test_expect_success 'loose only: plain, -v, -H' '
	cd "$TRASH/repo" &&
	compare count-objects && compare count-objects -v &&
	compare count-objects -vH && compare count-objects -H
'

test_expect_success 'packed plus loose, prune-packable' '
	cd "$TRASH/repo" && git repack -adq && git cat-file -p HEAD >/dev/null &&
	head -c 3000000 /dev/urandom >big && git add big && git commit -qm big &&
	git unpack-objects <"$(ls .git/objects/pack/*.pack)" 2>/dev/null;
	compare count-objects -v && compare count-objects -vH && compare count-objects
'

test_expect_success 'garbage in the pack directory and loose dirs' '
	cd "$TRASH/repo" && git repack -adq && echo junk >.git/objects/pack/junk &&
	p=$(ls .git/objects/pack/*.pack) && cp "$p" .git/objects/pack/pack-orphan.pack &&
	mkdir -p .git/objects/ab && echo x >.git/objects/ab/notanobject &&
	compare count-objects -v && compare_err count-objects -v
'

test_expect_success 'alternates are listed' '
	git clone -q -s "$TRASH/repo" "$TRASH/alt" && cd "$TRASH/alt" &&
	compare count-objects -v
'

test_expect_success 'usage' '
	cd "$TRASH/repo" && compare_fail count-objects extra && compare_fail count-objects --bogus
'

test_done
