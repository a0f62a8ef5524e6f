# Issue 4: commit -a after changing one file of the 100,000-file tree.
# A clone sharing the corpus's objects, its work tree a real copy, is reset
# before every run: branch back to the corpus commit, index restored, one
# file rewritten.  The work tree was once hard-linked to the corpus: any
# other hard-linked copy then changed the ctime of every shared inode, the
# saved index went stale and both tools re-read all 100,000 files (git
# 2.34 s instead of 0.39 s).  A copy shares no inode; .bench-ready-v2
# rebuilds the old hard-linked ones.  git: 0.16 s.  Target <= 0.6.
title='commit -a, 100,000 files, one changed'
target='≤ 0.6'
corpus=small
# the runner needs an existing directory before setup() makes the clone
dir='$CORPUS/tree'
setup()
{
	W=$BENCH_DIR/commit-small
	[ -f "$W/.bench-ready-v2" ] && return 0
	rm -rf "$W" && git clone -q --shared --no-checkout "$CORPUS/tree" "$W" &&
	for d in "$CORPUS"/tree/d*; do cp -a "$d" "$W/" || return 1; done &&
	git -C "$W" reset -q && cp "$W/.git/index" "$W/.git/index.bench" &&
	git -C "$W" rev-parse HEAD >"$W/.git/base.bench" && touch "$W/.bench-ready-v2"
}
prepare='cd "$BENCH_DIR/commit-small" && git update-ref HEAD $(cat .git/base.bench) && cp .git/index.bench .git/index && rm -f d00/d000/f000000 && echo changed >d00/d000/f000000'
cmd='cd "$BENCH_DIR/commit-small" && GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com @GIT@ commit -q -a -m one'
runs=10
warmup=2
