#!/bin/sh
# status against git: every format over many situations (clean, staged,
# unstaged, untracked, ignored, renames, deletions, type changes, unmerged,
# detached HEAD, unborn branch, ahead/behind, subdirectories, submodules),
# and the index refresh it writes back.
. "$(dirname "$0")/lib.sh"

FORMATS="|-s|-sb|--porcelain|--porcelain -b|--porcelain=v2|--porcelain=v2 --branch|-z|-s -z|--porcelain=v2 -z -b|-uno|-s -uall|-s -unormal|--ignored|-s --ignored|-s --ignored=matching|-s -uall --ignored|--no-renames|-s --no-renames|--long"

all_st()
{
	old=$IFS; IFS='|'
	for a in $1; do
		IFS=$old
		compare status $a || { IFS=$old; return 1; }
		IFS='|'
	done
	IFS=$old
}

git init -q repo && cd repo &&
for i in 1 2 3 4 5; do seq 1 $((i * 20)) >f$i; done &&
mkdir -p d/e && echo x >d/e/x && echo y >d/y && echo "hello world" >"sp ace" &&
printf 't\n' >"$(printf 'ta\tb')" && echo l >link-target && ln -s link-target lnk &&
git add . && git commit -q -m1 && cd "$TRASH" || exit 1

test_expect_success 'clean tree' '(cd repo && all_st "$FORMATS")'

test_expect_success 'staged, unstaged, untracked, ignored, renames' '
	cp -R repo r2 && cd r2 &&
	echo mod >>f1 && git add f1 && echo mod2 >>f1 && echo mod >>f2 && rm f3 &&
	git mv f4 g4 && git mv f5 d/f5 && echo q >>d/f5 && git add d/f5 && echo new >new &&
	git add new && echo u >untr && mkdir -p ud/sub && echo z >ud/sub/z &&
	printf "*.o\n/build/\n" >.gitignore && echo o >x.o && mkdir -p ign build &&
	echo 1 >ign/a.o && echo 2 >build/b && git rm -q --cached d/y &&
	rm lnk && echo notalink >lnk && echo "c a f" >"caf$(printf "\303\251") x" &&
	all_st "$FORMATS"'

test_expect_success 'from a subdirectory, pathspecs, config' '
	cd r2/d && all_st "|-s|--porcelain|--porcelain=v2|-s .|-s ..|-s ../f1 e|../g4|-s -- :!e" &&
	all_st "-s *.o|-s --ignored ..|-uall ." &&
	compare -c status.relativePaths=false status -s &&
	compare -c core.quotePath=false status -s .. &&
	compare -c status.short=true status && compare -c status.branch=true status -s &&
	compare -c status.showUntrackedFiles=no status &&
	compare -c status.showUntrackedFiles=all status -s &&
	compare -c status.renames=false status -s &&
	compare -c advice.statusHints=false status &&
	compare -c status.renameLimit=1 status -s'

test_expect_success 'rename scores and inexact renames' '
	git init -q ren && cd ren && seq 1 100 >a && seq 1 50 >b && seq 1000 1200 >c &&
	printf "x\r\ny\r\nz\r\n" >crlf && git add . && git commit -q -m1 &&
	git mv a a2 && echo extra >>a2 && git mv b dir-b && sed -i "s/^2/X/" dir-b &&
	git mv c c2 && seq 1000 1099 >c2 && git mv crlf crlf2 && git add -A &&
	all_st "|-s|--porcelain=v2|-M80%|-s -M90|--porcelain=v2 --find-renames=0.99"'

test_expect_success 'unmerged paths in all formats' '
	git init -q m && cd m && echo a >a && echo b >b && echo c >c && mkdir sub && echo s >sub/s &&
	git add . && git commit -q -m1 && git checkout -q -b side && echo side >>a && git rm -q b &&
	echo sb >sub/s && echo x >both && git add both && echo sc >>c && git commit -q -am side &&
	git checkout -q main && echo main >>a && echo mb >>b && git rm -q sub/s && echo y >both &&
	git add both && git rm -q c && git commit -q -am main && { git merge side >/dev/null 2>&1; true; } &&
	all_st "|-s|--porcelain=v2|-z|-s -b" && git add a && all_st "|-s" &&
	git add b both sub/s && git rm -q c && all_st "|-s|--porcelain=v2"'

