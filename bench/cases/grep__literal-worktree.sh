# Issue 5: literal present in few files, worktree (target <= 0.7).
title='grep literal, few files, worktree'
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep INITRAMFS_ROOT_UID'
runs=10
warmup=2
