#!/bin/sh
# The line diff's counts against git's own (diff --numstat) on random edits.
. "$(dirname "$0")/lib.sh"

test_expect_success 'diff counts equal git numstat on 40 random edit pairs' '
	mkdir d && cd d &&
	i=0 &&
	while [ $i -lt 40 ]; do
		awk -v s=$i "BEGIN{srand(s); n=int(rand()*300); for(j=0;j<n;j++) print \"l\" int(rand()*20)}" >a.$i &&
		awk -v s=$i "BEGIN{srand(s+1000)} {r=rand(); if (r<0.1) next; print; if (r>0.9) print \"new\" int(rand()*20)}" a.$i >b.$i &&
		i=$((i+1))
	done &&
	i=0 && : >expect && : >actual &&
	while [ $i -lt 40 ]; do
		git diff --no-index --numstat a.$i b.$i | cut -f1,2 >>expect || true
		"$FGIT_TOOLS/diffcount" a.$i b.$i >>actual &&
		i=$((i+1))
	done &&
	diff expect actual
'

test_done
