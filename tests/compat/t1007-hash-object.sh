#!/bin/sh
# hash-object: naming files and stdin, types, format checks, writing.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
echo hello >small && : >empty && printf 'no newline' >nonl &&
head -c 200000 /dev/urandom >medium && head -c 2000000 /dev/urandom >large &&
git add small && git commit -qm one &&
git cat-file tree HEAD >tree.raw && git cat-file commit HEAD >commit.raw &&
git tag -a -m msg t && git cat-file tag t >tag.raw &&
printf 'garbage' >garbage || exit 1

test_expect_success 'files of every size class' '
	cd "$TRASH/repo" &&
	compare hash-object small && compare hash-object empty &&
	compare hash-object nonl medium large && compare hash-object -- small large
'

test_expect_success '--stdin, --stdin-paths, both with files' '
	cd "$TRASH/repo" &&
	compare_stdin medium hash-object --stdin &&
	compare_stdin small hash-object --stdin large &&
	printf "small\nmedium\nempty\n" >"$CMP/paths" &&
	compare_stdin "$CMP/paths" hash-object --stdin-paths &&
	printf "small\nlarge" >"$CMP/paths2" &&
	compare_stdin "$CMP/paths2" hash-object --stdin-paths --no-filters
'

test_expect_success '-t with valid and invalid content' '
	cd "$TRASH/repo" &&
	compare hash-object -t tree tree.raw && compare hash-object -t commit commit.raw &&
	compare hash-object -t tag tag.raw && compare hash-object -t blob tree.raw &&
	compare_fail hash-object -t tree garbage && compare_fail hash-object -t commit garbage &&
	compare_fail hash-object -t tag garbage && compare_fail hash-object -t bogus small
'

test_expect_success '--literally' '
	cd "$TRASH/repo" &&
	compare hash-object -t tree --literally garbage &&
	compare_stdin garbage hash-object -t weird --literally --stdin
'

test_expect_success 'errors and usage' '
	cd "$TRASH/repo" &&
	compare_fail hash-object no-such-file &&
	compare_fail hash-object --stdin-paths --stdin &&
	compare_fail hash-object --stdin-paths small && compare hash-object &&
	rc=0; "$FGIT" hash-object --path=x small >/dev/null 2>&1 || rc=$?; [ $rc = 129 ]
'

test_expect_success 'outside a repository: hashing works' '
	mkdir -p "$TRASH/norepo" && cd "$TRASH/norepo" && echo x >f &&
	GIT_CEILING_DIRECTORIES="$TRASH" compare hash-object f
'

setup_w() { git init -q . && echo hello >a && printf x >b &&
	seq 1 60000 >c && : >d; }

test_expect_success '-w writes loose objects git accepts' '
	compare_write setup_w hash-object -w a b c d && fsck_ok "$TRASH/w" &&
	cd "$TRASH/w" && for f in a b c d; do
		o=$(git hash-object $f) && git cat-file -p $o | cmp - $f || return 1
		p=.git/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-)
		[ "$(stat -c %a $p)" = 444 ] || return 1
	done &&
	[ -z "$(find .git/objects -name "tmp_obj_*")" ]
'

test_expect_success '-w --stdin and -t tree -w; rewriting an existing object' '
	compare_write setup_w hash-object -w --stdin && fsck_ok "$TRASH/w" &&
	cd "$TRASH/repo" && cp -r . "$TRASH/w2" && cd "$TRASH/w2" &&
	"$FGIT" hash-object -w -t tree tree.raw >"$CMP/o1" &&
	"$FGIT" hash-object -w -t tree tree.raw >"$CMP/o2" &&
	git hash-object -t tree tree.raw | cmp - "$CMP/o1" && cmp "$CMP/o1" "$CMP/o2" &&
	fsck_ok "$TRASH/w2"
'

test_expect_success '-w --stdin-paths' '
	printf "a\nc\nd\n" >"$CMP/wp" &&
	setup_wp() { setup_w && cp "$CMP/wp" list; } &&
	cd "$TRASH" && _stdin= &&
	rm -rf w && mkdir w && cd w && setup_w &&
	"$FGIT" hash-object -w --stdin-paths <"$CMP/wp" >"$CMP/f.out" &&
	git hash-object --stdin-paths <"$CMP/wp" | cmp - "$CMP/f.out" &&
	fsck_ok "$TRASH/w" && git cat-file -e $(sed -n 2p "$CMP/f.out")
'

test_done
