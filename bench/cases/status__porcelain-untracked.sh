# Issue 4: status --porcelain with 10,000 untracked files (1,000 of them
# ignored) and 200 ignore patterns over the 100,000-file tree.  git: 0.27 s.
title='status --porcelain, 10,000 untracked, 200 ignore patterns'
target='≤ 0.5'
corpus=untracked
dir='$CORPUS/tree'
cmd='@GIT@ status --porcelain'
runs=10
warmup=2
