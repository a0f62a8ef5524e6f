# Issue 5: 'a.*b' counting, tree-ish (target <= 0.5).
title="grep -c 'a.*b' HEAD~1"
target='≤ 0.5'
corpus=kernel-grep
dir='$CORPUS/linux.git'
cmd='@GIT@ grep -c "a.*b" HEAD~1'
runs=3
warmup=1
