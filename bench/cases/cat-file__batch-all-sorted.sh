# Issue 2: every object's content, in id order (random access into the pack,
# so the delta-base cache is what matters).  git 2.39: 58 s on a real history.
title='cat-file --batch-all-objects --batch (sorted), history'
target='≤ 0.3'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ cat-file --batch-all-objects --batch'
runs=3
warmup=0
