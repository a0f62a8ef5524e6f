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

test_expect_success '--stdin-paths with C-quoted names' '
	cd "$TRASH/repo" && printf "x\n" >"$(printf "t\tb")" && echo y >"é" &&
	printf "\"t\\\\tb\"\n\"\\\\303\\\\251\"\nsmall\n" >"$CMP/q" && od -c "$CMP/q" | grep -q "\\\\   t" &&
	compare_stdin "$CMP/q" hash-object --stdin-paths &&
	printf "\"bad\n" >"$CMP/bad" && _stdin="$CMP/bad" && _run_both hash-object --stdin-paths &&
	[ "$g_rc" = "$f_rc" ] && [ "$g_rc" = 128 ]
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
	compare_err hash-object --path=x --no-filters small &&
	compare_err hash-object --stdin-paths --path=x &&
	compare_err hash-object --stdin --stdin small
'

test_expect_success 'outside a repository: hashing works' '
	mkdir -p "$TRASH/norepo" && cd "$TRASH/norepo" && echo x >f &&
	GIT_CEILING_DIRECTORIES="$TRASH" compare hash-object f
'

# A worktree whose attributes and config ask for every kind of to-git
# conversion: text (eol), ident, the older crlf attribute, a clean filter,
# a required filter without a clean command.
setup_conv() {
	git init -q conv && cd conv && mkdir sub &&
	printf "a\r\nb\r\n" >c.txt && cp c.txt c.bin && cp c.txt sub/c.txt &&
	cp c.txt old.crlf && cp c.txt in.crlfin && printf "a\nb\r\n" >mixed.auto &&
	printf "x \$Id: zz \$\r\n" >i.txt && echo hello >a.up && echo hi >b.req &&
	printf "*.txt text\ni.txt ident\n*.crlf crlf\n*.crlfin crlf=input\n" >.gitattributes &&
	printf "*.auto text=auto\n*.up filter=up\n*.req filter=req\n" >>.gitattributes &&
	printf "*.bin -text\nsub/* eol=crlf\n" >>.gitattributes &&
	git config filter.up.clean "tr a-z A-Z" && git config filter.req.required true
}

test_expect_success 'conversion from attributes: files, --path, --stdin, --no-filters' '
	cd "$TRASH" && setup_conv &&
	compare hash-object c.txt c.bin i.txt a.up old.crlf in.crlfin mixed.auto sub/c.txt &&
	compare hash-object --no-filters c.txt i.txt a.up &&
	compare hash-object --path=c.txt c.bin && compare hash-object --path=c.bin c.txt &&
	compare_stdin c.txt hash-object --stdin --path=x.txt &&
	compare_stdin c.txt hash-object --stdin &&
	compare_stdin c.txt hash-object --stdin --path=x.txt --literally -t blob &&
	printf "c.txt\nc.bin\ni.txt\na.up\nsub/c.txt\n" >"$CMP/cp" &&
	compare_stdin "$CMP/cp" hash-object --stdin-paths &&
	compare_stdin "$CMP/cp" hash-object --stdin-paths --no-filters
'

test_expect_success 'conversion: config (autocrlf, core.eol, safecrlf), subdirectories' '
	cd "$TRASH/conv" &&
	compare -c core.autocrlf=true hash-object c.bin c.txt mixed.auto &&
	compare -c core.autocrlf=input hash-object c.bin sub/c.txt &&
	compare -c core.eol=crlf hash-object c.txt &&
	compare_err -c core.safecrlf=true hash-object c.txt &&
	compare_fail -c core.safecrlf=true hash-object -w c.txt &&
	compare_err -c core.autocrlf=bogus hash-object c.txt &&
	cd sub && compare hash-object c.txt ../c.txt && compare hash-object --path=../c.bin c.txt &&
	printf "c.txt\nsub/c.txt\n" >"$CMP/sp" && compare_stdin "$CMP/sp" hash-object --stdin-paths
'

test_expect_success 'conversion: filters failing, required or not' '
	cd "$TRASH/conv" &&
	compare_err hash-object b.req &&
	compare_err -c filter.up.clean=false hash-object a.up &&
	compare_err -c filter.up.clean=false -c filter.up.required=yes hash-object a.up &&
	compare -c "filter.up.clean=sed s/h/%f/" hash-object a.up
'

test_expect_success 'conversion outside a repository: config only' '
	mkdir -p "$TRASH/norepo2" && cd "$TRASH/norepo2" &&
	printf "a\r\nb\r\n" >c.txt && echo "*.txt -text" >.gitattributes &&
	GIT_CEILING_DIRECTORIES="$TRASH" compare -c core.autocrlf=true hash-object c.txt
'

test_expect_success '-w with conversion stores the converted blob' '
	cd "$TRASH" && rm -rf conv && setup_conv &&
	"$FGIT" hash-object -w c.txt a.up >"$CMP/f.out" &&
	git hash-object c.txt a.up | cmp - "$CMP/f.out" &&
	git cat-file -p $(head -1 "$CMP/f.out") | od -c | grep -qv "\\r" && fsck_ok
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

setup_packed() { setup_w && git add a c && git commit -qm x && git repack -adq; }

test_expect_success '-w of objects already packed writes no loose copy' '
	compare_write setup_packed hash-object -w a c b &&
	(cd "$TRASH/w.git" && find .git/objects -type f | grep -v pack | sort) >"$CMP/g" &&
	(cd "$TRASH/w" && find .git/objects -type f | grep -v pack | sort) >"$CMP/f" &&
	cmp "$CMP/g" "$CMP/f" && fsck_ok "$TRASH/w"
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

