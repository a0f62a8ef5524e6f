#!/bin/sh
# git grep's search engine against git 2.39: every fast path (literal
# search on rare and common bytes, matches at buffer and vector edges,
# -i with ASCII and non-ASCII text in C and UTF-8 locales, -w boundaries,
# -P, -p/-W, --all-match across files) and the worktree reader (big files
# read through a mapping, files changed, grown, shrunk, removed or turned
# into symlinks and directories since they were added).
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q r && cd r &&
	mkdir -p edge big sub &&
	python3 - <<-\EOF &&
	import random
	rnd = random.Random(7812)
	# needles at every offset around 16/32/64-byte vector edges, in
	# files of every size around those edges, with and without a
	# final newline
	for size in (1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129):
	    for at in sorted({0, 1, size // 2, max(0, size - 3), max(0, size - 2), max(0, size - 1)}):
	        body = bytearray(b"a" * size)
	        for i in range(0, size, 7):
	            body[i] = ord("\n")
	        needle = b"zq"
	        body[at:at + 2] = needle
	        del body[size:]
	        open("edge/s%03d-%03d" % (size, at), "wb").write(bytes(body))
	# almost-matches: the rare bytes of the needle everywhere, the
	# needle itself once or never
	lines = []
	for i in range(3000):
	    w = "".join(rnd.choice("xyzXYZ_q") for _ in range(rnd.randint(1, 40)))
	    lines.append(w)
	lines[1500] = "pre XYZZY_QUUX post"
	lines[2999] = "XYZZY_QUU"
	open("near.txt", "w").write("\n".join(lines) + "\n")
	open("near2.txt", "w").write("\n".join(lines[:1500] + lines[1501:]))
	# big files, read through a mapping: a match in the first and last
	# lines, one on a page boundary, one exactly at the end of a file
	# whose size is a multiple of the page size (no byte after it)
	line = "the quick brown fox jumps over the lazy dog 0123456789\n"
	text = line * 6000
	open("big/start.txt", "w").write("NEEDLE_ONE here\n" + text)
	open("big/end.txt", "w").write(text + "NEEDLE_ONE at the end")
	pg = bytearray((line * 5000).encode())
	pg[4090:4105] = b"\nNEEDLE_ONE_PG\n"
	open("big/page.txt", "wb").write(bytes(pg))
	exact = bytearray(b"x" * (65536 * 5))
	for i in range(100, len(exact), 81):
	    exact[i] = ord("\n")
	exact[-10:] = b"\nNEEDLE_ON"
	open("big/exact.txt", "wb").write(bytes(exact))
	exact[-10:] = b"NEEDLE_ONE"
	open("big/exact2.txt", "wb").write(bytes(exact))
	# non-ASCII text for -i
	u = ["\u212aey one", "Key two", "\u017fome three", "SOME four",
	     "\u0130stanbul", "istanbul", "\u0131stanbul", "stra\u00dfe",
	     "STRASSE", "\u00c5ngstr\u00f6m", "\u212bngstr\u00f6m",
	     "\u00e9t\u00e9 \u00c9T\u00c9", "\u03a3\u03c3\u03c2", "\u00b5 \u039c \u03bc",
	     "Initramfs_Root_Uid mixed", "INITRAMFS_ROOT_UID upper"]
	open("sub/utf8.txt", "w", encoding="utf-8").write("\n".join(u) + "\n")
	open("sub/latin1.txt", "wb").write(b"caf\xe9 CAF\xc9\nna\xefve\nk\xffey\n")
	# words at boundaries
	open("sub/words.c", "w").write(
	    "foo\nfoo_bar\nbar_foo foo\n(foo)\nxfoo foox foo\nfoo-foo\nfoofoo foo\n\xc3\xa9foo foo\xc3\xa9\n")
	EOF
	printf "alpha\n" >sub/a && printf "beta\n" >sub/b &&
	printf "alpha beta\n" >sub/c && printf "beta\nalpha\n" >sub/d &&
	printf "gamma\n" >sub/e &&
	cat >sub/f.c <<-\EOF &&
	#include <stdio.h>

	static int helper(int x)
	{
		return x + target;
	}

	/* comment */
	int main(void)
	{
		int y = 1;

		return helper(target);
	}
	EOF
	printf "*.c diff=cpp\n" >.gitattributes &&
	printf "rm me NEEDLE\n" >gone.txt &&
	printf "link NEEDLE\n" >tolink.txt &&
	printf "dir NEEDLE\n" >todir.txt &&
	printf "grow NEEDLE\n" >grow.txt &&
	printf "shrink NEEDLE and much more text here\n" >shrink.txt &&
	printf "same size NEEDLE\n" >same.txt &&
	git add . && git commit -qm one &&
	rm gone.txt && rm tolink.txt && ln -s sub/a tolink.txt &&
	rm todir.txt && mkdir todir.txt && printf "NEEDLE\n" >todir.txt/x &&
	python3 -c "open(\"grow.txt\", \"a\").write(\"more NEEDLE\\n\" * 20000)" &&
	printf "NEEDLE\n" >shrink.txt &&
	printf "SAME SIZE needle\n" >same.txt
'

# Literals: rare and common bytes, every edge.
while read -r args; do
	test_expect_success "grep $args" 'cd r && eval "compare grep $args"'
	test_expect_success "grep --threads=1 $args" 'cd r && eval "compare grep --threads=1 $args"'
done <<\EOF
-c zq -- edge
-n zq -- edge
-o -n --column zq -- edge
-c -i ZQ -- edge
-c a -- edge
-c aa -- edge
-c aaaaaaa -- edge
-c -F -e a -e zq -- edge
-c -i -w zq -- edge
-c -P "z[q]" -- edge
-n XYZZY_QUUX
-n XYZZY_QUU
-n -i xyzzy_quu
-c -i xyzzy
-c XYZ
-c -i q
-c -w XYZZY_QUU
-n NEEDLE_ONE
-n -i needle_one
-n -w NEEDLE_ONE
-n -P "NEEDLE_O\w+"
-c -e NEEDLE_ONE -e nothing_at_all
-c lazy
-l -i LAZY
-L NEEDLE_ONE -- big
-n NEEDLE
-n -i needle
-c " "
-c -i " the "
-c -F ..
-c -i -F "*X"
EOF

# -i outside ASCII, in the C and a UTF-8 locale.
for loc in C C.UTF-8; do
	while read -r args; do
		test_expect_success "LC_ALL=$loc grep $args" '
			cd r && LC_ALL=$loc && export LC_ALL && eval "compare grep $args -- sub"'
	done <<-\EOF
	-i key
	-i -F key
	-i -P key
	-i "k.y"
	-i -E "k(e)y"
	-i some
	-i -o some
	-i s
	-i -c i
	-i istanbul
	-i strasse
	-i "ß"
	-i "å"
	-i "ÅNGSTR"
	-i "été"
	-i -w "été"
	-i "σ"
	-i "µ"
	-i "μ"
	-i -F "café"
	-i "$(printf "caf\351")"
	-i "$(printf "k\377e")"
	-i initramfs_root_uid
	-i -w initramfs_root_uid
	-i -o -F INITRAMFS
	-i --color=always initramfs
	-i -e initramfs -e "some"
	EOF
done

# -w: a match inside a word, a later one standing alone.
while read -r args; do
	test_expect_success "grep $args" 'cd r && eval "compare grep $args -- sub/words.c"'
done <<\EOF
-n -w foo
-o -w foo
--column -w foo
-c -w foo_bar
-w -i FOO
-w -E "foo|bar"
-w -P "fo+"
-w -F "foo-foo"
-w -e foo -e bar_foo
-v -w foo
EOF

# -P.
while read -r args; do
	test_expect_success "grep $args" 'cd r && eval "compare grep $args"'
done <<\EOF
-P -n "NEEDLE_O\w+"
-P -c "^x{3,}"
-P -o "XYZZY_QU+X?"
-P -i -n "xyzzy_(q)uux"
-P -w "NEEDLE_ONE(_PG)?"
-P -n "(?<=pre )XYZZY"
-P -c "lazy\s+dog"
EOF

# -p and -W.
while read -r args; do
	test_expect_success "grep $args" 'cd r && eval "compare grep $args"'
done <<\EOF
-p target -- "*.c"
-n -p target -- sub
-W target -- sub/f.c
-W -n int -- sub/f.c
-p -i TARGET -- "*.c"
-p -w helper
-p -C1 target -- sub
EOF

# --all-match across files: the hits of one file never count for the next.
for th in 1 2; do
	while read -r args; do
		test_expect_success "grep --threads=$th $args" 'cd r && eval "compare grep --threads=$th $args -- sub"'
	done <<-\EOF
	--all-match -e alpha -e beta
	--all-match -e beta -e alpha
	--all-match -e alpha --or -e beta
	--all-match -l -e alpha -e beta
	--all-match -c -e alpha -e beta
	--all-match -e alpha -e beta -e gamma
	--all-match -e alpha --and -e beta
	-e alpha --and --not -e beta
	--all-match -L -e alpha -e beta
	EOF
done

test_expect_success 'reading files changed since they were added' '
	cd r && compare grep -n NEEDLE &&
	compare grep -c -i needle && compare grep --threads=1 -c NEEDLE &&
	compare grep -l -e NEEDLE -e needle
'

test_done
