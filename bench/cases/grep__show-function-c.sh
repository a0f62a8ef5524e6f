# Issue 5: -p on C files (target <= 0.8).
title='grep -p on C files'
target='≤ 0.8'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -p kmemdup_nul -- "*.c"'
runs=5
warmup=1
