#!/bin/bash
# End to end: real ssh logins into the real Debian sshd, with Debian's PAM stack and
# pam_rdmalimit after pam_limits, in a throwaway sandbox (tests/e2e/sandbox.sh: private
# mount, PID and network namespaces; copies of /etc/passwd, group, shadow, pam.d, security;
# a private /dev whose /dev/log records what the module logs).  Root only.
#
# sshd runs with memlock soft 64 KiB, hard H = the current hard limit (at most 8 MiB); root
# here lacks CAP_SYS_RESOURCE, so nobody can raise H.  Asserted through the logins:
#   - a member of rdma_users (policy 6M) gets soft 6 MiB, hard H; a non-member keeps 64 KiB;
#   - a 3 MiB AF_XDP UMEM registers in the member's login and fails with ENOBUFS in the
#     non-member's (the kernel charges the user's locked_vm against the session's limit);
#   - a policy above H (16M): the login still works, gets soft = hard = H, and the module's
#     warning names the cause (CAP_SYS_RESOURCE) and the fix (LimitMEMLOCK=);
#   - the host is unchanged afterwards, and no process of the sandbox is left.
# Run by `make check` (which exports top_srcdir, top_builddir, RDMALIMITS, PAM_MODULE), or
# directly: top_builddir=BUILD RDMALIMITS=BUILD/rdmalimits \
#   PAM_MODULE=BUILD/pam_rdmalimit/.libs/pam_rdmalimit.so tests/e2e/test-sshd.sh
# (without BUILD/tests/e2e/umem-reg, the helper is compiled with $CC inside the sandbox).
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

: "${UMEM_REG:=$top_builddir/tests/e2e/umem-reg}"
export UMEM_REG

# What must not change on the host: the files the sandbox shadows, and the places sshd, PAM
# and syslog would write to.
host_state() { sandbox_host_state /run/motd.dynamic /root/.ssh; }

# ---------------------------------------------------------------------------------------------
# Host side: check the prerequisites, record the host, run the rest in the sandbox, compare.
if ! sandbox_inside; then
	require_root "sshd e2e"
	no_plan
	sandbox_require -f "$PAM_MODULE" setcap
	sandbox_outer "/etc/passwd, group, shadow, pam.d, security, utmp/wtmp, /dev/log" "$0" "$@"
	check "the sandbox directory $SANDBOX_DIR does not exist on the host" test ! -e "$SANDBOX_DIR"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
# Inside the sandbox (PID 1 of a private PID namespace).  The TAP counters go back to the host
# side on fd 3; the plan is printed there.
e2e_inner
if ! sandbox_pam_module "$PAM_MODULE" conf=/etc/security/rdmalimit.conf debug; then
	echo "Bail out! cannot put $PAM_MODULE into the sandbox's sshd stack"
	exit 1
fi
# Debian's sshd stack, with the module's line right after pam_limits
if awk -v m="$PAM_MODULE" '$1 == "session" && /pam_limits\.so/ { l = NR } $1 == "session" && index($0, m) { r = NR }
	END { exit !(l && r == l + 1) }' /etc/pam.d/sshd; then
	ok "the sandbox's /etc/pam.d/sshd runs pam_rdmalimit right after pam_limits"
else
	fail "the sandbox's /etc/pam.d/sshd runs pam_rdmalimit right after pam_limits"
	grep -n '^session' /etc/pam.d/sshd | sed 's/^/# /'
fi

H=$SANDBOX_MEMLOCK_HARD
if [ "$H" -lt $((7 * 1024 * 1024)) ]; then
	echo "Bail out! the hard memlock limit here is $H bytes; the test needs at least 7 MiB"
	exit 1
fi
KiB64=65536 MiB6=$((6 * 1024 * 1024))

# The registration helper: the build's, else compiled here.  A copy with cap_net_raw only
# (socket(AF_XDP) needs it; no cap_ipc_lock, which would bypass the accounting).
if [ ! -x "$UMEM_REG" ]; then
	diag "$UMEM_REG not built; compiling it"
	UMEM_REG=$SANDBOX_DIR/umem-reg
	if ! ${CC:-cc} -std=gnu11 -O2 -o "$UMEM_REG" "$e2e_dir/umem-reg.c"; then
		echo "Bail out! cannot build umem-reg"
		exit 1
	fi
