#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# authselect-fetch.sh DIR: Debian trixie's authselect 1.5.0 (authselect, libauthselect3),
# downloaded and extracted into DIR/root for tests/e2e/test-authselect.sh (cached: a second run
# downloads nothing).  It runs on this system with its libpopt0 (bookworm's).
#
# apt runs with a private configuration under DIR/apt (its own sources.list, lists and cache),
# as tests/diff/oracles.sh does; the host's apt configuration is never touched.  The mirror is
# the host's own (read from /etc/apt/sources.list.d and /etc/apt/sources.list), or
# deb.debian.org.  Prints DIR/root on success; exit 1 (the reason on stderr, the log in
# DIR/log) when it cannot.
set -u
DIR=$1
SUITE=trixie
PKGS=(authselect libauthselect3)
mkdir -p "$DIR" || exit 1
DIR=$(cd "$DIR" && pwd)
LOG=$DIR/log

if [ -f "$DIR/.done" ] && [ -x "$DIR/root/usr/bin/authselect" ]; then
	echo "$DIR/root"
	exit 0
fi

mirror() {
	local m
	m=$(grep -h -o -E 'https?://[^ ]*debian[^ ]*' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list 2>/dev/null | grep -v -- '-security' | grep -E '/debian/?$' | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

a=$DIR/apt
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc" "$DIR/debs" || exit 1
[ -f "$a/etc/sources.list" ] || printf 'deb %s %s main\n' "$(mirror)" "$SUITE" >"$a/etc/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$a/etc/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o "Dir::State::status=/dev/null"
	-o "APT::Architecture=amd64" -o "APT::Architectures::=amd64" -o "Debug::NoLocking=1"
	-o "Acquire::Languages=none")
if [ ! -f "$a/updated" ]; then
	if ! apt-get "${APT_OPTS[@]}" update >>"$LOG" 2>&1; then
		echo "apt-get update ($SUITE) failed (log: $LOG)" >&2
		exit 1
	fi
	touch "$a/updated"
fi
# as _apt cannot write into the build tree, apt downloads there as root (its warning is logged)
if ! (cd "$DIR/debs" && apt-get "${APT_OPTS[@]}" download "${PKGS[@]}") >>"$LOG" 2>&1; then
	echo "apt-get download ${PKGS[*]} ($SUITE) failed (log: $LOG)" >&2
	exit 1
fi
rm -rf "$DIR/root"
for d in "$DIR"/debs/*.deb; do
	dpkg-deb -x "$d" "$DIR/root" || exit 1
done
if [ ! -x "$DIR/root/usr/bin/authselect" ] || [ ! -d "$DIR/root/usr/share/authselect/default/local" ]; then
	echo "no authselect 1.5.0 with the profile 'local' in ${PKGS[*]}" >&2
	exit 1
fi
touch "$DIR/.done"
echo "$DIR/root"
