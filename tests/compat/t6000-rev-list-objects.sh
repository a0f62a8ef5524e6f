#!/bin/sh
# rev-list [--objects]: the commit and object walk against git's, line for
# line (order included): tips, exclusions, ranges, --all, --reflog,
# --indexed-objects, tags to trees and blobs, merges and equal dates.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

git init -q repo && cd repo &&
echo a >a && mkdir -p d/e && echo b >d/b && echo c >d/e/c &&
git add . && git commit -q -m one &&
git tag -a -m v1 v1 && git tag lt HEAD: && git tag -a -m blob vb HEAD:d/b &&
git checkout -q -b side && echo s >s && git add s && git commit -q -m side &&
git checkout -q - && echo a2 >a && git add a && git commit -q -m two &&
GIT_COMMITTER_DATE="@1700000000 +0000" git merge -q -m merge side &&
echo c2 >d/e/c && git add . &&
GIT_COMMITTER_DATE="@1700000000 +0000" git commit -q -m same-date &&
git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),module &&
echo staged >staged && git add staged && git write-tree >/dev/null &&
git init -q ../lin && cd ../lin && sh "$HERE/gen-history.sh" 60 12 7 |
	git fast-import --quiet && git checkout -q main && git tag -a -m t t1 main~20 &&
	cd "$TRASH" || exit 1

test_expect_success 'commits only' '
	(cd repo && compare rev-list HEAD && compare rev-list --all && compare rev-list side &&
	 compare rev-list HEAD ^side && compare rev-list side..HEAD && compare rev-list --count --all)'
test_expect_success 'objects from tips' '
	(cd repo && compare rev-list --objects HEAD && compare rev-list --objects --all &&
	 compare rev-list --objects v1 && compare rev-list --objects vb && compare rev-list --objects lt &&
	 compare rev-list --objects HEAD:d && compare rev-list --objects HEAD:d/e/c &&
	 compare rev-list --objects --no-object-names --all &&
	 compare rev-list --objects --count HEAD)'
test_expect_success 'objects with exclusions' '
	(cd repo && compare rev-list --objects HEAD ^side && compare rev-list --objects side..HEAD &&
	 compare rev-list --objects HEAD ^HEAD~1 && compare rev-list --objects --all ^v1 &&
	 compare rev-list --objects HEAD --not side v1 && compare rev-list --objects HEAD ^HEAD:d)'
test_expect_success 'reflog and index' '
	(cd repo && compare rev-list --objects --reflog && compare rev-list --objects --indexed-objects &&
	 compare rev-list --objects --all --reflog --indexed-objects &&
	 compare rev-list --objects --indexed-objects ^HEAD)'
test_expect_success 'a longer history' '
	(cd lin && compare rev-list --objects --all && compare rev-list --objects main~10..main &&
	 compare rev-list --objects t1 ^main~40 && compare rev-list --count main)'
test_expect_success 'bad revisions and options' '
	(cd repo && compare_fail rev-list nosuch && compare_fail rev-list --objects 0123456789012345678901234567890123456789 &&
	 compare rev-list --no-such-option; compare rev-list)'
test_done
