# Helper for the index-editing compat tests (t3600 rm, t7001 mv), sourced
# after lib.sh.
#
#   index_case SETUP ARGS...  compare_write, then the same stderr, the same
#                             work-tree files, `ls-files -s` and
#                             `status --porcelain` (read by git) on both
#                             results, and git fsck --strict on fgit's.

index_case()
{
	compare_write "$@" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $*"; diff -u "$CMP/git.err" "$CMP/fgit.err" | head -20; return 1; }
	same_tree '\.git/(index|objects|logs|refs|ORIG_HEAD|COMMIT_EDITMSG|hooks|info|description|config|HEAD)' || return 1
	(cd "$TRASH/w.git" && git ls-files -s) >"$CMP/s1" 2>&1
	(cd "$TRASH/w" && git ls-files -s) >"$CMP/s2" 2>&1
	diff -u "$CMP/s1" "$CMP/s2" || return 1
	(cd "$TRASH/w.git" && git status --porcelain) >"$CMP/st1" &&
	(cd "$TRASH/w" && git status --porcelain) >"$CMP/st2" &&
	diff -u "$CMP/st1" "$CMP/st2" && fsck_ok "$TRASH/w"
}
