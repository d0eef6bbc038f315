#!/bin/bash
# End to end: `rdmalimits enable --service sshd` fixes what pam-auth-update cannot.  In the
# sandbox (tests/e2e/sandbox.sh: private mount, PID and network namespaces, copies of /etc/pam.d
# and /etc/security bind-mounted over the real ones) with Debian's real sshd stack:
#   - the module in common-session only, as `pam-auth-update --enable rdmalimit` leaves it: a
#     real ssh login of a member of rdma_users gets 64 KiB (sshd includes common-session before
#     its own pam_limits, which starts again from PID 1's limits);
#   - `rdmalimits enable --service sshd`, run on the sandbox's /etc/pam.d: the line after
#     sshd's pam_limits, a backup, a second run changes nothing;
#   - a real ssh login then gets the policy's value (half the hard limit read at test time),
#     a non-member keeps 64 KiB;
#   - `rdmalimits disable --service sshd`: the file as it was, and the login gets 64 KiB again;
#   - the host is unchanged afterwards, and no process of the sandbox is left.
# The module is found as pam_rdmalimit.so, by name, as enable writes it: the sandbox binds a
# copy of the system's PAM module directory with the build's module added over the real one.
# Root only.  Run by `make check` (top_srcdir, top_builddir, RDMALIMITS, PAM_MODULE exported).
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"


host_state() { sandbox_host_state -d "$(e2e_secdir)" /run/rdmalimit; }

# ---------------------------------------------------------------------------------------------
if ! sandbox_inside; then
	require_root "enable e2e"
	# enable writes the module's line without conf=: the module reads SYSCONFDIR/security, which
	# the sandbox covers only for /etc
	[ "${MODULE_SYSCONFDIR:-/etc}" = /etc ] ||
		skip_all "the module reads its policy from $MODULE_SYSCONFDIR/security; this test needs a build configured with --sysconfdir=/etc (./run configures so)"
	no_plan
	need=(-f "$PAM_MODULE" "$RDMALIMITS")
	e2e_secdir >/dev/null || need+=(-m pam_unix.so)
	grep -q 'pam-auth-update' /etc/pam.d/common-session 2>/dev/null || need+=(-m "a pam-auth-update common-session")
	sandbox_require "${need[@]}"
	sandbox_outer "/etc/pam.d, /etc/security, PAM module directory, utmp/wtmp, /dev/log" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
# Inside the sandbox.  TAP counters go back on fd 3.
# the module goes in by name, through enable: not the sandbox's own line after pam_limits
MODULE=$PAM_MODULE
unset PAM_MODULE SANDBOX_PAM_MODULE
e2e_inner

# the PAM module directory: a copy with the build's module, bound over the real one (this mount
# namespace only)
e2e_module_by_name "$MODULE" || { echo "Bail out! the module directory"; exit 1; }

# the module in common-session only, where pam-auth-update puts the profile's line
for f in common-session common-session-noninteractive; do
	tmpf=$(awk '/^# end of pam-auth-update config/ { print "session\toptional\t\t\tpam_rdmalimit.so " } { print }' \
		"/etc/pam.d/$f") && printf '%s\n' "$tmpf" >"/etc/pam.d/$f"
done
check "common-session runs pam_rdmalimit (as pam-auth-update --enable rdmalimit leaves it)" \
	grep -q '^session[[:space:]]*optional[[:space:]]*pam_rdmalimit.so' /etc/pam.d/common-session
check "the sandbox's sshd stack is Debian's (no pam_rdmalimit line of its own)" \
	test "$(grep -c pam_rdmalimit /etc/pam.d/sshd)" = 0
cp -p /etc/pam.d/sshd "$tmp/sshd.orig"
cp -p /etc/pam.d/common-session "$tmp/common-session.orig"

H=$(($(ulimit -H -l) * 1024))
V=$((H / 2 / 1024 / 1024 * 1024 * 1024))
KiB64=65536
if [ "$V" -lt $((1024 * 1024)) ]; then
	echo "Bail out! the hard memlock limit here is $H bytes; the test needs at least 2 MiB"
	exit 1
