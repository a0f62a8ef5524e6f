#!/bin/sh
# Line-ending and ident conversion on the way in, against git add: the blob
# id staged, the exit code and the warning, for each combination of
# attributes and config on files with LF, CRLF, mixed, lone-CR and binary
# content.
. "$(dirname "$0")/lib.sh"

mkfiles()
{
	printf 'a\nb\n' >lf.txt
	printf 'a\r\nb\r\n' >crlf.txt
	printf 'a\nb\r\nc\n' >mixed.txt
	printf 'a\rb\r\n' >lonecr.txt
	printf 'a\0b\r\n' >nul.bin
	printf 'x\r\n$Id: 1234 $\r\nz $Id$ $Id: no end\n' >ident.txt
	printf '' >empty.txt
}

# check ATTRLINE GITCONFIG... -- TOOLFLAGS...
check()
{
	attr=$1; shift
	cfg=""; while [ "$1" != "--" ]; do cfg="$cfg -c $1"; shift; done; shift
	for f in lf.txt crlf.txt mixed.txt lonecr.txt nul.bin ident.txt empty.txt; do
		rm -rf r && git init -q r && (cd r && mkfiles &&
			{ [ -z "$attr" ] || echo "* $attr" >.git/info/attributes; } &&
			g_rc=0 && git $cfg add "$f" 2>../g.err || g_rc=$?
			echo "$g_rc" >../g.rc
			git ls-files -s "$f" | cut -d" " -f2 >../g.out) &&
		(cd r && f_rc=0 && "$FGIT_TOOLS/convert" "$@" "$f" "$f" >../f.out 2>../f.err || f_rc=$?
			[ "$f_rc" = 0 ] || : >../f.out; echo "$f_rc" | sed "s/^128$/128/" >../f.rc) &&
		{ [ "$(cat g.rc)" = 0 ] || : >g.out; } &&
		if ! cmp -s g.out f.out || ! cmp -s g.rc f.rc || ! cmp -s g.err f.err; then
			echo "$f with attr '$attr' config '$cfg' tool '$*':"
			echo " git: $(cat g.rc) $(cat g.out) $(cat g.err)"
			echo " fgit: $(cat f.rc) $(cat f.out) $(cat f.err)"
			return 1
		fi
	done
}

test_expect_success 'no attributes, autocrlf false/true/input' '
	check "" -- &&
	check "" core.autocrlf=true -- --autocrlf=true &&
	check "" core.autocrlf=input -- --autocrlf=input &&
	check "" core.autocrlf=true core.safecrlf=false -- --autocrlf=true --safecrlf=false &&
	check "" core.autocrlf=input core.safecrlf=true -- --autocrlf=input --safecrlf=true
'

test_expect_success 'text, -text, text=auto with eol and core.eol' '
	check "text" -- --text=set &&
	check "-text" core.autocrlf=true -- --text=unset --autocrlf=true &&
	check "text=auto" -- --text=auto &&
	check "text eol=crlf" -- --text=set --eol=crlf &&
	check "text eol=lf" -- --text=set --eol=lf &&
	check "text=auto eol=crlf" -- --text=auto --eol=crlf &&
	check "eol=crlf" -- --eol=crlf &&
	check "eol=lf" core.safecrlf=true -- --eol=lf --safecrlf=true &&
	check "text" core.eol=crlf -- --text=set --core-eol=crlf &&
	check "text=auto" core.eol=crlf core.safecrlf=true -- --text=auto --core-eol=crlf --safecrlf=true
'

test_expect_success 'ident' '
	check "ident" -- --ident &&
	check "ident text" -- --ident --text=set
'

test_done
