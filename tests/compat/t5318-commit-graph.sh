#!/bin/sh
# commit-graph write/verify against git: byte-identical commit-graph files
# (octopus EDGE lists, corrected dates with skew and GDO2 overflows), git's
# verify accepting fgit's, same output and exit codes.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

setup_repo()
{
	git init -q . &&
	for i in 1 2 3 4 5; do echo $i >f && git add f && git commit -qm c$i || return 1; done &&
	for b in a b c; do
		git checkout -qb $b main~2 && echo $b >$b && git add $b && git commit -qm $b || return 1
	done &&
	git checkout -q main && git merge -q --no-edit a b c &&
	git tag -a -m t v1 HEAD~1 && git tag light main~3 &&
	git checkout -qb skew main &&
	GIT_COMMITTER_DATE="@1000000000 +0000" git commit -q --allow-empty -m old &&
	GIT_COMMITTER_DATE="@1500000000 +0000" git commit -q --allow-empty -m newer &&
	git checkout -q main && git repack -adq &&
	echo loose >l && git add l && git commit -qm loose
}

setup_overflow()
{
	git init -q . &&
	GIT_COMMITTER_DATE="@4000000000 +0000" git commit -q --allow-empty -m future &&
	GIT_COMMITTER_DATE="@100 +0000" git commit -q --allow-empty -m past &&
	GIT_COMMITTER_DATE="@50 +0000" git commit -q --allow-empty -m past2
}

same_graph()
{
	cmp w.git/.git/objects/info/commit-graph w/.git/objects/info/commit-graph &&
	ls -l w/.git/objects/info/commit-graph | cut -c1-10 >m1 &&
	ls -l w.git/.git/objects/info/commit-graph | cut -c1-10 >m2 && cmp m1 m2 &&
	git -C w commit-graph verify
}

test_expect_success 'write --reachable: octopus, tags, skewed dates' '
	compare_write setup_repo commit-graph write --reachable && same_graph
'
test_expect_success 'write (commits of the packs and what they reach)' '
	compare_write setup_repo commit-graph write && same_graph
'
test_expect_success 'corrected-date offsets past 31 bits (GDO2)' '
	compare_write setup_overflow commit-graph write --reachable && same_graph &&
	od -c w/.git/objects/info/commit-graph | grep -q "G   D   O   2"
'
setup_stdin() { setup_repo && git rev-parse v1 a skew~1 >../commits; }
test_expect_success 'write --stdin-commits (tags peeled)' '
	_w=$TRASH/w && rm -rf w w.git && mkdir w && (cd w && setup_stdin) >/dev/null 2>&1 &&
	cp -a w w.git &&
	(cd w.git && git commit-graph write --stdin-commits <../commits) &&
	(cd w && "$FGIT" commit-graph write --stdin-commits <../commits) && same_graph
'
setup_append() { setup_repo && git commit-graph write --reachable && git commit -qm more --allow-empty; }
test_expect_success 'write --append --stdin-commits keeps the old commits' '
	rm -rf w w.git && mkdir w && (cd w && setup_append) >/dev/null 2>&1 &&
	git -C w rev-parse HEAD >new && cp -a w w.git &&
	(cd w.git && git commit-graph write --append --stdin-commits <../new) &&
	(cd w && "$FGIT" commit-graph write --append --stdin-commits <../new) && same_graph
'
test_expect_success 'an existing graph is replaced' '
	compare_write setup_append commit-graph write --reachable && same_graph
'
setup_empty() { git init -q .; }
test_expect_success 'empty repository: nothing written' '
	compare_write setup_empty commit-graph write --reachable &&
	test ! -f w/.git/objects/info/commit-graph
'
test_expect_success 'verify: sound, absent' '
	rm -rf p && mkdir p && (cd p && setup_repo >/dev/null 2>&1 && git commit-graph write --reachable && compare commit-graph verify && rm -f .git/objects/info/commit-graph &&
	 compare commit-graph verify)
'
setup_corrupt() { setup_repo && git commit-graph write --reachable && chmod u+w .git/objects/info/commit-graph; }
test_expect_success 'verify: bad checksum, truncated' '
	rm -rf v && mkdir v && (cd v && setup_corrupt >/dev/null 2>&1 &&
	printf "\\377" | dd of=.git/objects/info/commit-graph bs=1 seek=$(( $(wc -c <.git/objects/info/commit-graph) - 1 )) conv=notrunc 2>/dev/null &&
	compare_err commit-graph verify &&
	cp .git/objects/info/commit-graph cg && head -c 100 cg >.git/objects/info/commit-graph &&
	compare commit-graph verify)
'
test_expect_success 'verify --progress: final line' '
	rm -rf p && mkdir p && (cd p && setup_repo >/dev/null 2>&1 && git commit-graph write --reachable &&
	 git commit-graph verify --progress 2>&1 | tr "\\r" "\\n" | grep done >g &&
	 "$FGIT" commit-graph verify --progress 2>&1 | tr "\\r" "\\n" | grep done >f && cmp g f)
'
test_expect_success 'usage; --split and --changed-paths refused (129)' '
	(cd w.git && compare_err commit-graph && compare_err commit-graph bogus &&
	 { "$FGIT" commit-graph write --split 2>/dev/null; test $? = 129; } &&
	 { "$FGIT" commit-graph write --reachable --changed-paths 2>/dev/null; test $? = 129; })
'

echo "$test_count tests, $test_failed failed"
[ "$test_failed" = 0 ]
