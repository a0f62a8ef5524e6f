# Issue 5: literal, --cached (target <= 0.4).
title='grep literal --cached'
target='≤ 0.4'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep --cached INITRAMFS_ROOT_UID'
runs=5
warmup=1
