# Issue 6: repack -adf of the history (every delta searched again), in a
# copy on tmpfs (made outside the timing).  git also writes a .bitmap here (bare repository,
# repack.writeBitmaps default), and so does fgit.
title='repack -adf, history'
target='≤ 0.8'
corpus=history
dir='$BENCH_SHM'
prepare='rm -rf "$BENCH_SHM/rp.git" && cp -r "$CORPUS/history.git" "$BENCH_SHM/rp.git"'
cmd='@GIT@ -C "$BENCH_SHM/rp.git" repack -adf -q'
check=none
runs=3
warmup=0
