#!/bin/sh
# Date parsing against git's own (git var GIT_AUTHOR_IDENT with GIT_AUTHOR_DATE).
. "$(dirname "$0")/lib.sh"

check_date()
{
	g_rc=0; f_rc=0
	GIT_AUTHOR_DATE="$1" git var GIT_AUTHOR_IDENT >"$CMP/g" 2>/dev/null || g_rc=$?
	"$FGIT_TOOLS/dateparse" "$1" >"$CMP/f" 2>/dev/null || f_rc=$?
	if [ $g_rc != 0 ] || [ $f_rc != 0 ]; then
		[ $g_rc != 0 ] && [ $f_rc != 0 ] && return 0
		echo "'$1': git exit $g_rc, fgit exit $f_rc"; return 1
	fi
	g=$(sed "s/.*> //" "$CMP/g"); f=$(cat "$CMP/f")
	[ "$g" = "$f" ] || { echo "'$1': git '$g' fgit '$f'"; return 1; }
}

dates_ok()
{
	while read -r d; do
		check_date "$d" || return 1
	done <<-EOF
	1112911993 -0700
	@1112911993
	@1112911993 +0130
	2005-04-07T22:13:13
	2005-04-07 22:13:13 +0200
	2005-04-07 22:13:13 -02:30
	Thu, 07 Apr 2005 22:13:13 +0200
	Thu Apr 7 22:13:13 2005 -0700
	Apr 7 2005 10:00 UTC
	2005.04.07 10:00
	2005-04-07T22:13:13Z
	2005-04-07 22:13:13 EST
	12:30 2010-01-01
	2038-01-19 03:14:08 +0000
	1999-12-31 23:59:59 +1400
	2005-04-07
	garbage
	EOF
}

test_expect_success 'dates parse as git parses them (UTC)' '
	TZ=UTC dates_ok
'

test_expect_success 'dates parse as git parses them (a zone with DST)' '
	TZ=America/New_York dates_ok && TZ=Europe/Berlin dates_ok
'

test_done
