# Issue 5: -w literal, worktree (target <= 0.7).
title='grep -w literal, worktree'
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -w INITRAMFS_ROOT_UID'
runs=5
warmup=1
