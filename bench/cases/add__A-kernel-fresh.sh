# Issue 4: the kernel tree (78,000 files) into an empty index and a fresh
# object database on tmpfs each run.  Target ratio <= 0.4.
title='add -A, kernel, empty index, fresh objects'
target='≤ 0.4'
corpus=kernel
dir='$CORPUS/linux'
prepare='rm -rf "$BENCH_SHM/addk.git" && @GIT@ init -q --bare "$BENCH_SHM/addk.git"'
cmd='@GIT@ --git-dir="$BENCH_SHM/addk.git" --work-tree=. add -A'
runs=3
warmup=0
