#!/bin/sh
# ls-tree against git: options, path arguments, the cwd prefix, quoting.
. "$(dirname "$0")/lib.sh"

git init -q repo && cd repo &&
echo a >a && mkdir -p d/e sub/deep/er && echo b >d/b && echo c >d/e/c &&
echo x >sub/deep/er/x && printf 'tab' >"t	ab" && echo q >'q"uote' &&
printf '\303\251' >"caf$(printf '\303\251')" && echo s >"sp ace" &&
echo exe >exe && chmod +x exe && ln -s a link && echo dd >d.txt && echo m >d-minus &&
git add . && git commit -q -m one &&
git init -q ../sm && git -C ../sm commit -q --allow-empty -m sm &&
git update-index --add --cacheinfo 160000,$(git -C ../sm rev-parse HEAD),module &&
git commit -q -m "with a gitlink" && git tag -a -m t v1 && cd "$TRASH" || exit 1

OPTS="|-r|-t|-d|-r -t|-r -d|-l|-r -l|--name-only|--name-status|--object-only|-z|-r -z
|--abbrev|--abbrev=5|--full-name|--full-tree|-r --full-tree|--name-only -r --full-name
|--format=%(objectname)%x09%(path)|--format=[%(objectmode)|%(objecttype)|%(objectsize)|%(objectsize:padded)]"
PATHS="|a|d|d/|d/e|d/e/|d/e/c|d/b d/e|nosuch|.|./d|sub/deep|sub/deep/|sub/deep/er/x
|d/e/c d|d.txt|d-minus|module|link|../|a/"

run_all()
{
	old=$IFS; IFS='|'
	for o in $OPTS; do
		for p in $PATHS; do
			IFS=$old
			compare ls-tree $o HEAD $p || { IFS=$old; return 1; }
			IFS='|'
		done
	done
	IFS=$old
}

test_expect_success 'ls-tree at the top' '(cd repo && run_all)'
test_expect_success 'ls-tree in a subdirectory (relative paths)' '(cd repo/d && run_all)'
test_expect_success 'ls-tree deeper' '(cd repo/sub/deep && run_all)'
test_expect_success 'tree-ish forms' '
	(cd repo && compare ls-tree v1 && compare ls-tree HEAD^{tree} && compare ls-tree HEAD:d &&
	 compare ls-tree HEAD~1 && compare ls-tree $(git rev-parse HEAD^{tree}) &&
	 compare ls-tree -r $(git rev-parse --short HEAD))'
test_expect_success 'errors' '
	(cd repo && compare_fail ls-tree nosuch && compare_fail ls-tree HEAD:a &&
	 compare_fail ls-tree && compare_fail ls-tree --name-only --object-only HEAD &&
	 compare_fail ls-tree --name-only --name-status HEAD &&
	 compare_fail ls-tree --format=%\(path\) -l HEAD && compare_fail ls-tree --bogus HEAD) &&
	(cd repo/d && compare_fail ls-tree HEAD ../../x)'
test_expect_success 'core.quotePath=false' '
	(cd repo && compare -c core.quotepath=false ls-tree HEAD)'
test_expect_success 'bare repository' '
	git clone -q --bare repo bare.git && (cd bare.git && compare ls-tree -r HEAD &&
	 compare ls-tree HEAD d/)'

test_done
