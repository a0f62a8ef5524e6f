# Issue 5: 'a.*b' counting, worktree (target <= 0.7).
title="grep -c 'a.*b', worktree"
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -c "a.*b"'
runs=5
warmup=1