test_expect_success 'detached HEAD, unborn branch, ahead/behind, gone upstream' '
	git init -q up && (cd up && echo 1 >a && git add a && git commit -q -m1 && git tag v1 &&
		echo 2 >>a && git commit -q -am2) &&
	git clone -q up cl && cd cl && all_st "|-sb|--porcelain=v2 -b" &&
	echo 3 >>a && git commit -q -am3 && all_st "|-sb|--porcelain=v2 -b" &&
	git reset -q --hard HEAD~2 && all_st "|-sb|--porcelain=v2 -b" &&
	echo x >x && git add x && git commit -q -m x &&
	all_st "|-sb|--porcelain=v2 -b|--no-ahead-behind|-sb --no-ahead-behind|--porcelain=v2 -b --no-ahead-behind" &&
	git checkout -q v1 && all_st "|-sb|--porcelain=v2 -b" &&
	echo zz >zz && git add zz && git commit -q -m zz && all_st "" &&
	git checkout -q origin/main && all_st "" && git checkout -q main~1 && all_st "" &&
	git checkout -q main && git config branch.main.merge refs/heads/nope &&
	all_st "|-sb|--porcelain=v2 -b" &&
	git checkout -q --orphan newb && all_st "|-sb|--porcelain=v2 -b" &&
	git rm -rq --cached . && all_st "|-sb|--porcelain=v2 -b" && rm -f a x zz && all_st "|-sb"'

test_expect_success 'intent-to-add, type changes, nested repositories, submodules' '
	git init -q n && cd n && echo 1 >f && mkdir a && echo 2 >a/g && git add . && git commit -q -m1 &&
	echo new >a/n && git add -N a/n && git init -q nested && git init -q nested2 &&
	(cd nested2 && echo n >n && git add n && git commit -q -m n) &&
	git -c protocol.file.allow=always submodule -q add ./nested2 sm >/dev/null 2>&1 &&
	git commit -q -m sm && all_st "|-s|--porcelain=v2|-uall -s" &&
	(cd sm && echo more >>n && git commit -q -am more) && all_st "|-s|--porcelain|--porcelain=v2" &&
	(cd sm && echo dirty >>n) && all_st "|-s|--porcelain|--porcelain=v2" &&
	(cd sm && git checkout -q n && echo u >u) && all_st "|-s|--porcelain=v2" &&
	git add sm && (cd sm && rm u && echo dirty >>n) && all_st "|-s|--porcelain|--porcelain=v2"'

test_expect_success 'colours (color.status=always, the default slots)' '
	(cd r2 && compare -c color.status=always status && compare -c color.status=always status -sb &&
	 compare -c color.ui=always status --ignored && compare -c color.status=always status --porcelain) &&
	(cd m && compare -c color.status=always status && compare -c color.status=always status -s) &&
	(cd cl && compare -c color.status=always status -sb && compare -c color.status=always status)'

test_expect_success 'cherry-pick, revert and bisect in progress' '
	git init -q cp && cd cp && echo 1 >f && git add f && git commit -q -m1 && git checkout -q -b side &&
	echo 2 >f && git commit -q -am2 && echo 3 >g && git add g && git commit -q -m3 &&
	git checkout -q main && echo x >f && git commit -q -am x &&
	{ git cherry-pick side~1 >/dev/null 2>&1; true; } && all_st "|-s|--porcelain=v2" &&
	git add f && all_st "" && git cherry-pick --abort && { git revert --no-edit side >/dev/null 2>&1; true; } &&
	all_st "" && { git revert --abort >/dev/null 2>&1; true; } && git reset -q --hard && git bisect start >/dev/null && git bisect bad >/dev/null &&
	git bisect good HEAD~1 >/dev/null && all_st "|-s" && git bisect reset >/dev/null 2>&1 &&
	git checkout -q --detach && git bisect start >/dev/null && all_st "" &&
	compare -c advice.statusHints=false status'

IGN_MODES="--ignored|--ignored=matching|--ignored=traditional|--ignored=no"
IGN_FORMATS="|-s|--porcelain|--porcelain=v2|-z"
# every --ignored mode with every -u mode and format
all_ign()
{
	for u in "" -uno -unormal -uall; do
		old=$IFS; IFS='|'
		for i in $IGN_MODES; do
			for f in $IGN_FORMATS; do
				IFS=$old
				compare status $f $i $u || { IFS=$old; return 1; }
				IFS='|'
			done
		done
		IFS=$old
	done
}

test_expect_success '--ignored: a directory that has just become untracked keeps its ignored files' '
	git init -q ui && cd ui && printf "*.o\nign/\n" >.gitignore && mkdir -p dir/sub keep &&
	echo a >dir/a && echo b >dir/sub/b && echo k >keep/k && git add . && git commit -q -m1 &&
	echo o >dir/x.o && echo o >dir/sub/y.o && echo o >keep/z.o && mkdir -p other ign &&
	echo u >other/u.o && echo i >ign/f && git rm -q --cached dir/a dir/sub/b && all_ign &&
	mkdir -p U/ign U/s U/m/deep U/e U/io/deep V/ign W/e && echo u >U/u && echo o >U/x.o &&
	echo i >U/ign/f && echo o >U/s/y.o && echo u >U/m/u && echo o >U/m/z.o &&
	echo o >U/m/deep/w.o && echo o >U/io/deep/q.o && echo o >U/io/r.o && echo i >V/ign/f &&
	echo o >V/a.o && echo u >W/u && echo o >W/e/ee.o && git init -q U/nested &&
	git init -q W/nested2 && echo o >W/nested2/n.o && all_ign &&
	git rm -q --cached keep/k && all_ign'

