# Issue 4: status with the untracked cache on (an index whose UNTR extension
# git filled), 100,000 tracked and 10,000 untracked files.
title='status, untracked cache on, 10,000 untracked'
target='≤ 0.6'
corpus=untracked
dir='$CORPUS/tree'
cmd='env GIT_INDEX_FILE=.git/index-uc @GIT@ -c core.untrackedCache=true status --porcelain'
runs=10
warmup=2
