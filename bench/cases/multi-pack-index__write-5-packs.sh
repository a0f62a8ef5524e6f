# Issue 6: `multi-pack-index write` over 5 packs that together hold the
# history (its pack split by offset into five, deltas across the cut made
# whole), built once into $BENCH_DIR/midx5.  The midx is removed before each
# run; git and fgit write byte-identical files (compat t5319).
title='multi-pack-index write, history split into 5 packs'
target='≤ 0.6'
corpus=history
dir='$BENCH_DIR/midx5/repo.git'
prepare='rm -f objects/pack/multi-pack-index'
cmd='@GIT@ multi-pack-index write'
runs=10
warmup=2
setup()
{
	out=$BENCH_DIR/midx5
	[ -f "$out/.done" ] && return 0
	rm -rf "$out" && mkdir -p "$out" &&
	git init -q --bare "$out/repo.git" &&
	src=$(ls "$CORPUS"/history.git/objects/pack/pack-*.idx | head -1) &&
	git show-index <"$src" | sort -n | awk '{print $2}' >"$out/order" &&
	n=$(wc -l <"$out/order") && per=$(( (n + 4) / 5 )) &&
	(cd "$out" && split -l "$per" order part.) &&
	for p in "$out"/part.*; do
		GIT_DIR="$CORPUS/history.git" git pack-objects -q --window=0 \
			"$out/repo.git/objects/pack/pack" <"$p" >/dev/null || return 1
	done &&
	rm -f "$out"/part.* "$out/order" && touch "$out/.done"
}
