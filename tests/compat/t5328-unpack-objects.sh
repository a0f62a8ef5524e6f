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
	printf 'HEAD~3\n' | git pack-objects --revs --stdout >../base.pack 2>/dev/null &&
	git pack-objects --all --stdout --revs --delta-base-offset </dev/null >../ofs.pack 2>/dev/null
) || exit 1
# each entry of both packs (name type size packed-size offset [depth base]),
# for the damaged packs of the -r cases below
mkdir vp && cp all.pack ofs.pack vp/ && git index-pack vp/all.pack >/dev/null &&
git index-pack vp/ofs.pack >/dev/null &&
git verify-pack -v vp/all.idx | grep -E "^[0-9a-f]{40} " >all.entries &&
git verify-pack -v vp/ofs.idx | grep -E "^[0-9a-f]{40} " >ofs.entries || exit 1
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

# Damaged packs for -r, located from verify-pack's table; each (but the
# truncated one) gets a valid trailer so only the damage counts.
import random
def fix(b):
    return bytes(b) + hashlib.sha1(bytes(b)).digest()
def entries(name):
    out = []
    for line in open(name):
        f = line.split()
        out.append(dict(oid=f[0], type=f[1], size=int(f[2]), packed=int(f[3]),
                        off=int(f[4]), base=f[6] if len(f) > 6 else None))
    return out
def hdrlen(b, off):
    n = 1
    while b[off + n - 1] & 0x80:
        n += 1
    return n
def ofs_enc(v):
    out = [v & 127]; v >>= 7
    while v:
        v -= 1; out.insert(0, 128 | (v & 127)); v >>= 7
    return bytes(out)
