#!/bin/sh
# symbolic-ref writing and deleting against git (reading is in t3010).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/refs-lib.sh"

test_expect_success 'point HEAD elsewhere, with and without -m' '
	both setup_repo "\$X symbolic-ref HEAD refs/heads/side &&
		\$X symbolic-ref -m \"to  main\" HEAD refs/heads/main &&
		\$X symbolic-ref HEAD refs/heads/unborn &&
		\$X symbolic-ref HEAD && \$X symbolic-ref --short HEAD &&
		\$X symbolic-ref -m back HEAD refs/heads/main"'

test_expect_success 'from a detached HEAD; other symrefs' '
	both setup_repo "git update-ref --no-deref HEAD side &&
		\$X symbolic-ref -m attach HEAD refs/heads/main &&
		\$X symbolic-ref refs/heads/sym refs/heads/side &&
		\$X symbolic-ref refs/tags/sym refs/heads/side &&
		\$X symbolic-ref -m m refs/remotes/origin/HEAD refs/heads/side &&
		\$X symbolic-ref NOTHEAD refs/heads/side"'

test_expect_success 'delete' '
	both setup_repo "\$X symbolic-ref refs/heads/sym refs/heads/side &&
		\$X symbolic-ref -d refs/heads/sym &&
		\$X symbolic-ref -d refs/remotes/origin/HEAD &&
		\$X symbolic-ref -d refs/heads/main; echo \$?;
		\$X symbolic-ref -d refs/heads/nosuch; echo \$?;
		\$X symbolic-ref -d HEAD; echo \$?;
		\$X symbolic-ref -d; echo \$?;
		\$X symbolic-ref -d -q refs/heads/main; echo \$?"'

test_expect_success 'refusals and errors' '
	both setup_repo "\$X symbolic-ref HEAD side; echo \$?;
		\$X symbolic-ref HEAD refs/heads/a..b; echo \$?;
		\$X symbolic-ref -m \"\" HEAD refs/heads/side; echo \$?;
		\$X symbolic-ref refs/heads/main/x refs/heads/side; echo \$?;
		: >.git/HEAD.lock; \$X symbolic-ref HEAD refs/heads/side; echo \$?;
		rm .git/HEAD.lock; \$X symbolic-ref a b c; echo \$?"'

test_done
