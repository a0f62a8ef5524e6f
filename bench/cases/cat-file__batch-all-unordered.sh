# Issue 2: every object's content in pack order.  git 2.39: 15 s on a real
# history.  The order is undefined, so the records are compared as a set
# (each record hashed, the digests sorted).
title='cat-file --batch-all-objects --batch --unordered, history'
target='≤ 0.5'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ cat-file --batch-all-objects --batch --unordered'
check=records
runs=3
warmup=0
