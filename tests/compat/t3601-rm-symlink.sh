#!/bin/sh
# git rm and git mv of tracked paths whose leading directory has been
# replaced by a symbolic link.  git's refresh passes over such a path
# (has_symlink_leading_path), so rm's safety check compares the entry's
# stat data as they were with the file the link leads to: a copy of the
# file (same content, another inode) is a local modification, a racy entry
# has its content read through the link, nothing behind the link means
# the file is gone; with -f, git unlinks through the link.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/wt-lib.sh"

# d/f and d/sub/k clean, d/h with a staged change; every file dated 2020
# so that no entry is racy unless a setup dates the index back too.
setup_base()
{
	git init -q . &&
	mkdir -p d/sub && echo f >d/f && echo h >d/h && echo k >d/sub/k && echo g >g &&
	touch -d '2020-01-01 00:00:00' d/f d/h d/sub/k g &&
	git add . && git commit -q -m one &&
	echo staged >d/h && touch -d '2020-01-01 00:00:00' d/h && git add d/h
}
racy_index() { touch -d '2020-01-01 00:00:00' .git/index; }
# d -> other, a copy of d: same content, other inodes.
setup_copy() { setup_base && mv d real && mkdir other && cp -pR real/. other/ && ln -s other d; }
setup_copy_racy() { setup_copy && racy_index; }
# d -> other, an empty directory: nothing behind the link.
setup_gone() { setup_base && mv d real && mkdir other && ln -s other d; }
# d -> g, a file: d/f fails with ENOTDIR.
setup_tofile() { setup_base && mv d real && ln -s g d; }
# d renamed to other and linked back: the very same files (stat data equal).
setup_moved() { setup_base && mv d other && ln -s other d; }
setup_moved_racy() { setup_moved && racy_index; }
# ... and d/f rewritten with the same size and mtime (ctime not trusted):
# only a content check can see it.
setup_moved_edit()
{
	setup_moved && git config core.trustctime false && printf 'F\n' >other/f &&
	touch -d '2020-01-01 00:00:00' other/f
}
setup_moved_edit_racy() { setup_moved_edit && racy_index; }
# only d/sub is a link, to a copy of it.
setup_subcopy()
{
	setup_base && mv d/sub realsub && mkdir othersub && cp -p realsub/k othersub/ &&
	ln -s ../othersub d/sub
}

rm_all()
{
	index_case "$1" rm d/f && index_case "$1" rm d/h && index_case "$1" rm --cached d/f &&
	index_case "$1" rm --cached d/h && index_case "$1" rm -f d/f &&
	index_case "$1" rm -r d && index_case "$1" rm -n -r d && index_case "$1" rm -r -f d &&
	index_case "$1" rm -q d/f g && index_case "$1" rm -r --cached d &&
	index_case "$1" rm -f --cached d/h && index_case "$1" rm d/sub/k
}

test_expect_success 'rm below a link to a copy: local modifications' 'rm_all setup_copy'
test_expect_success 'rm below a link to a copy, racy index' 'rm_all setup_copy_racy'
test_expect_success 'rm below a link to an empty directory' 'rm_all setup_gone'
test_expect_success 'rm below a link to a file' 'rm_all setup_tofile'
test_expect_success 'rm below a link to the moved directory' '
	rm_all setup_moved && rm_all setup_moved_racy'
test_expect_success 'rm below a link, same stat data, other content' '
	rm_all setup_moved_edit && rm_all setup_moved_edit_racy'
test_expect_success 'rm below a symlinked subdirectory' '
	index_case setup_subcopy rm -r d && index_case setup_subcopy rm d/sub/k d/f &&
	index_case setup_subcopy rm -r -f d/sub && index_case setup_subcopy rm -r --cached d'

mv_all()
{
	index_case "$1" mv d/f x && index_case "$1" mv -f d/f g && index_case "$1" mv -k d/f x &&
	index_case "$1" mv d/h other/h2 && index_case "$1" mv d x && index_case "$1" mv g d/ &&
	index_case "$1" mv -n d/f x
}
test_expect_success 'mv below a symlinked directory' '
	mv_all setup_copy && mv_all setup_gone && mv_all setup_tofile && mv_all setup_moved_racy'

test_done
