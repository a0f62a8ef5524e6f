# Issue 6: repack -adb of the history (entries reused, reachability bitmaps
# written), in a copy on tmpfs (made outside the timing).
title='repack -adb (bitmaps), history'
corpus=history
dir='$BENCH_SHM'
prepare='rm -rf "$BENCH_SHM/rp.git" && cp -r "$CORPUS/history.git" "$BENCH_SHM/rp.git"'
cmd='@GIT@ -C "$BENCH_SHM/rp.git" repack -adb -q'
check=none
runs=3
warmup=0
