# Issue 4: add -A of the 100,000-file tree into an empty index when every
# object is already in the repository's pack (hashing only, no deflate).
# Target ratio <= 0.6.
title='add -A, 100,000 files, empty index, objects present'
target='≤ 0.6'
corpus=small
dir='$CORPUS/tree'
prepare='rm -f "$BENCH_SHM/add-present.index"'
cmd='GIT_INDEX_FILE="$BENCH_SHM/add-present.index" @GIT@ add -A'
runs=5
warmup=1
