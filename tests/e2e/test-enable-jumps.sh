#!/bin/bash
# `rdmalimits enable` and `disable` keep every jump of a stack landing where it did, proven with
# the real setuid su (util-linux) in the sandbox of tests/e2e/sandbox.sh (private mount, PID and
# network namespaces; copies of /etc/passwd, group, pam.d and security bound over the real ones).
#   A. su's stack jumps over pam_limits and pam_deny for members of admins
#      ("[success=2 default=ignore] pam_succeed_if ... ingroup admins"): only members get in.
#      enable puts pam_rdmalimit after pam_limits and counts the jump one more, so the same users
#      get in afterwards; disable gives back the file as it was, and again the same users get in.
#      Before the jump counts were corrected, enable inserted the line inside the jump: the jump
#      then landed on pam_deny and every su to a member of admins failed.
#   A2. the same jump written "[success = 2 default = ignore]", as libpam also reads it.
#   B. a jump over pam_limits alone for admins: after enable everybody still gets in and a
#      member of rdma_users who is not an admin gets the policy's value from the module.
#   C. the jump is in an included file, which enable never edits: it refuses, naming that
#      file:line, exits 1 and writes nothing.
# The module is found by name, as enable writes it: the sandbox binds a copy of the system's
# PAM module directory with the build's module added over the real one.  Root only.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

SU=/bin/su


host_state() { sandbox_host_state -d "$(e2e_secdir)"; }

if ! sandbox_inside; then
	e2e_su_outer "enable with jumps and the real su"
	sandbox_require "${need[@]}"
	sandbox_outer "/etc/pam.d, /etc/security, PAM module directory" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
e2e_inner_by_name

H=$(($(ulimit -H -l) * 1024))
V=$((H / 2 / 1024 / 1024 * 1024 * 1024))
if [ "$V" -lt $((1024 * 1024)) ]; then
	echo "Bail out! the hard memlock limit here is $H bytes; the test needs at least 2 MiB"
	exit 1
fi
diag "hard memlock limit read here: $H bytes; the policy asks $V bytes"
sandbox_user e2e-admin admins rdma_users && sandbox_user e2e-plain rdma_users ||
	{ echo "Bail out! sandbox_user"; exit 1; }
sandbox_policy <<EOF
version = 1;
rules = ( { group = "rdma_users"; memlock = "$((V / 1024))K"; } );
EOF

HEAD='auth sufficient pam_rootok.so
account required pam_permit.so'

# su_as USER: a real su from root to USER; prints the soft memlock of the shell it starts,
# returns su's exit status
su_as() {
	timeout 60 "$SU" "$1" -c 'ulimit -S -l' </dev/null 2>"$tmp/su.err"
}
# expect_in DESC USER: su to USER opens the session
expect_in() {
	local out
	if out=$(su_as "$2"); then
		ok "$1: su $2 gets in"
	else
		fail "$1: su $2 gets in"
		sed 's/^/#   su: /' "$tmp/su.err"
	fi
}
# expect_out DESC USER: su to USER is refused
expect_out() {
	if su_as "$2" >/dev/null; then
		fail "$1: su $2 is refused, as the stack says"
	else
		ok "$1: su $2 is refused, as the stack says"
	fi
}

# su's stack of A: the control of the pam_succeed_if line that jumps over pam_limits and pam_deny
# for members of admins
su_stack_a() {
	printf '%s\n%s\n' "$HEAD" "session $1 pam_succeed_if.so quiet user ingroup admins
session required pam_limits.so
session requisite pam_deny.so
session required pam_permit.so" >/etc/pam.d/su
}

# --- A ------------------------------------------------------------------------------------------
su_stack_a '[success=2 default=ignore]'
cp -p /etc/pam.d/su "$tmp/su.orig"
expect_in "A, before enable" e2e-admin
expect_out "A, before enable" e2e-plain

