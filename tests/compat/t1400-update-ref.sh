#!/bin/sh
# update-ref against git: values, old-value checks, deletion (loose and
# packed), symrefs, reflogs, D/F conflicts, locks, and --stdin transactions.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
. "$HERE/refs-lib.sh"

test_expect_success 'create, update, check old values' '
	both setup_repo "\$X update-ref refs/heads/new HEAD &&
		\$X update-ref -m \"move  it
		along\" refs/heads/new HEAD~1 HEAD &&
		\$X update-ref refs/heads/new2 HEAD \"\" &&
		\$X update-ref refs/tags/t2 v1 &&
		\$X update-ref refs/heads/new HEAD HEAD; echo \$?;
		\$X update-ref refs/heads/new2 HEAD \"\"; echo \$?;
		\$X update-ref refs/heads/nosuch HEAD HEAD; echo \$?"'

test_expect_success 'through HEAD, --no-deref, same value, one-level names' '
	both setup_repo "\$X update-ref -m via HEAD HEAD~1 &&
		\$X update-ref -m same HEAD HEAD &&
		\$X update-ref -m same refs/heads/main main &&
		\$X update-ref refs/heads/main HEAD~1 &&
		\$X update-ref ORIG_HEAD main && \$X update-ref lower main &&
		\$X update-ref --no-deref -m detach HEAD side"'

test_expect_success 'delete: loose, packed, through HEAD, with old values' '
	both setup_packed "\$X update-ref -d refs/heads/side &&
		\$X update-ref -d refs/tags/v1 v1 &&
		\$X update-ref refs/heads/loose HEAD &&
		\$X update-ref -d refs/heads/loose HEAD~1; echo \$?;
		\$X update-ref -d refs/heads/loose HEAD &&
		\$X update-ref -d refs/heads/nosuch && \$X update-ref -d refs/heads/nosuch HEAD; echo \$?;
		\$X update-ref -d refs/tags/light \"\" && \$X update-ref -d refs/tags/vv 0000000000000000000000000000000000000000;
		\$X update-ref -d HEAD"'

test_expect_success 'core.logAllRefUpdates and --create-reflog' '
	both setup_repo "\$X update-ref refs/tags/a HEAD &&
		\$X update-ref --create-reflog refs/tags/b HEAD &&
		\$X update-ref refs/tags/b HEAD~1 &&
		\$X -c core.logAllRefUpdates=always update-ref refs/tags/c HEAD &&
		\$X -c core.logAllRefUpdates=false update-ref refs/heads/d HEAD &&
		\$X -c core.logAllRefUpdates=false update-ref refs/heads/main HEAD~1"'

test_expect_success 'directory/file conflicts' '
	both setup_repo "\$X update-ref refs/heads/main/sub HEAD; echo \$?;
		\$X update-ref refs/heads/d/e/f HEAD &&
		\$X update-ref refs/heads/d HEAD; echo \$?;
		\$X update-ref refs/heads/d/e/f/g HEAD; echo \$?;
		\$X update-ref -d refs/heads/d/e/f && \$X update-ref refs/heads/d HEAD &&
		mkdir -p .git/refs/heads/emptydir/x && \$X update-ref refs/heads/emptydir HEAD"'

test_expect_success 'directory/file conflicts with packed refs' '
	both setup_packed "\$X update-ref refs/tags/v1/x HEAD; echo \$?;
		\$X update-ref refs/remotes HEAD; echo \$?;
		\$X update-ref refs/remotes/origin HEAD; echo \$?"'

test_expect_success 'an existing lock file refuses and changes nothing' '
	both setup_repo ": >.git/refs/heads/main.lock;
		\$X update-ref refs/heads/main HEAD~1; echo \$?;
		\$X update-ref HEAD HEAD~1; echo \$?;
		: >.git/packed-refs.lock; git pack-refs --all 2>/dev/null;
		\$X update-ref -d refs/tags/v1; echo \$?"'

test_expect_success 'bad names and values, usage' '
	both setup_repo "\$X update-ref refs/heads/a..b HEAD; echo \$?;
		\$X update-ref refs/heads/x nosuch; echo \$?;
		\$X update-ref refs/heads/x HEAD nosuch; echo \$?;
		\$X update-ref -d refs/heads/../x; echo \$?;
		\$X update-ref -m \"\" refs/heads/x HEAD; echo \$?;
		\$X update-ref refs/heads/x; echo \$?;
		\$X update-ref -z refs/heads/x HEAD; echo \$?;
		\$X update-ref refs/heads/blob HEAD:a; echo \$?;
		\$X update-ref refs/heads/nx 1234567890123456789012345678901234567890; echo \$?;
		\$X update-ref refs/tags/blob HEAD:a"'

