#!/bin/sh
# commit against git: with fixed identities and dates (lib.sh) the commits
# must be byte-identical (same ids); output, exit code, stderr, index,
# reflog and fsck are compared.
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d && echo a >a && echo b >d/b && echo c >c && ln -s a link &&
	git add a d/b c link && echo new >n && echo changed >a && git add n a
}
setup_two()
{
	setup_repo && git commit -q -m one && echo again >>a && echo nn >d/n2 && rm c && chmod +x d/b
}
setup_clean()
{
	setup_repo && git commit -q -m one
}

state()
{
	(cd "$1" && git log --format='%H %T %P%n%an <%ae> %ad%n%cn <%ce> %cd%n%B' --all &&
	 git ls-files -s && git diff-files --name-status && git status --porcelain &&
	 git reflog --format='%H %gs' && git rev-parse HEAD) >"$2" 2>/dev/null
}

check()
{
	compare_write "${SETUP:-setup_repo}" "$@" || return 1
	cmp -s "$CMP/git.err" "$CMP/fgit.err" || {
		echo "stderr differs for: $*"; diff -u "$CMP/git.err" "$CMP/fgit.err" | head -20; return 1; }
	state "$TRASH/w.git" "$CMP/w.git.state"; state "$TRASH/w" "$CMP/w.state"
	cmp "$CMP/w.git.state" "$CMP/w.state" || { diff -u "$CMP/w.git.state" "$CMP/w.state" | head -30; return 1; }
	fsck_ok "$TRASH/w"
}

test_expect_success 'commit -m: root commit, second commit, identical ids' '
	check commit -m first && SETUP=setup_clean check commit --allow-empty -m two &&
	check commit -m "a" -m "b  " -m "" -m c && check commit -q -m quiet'
test_expect_success 'commit -a, paths, -F' '
	SETUP=setup_two check commit -a -m all && SETUP=setup_two check commit -m only d/b &&
	SETUP=setup_two check commit -m only-a a && SETUP=setup_two check commit -m nope nope &&
	SETUP=setup_two check commit -a -m x a && echo "from file" >"$TRASH/msgfile" &&
	SETUP=setup_two check commit -a -F "$TRASH/msgfile" &&
	SETUP=setup_two check commit -m x -F "$TRASH/msgfile"'
test_expect_success 'commit -F - reads standard input' '
	printf "stdin msg\n\n  body  \n\n\n" >"$TRASH/in" && compare_write setup_repo sh -c "\"\$0\" commit -F - <\"$TRASH/in\"" git'
test_expect_success 'nothing to commit, empty messages' '
	SETUP=setup_clean check commit -m x && SETUP=setup_two check commit -m x &&
	check commit -m "" && check commit --allow-empty-message -m "" &&
	SETUP=setup_clean check commit --allow-empty -m "   "'
test_expect_success 'commit --amend, --author, --date, -s' '
	SETUP=setup_clean check commit --amend -m amended && SETUP=setup_two check commit -a --amend -m amended2 &&
	check commit --author "Some One <one@example.com>" -m authored &&
	check commit --author nobody -m x && check commit --date "1234567890 +0100" -m dated &&
	check commit -s -m signed && check commit -s -m "subject" -m "Signed-off-by: C O Mitter <committer@example.com>" &&
	check commit -s -m "subject" -m "Acked-by: x <y>" && SETUP=setup_clean check commit --amend --no-edit'
setup_hooks()
{
	setup_repo && mkdir -p .git/hooks &&
	printf "#!/bin/sh\necho pre-commit \$GIT_INDEX_FILE >&2\n" >.git/hooks/pre-commit &&
	printf "#!/bin/sh\necho prepare \"\$@\" >&2\n" >.git/hooks/prepare-commit-msg &&
	printf "#!/bin/sh\necho msg-hook >&2; echo appended >>\"\$1\"\n" >.git/hooks/commit-msg &&
	printf "#!/bin/sh\necho post-commit >&2\n" >.git/hooks/post-commit &&
	chmod +x .git/hooks/*
}
setup_hooks_fail()
{
	setup_hooks && printf "#!/bin/sh\nexit 1\n" >.git/hooks/pre-commit
}
setup_hooks_path()
{
	setup_repo && mkdir hk && printf "#!/bin/sh\necho custom >&2\n" >hk/pre-commit && chmod +x hk/pre-commit &&
	git config core.hooksPath hk
}
setup_hook_noexec()
{
	setup_repo && printf "#!/bin/sh\necho never >&2\n" >.git/hooks/pre-commit
}
test_expect_success 'hooks: pre-commit, prepare-commit-msg, commit-msg, post-commit, hooksPath' '
	SETUP=setup_hooks check commit -m hooked && SETUP=setup_hooks check commit -n -m nohooks &&
	SETUP=setup_hooks_fail check commit -m failed && SETUP=setup_hooks_path check commit -m custom &&
	SETUP=setup_hook_noexec check commit -m noexec && SETUP=setup_hooks check commit -a -m all'
test_expect_success 'editor: GIT_EDITOR, core.editor, dumb terminal' '
	GIT_EDITOR="echo edited >" check commit && GIT_EDITOR=: check commit --allow-empty-message &&
	check -c core.editor="echo core >" commit && check commit &&
	GIT_EDITOR="echo edited >" check commit -e -m base && GIT_EDITOR=false check commit'
setup_sub()
{
	setup_two && cd d
}
test_expect_success 'commit from a subdirectory, status listing paths' '
	SETUP=setup_sub check commit -m x && SETUP=setup_sub check commit -a -m sub &&
	SETUP=setup_sub check commit -m only b'
setup_rename()
{
	setup_clean && git mv c c2 && git mv d/b d/b2 && git rm -q --cached link && printf "bin\0" >bin &&
	git add bin && chmod +x a && git add a
}
test_expect_success 'summary: renames, modes, binary files, deletions' '
	SETUP=setup_rename check commit -m renames && SETUP=setup_rename check -c diff.renames=false commit -m norename'
setup_inexact()
{
	git init -q . && mkdir -p d && seq 1 40 >a && seq 100 160 >d/b && seq 200 230 >c && cp c c-copy &&
	printf "x\0y\n" >bin && git add . && git commit -q -m one &&
	git mv a a2 && echo more >>a2 && git mv d/b e/b 2>/dev/null || { mkdir e && git mv d/b e/b; } &&
	sed -i 1,30d e/b && git rm -q c c-copy && cp "$TRASH/c-orig" c3 && git add c3 && chmod +x a2 && git add a2 &&
	git mv bin bin2 && printf "x\0z\n" >bin2 && git add bin2
}
test_expect_success 'summary: similarity renames, scores, two identical sources, renameLimit' '
	seq 200 230 >"$TRASH/c-orig" &&
	SETUP=setup_inexact check commit -m inexact &&
	SETUP=setup_inexact check -c diff.renameLimit=1 commit -m limited &&
	SETUP=setup_inexact check -c diff.renames=false commit -m norename'
test_done
