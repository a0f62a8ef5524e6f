#!/bin/sh
# The whole suite: unit tests, the ThreadSanitizer builds of the concurrency
# tests (*_mt), then compat tests (fgit against git).  Ends with the line
# "N passed, N failed"; exits non-zero when a test failed.
#
# Each unit-test program and each compat script is one job, run in its own
# scratch directory with its output in its own log.  FGIT_TEST_JOBS jobs
# (default: cores + 1) run at once: most of the suite is spent starting
# processes or waiting (t7065 sleeps ~60 s on FIFOs), so even two cores do
# more than one job's worth.  The logs are printed in the fixed order of the
# serial runner (unit, tsan, compat; sorted names) as soon as each job and
# all before it are done, so the output does not depend on the scheduling.
# The slowest jobs (SLOW: 20-340 s of CPU each on the 2-core VM, by
# FGIT_TEST_TIMES below; t7065 mostly sleeps) start first, so that none of
# them is left running alone at the end.  With
# FGIT_TEST_TIMES=FILE, each job's wall-clock and CPU (user, sys) seconds
# go to FILE, slowest first.
case ${FGIT_TEST_TIMES:-/} in /*) ;; *) FGIT_TEST_TIMES=$(pwd)/$FGIT_TEST_TIMES ;; esac
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
SLOW="tests/compat/t6500-gc.sh tests/compat/t5328-unpack-objects.sh tests/compat/t7063-untracked-cache.sh
tests/compat/t2200-add.sh tests/compat/t3601-rm-symlink.sh
tests/compat/t0012-rev-parse-revisions.sh tests/compat/t7065-status-slow-untracked.sh
tests/compat/t5300-index-pack.sh tests/compat/t3020-ls-tree.sh
build/tests/hash/sha1dc_ubc tests/compat/t2107-update-index.sh tests/compat/t1410-reflog.sh
tests/compat/t7501-commit.sh tests/compat/t5319-multi-pack-index.sh
tests/compat/t5310-bitmaps.sh tests/compat/t3600-rm.sh tests/compat/t1050-corrupt.sh
tests/compat/t1007-hash-object.sh build/tests/revwalk/graph build/tests/index/read"

jobs=${FGIT_TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
logs=$(mktemp -d) || exit 1
xpid=
trap 'rm -rf "$logs"' EXIT
trap '[ -n "$xpid" ] && kill $xpid 2>/dev/null; exit 130' INT TERM

# The job list, in output order: "seq kind path".
{
	find build/tests -type f -perm -u+x | sort | sed 's/^/unit /'
	find build/tsan/tests -type f -perm -u+x -name '*_mt' | sort | sed 's/^/tsan /'
	for t in tests/compat/t[0-9]*.sh; do
		[ -f "$t" ] && echo "compat $t"
	done
} | awk '{ printf "%04d %s\n", NR, $0 }' >"$logs/jobs"

# The start order: SLOW first, in its order, then the rest in output order.
echo "$SLOW" | tr ' ' '\n' | awk -v jobs="$logs/jobs" '
	NF { rank[$1] = NR }
	END {
		while ((getline l < jobs) > 0) {
			split(l, f, " ")
			printf "%d %s\n", (f[3] in rank) ? rank[f[3]] : 1000, l
		}
	}' | sort -n -k1,1 -k2,2 | cut -d' ' -f2- >"$logs/start"

export FGIT="$ROOT/fgit" FGIT_TOOLS="$ROOT/build/tools"
export FGIT_TEST_ONLY="${FGIT_TEST_ONLY:-}" FGIT_TEST_TIMES="${FGIT_TEST_TIMES:-}"

# One job: its stdout (and stderr, except for the plain unit tests, whose
# stderr is shown but not counted, as before) in $logs/<seq>.out; a program
# or script that exits non-zero adds a FAIL line of its own, so a failure
# cannot hide behind PASS lines.  <seq>.rc appears last: the job is done.
xargs -P "$jobs" -L 1 sh -c '
	logs=$1 id=$2 kind=$3 t=$4
	[ -z "$FGIT_TEST_TIMES" ] || start=$(date +%s.%N)
	case $kind in
	unit)	"$t" >"$logs/$id.out" 2>"$logs/$id.err" ;;
	tsan)	"$t" >"$logs/$id.out" 2>&1 ;;
	compat)	(cd tests/compat && exec sh "${t#tests/compat/}") >"$logs/$id.out" 2>&1 ;;
	esac
	rc=$?
	if [ $rc != 0 ]; then
		case $kind in
		compat)	n=${t##*/}; echo "FAIL ${n%%-*}: $t: exit status $rc" ;;
		*)	echo "FAIL $t: exit status $rc" ;;
		esac >>"$logs/$id.out"
	fi
	[ -z "$FGIT_TEST_TIMES" ] || { times >"$logs/$id.tms"; awk -v s="$start" -v e="$(date +%s.%N)" -v t="$t" "
		function sec(x) { split(x, a, \"m\"); return a[1] * 60 + a[2] }
		NR == 2 { printf \"%.2f %.2f %.2f %s\\n\", e - s, sec(\$1), sec(\$2), t }" "$logs/$id.tms" >"$logs/$id.time"; }
	echo $rc >"$logs/$id.rc.tmp" && mv "$logs/$id.rc.tmp" "$logs/$id.rc"
	exit 0' job "$logs" <"$logs/start" &
xpid=$!

out=$logs/all
: >"$out"
section=
while read -r id kind t; do
	if [ "$kind" != "$section" ]; then
		section=$kind
		case $kind in
		unit)	echo "== unit tests" ;;
		tsan)	echo "== ThreadSanitizer (concurrency tests)" ;;
		compat)	echo "== compat tests" ;;
		esac
	fi
	while [ ! -f "$logs/$id.rc" ]; do
		if ! kill -0 $xpid 2>/dev/null && [ ! -f "$logs/$id.rc" ]; then
			echo "FAIL $t: did not run" >>"$logs/$id.out"
			break
		fi
		sleep 0.2
	done
	case $kind in
	tsan)	sed -e 's/^PASS /PASS tsan /' -e 's/^FAIL /FAIL tsan /' "$logs/$id.out" ;;
	*)	cat "$logs/$id.out" ;;
	esac | tee -a "$out" | grep -v '^PASS'
	[ -s "$logs/$id.err" ] && cat "$logs/$id.err" >&2
done <"$logs/jobs"
wait $xpid
[ -z "$FGIT_TEST_TIMES" ] || cat "$logs"/*.time | sort -rn >"$FGIT_TEST_TIMES"

pass=$(grep -c '^PASS' "$out")
fail=$(grep -c '^FAIL' "$out")
grep '^FAIL' "$out" | sed 's/^/  /'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
