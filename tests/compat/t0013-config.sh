#!/bin/sh
# Config reading as commands see it: the file stack, includes, includeIf,
# -c, GIT_CONFIG_COUNT, value syntax, and bad config files.  Observed through
# core.abbrev (rev-parse --short), core.bare and init.defaultBranch.
. "$(dirname "$0")/lib.sh"

git init -q repo && (cd repo && git commit -q --allow-empty -m one) || exit 1

short() { compare rev-parse --short HEAD; }

test_expect_success 'repository config' '
	(cd repo && git config core.abbrev 12 && short && git config --unset core.abbrev)'
test_expect_success 'global config, XDG config, GIT_CONFIG_GLOBAL, system config' '
	(cd repo &&
	 git config --global core.abbrev 9 && short && git config --global --unset core.abbrev &&
	 mkdir -p "$XDG_CONFIG_HOME/git" && printf "[core]\n\tabbrev = 11\n" >"$XDG_CONFIG_HOME/git/config" &&
	 short && rm "$XDG_CONFIG_HOME/git/config" &&
	 printf "[core]\n\tabbrev = 13\n" >"$TRASH/other" &&
	 GIT_CONFIG_GLOBAL="$TRASH/other" && export GIT_CONFIG_GLOBAL && short &&
	 GIT_CONFIG_GLOBAL="$TRASH/home/.gitconfig" &&
	 printf "[core]\n\tabbrev = 14\n" >"$TRASH/system" &&
	 GIT_CONFIG_SYSTEM="$TRASH/system" GIT_CONFIG_NOSYSTEM= && export GIT_CONFIG_SYSTEM &&
	 unset GIT_CONFIG_NOSYSTEM && short && git config core.abbrev 8 && short &&
	 git config --unset core.abbrev)'
test_expect_success '-c and GIT_CONFIG_COUNT, and their order' '
	(cd repo && compare -c core.abbrev=15 rev-parse --short HEAD &&
	 compare -c core.abbrev=15 -c core.abbrev=16 rev-parse --short HEAD &&
	 GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.abbrev GIT_CONFIG_VALUE_0=17 &&
	 export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 && short &&
	 compare -c core.abbrev=18 rev-parse --short HEAD &&
	 GIT_CONFIG_COUNT=2 && compare_fail rev-parse --short HEAD)'
test_expect_success 'include.path, relative and ~/, nested, missing' '
	(cd repo && mkdir -p inc &&
	 printf "[core]\n\tabbrev = 19\n" >inc/one &&
	 printf "[include]\n\tpath = one\n" >inc/two &&
	 git config include.path ../inc/two && short &&
	 printf "[core]\n\tabbrev = 20\n" >"$HOME/inc3" && git config --add include.path "~/inc3" && short &&
	 git config --add include.path nowhere && short &&
	 git config --unset-all include.path && cp .git/config "$TRASH/saved" &&
	 printf "[include]\n\tpath = loop\n" >.git/loop && printf "[include]\n\tpath = loop\n" >>.git/config &&
	 compare_fail rev-parse --short HEAD; rc=$?; cp "$TRASH/saved" .git/config; [ $rc = 0 ])'
test_expect_success 'includeIf gitdir:, gitdir/i:, onbranch:' '
	(cd repo && printf "[core]\n\tabbrev = 21\n" >"$TRASH/if" &&
	 git config --global "includeIf.gitdir:$TRASH/repo/.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir:$TRASH/repo/" &&
	 git config --global "includeIf.gitdir:repo/.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir:repo/" &&
	 git config --global "includeIf.gitdir:REPO/.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir:REPO/" &&
	 git config --global "includeIf.gitdir/i:REPO/.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir/i:REPO/" &&
	 git config --global "includeIf.gitdir:$TRASH/r*/.git.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir:$TRASH/r*/.git" &&
	 git config --global "includeIf.gitdir:~/../repo/.path" "$TRASH/if" && short &&
	 git config --global --remove-section "includeIf.gitdir:~/../repo/" &&
	 git config "includeIf.onbranch:main.path" "$TRASH/if" && short &&
	 git config "includeIf.onbranch:ma*.path" "$TRASH/if" && short &&
	 git config --remove-section "includeIf.onbranch:main" &&
	 git config --remove-section "includeIf.onbranch:ma*" &&
	 git config "includeIf.onbranch:other.path" "$TRASH/if" && short &&
	 git config --remove-section "includeIf.onbranch:other" &&
	 git config "includeIf.gitdir:./.path" "$TRASH/if" && short &&
	 git config --remove-section "includeIf.gitdir:./")'
