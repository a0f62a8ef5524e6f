# Issue 4: status -uno (no untracked walk: one lstat per entry), 100,000 files.
# git: 0.10 s.
title='status -uno, 100,000 files'
target='≤ 0.6'
corpus=small
dir='$CORPUS/tree'
cmd='@GIT@ status -uno'
runs=10
warmup=2
