# Issue 5: literal in a tree-ish one commit back (target <= 0.4).
title='grep literal HEAD~1'
target='≤ 0.4'
corpus=kernel-grep
dir='$CORPUS/linux.git'
cmd='@GIT@ grep INITRAMFS_ROOT_UID HEAD~1'
runs=5
warmup=1
