#!/bin/bash
# `rdmalimits enable` and `disable` with the real authselect (Debian trixie's 1.5.0, the
# release of RHEL 10 and Fedora 40/41) on a Rocky-like /etc, and real su sessions through the
# stacks authselect renders.  In the sandbox of tests/e2e/sandbox.sh (private mount, PID and
# network namespaces): overlays with throwaway upper layers over /etc (authselect writes
# /etc/authselect, /etc/nsswitch.conf, /etc/dconf and links in /etc/pam.d) and /var/lib (its
# backups), authselect's default profiles laid over /usr/share, the sandbox's copies of
# passwd, group, shadow, pam.d and security bound again on top.  pam.d holds a Rocky-like su
# (system-auth and postlogin included) and nothing of Debian's.
#   1. authselect select local with-faillock with-mkhomedir; enable --check names the commands
#      and writes nothing.
#   2. enable runs create-profile, edits the new profile's system-auth and password-auth (the
#      module's line after pam_limits, behind the feature with-rdmalimit), records 'local', and
#      selects custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit: the rendered files
#      run pam_rdmalimit after the last pam_limits, the features are still selected, the line is
#      rendered only with the feature (authselect test).
#   3. su to a member of the policy's group ends with the policy's memlock, a non-member keeps
#      the service's; a second enable changes nothing.
#   4. disable selects local with-faillock with-mkhomedir again: authselect.conf as it was, no
#      pam_rdmalimit rendered, the member back to the service's memlock; a second disable runs
#      nothing; enable again reuses the profile.
#   5. a profile made from another base than the one selected is refused, nothing written.
#   6. once it is removed, enable makes it from sssd (templates with "{imply ...}" lines).
#   7. without authselect on PATH, enable prints the commands (exit 0) and changes nothing.
#   8. erasing the package: rdmalimit.spec's %preun of pam_rdmalimit run as rpm runs it, with the
#      tool already gone (authselect disable-feature with-rdmalimit) and with it (rdmalimits
#      disable): no PAM file names the module, and with the module file gone su still works;
#      a required line naming the module refuses the erase and changes nothing.
# The module is found by name, as the profile's line says: the sandbox binds a copy of the
# system's PAM module directory with the build's module added over the real one.  Root only;
# downloads authselect once into the build tree (tests/e2e/authselect, removed by distclean).
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

SU=/bin/su

host_state() {
	sandbox_host_state -d "$(e2e_secdir)" /etc/nsswitch.conf /etc/authselect /var/lib/authselect \
		/usr/share/authselect /etc/dconf/db/distro.d
}

if ! sandbox_inside; then
	require_root "enable and disable with the real authselect"
	[ "${MODULE_SYSCONFDIR:-/etc}" = /etc ] ||
		skip_all "the module reads its policy from $MODULE_SYSCONFDIR/security; this test needs --sysconfdir=/etc"
	grep -qw overlay /proc/filesystems || skip_all "no overlay filesystem here" "no overlay filesystem under CI"
	no_plan
	need=(-f "$PAM_MODULE" "$RDMALIMITS")
	e2e_secdir >/dev/null || need+=(-m pam_unix.so)
	[ -u "$SU" ] || need+=(-m "a setuid $SU")
	sandbox_require "${need[@]}"
	if ! AUTHSELECT_ROOT=$("$e2e_dir/authselect-fetch.sh" "$top_builddir/tests/e2e/authselect" 2>"$top_builddir/tests/e2e/authselect.err"); then
		echo "Bail out! authselect 1.5.0: $(cat "$top_builddir/tests/e2e/authselect.err")"
		exit 99
	fi
	export AUTHSELECT_ROOT
	diag "authselect: $(cd "$AUTHSELECT_ROOT/../debs" && echo *.deb)"
	sandbox_outer "/etc/pam.d, /etc/security, nsswitch.conf, authselect's places, PAM module directory" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
MODULE=$PAM_MODULE
unset PAM_MODULE SANDBOX_PAM_MODULE
e2e_inner

