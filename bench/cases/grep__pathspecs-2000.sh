# Issue 5: 2,000 literal pathspecs, worktree (target <= 0.5).
title='grep literal, 2000 literal pathspecs'
target='≤ 0.5'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep MODULE_LICENSE -- $(cat ../grep-paths-2000)'
runs=5
warmup=1
setup()
{
	[ -f "$CORPUS/grep-paths-2000" ] ||
		git -C "$CORPUS/linux" ls-files | awk 'NR % 39 == 0' | head -2000 >"$CORPUS/grep-paths-2000"
}
