#!/bin/sh
# check-ignore against git: -v, -n, -q, -z, --stdin, --no-index, tracked paths.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
mkdir -p tr ign sub && echo >tr/a && echo >t && echo >tr/b.o &&
printf 'ign/\n*.o\n' >.gitignore && git add tr/a t .gitignore && git add -f tr/b.o &&
printf '!keep.o\n/abs\n' >sub/.gitignore && echo >sub/keep.o && echo >ign/f && echo 'info*' >>.git/info/exclude &&
cd "$TRASH" || exit 1

CI_ARGS="x.o|-v x.o|-v tr/b.o tr/a t nope.o sub/keep.o sub/abs abs ign ign/ ign/f infox
|-v -n tr/b.o tr/a t nope.o sub/keep.o sub/abs abs ign ign/ ign/f infox
|tr/b.o tr/a t nope.o sub/keep.o sub/abs abs ign ign/ ign/f infox
|--no-index -v tr/b.o|--no-index tr/a|-q x.o|-q t|-q x.o t|-q -v x.o|-n x.o||-z x.o|tr|--bogus
|-v ../outside|-v *.o|-v :!x"

all_ci()
{
	old=$IFS; IFS='|'
	for a in $1; do
		IFS=$old
		compare check-ignore $a || { IFS=$old; return 1; }
		IFS='|'
	done
	IFS=$old
}

test_expect_success 'check-ignore with arguments' '(cd repo && all_ci "$CI_ARGS")'
test_expect_success 'check-ignore from a subdirectory' '
	(cd repo/sub && all_ci "-v keep.o abs ../x.o ../tr/b.o ../infox|-v -n keep.o other")'
test_expect_success 'check-ignore --stdin, -z, quoted input' '
	printf "x.o\nt\n\"sp\\\\303ace.o\"\nign/f\n" >in1 && printf "x.o\0t\0ign/f\0" >in2 &&
	(cd repo && for a in "" "-v" "-v -n"; do
		compare_stdin ../in1 check-ignore --stdin $a &&
		compare_stdin ../in2 check-ignore --stdin -z $a || return 1; done)'
test_expect_success 'check-ignore with core.excludesFile and quotePath' '
	printf "caf*\n" >excl && (cd repo && compare -c core.excludesfile=../excl check-ignore -v "$(printf "caf\303\251")" &&
	compare -c core.excludesfile=../excl -c core.quotepath=false check-ignore -v "$(printf "caf\303\251")")'
test_expect_success 'check-ignore in a bare repository' '
	git clone -q --bare repo bare.git && (cd bare.git && compare_fail check-ignore x.o)'

test_done
