# Issue 2: hashing many small files, no writes.  git 2.39 here: ~0.77 s.
title='hash-object --stdin-paths, 100,000 files of 1 KiB'
target='≤ 0.6'
corpus=small
dir='$CORPUS/tree'
cmd='@GIT@ hash-object --stdin-paths < "$CORPUS/paths"'
runs=10
warmup=2
