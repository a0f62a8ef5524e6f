# Issue 6: what a clone of the history
# serves.  Pack bytes may differ from git's (delta search is threaded), so
# the output is not compared here; the compat tests compare object sets.
title='pack-objects --all --stdout, history'
target='≤ 0.7'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ pack-objects --all --stdout -q < /dev/null'
check=none
runs=5
warmup=1
