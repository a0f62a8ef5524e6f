#!/bin/sh
# Runs every tests/compat/t*.sh with FGIT pointing at the built binary.
cd "$(dirname "$0")" || exit 1
FGIT=$(cd ../.. && pwd)/fgit
FGIT_TOOLS=$(cd ../.. && pwd)/build/tools
export FGIT_TOOLS
export FGIT
for t in t[0-9]*.sh; do
	[ -f "$t" ] || continue
	sh "$t" 2>&1
done
