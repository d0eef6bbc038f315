#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# oracles.sh DIR PAM_SESSION_SRC...: fetch and build the real pam_limits modules the differential
# test compares `rdmalimits` with, into DIR (cached: a second run does nothing).
#
#   DIR/debian-1.4.0/pam_limits.so      Debian 11's libpam-modules (bullseye, from the archive)
#   DIR/debian-1.7.0/...                Debian 13's libpam-modules with trixie's own libpam,
#                                       libc and libsystemd, run through trixie's ld.so
#   DIR/upstream-1.4.0/pam_limits.so    pam_limits.c of the upstream tarball inside Debian's
#   DIR/upstream-1.5.2/pam_limits.so    source package (bullseye, bookworm, trixie), patches
#   DIR/upstream-1.7.0/pam_limits.so    not applied, compiled against its own headers
#   DIR/upstream-1.7.0-vendor/...       the same with a vendor directory (DIR/vendor/security)
#
# apt runs with a private configuration under DIR/apt (its own sources.list, lists and cache);
# the host's apt configuration is never touched.  The mirror is the host's own (read from
# /etc/apt/sources.list.d and /etc/apt/sources.list), or deb.debian.org.
# Prints one line per oracle: NAME OK|FAIL reason.  Exit 0 when every oracle is ready.
set -u
DIR=$1
SRC=("${@:2}")      # tests/diff/pam-session.c tests/diff/service-limits.c
mkdir -p "$DIR" || exit 1
DIR=$(cd "$DIR" && pwd)
LOG=$DIR/log
: >>"$LOG"

