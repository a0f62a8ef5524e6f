#!/bin/sh
# The untracked cache (index extension UNTR) against git, on git's t7063
# scenarios: created by status when core.untrackedCache is on, refreshed
# as files, directories, .gitignore files, info/exclude and the index
# change, written back only when git writes it, dropped when the setting is
# off, and update-index's --[no-|force-]untracked-cache.
#
# Each check starts git and fgit from the same index file in the same work
# tree, so stat data match and the extension must be the same bytes
# (untr-dump.py extracts it); then each tool reads what the other wrote.
DUMP="python3 $(cd "$(dirname "$0")" && pwd)/untr-dump.py"
. "$(dirname "$0")/lib.sh"

# uc_check [status options]: same output, same UNTR, and cross-reading.
uc_check()
{
	cp -p .git/index ../idx.before &&
	{ git status --porcelain "$@" >../g.out 2>../g.err || return 1; } &&
	$DUMP .git/index >../g.untr &&
	cp -p .git/index ../idx.git &&
	cp -p ../idx.before .git/index &&
	{ "$FGIT" status --porcelain "$@" >../f.out 2>../f.err || return 1; } &&
	$DUMP .git/index >../f.untr &&
	{ cmp ../g.out ../f.out || { diff -u ../g.out ../f.out; return 1; }; } &&
	{ cmp ../g.err ../f.err || { diff -u ../g.err ../f.err; return 1; }; } &&
	{ cmp ../g.untr ../f.untr || { echo "UNTR differs"; cat ../g.untr ../f.untr; return 1; }; } &&
	git status --porcelain "$@" >../g2.out && cmp ../g.out ../g2.out &&
	cp -p ../idx.git .git/index &&
	"$FGIT" status --porcelain "$@" >../f2.out && cmp ../g.out ../f2.out
}

# uc_cmd CMD...: a command that writes the index, run by both from the
# same index: the same UNTR afterwards (the rest of the index is checked by
# the commands' own tests).
uc_cmd()
{
	cp -p .git/index ../idx.before &&
	git "$@" >../g.out 2>../g.err; g=$?
	$DUMP .git/index >../g.untr && cp -p .git/index ../idx.git &&
	cp -p ../idx.before .git/index &&
	"$FGIT" "$@" >../f.out 2>../f.err; f=$?
	$DUMP .git/index >../f.untr &&
	{ [ "$g" = "$f" ] && cmp ../g.out ../f.out && cmp ../g.err ../f.err || { echo "$*: exit $g $f"; cat ../g.err ../f.err; return 1; }; } &&
	{ cmp ../g.untr ../f.untr || { echo "UNTR differs after $*"; cat ../g.untr ../f.untr; return 1; }; }
}

git init -q repo && cd repo &&
mkdir -p done dthree dtwo/sub four/five && echo one >one && echo two >two &&
echo three >three && echo 1 >done/one && echo 5 >four/five/f &&
printf "*.o\n" >.gitignore && git add one two done/one four .gitignore &&
git commit -q -m first && echo x >dthree/three && echo y >dtwo/two &&
echo z >dtwo/sub/z && echo o >four/x.o && mkdir ign && echo i >ign/a.o &&
git config core.untrackedCache true && cd "$TRASH" || exit 1

test_expect_success 'status creates the cache as git does' '
	cd repo && [ -z "$($DUMP .git/index)" ] && uc_check && [ -n "$($DUMP .git/index)" ]'
test_expect_success 'second run: nothing changed' 'cd repo && sleep 1 && uc_check && uc_check'
test_expect_success 'new untracked file at the top and below' '
	cd repo && echo n >new && echo m >done/new && uc_check'
test_expect_success 'new directory, and a file in a check-only one' '
	cd repo && mkdir -p nd/deep && echo q >nd/deep/q && echo d >dthree/more && uc_check'
test_expect_success 'file removed; a directory left with only ignored files' '
	cd repo && rm new && rm dtwo/two dtwo/sub/z && echo o >dtwo/sub/y.o && uc_check'
test_expect_success 'a .gitignore changes in a subdirectory' '
	cd repo && sleep 1 && printf "more\n" >done/.gitignore && uc_check &&
	printf "new\n" >>done/.gitignore && uc_check'
test_expect_success 'the top .gitignore changes' '
	cd repo && printf "*.o\nnd/\n" >.gitignore && uc_check && sleep 1 && uc_check'
test_expect_success 'info/exclude changes' '
	cd repo && echo dthree >>.git/info/exclude && uc_check && sleep 1 && uc_check'
test_expect_success 'add and rm --cached invalidate directories' '
	cd repo && sleep 1 && uc_check && uc_cmd add done/new && uc_check &&
	uc_cmd rm -q --cached done/one && uc_check && uc_cmd add dtwo && uc_check'