test_expect_success 'options refused or wrong' '
	cd repo && compare_fail status --porcelain=v9 && compare_fail status -ubogus &&
	compare_fail status --ignored=bogus && compare_fail status --bogus'

# fgit runs first here, on its own copy: its refresh must leave an index
# that git reads as clean, and git status must then agree with fgit's.
test_expect_success 'index refresh written back' '
	cp -R repo rf && cd rf && sleep 1 && touch f1 f2 d/y &&
	"$FGIT" status --porcelain >../f.out && test ! -s ../f.out &&
	git diff-files --quiet && git ls-files --debug f1 >../dbg &&
	"$FGIT" status >../f.out && git status >../g.out && cmp ../f.out ../g.out &&
	echo changed >f1 && "$FGIT" status -s >../f.out && git status -s >../g.out &&
	cmp ../f.out ../g.out && git diff-files --name-only >../df && test "$(cat ../df)" = f1 &&
	GIT_OPTIONAL_LOCKS=0 "$FGIT" status -s >/dev/null && fsck_ok'

test_expect_success 'racily clean entry with changed content' '
	git init -q racy && cd racy && echo one >f && git add f && echo two >f &&
	"$FGIT" status -s >../f.out && git status -s >../g.out && cmp ../f.out ../g.out &&
	"$FGIT" status -s >../f.out && cmp ../f.out ../g.out && git diff-files --name-only >../df &&
	test "$(cat ../df)" = f'

test_expect_success 'racy entry checked through the to-git conversion (core.autocrlf)' '
	git init -q crlf && cd crlf && git config core.autocrlf true && printf "a\nb\n" >f &&
	git add f && git commit -q -m1 && rm f && git checkout -q f 2>/dev/null &&
	"$FGIT" status -s >../f.out && git status -s >../g.out && cmp ../f.out ../g.out &&
	printf "a\r\nc\r\n" >f && "$FGIT" status -s >../f.out && git status -s >../g.out &&
	cmp ../f.out ../g.out'

test_expect_success 'the untracked cache: git reads what fgit leaves, and core.untrackedCache=false drops it' '
	cp -R repo uc && cd uc && echo u >untr && mkdir ud && echo x >ud/x &&
	git -c core.untrackedCache=true status >/dev/null && sleep 1 && touch f1 &&
	"$FGIT" status -s >../f.out && git status -s >../g.out && cmp ../f.out ../g.out &&
	git -c core.untrackedCache=true status -s >../g.out && cmp ../f.out ../g.out &&
	echo v >ud/y && "$FGIT" -c core.untrackedCache=true status -s >../f.out &&
	git -c core.untrackedCache=true status -s >../g.out && cmp ../f.out ../g.out &&
	"$FGIT" -c core.untrackedCache=false status -s >/dev/null &&
	! grep -q UNTR .git/index && git status -s >../g.out &&
	cmp ../f.out ../g.out && fsck_ok'

# fgit first, on the cache git left, then git (which refreshes it).
fgit_first()
{
	"$FGIT" "$@" >"$CMP/fgit.out" 2>&1; f_rc=$?
	git "$@" >"$CMP/git.out" 2>&1; g_rc=$?
	cmp -s "$CMP/git.out" "$CMP/fgit.out" && [ "$g_rc" = "$f_rc" ] || _cmp_fail "$@"
}

test_expect_success 'using the untracked cache git wrote, after changes of every kind' '
	git init -q ucw && cd ucw && mkdir -p a/b c && echo 1 >a/b/f && echo 2 >c/g && echo 3 >top &&
	printf "*.o\n" >.gitignore && git add . && git commit -q -m1 && git config core.untrackedCache true &&
	mkdir -p u/v && echo x >u/v/x && echo y >a/y && echo o >a/b/z.o && sleep 1 &&
	git status >/dev/null && sleep 1 && git status >/dev/null &&
	fgit_first status --porcelain && fgit_first status &&
	echo n >a/b/new && fgit_first status --porcelain &&
	rm a/y && fgit_first status --porcelain &&
	echo "*.txt" >c/.gitignore && echo t >c/t.txt && echo k >c/k && fgit_first status --porcelain &&
	echo "b/" >a/.gitignore && fgit_first status --porcelain &&
	echo "k" >>.git/info/exclude && fgit_first status --porcelain &&
	rm -rf u/v && fgit_first status --porcelain && mkdir -p w && echo w >w/w && fgit_first status -s &&
	git add -f a/b/new && fgit_first status --porcelain && fgit_first status -uall --porcelain &&
	fgit_first status --porcelain a && fgit_first status --ignored --porcelain && fsck_ok'

test_done
