#!/bin/sh
# git mv against git: files, directories, into directories, -f, -n, -k,
# -v, git's refusals, from a subdirectory; the index and work tree after.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/wt-lib.sh"

setup_mv()
{
	git init -q . &&
	mkdir -p d/e f g && echo a >a && echo b >b && echo c >d/c && echo x >d/e/x &&
	echo y >f/y && echo u >untracked && git add a b d f && git commit -q -m one &&
	echo n >new && git add new && echo mod >b
}

mv_case() { index_case setup_mv "$@"; }

test_expect_success 'mv files' '
	mv_case mv a a2 && mv_case mv b b2 && mv_case mv new new2 && mv_case mv a g &&
	mv_case mv a b g/ && mv_case mv -v a d/c2 && mv_case mv a .'
test_expect_success 'mv directories' '
	mv_case mv d d2 && mv_case mv d g && mv_case mv -v d/e f && mv_case mv d/ d3/ &&
	mv_case mv -n d g && mv_case mv f/ g/'
test_expect_success 'mv refusals' '
	mv_case mv nosuch x && mv_case mv untracked x && mv_case mv a b &&
	mv_case mv a b c && mv_case mv d d/e && mv_case mv a nodir/ && mv_case mv d f &&
	mv_case mv g x && mv_case mv a new && mv_case mv ../x y && mv_case mv a'
test_expect_success 'mv -f, -k' '
	mv_case mv -f a b && mv_case mv -f -v a b && mv_case mv -f a d &&
	mv_case mv -k nosuch a g && mv_case mv -k a untracked b g && mv_case mv -k nosuch x'
test_expect_success 'mv from a subdirectory' '
	mv_case -C d mv c ../c && mv_case -C d mv e ../g && mv_case -C d/e mv x ../../x'
setup_locked() { setup_mv && : >.git/index.lock; }
test_expect_success 'mv with index.lock held' '
	compare_write setup_locked mv a a2 && cmp -s "$CMP/git.err" "$CMP/fgit.err"'

test_done
