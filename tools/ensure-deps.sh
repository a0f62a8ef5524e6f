#!/bin/sh
# Checks that the Debian development packages fgit links against are present;
# installs the missing ones when run as root, names them otherwise.
need=""
[ -f /usr/include/zlib.h ] || need="$need zlib1g-dev"
[ -f /usr/include/libdeflate.h ] || need="$need libdeflate-dev"
[ -f /usr/include/openssl/sha.h ] || need="$need libssl-dev"
[ -f /usr/include/pcre2.h ] || need="$need libpcre2-dev"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "installing:$need" >&2
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >&2 || exit 1
else
	echo "fgit needs these Debian packages:$need (run 'apt-get install$need' as root)" >&2
	exit 1
fi
