# Issue 5: --threads=1 against --threads=1, literal, worktree.
title='grep literal, worktree, --threads=1 both'
target=''
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep --threads=1 INITRAMFS_ROOT_UID'
runs=5
warmup=1
