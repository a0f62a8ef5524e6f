#!/bin/sh
# add against git: output, exit code, stderr, and the index it leaves
# (ls-files -s, diff-files, status --porcelain as git reads them), fsck.
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d/e && echo a >a && echo b >d/b && echo c >c && ln -s a link &&
	printf '*.o\nignd/\n' >.gitignore && git add a d/b c link .gitignore && git commit -q -m1 &&
	echo new >n && echo nn >d/e/n2 && echo changed >a && rm c && echo o >x.o &&
	mkdir ignd && echo i >ignd/f && echo ex >ex && chmod +x ex
}

state()
{
	(cd "$1" && git ls-files -s --debug | grep -v '^  \(ctime\|mtime\|dev\|uid\)' &&
	 git diff-files --name-status && git status --porcelain) >"$2" 2>/dev/null
}

check()
{
	compare_write "${SETUP:-setup_repo}" "$@" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $*"; diff -u "$CMP/git.err" "$CMP/fgit.err" | head -20; return 1; }
	state "$TRASH/w.git" "$CMP/w.git.state"; state "$TRASH/w" "$CMP/w.state"
	cmp "$CMP/w.git.state" "$CMP/w.state" || { diff -u "$CMP/w.git.state" "$CMP/w.state"; return 1; }
	fsck_ok "$TRASH/w"
}

test_expect_success 'add paths, ., -A, -u, --no-all' '
	check add a && check add n d && check add . && check add -A && check add -u &&
	check add --no-all . && check add --ignore-removal d c && check add -A d && check add -u d &&
	check add c && check add -v . && check add -v -u && check add link ex'
test_expect_success 'add messages: ignored paths, no match, nothing specified, conflicts' '
	check add x.o && check add x.o a && check add ignd/f && check add ignd && check add nothere &&
	check add nothere a && check add && check add "*.zz" && check add "*.o" && check add -u nothere &&
	check add -u x.o && check add -A -u && check add --chmod=x a && check add -f x.o ignd &&
	check add -n . && check add -n -A && check add --dry-run x.o n'
test_expect_success 'add --chmod, -N, -f, -v' '
	check add --chmod=+x a n && check add --chmod=-x ex && check add --chmod=+x link &&
	check add -N n d && check add -N . && check add -v -N n && check add -f -v . &&
	check add -n --chmod=+x a'
setup_sub()
{
	setup_repo && mkdir sub && (cd sub && git init -q && echo s >s && git add s &&
	git commit -q -m s) && mkdir empty && (cd empty && git init -q)
}
test_expect_success 'add of an embedded repository' '
	SETUP=setup_sub check add sub && SETUP=setup_sub check add -v sub a &&
	SETUP=setup_sub check add empty'
setup_pfile()
{
	setup_repo && printf "a\nn\n\"d/e/n2\"\n" >list && printf "a\0n\0" >nul
}
test_expect_success 'add --pathspec-from-file' '
	SETUP=setup_pfile check add --pathspec-from-file=list &&
	SETUP=setup_pfile check add --pathspec-from-file=nul --pathspec-file-nul &&
	SETUP=setup_pfile check add --pathspec-from-file=list a &&
	SETUP=setup_pfile check add --pathspec-file-nul a'
setup_touch()
{
	setup_repo && git checkout -q a && sleep 1 && touch a d/b
}
test_expect_success 'add --refresh' '
	SETUP=setup_touch check add --refresh a d && SETUP=setup_touch check add --refresh -v . &&
	SETUP=setup_touch check add --refresh nope'
setup_sub2()
{
	setup_repo && cd d
}
test_expect_success 'add from a subdirectory' '
	SETUP=setup_sub2 check add . && SETUP=setup_sub2 check add -A && SETUP=setup_sub2 check add ../a &&
	SETUP=setup_sub2 check add -u .'
