#!/bin/sh
# Runs every unit-test program under a build dir; prints its PASS/FAIL lines.
# With "tsan", only the programs whose name ends in _mt (concurrency tests).
mode=${1:-all}
dir=${2:-build/tests}
status=0
for t in $(find "$dir" -type f -perm -u+x | sort); do
	case "$mode:$t" in
	tsan:*_mt) ;;
	tsan:*) continue ;;
	esac
	"$t" || status=1
done
exit $status
