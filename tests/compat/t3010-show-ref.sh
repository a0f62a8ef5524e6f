#!/bin/sh
# show-ref and symbolic-ref against git, with loose and packed refs.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
echo a >a && git add a && git commit -q -m one && git tag -a -m annotated v1 &&
git tag light && git -c advice.nestedTag=false tag -a -m "tag of tag" vv v1 &&
git tag treetag HEAD^{tree} && echo b >a && git commit -q -am two &&
git branch side && git branch feature/x HEAD~1 && git branch v1 &&
git update-ref refs/remotes/origin/main HEAD~1 &&
git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main &&
git update-ref refs/notes/commits HEAD && cd "$TRASH" || exit 1
cp -r repo packed && git -C packed pack-refs --all &&
cp -r repo mixed && git -C mixed pack-refs --all && git -C mixed update-ref refs/heads/side HEAD~1

SHOW_REF_ARGS="
|-d|--head|-d --head|--heads|--tags|--heads --tags|-s|--hash|--hash=6|-s --abbrev=10 -d v1
|--abbrev|--abbrev=4|--abbrev=50|-q|main|x|v1|origin/main|HEAD|nosuch|main nosuch|-d vv|-d treetag
|--tags -d light|--verify refs/heads/main|--verify refs/heads/main HEAD|--verify main
|--verify -q main|--verify -q refs/heads/nosuch|--verify|--verify refs/tags/v1 -d
|--verify --abbrev=8 refs/tags/vv -s|--heads main|--tags main|--bogus|-- --tags"

all_show_ref()
{
	old=$IFS; IFS='|'
	for a in $SHOW_REF_ARGS; do
		IFS=$old
		compare show-ref $a || { IFS=$old; return 1; }
		IFS='|'
	done
	IFS=$old
}

test_expect_success 'show-ref, loose refs' '(cd repo && all_show_ref)'
test_expect_success 'show-ref, packed refs' '(cd packed && all_show_ref)'
test_expect_success 'show-ref, loose over packed' '(cd mixed && all_show_ref)'
test_expect_success 'show-ref from a subdirectory and a bare repository' '
	mkdir -p repo/sub && (cd repo/sub && compare show-ref -d) &&
	git clone -q --bare repo bare.git && (cd bare.git && compare show-ref -d --head)'
test_expect_success 'show-ref: ref pointing nowhere, broken ref, dangling symref' '
	cp -r repo broken && (cd broken &&
	 git symbolic-ref refs/heads/dangle refs/heads/nowhere && compare show-ref &&
	 echo 1111111111111111111111111111111111111111 >.git/refs/heads/missing &&
	 compare_fail show-ref && compare_fail show-ref --verify refs/heads/missing &&
	 rm .git/refs/heads/missing && echo garbage >.git/refs/heads/bad &&
	 compare_fail show-ref && compare_fail show-ref --verify refs/heads/bad)'
test_expect_success 'corrupt packed-refs: git dies, so must we' '
	cp -r packed badpack && (cd badpack &&
	 printf "garbage\n" >>.git/packed-refs &&
	 compare_err show-ref && compare_err rev-parse v1 && compare_err rev-parse HEAD &&
	 compare_err ls-tree HEAD && compare_err show-ref --verify refs/tags/v1 &&
	 sed -i "\$d" .git/packed-refs && printf "%s refs/heads/zz" $(git rev-parse HEAD) >>.git/packed-refs &&
	 compare_err show-ref && compare_err rev-parse main)'
test_expect_success 'show-ref: empty repository' '
	git init -q empty && (cd empty && compare show-ref && compare show-ref --head &&
	 compare_fail show-ref --verify HEAD)'
test_expect_success 'show-ref outside a repository' '
	mkdir -p /tmp/fgit-nr.$$ && (cd /tmp/fgit-nr.$$ && GIT_CEILING_DIRECTORIES=/tmp &&
	 export GIT_CEILING_DIRECTORIES && compare_fail show-ref); rc=$?; rmdir /tmp/fgit-nr.$$; [ $rc = 0 ]'

SYMREF_ARGS="HEAD|--short HEAD|-q HEAD|--no-recurse HEAD|refs/remotes/origin/HEAD
|--short refs/remotes/origin/HEAD|refs/heads/main|-q refs/heads/main|nosuch|-q nosuch
||a b c|--bogus HEAD|refs/heads/chain|--no-recurse refs/heads/chain"

all_symref()
{
	old=$IFS; IFS='|'
	for a in $SYMREF_ARGS; do
		IFS=$old
		compare symbolic-ref $a || { IFS=$old; return 1; }
		IFS='|'
	done
	IFS=$old
}

test_expect_success 'symbolic-ref reading' '
	git -C repo symbolic-ref refs/heads/chain refs/remotes/origin/HEAD &&
	git -C packed symbolic-ref refs/heads/chain refs/remotes/origin/HEAD &&
	(cd repo && all_symref) && (cd packed && all_symref)'
test_expect_success 'symbolic-ref: detached HEAD, unborn branch' '
	(cd repo && git checkout -q --detach && compare_fail symbolic-ref HEAD &&
	 compare symbolic-ref -q HEAD && git checkout -q main) &&
	(cd empty && compare symbolic-ref HEAD && compare symbolic-ref --short HEAD)'
test_expect_success 'symbolic-ref --short when the short name is ambiguous' '
	(cd repo && git checkout -q v1 && compare symbolic-ref --short HEAD && git checkout -q main)'

test_done
