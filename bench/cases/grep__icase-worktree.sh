# Issue 5: -i literal, worktree (target <= 0.7).
title='grep -i literal, worktree'
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -i initramfs_root_uid'
runs=5
warmup=1
