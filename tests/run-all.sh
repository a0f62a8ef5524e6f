#!/bin/sh
# The whole suite: unit tests, then compat tests (fgit against git).
# Ends with the line "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "== unit tests"
sh tests/run-unit.sh | tee -a "$out" | grep -v '^PASS'
echo "== ThreadSanitizer (concurrency tests)"
sh tests/run-unit.sh tsan build/tsan/tests 2>&1 | sed -e 's/^PASS /PASS tsan /' -e 's/^FAIL /FAIL tsan /' | tee -a "$out" | grep -v '^PASS'
echo "== compat tests"
FGIT_TEST_ONLY="${FGIT_TEST_ONLY:-}" sh tests/compat/run.sh | tee -a "$out" | grep -v '^PASS'
pass=$(grep -c '^PASS' "$out")
fail=$(grep -c '^FAIL' "$out")
grep '^FAIL' "$out" | sed 's/^/  /'
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
