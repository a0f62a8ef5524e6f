#!/bin/sh
# rev-parse on revisions: names by git's dwim rules, full and abbreviated
# ids, ~N ^N ^{type} ^{} <rev>:<path>, ranges, --verify/-q/--short/
# --abbrev-ref/--symbolic-full-name, and the error cases.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
echo a >a && mkdir -p d/e && echo b >d/b && echo c >d/e/c && git add . &&
git commit -q -m one && git tag -a -m "annotated" v1 && git tag light &&
git -c advice.nestedTag=false tag -a -m "tag of tag" vv v1 && git tag treetag HEAD^{tree} &&
echo a2 >a && git commit -q -am two &&
git checkout -q -b side HEAD~1 && echo s >s && git add s && git commit -q -m side &&
git checkout -q main && git merge -q --no-edit side &&
git branch v1 HEAD~1 && git update-ref refs/remotes/origin/main HEAD~2 &&
git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main &&
git update-ref refs/heads/heads/nested HEAD && cd "$TRASH" || exit 1

# one git repository with packed refs, one with loose refs
cp -r repo packed && git -C packed pack-refs --all

REVS="HEAD @ main side v1 light vv treetag refs/heads/main heads/main tags/v1
origin origin/main refs/remotes/origin/HEAD heads/nested
HEAD~ HEAD~0 HEAD~1 HEAD~2 HEAD~3 HEAD^ HEAD^1 HEAD^2 HEAD^3 HEAD^0 HEAD^^ HEAD^^2 HEAD~1^2
v1^0 v1^{} vv^{} vv^{tag} vv^{commit} v1^{tree} HEAD^{tree} HEAD^{commit} HEAD^{object}
HEAD^{blob} HEAD^{tag} treetag^{commit} treetag^{tree} v1~1 light^{}
HEAD:a HEAD:d HEAD:d/b HEAD:d/e/c HEAD: HEAD:nonexist HEAD:d/nonexist HEAD:a/b v1:a
main~1:d/e side:s HEAD^{tree}:a
nosuch refs/heads/nosuch main..side side..main ..side main.. ^main ^HEAD~1
a d d/b nosuch/x"

all_revs()
{
	for r in $REVS; do
		for o in "" --verify "--verify -q" --short --short=4 --short=12 \
			 --symbolic-full-name --abbrev-ref --abbrev-ref=loose --symbolic; do
			compare_fail_or_ok rev-parse $o "$r" || return 1
		done
	done
}

# compare, and when git fails the stderr prefix as compare_fail does
compare_fail_or_ok()
{
	compare "$@" || return 1
	[ "$g_rc" = 0 ] && return 0
	err_prefixes
	[ "$gp" = "$fp" ] || { echo "stderr prefix for $*: git '$gp' fgit '$fp'"; return 1; }
}

test_expect_success 'revisions, loose refs' '(cd repo && all_revs)'
test_expect_success 'revisions, packed refs (peeled lines)' '(cd packed && all_revs)'
test_expect_success 'revisions from a subdirectory (relative paths)' '
	(cd repo/d && compare rev-parse HEAD:./b HEAD:./e/c HEAD:../a HEAD:./ HEAD:e/c &&
	 compare_fail rev-parse HEAD:./nosuch && compare rev-parse b -- e &&
	 compare_fail rev-parse a)'
test_expect_success 'full and abbreviated ids' '
	(cd repo && full=$(git rev-parse HEAD) && short=$(echo $full | cut -c1-7) &&
	 compare rev-parse $full $short $(echo $full | cut -c1-4) &&
	 compare rev-parse --verify $short^ && compare rev-parse $short:a &&
	 compare rev-parse 0000000000000000000000000000000000000000 &&
	 compare_fail rev-parse --verify 0000000 &&
	 compare rev-parse --verify -q 0000000)'
test_expect_success 'several arguments, --, filenames, flags passed through' '
	(cd repo && compare rev-parse HEAD side -- a d &&
	 compare rev-parse HEAD a d/b && compare rev-parse a HEAD -- x &&
	 compare_fail rev-parse nosuch -- a && compare_fail rev-parse HEAD nosuch &&
	 compare rev-parse --foo HEAD -x && compare_fail rev-parse --verify --foo HEAD &&
	 compare_fail rev-parse --verify HEAD side && compare rev-parse --default HEAD &&
	 compare rev-parse --default HEAD side && compare rev-parse --verify --default side &&
	 compare rev-parse && compare rev-parse -- HEAD)'
