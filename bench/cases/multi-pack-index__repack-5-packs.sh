# Issue 6: `multi-pack-index repack --batch-size=0` over the 5 packs of the
# multi-pack-index__write-5-packs corpus (every pack goes into one new pack),
# in a copy on tmpfs refreshed outside the timing, with the midx written by
# git before each run.  git runs pack-objects as a child fed through a pipe;
# fgit repacks in process.
title='multi-pack-index repack --batch-size=0, history split into 5 packs'
target='≤ 0.6'
corpus=history
dir='$BENCH_SHM'
prepare='rm -rf "$BENCH_SHM/midx5r.git" && cp -r "$BENCH_DIR/midx5/repo.git" "$BENCH_SHM/midx5r.git" && @GIT@ -C "$BENCH_SHM/midx5r.git" multi-pack-index write'
cmd='@GIT@ -C "$BENCH_SHM/midx5r.git" multi-pack-index repack --batch-size=0'
check=none
runs=3
warmup=0
midx5_write_case="$(dirname "$1")/multi-pack-index__write-5-packs.sh"
setup()
{
	# The 5-pack repository is built by the write case's setup.
	[ -f "$BENCH_DIR/midx5/.done" ] && return 0
	. "$midx5_write_case" && setup
}
