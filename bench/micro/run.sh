#!/bin/sh
# Worktree matchers: fgit's library in process (build/bench/worktree-match)
# and, for scale, git 2.39 doing the same matching through its commands:
#   - 100,000 paths x 204 ignore patterns: `git check-ignore --no-index
#     --stdin` with the patterns in .git/info/exclude (git also lstat()s
#     each path for the directory-only pattern and prints the hits);
#   - 2,000 literal pathspecs x 100,000 index entries: `git ls-files --
#     <pathspecs>` (includes reading a 100,000-entry index).
# Usage: sh bench/micro/run.sh [runs [ignore|pathspec]]  (from the top)
set -e
runs=${1:-5}
only=${2:-}
make -s bench-micro
dir=$(mktemp -d "${TMPDIR:-/dev/shm}/fgit-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
./build/bench/worktree-match "$runs" "$dir" $only
git init -q "$dir/repo"
cp "$dir/patterns" "$dir/repo/.git/info/exclude"
tr '\0' '\n' <"$dir/paths" |
	sed 's/^/100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\t/' |
	git -C "$dir/repo" update-index --index-info
cd "$dir/repo"
hyperfine -w 1 -r "$runs" -i \
	"git check-ignore --no-index --stdin -z <'$dir/paths' >/dev/null" \
	2>&1 | grep -E 'Time|Range'
hyperfine -w 1 -r "$runs" \
	"xargs -0 -s 4000000 git ls-files -- <'$dir/pathspecs' >/dev/null" \
	2>&1 | grep -E 'Time|Range'
hyperfine -N -w 1 -r "$runs" 'git ls-files' 2>&1 | grep -E 'Time|Range'
