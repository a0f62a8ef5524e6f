#!/bin/sh
# Repository discovery as rev-parse reports it: git dir, toplevel, prefix,
# bare repositories, gitfiles, GIT_DIR/GIT_WORK_TREE, core.worktree,
# GIT_CEILING_DIRECTORIES, -C.
. "$(dirname "$0")/lib.sh"

OPTS="--git-dir --absolute-git-dir --git-common-dir --show-toplevel
--is-inside-work-tree --is-inside-git-dir --is-bare-repository
--show-prefix --show-cdup --is-shallow-repository"

# Every option alone (a failing one must not hide the others), then all at once.
all_opts()
{
	for o in $OPTS; do
		compare rev-parse $o || return 1
	done
	compare rev-parse --is-bare-repository --show-prefix --git-dir --show-cdup
}

git init -q repo && mkdir -p repo/a/b && git init -q --bare bare.git &&
mkdir -p bare.git/refs/x && mkdir -p linked/s && echo "gitdir: ../repo/.git" >linked/.git &&
mkdir -p ceil/d/e && git init -q ceil/d

test_expect_success 'worktree top' '(cd repo && all_opts)'
test_expect_success 'worktree subdirectory' '(cd repo/a/b && all_opts)'
test_expect_success 'inside .git' '(cd repo/.git && all_opts)'
test_expect_success 'inside .git/refs' '(cd repo/.git/refs && all_opts)'
test_expect_success 'bare repository' '(cd bare.git && all_opts)'
test_expect_success 'inside a bare repository' '(cd bare.git/refs/x && all_opts)'
test_expect_success 'gitfile at the top' '(cd linked && all_opts)'
test_expect_success 'gitfile, subdirectory' '(cd linked/s && all_opts)'
test_expect_success 'GIT_DIR relative, no worktree' '
	(cd repo/a && GIT_DIR=../.git && export GIT_DIR && all_opts)'
test_expect_success 'GIT_DIR and GIT_WORK_TREE from a subdirectory' '
	(cd repo/a && GIT_DIR=../.git GIT_WORK_TREE=.. && export GIT_DIR GIT_WORK_TREE && all_opts)'
test_expect_success 'GIT_DIR and GIT_WORK_TREE at the top' '
	(cd repo && GIT_DIR=.git GIT_WORK_TREE=. && export GIT_DIR GIT_WORK_TREE && all_opts)'
test_expect_success 'GIT_DIR and GIT_WORK_TREE, outside the worktree' '
	(GIT_DIR=repo/.git GIT_WORK_TREE=repo && export GIT_DIR GIT_WORK_TREE && all_opts)'
test_expect_success 'GIT_DIR naming a bare repository' '
	(GIT_DIR=bare.git && export GIT_DIR && all_opts)'
test_expect_success '--git-dir and --work-tree options' '
	compare --git-dir=repo/.git --work-tree=repo rev-parse --show-toplevel --git-dir &&
	compare --git-dir=bare.git rev-parse --is-bare-repository --git-dir'
test_expect_success 'GIT_DIR naming no repository' '
	(GIT_DIR=nowhere && export GIT_DIR && compare_fail rev-parse --git-dir)'
test_expect_success 'not a repository' '
	mkdir -p /tmp/fgit-norepo.$$ && (cd /tmp/fgit-norepo.$$ &&
	GIT_CEILING_DIRECTORIES=/tmp && export GIT_CEILING_DIRECTORIES &&
	compare_fail rev-parse --git-dir && compare_fail rev-parse --is-inside-work-tree &&
	compare_err rev-parse --show-toplevel); rc=$?; rmdir /tmp/fgit-norepo.$$; [ $rc = 0 ]'
test_expect_success 'core.worktree' '
	git -C repo config core.worktree "$TRASH/repo/a" &&
	(cd repo && all_opts) && (cd repo/a && all_opts) && (cd repo/a/b && all_opts) &&
	git -C repo config --unset core.worktree'
