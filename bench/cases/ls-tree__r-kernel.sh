# Issue 2: every path of the kernel tree (4,800 trees read, 78,000 lines).
title='ls-tree -r HEAD, kernel tree'
target=''
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ ls-tree -r HEAD'
runs=10
warmup=2
