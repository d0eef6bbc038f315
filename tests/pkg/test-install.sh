#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installing from source does what a packager expects:
#   - configure's default securedir is the directory this system's libpam loads modules from
#     (where pam_unix.so is; on Debian 12 /lib/x86_64-linux-gnu/security, the directory
#     libpam.so.0 itself names), and --with-securedir overrides it;
#   - `make install DESTDIR=...` installs rdmalimit.conf only where there is none, never
#     overwrites an edited one (the new default goes beside it as rdmalimit.conf.dist), and
#     `make uninstall` keeps an edited one.
# Configures a throwaway build directory of its own (and installs from the one under test).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# --- configure: the default securedir ------------------------------------------------------------
unix=
for d in /lib/*/security /usr/lib/*/security /lib/security /lib64/security /usr/lib/security /usr/lib64/security; do
	[ -f "$d/pam_unix.so" ] && { unix=$d; break; }
done
if [ -z "$unix" ]; then
	skip_all "no pam_unix.so here"
fi
multiarch=$(${CC:-cc} -print-multiarch 2>/dev/null)
expect=
for d in /usr/lib/security ${multiarch:+/lib/$multiarch/security /usr/lib/$multiarch/security} \
	/lib/security /lib64/security /usr/lib/security /usr/lib64/security; do
	[ -f "$d/pam_unix.so" ] && { expect=$d; break; }
done
[ "$expect" = /usr/lib/security ] && expect='${libdir}/security'
diag "pam_unix.so is in $unix; configure should pick $expect"
libpam=$(ldconfig -p 2>/dev/null | awk '/libpam\.so\.0 / { print $NF; exit }')
# libpam's DEFAULT_MODULE_PATH ends with a slash ("/lib/x86_64-linux-gnu/security/")
if [ -n "$libpam" ] && named=$(strings "$libpam" | grep -m1 -E '^/.*/security/$'); then
	named=${named%/}
	check "libpam ($libpam) loads modules from $named, where configure looks first" \
		test "$named" = "$expect" -o "$expect" = '${libdir}/security'
fi

securedir_of() { # configure ARGS...: the securedir the Makefile gets
	local b=$T/b$RANDOM
	mkdir -p "$b"
	(cd "$b" && "$top_srcdir/configure" -q "$@" >"$b/log" 2>&1) || { sed 's/^/# /' "$b/log" | tail -5; return 1; }
	sed -n 's/^securedir = //p' "$b/Makefile"
	rm -rf "$b"
}
got=$(securedir_of --prefix=/usr --sysconfdir=/etc)
check "configure --prefix=/usr: securedir $expect (got $got)" test "$got" = "$expect"
got=$(securedir_of --prefix=/usr/local)
check "configure --prefix=/usr/local: securedir $expect too (a module in /usr/local/lib/security is never loaded)" \
	test "$got" = "$expect"
got=$(securedir_of --prefix=/usr --with-securedir=/opt/pam/security)
check "--with-securedir overrides it (got $got)" test "$got" = /opt/pam/security

# --- make install: an existing configuration file is kept ------------------------------------------
D=$T/dest
inst() { make -s -C "$top_builddir" install DESTDIR="$D" >"$T/install.log" 2>&1; }
if ! inst; then
	fail "make install DESTDIR into an empty tree succeeds"
	sed 's/^/# /' "$T/install.log" | tail -n 20
	done_testing
fi
ok "make install DESTDIR into an empty tree succeeds"
conf=$(find "$D" -name rdmalimit.conf -path '*/security/*' | head -n 1)
check "rdmalimit.conf installed" test -n "$conf" -a -f "$conf"
check "... as the shipped default" cmp -s "$top_srcdir/conf/rdmalimit.conf" "$conf"
check "... and no .dist beside it" test ! -e "$conf.dist"
bsec=$(sed -n 's/^securedir = //p' "$top_builddir/Makefile")
mod=$(find "$D" -name pam_rdmalimit.so | head -n 1)
case $bsec in
/*) check "the module is installed into the build's securedir $bsec" test "$mod" = "$D$bsec/pam_rdmalimit.so" ;;
*) check "the module is installed (securedir $bsec)" test -n "$mod" ;;
esac

printf 'version = 1;\n# edited by the admin\nrules = ( { group = "rdma_users"; memlock = "2G"; } );\n' >"$conf"
edited=$(stat -c '%i %s %Y' "$conf"; md5sum <"$conf")
inst
check "make install over an edited rdmalimit.conf succeeds" test $? -eq 0
check "the edited rdmalimit.conf is kept (same inode, same bytes)" test "$edited" = "$(stat -c '%i %s %Y' "$conf"; md5sum <"$conf")"
check "the new default is installed beside it as rdmalimit.conf.dist" cmp -s "$top_srcdir/conf/rdmalimit.conf" "$conf.dist"
check "make install says so" grep -q 'exists and was edited: kept; the new default is' "$T/install.log"

make -s -C "$top_builddir" uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1
check "make uninstall succeeds" test $? -eq 0
check "make uninstall keeps the edited rdmalimit.conf" test "$edited" = "$(stat -c '%i %s %Y' "$conf"; md5sum <"$conf")"
check "make uninstall removes rdmalimit.conf.dist" test ! -e "$conf.dist"

rm -f "$conf"
inst && cp -p "$conf" "$T/c" && inst
check "make install twice over the shipped default: no .dist" test ! -e "$conf.dist"
make -s -C "$top_builddir" uninstall DESTDIR="$D" >/dev/null 2>&1
check "make uninstall removes an unedited rdmalimit.conf" test ! -e "$conf"

done_testing
