# Issue 6: index the history's whole pack
# into a scratch .idx on tmpfs, default threads.  git: 24.5 s (real 849k).
title='index-pack, history pack, default threads'
target='≤ 0.5'
corpus=history
dir='$BENCH_SHM'
prepare='rm -rf "$BENCH_SHM/ip.git" "$BENCH_SHM/ip.idx" && @GIT@ init -q --bare "$BENCH_SHM/ip.git"'
cmd='@GIT@ --git-dir="$BENCH_SHM/ip.git" index-pack -o "$BENCH_SHM/ip.idx" "$CORPUS"/history.git/objects/pack/pack-*.pack'
runs=3
warmup=0
