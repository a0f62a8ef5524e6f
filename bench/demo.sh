#!/bin/sh
# make demo: fgit doing its main job beside git, in a few seconds.
#
# Builds nothing (make demo builds fgit first).  Creates a repository of a few
# thousand files in a temporary directory, then runs each step with git and
# with fgit (median of a few runs each, warm cache), checks that fgit printed
# what git printed, and prints a small table.  A step fgit has not built yet
# (exit 129) is shown as such and skipped.  For real figures see bench/run.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
FGIT=${FGIT:-$top/fgit}
GIT=${GIT:-git}
RUNS=${RUNS:-5}
FILES=${FILES:-4000}
[ -x "$FGIT" ] || { echo "demo: no fgit at $FGIT (run make)" >&2; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@fgit.invalid
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@fgit.invalid
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fgit-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
repo=$tmp/repo

printf 'Creating a repository of %d files in %s ...\n' "$FILES" "$repo"
mkdir -p "$repo"
# Text files of 200 B to 8 KiB from a fixed seed, 40 directories.
awk -v n="$FILES" -v dir="$repo" 'BEGIN {
	srand(7)
	for (d = 0; d < 40; d++) system("mkdir -p " dir "/src/d" d)
	for (i = 0; i < n; i++) {
		f = sprintf("%s/src/d%d/file%05d.c", dir, i % 40, i)
		lines = 5 + int(rand() * 200)
		for (l = 0; l < lines; l++)
			printf "\tvalue_%d = compute(%d, %d); /* %x */\n",
				l, int(rand() * 1e6), i, int(rand() * 2^31) > f
		close(f)
	}
}'
(
	cd "$repo"
	$GIT init -q -b main
	$GIT add -A && $GIT commit -q -m "initial import"
	# A little history, so the pack holds deltas.
	for c in 1 2 3 4 5 6 7 8 9 10; do
		for i in $c $((c + 10)) $((c + 20)); do
			echo "/* change $c */" >> "src/d$i/file$(printf %05d $i).c"
		done
		$GIT commit -q -a -m "change $c"
	done
	$GIT repack -adq
	find src -type f > "$tmp/paths"
)
objects=$($GIT -C "$repo" count-objects -v | awk '/^in-pack:/ { print $2 }')
printf '%d objects in one pack; %d runs per step, median wall time.\n\n' "$objects" "$RUNS"

# ms_now: milliseconds since the epoch (GNU date).
ms_now() { date +%s%N | cut -c1-13; }

# median_ms CMD...: run CMD (stdout to /dev/null) RUNS times, print the median
# wall time in ms; returns the command's exit code if it fails.
median_ms() {
	times=
	i=0
	while [ $i -lt "$RUNS" ]; do
		t0=$(ms_now)
		"$@" > /dev/null 2>&1 || return $?
		t1=$(ms_now)
		times="$times $((t1 - t0))"
		i=$((i + 1))
	done
	printf '%s\n' $times | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

row() { printf '| %-46s | %8s | %8s | %8s | %-7s |\n' "$@"; }
row "step" "git" "fgit" "fgit/git" "output"
row "----------------------------------------------" "--------" "--------" "--------" "-------"

# step LABEL ARGS...: time "git ARGS" and "fgit ARGS" in the repository.
# ARGS may end with "< FILE" given as the two words "<" FILE.
step() {
	label=$1
	shift
	input=/dev/null
	set -- "$@"
	argv=
	while [ $# -gt 0 ]; do
		if [ "$1" = "<" ]; then
			input=$2
			shift 2
			continue
		fi
		argv="$argv '$1'"
		shift
	done
	run_git() { eval "$GIT -C \"\$repo\" $argv" < "$input"; }
	run_fgit() { eval "\"\$FGIT\" -C \"\$repo\" $argv" < "$input"; }
	set +e
	run_fgit > "$tmp/out.fgit" 2> "$tmp/err.fgit"
	rc=$?
	set -e
	if [ $rc -eq 129 ]; then
		row "$label" "-" "-" "-" "not yet"
		return 0
	fi
	run_git > "$tmp/out.git" 2>/dev/null
	if [ $rc -ne 0 ]; then
		row "$label" "-" "-" "-" "exit $rc"
		return 0
	fi
	same=same
	cmp -s "$tmp/out.git" "$tmp/out.fgit" || same=DIFFERS
	tg=$(median_ms run_git)
	tf=$(median_ms run_fgit) || { row "$label" "${tg} ms" "-" "-" "fails"; return 0; }
	ratio=$(awk -v a="$tf" -v b="$tg" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
	row "$label" "${tg} ms" "${tf} ms" "$ratio" "$same"
}

step "rev-parse HEAD" rev-parse HEAD
step "hash-object --stdin-paths ($FILES files)" hash-object --stdin-paths "<" "$tmp/paths"
step "ls-tree -r HEAD" ls-tree -r HEAD
step "cat-file --batch-all-objects --batch-check" cat-file --batch-all-objects --batch-check
step "cat-file --batch-all-objects --batch" cat-file --batch-all-objects --batch
step "count-objects -v" count-objects -v

printf '\nTimings on a tiny repository are start-up dominated; bench/run has the real\n'
printf 'workloads (bench/README.md) and bench/RESULTS.md the measured table.\n'
