#!/bin/sh
# update-index against git: the written index is read back by git
# (ls-files -s -t -v, diff-files, status must agree with git's own result).
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d && echo a >a && echo b >d/b && echo c >c && ln -s a link &&
	git add a d/b c link && git commit -q -m1 && echo new >n && echo changed >a && rm c
}

# run the update, then show how git sees the index
check()
{
	compare_write setup_repo "$@" || return 1
	for d in w.git w; do
		(cd "$TRASH/$d" && git ls-files -s -v && git diff-files --name-status &&
		 git status --porcelain) >"$CMP/$d.state" 2>&1
	done
	cmp "$CMP/w.git.state" "$CMP/w.state" || { diff -u "$CMP/w.git.state" "$CMP/w.state"; return 1; }
	fsck_ok "$TRASH/w"
}

test_expect_success 'update-index paths, --add, --remove, --force-remove' '
	check update-index a && check update-index n && check update-index --add n &&
	check update-index c && check update-index --remove c && check update-index --force-remove d/b &&
	check update-index --add n --remove c a && check update-index d && check update-index nope'
test_expect_success 'update-index --cacheinfo both forms' '
	check update-index --cacheinfo 100644,$(echo a | git hash-object --stdin),x &&
	check update-index --add --cacheinfo 100644,$(echo a | git hash-object --stdin),x &&
	check update-index --add --cacheinfo 100755 $(echo a | git hash-object --stdin) d/y &&
	check update-index --add --cacheinfo 160000,$(echo a | git hash-object --stdin),sub &&
	check update-index --add --cacheinfo 100644,$(echo a | git hash-object --stdin),.git/x'
test_expect_success 'update-index --chmod, flags' '
	check update-index --chmod=+x d/b && check update-index --chmod=+x link &&
	check update-index --assume-unchanged a d/b && check update-index --skip-worktree c &&
	check update-index --no-assume-unchanged a && check update-index --assume-unchanged nope &&
	check update-index --chmod=+x --add n && check update-index --verbose --add n --force-remove c'
test_expect_success 'update-index --refresh, --really-refresh, -q' '
	check update-index --refresh && check update-index -q --refresh &&
	check update-index --ignore-missing --refresh && check update-index --really-refresh'
setup_touched()
{
	setup_repo && git checkout -q -- a c && sleep 1 && touch a d/b && git update-index --assume-unchanged d/b
}
test_expect_success 'update-index --refresh updates stat data only' '
	compare_write setup_touched update-index --refresh && (cd w && git diff-files --name-only >../o1) &&
	(cd w.git && git diff-files --name-only >../o2) && cmp o1 o2 &&
	compare_write setup_touched update-index --really-refresh &&
	compare_write setup_touched update-index --index-version 4 && (cd w && git ls-files -s >/dev/null) &&
	compare_write setup_touched update-index --index-version 7'

test_done
