#!/bin/sh
# Runs every unit-test program under a build dir; prints its PASS/FAIL lines.
# With "tsan", only the programs whose name ends in _mt (concurrency tests).
# A program that exits non-zero (a crash, a sanitizer report) adds a FAIL
# line of its own, so a failure cannot hide behind PASS lines.
mode=${1:-all}
dir=${2:-build/tests}
status=0
for t in $(find "$dir" -type f -perm -u+x | sort); do
	case "$mode:$t" in
	tsan:*_mt) ;;
	tsan:*) continue ;;
	esac
	"$t"
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL $t: exit status $rc"
		status=1
	fi
done
exit $status