test_expect_success '--stdin-paths answers each path before the next arrives (a pipe)' '
	cd "$TRASH" && rm -rf co && mkdir co && cd co && echo one >one && echo two >two &&
	mkfifo in out &&
	{ "$FGIT" hash-object --stdin-paths <in >out & } &&
	exec 3>in 4<out &&
	echo one >&3 && first=$(timeout 20 head -n 1 <&4) &&
	echo two >&3 && exec 3>&- && second=$(timeout 20 cat <&4) && exec 4<&- && wait &&
	test "$first" = "$(git hash-object one)" && test "$second" = "$(git hash-object two)"
'

test_expect_success '--stdin-paths in parallel batches: order, sizes, CRLF lines, errors' '
	cd "$TRASH" && rm -rf many && mkdir many && cd many && git init -q &&
	i=0 && while [ $i -lt 300 ]; do head -c $((i * 997)) /dev/zero | tr "\0" x >f$i; i=$((i + 1)); done &&
	printf "*.crlf text eol=crlf\n" >.gitattributes && printf "a\r\nb\r\n" >t.crlf && printf "a\nb\n" >t2.crlf &&
	ls f* t.crlf t2.crlf >list && { cat list; printf "f1\r\n\"f\\062\"\n"; } >list2 &&
	compare_stdin list2 hash-object --stdin-paths &&
	compare_stdin list2 hash-object --stdin-paths --no-filters &&
	{ head -n 100 list; echo nosuch; tail -n 5 list; } >list3 &&
	compare_stdin list3 hash-object --stdin-paths &&
	compare_stdin list hash-object -t blob --literally --stdin-paths
'

test_expect_success 'many files on the command line, in parallel: order, conversion, errors' '
	cd "$TRASH/many" && compare hash-object $(cat list) &&
	compare hash-object --no-filters $(cat list) &&
	compare hash-object --path=x.crlf $(cat list) &&
	compare_fail hash-object $(head -n 100 list) nosuch $(tail -n 5 list) &&
	compare_stdin t.crlf hash-object --stdin $(cat list) &&
	mkdir -p sub && cd sub && compare hash-object $(sed "s|^|../|" ../list)
'

# Above core.bigFileThreshold git 2.39 streams a blob into a pack of its own
# (its bulk check-in); fgit must write the same pack and .idx, bytes and
# names, and hold far less than the file in memory.
head -c 3000000 /dev/urandom >"$TRASH/bigfile" &&
{ cat "$TRASH/bigfile"; echo tail; } >"$TRASH/bigfile2" || exit 1
big_setup() { git init -q . && cp "$TRASH/bigfile" big && cp "$TRASH/bigfile2" big2; }

# The pack directories of git's (w.git) and fgit's (w) results hold the same files.
same_packs()
{
	(cd "$TRASH/w.git/.git/objects/pack" && ls) >"$CMP/gp" &&
	(cd "$TRASH/w/.git/objects/pack" && ls) >"$CMP/fp" && diff -u "$CMP/gp" "$CMP/fp" &&
	test -s "$CMP/gp" && for f in $(cat "$CMP/gp"); do
		cmp "$TRASH/w.git/.git/objects/pack/$f" "$TRASH/w/.git/objects/pack/$f" || return 1
	done && fsck_ok "$TRASH/w" && test -z "$(find "$TRASH/w/.git/objects" -name "tmp_*")"
}

test_expect_success 'above core.bigFileThreshold -w: a pack per blob, the same bytes as git' '
	compare_write big_setup -c core.bigFileThreshold=1m hash-object -w big big2 && same_packs &&
	git -C "$TRASH/w" cat-file blob $(sed -n 2p "$CMP/fgit.out") | cmp - "$TRASH/bigfile2" &&
	compare_write big_setup -c core.bigFileThreshold=1m -c pack.compression=1 hash-object -w big &&
	same_packs &&
	compare_write big_setup -c core.bigFileThreshold=1m -c core.compression=0 hash-object -w big &&
	same_packs &&
	printf "big2\nbig\n" >"$CMP/bp" && CMP_STDIN="$CMP/bp" &&
	compare_write big_setup -c core.bigFileThreshold=1m hash-object -w --stdin-paths && same_packs &&
	CMP_STDIN="$TRASH/bigfile" &&
	compare_write big_setup -c core.bigFileThreshold=1m hash-object -w --stdin && same_packs &&
	CMP_STDIN= &&
	compare_write big_setup -c core.bigFileThreshold=1m hash-object big
'

test_expect_success 'above core.bigFileThreshold -w: an object already there adds nothing' '
	cd "$TRASH" && rm -rf bw && mkdir bw && cd bw && big_setup &&
	git hash-object -w big >/dev/null && ls .git/objects/pack >"$CMP/before" &&
	"$FGIT" -c core.bigFileThreshold=1m hash-object -w big >"$CMP/f.out" &&
	git hash-object big | cmp - "$CMP/f.out" &&
	ls .git/objects/pack | cmp - "$CMP/before" && fsck_ok "$TRASH/bw"
'

test_expect_success 'above core.bigFileThreshold -w: memory far below the file size' '
	cd "$TRASH" && rm -rf bm && git init -q bm && cd bm &&
	head -c 40000000 /dev/urandom >huge &&
	/usr/bin/time -f %M -o "$CMP/rss" "$FGIT" -c core.bigFileThreshold=1m hash-object -w huge >"$CMP/f.out" &&
	git hash-object huge | cmp - "$CMP/f.out" && fsck_ok "$TRASH/bm" &&
	echo "peak RSS $(cat "$CMP/rss") KiB for a 39063 KiB file" && test "$(cat "$CMP/rss")" -lt 16384
'

test_done