# uc_commit ARGS...: commit with both from the same index and HEAD.
uc_commit()
{
	head=$(git rev-parse HEAD) && cp -p .git/index ../idx.before &&
	git commit "$@" >../g.out 2>../g.err; g=$?
	$DUMP .git/index >../g.untr && git update-ref HEAD $head &&
	cp -p ../idx.before .git/index &&
	"$FGIT" commit "$@" >../f.out 2>../f.err; f=$?
	$DUMP .git/index >../f.untr &&
	[ "$g" = "$f" ] && cmp ../g.out ../f.out &&
	{ cmp ../g.untr ../f.untr || { echo "UNTR differs after commit $*"; cat ../g.untr ../f.untr; return 1; }; }
}

test_expect_success 'commit keeps the cache; nothing to commit writes none' '
	cd repo && uc_commit -q -m second && sleep 1 && uc_check && uc_commit -q -m third'

test_expect_success 'a directory becomes wholly untracked' '
	cd repo && uc_cmd rm -q --cached four/five/f && uc_check'
test_expect_success 'nested repository and empty directories' '
	cd repo && git init -q nested && mkdir -p empty/e2 && uc_check && sleep 1 && uc_check'
test_expect_success 'status.showUntrackedFiles and -u modes leave the cache alone' '
	cd repo && uc_check -uall && uc_check -uno && uc_check -uall'
# uc_all MODE [status options]: as uc_check, with status.showUntrackedFiles
# set to MODE ("-": unset)
uc_all()
{
	c="-c status.showUntrackedFiles=$1"; [ "$1" = - ] && c=
	shift
	cp -p .git/index ../idx.b && git $c status --porcelain "$@" >../g.out &&
	$DUMP .git/index >../g.untr && cp -p ../idx.b .git/index &&
	"$FGIT" $c status --porcelain "$@" >../f.out && $DUMP .git/index >../f.untr &&
	cmp ../g.out ../f.out && { cmp ../g.untr ../f.untr ||
	{ echo "UNTR differs: $c $*"; cat ../g.untr ../f.untr; return 1; }; }
}
test_expect_success 'status.showUntrackedFiles=all: the cache kept for -uall, replaced, used' '
	cd repo && uc_all all && sleep 1 && uc_all all &&
	echo a >nd/deep/new && mkdir -p nd/more && echo b >nd/more/b && echo c >dthree/c.o &&
	uc_all all && uc_all no -uall && uc_all - && uc_all - -uall && uc_all all -unormal &&
	uc_all all && rm -r nd/more && sleep 1 && uc_all all && uc_all all && uc_all - -uall && uc_all -'
test_expect_success 'core.untrackedCache unset: used, not written' '
	cd repo && git config --unset core.untrackedCache && echo k >keep1 && uc_check &&
	git config core.untrackedCache true'
test_expect_success 'core.untrackedCache=false drops it' '
	cd repo && git config core.untrackedCache false && uc_check && [ -z "$($DUMP .git/index)" ] &&
	git config core.untrackedCache true && uc_check'
test_expect_success 'update-index --[no-|force-]untracked-cache' '
	cd repo && git config --unset core.untrackedCache &&
	uc_cmd update-index --no-untracked-cache && [ -z "$($DUMP .git/index)" ] &&
	uc_cmd update-index --untracked-cache && uc_cmd update-index --verbose --no-untracked-cache &&
	uc_cmd update-index --force-untracked-cache --verbose && uc_check &&
	uc_cmd -c core.untrackedCache=false update-index --untracked-cache &&
	uc_cmd -c core.untrackedCache=true update-index --no-untracked-cache'
# six one-second pauses each for git and fgit
test_expect_success 'update-index --test-untracked-cache: same progress, verdict, nothing written' '
	cd repo/done && cp -p ../.git/index ../../idx.t && sleep 1 && touch ../two &&
	compare_err update-index --refresh --untracked-cache --test-untracked-cache &&
	cmp ../.git/index ../../idx.t && [ -z "$(ls -d ../mtime-test-* 2>/dev/null)" ] &&
	git init -q --bare ../../bare-t && cd ../../bare-t &&
	compare_fail update-index --test-untracked-cache'
test_expect_success 'feature.manyFiles writes an empty cache' '
	cd repo && git config --unset core.untrackedCache; git update-index --no-untracked-cache &&
	uc_cmd -c feature.manyFiles=true update-index --refresh &&
	uc_cmd -c feature.manyFiles=true add keep1 && uc_check'
test_expect_success 'a cache from another work tree is not used' '
	cd "$TRASH" && git clone -q repo moved && cp repo/.git/index moved/.git/index && cd moved &&
	git config --unset core.untrackedCache; uc_check'
test_done
