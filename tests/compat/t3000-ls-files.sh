#!/bin/sh
# ls-files against git: index listing, -d/-m with stat and racy checks,
# untracked and ignored files (-o, -i, --directory), pathspecs, quoting.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
echo a >a && mkdir -p d/e && echo b >d/b && echo c >d/e/c && printf x >"sp ace" &&
printf y >"$(printf 'tab\tname')" && printf z >"$(printf 'caf\303\251')" && echo q >q.o &&
git add . && git commit -q -m1 && git checkout -q -b side && echo side >a &&
git commit -q -am s && git checkout -q main && echo main >a && git commit -q -am m &&
{ git merge -q side >/dev/null 2>&1; true; } &&
rm d/b && echo changed >d/e/c && chmod +x "sp ace" &&
git update-index --assume-unchanged q.o && printf '*.o\n' >.gitignore && echo new >new.o &&
cd "$TRASH" || exit 1

LS_ARGS="|-s|-u|-d|-m|-m -d|-m -d --deduplicate|-t -m -d -c|-v|-f|-z -s|-s --abbrev|-s --abbrev=10
|-c -i --exclude-standard|-c -i -x *.o|--error-unmatch a nope|--error-unmatch d|d/|-s :!a|*.o
|-X .gitignore -o|--exclude-per-directory=.gitignore -o|-i|-i -o|--bogus|-o -z|-t -o"

all_ls()
{
	old=$IFS; IFS='|'
	for a in $1; do
		IFS=$old
		compare ls-files $a || { IFS=$old; return 1; }
		IFS='|'
	done
	IFS=$old
}

test_expect_success 'ls-files: index, deleted, modified, tags, stages' '(cd repo && all_ls "$LS_ARGS")'
test_expect_success 'ls-files from a subdirectory' '
	(cd repo/d && all_ls "|..|-m ../|--full-name|-o ..|-s ../a")'
test_expect_success 'ls-files with core.quotePath=false' '
	(cd repo && compare -c core.quotepath=false ls-files -s)'
test_expect_success 'ls-files --abbrev follows core.abbrev' '
	(cd repo && compare -c core.abbrev=12 ls-files -s --abbrev &&
	 compare -c core.abbrev=12 ls-files -s --abbrev=5 && compare ls-files -s --no-abbrev)'

test_expect_success 'ls-files -m: racy entry with the same size is checked by content' '
	git init -q racy && cd racy && echo one >f && echo two >g && git add f g &&
	echo ONE >f && compare ls-files -m && compare ls-files -m -t &&
	git update-index --add --cacheinfo 100644,$(git hash-object g),h && echo two >h &&
	compare ls-files -m && echo tww >h && compare ls-files -m'

git init -q w && cd w &&
mkdir -p tr un/deep empty ign onlyign nested mixed && echo >tr/a && echo >t && git add . &&
echo >un/x && echo >un/deep/y && echo >ign/f && echo >onlyign/o.o && echo >mixed/m.o &&
echo >mixed/m && echo >tr/u && echo >tr/b.o && git -C nested init -q && echo >nested/n &&
printf 'ign/\n*.o\n' >.gitignore && echo >x.o && mkdir emptyun && mkdir -p deepempty/a/b &&
mkdir -p oi2/sub oi3/sub oi4 && echo >oi2/sub/a.o && echo >oi3/a.o && echo >oi3/sub/b.o &&
echo >oi4/a.o && echo >oi4/b.o && mkdir oi4/emp && mkdir -p mixed2/s && echo >mixed2/s/q.o &&
echo >mixed2/k && cd "$TRASH" || exit 1

OTHERS="-o|-o --directory|-o --directory --no-empty-directory|-o -i --exclude-standard
|-o -i --exclude-standard --directory|-o -i --exclude-standard --directory --no-empty-directory
|-o --exclude-standard --directory|-o --exclude-standard --directory --no-empty-directory
|-o --exclude-standard|-o --directory un/x un/deep|-o --directory un/*|-t -o -c|-o -x *.o
|-o x.o nosuch --error-unmatch|-o -x ign -x !ign|-o --exclude-standard ign|-o -i --exclude-standard ign"

test_expect_success 'ls-files -o, -i, --directory' '(cd w && all_ls "$OTHERS")'
test_expect_success 'ls-files -o from a subdirectory' '
	(cd w/un && all_ls "-o|-o --directory . ..|-o ..|-o --full-name|-o --directory ../tr")'
test_expect_success 'ls-files in a bare repository and outside the work tree' '
	git clone -q --bare w bare.git && (cd bare.git && compare ls-files && compare_fail ls-files -o) &&
	(cd w/.git && compare_fail ls-files -m)'

test_done
