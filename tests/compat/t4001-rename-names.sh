#!/bin/sh
# Rename names abbreviated as git's commit summary shows them.
. "$(dirname "$0")/lib.sh"

check_rename()
{
	rm -rf r && git init -q r && (
		cd r &&
		mkdir -p "$(dirname "$1")" && echo "content of $1" >"$1" &&
		git add . && git commit -qm one &&
		mkdir -p "$(dirname "$2")" && git mv "$1" "$2" &&
		git commit -m two | grep "^ rename" >../expect
	) &&
	"$FGIT_TOOLS/renamename" "$1" "$2" >actual &&
	diff expect actual
}

test_expect_success 'renames: shared prefix, suffix, both, neither' '
	check_rename a/b/f a/c &&
	check_rename a/c a2/c &&
	check_rename a/x/b a/b &&
	check_rename g h &&
	check_rename dir/sub/file.c dir/other/file.c &&
	check_rename x/y/z.txt x/y/w/z.txt &&
	check_rename one/two three/two &&
	check_rename ab/c abc/c &&
	check_rename p/q/r/s p/s
'

test_done