for name in ("all", "ofs"):
    d = open(name + ".pack", "rb").read(); body = d[:-20]; ents = entries(name + ".entries")
    byoid = {e["oid"]: e for e in ents}
    deltas = [e for e in ents if e["base"]]
    # corrupt data in the middle of the biggest base's zlib stream
    big = max((e for e in ents if not e["base"]), key=lambda e: e["packed"])
    b = bytearray(body); b[big["off"] + big["packed"] // 2] ^= 0x55
    open(name + "-zmid.pack", "wb").write(fix(b))
    # a broken zlib header: what follows is read as garbage entries
    tree = [e for e in ents if e["type"] == "tree" and not e["base"]][len(ents) // 20]
    b = bytearray(body); b[tree["off"] + hdrlen(body, tree["off"])] ^= 0xff
    open(name + "-zhdr.pack", "wb").write(fix(b))
    open(name + "-trunc.pack", "wb").write(d[:len(d) * 2 // 3])
    dl = deltas[len(deltas) // 2]
    at = dl["off"] + hdrlen(body, dl["off"])
    other = [e for e in ents if not e["base"] and e["off"] < dl["off"] and
             e["size"] != byoid[dl["base"]]["size"]][0]
    if name == "all":
        # REF deltas: a base nobody has, and a base of the wrong size
        b = bytearray(body); b[at] ^= 1
        open("all-nobase.pack", "wb").write(fix(b))
        b = bytearray(body); b[at:at + 20] = bytes.fromhex(other["oid"])
        open("all-wrongbase.pack", "wb").write(fix(b))
    else:
        # OFS deltas: a base offset inside an entry, and a wrong entry
        old = dl["off"] - byoid[dl["base"]]["off"]
        n = len(ofs_enc(old))
        b = bytearray(body); b[at:at + n] = ofs_enc(old - 1)
        assert len(ofs_enc(old - 1)) == n
        open("ofs-nobase.pack", "wb").write(fix(b))
        new = dl["off"] - other["off"]
        if len(ofs_enc(new)) == n:
            b = bytearray(body); b[at:at + n] = ofs_enc(new)
            open("ofs-wrongbase.pack", "wb").write(fix(b))
    # random damage, fixed seed
    rnd = random.Random(5328)
    for k in range(12):
        b = bytearray(body)
        for _ in range(rnd.choice([1, 1, 2, 5])):
            b[rnd.randrange(12, len(b))] = rnd.randrange(256)
        out = fix(b) if rnd.random() < 0.7 else bytes(b) + d[-20:]
        if rnd.random() < 0.2:
            out = out[:rnd.randrange(12, len(out))]
        open("%s-fuzz%d.pack" % (name, k), "wb").write(out)

# --strict: hand-made packs, each entry written by this script.  Which
# objects a failing run leaves depends on git's order (blobs as they come,
# the others after the last entry, each after what it points to).
def oid(t, d): return hashlib.sha1(b"%s %d\0" % (t.encode(), len(d)) + d).digest()
TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4}
def varint(n):
    out = []
    while True:
        c = n & 0x7f; n >>= 7
        if n: out.append(c | 0x80)
        else: out.append(c); break
    return bytes(out)
def ofs_enc(v):
    out = [v & 127]; v >>= 7
    while v:
        v -= 1; out.insert(0, 128 | (v & 127)); v >>= 7
    return bytes(out)
def mkdelta(base, target):
    # copy all of base (if a prefix) then insert rest
    d = varint(len(base)) + varint(len(target))
    if target.startswith(base) and len(base) > 0 and len(base) < 0x10000:
        n = len(base)
        d += bytes([0x80 | 0x10 | 0x20, n & 0xff, n >> 8])
        rest = target[n:]
    else:
        rest = target
    while rest:
        d += bytes([min(127, len(rest))]) + rest[:127]; rest = rest[127:]
    return d
def pack(entries, trailer=True):
    # entries: ("obj", type, data) | ("ref", base_oid, base, target) | ("ofs", base_index, base, target) | ("raw", bytes)
    body = b"PACK" + struct.pack(">II", 2, len(entries)); offs = []
    for e in entries:
        offs.append(len(body))
        if e[0] == "obj":
            body += hdr(TYPES[e[1]], len(e[2])) + zlib.compress(e[2])
        elif e[0] == "ref":
            dl = mkdelta(e[2], e[3]); body += hdr(7, len(dl)) + e[1] + zlib.compress(dl)
        elif e[0] == "ofs":
            dl = mkdelta(e[2], e[3]); body += hdr(6, len(dl)) + ofs_enc(offs[-1] - offs[e[1]]) + zlib.compress(dl)
        elif e[0] == "raw":
            body += e[1]
    return body + hashlib.sha1(body).digest() if trailer else body
def tree(*ents):
    return b"".join(m + b" " + n + b"\0" + o for m, n, o in ents)
ID = b"A U Thor <a@example.com> 1112911993 -0700"
def commit(t, parents=(), author=ID, committer=ID, msg=b"msg\n"):
    s = b"tree " + t.hex().encode() + b"\n"
    for p in parents: s += b"parent " + p.hex().encode() + b"\n"
    return s + b"author " + author + b"\ncommitter " + committer + b"\n\n" + msg
def tag(o, t="commit", name=b"v1", tagger=ID):
    return b"object " + o.hex().encode() + b"\ntype " + t.encode() + b"\ntag " + name + b"\ntagger " + tagger + b"\n\nmsg\n"

blob1 = b"hello\n"; b1 = oid("blob", blob1)
blob2 = b"hello\nworld\n"; b2 = oid("blob", blob2)
t1d = tree((b"100644", b"a", b1), (b"100644", b"b", b2)); t1 = oid("tree", t1d)
c1d = commit(t1); c1 = oid("commit", c1d)
t2d = tree((b"100644", b"a", b1), (b"100644", b"b", b2), (b"40000", b"d", t1)); t2 = oid("tree", t2d)
c2d = commit(t2, [c1], msg=b"second\n"); c2 = oid("commit", c2d)
tagd = tag(c2); tg = oid("tag", tagd)
W = lambda name, data: open("s-" + name + ".pack", "wb").write(data)
good = [("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", c1d),
        ("obj", "tree", t2d), ("obj", "commit", c2d), ("obj", "tag", tagd)]
W("good", pack(good))
# commit first, its tree later: links in the pack
W("order", pack([("obj", "commit", c2d), ("obj", "commit", c1d), ("obj", "tag", tagd), ("obj", "tree", t2d), ("obj", "tree", t1d), ("obj", "blob", blob2), ("obj", "blob", blob1)]))
# deltas on held objects
W("refdelta-tree", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("ref", t1, t1d, t2d), ("obj", "commit", c1d), ("ofs", 3, c1d, c2d)]))
W("refdelta-before", pack([("ref", t1, t1d, t2d), ("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", c1d), ("ref", c1, c1d, c2d)]))
W("ofsdelta-tree", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("ofs", 2, t1d, t2d), ("obj", "commit", c1d)]))
W("blobdelta", pack([("obj", "blob", blob1), ("ref", b1, blob1, blob2), ("obj", "tree", t1d)]))
# fsck failures
zp = tree((b"0100644", b"a", b1)); W("zeropad", pack([("obj", "blob", blob1), ("obj", "tree", zp)]))
bm = tree((b"100664", b"a", b1)); W("badmode", pack([("obj", "blob", blob1), ("obj", "tree", bm)]))
bm2 = tree((b"100645", b"a", b1)); W("badmode2", pack([("obj", "blob", blob1), ("obj", "tree", bm2)]))
uns = tree((b"100644", b"b", b1), (b"100644", b"a", b1)); W("unsorted", pack([("obj", "blob", blob1), ("obj", "tree", uns), ("obj", "blob", blob2)]))
dg = tree((b"100644", b".git", b1)); W("dotgit", pack([("obj", "blob", blob1), ("obj", "tree", dg)]))
ba = commit(t1, author=b"A U Thor a@example.com> 1112911993 -0700"); W("badauthor", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", ba), ("obj", "blob", b"after\n")]))
bd = commit(t1, author=b"A U Thor <a@example.com> 99999999999999999999 -0700"); W("baddate", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", bd)]))
bt = tag(c1, t="tree"); W("badtagtype", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", c1d), ("obj", "tag", bt)]))
nt = tag(c1, tagger=b"x"); W("badtagger", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", c1d), ("obj", "tag", nt)]))
# links
W("missing-tree", pack([("obj", "blob", blob1), ("obj", "commit", c1d)]))
W("missing-blob", pack([("obj", "blob", blob1), ("obj", "tree", t1d), ("obj", "commit", c1d)]))
W("missing-parent", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "tree", t2d), ("obj", "commit", c2d)]))
cb = commit(b1); W("tree-is-blob", pack([("obj", "blob", blob1), ("obj", "commit", cb)]))
tb = tree((b"40000", b"d", b1)); W("subtree-is-blob", pack([("obj", "blob", blob1), ("obj", "tree", tb)]))
tt = tree((b"100644", b"f", t1)); W("blob-is-tree", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "tree", tt)]))
# damage after some objects
W("trunc", pack(good)[:-40])
full = pack(good); W("badsum", full[:-1] + bytes([full[-1] ^ 1]))
import random
# corrupt zlib in the 5th entry
ents = good[:]
b = bytearray(pack(good, trailer=False))
# find offset of entry 4 (tree t2d)
def offsets(entries):
    o = 12; out = []
    for e in entries:
        out.append(o); o += len(hdr(TYPES[e[1]], len(e[2])) + zlib.compress(e[2]))
    return out
