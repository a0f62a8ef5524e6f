#!/bin/sh
# git grep: sources, patterns, output options, config, against git 2.39.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q r && cd r &&
	mkdir -p sub/deep docs "sp ace" &&
	cat >file.c <<-\EOF &&
	#include <stdio.h>

	/* a comment about main */
	static int helper(int x)
	{
		return x + 1;
	}

	int main(int argc, char **argv)
	{
		int foo = helper(argc);
		printf("hello %d\n", foo);
	label:
		return foo_bar(0);
	}
	EOF
	printf "hello world\nfoo bar baz\nHello Again\nfoo\nbar foo\n\nlast line foo" >text.txt &&
	printf "crlf line foo\r\nsecond\r\nthird foo\r\n" >crlf.txt &&
	: >empty.txt &&
	printf "bin\000ary foo\nmore foo\n" >binary.bin &&
	printf "caf\351 foo\nna\357ve\n" >latin1.txt &&
	printf "def foo():\n    return 1\n\nclass Bar:\n    def baz(self):\n        foo = 2\n" >sub/prog.py &&
	printf "fn main() {\n    let foo = 1;\n}\n\npub fn other() -> u8 {\n    foo\n}\n" >sub/deep/lib.rs &&
	printf "# Title\n\nsome foo text\n\n## Section\n\nmore foo\n" >docs/readme.md &&
	printf "foo in space\n" >"sp ace/file name.txt" &&
	printf "Foo\nFOO\nfOo\nfoobar\nbarfoo\nfoo_x\nx-foo-y\n" >sub/words.txt &&
	ln -s text.txt link.txt &&
	printf "*.py diff=python\n*.rs diff=rust\n*.md diff=markdown\n*.nodiff -diff\n*.c diff=cpp\n" >.gitattributes &&
	printf "plain foo\n" >x.nodiff &&
	git add . && git commit -qm one &&
	printf "changed foo line\n" >>text.txt &&
	printf "new foo\n" >sub/new.txt && git add sub/new.txt &&
	printf "untracked foo\n" >untracked.txt &&
	printf "ignored foo\n" >ignored.log && printf "*.log\n" >.gitignore &&
	git tag v1 HEAD
'

# Options alone and in common combinations, on the worktree.
while read -r args; do
	test_expect_success "grep $args" 'cd r && eval "compare grep $args"'
done <<\EOF
foo
-n foo
-i foo
-w foo
-v foo
-c foo
-l foo
-L foo
-h foo
-H foo
-o foo
-q foo
-z foo
-z -l foo
-z -c foo
--column foo
-n --column foo
--column -o foo
-o -n --column foo
-A1 foo
-B2 -n foo
-C1 foo
-2 foo
--heading foo
--break foo
--heading --break -n foo
-C1 --break foo
-a foo
-I foo
-c -I foo
-L -I foo
-i -w foo
-v -c foo
-n -v -C1 foo
-m1 foo
-m 2 -n foo
-c -v -i foo
-w -o -i foo
-l -v foo
--full-name foo
-e foo -e bar
-e foo --and -e bar
-e foo --and --not -e bar
--not -e foo
"(" -e foo --or -e bar ")" --and -e baz
--all-match -e foo -e bar
--all-match -e foo -e nothere
-e foo --or -e Hello
-n --column -e bar --and -e foo
-E "fo+|bar"
-G "fo\+"
-F a.b
-F -i FOO
-P "fo{2}"
-P -i "f(o)o"
-E -w "foo|bar"
-i hello
"hel*o"
"^foo"
"foo$"
-E "^(foo|bar)"
x-foo-y
-w fo
-e ""
--no-index foo
--untracked foo
--untracked --no-exclude-standard foo
--cached foo
--cached -n -C1 foo
foo HEAD
-n foo HEAD v1
-l foo HEAD -- sub
foo -- sub
foo -- "*.txt"
foo -- ":!sub"
foo -- ":(icase)SUB"
foo -- ":(glob)sub/*"
--max-depth 0 foo
--max-depth 1 foo -- sub
--max-depth=0 foo -- sub
-p foo
-W foo
-p -n foo -- "*.c"
-W -n return -- file.c
-p helper
-W helper
-p -C1 foo
-W -A1 foo -- sub
-p foo -- docs sub/prog.py
--color=always foo
--color=always -n --column -C1 -p foo
--color=always -o foo
--color=always -v foo
--color=always --heading --break foo
--color=never foo
--threads=1 -C1 foo
--threads=1 --break foo
--threads=1 -W foo
--threads=4 -n foo
-c --threads=1 foo
nothere
-i nothere
-P "(?i)hello"
-P "fo\\w"
-P -i "hel+o"
-P "fo(o|x)"
-P -w "ba\\w"
-i -F "O B"
-E "("
-P "("
-e foo --and
"(" -e foo
-e foo ")"
--heading -o foo
--heading -o --break -C1 foo
-o -C1 -n foo
-o -W -n foo
-p -o foo
-e foo --and "(" -e bar --or --not -e baz ")"
--all-match -v -e foo -e nothere
-c -z foo
--heading -c foo
-m1 -A2 foo
-m1 -c foo
-n -e "^" -e "$"
-F -w -e "o b"
--no-recursive foo
-r foo
EOF

