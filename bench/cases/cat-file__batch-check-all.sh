# Issue 2: every object's id, type and size, in id order.  git 2.39: 1.4 s on
# a real 849,000-object history.
title='cat-file --batch-all-objects --batch-check, history'
target='≤ 0.5'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ cat-file --batch-all-objects --batch-check'
runs=10
warmup=1
