#!/bin/sh
# update-index against git: the written index is read back by git
# (ls-files -s -t -v, diff-files, status must agree with git's own result).
. "$(dirname "$0")/lib.sh"

setup_repo()
{
	git init -q . && mkdir -p d && echo a >a && echo b >d/b && echo c >c && ln -s a link &&
	git add a d/b c link && git commit -q -m1 && echo new >n && echo changed >a && rm c
}

# run the update, then show how git sees the index
check()
{
	compare_write setup_repo "$@" || return 1
	for d in w.git w; do
		(cd "$TRASH/$d" && git ls-files -s -v && git diff-files --name-status &&
		 git status --porcelain) >"$CMP/$d.state" 2>&1
	done
	cmp "$CMP/w.git.state" "$CMP/w.state" || { diff -u "$CMP/w.git.state" "$CMP/w.state"; return 1; }
	fsck_ok "$TRASH/w"
}

test_expect_success 'update-index paths, --add, --remove, --force-remove' '
	check update-index a && check update-index n && check update-index --add n &&
	check update-index c && check update-index --remove c && check update-index --force-remove d/b &&
	check update-index --add n --remove c a && check update-index d && check update-index nope'
test_expect_success 'update-index --cacheinfo both forms' '
	check update-index --cacheinfo 100644,$(echo a | git hash-object --stdin),x &&
	check update-index --add --cacheinfo 100644,$(echo a | git hash-object --stdin),x &&
	check update-index --add --cacheinfo 100755 $(echo a | git hash-object --stdin) d/y &&
	check update-index --add --cacheinfo 160000,$(echo a | git hash-object --stdin),sub &&
	check update-index --add --cacheinfo 100644,$(echo a | git hash-object --stdin),.git/x'
test_expect_success 'update-index --chmod, flags' '
	check update-index --chmod=+x d/b && check update-index --chmod=+x link &&
	check update-index --assume-unchanged a d/b && check update-index --skip-worktree c &&
	check update-index --no-assume-unchanged a && check update-index --assume-unchanged nope &&
	check update-index --chmod=+x --add n && check update-index --verbose --add n --force-remove c'
test_expect_success 'update-index --refresh, --really-refresh, -q' '
	check update-index --refresh && check update-index -q --refresh &&
	check update-index --ignore-missing --refresh && check update-index --really-refresh'
setup_touched()
{
	setup_repo && git checkout -q -- a c && sleep 1 && touch a d/b && git update-index --assume-unchanged d/b
}
test_expect_success 'update-index --refresh updates stat data only' '
	compare_write setup_touched update-index --refresh && (cd w && git diff-files --name-only >../o1) &&
	(cd w.git && git diff-files --name-only >../o2) && cmp o1 o2 &&
	compare_write setup_touched update-index --really-refresh &&
	compare_write setup_touched update-index --index-version 4 && (cd w && git ls-files -s >/dev/null) &&
	compare_write setup_touched update-index --index-version 7'

# --index-info and --stdin read their input from $CMP_STDIN in both runs.
B=$(echo b | git hash-object --stdin)	# d/b's blob: in every repository setup_repo makes
Z=0000000000000000000000000000000000000000
printf '100644 %s\tix\n100644 blob %s\tiy\n100644 %s 1\tic\n100644 %s 2\tic\n100755 %s\t"q\\tname"\n0 %s\tc\n100644 %s 3\tn3\n100644 %s\t/abs\n' \
	$B $B $B $B $B $Z $B $B >info.ok
printf '100644 %s\tfine\nbogus line\n' $B >info.bad
printf '100644 %s 0\tq\n100644 %s\tx\n' $B $B >info.more
printf '100644 %s\tz1\0000 %s\td/b\0' $B $Z >info.z
printf 'a\nn\n"c"\nd/b\n' >paths.ok
printf 'a\0n\0' >paths.z
printf '"bad\n' >paths.bad
test_expect_success 'update-index --index-info: all three formats, mode 0, bad lines' '
	for f in info.ok info.bad info.more; do
		CMP_STDIN=$TRASH/$f check update-index --index-info || return 1
	done &&
	CMP_STDIN=$TRASH/info.ok check update-index --verbose --index-info &&
	CMP_STDIN=$TRASH/info.z check update-index -z --index-info &&
	CMP_STDIN=$TRASH/info.ok check update-index --index-info --verbose'
