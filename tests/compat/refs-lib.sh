# Helpers for the ref-writing compat tests (t1400, t1401, t1410, t3210),
# sourced after lib.sh.
#
#   both SETUP 'SCRIPT'  run SCRIPT (which names the tool as $X) in a fresh
#                        repository made by SETUP at $TRASH/w, first with git,
#                        then with fgit at the same path; compare stdout,
#                        stderr and exit code, then the ref files: HEAD,
#                        packed-refs (bytes), every file and directory under
#                        refs/ and logs/ (names and contents), no .lock left;
#                        then git fsck --strict on fgit's result.

ref_state()
{
	(cd "$1/.git" &&
	 find refs logs 2>/dev/null | sort &&
	 for f in HEAD packed-refs $(find refs logs -type f 2>/dev/null | sort) \
		  $(find worktrees -path "*/logs/*" -type f -o -name HEAD 2>/dev/null | sort); do
		[ -f "$f" ] && { echo "== $f"; cat "$f"; }
	 done) 2>&1
}

both()
{
	_setup=$1 _script=$2
	rm -rf "$TRASH/w" "$TRASH/w.git"; mkdir -p "$TRASH/w"
	(cd "$TRASH/w" && $_setup) >/dev/null 2>&1 || { echo "setup failed"; return 1; }
	g_rc=0; (cd "$TRASH/w" && X=git && eval "$_script") >"$CMP/git.out" 2>"$CMP/git.err" || g_rc=$?
	ref_state "$TRASH/w" >"$CMP/git.state"
	mv "$TRASH/w" "$TRASH/w.git"; mkdir -p "$TRASH/w"
	(cd "$TRASH/w" && $_setup) >/dev/null 2>&1 || { echo "setup failed"; return 1; }
	f_rc=0; (cd "$TRASH/w" && X=$FGIT && eval "$_script") >"$CMP/fgit.out" 2>"$CMP/fgit.err" || f_rc=$?
	ref_state "$TRASH/w" >"$CMP/fgit.state"
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$_script" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $_script"; diff -u "$CMP/git.err" "$CMP/fgit.err" | tail -n +3 | head -30; return 1; }
	cmp -s "$CMP/git.state" "$CMP/fgit.state" || {
		echo "ref files differ after: $_script"; diff -u "$CMP/git.state" "$CMP/fgit.state" | head -40; return 1; }
	fsck_ok "$TRASH/w"
}

# A repository with two commits on main, a side branch, an annotated tag,
# a tag of that tag, a lightweight tag, a remote-tracking ref and its HEAD.
setup_repo()
{
	git init -q . &&
	echo a >a && git add a && git commit -q -m one &&
	git tag -a -m annotated v1 && git tag light &&
	git -c advice.nestedTag=false tag -a -m "tag of tag" vv v1 &&
	echo b >a && git commit -q -am two &&
	git branch side HEAD~1 &&
	git update-ref refs/remotes/origin/main HEAD~1 &&
	git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
}

setup_packed()
{
	setup_repo && git pack-refs --all
}
