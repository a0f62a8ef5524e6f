#!/bin/sh
# git rm against git: what is removed from the index and the work tree,
# the safety checks and their messages, pathspecs, -r, --cached, -f, -n,
# -q, --ignore-unmatch, the index lock.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/wt-lib.sh"

setup_rm()
{
	git init -q . &&
	mkdir -p d/e f && echo a >a && echo b >b && echo c >d/c && echo x >d/e/x &&
	echo y >f/y && echo s >sp\ ace && git add . && git commit -q -m one &&
	echo new >new && git add new &&
	echo staged >b && git add b &&
	echo local >d/c &&
	echo both >f/y && git add f/y && echo both2 >f/y
}

rm_case() { index_case setup_rm "$@"; }

test_expect_success 'rm clean files and a directory with -r' '
	rm_case rm a && rm_case rm -r d/e && rm_case rm -r -q d/e "sp ace" && rm_case rm "sp ace" a'
test_expect_success 'rm refuses local and staged changes' '
	rm_case rm b && rm_case rm d/c && rm_case rm f/y && rm_case rm b d/c f/y new &&
	rm_case rm -r d f b'
test_expect_success 'rm --cached, -f, -n' '
	rm_case rm --cached b && rm_case rm --cached d/c && rm_case rm --cached f/y &&
	rm_case rm --cached new && rm_case rm -f f/y b && rm_case rm -n -r d &&
	rm_case rm -n b && rm_case rm -f -r . && rm_case rm --cached -r -q .'
test_expect_success 'rm pathspecs and errors' '
	rm_case rm nosuch && rm_case rm --ignore-unmatch nosuch && rm_case rm --ignore-unmatch nosuch a &&
	rm_case rm d && rm_case rm "*.txt" && rm_case rm "d/*" && rm_case rm -r "d/*" &&
	rm_case rm ":(exclude)a" && rm_case rm -r -- . ":!d" && rm_case rm &&
	rm_case rm --bogus && rm_case rm a nosuch'
test_expect_success 'rm from a subdirectory, and with index.lock held' '
	mkdir -p "$TRASH/w" && rm_case -C d rm c && rm_case -C d rm -r e ../a &&
	rm_case -C d/e rm -f x'
setup_list()
{
	setup_rm && printf 'a\n"sp ace"\nd/e/x\n' >.git/list && printf 'a\0d/e/x\0' >.git/nul &&
	printf '"bad\n' >.git/bad
}
test_expect_success 'rm --pathspec-from-file' '
	index_case setup_list rm --pathspec-from-file=.git/list &&
	index_case setup_list rm --pathspec-from-file=.git/nul --pathspec-file-nul &&
	index_case setup_list rm --pathspec-from-file=.git/bad &&
	index_case setup_list rm --pathspec-from-file=.git/list a &&
	index_case setup_list rm --pathspec-file-nul a &&
	index_case setup_list rm --pathspec-from-file=.git/nosuch'
setup_locked() { setup_rm && : >.git/index.lock; }
test_expect_success 'rm with index.lock held' '
	compare_write setup_locked rm a && cmp -s "$CMP/git.err" "$CMP/fgit.err" &&
	same_tree "\.git/objects"'

test_done
