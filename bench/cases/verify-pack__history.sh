# Issue 6 (stub until fgit has verify-pack): the history's whole pack, with
# the per-object table and the chain-length histogram.
title='verify-pack -v, history pack'
target='≤ 0.5'
corpus=history
dir='$CORPUS/history.git'
cmd='@GIT@ verify-pack -v objects/pack/pack-*.idx'
runs=3
warmup=0
