# Shared settings for bench/ scripts.  Sourced, not run.
#
# Corpora live outside the repository, built once and reused:
#   FGIT_BENCH_DIR (default /var/tmp/fgit-bench)
# Scratch for workloads that write many files goes to tmpfs:
#   FGIT_BENCH_SHM (default /dev/shm/fgit-bench)

BENCH_DIR=${FGIT_BENCH_DIR:-/var/tmp/fgit-bench}
BENCH_SHM=${FGIT_BENCH_SHM:-/dev/shm/fgit-bench}
BENCH_SRC=$(cd "$(dirname "$0")" && git rev-parse --show-toplevel 2>/dev/null)/bench

# Fixed identity and dates: the same inputs give the same object ids on every build.
export GIT_AUTHOR_NAME="fgit bench" GIT_AUTHOR_EMAIL="bench@fgit.invalid"
export GIT_COMMITTER_NAME="fgit bench" GIT_COMMITTER_EMAIL="bench@fgit.invalid"
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"
# No user or system config may change what a corpus holds.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

say() { printf '%s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# now: seconds since the epoch with fraction, for build-time reports.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