test_expect_success 'update-index --stdin, -z, quoting, options before it' '
	CMP_STDIN=$TRASH/paths.ok check update-index --stdin &&
	CMP_STDIN=$TRASH/paths.ok check update-index --add --remove --stdin &&
	CMP_STDIN=$TRASH/paths.z check update-index --add -z --stdin &&
	CMP_STDIN=$TRASH/paths.bad check update-index --stdin &&
	CMP_STDIN=$TRASH/paths.ok check update-index --stdin --add'

# index.version for a new index, core.splitIndex, EOIE/IEOT settings: git's
# and fgit's index files have the same version, the same extensions (by
# signature, in order) and a shared index where git writes one.
index_shape()
{
	(cd "$1" && python3 - <<'PY'
import os, struct
d = open(".git/index", "rb").read()
ver, n = struct.unpack(">II", d[4:12])
# walk the extensions backwards is awkward; find known signatures instead
exts = [s for s in (b"TREE", b"REUC", b"UNTR", b"link", b"EOIE", b"IEOT") if s in d[12:]]
print(ver, n, [e.decode() for e in exts], sorted(f.startswith("sharedindex.") for f in os.listdir(".git")).count(True))
PY
	)
}
setup_new()
{
	git init -q . && echo a >a && echo b >b && mkdir d && echo c >d/c
}
test_expect_success 'index.version, feature.manyFiles, GIT_INDEX_VERSION for a new index' '
	for c in "-c index.version=4" "-c index.version=3" \
		 "-c index.version=9" "-c index.recordEndOfIndexEntries=true" \
		 "-c index.threads=2 -c index.recordOffsetTable=true" "-c core.splitIndex=true"; do
		compare_write setup_new $c update-index --add a b d/c &&
		index_shape "$TRASH/w.git" >"$CMP/shape.git" && index_shape "$TRASH/w" >"$CMP/shape.fgit" &&
		{ cmp "$CMP/shape.git" "$CMP/shape.fgit" || { echo "$c"; diff "$CMP/shape.git" "$CMP/shape.fgit"; return 1; }; } || return 1
	done &&
	GIT_INDEX_VERSION=4 compare_write setup_new update-index --add a &&
	index_shape "$TRASH/w" | grep -q "^4 " &&
	compare_write setup_new -c feature.manyFiles=true update-index --add a &&
	index_shape "$TRASH/w" | grep -q "^4 "'
# (feature.manyFiles also turns the untracked cache on: git then adds an
# empty UNTR extension, which comes with the untracked-cache work.)

setup_paths()
{
	setup_new && mkdir -p sub && echo s >sub/s
}
test_expect_success 'paths as git prefix_path and verify_path take them: ./, .., //, absolute, invalid' '
	for p in ./a d/../a d//c "$TRASH/w/a" /tmp/outside ../a . d/ a/ d d/c/ .gitx .GIT/x .git/config; do
		for o in --add "--add --chmod=+x" "--force-remove"; do
			compare_write setup_paths update-index $o "$p" &&
			cmp "$CMP/git.err" "$CMP/fgit.err" && (cd "$TRASH/w.git" && git ls-files -s) >"$CMP/g.ls" &&
			(cd "$TRASH/w" && git ls-files -s) >"$CMP/f.ls" && cmp "$CMP/g.ls" "$CMP/f.ls" ||
			{ echo "update-index $o $p"; diff "$CMP/git.err" "$CMP/fgit.err"; return 1; }
		done
	done &&
	printf "./a\nd/../d/c\n.git/x\n" >"$TRASH/in" &&
	CMP_STDIN="$TRASH/in" compare_write setup_paths update-index --add --stdin &&
	cmp "$CMP/git.err" "$CMP/fgit.err"'
test_expect_success 'paths from a subdirectory' '
	for p in ../a s ./s ../d/c ../../x; do
		compare_write setup_paths -C sub update-index --add "$p" && cmp "$CMP/git.err" "$CMP/fgit.err" || return 1
	done'

test_done