mirror() {
	local m
	m=$(grep -h -o -E 'https?://[^ ]*debian[^ ]*' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list 2>/dev/null | grep -v -- '-security' | grep -E '/debian/?$' | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

# apt_private SUITE: a private apt configuration for SUITE (deb and deb-src)
apt_private() {
	local suite=$1 a=$DIR/apt/$1
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc" || return 1
	if [ ! -f "$a/etc/sources.list" ]; then
		printf 'deb %s %s main\ndeb-src %s %s main\n' "$(mirror)" "$suite" "$(mirror)" "$suite" >"$a/etc/sources.list"
	fi
	APT_OPTS=(-o "Dir::Etc::SourceList=$a/etc/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o "Dir::State::status=/dev/null"
		-o "APT::Architecture=amd64" -o "APT::Architectures::=amd64" -o "Debug::NoLocking=1"
		-o "Acquire::Languages=none" -o "APT::Get::Only-Source=true")
	if [ ! -f "$a/updated" ]; then
		apt-get "${APT_OPTS[@]}" update >>"$LOG" 2>&1 || return 1
		touch "$a/updated"
	fi
}

# download SUITE DEST PKG...: binary packages of SUITE extracted into DEST
download() {
	local suite=$1 dest=$2
	shift 2
	[ -f "$dest/.done" ] && return 0
	apt_private "$suite" || return 1
	mkdir -p "$dest/debs" || return 1
	(cd "$dest/debs" && apt-get "${APT_OPTS[@]}" download "$@") >>"$LOG" 2>&1 || return 1
	for d in "$dest"/debs/*.deb; do
		dpkg-deb -x "$d" "$dest/root" || return 1
	done
	touch "$dest/.done"
}

# source SUITE DEST: the upstream tarball of Debian's pam source package, unpacked in DEST/src
source_pkg() {
	local suite=$1 dest=$2 tb
	[ -d "$dest/src/modules/pam_limits" ] && return 0
	apt_private "$suite" || return 1
	mkdir -p "$dest/dl" || return 1
	# the .orig tarball is all that is used: a missing .dsc or Debian tarball does not matter
	(cd "$dest/dl" && apt-get "${APT_OPTS[@]}" source --download-only pam) >>"$LOG" 2>&1
	tb=$(ls "$dest"/dl/pam_*.orig.tar.* 2>/dev/null | head -n 1)
	[ -n "$tb" ] || return 1
	rm -rf "$dest/src" && mkdir -p "$dest/src" || return 1
	tar -xf "$tb" -C "$dest/src" --strip-components=1 >>"$LOG" 2>&1 || return 1
	[ -d "$dest/src/modules/pam_limits" ]
}

# build DEST VERSION [VENDOR_DIR]: compile the tarball's pam_limits.c alone
build_upstream() {
	local dest=$1 version=$2 vendor=${3:-} s=$1/src inc
	[ -f "$dest/pam_limits.so" ] && return 0
	mkdir -p "$dest/gen" || return 1
	cat >"$dest/gen/config.h" <<-EOF
		#define _GNU_SOURCE 1
		#define PACKAGE "Linux-PAM"
		#define VERSION "$version"
		#define HAVE_GETLINE 1
		#define HAVE_GETDELIM 1
		#define HAVE_UNISTD_H 1
		#define HAVE_STRING_H 1
		#define HAVE_EXPLICIT_BZERO 1
		#define HAVE_GETDOMAINNAME 1
		#define HAVE_GETUTENT_R 1
		#define HAVE_LIBAUDIT_H 0
		#define PAM_PATH_MAX 4096
		#define UNUSED __attribute__ ((unused))
		#define _(msgid) (msgid)
		#define SCONFIGDIR "/etc/security"
		#define SCONFIG_DIR "/etc/security"
		$( [ -n "$vendor" ] && printf '#define VENDOR_SCONFIGDIR "%s"\n#define VENDOR_SCONFIG_DIR "%s"\n' "$vendor" "$vendor")
	EOF
	inc=(-I"$dest/gen" -I"$s/libpam/include" -I"$s/libpam" -I"$s/libpamc/include" -I"$s")
	[ -d "$s/libpam_internal/include" ] && inc+=(-I"$s/libpam_internal/include")
	# autotools builds pass the glob, meson builds (1.6 on) the directory
	local glob='/etc/security/limits.d/*.conf'
	grep -q 'LIMITS_FILE_DIR "/\*.conf"' "$s/modules/pam_limits/pam_limits.c" && glob=/etc/security/limits.d
	gcc -O1 -fPIC -shared -DHAVE_CONFIG_H -include "$dest/gen/config.h" "${inc[@]}" \
		-DLIMITS_FILE_DIR=\"$glob\" -DLIMITS_FILE=\"/etc/security/limits.conf\" \
		-o "$dest/pam_limits.so" "$s/modules/pam_limits/pam_limits.c" -lpam >>"$LOG" 2>&1
}

status=0
ok() { echo "$1 OK${2:+ $2}"; }
bad() { echo "$1 FAIL $2 (log: $LOG)"; status=1; }

# Debian 11: its module runs with this system's libpam and libc (both newer, compatible)
if download bullseye "$DIR/debian-1.4.0" libpam-modules; then
	m=$(find "$DIR/debian-1.4.0/root" -name pam_limits.so | head -n 1)
	if [ -n "$m" ]; then ln -sf "$m" "$DIR/debian-1.4.0/pam_limits.so"; ok debian-1.4.0; else bad debian-1.4.0 "no pam_limits.so in the package"; fi
else
	bad debian-1.4.0 "apt-get download (bullseye) failed"
fi

# Debian 13: its module with trixie's libpam, libc and what pam_limits.so links
T=$DIR/debian-1.7.0
if download trixie "$T" libpam-modules libpam0g libc6 libsystemd0 libcap2 libaudit1 libcap-ng0 \
	libselinux1 libpcre2-8-0 libeconf0 libdb5.3t64 libcrypt1 liblz4-1 liblzma5 libzstd1 libgcrypt20 libgpg-error0 libtirpc3t64 \
	libnsl2 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libcom-err2 libkrb5support0 libkeyutils1 libssl3t64; then
	m=$(find "$T/root" -name pam_limits.so | head -n 1)
	if [ -z "$m" ]; then
		bad debian-1.7.0 "no pam_limits.so in the package"
	else
		ln -sf "$m" "$T/pam_limits.so"
		# a driver of our own, run through trixie's ld.so with trixie's libraries only
		if [ ! -x "$T/pam-session" ]; then
			mkdir -p "$T/gen" && : >"$T/gen/config.h"
			gcc -O1 -I"$T/gen" -o "$T/pam-session" "${SRC[@]}" -lpam >>"$LOG" 2>&1
		fi
		{
			echo '#!/bin/sh'
			echo "exec \"$T/root/usr/lib64/ld-linux-x86-64.so.2\" --library-path \"$T/root/usr/lib/x86_64-linux-gnu\" \"$T/pam-session\" \"\$@\""
		} >"$T/run" && chmod +x "$T/run"
		if [ -x "$T/pam-session" ] && [ -e "$T/root/usr/lib64/ld-linux-x86-64.so.2" ]; then ok debian-1.7.0; else bad debian-1.7.0 "driver or ld.so missing"; fi
	fi
else
	bad debian-1.7.0 "apt-get download (trixie) failed"
fi

# vanilla upstream from the .orig tarballs
for pair in bullseye:1.4.0 bookworm:1.5.2 trixie:1.7.0; do
	suite=${pair%%:*} v=${pair#*:}
	d=$DIR/upstream-$v
	if source_pkg "$suite" "$d" && build_upstream "$d" "$v"; then ok "upstream-$v"; else bad "upstream-$v" "source or build failed"; fi
done
d=$DIR/upstream-1.7.0-vendor
mkdir -p "$DIR/vendor/security"
if [ -d "$DIR/upstream-1.7.0/src" ] && { [ -d "$d/src" ] || { mkdir -p "$d" && ln -sfn "$DIR/upstream-1.7.0/src" "$d/src"; }; } &&
	build_upstream "$d" 1.7.0 "$DIR/vendor/security"; then
	ok upstream-1.7.0-vendor "$DIR/vendor/security"
else
	bad upstream-1.7.0-vendor "build failed"
fi
exit $status
