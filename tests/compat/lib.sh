# Compat-test library: sourced by tests/compat/tNNNN-*.sh.
#
# Each case builds a repository with git, runs the same command with git and
# with fgit, and compares stdout and exit code (and stderr where asked).
# Cases print "PASS tNNNN: description" or "FAIL ...".
#
#   test_expect_success 'description' 'commands chained with &&'
#   compare ARGS...        run "git ARGS" and "fgit ARGS" here; same stdout+exit
#   compare_stdin FILE ARGS...   the same, with FILE on standard input
#   compare_err ARGS...    also the same stderr
#   compare_sorted ARGS... stdout compared after sorting lines
#   compare_write SETUP ARGS...  for commands that write: in a fresh copy made
#                          by SETUP (a shell function, run in an empty dir at
#                          the same absolute path) run git, keep the result,
#                          redo with fgit; compare stdout, exit code, then
#                          git fsck --strict on fgit's result.

set -u
TEST_NAME=$(basename "$0" .sh)
TEST_NUM=${TEST_NAME%%-*}
: "${FGIT:?FGIT must point at the fgit binary}"
TRASH=${TMPDIR:-/tmp}/fgit-test.$TEST_NAME.$$
rm -rf "$TRASH"
mkdir -p "$TRASH/home"
trap 'cd /; rm -rf "$TRASH"' EXIT
export HOME="$TRASH/home" XDG_CONFIG_HOME="$TRASH/home/.config"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$TRASH/home/.gitconfig"
export LANG=C LC_ALL=C TZ=UTC GIT_PAGER=cat PAGER=cat TERM=dumb
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
export GIT_AUTHOR_DATE='1112911993 -0700' GIT_COMMITTER_DATE='1112912053 -0700'
unset GIT_DIR GIT_WORK_TREE GIT_CONFIG_PARAMETERS GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE GIT_CEILING_DIRECTORIES 2>/dev/null
git config --global init.defaultBranch main
git config --global advice.detachedHead false
cd "$TRASH" || exit 1

test_count=0
test_failed=0
CMP=$TRASH/.cmp
mkdir -p "$CMP"

test_expect_success()
{
	test_count=$((test_count + 1))
	if [ -n "${FGIT_TEST_ONLY:-}" ] && ! echo "$1" | grep -q -- "$FGIT_TEST_ONLY"; then
		return 0
	fi
	if (eval "$2") >"$CMP/log" 2>&1; then
		echo "PASS $TEST_NUM: $1"
	else
		echo "FAIL $TEST_NUM: $1"
		sed -n '1,40s/^/    /p' "$CMP/log"
		test_failed=$((test_failed + 1))
	fi
	cd "$TRASH"
}

# Show how two outputs differ, then fail.
_cmp_fail()
{
	echo "mismatch for: $*"
	diff -u "$CMP/git.out" "$CMP/fgit.out" | head -30
	echo "git exit $g_rc, fgit exit $f_rc"
	echo "git stderr:"; head -5 "$CMP/git.err"
	echo "fgit stderr:"; head -5 "$CMP/fgit.err"
	return 1
}

_run_both()
{
	g_rc=0; f_rc=0
	if [ -n "$_stdin" ]; then
		git "$@" <"$_stdin" >"$CMP/git.out" 2>"$CMP/git.err" || g_rc=$?
		"$FGIT" "$@" <"$_stdin" >"$CMP/fgit.out" 2>"$CMP/fgit.err" || f_rc=$?
	else
		git "$@" </dev/null >"$CMP/git.out" 2>"$CMP/git.err" || g_rc=$?
		"$FGIT" "$@" </dev/null >"$CMP/fgit.out" 2>"$CMP/fgit.err" || f_rc=$?
	fi
}

compare()
{
	_stdin=
	_run_both "$@"
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

compare_stdin()
{
	_stdin=$1; shift
	_run_both "$@"
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

compare_err()
{
	compare "$@" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $*"; diff -u "$CMP/git.err" "$CMP/fgit.err" | head -20; return 1; }
}

# gp, fp: the first stderr line of git and of fgit up to its first colon
# ("fatal", "error"), read by the shell itself: these run thousands of times,
# and $(head | cut) cost ~60 ms a call on the loaded 2-core test VM.
err_prefixes()
{
	gp=; fp=
	IFS= read -r gp <"$CMP/git.err"; gp=${gp%%:*}
	IFS= read -r fp <"$CMP/fgit.err"; fp=${fp%%:*}
	return 0
}

# Same exit code, and both print a first stderr line with the same prefix
# ("fatal:", "error:") - for error cases whose wording may differ slightly.
compare_fail()
{
	_stdin=
	_run_both "$@"
	[ "$g_rc" = "$f_rc" ] && [ "$g_rc" != 0 ] || _cmp_fail "$@"
	cmp -s "$CMP/git.out" "$CMP/fgit.out" || _cmp_fail "$@"
	err_prefixes
	[ "$gp" = "$fp" ] || { echo "stderr prefix: git '$gp' fgit '$fp'"; _cmp_fail "$@"; }
}

compare_sorted()
{
	_stdin=
	_run_both "$@"
	sort "$CMP/git.out" >"$CMP/git.sorted"; sort "$CMP/fgit.out" >"$CMP/fgit.sorted"
	cmp -s "$CMP/git.sorted" "$CMP/fgit.sorted" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

# compare_write SETUP ARGS...: see the top of this file.
compare_write()
{
	_setup=$1; shift
	_w=$TRASH/w
	rm -rf "$_w" "$TRASH/w.git"; mkdir -p "$_w"
	(cd "$_w" && $_setup) >/dev/null 2>&1 || { echo "setup failed"; return 1; }
	g_rc=0; (cd "$_w" && if [ -n "${CMP_STDIN:-}" ]; then exec <"$CMP_STDIN"; fi &&
		 git "$@" >"$CMP/git.out" 2>"$CMP/git.err") || g_rc=$?
	mv "$_w" "$TRASH/w.git"; mkdir -p "$_w"
	(cd "$_w" && $_setup) >/dev/null 2>&1 || { echo "setup failed"; return 1; }
	f_rc=0; (cd "$_w" && if [ -n "${CMP_STDIN:-}" ]; then exec <"$CMP_STDIN"; fi &&
		 "$FGIT" "$@" >"$CMP/fgit.out" 2>"$CMP/fgit.err") || f_rc=$?
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

# Both trees written by compare_write hold the same files (names, modes, bytes),
# ignoring paths matching the egrep pattern $1 (e.g. object files, index).
same_tree()
{
	(cd "$TRASH/w.git" && find . -path ./.git/objects -prune -o -print | sort | grep -Ev "${1:-^$}") >"$CMP/t1"
	(cd "$TRASH/w" && find . -path ./.git/objects -prune -o -print | sort | grep -Ev "${1:-^$}") >"$CMP/t2"
	diff -u "$CMP/t1" "$CMP/t2"
}

fsck_ok()
{
	git ${1:+-C "$1"} fsck --strict --no-progress >"$CMP/fsck" 2>&1 || { cat "$CMP/fsck"; return 1; }
}

test_done()
{
	exit 0
}
