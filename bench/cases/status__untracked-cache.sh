# Issue 4: status with the untracked cache on, 100,000 tracked and 10,000
# untracked files.  setup() lets git fill the cache once, in an index of
# its own on tmpfs (two runs a second apart, so no directory is racily
# newer than the index); prepare restores that index before every run, so
# git and fgit each start from the same valid cache (git's own copy of the
# corpus's index-uc would be rewritten by whichever tool ran before).
# Target <= 0.6.
title='status, untracked cache on, 10,000 untracked'
target='≤ 0.6'
corpus=untracked
dir='$CORPUS/tree'
setup()
{
	P=$BENCH_SHM/untr-cache.pristine
	cp -p .git/index-uc "$P" && sleep 1 &&
	GIT_INDEX_FILE=$P git -c core.untrackedCache=true status --porcelain >/dev/null && sleep 1 &&
	GIT_INDEX_FILE=$P git -c core.untrackedCache=true status --porcelain >/dev/null
}
prepare='cp -p "$BENCH_SHM/untr-cache.pristine" "$BENCH_SHM/untr-cache.index"'
cmd='env GIT_INDEX_FILE="$BENCH_SHM/untr-cache.index" @GIT@ -c core.untrackedCache=true status --porcelain'
runs=10
warmup=2
