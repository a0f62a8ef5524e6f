#!/bin/sh
# commit-tree against git: identical commit ids for the same inputs.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo && echo a >a && git add a && git commit -q -m one &&
git tag -a -m t v1 && echo b >a && git commit -q -am two && cd "$TRASH" || exit 1
printf 'from a file\n\nbody\n' >msgfile

test_expect_success 'commit-tree -m, -F, -p, stdin' '
	(cd repo && T=$(git rev-parse HEAD^{tree}) &&
	 compare commit-tree -m msg $T && compare commit-tree -m "two words" -m second $T &&
	 compare commit-tree -F ../msgfile $T && compare commit-tree -m first -F ../msgfile $T &&
	 compare commit-tree -p HEAD -p HEAD~1 -m merge $T && compare commit-tree -p HEAD -p HEAD -m dup $T &&
	 compare_stdin ../msgfile commit-tree $T && compare_stdin ../msgfile commit-tree -p main $T &&
	 compare commit-tree -m "no newline" HEAD^{tree})'
test_expect_success 'commit-tree errors' '
	(cd repo && T=$(git rev-parse HEAD^{tree}) &&
	 compare_fail commit-tree -m x HEAD && compare_fail commit-tree -m x nosuch &&
	 compare_fail commit-tree -m x && compare_fail commit-tree -m x $T $T &&
	 compare_fail commit-tree -p v1 -m x $T && compare_fail commit-tree -p nosuch -m x $T &&
	 compare_fail commit-tree -F nofile $T)'
test_expect_success 'commit-tree identities and dates' '
	(cd repo && T=$(git rev-parse HEAD^{tree}) &&
	 GIT_AUTHOR_DATE="2005-04-07T22:13:13+0200" compare commit-tree -m d $T &&
	 GIT_COMMITTER_DATE="Thu, 7 Apr 2005 15:14:13 -0700" compare commit-tree -m d $T &&
	 GIT_AUTHOR_NAME=" <Crud.> " compare commit-tree -m d $T &&
	 (unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL; git config user.name "Cfg Name" &&
	  git config user.email cfg@example.com && compare commit-tree -m d $T &&
	  git config author.name "Auth Name" && compare commit-tree -m d $T) &&
	 compare -c user.name=X commit-tree -m d $T)'
test_expect_success 'commit-tree output is a valid commit' '
	(cd repo && c=$("$FGIT" commit-tree -p HEAD -m ok HEAD^{tree}) && git cat-file -t $c >/dev/null) && fsck_ok repo'

test_done
