# Issue 5: 'a.*b' counting, --cached (target <= 0.5).
title="grep -c 'a.*b' --cached"
target='≤ 0.5'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -c --cached "a.*b"'
runs=3
warmup=1
