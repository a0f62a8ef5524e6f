#!/bin/sh
# reflog expire, delete and exists against git: defaults (gc.reflogExpire*),
# explicit times, unreachable entries, --rewrite, --updateref, -n --verbose,
# config patterns, and the resulting reflog files byte for byte.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/refs-lib.sh"

NOW=$(date +%s)
ago() { echo "$((NOW - $1 * 86400)) +0200"; }

# main's reflog: entries 100, 50, 40, 35, 20 and 5 days old; the 40- and
# 20-day ones point at a commit no longer reachable from main.
setup_logs()
{
	git init -q . &&
	echo a >a && git add a && git commit -q -m c1 && c1=$(git rev-parse HEAD) &&
	echo b >a && git commit -q -am c2 && c2=$(git rev-parse HEAD) &&
	echo s >a && git commit -q -am s1 && s1=$(git rev-parse HEAD) &&
	git reset -q --hard $c2 && echo c >a && git commit -q -am c3 && c3=$(git rev-parse HEAD) &&
	rm -rf .git/logs && git branch other $c1 &&
	GIT_COMMITTER_DATE=$(ago 100) git update-ref -m "d100" refs/heads/main $c1 &&
	GIT_COMMITTER_DATE=$(ago 50) git update-ref -m "d50" refs/heads/main $c2 &&
	GIT_COMMITTER_DATE=$(ago 40) git update-ref -m "d40 unreachable" refs/heads/main $s1 &&
	GIT_COMMITTER_DATE=$(ago 35) git update-ref -m "d35" refs/heads/main $c2 &&
	GIT_COMMITTER_DATE=$(ago 20) git update-ref -m "d20 unreachable" refs/heads/main $s1 &&
	GIT_COMMITTER_DATE=$(ago 5) git update-ref -m "d5" refs/heads/main $c3 &&
	GIT_COMMITTER_DATE=$(ago 200) git update-ref --create-reflog -m "old" refs/heads/other $c2 &&
	GIT_COMMITTER_DATE=$(ago 1) git update-ref -m "new" refs/heads/other $c1 &&
	printf "%s\n" "$c1 $c2 C O Mitter <c@example.com> $(ago 3)" >>.git/logs/refs/heads/other &&
	echo "garbage line" >>.git/logs/refs/heads/other
}

test_expect_success 'expire with the defaults' '
	both setup_logs "\$X reflog expire refs/heads/main && \$X reflog expire HEAD other"'
test_expect_success 'expire --all, explicit times' '
	both setup_logs "\$X reflog expire --all --expire=45.days.ago" &&
	both setup_logs "\$X reflog expire --expire=never --expire-unreachable=now main" &&
	both setup_logs "\$X reflog expire --expire=all other HEAD" &&
	both setup_logs "\$X reflog expire --expire=\"3 weeks ago\" --expire-unreachable=never --all"'
test_expect_success 'expire --rewrite --updateref, -n --verbose' '
	both setup_logs "\$X reflog expire --expire=30.days.ago --rewrite --updateref main" &&
	both setup_logs "\$X reflog expire --dry-run --verbose --expire=45.days.ago main" &&
	both setup_logs "\$X reflog expire --verbose --expire-unreachable=now main" &&
	both setup_logs "\$X reflog expire --expire=now --updateref main"'
test_expect_success 'expire --all --verbose, in git order' '
	both setup_logs "git update-ref refs/heads/zz HEAD; git update-ref refs/heads/aa HEAD;
		\$X reflog expire --all --verbose --dry-run --expire=all;
		\$X reflog expire --all --verbose --expire=45.days.ago"'
test_expect_success 'expire: config defaults and patterns' '
	both setup_logs "\$X -c gc.reflogExpire=60.days.ago reflog expire --all" &&
	both setup_logs "\$X -c gc.reflogExpireUnreachable=never reflog expire main" &&
	both setup_logs "\$X -c gc.refs/heads/ma*.reflogExpire=never reflog expire --all" &&
	both setup_logs "\$X -c gc.reflogExpire=bogus reflog expire main; echo \$?"'
test_expect_success 'expire errors' '
	both setup_logs "\$X reflog expire nosuch; echo \$?;
		\$X reflog expire --expire=bogus main; echo \$?;
		: >.git/refs/heads/main.lock; \$X reflog expire main; echo \$?"'
test_expect_success 'delete' '
	both setup_logs "\$X reflog delete main@{1} && \$X reflog delete --rewrite main@{2} &&
		\$X reflog delete --updateref --rewrite main@{0} && \$X reflog delete main@{99} &&
		\$X reflog delete --dry-run --verbose other@{1}; \$X reflog delete main; echo \$?;
		\$X reflog delete nosuch@{0}; echo \$?; \$X reflog delete; echo \$?"'
test_expect_success 'exists' '
	both setup_logs "\$X reflog exists refs/heads/main; echo \$?;
		\$X reflog exists main; echo \$?; \$X reflog exists HEAD; echo \$?;
		\$X reflog exists refs/heads/a..b; echo \$?; \$X reflog exists; echo \$?"'

setup_wt() { rm -rf ../wt2 && setup_logs && git worktree add -q ../wt2 -b b2 HEAD~1 &&
	GIT_COMMITTER_DATE=$(ago 50) git -C ../wt2 update-ref -m wt HEAD main; }
test_expect_success 'expire --all with a linked worktree' '
	both setup_wt "\$X reflog expire --expire=45.days.ago --all" &&
	both setup_wt "\$X reflog expire --expire=45.days.ago --all --single-worktree" &&
	both setup_wt "cd ../wt2 && \$X reflog expire --expire=45.days.ago --all" &&
	both setup_wt "cd ../wt2 && \$X update-ref -m x HEAD main && \$X symbolic-ref HEAD refs/heads/other &&
		\$X update-ref refs/bisect/bad HEAD && \$X pack-refs --all && \$X reflog expire --expire=all --all"'
test_expect_success 'show (plain form)' '
	both setup_logs "git update-ref refs/heads/gone HEAD && git update-ref -d refs/heads/gone &&
		\$X reflog; \$X reflog show; \$X reflog show main; \$X reflog refs/heads/other;
		\$X reflog show HEAD~1; \$X reflog nosuch; echo \$?;
		\$X reflog show main@{2}; \$X reflog @{1}; \$X reflog HEAD@{3}; \$X reflog main@{99}; echo \$?"'

test_done