"$RDMALIMITS" enable --service su >"$tmp/out" 2>&1
rc=$?
check "A: enable --service su exits 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/out"
check "A: enable says it corrected the jump" grep -q 'jump counts corrected' "$tmp/out"
check "A: the jump now counts the module's line too" \
	grep -q '^session \[success=3 default=ignore\] pam_succeed_if.so quiet user ingroup admins$' /etc/pam.d/su
if awk '/ pam_limits\.so/ { l = NR } /pam_rdmalimit\.so # rdmalimits enable$/ { r = NR } END { exit !(l && r == l + 1) }' \
	/etc/pam.d/su; then
	ok "A: pam_rdmalimit right after pam_limits"
else
	fail "A: pam_rdmalimit right after pam_limits"
	sed 's/^/#   /' /etc/pam.d/su
fi
expect_in "A, after enable" e2e-admin
expect_out "A, after enable" e2e-plain
"$RDMALIMITS" enable --service su --check >/dev/null 2>&1
check "A: enable --check then exits 0 (nothing left to do)" test $? -eq 0

"$RDMALIMITS" disable --service su >"$tmp/out" 2>&1
check "A: disable --service su exits 0" test $? -eq 0
check "A: disable gives back the file as it was" cmp -s "$tmp/su.orig" /etc/pam.d/su
expect_in "A, after disable" e2e-admin
expect_out "A, after disable" e2e-plain

# --- A2: the same jump written with blanks around '=' (libpam reads it so: pam_misc.c) -----------
su_stack_a '[success = 2 default = ignore]'
cp -p /etc/pam.d/su "$tmp/su.orig"
expect_in "A2, before enable" e2e-admin
expect_out "A2, before enable" e2e-plain
"$RDMALIMITS" enable --service su >"$tmp/out" 2>&1
check "A2: enable --service su exits 0" test $? -eq 0
check "A2: the jump counts the module's line too, the rest of the control as written" \
	grep -q '^session \[success = 3 default = ignore\] pam_succeed_if.so' /etc/pam.d/su
expect_in "A2, after enable" e2e-admin
expect_out "A2, after enable" e2e-plain
"$RDMALIMITS" disable --service su >"$tmp/out" 2>&1
check "A2: disable gives back the file as it was" cmp -s "$tmp/su.orig" /etc/pam.d/su

# --- B ------------------------------------------------------------------------------------------
printf '%s\n%s\n' "$HEAD" 'session [success=1 default=ignore] pam_succeed_if.so quiet user ingroup admins
session required pam_limits.so
session required pam_permit.so' >/etc/pam.d/su
"$RDMALIMITS" enable --service su >"$tmp/out" 2>&1
check "B: enable --service su exits 0" test $? -eq 0
check "B: the jump over pam_limits still lands on pam_permit" \
	grep -q '^session \[success=2 default=ignore\]' /etc/pam.d/su
expect_in "B, after enable" e2e-admin
got=$(su_as e2e-plain)
check "B, after enable: e2e-plain gets in with the policy's value ($((V / 1024)) KiB; got '$got')" \
	test "$got" = "$((V / 1024))"

# --- C ------------------------------------------------------------------------------------------
printf '%s\n' 'session [success=2 default=ignore] pam_succeed_if.so quiet user ingroup admins
session required pam_limits.so' >/etc/pam.d/jumps-inc
printf '%s\n%s\n' "$HEAD" '@include jumps-inc
session requisite pam_deny.so
session required pam_permit.so' >/etc/pam.d/su
cp -p /etc/pam.d/su "$tmp/su.orig"
rm -f /etc/pam.d/su.rdmalimits-bak
"$RDMALIMITS" enable --service su >"$tmp/out" 2>&1
rc=$?
check "C: enable refuses (exit 1)" test $rc -eq 1
check "C: it names the jump's file:line" grep -q 'pam.d/jumps-inc:1: this jump would land on another module' "$tmp/out"
check "C: nothing written" cmp -s "$tmp/su.orig" /etc/pam.d/su
check "C: no backup made" test ! -e /etc/pam.d/su.rdmalimits-bak
expect_in "C, after the refusal" e2e-admin
exit 0
