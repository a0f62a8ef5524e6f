# Issue 5: --threads=1 against --threads=1, literal, --cached.
title='grep literal --cached, --threads=1 both'
target=''
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep --threads=1 --cached INITRAMFS_ROOT_UID'
runs=3
warmup=1