fi
diag "hard memlock limit read here: $H bytes; the policy asks $V bytes"
sandbox_user e2e-member rdma_users && sandbox_user e2e-other
sandbox_policy <<EOF
version = 1;
rules = ( { group = "rdma_users"; memlock = "$((V / 1024))K"; } );
EOF
if ! sandbox_sshd_start; then
	fail "sshd started"
	exit 1
fi
ok "sshd started on 127.0.0.1:$SANDBOX_PORT, memlock soft $SANDBOX_SSHD_MEMLOCK_SOFT hard $SANDBOX_SSHD_MEMLOCK_HARD"

# the soft and hard memlock of a real login
login_memlock() {
	sandbox_ssh "$1" cat /proc/self/limits </dev/null 2>"$tmp/ssh.err" |
		awk '/^Max locked memory/ { print $4, $5 }'
}
expect_login() { # DESCRIPTION USER SOFT HARD
	local got
	got=$(login_memlock "$2")
	if [ "$got" = "$3 $4" ]; then
		ok "$1: soft $3 hard $4"
	else
		fail "$1: expected soft $3 hard $4, got '${got}'"
		sed 's/^/#   /' "$tmp/ssh.err"
	fi
}

# --- the bug: the module in common-session only ------------------------------------------------
mark=$(sandbox_log_mark)
expect_login "before enable, a member of rdma_users logs in with 64 KiB (pam_limits after common-session)" \
	e2e-member $KiB64 "$H"
if line=$(sandbox_log_wait 'pam_rdmalimit.*e2e-member' 5 "$mark"); then
	ok "... though the module ran from common-session (pam_limits undid it): ${line:0:160}"
else
	fail "the module ran from common-session in that login (a log line of pam_rdmalimit)"
	tail -n 5 "$SANDBOX_SYSLOG" | sed 's/^/#   /'
fi

# --- the fix ----------------------------------------------------------------------------------------
"$RDMALIMITS" enable --service sshd --check >"$tmp/out" 2>&1
check "enable --service sshd --check exits 3" test $? -eq 3
"$RDMALIMITS" enable --service sshd >"$tmp/out" 2>&1
rc=$?
check "rdmalimits enable --service sshd exits 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/out"
if awk '$1 == "session" && / pam_limits\.so/ { l = NR } /^session[[:space:]]+optional[[:space:]]+pam_rdmalimit\.so # rdmalimits enable$/ { r = NR }
	END { exit !(l && r == l + 1) }' /etc/pam.d/sshd; then
	ok "/etc/pam.d/sshd: pam_rdmalimit right after its pam_limits"
else
	fail "/etc/pam.d/sshd: pam_rdmalimit right after its pam_limits"
	grep -n '^session' /etc/pam.d/sshd | sed 's/^/#   /'
fi
check "the backup is the stack as it was" cmp -s "$tmp/sshd.orig" /etc/pam.d/sshd.rdmalimits-bak
check "common-session untouched by enable --service sshd" cmp -s "$tmp/common-session.orig" /etc/pam.d/common-session
"$RDMALIMITS" enable --service sshd >/dev/null 2>&1
check "a second enable exits 0" test $? -eq 0
"$RDMALIMITS" enable --service sshd --check >/dev/null 2>&1
check "then enable --check exits 0" test $? -eq 0

expect_login "after enable, a member of rdma_users logs in with the policy's value" e2e-member "$V" "$H"
expect_login "after enable, a non-member keeps 64 KiB" e2e-other $KiB64 "$H"
got=$(sandbox_ssh e2e-member 'ulimit -l' </dev/null 2>/dev/null)
check "the member's shell says ulimit -l $((V / 1024)) (KiB)" test "$got" = "$((V / 1024))"

# --- disable ------------------------------------------------------------------------------------
"$RDMALIMITS" disable --service sshd >"$tmp/out" 2>&1
check "rdmalimits disable --service sshd exits 0" test $? -eq 0
check "disable: /etc/pam.d/sshd as it was" cmp -s "$tmp/sshd.orig" /etc/pam.d/sshd
expect_login "after disable, the member is back to 64 KiB" e2e-member $KiB64 "$H"

sandbox_sshd_stop
exit 0