test_expect_success 'symref chains, HEAD and its branch in one transaction' '
	both setup_repo "printf \"update HEAD HEAD~1\nupdate refs/heads/main HEAD~1\n\" | \$X update-ref --stdin;
		printf \"update refs/heads/main HEAD~1\nupdate HEAD HEAD~1\n\" | \$X update-ref --stdin;
		git symbolic-ref refs/heads/sym HEAD && \$X update-ref -m chain refs/heads/sym HEAD~1 &&
		\$X update-ref refs/remotes/origin/HEAD HEAD && \$X update-ref --no-deref -d refs/remotes/origin/HEAD &&
		\$X update-ref --no-deref refs/remotes/origin/HEAD HEAD~1"'

test_expect_success 'broken refs, loose over packed' '
	both setup_packed "echo garbage >.git/refs/heads/broken; \$X update-ref refs/heads/broken HEAD; echo \$?;
		\$X update-ref refs/heads/broken HEAD HEAD; echo \$?; \$X update-ref -d refs/heads/broken; echo \$?;
		\$X update-ref refs/heads/broken/x HEAD; echo \$?; rm -f .git/refs/heads/broken;
		\$X update-ref refs/heads/side HEAD && \$X update-ref -d refs/heads/side &&
		\$X update-ref -d refs/tags/v1 && \$X update-ref refs/tags/v1/x HEAD &&
		printf \"delete refs/heads/main\ncreate refs/heads/main/x HEAD\n\" | \$X update-ref --stdin; echo \$?"'

cat >"$TRASH/stdin1" <<IN
update refs/heads/s1 HEAD
create refs/heads/s2 HEAD~1
update refs/heads/main HEAD~1 HEAD
delete refs/heads/side
verify refs/heads/nosuch
verify refs/tags/v1 v1
option no-deref
update HEAD side
IN
printf 'update refs/heads/z1\000HEAD\000\000create refs/heads/z2\000HEAD~1\000delete refs/heads/side\000\000verify refs/heads/main\000HEAD\000update refs/heads/z3\000\000\000' >"$TRASH/stdin2"
printf 'start\nupdate refs/heads/t1 HEAD\nprepare\ncommit\nstart\ncreate refs/heads/t2 HEAD\nabort\nstart\ndelete refs/heads/t1\ncommit\n' >"$TRASH/stdin3"

test_expect_success '--stdin and -z transactions' '
	both setup_repo "\$X update-ref --stdin <\"$TRASH/stdin1\" &&
		\$X update-ref -z --stdin <\"$TRASH/stdin2\" &&
		\$X update-ref --stdin <\"$TRASH/stdin3\""'

test_expect_success '--stdin errors leave everything as it was' '
	both setup_repo "
	for input in \"update refs/heads/a HEAD\nupdate refs/heads/main HEAD~1 HEAD~1\n\" \
		\"update refs/heads/a HEAD\nupdate refs/heads/a HEAD\n\" \
		\"update HEAD HEAD~1\nupdate refs/heads/main HEAD~1\n\" \
		\"create refs/heads/main HEAD\n\" \"create refs/heads/q 0000000000000000000000000000000000000000\n\" \
		\"delete refs/heads/main 0000000000000000000000000000000000000000\n\" \
		\"update refs/heads/q\n\" \"update refs/heads/q HEAD HEAD HEAD\n\" \"frobnicate x\n\" \
		\" update refs/heads/q HEAD\n\" \"\n\" \"update\n\" \"update \n\" \"verify refs/heads/main HEAD~1\n\" \
		\"update \\\"refs/heads/q\\\" HEAD\n\" \"update \\\"refs/heads/q HEAD\n\" \"update refs/heads/q nosuch\n\" \
		\"option frob\n\" \"start\nstart\n\" \"prepare\nupdate refs/heads/q HEAD\n\" \"commit\nupdate refs/heads/q HEAD\n\" \
		\"start x\n\" \"update refs/heads/q HEAD\" \"update refs/heads/a..b HEAD\n\" \
		\"update refs/heads/q HEAD\nupdate refs/heads/q/r HEAD\n\"; do
		printf \"\$input\" | \$X update-ref --stdin; echo \$?
	done"'

test_expect_success 'update-ref -z errors' '
	both setup_repo "
	for input in \"update refs/heads/q\\0HEAD\\0\" \"update refs/heads/q\\0\\0\\0\" \"create refs/heads/q\\0\" \
		\"delete refs/heads/main\\0HEAD~1\\0\" \"verify refs/heads/main\\0\\0\"; do
		printf \"\$input\" | \$X update-ref -z --stdin; echo \$?
	done"'

test_done
