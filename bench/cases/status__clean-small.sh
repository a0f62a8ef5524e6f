# Issue 4 (stub until fgit has status): clean tree of 100,000 files.  git: 0.25 s.
title='status, clean, 100,000 files'
target='≤ 0.6'
corpus=small
dir='$CORPUS/tree'
cmd='@GIT@ status'
runs=10
warmup=2