test_expect_success 'ambiguous names and abbreviated ids' '
	(cd repo && compare rev-parse v1 && compare rev-parse --symbolic-full-name v1 &&
	 compare rev-parse --abbrev-ref heads/v1 tags/v1 main &&
	 compare rev-parse --abbrev-ref=strict heads/v1 && compare rev-parse --abbrev-ref=loose heads/v1 &&
	 compare_fail rev-parse --abbrev-ref=bogus HEAD &&
	 i=0; while [ $i -lt 600 ]; do echo "blob $i" >>../blobs; i=$((i+1)); done &&
	 i=0; while [ $i -lt 600 ]; do echo "blob $i" >../b.$i; echo ../b.$i; i=$((i+1)); done |
		git hash-object -w --stdin-paths >../ids &&
	 p=$(cut -c1-4 ../ids | sort | uniq -d | head -1) && [ -n "$p" ] &&
	 compare_fail rev-parse $p && compare_fail rev-parse --verify $p &&
	 compare_fail rev-parse --verify -q $p && compare rev-parse --short=4 $(grep ^$p ../ids | head -1))'
test_expect_success 'detached HEAD, unborn branch' '
	(cd repo && git checkout -q --detach && compare rev-parse --abbrev-ref HEAD &&
	 compare rev-parse --symbolic-full-name HEAD @ && git checkout -q main) &&
	git init -q unborn && (cd unborn && compare_fail rev-parse HEAD &&
	 compare_fail rev-parse --verify HEAD && compare rev-parse --verify -q HEAD;
	 compare rev-parse --symbolic-full-name HEAD; compare rev-parse --abbrev-ref HEAD; true)'
test_expect_success 'broken and dangling refs' '
	cp -r repo broken && (cd broken &&
	 echo garbage >.git/refs/heads/bad && compare_fail rev-parse bad &&
	 git symbolic-ref refs/heads/dangle refs/heads/nowhere && compare_fail rev-parse dangle &&
	 echo 1111111111111111111111111111111111111111 >.git/refs/heads/missing &&
	 compare rev-parse missing && compare_fail rev-parse missing^{commit} &&
	 compare_fail rev-parse --verify missing~1)'
test_expect_success '--all, --branches, --tags, --remotes, --show-object-format' '
	(cd repo && for a in --all --branches --tags --remotes "--symbolic --all" \
		"--abbrev-ref --all" "--symbolic-full-name --tags" "--all HEAD" \
		--show-object-format --show-object-format=input; do
		compare rev-parse $a || exit 1; done) &&
	(cd packed && compare rev-parse --all && compare rev-parse --symbolic --branches)'
test_expect_success 'options not built yet are refused, not echoed' '
	(cd repo && rc=0; "$FGIT" rev-parse --git-path x >/dev/null 2>&1 || rc=$?; [ $rc = 129 ] &&
	 rc=0; "$FGIT" rev-parse HEAD@{1} >/dev/null 2>&1 || rc=$?; [ $rc = 129 ] &&
	 rc=0; "$FGIT" rev-parse :/one >/dev/null 2>&1 || rc=$?; [ $rc = 129 ])'
index_paths()
{
	for r in :a :d/b :nonexist :untracked :0:a :1:a :2:a :3:d/b :./a :d :4:a :./d/b; do
		for o in "" --verify "--verify -q" --short; do
			compare_fail_or_ok rev-parse $o "$r" || return 1
		done
	done
}

test_expect_success ':<path> and :<stage>:<path> in the index' '
	(cd repo && echo new >untracked && index_paths &&
	 cd d && compare rev-parse :./b :../a && compare_fail rev-parse :b && rm ../untracked) &&
	git init -q conflict && (cd conflict && echo a >f && git add f && git commit -q -m a &&
	 git checkout -q -b o && echo b >f && git commit -q -am b && git checkout -q main &&
	 echo c >f && git commit -q -am c && { git merge o >/dev/null 2>&1; true; } &&
	 for s in :1:f :2:f :3:f :0:f :f; do compare_fail_or_ok rev-parse $s || exit 1; done &&
	 GIT_INDEX_FILE=nowhere && export GIT_INDEX_FILE && compare_fail rev-parse :f)'
test_expect_success 'core.abbrev' '
	(cd repo && compare -c core.abbrev=10 rev-parse --short HEAD &&
	 compare -c core.abbrev=no rev-parse --short HEAD)'

test_expect_success 'auto abbreviation grows with the packed object count' '
	git init -q big && (cd big &&
	 python3 -c "
import sys
w = sys.stdout.write
w(\"commit refs/heads/main\\ncommitter A <a@b> 0 +0000\\ndata 2\\nx\\n\")
for i in range(20000):
    d = \"blob %d\\n\" % i
    w(\"M 100644 inline f%05d\\ndata %d\\n%s\\n\" % (i, len(d), d))
" | git fast-import --quiet && git repack -q -a -d &&
	 compare rev-parse --short HEAD && compare show-ref --abbrev && compare ls-tree --abbrev HEAD &&
	 compare -c core.abbrev=auto rev-parse --short HEAD)'

test_done