test_expect_success 'core.bare = true with a .git directory' '
	git -C repo config core.bare true &&
	(cd repo && all_opts) && (cd repo/a && all_opts) &&
	git -C repo config core.bare false'
test_expect_success 'setup reads core.bare/core.worktree from the repository file only' '
	(cd repo && compare -c core.bare rev-parse --is-bare-repository --show-toplevel &&
	 compare -c Core.Bare=TRUE rev-parse --is-bare-repository &&
	 compare -c core.worktree=/tmp rev-parse --show-toplevel) &&
	git config --global core.bare true && (cd repo && all_opts); rc=$?;
	git config --global --unset core.bare; [ $rc = 0 ]'
test_expect_success 'git --bare' '(cd repo && compare --bare rev-parse --is-bare-repository --git-dir)'
test_expect_success 'GIT_CEILING_DIRECTORIES' '
	(cd ceil/d/e &&
	 GIT_CEILING_DIRECTORIES="$TRASH/ceil/d" && export GIT_CEILING_DIRECTORIES &&
	 compare_fail rev-parse --git-dir &&
	 GIT_CEILING_DIRECTORIES="$TRASH/ceil/d/e" && compare rev-parse --git-dir &&
	 GIT_CEILING_DIRECTORIES="/nonexistent:$TRASH/ceil" && compare rev-parse --git-dir)'
test_expect_success '-C' '
	compare -C repo/a rev-parse --show-prefix --show-toplevel &&
	compare -C repo -C a/b rev-parse --show-cdup'
test_expect_success 'repository format version 2 is refused' '
	git init -q v2 && git -C v2 config core.repositoryformatversion 2 &&
	(cd v2 && compare_fail rev-parse --git-dir)'
test_expect_success 'unknown object format is refused, sha256 accepted' '
	git init -q h1 && git -C h1 config core.repositoryformatversion 1 &&
	git -C h1 config extensions.objectformat sha512 &&
	(cd h1 && _stdin= && _run_both rev-parse --git-dir && [ $g_rc = 128 ] && [ $f_rc = 128 ] &&
	 grep -q "invalid value for .extensions.objectformat" "$CMP/fgit.err") &&
	git init -q --object-format=sha256 h2 && (cd h2 && compare rev-parse --git-dir)'
test_expect_success 'repository extensions' '
	git init -q ext && cp ext/.git/config ext/saved &&
	printf "[extensions]\n\tfoo = bar\n" >>ext/.git/config && (cd ext && compare rev-parse --git-dir) &&
	sed "s/repositoryformatversion = 0/repositoryformatversion = 1/" ext/saved >ext/.git/config &&
	printf "[extensions]\n\tfoo = bar\n" >>ext/.git/config && (cd ext && compare_err rev-parse --git-dir) &&
	sed "s/repositoryformatversion = 0/repositoryformatversion = 1/" ext/saved >ext/.git/config &&
	printf "[extensions]\n\tworktreeConfig = true\n\tpreciousObjects = 1\n\tnoop-v1 = x\n" >>ext/.git/config &&
	(cd ext && compare rev-parse --git-dir) &&
	cp ext/saved ext/.git/config && printf "[extensions]\n\tnoop-v1 = x\n" >>ext/.git/config &&
	(cd ext && compare_err rev-parse --git-dir)'
test_expect_success 'bad gitfile' '
	mkdir -p gf1 gf2 && echo garbage >gf1/.git && echo "gitdir: nowhere" >gf2/.git &&
	(cd gf1 && compare_fail rev-parse --git-dir) && (cd gf2 && compare_fail rev-parse --git-dir)'
test_expect_success 'bad config line' '
	git init -q badcfg && printf "[core]\n\tbare = false\n[broken\n" >>badcfg/.git/config &&
	(cd badcfg && compare_err rev-parse --git-dir)'

test_done
