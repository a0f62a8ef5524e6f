# Issue 2: writing 100,000 loose objects into a fresh repository on tmpfs;
# the fresh `git init` between runs is outside the timing.  git 2.39: ~19 s.
title='hash-object -w --stdin-paths, 100,000 files of 1 KiB, fresh repository'
target='≤ 0.5'
corpus=small
dir='$CORPUS/tree'
prepare='rm -rf "$BENCH_SHM/hash-w.git" && @GIT@ init -q --bare "$BENCH_SHM/hash-w.git"'
cmd='@GIT@ --git-dir="$BENCH_SHM/hash-w.git" hash-object -w --stdin-paths < "$CORPUS/paths"'
runs=5
warmup=0
