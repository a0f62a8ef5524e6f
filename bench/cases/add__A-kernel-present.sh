# Issue 4: add -A of the kernel tree into an empty index, every object
# already packed (hashing only).  Target ratio <= 0.6.
title='add -A, kernel, empty index, objects present'
target='≤ 0.6'
corpus=kernel
dir='$CORPUS/linux'
prepare='rm -f "$BENCH_SHM/addk-present.index"'
cmd='GIT_INDEX_FILE="$BENCH_SHM/addk-present.index" @GIT@ add -A'
runs=3
warmup=1
