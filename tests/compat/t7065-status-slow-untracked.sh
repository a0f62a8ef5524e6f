#!/bin/sh
# status's advice when the untracked walk took more than two seconds
# ("It took N.NN seconds to enumerate untracked files..."), against git
# 2.39 itself: git has no knob for the threshold, so the walk is made slow
# for real.  A .gitignore that is a FIFO holds up the walk: opening it
# blocks until a writer (started in the background, a few seconds late)
# opens it too; both programs then read nothing from it.  The seconds are
# masked before comparing.  Also: FIFOs and sockets are never listed as
# untracked, and a bad advice.statusUoption value is fatal.
. "$(dirname "$0")/lib.sh"

HOLD=3.5	# seconds the walk waits: well above git's 2 s threshold

# slow_case DIR ARGS...: "git ARGS" and "fgit ARGS" in DIR, each while the
# walk is held up; the same stdout (seconds masked), stderr and exit code.
slow_case()
{
	_d=$1; shift
	for _p in git fgit; do
		_bin=git; [ $_p = fgit ] && _bin=$FGIT
		(sleep $HOLD; timeout 20 sh -c ": >'$_d/sub/.gitignore'") 2>/dev/null &
		_rc=0
		(cd "$_d" && timeout 60 "$_bin" "$@") >"$CMP/$_p.raw" 2>"$CMP/$_p.err" || _rc=$?
		wait
		echo "exit $_rc" >>"$CMP/$_p.raw"
		sed 's/^It took [0-9]*\.[0-9][0-9] seconds/It took X seconds/' "$CMP/$_p.raw" >"$CMP/$_p.out"
	done
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "mismatch for: $*"; diff -u "$CMP/git.out" "$CMP/fgit.out" | head -30
		diff -u "$CMP/git.err" "$CMP/fgit.err" | head -10; return 1; }
}
# git printed the advice (or, with "no", did not): the case tests something.
git_advised()
{
	if [ "${1:-yes}" = no ]; then ! grep -q "^It took X seconds" "$CMP/git.out"
	else grep -q "^It took X seconds" "$CMP/git.out"; fi
}

# repo: untracked files beside the slow .gitignore; clean: none at all
for r in repo clean; do
	git init -q $r && (cd $r && mkdir sub && echo t >sub/t && echo a >a &&
		git add . && git commit -q -m1 && mkfifo sub/.gitignore) || exit 1
done
(cd repo && echo u >u && echo x >sub/x && mkfifo sub/p) || exit 1

test_expect_success 'long status after a slow walk prints the advice' '
	slow_case repo status && git_advised && slow_case repo status -uall && git_advised &&
	slow_case repo -c advice.statusHints=false status && git_advised &&
	slow_case clean status && git_advised && slow_case clean status -b --long && git_advised'
test_expect_success 'no advice in short formats or with advice.statusUoption=false' '
	slow_case repo status -s && git_advised no &&
	slow_case repo status --porcelain && git_advised no &&
	slow_case repo -c advice.statusUoption=false status && git_advised no &&
	slow_case clean -c advice.statusuoption=no status --long && git_advised no'
test_expect_success 'no advice after a quick walk' '
	(cd repo && rm sub/.gitignore && compare status && compare status -uall &&
	 mkfifo sub/.gitignore)'
test_expect_success 'bad advice values are fatal' '
	cd repo && compare_err -c advice.statusuoption=bogus status &&
	compare_err -c advice.statusUoption=bogus status -s &&
	compare_err -c advice.statusHints=bogus status'
test_expect_success 'FIFOs and sockets are not untracked files' '
	git init -q fifo && cd fifo && mkdir only mixed && mkfifo only/p mixed/p top.p &&
	echo x >mixed/x && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")" &&
	compare status --porcelain && compare status --porcelain -uall && compare ls-files -o &&
	compare ls-files -o --directory && compare status --porcelain --ignored &&
	compare ls-files -o --directory --no-empty-directory'

test_done
