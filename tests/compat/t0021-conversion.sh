#!/bin/sh
# Content checks and update-index through the to-git conversion: a racily
# clean entry is hashed as `git add` would store it (clean filter, eol),
# and update-index --add stores converted content, against git.
. "$(dirname "$0")/lib.sh"

# The entry's recorded mtime equals the index file's: racy, checked by content.
make_racy()
{
	git update-index --refresh >/dev/null; touch -r "$1" .git/index
}

setup_filter()
{
	git init -q . && git config filter.up.clean "tr a-z A-Z" && echo "*.u filter=up" >.gitattributes &&
	echo hello >x.u && echo plain >p && git add . && git commit -q -m i && echo hello >x.u && make_racy x.u
}
setup_filter_changed()
{
	setup_filter && echo world >x.u && make_racy x.u
}
setup_crlf()
{
	git init -q . && git config core.autocrlf true && printf "a\r\nb\r\n" >f && git add f &&
	git commit -q -m i && printf "a\r\nb\r\n" >f && make_racy f
}
setup_crlf_changed()
{
	setup_crlf && printf "a\r\nc\r\n" >f && make_racy f
}
test_expect_success 'racy entries through a clean filter: status, ls-files -m, diff-files after refresh' '
	for s in setup_filter setup_filter_changed setup_crlf setup_crlf_changed; do
		compare_write $s status --porcelain || return 1
		compare_write $s ls-files -m || return 1
		compare_write $s update-index --refresh || return 1
		(cd "$TRASH/w" && git diff-files --name-only) >"$CMP/f.df" &&
		(cd "$TRASH/w.git" && git diff-files --name-only) >"$CMP/g.df" && cmp "$CMP/g.df" "$CMP/f.df" || return 1
		compare_write $s commit -q -a -m again || return 1
		(cd "$TRASH/w" && git rev-parse HEAD^{tree}) >"$CMP/f.t" &&
		(cd "$TRASH/w.git" && git rev-parse HEAD^{tree}) >"$CMP/g.t" && cmp "$CMP/g.t" "$CMP/f.t" || return 1
	done'

setup_ui()
{
	git init -q . && printf "a\r\nb\r\n" >crlf.txt && printf "x\r\n" >f.u && printf "bin\0\r\n" >b.bin &&
	git config filter.up.clean "tr a-z A-Z" && echo "*.u filter=up" >.git/info/attributes
}
state()
{
	(cd "$1" && git ls-files -s && git count-objects | cut -d" " -f1) >"$2"
}
test_expect_success 'update-index --add and --info-only store converted content' '
	for cfg in "core.autocrlf=true" "core.autocrlf=input" "core.autocrlf=false" "core.eol=crlf"; do
		for opt in "" "--info-only"; do
			compare_write setup_ui -c $cfg update-index --add $opt crlf.txt f.u b.bin || return 1
			state "$TRASH/w.git" "$CMP/g.st" && state "$TRASH/w" "$CMP/f.st" &&
			cmp "$CMP/g.st" "$CMP/f.st" || { diff -u "$CMP/g.st" "$CMP/f.st"; return 1; }
			[ -n "$opt" ] || fsck_ok "$TRASH/w" || return 1
		done
	done'
test_expect_success 'update-index with core.safecrlf=true refuses as git does' '
	compare_write setup_ui -c core.autocrlf=input -c core.safecrlf=true update-index --add crlf.txt &&
	cmp "$CMP/git.err" "$CMP/fgit.err" && state "$TRASH/w.git" "$CMP/g.st" && state "$TRASH/w" "$CMP/f.st" &&
	cmp "$CMP/g.st" "$CMP/f.st" &&
	compare_write setup_ui -c core.autocrlf=input -c core.safecrlf=true update-index --add --info-only crlf.txt'
test_done
