#!/bin/sh
# Time loading a generated 100,000-entry index (fgit, 1 vs 2 threads; git's
# do_read_index from trace2 for scale).  Usage: tests/tools/index-bench.sh [runs]
# Builds its corpus in /dev/shm/fgit-idx-bench (reused when present).
set -e
runs=${1:-51}
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/build/tools/index-tool
[ -x "$tool" ] || make -C "$top" -s build/tools/index-tool
d=/dev/shm/fgit-idx-bench
if [ ! -f $d/v4-ieot ]; then
	rm -rf $d && mkdir -p $d && git init -q $d/r
	git -C $d/r hash-object -w --stdin </dev/null >/dev/null
	awk 'BEGIN { for (i = 0; i < 100000; i++)
		printf "100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tsrc/module%03d/sub%02d/file%05d.c\n",
			int(i / 1000), int(i / 50) % 20, i }' |
		git -C $d/r update-index --index-info
	cp $d/r/.git/index $d/v2
	git -C $d/r -c index.threads=2 -c index.recordOffsetTable=true update-index --force-write-index
	cp $d/r/.git/index $d/v2-ieot
	cp $d/v2 $d/r/.git/index
	git -C $d/r update-index --index-version 4
	cp $d/r/.git/index $d/v4
	git -C $d/r -c index.threads=2 -c index.recordOffsetTable=true update-index --force-write-index
	cp $d/r/.git/index $d/v4-ieot
fi
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in v2 v2-ieot v4 v4-ieot; do
	for round in 1 2; do
		for t in 1 2; do
			printf '%-8s round %d fgit ' $f $round
			"$tool" load $d/$f $t "$runs" | tail -1
		done
	done
	cp $d/$f $d/r/.git/index
	printf '%-8s git do_read_index (s, 9 runs):' $f
	for i in 1 2 3 4 5 6 7 8 9; do
		GIT_TRACE2_PERF=1 git -C $d/r ls-files 2>&1 >/dev/null |
			awk -F'|' '/region_leave.*do_read_index/ { printf " %s", $7; exit }'
	done
	echo
done
