#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages (debian/): what they install, their conffiles and maintainer scripts,
# and what pam-auth-update does with the profile, on a copied tree (never the host's).
#
# Uses libpam-rdmalimit_*.deb and rdmalimits_*.deb from $PKG_DEB_DIR (default
# tests/pkg/debs in the build directory).  With PKG_BUILD=1 (the default under CI=true) it
# first builds them there with dpkg-buildpackage -b from a copy of the source tree.
# Skips when the tools are missing (dpkg-dev, debhelper) or no packages were built; fails
# instead under CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

DEB_DIR=${PKG_DEB_DIR:-$top_builddir/tests/pkg/debs}
BUILD=${PKG_BUILD:-}
[ "${CI:-}" = true ] && BUILD=${PKG_BUILD:-1}

command -v dpkg-deb >/dev/null 2>&1 || skip_all "dpkg-deb is missing (not a Debian system)"
ARCH=$(dpkg --print-architecture)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null)

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
no_plan

# --- build the packages from a copy of the source tree
if [ "$BUILD" = 1 ]; then
	if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
		skip_all "dpkg-buildpackage or dh is missing (Debian: apt-get install dpkg-dev debhelper)"
	fi
	[ -f "$top_srcdir/debian/control" ] || skip_all "no debian/ in $top_srcdir"
	S=$T/src/rdmalimit
	mkdir -p "$S"
	if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# tracked and new files, not what .gitignore names (build directories, generated files)
		(cd "$top_srcdir" && git ls-files -co --exclude-standard -z |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$S"
	else
		(cd "$top_srcdir" && tar --exclude='./_build*' --exclude=./autom4te.cache -cf - .) | tar -xf - -C "$S"
	fi
	# a build inside `make check`: the outer make's job server and flags stay outside
	(cd "$S" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-nocheck} parallel=$(nproc 2>/dev/null || echo 2)" \
		dpkg-buildpackage -b -us -uc) > "$T/build.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "dpkg-buildpackage -b -us -uc (exit $rc)"
		tail -40 "$T/build.log" | sed 's/^/# /'
		done_testing
	fi
	ok "dpkg-buildpackage -b -us -uc"
	mkdir -p "$DEB_DIR"
	rm -f "$DEB_DIR"/*.deb
	mv "$T"/src/*.deb "$DEB_DIR"/
fi

LIB=$(ls -t "$DEB_DIR"/libpam-rdmalimit_*_"$ARCH".deb 2>/dev/null | head -1)
TOOL=$(ls -t "$DEB_DIR"/rdmalimits_*_"$ARCH".deb 2>/dev/null | head -1)
if [ -z "$LIB" ] || [ -z "$TOOL" ]; then
	skip_all "no packages in $DEB_DIR (build them with PKG_BUILD=1, or set PKG_DEB_DIR)"
fi
diag "packages: $LIB $TOOL"

# --- contents
X=$T/x
mkdir -p "$X" "$T/ctl-lib" "$T/ctl-tool"
dpkg-deb -x "$LIB" "$X" && dpkg-deb -x "$TOOL" "$X"
dpkg-deb -e "$LIB" "$T/ctl-lib" && dpkg-deb -e "$TOOL" "$T/ctl-tool"
files() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^/usr/share/doc' | grep -v '^$' | sort; }

files "$LIB" > "$T/lib.files"
check "module in the multiarch security directory" grep -qx "/lib/$MA/security/pam_rdmalimit.so" "$T/lib.files"
check "the module is a shared object" sh -c "file -L '$X/lib/$MA/security/pam_rdmalimit.so' 2>/dev/null | grep -q 'shared object' || od -An -c -N4 '$X/lib/$MA/security/pam_rdmalimit.so' | grep -q 'E   L   F'"
if command -v nm >/dev/null; then
	check "the module exports only pam_sm_*" test -z "$(nm -D --defined-only "$X/lib/$MA/security/pam_rdmalimit.so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | grep -v '^pam_sm_')"
fi
check "no libtool .la file" test -z "$(grep '\.la$' "$T/lib.files")"
check "policy /etc/security/rdmalimit.conf" cmp -s "$X/etc/security/rdmalimit.conf" "$top_srcdir/conf/rdmalimit.conf"
check "policy is a conffile" grep -qx /etc/security/rdmalimit.conf "$T/ctl-lib/conffiles"
check "pam-auth-update profile /usr/share/pam-configs/rdmalimit" \
	cmp -s "$X/usr/share/pam-configs/rdmalimit" "$top_srcdir/conf/pam-configs/rdmalimit"
check "profile: Default: no" grep -qx "Default: no" "$X/usr/share/pam-configs/rdmalimit"
check "profile: optional pam_rdmalimit.so in the session block" \
	grep -qP '^\toptional\tpam_rdmalimit\.so$' "$X/usr/share/pam-configs/rdmalimit"
check "man page pam_rdmalimit.8" test -s "$X/usr/share/man/man8/pam_rdmalimit.8.gz"
check "man page rdmalimit.conf.5" test -s "$X/usr/share/man/man5/rdmalimit.conf.5.gz"
check "pam_rdmalimit.8 names the packaged module path (without the triplet)" \
	sh -c "zcat '$X/usr/share/man/man8/pam_rdmalimit.8.gz' | grep -q '/lib/<triplet>/security/pam_rdmalimit'"
# Multi-Arch: same: every file outside the multiarch directory is the same on every architecture
if [ "$(dpkg-deb -f "$LIB" Multi-Arch)" = same ]; then
	archdep=
	while IFS= read -r f; do
		[ -f "$X$f" ] || continue
		case $f in /lib/"$MA"/*) continue ;; esac
		case $f in *.gz) c=$(zcat "$X$f") ;; *) c=$(cat "$X$f") ;; esac
		grep -q -F -e "$MA" -e "$ARCH" <<<"$c" && archdep="$archdep $f"
	done < "$T/lib.files"
	check "Multi-Arch: same: no file outside /lib/$MA names $MA or $ARCH${archdep:+ (they do:$archdep)}" test -z "$archdep"
fi
check "libpam-rdmalimit depends on libpam-runtime (pam-auth-update)" \
	sh -c "dpkg-deb -f '$LIB' Depends | grep -q libpam-runtime"
check "libpam-rdmalimit does not depend on libconfig9 (the policy is read without it)" \
	sh -c "! dpkg-deb -f '$LIB' Depends | grep -q libconfig"
check "the module package neither depends on nor suggests libibverbs (the module never loads it)" \
	sh -c "! dpkg-deb -f '$LIB' Depends Recommends Suggests | grep -q libibverbs"

files "$TOOL" > "$T/tool.files"
check "tool /usr/sbin/rdmalimits" test -x "$X/usr/sbin/rdmalimits"
check "rdmalimits recommends libibverbs1 (probe reads ibverbs port attributes)" \
	sh -c "dpkg-deb -f '$TOOL' Recommends | grep -q libibverbs1"
check "man page rdmalimits.8" test -s "$X/usr/share/man/man8/rdmalimits.8.gz"
check "bash completion" cmp -s "$X/usr/share/bash-completion/completions/rdmalimits" \
	"$top_srcdir/contrib/bash-completion/rdmalimits"
check "no conffiles in rdmalimits" test ! -s "$T/ctl-tool/conffiles"
check "systemd units rdmalimit-cache.service and .path" \
	test -s "$X/lib/systemd/system/rdmalimit-cache.service" -a -s "$X/lib/systemd/system/rdmalimit-cache.path"
check "the service runs the packaged tool" \
	grep -qx 'ExecStart=/usr/sbin/rdmalimits probe --save' "$X/lib/systemd/system/rdmalimit-cache.service"
check "the units are enabled on installation (dh_installsystemd)" \
	grep -q 'deb-systemd-helper.*rdmalimit-cache' "$T/ctl-tool/postinst"
check "rdmalimits does not depend on libconfig9" \
	sh -c "! dpkg-deb -f '$TOOL' Depends | grep -q libconfig"
ver=$(dpkg-deb -f "$TOOL" Version)
got=$("$X/usr/sbin/rdmalimits" --version 2>&1)
check "packaged tool runs, version $ver matches configure's ($got)" test "$got" = "rdmalimits ${ver%-*}"
check "packaged tool reads the packaged policy path" \
	sh -c "'$X/usr/sbin/rdmalimits' --help | grep -q '(default /etc/security/rdmalimit.conf)'"

# --- the Slurm plugin's package (built when Slurm's headers are there: libslurm-dev)
SPANK=$(ls -t "$DEB_DIR"/slurm-spank-rdmalimit_*_"$ARCH".deb 2>/dev/null | head -1)
if [ -z "$SPANK" ]; then
	if [ -f /usr/include/slurm/spank.h ]; then
		fail "no slurm-spank-rdmalimit package although slurm/spank.h is installed"
	else
		skip "no slurm/spank.h (libslurm-dev): no slurm-spank-rdmalimit package"
	fi
else
	S=$T/s
	mkdir -p "$S"
	dpkg-deb -x "$SPANK" "$S"
	files "$SPANK" > "$T/spank.files"
	check "the plugin where Debian's slurmd loads plugins" grep -qx "/usr/lib/$MA/slurm-wlm/spank_rdmalimit.so" "$T/spank.files"
	check "the plugin exports only the SPANK hooks and version symbols" test -z "$(nm -D --defined-only "$S/usr/lib/$MA/slurm-wlm/spank_rdmalimit.so" |
		awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | grep -Ev '^(slurm_spank_(init|task_init|task_init_privileged)|plugin_(name|type|version)|spank_plugin_version)$')"
	check "man page spank_rdmalimit.8 names the plugin's path" \
		sh -c "zcat '$S/usr/share/man/man8/spank_rdmalimit.8.gz' | grep -q '/usr/lib/$MA/slurm-wlm/spank_rdmalimit'"
	check "slurm-spank-rdmalimit depends on the slurmd release it was built for" \
		sh -c "dpkg-deb -f '$SPANK' Depends | grep -q 'slurmd (>= [0-9][0-9]\.[0-9][0-9])'"
	check "slurm-spank-rdmalimit depends on libpam-rdmalimit (the policy file)" \
		sh -c "dpkg-deb -f '$SPANK' Depends | grep -q 'libpam-rdmalimit (= '"
	dpkg-deb -e "$SPANK" "$T/ctl-spank"
	check "slurm-spank-rdmalimit's prerm refuses a removal under a required plugstack.conf line" \
		grep -q 'rdmalimit_spank_lines' "$T/ctl-spank/prerm"
	check "no other file in the plugin's package than the plugin and its man page" \
		test -z "$(grep -v -e '^/usr/lib/'"$MA"'/slurm-wlm' -e '^/usr/share/man' -e '^/usr/lib$' -e '^/usr$' -e '^/usr/share$' -e '^/usr/lib/'"$MA"'$' "$T/spank.files")"
fi

# --- maintainer scripts: never enable the profile, take it out on removal
check "postinst does not enable the profile" sh -c "! grep -v '^[[:space:]]*#' '$T/ctl-lib/postinst' | grep -q -- '--enable'"
check "postinst refreshes with pam-auth-update --package" grep -q '^[[:space:]]*pam-auth-update --package$' "$T/ctl-lib/postinst"
check "prerm removes the profile on remove" grep -q 'pam-auth-update --package --remove rdmalimit' "$T/ctl-lib/prerm"
check "prerm refuses a removal under a line that would fail every session (tests/pkg/test-removal.sh)" \
	grep -q 'rdmalimit_refuse libpam-rdmalimit' "$T/ctl-lib/prerm"

# --- pam-auth-update on a copied tree, with a private debconf database
# TR: the host's PAM service files and profiles, common-* regenerated from the profiles
# (--force: pristine whatever the host's local changes), then our profile as dpkg would add it.
if ! command -v pam-auth-update >/dev/null 2>&1; then
	skip "pam-auth-update is missing (libpam-runtime)"
	done_testing
fi
TR=$T/tree
mkdir -p "$TR/etc" "$TR/var/lib/pam" "$TR/usr/share/pam-configs" "$T/debconf"
cp -r /etc/pam.d "$TR/etc/"
for p in /usr/share/pam-configs/*; do
	[ "${p##*/}" = rdmalimit ] || cp "$p" "$TR/usr/share/pam-configs/"
