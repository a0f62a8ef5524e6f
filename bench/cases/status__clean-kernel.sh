# Issue 4 (stub until fgit has status): clean kernel tree.
title='status, clean, kernel tree'
target='≤ 0.6'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ status'
runs=10
warmup=2