fi
if ! umem=$(sandbox_install "$UMEM_REG" cap_net_raw+ep); then
	echo "Bail out! cannot install umem-reg with cap_net_raw+ep"
	exit 1
fi
# rdmalimits pin-test, where the tool has it
pintest=
if "$RDMALIMITS" --help 2>&1 | grep -q 'pin-test'; then
	pintest=$(sandbox_install "$RDMALIMITS" cap_net_raw+ep) || pintest=
fi

sandbox_user e2e-member rdma_users && sandbox_user e2e-other
if [ "$(id -nG e2e-member 2>&1)" = "e2e-member rdma_users" ] && id e2e-other >/dev/null 2>&1; then
	ok "users e2e-member (in rdma_users) and e2e-other created"
else
	fail "users e2e-member (in rdma_users) and e2e-other created"
fi
# member_policy MEMLOCK [HARD]: a policy of one rule (line 3 of /etc/security/rdmalimit.conf):
# memlock MEMLOCK for the group rdma_users, and hard HARD when given
member_policy() {
	sandbox_policy <<EOF
version = 1;
rules = (
  { group = "rdma_users"; memlock = "$1";${2:+ hard = \"$2\";} }
);
EOF
}
member_policy 6M

if sandbox_sshd_start; then
	ok "sshd listening on 127.0.0.1:$SANDBOX_PORT (memlock soft $SANDBOX_SSHD_MEMLOCK_SOFT, hard $SANDBOX_SSHD_MEMLOCK_HARD)"
else
	fail "sshd started"
	exit 1
fi

# login USER OUTFILE COMMAND...: one ssh login, stdout to OUTFILE, stderr to OUTFILE.err
login() {
	local user=$1 out=$2
	shift 2
	sandbox_ssh "$user" "$@" </dev/null >"$out" 2>"$out.err"
}
# login_ok DESC USER OUTFILE COMMAND...: ok when the login succeeds, else its stderr and the
# end of sshd's log as diagnostics
login_ok() {
	local d=$1
	shift
	if login "$@"; then
		ok "$d"
	else
		fail "$d"
		sed 's/^/# /' "$2.err"
		tail -n 20 "$SANDBOX_SSHD_LOG" | sed 's/^/# sshd: /'
	fi
}
# expect DESC FILE EXPECTED: the file's content is EXPECTED
expect() {
	local got
	got=$(cat "$2")
	if [ "$got" = "$3" ]; then
		ok "$1"
	else
		fail "$1"
		diag "expected: $3" "got: $got" && sed 's/^/#   /' "$2.err" 2>/dev/null
	fi
}
# logged DESC PATTERN FROM: a line of the captured /dev/log after line FROM matches PATTERN
logged() {
	if sandbox_log_wait "$2" 5 "$3" >/dev/null; then
		ok "$1"
	else
		fail "$1"
		diag "no line matching: $2" && tail -n +"$(($3 + 1))" "$SANDBOX_SYSLOG" | sed 's/^/#   /'
	fi
}
# pin_umem USER SIZE EXPECTED: the AF_XDP UMEM registration inside USER's login prints EXPECTED
pin_umem() {
	login "$1" "$tmp/umem" "$umem" "$2"
	expect "AF_XDP UMEM of $2 in a login of $1: $3" "$tmp/umem" "$3"
}

# --- 6M for members, untouched for the others ------------------------------------------------
mark=$(sandbox_log_mark)
login_ok "ssh login of e2e-member works" e2e-member "$tmp/limits" cat /proc/self/limits
memlock_of "$tmp/limits" >"$tmp/m"
expect "member of rdma_users: memlock soft 6 MiB, hard $H (sshd's, never lowered)" "$tmp/m" "$MiB6 $H"
logged "the module logged the member's session: rule, values" \
	"pam_rdmalimit\(sshd:session\): user=e2e-member rule group rdma_users \(/etc/security/rdmalimit.conf:3\): memlock soft=6 ?(M|MiB) hard=" "$mark"

mark=$(sandbox_log_mark)
login e2e-other "$tmp/limits" cat /proc/self/limits || fail "ssh login of e2e-other works"
memlock_of "$tmp/limits" >"$tmp/m"
# (Debian's pam_limits starts every session from /proc/1/limits: the namespace's PID 1 has
# sshd's limits, as systemd and its services have on a real host)
expect "non-member: memlock stays soft 64 KiB, hard $H" "$tmp/m" "$KiB64 $H"
logged "the module (debug) logged that no rule matches the non-member" \
	"pam_rdmalimit\(sshd:session\): user=e2e-other: no rule" "$mark"

# --- the kernel agrees: AF_XDP UMEM charged against the session's limit -------------------------
pin_umem e2e-member 3M ok
pin_umem e2e-other 3M errno=ENOBUFS
pin_umem e2e-other 32K ok               # the helper works for the non-member: only the limit bites
pin_umem e2e-member 7M errno=ENOBUFS    # and the member's limit is 6 MiB, not more

if [ -n "$pintest" ]; then
	# pin_test USER SIZE EXPECTED: rdmalimits pin-test --json's af_xdp_umem result and errno
	pin_test() {
		login "$1" "$tmp/pin" "$pintest" pin-test "$2" --json
		"$SANDBOX_PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["mechanisms"] if x["name"] == "af_xdp_umem"][0]
print(m["result"], m["errno"] or "-")' "$tmp/pin" >"$tmp/pin.r" 2>>"$tmp/pin.err" ||
			echo "unparsable: $(cat "$tmp/pin")" >"$tmp/pin.r"
		expect "rdmalimits pin-test $2 --json in a login of $1: af_xdp_umem $3" "$tmp/pin.r" "$3"
	}
	pin_test e2e-member 3M "ok -"
	pin_test e2e-other 3M "failed ENOBUFS"
else
	diag "rdmalimits has no pin-test yet: only tests/e2e/umem-reg registers UMEMs"
fi

# --- a policy above what sshd can give -----------------------------------------------------------
member_policy 16M
mark=$(sandbox_log_mark)
login_ok "policy 16M > sshd's hard limit: the login still succeeds" e2e-member "$tmp/limits" cat /proc/self/limits
memlock_of "$tmp/limits" >"$tmp/m"
expect "policy 16M: the closest value, soft = hard = $H" "$tmp/m" "$H $H"
logged "the module warns, naming the cause (no CAP_SYS_RESOURCE) and the fix (LimitMEMLOCK=16M)" \
	"pam_rdmalimit\(sshd:session\): user=e2e-member .*wanted memlock soft=16 ?(M|MiB) hard=16 ?(M|MiB).*CAP_SYS_RESOURCE.*LimitMEMLOCK=16M" \
	"$mark"
sandbox_log_wait "pam_rdmalimit\(sshd:session\): user=e2e-member .*wanted" 1 "$mark" | sed 's/^/#   /'
# soft and hard apart: the warning must report each.
member_policy 12M 16M
mark=$(sandbox_log_mark)
login e2e-member "$tmp/true" true
check "policy 12M, hard 16M above sshd's hard limit: the warning says wanted soft=12M hard=16M" \
	sandbox_log_wait "pam_rdmalimit\(sshd:session\): user=e2e-member .*wanted memlock soft=12 ?(M|MiB) hard=16 ?(M|MiB)" \
	2 "$mark"
member_policy 16M
# an interactive login (pty) shows the module's pam_info message
mark=$(sandbox_log_mark)
printf 'exit\n' | sandbox_ssh_tty e2e-member >"$tmp/tty" 2>&1
if grep -Eq "memlock is [0-9.]+ ?(K|M|KiB|MiB), not 16 ?(M|MiB): sshd cannot raise its hard limit" "$tmp/tty"; then
	ok "an interactive login (pty) is told by the module: memlock is H, not 16M"
else
	fail "an interactive login (pty) is told by the module: memlock is H, not 16M"
	sed 's/^/#   /' "$tmp/tty"
fi

# --- sshd goes away -------------------------------------------------------------------------------
pid=$SANDBOX_SSHD_PID
sandbox_sshd_stop
check "sshd (pid $pid) stopped" test ! -e "/proc/$pid"
exit 0