with_lines()
{
	cp "$TRASH/saved" .git/config && printf "$1" >>.git/config
}

test_expect_success 'value syntax: quotes, escapes, continuation, comments, booleans, units' '
	(cd repo && cp .git/config "$TRASH/saved" &&
	 with_lines "[core]\n\tabbrev = \"1\"\\\\\n2 ; comment\n" && short &&
	 with_lines "[core]\n\tbare = yes\n" && compare rev-parse --is-bare-repository &&
	 with_lines "[core]\n\tbare = off\n" && compare rev-parse --is-bare-repository &&
	 with_lines "[core]\n\tbare = 1\n" && compare rev-parse --is-bare-repository &&
	 with_lines "[core]\n\tbare\n" && compare rev-parse --is-bare-repository &&
	 with_lines "[core]\n\tbare = maybe\n" && compare_fail rev-parse --is-bare-repository &&
	 with_lines "[core]\n\tabbrev = 1k\n" && compare_fail rev-parse --short HEAD &&
	 with_lines "[core]\n\tabbrev = 12x\n" && compare_fail rev-parse --short HEAD &&
	 with_lines "[core]\n\tabbrev = 0x0c\n" && short &&
	 with_lines "[CORE]\n\tABBREV = 10\n[core \"sub\"]\n\tabbrev = 30\n[core.sub]\n\tabbrev=31\n" && short;
	 rc=$?; cp "$TRASH/saved" .git/config; [ $rc = 0 ])'
test_expect_success 'bad config lines: repository, global, included file' '
	(cd repo && cp .git/config "$TRASH/saved" &&
	 printf "[core\n" >>.git/config && compare_err rev-parse --git-dir &&
	 mkdir -p sub && (cd sub && compare_fail rev-parse --git-dir) &&
	 cp "$TRASH/saved" .git/config && printf "[core]\n\tx = \"open\n" >>.git/config &&
	 compare_err rev-parse --git-dir &&
	 cp "$TRASH/saved" .git/config && printf "[s]\n\t1x = 2\n" >>.git/config &&
	 compare_err rev-parse --git-dir &&
	 cp "$TRASH/saved" .git/config && printf "[s]\n\tx = a\\\\qb\n" >>.git/config &&
	 compare_err rev-parse --git-dir &&
	 cp "$TRASH/saved" .git/config &&
	 printf "[oops\n" >"$TRASH/badinc" && git config include.path "$TRASH/badinc" &&
	 compare_err rev-parse --git-dir &&
	 cp "$TRASH/saved" .git/config &&
	 cp "$HOME/.gitconfig" "$TRASH/gsaved" && printf "bad = \"\n" >>"$HOME/.gitconfig" &&
	 compare_err rev-parse --git-dir && compare_err init -q ../newrepo;
	 rc=$?; cp "$TRASH/gsaved" "$HOME/.gitconfig"; [ $rc = 0 ])'
test_expect_success 'a key before any section, CRLF, BOM' '
	(cd repo && cp .git/config "$TRASH/saved" &&
	 printf "abbrev = 1\n" >.git/config && cat "$TRASH/saved" >>.git/config && short &&
	 printf "\357\273\277" >.git/config && sed "s/\$/\r/" "$TRASH/saved" >>.git/config &&
	 printf "\tabbrev = 10\r\n" >>.git/config && short &&
	 cp "$TRASH/saved" .git/config)'

test_done