offs = offsets(good)
b[offs[4] + 4] ^= 0x55
W("zmid", bytes(b) + hashlib.sha1(bytes(b)).digest())
W("nobase", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("ref", b"\x11" * 20, t1d, t2d), ("obj", "commit", c1d)]))
# fsck failure + damage later
W("badauthor-trunc", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", ba), ("obj", "blob", b"after\n"), ("obj", "blob", b"more\n")])[:-30])
# duplicate object
W("dup", pack([("obj", "blob", blob1), ("obj", "tree", t1d), ("obj", "blob", blob2), ("obj", "tree", t1d), ("obj", "commit", c1d)]))
# the fixes of refdelta-tree: a delta on a held commit
W("refdelta-commit", pack([("obj", "blob", blob1), ("obj", "blob", blob2), ("obj", "tree", t1d), ("ref", t1, t1d, t2d), ("obj", "commit", c1d), ("ofs", 4, c1d, c2d)]))
# links to objects of the repository, of the right type or not
W("treeblob-repo", pack([("obj", "commit", commit(b1))]))
t = tree((b"100644", b"a", b1)); to = oid("tree", t)
W("parent-is-tree", pack([("obj", "blob", blob1), ("obj", "tree", t), ("obj", "commit", commit(to, [to]))]))
W("gitlink", pack([("obj", "blob", blob1), ("obj", "tree", tree((b"120000", b"l", b1), (b"160000", b"s", b"\x22" * 20)))]))
t4 = t + b"100644 b\0" + b1
# .gitmodules and .gitattributes blobs (git's fsck_finish), and links
gm = b"[submodule \"../x\"]\n\tpath = -x\n\turl = https:///evil\n\tupdate = !rm\n" \
     b"[submodule \"ok\"]\n\turl = ../../:x\n[submodule \"b\"]\n\turl = git://h/%0ax\n" \
     b"[submodule \"c\"]\n\turl = https://user@h.example/x\n\tpath = c\n\tupdate = checkout\n"
W("gitmodules", pack([("obj", "blob", gm), ("obj", "tree", tree((b"100644", b".GitModules", oid("blob", gm))))]))
W("gitmodules-late", pack([("obj", "tree", tree((b"100644", b".gitmodules. ", oid("blob", gm)))), ("obj", "blob", gm)]))
gp = b"[submodule \"a\"]\n\turl = -x\n[bad\n"
W("gitmodules-parse", pack([("obj", "blob", gp), ("obj", "tree", tree((b"100644", b".gitmodules", oid("blob", gp))))]))
W("gitmodules-link", pack([("obj", "blob", blob1), ("obj", "tree", tree((b"120000", b".gitmodules", b1)))]))
W("gitmodules-tree", pack([("obj", "blob", blob1), ("obj", "tree", tree((b"40000", b".gitmodules", t1))), ("obj", "tree", t1d), ("obj", "blob", blob2)]))
ga = b"a" * 3000 + b" text\n"
W("gitattributes", pack([("obj", "blob", ga), ("obj", "tree", tree((b"100644", b".gitattributes", oid("blob", ga))))]))
W("gitattributes-link", pack([("obj", "blob", blob1), ("obj", "tree", tree((b"120000", b".gitattributes", b1)))]))
W("refdelta-later", pack([("ref", to, t, t4), ("obj", "blob", blob1), ("obj", "tree", t), ("ofs", 0, t4, t4 + b"100644 c\0" + b1)]))
PY

# unpack <pack> <setup> <args...>: git and fgit each in a fresh repository
# (after <setup> there), then compare exit code, stdout, the last line of
# stderr (unless CMP_ERR=no), and the objects each repository holds (unless
# CMP_OBJS=no).
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
	[ "${CMP_ERR:-}" != all ] || cmp -s git.err fgit.err || {
		echo "stderr differs"; diff git.err fgit.err | head; return 1; }
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
	CMP_ERR=all unpack trunc.pack : && test -s fgit.objs'
test_expect_success 'unpack-objects: a corrupt entry' 'CMP_ERR=all unpack badobj.pack :'
test_expect_success 'unpack-objects: a wrong trailer checksum' '
	CMP_ERR=all unpack badsum.pack : && grep -q "final sha1 did not match" fgit.err &&
	test -s fgit.objs'
# without -r, git writes the objects before the damage, then stops
test_expect_success 'unpack-objects: damaged packs write what comes before the damage' '
	for p in all-trunc.pack ofs-trunc.pack all-zmid.pack ofs-zmid.pack all-zhdr.pack \
		 ofs-zhdr.pack all-nobase.pack all-wrongbase.pack ofs-nobase.pack \
		 all-fuzz*.pack ofs-fuzz*.pack; do
		CMP_ERR=all unpack $p : && CMP_ERR=all unpack $p : -n || { echo "in $p"; return 1; }
	done'
test_expect_success 'unpack-objects --strict: fsck errors, warnings, missing links' '
	unpack unsorted.pack : --strict && unpack unsorted.pack : &&
	unpack badmode.pack : --strict && cmp git.err fgit.err &&
	unpack missing.pack : --strict && unpack missing.pack :'
test_expect_success 'unpack-objects: usage' '
	unpack all.pack : --bogus && unpack all.pack : -x'

# -r: git reads a damaged pack entry by entry, reports what it cannot
# read, steps over it and keeps the rest: the same objects, every error
# line and the exit code (the objects of the last -r run are left in
# fgit.objs: the packs damaged past their start must leave some).
unpack_r()
{
	for p in "$@"; do
		CMP_ERR=all unpack "$p" : -r -n && CMP_ERR=all unpack "$p" : -r ||
			{ echo "in $p"; return 1; }
	done
}
test_expect_success 'unpack-objects -r: a sound pack' '
	unpack_r all.pack ofs.pack && fsck_ok u.fgit &&
	CMP_ERR=all unpack thin.pack "git unpack-objects -q <../base.pack" -r &&
	CMP_ERR=all unpack trailing.pack : -r'
test_expect_success 'unpack-objects -r: truncated packs' '
	unpack_r trunc.pack all-trunc.pack ofs-trunc.pack && test -s fgit.objs'
test_expect_success 'unpack-objects -r: corrupt zlib data in the middle of an entry' '
	unpack_r badobj.pack all-zmid.pack ofs-zmid.pack && test -s fgit.objs'
test_expect_success 'unpack-objects -r: a broken zlib header, garbage read as entries' '
	unpack_r all-zhdr.pack ofs-zhdr.pack'
test_expect_success 'unpack-objects -r: delta bases missing or wrong' '
	unpack_r all-nobase.pack all-wrongbase.pack ofs-nobase.pack &&
	{ ! test -f ofs-wrongbase.pack || unpack_r ofs-wrongbase.pack; } &&
	unpack_r thin.pack badsum.pack'
test_expect_success 'unpack-objects -r: random damage (seeded)' '
	for p in all-fuzz*.pack ofs-fuzz*.pack; do unpack_r $p || return 1; done'

# --strict: every error and warning line, the exit code and the objects
# written, alone, with -r and with -n (which checks nothing).
unpack_strict()
{
	setup=$1; shift
	for p in "$@"; do
		CMP_ERR=all unpack "$p" "$setup" --strict &&
		CMP_ERR=all unpack "$p" "$setup" -r --strict &&
		CMP_ERR=all unpack "$p" "$setup" -n --strict || { echo "in $p"; return 1; }
	done
}
test_expect_success 'unpack-objects --strict: sound packs, deltas on held objects' '
	unpack_strict : s-good.pack s-order.pack s-refdelta-tree.pack s-refdelta-before.pack \
		s-ofsdelta-tree.pack s-blobdelta.pack s-refdelta-commit.pack s-refdelta-later.pack \
		s-gitlink.pack all.pack ofs.pack && fsck_ok u.fgit'
test_expect_success 'unpack-objects --strict: fsck errors, warnings and infos' '
	unpack_strict : s-zeropad.pack s-badmode.pack s-badmode2.pack s-unsorted.pack \
		s-dotgit.pack s-badauthor.pack s-baddate.pack s-badtagtype.pack \
		s-badtagger.pack s-dup.pack'
test_expect_success 'unpack-objects --strict: .gitmodules and .gitattributes' '
	unpack_strict : s-gitmodules.pack s-gitmodules-late.pack s-gitmodules-parse.pack \
		s-gitmodules-link.pack s-gitmodules-tree.pack s-gitattributes.pack \
		s-gitattributes-link.pack'
test_expect_success 'unpack-objects --strict: links missing or of another type' '
	unpack_strict : s-missing-tree.pack s-missing-blob.pack s-missing-parent.pack \
		s-tree-is-blob.pack s-subtree-is-blob.pack s-blob-is-tree.pack \
		s-treeblob-repo.pack s-parent-is-tree.pack &&
	unpack_strict "git unpack-objects -q <../s-good.pack" s-missing-tree.pack \
		s-missing-parent.pack s-tree-is-blob.pack s-treeblob-repo.pack s-zeropad.pack &&
	unpack_strict "git unpack-objects -q <../base.pack" thin.pack'
test_expect_success 'unpack-objects --strict: damaged packs' '
	unpack_strict : s-trunc.pack s-badsum.pack s-zmid.pack s-nobase.pack \
		s-badauthor-trunc.pack &&
	for p in trunc.pack badobj.pack badsum.pack all-trunc.pack ofs-zmid.pack \
		 all-zhdr.pack all-nobase.pack all-wrongbase.pack ofs-nobase.pack \
		 all-fuzz[0-5].pack ofs-fuzz[0-5].pack; do
		CMP_ERR=all unpack $p : --strict && CMP_ERR=all unpack $p : -r --strict ||
			{ echo "in $p"; return 1; }
	done'
test_expect_success 'unpack-objects --strict=<msg-ids> is refused' '
	rm -rf u.r && git init -q u.r && cd u.r &&
	{ "$FGIT" unpack-objects --strict=zeroPaddedFilemode=ignore <../s-zeropad.pack 2>../err
	  test $? = 129; } && grep -q -- "--strict=" ../err'

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
	strict_ip all.pack && strict_ip s-zeropad.pack && strict_ip s-dotgit.pack &&
	strict_ip s-badauthor.pack && strict_ip s-badtagger.pack && strict_ip s-baddate.pack'

test_done
