#!/bin/sh
# unpack-objects against git: the same loose objects, stdout, exit code and
# final message for good, thin, hostile and fsck-failing packs; index-pack
# --strict on the same hostile packs.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
git init -q src && (
	cd src && i=0 &&
	while [ $i -lt 40 ]; do seq 1 $((200 + i)) >f; echo $i >>g; git add f g;
		git commit -q -m "c$i"; i=$((i + 1)); done &&
	git tag -a -m tag v1 HEAD~5 &&
	git pack-objects --all --stdout --revs </dev/null >../all.pack 2>/dev/null &&
	printf 'HEAD\n^HEAD~3\n' | git pack-objects --revs --thin --stdout >../thin.pack 2>/dev/null &&
	printf 'HEAD~3\n' | git pack-objects --revs --stdout >../base.pack 2>/dev/null
) || exit 1
python3 - <<'PY' || exit 1
import hashlib, struct, zlib
def hdr(t, size):
    c = (t << 4) | (size & 15); size >>= 4; out = []
    while size:
        out.append(c | 0x80); c = size & 0x7f; size >>= 7
    out.append(c); return bytes(out)
def pack(objs):
    body = b"PACK" + struct.pack(">II", 2, len(objs))
    for t, d in objs:
        body += hdr(t, len(d)) + zlib.compress(d)
    return body + hashlib.sha1(body).digest()
blob = b"hi\n"; bid = hashlib.sha1(b"blob 3\0" + blob).digest()
missing = hashlib.sha1(b"blob 4\0nope").digest()
open("unsorted.pack", "wb").write(pack([(3, blob), (2, b"100644 z\0" + bid + b"100644 a\0" + bid)]))
open("missing.pack", "wb").write(pack([(2, b"100644 a\0" + missing)]))
open("badmode.pack", "wb").write(pack([(3, blob), (2, b"100664 a\0" + bid)]))
d = open("all.pack", "rb").read()
b = bytearray(d); b[-1] ^= 1; open("badsum.pack", "wb").write(b)
b = bytearray(d); b[14] ^= 0xff; open("badobj.pack", "wb").write(b)
open("trunc.pack", "wb").write(d[:len(d) // 2])
open("badsig.pack", "wb").write(b"PACX\0\0\0\2\0\0\0\1")
open("badver.pack", "wb").write(b"PACK\0\0\0\4\0\0\0\1")
open("trailing.pack", "wb").write(d + b"after the pack\n")
PY

# unpack <pack> <setup> <args...>: git and fgit each in a fresh repository
# (after <setup> there), then compare exit code, stdout, the last line of
# stderr (unless CMP_ERR=no), and the objects each repository holds (unless
# CMP_OBJS=no: from a truncated pack git writes the objects before the cut,
# fgit nothing, as it writes only what a verified pack holds).
unpack()
{
	p=$1 setup=$2; shift 2
	for who in git fgit; do
		rm -rf "u.$who" && git init -q "u.$who" &&
		(cd "u.$who" && eval "$setup") >/dev/null 2>&1 || { echo "setup failed"; return 1; }
		bin=git; [ $who = fgit ] && bin=$FGIT
		rc=0; (cd "u.$who" && $bin unpack-objects "$@" <"../$p" >"../$who.out" 2>"../$who.err") || rc=$?
		echo $rc >"$who.rc"
		tail -n 1 "$who.err" >"$who.lasterr"
		git -C "u.$who" cat-file --batch-all-objects --batch-check >"$who.objs"
	done
	cmp -s git.rc fgit.rc || { echo "exit: git $(cat git.rc) fgit $(cat fgit.rc)"; cat fgit.err; return 1; }
	cmp -s git.out fgit.out || { echo "stdout differs"; return 1; }
	[ "${CMP_ERR:-}" = no ] || cmp -s git.lasterr fgit.lasterr || {
		echo "stderr: git: $(cat git.lasterr) / fgit: $(cat fgit.lasterr)"; return 1; }
	[ "${CMP_OBJS:-}" = no ] || cmp -s git.objs fgit.objs || { echo "objects differ"; diff git.objs fgit.objs | head; return 1; }
}

test_expect_success 'unpack-objects: a whole history' 'unpack all.pack : &&
	fsck_ok u.fgit && unpack all.pack : -q && unpack all.pack : -n && unpack all.pack : --strict'
test_expect_success 'unpack-objects: objects already present are kept' '
	unpack all.pack "git unpack-objects -q <../base.pack"'
test_expect_success 'unpack-objects: a thin pack against the repository' '
	unpack thin.pack "git unpack-objects -q <../base.pack" && fsck_ok u.fgit &&
	unpack thin.pack "git unpack-objects -q <../base.pack" --strict'
test_expect_success 'unpack-objects: a thin pack without its bases' '
	unpack thin.pack : && unpack thin.pack : -r'
test_expect_success 'unpack-objects: bytes after the pack go to stdout' 'unpack trailing.pack : -q'
test_expect_success 'unpack-objects: bad signature, version, truncation' '
	unpack badsig.pack : && unpack badver.pack : &&
	CMP_OBJS=no unpack trunc.pack : && ! test -s fgit.objs'
test_expect_success 'unpack-objects: a corrupt entry' 'CMP_ERR=no unpack badobj.pack :'
test_expect_success 'unpack-objects: a wrong trailer checksum' '
	CMP_ERR=no unpack badsum.pack : ; grep -q "final sha1 did not match" fgit.err'
test_expect_success 'unpack-objects --strict: fsck errors, warnings, missing links' '
	unpack unsorted.pack : --strict && unpack unsorted.pack : &&
	unpack badmode.pack : --strict && cmp git.err fgit.err &&
	unpack missing.pack : --strict && unpack missing.pack :'
test_expect_success 'unpack-objects: usage' '
	unpack all.pack : --bogus && unpack all.pack : -x'

# index-pack --strict on the same packs: exit code and messages.
strict_ip()
{
	for who in git fgit; do
		rm -rf "i.$who" && git init -q "i.$who"
		bin=git; [ $who = fgit ] && bin=$FGIT
		rc=0; (cd "i.$who" && $bin index-pack --strict --stdin <"../$1" >"../$who.out" 2>"../$who.err") || rc=$?
		echo $rc >"$who.rc"
		# git leaves an empty tmp_pack_* behind on failure; fgit does not
		ls "i.$who/.git/objects/pack" | grep -v "^tmp_pack_" >"$who.files"
	done
	cmp -s git.rc fgit.rc && cmp -s git.out fgit.out && cmp -s git.err fgit.err &&
	cmp -s git.files fgit.files || {
		echo "git: $(cat git.rc) $(cat git.err)"; echo "fgit: $(cat fgit.rc) $(cat fgit.err)"; return 1; }
}
test_expect_success 'index-pack --strict: fsck errors, warnings, missing links' '
	strict_ip unsorted.pack && strict_ip badmode.pack && strict_ip missing.pack &&
	strict_ip all.pack'

test_done