done
cat > "$T/debconf/debconf.conf" <<E
Config: configdb
Templates: templatedb

Name: configdb
Driver: File
Mode: 644
Filename: $T/debconf/config.dat

Name: templatedb
Driver: File
Mode: 644
Filename: $T/debconf/templates.dat
E
host_state() { cat /etc/pam.d/common-* /var/lib/pam/* /var/cache/debconf/*.dat 2>/dev/null | md5sum; }
host_before=$(host_state)

# pau ARGS: pam-auth-update --root TR ARGS.  As root, inside a private mount namespace where
# the host's PAM and debconf state is read-only; as another user it cannot write there anyway.
pau() {
	local env=(env DEBCONF_SYSTEMRC="$T/debconf/debconf.conf" DEBIAN_FRONTEND=noninteractive
		DEBCONF_NOWARNINGS=yes)
	if [ "$(id -u)" = 0 ]; then
		unshare --mount --propagation private sh -c '
			for d in /etc/pam.d /var/lib/pam /var/cache/debconf /usr/share/pam-configs; do
				[ -d "$d" ] || continue
				mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 99
			done
			exec "$@"' sh "${env[@]}" pam-auth-update --root "$TR" "$@"
	else
		"${env[@]}" pam-auth-update --root "$TR" "$@"
	fi
}
if [ "$(id -u)" = 0 ] && ! unshare --mount --propagation private true 2>/dev/null; then
	skip_ci "pam-auth-update: no private mount namespace for root (unshare --mount)"
	done_testing
fi
session() { grep -v '^#' "$TR/etc/pam.d/common-$1" | grep -v '^$'; }
# the order of the session modules of common-session (module names, one a line)
modules() { session "$1" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /\.so$/) { print $i; break } }' | tr '\n' ' '; }

check "pam-auth-update --force builds the tree's common-* from the host's profiles" pau --force
cp "$TR/etc/pam.d/common-session" "$T/cs.base"
cp "$TR/etc/pam.d/common-session-noninteractive" "$T/csn.base"
diag "common-session before: $(modules session)"

cp "$X/usr/share/pam-configs/rdmalimit" "$TR/usr/share/pam-configs/"
check "postinst's pam-auth-update --package succeeds" pau --package
check "installing does not enable the module (common-session)" cmp -s "$T/cs.base" "$TR/etc/pam.d/common-session"
check "installing does not enable the module (noninteractive)" cmp -s "$T/csn.base" "$TR/etc/pam.d/common-session-noninteractive"

check "pam-auth-update --enable rdmalimit succeeds" pau --enable rdmalimit
diag "common-session after --enable: $(modules session)"
check "enabled: common-session runs 'session optional pam_rdmalimit.so'" \
	sh -c "grep -qP '^session\toptional\tpam_rdmalimit\.so\s*$' '$TR/etc/pam.d/common-session'"
check "enabled: common-session-noninteractive too (cron, sudo, systemd-user)" \
	grep -q pam_rdmalimit.so "$TR/etc/pam.d/common-session-noninteractive"
check "enabled: only the module's line was added" \
	test "$(diff "$T/cs.base" "$TR/etc/pam.d/common-session" | grep -c '^[<>]')" = 1
# before A B: module A comes before module B in common-session
before() {
	local m rest
	m=" $(modules session) "
	[[ $m == *" $1 "* ]] || return 1
	rest=${m#*" $1 "}
	[[ " $rest" == *" $2 "* ]]
}
if grep -q 'pam_unix.so' "$T/cs.base"; then
	check "enabled: after pam_unix" before pam_unix.so pam_rdmalimit.so
fi
if grep -q 'pam_systemd.so' "$T/cs.base"; then
	check "enabled: after pam_systemd" before pam_systemd.so pam_rdmalimit.so
fi
check "enabled: the module line is inside the managed block" \
	sh -c "sed -n '/^# and here are more per-package modules/,/^# end of pam-auth-update config/p' '$TR/etc/pam.d/common-session' | grep -q pam_rdmalimit.so"
cp "$TR/etc/pam.d/common-session" "$T/cs.on"
pau --enable rdmalimit
check "a second --enable changes nothing" cmp -s "$T/cs.on" "$TR/etc/pam.d/common-session"

check "prerm's pam-auth-update --package --remove rdmalimit succeeds" pau --package --remove rdmalimit
check "removed: common-session as before" cmp -s "$T/cs.base" "$TR/etc/pam.d/common-session"
check "removed: common-session-noninteractive as before" cmp -s "$T/csn.base" "$TR/etc/pam.d/common-session-noninteractive"
check "the host's /etc/pam.d/common-*, /var/lib/pam and debconf are untouched" test "$(host_state)" = "$host_before"

# where pam_limits runs relative to common-session in the host's service files (information)
for f in "$TR"/etc/pam.d/* /usr/lib/pam.d/*; do
	[ -f "$f" ] || continue
	l=$(grep -n '^[^#]*pam_limits\.so' "$f" | head -1 | cut -d: -f1)
	c=$(grep -n '^[^#]*common-session' "$f" | head -1 | cut -d: -f1)
	[ -n "$l" ] || [ -n "$c" ] || continue
	if [ -z "$c" ]; then
		diag "${f##*/}: pam_limits, no common-session"
	elif [ -z "$l" ]; then
		diag "${f##*/}: common-session, no pam_limits"
	elif [ "$l" -lt "$c" ]; then
		diag "${f##*/}: pam_limits before common-session (pam_rdmalimit wins)"
	else
		diag "${f##*/}: pam_limits AFTER common-session (pam_limits overrides pam_rdmalimit)"
	fi
done

done_testing
