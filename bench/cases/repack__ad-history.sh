# Issue 6: repack -ad of the history (deltas and entries reused from the
# existing pack), in a copy on tmpfs (made outside the timing).  git also writes a
# .bitmap here (bare repository), and so does fgit.
title='repack -ad (reuse), history'
target='≤ 0.6'
corpus=history
dir='$BENCH_SHM'
prepare='rm -rf "$BENCH_SHM/rp.git" && cp -r "$CORPUS/history.git" "$BENCH_SHM/rp.git"'
cmd='@GIT@ -C "$BENCH_SHM/rp.git" repack -ad -q'
check=none
runs=3
warmup=0
