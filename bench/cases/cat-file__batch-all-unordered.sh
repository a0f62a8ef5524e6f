# Issue 2: every object's content in pack order.  git 2.39: 15 s on a real
# history.  The order is undefined, so only the byte and line counts are
# compared here (the compat tests compare the records).
title='cat-file --batch-all-objects --batch --unordered, history'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ cat-file --batch-all-objects --batch --unordered'
check=count
runs=5
warmup=0
