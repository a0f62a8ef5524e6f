# Issue 6: `gc` on a repository of 20,000-odd loose objects (770 generated
# commits of small files in nested directories, exploded with
# unpack-objects), copied fresh to tmpfs before each run.  pack-refs and
# reflog expire are turned off in its config for both (fgit's gc does not
# have them yet; they cost little here), and so are bitmaps (the repository
# is bare; fgit does not write them yet).
title='gc, 20,000 loose objects'
target='≤ 0.6'
corpus=small
dir='$BENCH_DIR'
prepare='rm -rf "$BENCH_SHM/gc.git" && cp -a "$BENCH_DIR/gc20k/repo.git" "$BENCH_SHM/gc.git"'
cmd='@GIT@ -C "$BENCH_SHM/gc.git" gc -q'
check=none
runs=5
warmup=1
setup()
{
	out=$BENCH_DIR/gc20k
	[ -f "$out/.done" ] && return 0
	rm -rf "$out" && mkdir -p "$out" && git init -q --bare "$out/tmp.git" &&
	python3 - <<'PY' | git -C "$out/tmp.git" fast-import --quiet
import random
r = random.Random(6)
files = {}
for c in range(770):
    print("commit refs/heads/main")
    print("committer B <b@example.com> %d +0000" % (1600000000 + c * 60))
    print("data 8\ncommit %d" % (c % 10))
    for k in range(9):
        path = "d%d/e%d/f%d.txt" % (r.randrange(12), r.randrange(12), r.randrange(30))
        body = "".join("%d %d\n" % (c, r.randrange(10**6)) for _ in range(20))
        print("M 100644 inline %s" % path)
        print("data %d" % len(body))
        print(body, end="")
    print()
PY
	git init -q --bare "$out/repo.git" &&
	git -C "$out/repo.git" unpack-objects -q <"$(ls "$out"/tmp.git/objects/pack/*.pack)" &&
	git -C "$out/repo.git" update-ref refs/heads/main "$(git -C "$out/tmp.git" rev-parse main)" &&
	git -C "$out/repo.git" config gc.packRefs false &&
	git -C "$out/repo.git" config gc.reflogExpire never &&
	git -C "$out/repo.git" config gc.reflogExpireUnreachable never &&
	git -C "$out/repo.git" config gc.autoDetach false &&
	git -C "$out/repo.git" config repack.writeBitmaps false &&
	git -C "$out/repo.git" symbolic-ref HEAD refs/heads/main &&
	rm -rf "$out/tmp.git" && touch "$out/.done" &&
	find "$out/repo.git/objects" -type f | wc -l
}
