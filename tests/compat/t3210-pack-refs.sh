#!/bin/sh
# pack-refs against git: which refs are packed, the packed-refs bytes
# (header, order, peeled lines), pruning of loose files and directories.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/refs-lib.sh"

setup_mixed()
{
	setup_repo && git pack-refs --all &&
	git update-ref refs/heads/side HEAD && git update-ref refs/heads/deep/er/ref HEAD &&
	git update-ref refs/tags/new HEAD~1 && git tag -a -m x nt HEAD &&
	git update-ref refs/bisect/bad HEAD && git update-ref refs/worktree/w HEAD &&
	git symbolic-ref refs/heads/sym refs/heads/main &&
	echo 1234567890123456789012345678901234567890 >.git/refs/heads/missing &&
	echo 1234567890123456789012345678901234567890 >.git/refs/tags/missing &&
	echo garbage >.git/refs/heads/broken
}

rm_broken()
{
	rm -f .git/refs/heads/broken .git/refs/heads/missing .git/refs/tags/missing
}

# packed-refs as older gits wrote it: no header, or "peeled" only
setup_old()
{
	setup_repo && git pack-refs --all &&
	grep -v "^[#^]" .git/packed-refs >.git/p && mv .git/p .git/packed-refs &&
	git update-ref refs/heads/new HEAD
}
setup_old_tags()
{
	setup_old && { echo "# pack-refs with: peeled "; cat .git/packed-refs; } >.git/p &&
	mv .git/p .git/packed-refs
}

test_expect_success 'pack-refs over an old packed-refs (no header, peeled only)' '
	both setup_old "\$X pack-refs --all" && both setup_old_tags "\$X pack-refs --all"'
test_expect_success 'pack-refs (tags only)' 'both setup_repo "\$X pack-refs"'
test_expect_success 'pack-refs --all' 'both setup_repo "\$X pack-refs --all"'
test_expect_success 'pack-refs --all --no-prune, then --prune' '
	both setup_repo "\$X pack-refs --all --no-prune && \$X pack-refs --all --prune"'
test_expect_success 'pack-refs over packed refs, broken, missing, symbolic' '
	both setup_mixed "\$X pack-refs; \$X pack-refs --all; cat .git/packed-refs; rm_broken"'
test_expect_success 'pack-refs with packed-refs.lock held' '
	both setup_repo ": >.git/packed-refs.lock; \$X pack-refs --all; echo \$?"'
test_expect_success 'pack-refs usage' '
	both setup_repo "\$X pack-refs extra; echo \$?; \$X pack-refs --bogus; echo \$?"'
test_expect_success 'refs read back after fgit pack-refs' '
	both setup_mixed "\$X pack-refs --all; rm_broken; git show-ref -d; git for-each-ref; git rev-parse side nt^{}"'

test_done
