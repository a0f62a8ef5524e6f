# Issue 5: -P, worktree (target <= 0.7).
title='grep -P, worktree'
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -P "INITRAMFS_ROOT_U\\w+"'
runs=5
warmup=1
