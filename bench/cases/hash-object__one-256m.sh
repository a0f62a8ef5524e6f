# Issue 3: one file below core.bigFileThreshold (512 MiB), so git hashes
# without deflating.  git 2.39 here: ~0.57 s.
title='hash-object, one 256 MiB file'
target='≤ 0.35'
corpus=file256m
dir='$CORPUS/tree'
cmd='@GIT@ hash-object d00/f000000'
runs=10
warmup=2
