#!/bin/sh
# gen-history.sh COMMITS FILES [SEED]: print a git fast-import stream of a
# linear history where each commit edits 1-3 of FILES text files (inserting,
# deleting and changing lines), for packs with long delta chains.
awk -v commits="$1" -v files="$2" -v seed="${3:-1}" '
function line(   n) { return sprintf("line %d %x\n", int(rand() * 1000000), int(rand() * 65536)) }
BEGIN {
	srand(seed);
	for (f = 0; f < files; f++) {
		n = 20 + int(rand() * 200);
		body[f] = "";
		for (j = 0; j < n; j++) body[f] = body[f] line();
	}
	t = 1112911993;
	for (c = 1; c <= commits; c++) {
		printf "commit refs/heads/main\nmark :%d\n", c;
		printf "committer C O Mitter <c@example.com> %d +0000\n", t + c * 60;
		msg = sprintf("commit %d\n", c);
		printf "data %d\n%s", length(msg), msg;
		if (c > 1) printf "from :%d\n", c - 1;
		k = (c == 1) ? files : 1 + int(rand() * 3);
		for (e = 0; e < k; e++) {
			f = (c == 1) ? e : int(rand() * files);
			nl = split(body[f], L, "\n"); nl--;
			out = "";
			for (j = 1; j <= nl; j++) {
				r = rand();
				if (r < 0.02) continue;
				if (r < 0.04) { out = out line(); continue; }
				out = out L[j] "\n";
				if (r > 0.98) out = out line();
			}
			body[f] = out;
			printf "M 100644 inline dir%d/file%d.txt\ndata %d\n%s\n", f % 7, f, length(out), out;
		}
	}
}'