setup_conv()
{
	git init -q . && printf "a\r\nb\r\n" >crlf && printf "x\r\n" >t.txt && printf "\$Id: junk \$\n" >id &&
	printf "*.txt text\nid ident\n*.up filter=up\n*.bad filter=bad\n*.req filter=req\n" >.gitattributes &&
	git config filter.up.clean "tr a-z A-Z" && git config filter.bad.clean false &&
	git config filter.req.clean "sh -c \"exit 3\"" && git config filter.req.required true &&
	echo hello >h.up && echo bad >b.bad && echo req >r.req && printf "bin\0\r\n" >bin &&
	# files older than the index: whether an entry is racy must not depend
	# on how long each tool took (a racy CRLF entry shows "M" in diff-files)
	touch -d "@$(($(date +%s) - 10))" crlf t.txt id h.up b.bad r.req bin
}
test_expect_success 'add converts: eol, ident, clean filters' '
	SETUP=setup_conv check add crlf t.txt id h.up bin && SETUP=setup_conv check add b.bad &&
	SETUP=setup_conv check add r.req && SETUP=setup_conv check -c core.autocrlf=true add crlf bin &&
	SETUP=setup_conv check -c core.autocrlf=input add crlf &&
	SETUP=setup_conv check -c core.safecrlf=true -c core.autocrlf=input add crlf'
setup_locked()
{
	setup_repo && touch .git/index.lock
}
test_expect_success 'add with index.lock held' '
	SETUP=setup_locked compare_write setup_locked add a'
setup_many()
{
	git init -q . && i=0 && while [ $i -lt 300 ]; do mkdir -p d$((i % 7)) && echo $i >d$((i % 7))/f$i; i=$((i+1)); done
}
test_expect_success 'add -A of many files (threads), then again' '
	SETUP=setup_many check add -A && SETUP=setup_many check add -v . '
setup_big()
{
	# files from 1 MiB on are hashed and deflated as streams: new ones,
	# one already committed (only freshened), one converted (CRLF, read
	# whole), one executable, one changed since the commit
	git init -q . && printf "*.txt text\n" >.gitattributes &&
	awk "BEGIN { for (i = 0; i < 120000; i++) print \"line\", i }" >big &&
	cp big present && cp big changed && git add present changed && git commit -q -m big &&
	echo more >>changed &&
	awk "BEGIN { for (i = 0; i < 120000; i++) printf \"crlf %d\\r\\n\", i }" >crlf.txt &&
	awk "BEGIN { for (i = 0; i < 300000; i++) print i * 7 }" >exe && chmod +x exe &&
	touch -d "@$(($(date +%s) - 10))" big present changed crlf.txt exe
}
test_expect_success 'add of big files (streamed), new, present, converted' '
	SETUP=setup_big check add -A && SETUP=setup_big check add -v big present changed &&
	SETUP=setup_big check add -n . && SETUP=setup_big check -c core.autocrlf=true add crlf.txt big'
setup_fresh()
{
	# 400 files, 40 of them with content another file has, one whose blob is
	# already loose (its fan-out directory exists) and was written a day ago
	git init -q . && i=0 && while [ $i -lt 400 ]; do mkdir -p d$((i % 9)) &&
	echo $((i % 360)) >d$((i % 9))/f$i; i=$((i+1)); done &&
	echo old >old && git hash-object -w old >/dev/null &&
	find .git/objects -type f -exec touch -d "@$(($(date +%s) - 86400))" {} +
}
# what add -A left in the object database: names, modes, and whether each
# file is newer than the setup's day-old object (git freshens what it finds)
objects_state()
{
	(cd "$1/.git/objects" && find . -type f | sort | while read -r f; do
		echo "$f $(stat -c %A "$f") $(find "$f" -mmin -60 | wc -l)"; done) >"$2"
}
test_expect_success 'add -A into a fresh object database: every object, modes, no temporary file' '
	SETUP=setup_fresh check add -A &&
	objects_state "$TRASH/w.git" "$CMP/o.git" && objects_state "$TRASH/w" "$CMP/o" &&
	cmp "$CMP/o.git" "$CMP/o" && [ $(wc -l <"$CMP/o") -gt 360 ] &&
	(cd "$TRASH/w" && git cat-file --batch-all-objects --batch-check >"$CMP/b" &&
	 git cat-file --batch <"$CMP/b" >/dev/null) &&
	! grep tmp_obj "$CMP/o"'
test_done
