#!/bin/sh
# fgit init against git init: output, files, config, and git's acceptance.
. "$(dirname "$0")/lib.sh"

empty() { :; }
existing() { git init -q . && git config foo.bar baz && git config core.filemode false &&
	git config --unset core.logallrefupdates; }
existing_bare() { git init -q --bare . && git config foo.bar baz; }
mktemplate() { mkdir -p "$TRASH/tmpl/hooks" "$TRASH/tmpl/info" &&
	echo hello >"$TRASH/tmpl/description" && echo '*.o' >"$TRASH/tmpl/info/exclude" &&
	printf '#!/bin/sh\n' >"$TRASH/tmpl/hooks/pre-commit" && chmod +x "$TRASH/tmpl/hooks/pre-commit" &&
	echo x >"$TRASH/tmpl/.hidden"; }

# The default template differs only by git's hook samples.
NO_SAMPLES='\.sample$'

test_expect_success 'init in the current directory' '
	compare_write empty init &&
	same_tree "$NO_SAMPLES" && fsck_ok "$TRASH/w" &&
	cmp "$TRASH/w.git/.git/config" "$TRASH/w/.git/config" &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD" &&
	cmp "$TRASH/w.git/.git/description" "$TRASH/w/.git/description" &&
	cmp "$TRASH/w.git/.git/info/exclude" "$TRASH/w/.git/info/exclude"
'

test_expect_success 'init -q, a directory argument, nested' '
	compare_write empty init -q sub/dir/repo &&
	same_tree "$NO_SAMPLES" && fsck_ok "$TRASH/w/sub/dir/repo"
'

test_expect_success 'init --bare' '
	compare_write empty init --bare &&
	same_tree "$NO_SAMPLES" && fsck_ok "$TRASH/w" &&
	cmp "$TRASH/w.git/config" "$TRASH/w/config"
'

test_expect_success 'init --bare dir.git' '
	compare_write empty init --bare dir.git &&
	same_tree "$NO_SAMPLES" && cmp "$TRASH/w.git/dir.git/config" "$TRASH/w/dir.git/config"
'

test_expect_success 'git --bare init' '
	compare_write empty --bare init && same_tree "$NO_SAMPLES"
'

test_expect_success 'init -b and --initial-branch' '
	compare_write empty init -b trunk &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD" &&
	compare_write empty init --initial-branch=feature/x &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD"
'

test_expect_success 'init.defaultBranch from the global config, -c' '
	compare_write empty init &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD" &&
	compare_write empty -c init.defaultBranch=dev init &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD"
'

test_expect_success 'invalid initial branch name' '
	compare_write empty init -b "a..b" &&
	[ "$f_rc" = 128 ]
'

test_expect_success 're-init keeps other settings and rewrites core ones' '
	compare_write existing init &&
	cmp "$TRASH/w.git/.git/config" "$TRASH/w/.git/config" &&
	compare_write existing init -b other &&
	cmp "$TRASH/w.git/.git/HEAD" "$TRASH/w/.git/HEAD" &&
	compare_write existing_bare init --bare &&
	cmp "$TRASH/w.git/config" "$TRASH/w/config"
'

test_expect_success '--template, GIT_TEMPLATE_DIR, init.templateDir, empty template' '
	mktemplate &&
	compare_write empty init --template="$TRASH/tmpl" && same_tree &&
	[ -x "$TRASH/w/.git/hooks/pre-commit" ] &&
	cmp "$TRASH/w.git/.git/description" "$TRASH/w/.git/description" &&
	GIT_TEMPLATE_DIR="$TRASH/tmpl" && export GIT_TEMPLATE_DIR &&
	compare_write empty init && same_tree && unset GIT_TEMPLATE_DIR &&
	compare_write empty -c init.templateDir="$TRASH/tmpl" init && same_tree &&
	compare_write empty init --template= && same_tree &&
	compare_write empty init --template="$TRASH/nowhere" && same_tree
'

test_expect_success 'init with GIT_DIR set' '
	GIT_DIR=custom.git && export GIT_DIR &&
	compare_write empty init && same_tree "$NO_SAMPLES" && unset GIT_DIR
'

test_expect_success 'the repository fgit made is usable by git' '
	rm -rf use && "$FGIT" init -q use && cd use &&
	echo hi >f && git add f && git commit -q -m one && git fsck --strict &&
	[ "$(git rev-parse --abbrev-ref HEAD)" = main ]
'

config_locked() { git init -q . && touch .git/config.lock; }
head_locked() { git init -q . && rm .git/HEAD && touch .git/HEAD.lock; }
test_expect_success 'a held lock: config.lock, HEAD.lock' '
	compare_write config_locked init && [ "$f_rc" = 128 ] &&
	grep -q "^error: could not lock config file $TRASH/w/.git/config: File exists" "$CMP/fgit.err" &&
	compare_write head_locked init && [ "$f_rc" = 1 ] &&
	grep -q "^error: Unable to create .$TRASH/w/.git/HEAD.lock.: File exists." "$CMP/fgit.err" &&
	same_tree "$NO_SAMPLES"
'

test_expect_success 'too many arguments, unknown option' '
	compare init a b && compare init --no-such-option
'

test_done
