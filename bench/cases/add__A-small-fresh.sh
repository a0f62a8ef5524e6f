# Issue 4: the whole 100,000-file tree into an empty index and a fresh
# object database on tmpfs each run (every blob deflated and written).
# git: 12.5 s on a quiet machine.  Target ratio <= 0.4.
title='add -A, 100,000 files, empty index, fresh objects'
target='≤ 0.4'
corpus=small
dir='$CORPUS/tree'
prepare='rm -rf "$BENCH_SHM/add.git" && @GIT@ init -q --bare "$BENCH_SHM/add.git"'
cmd='@GIT@ --git-dir="$BENCH_SHM/add.git" --work-tree=. add -A'
runs=3
warmup=0