test_expect_success 'from a subdirectory' '
	cd r/sub && compare grep -n foo && compare grep foo -- .. &&
	compare grep --full-name foo && compare grep foo HEAD && compare grep -l foo -- ../docs &&
	compare grep --cached -c foo
'

test_expect_success 'config: lineNumber, column, fullName, patternType, extendedRegexp' '
	cd r && compare -c grep.lineNumber=true grep foo &&
	compare -c grep.column=true grep foo &&
	(cd sub && compare -c grep.fullName=true grep foo) &&
	compare -c grep.patternType=extended grep "fo+|bar" &&
	compare -c grep.patternType=fixed grep "a.b" &&
	compare -c grep.patternType=perl grep "fo{2}" &&
	compare -c grep.extendedRegexp=true grep "fo+|Hello" &&
	compare -c grep.patternType=basic -c grep.extendedRegexp=true grep "fo+" &&
	compare -c grep.patternType=extended grep -G "fo+" &&
	compare -c grep.threads=1 grep -C1 foo &&
	compare -c color.grep=always grep foo &&
	compare -c color.ui=always grep -n foo &&
	compare -c color.grep.match="blue bold" -c color.grep.filename=yellow grep --color=always -n foo &&
	compare -c color.grep.separator="red reverse" -c color.grep.linenumber="#ff0000" grep --color=always -n foo
'

test_expect_success 'patterns from a file' '
	cd r && printf "foo\n\nHello\r\n" >../pats && compare grep -f ../pats &&
	compare grep -n -f ../pats -e bar && compare_stdin ../pats grep -f - -c
'

test_expect_success 'diff.<driver>.xfuncname and funcname from config' '
	cd r && compare -c diff.cpp.xfuncname="^static" grep -p foo &&
	compare -c diff.python.funcname="^class" grep -W -n foo -- sub &&
	compare -c diff.cpp.binary=true grep foo -- file.c
'

test_expect_success 'errors' '
	cd r && compare grep && compare grep --cached foo HEAD &&
	compare grep foo nosuchrev && compare grep foo -- nosuch &&
	compare grep --no-index --cached foo && compare grep --untracked foo HEAD
'

test_expect_success '--cached: stat-clean files stand in for blobs only without conversions' '
	git init -q c && cd c &&
	printf "a foo\nb\n" >x.txt && printf "c foo\n" >y.dat && printf "d foo\n" >z.c &&
	printf "*.txt eol=crlf\n" >.gitattributes &&
	git add . && git commit -qm c && rm x.txt && git checkout x.txt &&
	touch -d "2020-01-01 00:00" x.txt y.dat z.c .gitattributes && git update-index --refresh &&
	compare grep --cached -n foo && compare grep --cached -c "$(printf "\r")" &&
	git rm -q --cached .gitattributes && rm .gitattributes && git config core.autocrlf true &&
	rm y.dat && git checkout y.dat && touch -d "2020-01-01 00:00" y.dat &&
	git update-index --refresh && compare grep --cached -n foo &&
	git config core.autocrlf false && compare grep --cached -n foo &&
	compare grep --cached -c "$(printf "\r")"
'

test_expect_success '--cached in a stat-clean tree' '
	cd r && git ls-files -z | xargs -0 touch -h -d "2020-01-01 00:00" && git update-index -q --refresh;
	compare grep --cached -n foo && compare grep --cached -p -C1 foo
'

# Objects read as git reads them: every pack (ours and the alternates')
# before any loose file.  The loose copies planted here are wrong on purpose.
test_expect_success 'trees and --cached with alternates, packed objects also loose' '
	git clone -q --bare --shared r shared.git && git clone -q --shared r shared &&
	git -C r repack -adq &&
	for d in shared.git shared/.git; do
		bad=$(printf "not this foo\n" | git --git-dir=$d hash-object -w --stdin) &&
		for p in HEAD:text.txt HEAD:sub/words.txt v1:file.c; do
			o=$(git --git-dir=$d rev-parse $p) &&
			mkdir -p $d/objects/$(echo $o | cut -c1-2) &&
			cp $d/objects/$(echo $bad | cut -c1-2)/$(echo $bad | cut -c3-) \
				$d/objects/$(echo $o | cut -c1-2)/$(echo $o | cut -c3-) || return 1
		done
	done &&
	(cd shared.git && compare grep -n foo HEAD && compare grep -c foo HEAD v1 -- sub &&
	 compare grep -l foo HEAD && compare grep -h -i hello v1) &&
	cd shared && compare grep --cached -n foo && compare grep -n foo HEAD~0 -- sub
'

test_expect_success '--recurse-submodules is refused' '
	cd r && { "$FGIT" grep --recurse-submodules foo >/dev/null 2>&1; test $? = 129; }
'

test_done
