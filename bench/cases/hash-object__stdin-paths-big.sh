# Issue 3: SHA-1 throughput with I/O.  git 2.39 here: ~1.12 s.
title='hash-object --stdin-paths, 2,000 files of 256 KiB'
target='≤ 0.35'
corpus=big
dir='$CORPUS/tree'
cmd='@GIT@ hash-object --stdin-paths < "$CORPUS/paths"'
runs=10
warmup=2