# overlay DIR [LOWER...]: DIR becomes an overlay of LOWER... over DIR (read-only when
# LOWER is given, else writable with its upper layer in the sandbox's tmpfs)
overlay() {
	local dir=$1 name
	shift
	name=$(echo "$dir" | tr / _)
	if [ $# -gt 0 ]; then
		mount -t overlay -o "lowerdir=$(printf '%s:' "$@")$dir" "rl$name" "$dir"
	else
		mkdir -p "$SANDBOX_DIR/ov/$name/up" "$SANDBOX_DIR/ov/$name/work" &&
			mount -t overlay -o "lowerdir=$dir,upperdir=$SANDBOX_DIR/ov/$name/up,workdir=$SANDBOX_DIR/ov/$name/work" \
				"rl$name" "$dir"
	fi && _sandbox_mounts+=("$dir")
}
if overlay /etc && overlay /var/lib && overlay /usr/share "$AUTHSELECT_ROOT/usr/share"; then
	ok "overlays over /etc, /var/lib and /usr/share (authselect's profiles)"
else
	echo "Bail out! overlays"
	exit 1
fi
# the sandbox's copies, hidden by the overlay of /etc, bound again on top
for t in passwd group shadow pam.d security; do
	mount --bind "$SANDBOX_DIR/etc/$t" "/etc/$t" && _sandbox_mounts+=("/etc/$t") ||
		{ echo "Bail out! bind /etc/$t"; exit 1; }
done
# authselect on PATH, with its library (for it alone)
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$AUTHSELECT_ROOT/usr/lib/x86_64-linux-gnu" \
	"$AUTHSELECT_ROOT/usr/bin/authselect" >"$SANDBOX_BIN/authselect" && chmod 0755 "$SANDBOX_BIN/authselect"
export PATH=$SANDBOX_BIN:$PATH

e2e_module_by_name "$MODULE" || { echo "Bail out! the module directory"; exit 1; }

# what the authselect package creates
mkdir -m 0755 /etc/authselect
# a Rocky-like pam.d: su as Rocky 9 ships it, nothing of Debian's
find /etc/pam.d -mindepth 1 -delete
cat >/etc/pam.d/su <<'EOF'
#%PAM-1.0
auth		required	pam_env.so
auth		sufficient	pam_rootok.so
auth		substack	system-auth
auth		include		postlogin
account		sufficient	pam_succeed_if.so uid = 0 use_uid quiet
account		include		system-auth
password	include		system-auth
session		include		system-auth
session		include		postlogin
session		optional	pam_xauth.so
EOF
printf '#%%PAM-1.0\nauth required pam_deny.so\naccount required pam_deny.so\npassword required pam_deny.so\nsession required pam_deny.so\n' \
	>/etc/pam.d/other

H=$(($(ulimit -H -l) * 1024))
V=$((H / 2 / 1024 / 1024 * 1024 * 1024))
if [ "$V" -lt $((1024 * 1024)) ]; then
	echo "Bail out! the hard memlock limit here is $H bytes; the test needs at least 2 MiB"
	exit 1
fi
BASE_KIB=$((SANDBOX_MEMLOCK_SOFT / 1024))
diag "hard memlock limit read here: $H bytes; the policy asks $V bytes; the service's soft limit is $BASE_KIB KiB"
sandbox_user e2e-rdma rdma_users && sandbox_user e2e-plain || { echo "Bail out! sandbox_user"; exit 1; }
sandbox_policy <<EOF
version = 1;
rules = ( { group = "rdma_users"; memlock = "$((V / 1024))K"; } );
EOF

# su_as USER: a real su from root to USER; prints the soft memlock (KiB) of the shell it
# starts, returns su's exit status
su_as() {
	timeout 60 "$SU" "$1" -c 'ulimit -S -l' </dev/null 2>"$tmp/su.err"
}
# expect_memlock DESC USER KIB
expect_memlock() {
	local got
	got=$(su_as "$2")
	if [ "$got" = "$3" ]; then
		ok "$1: su $2 ends with memlock $3 KiB"
	else
		fail "$1: su $2 ends with memlock $3 KiB (got '$got')"
		sed 's/^/#   su: /' "$tmp/su.err"
	fi
}
# after_limits FILE: pam_rdmalimit runs after the last session pam_limits of FILE (and does)
after_limits() {
	awk '$1 == "session" && / pam_limits\.so/ { l = NR } $1 == "session" && / pam_rdmalimit\.so/ { r = NR }
		END { exit !(l && r > l) }' "$1"
}
# the selection authselect.conf names, as one line
selection() { grep -v '^#' /etc/authselect/authselect.conf | grep . | tr '\n' ' '; }
state() {
	find /etc/authselect /etc/pam.d /etc/nsswitch.conf -printf '%p %y %m %s %i %l\n' | LC_ALL=C sort
	find /etc/authselect /etc/pam.d -type f -exec md5sum {} + | LC_ALL=C sort
}
show() { sed 's/^/#   /' "$@"; }
rl() { "$RDMALIMITS" "$@" >"$tmp/out" 2>&1; }

# --- 1 -------------------------------------------------------------------------------------------
if authselect select local with-faillock with-mkhomedir --force >"$tmp/as.out" 2>&1; then
	ok "authselect select local with-faillock with-mkhomedir"
else
	fail "authselect select local with-faillock with-mkhomedir"
	show "$tmp/as.out"
	exit 1
fi
check "/etc/pam.d/system-auth is authselect's link" test "$(readlink /etc/pam.d/system-auth)" = /etc/authselect/system-auth
cp -p /etc/authselect/authselect.conf "$tmp/authselect.conf.orig"
SELECTED=$(selection)
check "selected: local with-faillock with-mkhomedir" test "$SELECTED" = "local with-faillock with-mkhomedir "
expect_memlock "before enable" e2e-rdma "$BASE_KIB"
expect_memlock "before enable" e2e-plain "$BASE_KIB"

# the module not installed (rdmalimits only suggests pam_rdmalimit): authselect would render a
# line libpam cannot load, which does nothing; enable refuses and writes nothing (it ran
# create-profile and select and exited 0)
before=$(state)
secdir=$(e2e_secdir)
mv "$secdir/pam_rdmalimit.so" "$tmp/pam_rdmalimit.so.aside"
rl enable
rc=$?
check "the module not installed: enable exits 1" test $rc -eq 1
check "... says why" grep -qF "libpam cannot load pam_rdmalimit.so here (it is not in the PAM module directory): the line authselect would add would do nothing; install pam_rdmalimit first (nothing written)" "$tmp/out"
check "... runs nothing, writes nothing" test "$(grep -c '^ran:' "$tmp/out")" = 0 -a "$before" = "$(state)"
[ $rc -eq 1 ] || show "$tmp/out"
mv "$tmp/pam_rdmalimit.so.aside" "$secdir/pam_rdmalimit.so"

before=$(state)
rl enable --check
check "enable --check exits 3" test $? -eq 3
check "enable --check names create-profile and select, in that order" test "$(grep '^  authselect' "$tmp/out" | tr '\n' '|')" = \
	"  authselect create-profile rdmalimit -b local|  authselect select custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit --force|"
check "enable --check says what it does between them" grep -q "^Between the two, it puts pam_rdmalimit after pam_limits in the new profile" "$tmp/out"
check "enable --check writes nothing" test "$before" = "$(state)"

# --- 2 -------------------------------------------------------------------------------------------
rl enable
rc=$?
check "enable exits 0" test $rc -eq 0
[ $rc -eq 0 ] || show "$tmp/out"
check "enable ran authselect create-profile" grep -qx 'ran: authselect create-profile rdmalimit -b local (status 0)' "$tmp/out"
check "enable ran authselect select with the features and with-rdmalimit" \
	grep -qx 'ran: authselect select custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit --force (status 0)' "$tmp/out"
check "enable names the profile's files it edited" \
	test "$(grep -c '^/etc/authselect/custom/rdmalimit/.*-auth: added pam_rdmalimit after pam_limits in the authselect profile' "$tmp/out")" = 2
for f in system-auth password-auth; do
	check "$f: authselect's link still" test "$(readlink "/etc/pam.d/$f")" = "/etc/authselect/$f"
	if after_limits "/etc/pam.d/$f"; then
		ok "$f as authselect rendered it runs pam_rdmalimit after the last pam_limits"
	else
		fail "$f as authselect rendered it runs pam_rdmalimit after the last pam_limits"
		show "/etc/pam.d/$f"
	fi
	check "$f: the rendered line is plain (no template left)" \
		grep -Eq '^session +optional +pam_rdmalimit\.so +# rdmalimits enable$' "/etc/pam.d/$f"
	check "custom/rdmalimit/$f: the line is behind the feature" \
		grep -q '^session    optional     pam_rdmalimit.so {include if "with-rdmalimit"} # rdmalimits enable$' \
		"/etc/authselect/custom/rdmalimit/$f"
done
check "authselect.conf: custom/rdmalimit with the features selected before and with-rdmalimit" \
	test "$(selection)" = "custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit "
authselect current >"$tmp/current" 2>&1
check "authselect current: profile custom/rdmalimit" grep -qx 'Profile ID: custom/rdmalimit' "$tmp/current"
for feat in with-faillock with-mkhomedir with-rdmalimit; do
	check "authselect current: $feat enabled" grep -qx -- "- $feat" "$tmp/current"
done
check "the profile records local, selected before" \
	test "$(grep -v '^#' /etc/authselect/custom/rdmalimit/rdmalimits-previous)" = local
authselect check >"$tmp/as.out" 2>&1
check "authselect check: the configuration is valid" test $? -eq 0
# the line is rendered only with the feature
authselect test custom/rdmalimit with-faillock with-mkhomedir --system-auth >"$tmp/off" 2>&1
authselect test custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit --system-auth >"$tmp/on" 2>&1
check "authselect test: without with-rdmalimit no pam_rdmalimit line" \
	test "$(grep -c pam_rdmalimit "$tmp/off")/$(grep -c pam_limits "$tmp/off")" = 0/1
check "authselect test: with with-rdmalimit one" test "$(grep -c pam_rdmalimit "$tmp/on")" = 1

# --- 3 -------------------------------------------------------------------------------------------
expect_memlock "after enable, a member of rdma_users" e2e-rdma "$((V / 1024))"
expect_memlock "after enable, a non-member" e2e-plain "$BASE_KIB"
before=$(state)
rl enable
rc=$?
check "a second enable exits 0" test $rc -eq 0
check "a second enable says unchanged" grep -q '^authselect: unchanged: profile custom/rdmalimit selected with with-rdmalimit' "$tmp/out"
check "a second enable runs nothing" test "$(grep -c '^ran:' "$tmp/out")" = 0
check "a second enable changes nothing (same inodes, same bytes)" test "$before" = "$(state)"
rl enable --check
check "enable --check then exits 0" test $? -eq 0

# --- 4 -------------------------------------------------------------------------------------------
rl disable --check
check "disable --check exits 3" test $? -eq 3
check "disable --check names the select it would run" grep -qx '  authselect select local with-faillock with-mkhomedir --force' "$tmp/out"
check "disable --check writes nothing" test "$before" = "$(state)"
rl --json disable
rc=$?
check "disable --json exits 0" test $rc -eq 0
[ $rc -eq 0 ] || show "$tmp/out"
check "disable --json: the command, run" \
	grep -q '"commands": \["authselect select local with-faillock with-mkhomedir --force"\], "commands_run": true' "$tmp/out"
check "disable: authselect.conf as it was before enable" cmp -s "$tmp/authselect.conf.orig" /etc/authselect/authselect.conf
for f in system-auth password-auth; do
	check "disable: $f rendered without pam_rdmalimit" test "$(grep -c pam_rdmalimit "/etc/pam.d/$f")" = 0
done
expect_memlock "after disable, a member of rdma_users" e2e-rdma "$BASE_KIB"
before=$(state)
rl disable
check "a second disable exits 0" test $? -eq 0
check "a second disable runs nothing" test "$(grep -c '^ran:' "$tmp/out")" = 0
check "a second disable changes nothing" test "$before" = "$(state)"

rl enable
check "enable after disable exits 0" test $? -eq 0
check "... reuses the profile: only select runs" test "$(grep '^ran:' "$tmp/out")" = \
	'ran: authselect select custom/rdmalimit with-faillock with-mkhomedir with-rdmalimit --force (status 0)'
expect_memlock "enable after disable, a member of rdma_users" e2e-rdma "$((V / 1024))"
rl disable
check "disable again: back to local" test $? -eq 0 -a "$(selection)" = "$SELECTED"

# --- 5 -------------------------------------------------------------------------------------------
authselect select sssd with-mkhomedir --force >"$tmp/as.out" 2>&1 || show "$tmp/as.out"
before=$(state)
rl enable
rc=$?
check "enable with sssd selected, the profile made from local: refused (exit 1)" test $rc -eq 1
check "... saying why" grep -q 'etc/authselect/custom/rdmalimit was made from the profile local, but sssd is selected' "$tmp/out"
check "... nothing written, nothing run" test "$before" = "$(state)" -a "$(grep -c '^ran:' "$tmp/out")" = 0

# --- 6 -------------------------------------------------------------------------------------------
# that profile removed, enable makes it again from sssd, whose templates begin with authselect's
# "{imply ...}" lines
rm -rf /etc/authselect/custom/rdmalimit
rl enable
rc=$?
check "sssd: enable exits 0" test $rc -eq 0
[ $rc -eq 0 ] || show "$tmp/out"
check "sssd: the profile is made from sssd" grep -qx 'ran: authselect create-profile rdmalimit -b sssd (status 0)' "$tmp/out"
check "sssd: its template keeps its {imply} line" grep -q '^{imply "with-smartcard" if "with-smartcard-required"}$' \
	/etc/authselect/custom/rdmalimit/system-auth
check "sssd: selected with its feature and ours" test "$(selection)" = "custom/rdmalimit with-mkhomedir with-rdmalimit "
check "sssd: system-auth runs pam_rdmalimit after the last pam_limits" after_limits /etc/pam.d/system-auth
expect_memlock "sssd, after enable, a member of rdma_users" e2e-rdma "$((V / 1024))"
rl disable
check "sssd: disable goes back to sssd with-mkhomedir" test $? -eq 0 -a "$(selection)" = "sssd with-mkhomedir "

# --- 7 -------------------------------------------------------------------------------------------
# no authselect on PATH: enable says what to run (exit 0, as without pam-auth-update), and runs
# and selects nothing
NOAS_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$SANDBOX_BIN" | paste -sd:)
before=$(state)
PATH=$NOAS_PATH rl enable
rc=$?
check "without authselect: enable exits 0" test $rc -eq 0
check "without authselect: it says the tools were not found and prints the select" \
	test "$(sed -n '/^To finish, run (the tools were not found):$/,$p' "$tmp/out" | tr '\n' '|')" = \
	"To finish, run (the tools were not found):|  authselect select custom/rdmalimit with-mkhomedir with-rdmalimit --force|"
check "without authselect: nothing written, sssd still selected" test "$before" = "$(state)" -a "$(selection)" = "sssd with-mkhomedir "
rm -rf /etc/authselect/custom/rdmalimit
before=$(state)
PATH=$NOAS_PATH rl enable
check "without authselect, no profile: create-profile, then enable again" \
	test "$(sed -n '/^  /p' "$tmp/out" | tr '\n' '|')" = "  authselect create-profile rdmalimit -b sssd|  rdmalimits enable|"
check "without authselect, no profile: nothing written" test "$before" = "$(state)"

# --- 7b ------------------------------------------------------------------------------------------
# a jump of the selected profile across the place of the module's line: a member of nolimit
# skips pam_limits and lands on pam_env, which sets SITE.  The module's line is behind the
# feature, so a corrected count is wrong whenever authselect renders the file without it (select
# without the feature, disable-feature, the package's %preun): enable refuses, naming the jump
authselect create-profile site -b sssd >"$tmp/as.out" 2>&1 || show "$tmp/as.out"
printf 'SITE DEFAULT=1\n' >"$tmp/site_env.conf"
for f in system-auth password-auth; do
	awk -v env="$tmp/site_env.conf" '
		/^session +required +pam_limits.so/ { print "session     [success=1 default=ignore]                   pam_succeed_if.so user ingroup nolimit quiet" }
		{ print }
		/^session +required +pam_limits.so/ { print "session     required                                     pam_env.so conffile=" env " readenv=0" }' \
		"/etc/authselect/custom/site/$f" >"$tmp/x" && cat "$tmp/x" >"/etc/authselect/custom/site/$f"
done
cp /etc/group "$tmp/group.before"
echo "nolimit:x:4242:e2e-plain" >>/etc/group
authselect select custom/site with-mkhomedir --force >"$tmp/as.out" 2>&1 || show "$tmp/as.out"
env_of() { timeout 60 "$SU" "$1" -c 'echo "SITE=${SITE:-unset}"' </dev/null 2>&1; }
check "custom/site: the jump of a member of nolimit lands on pam_env (SITE=1)" test "$(env_of e2e-plain)" = SITE=1
line=$(grep -n 'ingroup nolimit' /etc/authselect/custom/site/system-auth | cut -d: -f1)
rl enable
rc=$?
check "enable over a jump across the module's place: refused (exit $rc)" test $rc -eq 1
check "... naming the jump's line" grep -qF "system-auth:$line: this jump crosses the line pam_rdmalimit gets behind the feature with-rdmalimit" "$tmp/out"
check "... the new profile made, not selected (authselect select did not run)" \
	sh -c "grep -q 'custom/rdmalimit was made but not selected: 2 problems with it' '$tmp/out' && ! grep -q '^ran: authselect select' '$tmp/out'"
check "... custom/site still selected" test "$(selection)" = "custom/site with-mkhomedir "
check "... the jump still lands on pam_env" test "$(env_of e2e-plain)" = SITE=1
grep -q "this jump crosses" "$tmp/out" || show "$tmp/out"
authselect select sssd with-mkhomedir --force >"$tmp/as.out" 2>&1 || show "$tmp/as.out"
rm -rf /etc/authselect/custom/site /etc/authselect/custom/rdmalimit
cat "$tmp/group.before" >/etc/group

# --- 7c ------------------------------------------------------------------------------------------
# after "authselect opt-out" (1.5: authselect.conf gone, the files plain and the admin's, still
# with authselect's header): they are no longer authselect's.  enable took them for authselect's
# and told the admin to select a profile, which would take them back; now it treats them as any
# plain file: the shared system-auth is not edited unasked, su is when named
if authselect opt-out >"$tmp/as.out" 2>&1; then
	check "opt-out: system-auth is a plain file, authselect.conf gone" \
		test -f /etc/pam.d/system-auth -a ! -L /etc/pam.d/system-auth -a ! -e /etc/authselect/authselect.conf
	rl enable
	rc=$?
	check "opt-out: enable exits 0, runs no authselect" test $rc -eq 0 -a "$(grep -c '^ran:' "$tmp/out")" = 0
	check "... does not ask for a profile, names the service to enable" \
		sh -c "! grep -q 'select one first' '$tmp/out' && grep -qF \"'rdmalimits enable --service su' adds the module there\" '$tmp/out'"
	[ $rc -eq 0 ] || show "$tmp/out"
	rl enable --service su
	rc=$?
	check "opt-out: enable --service su exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || show "$tmp/out"
	expect_memlock "opt-out, after enable --service su, a member of rdma_users" e2e-rdma "$((V / 1024))"
	rl disable --service su
	check "opt-out: disable --service su exits 0" test $? -eq 0
	authselect select sssd with-mkhomedir --force >"$tmp/as.out" 2>&1 || show "$tmp/as.out"
	rm -f /etc/pam.d/*.rdmalimits-bak
else
	skip "this authselect has no opt-out ($(head -1 "$tmp/as.out"))"
fi

# --- 8 -------------------------------------------------------------------------------------------
# erasing the package: rdmalimit.spec's %preun of pam_rdmalimit, as rpm runs it (sh SCRIPT 0),
# with this authselect; then the module file taken away as the erase does: nobody is locked out
if ! command -v rpmspec >/dev/null 2>&1; then
	skip_ci "rpmspec is missing (Debian: apt-get install rpm): the spec's %preun is not run here"
	exit 0
fi
rpmspec -P "$top_builddir/rdmalimit.spec" 2>"$tmp/spec.err" |
	awk '$0 == "%preun -n pam_rdmalimit" { on = 1; next } on && /^%[a-z]/ { exit } on' >"$tmp/preun"
check "the spec's %preun of pam_rdmalimit" test -s "$tmp/preun"
[ -s "$tmp/preun" ] || show "$tmp/spec.err"
SEC=$(e2e_secdir)
mkdir -p "$tmp/toolbin" && ln -sf "$RDMALIMITS" "$tmp/toolbin/rdmalimits"
# erase WITH_TOOL: the scriptlet with authselect on PATH, and rdmalimits when WITH_TOOL is 1
erase() {
	local path=$PATH
	[ "$1" = 1 ] && path=$tmp/toolbin:$PATH
	PATH=$path sh "$tmp/preun" 0 >"$tmp/preun.out" 2>&1
}
module_back() { install -m 0644 -o root -g root "$MODULE" "$SEC/pam_rdmalimit.so"; }
for with_tool in 0 1; do
	what="erase ($([ $with_tool = 1 ] && echo "the tool still installed" || echo "the tool already gone"))"
	module_back
	rl enable
	check "$what: enabled first (custom/rdmalimit with-rdmalimit)" \
		test $? -eq 0 -a "$(selection)" = "custom/rdmalimit with-mkhomedir with-rdmalimit "
	expect_memlock "$what: before" e2e-rdma "$((V / 1024))"
	erase $with_tool
	rc=$?
	check "$what: %preun exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || show "$tmp/preun.out"
	if [ $with_tool = 1 ]; then
		check "$what: rdmalimits disable selected sssd again" test "$(selection)" = "sssd with-mkhomedir "
	else
		check "$what: authselect disable-feature with-rdmalimit ran" \
			test "$(selection)" = "custom/rdmalimit with-mkhomedir "
		check "$what: ... and said so" grep -q "feature with-rdmalimit disabled in profile custom/rdmalimit" "$tmp/preun.out"
	fi
	for f in system-auth password-auth; do
		check "$what: $f rendered without pam_rdmalimit" test "$(grep -c pam_rdmalimit "/etc/pam.d/$f")" = 0
	done
	check "$what: no PAM file names the module" test -z "$(grep -rl pam_rdmalimit /etc/pam.d/ 2>/dev/null)"
	rm -f "$SEC/pam_rdmalimit.so"
	expect_memlock "$what, the module file gone: su still works" e2e-rdma "$BASE_KIB"
	expect_memlock "$what, the module file gone: su still works" e2e-plain "$BASE_KIB"
done
# a line the admin wrote that fails every session once the module is gone: refused, nothing done
module_back
rl enable >/dev/null
printf 'session required pam_rdmalimit.so\n' >>/etc/pam.d/su
line=$(grep -c '' /etc/pam.d/su)
before=$(state)
erase 1
rc=$?
check "a required line in su: %preun refuses (exit 1)" test $rc -eq 1
check "... naming /etc/pam.d/su:$line" grep -q "^  /etc/pam.d/su:$line: session required pam_rdmalimit.so" "$tmp/preun.out"
check "... and changes nothing (no disable, no authselect)" test "$before" = "$(state)"
[ $rc -eq 1 ] || show "$tmp/preun.out"
expect_memlock "refused: su still runs the module" e2e-rdma "$((V / 1024))"
exit 0
