#!/bin/sh
# Global dispatch: unknown commands, unimplemented commands, version.
. "$(dirname "$0")/lib.sh"

test_expect_success 'version matches git' '
	compare version
'

test_expect_success 'unknown command: git wording, exit 1' '
	compare_fail no-such-command &&
	head -1 "$CMP/git.err" >"$CMP/g1" && head -1 "$CMP/fgit.err" >"$CMP/f1" &&
	cmp "$CMP/g1" "$CMP/f1"
'

test_expect_success 'a git command not built yet exits 129 naming it' '
	rc=0; "$FGIT" whatchanged >/dev/null 2>"$CMP/err" || rc=$?
	[ "$rc" = 129 ] && grep -q whatchanged "$CMP/err"
'

test_expect_success 'unknown option of a subcommand: exit 129' '
	compare version --bogus-option
'

test_done
