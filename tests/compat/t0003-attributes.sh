#!/bin/sh
# Attributes: precedence, macros, patterns, check-attr's output and errors.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q r && cd r &&
	mkdir -p d/e/f src/lib docs "sp ace" &&
	cat >.gitattributes <<-\EOF &&
	# comment
	*.c foo bar=1 text
	[attr]mymac -foo baz
	*.txt eol=crlf
	/top.c anchored
	d/**/deep.c deep
	docs/ docdir
	"sp ace/*" spaced
	*.bin binary
	!neg.c negated
	*.[ch] brackets
	bad$name ok
	EOF
	printf "*.c !foo\nx.c mymac\n[attr]sub x\n" >d/.gitattributes &&
	printf "x.c -baz\n*.h diff=cpp\n" >d/e/.gitattributes &&
	printf "*.c -foo\n*.md ident\n" >.git/info/attributes &&
	mkdir -p ../home/.config/git &&
	printf "*.md global\n*.c globalc\n" >../home/.config/git/attributes &&
	: >a.c && : >d/x.c && : >d/e/x.c
'

test_expect_success 'named attributes on many paths' '
	cd r &&
	compare check-attr foo bar baz text eol anchored deep docdir spaced diff brackets negated global globalc ident -- \
		a.c top.c d/top.c d/x.c d/e/x.c d/e/f/deep.c d/deep.c x.txt d/e/y.h \
		docs/a docs "sp ace/q" a.bin neg.c README.md nothere/z.c
'

test_expect_success 'all attributes (-a), order of first sight' '
	cd r &&
	compare check-attr -a -- a.c d/x.c d/e/x.c d/e/f/deep.c x.txt a.bin README.md d/e/y.h
'

test_expect_success 'without --: first argument is the attribute' '
	cd r && compare check-attr foo a.c d/x.c
'

test_expect_success 'from a subdirectory, relative paths' '
	cd r/d && compare check-attr foo baz deep -- x.c e/x.c ../a.c e/f/deep.c &&
	compare check-attr -a x.c ../top.c
'

test_expect_success '--stdin and -z' '
	cd r &&
	printf "a.c\nd/x.c\nd/e/y.h\n" >../in &&
	compare_stdin ../in check-attr --stdin foo diff &&
	printf "a.c\0d/x.c\0" >../inz &&
	compare_stdin ../inz check-attr --stdin -z foo baz &&
	compare_stdin ../in check-attr --stdin -a
'

test_expect_success 'warnings go to stderr as git words them' '
	cd r && compare_err check-attr negated ok -- neg.c d/x.c
'

test_expect_success 'core.attributesFile and GIT_ATTR_NOSYSTEM' '
	cd r &&
	printf "*.c fromcfg\n" >../cfgattrs &&
	compare -c core.attributesFile=../cfgattrs check-attr fromcfg global -- a.c
'

test_expect_success 'errors: no attribute, no path' '
	cd r &&
	compare_fail check-attr &&
	compare_fail check-attr -- a.c &&
	compare_fail check-attr foo --
'

test_done
