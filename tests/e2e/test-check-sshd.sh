#!/bin/bash
# End to end: `rdmalimits check` does not call a line dead that a real login uses.  In the
# sandbox (tests/e2e/sandbox.sh: private mount, PID and network namespaces, copies of
# /etc/passwd, group, pam.d and security) with Debian's real sshd and pam_limits, the tree
#     @rdma_users hard memlock 1024
#     alice       soft memlock 1024
#     @rdma_users -    memlock 4096
# where alice and carol are in rdma_users:
#   - alice's ssh login gets hard 1024 KiB: the '-' line is refused in her soft slot (her own
#     line holds it) and so, pam_limits' quirk, never reaches the hard slot; line 1 sets it;
#   - carol's login gets 4096 KiB from line 3;
#   - check says nothing of line 1 never taking effect, and says it takes effect for alice;
#     explain alice says 1 MiB hard from line 1;
#   - the host is unchanged afterwards, and no process of the sandbox is left.
# Root only (skips as a normal user, fails under CI=true).  Run by `make check`.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

host_state() { sandbox_host_state; }

# ---------------------------------------------------------------------------------------------
if ! sandbox_inside; then
	require_root "check sshd e2e"
	no_plan
	sandbox_require "$RDMALIMITS"
	sandbox_outer "/etc/passwd, group, shadow, pam.d, security, utmp/wtmp, /dev/log" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
# Inside the sandbox.  TAP counters go back on fd 3.
# pam_limits alone decides: no pam_rdmalimit line
unset PAM_MODULE SANDBOX_PAM_MODULE
e2e_inner

H=$SANDBOX_MEMLOCK_HARD
if [ "$H" != unlimited ] && [ "$H" -lt $((4 * 1024 * 1024)) ]; then
	echo "Bail out! the hard memlock limit here is $H bytes; the test needs at least 4 MiB"
	exit 1
fi
sandbox_user alice rdma_users >/dev/null
sandbox_user carol rdma_users >/dev/null
sandbox_limits_d 50-three.conf <<'EOF'
@rdma_users hard memlock 1024
alice soft memlock 1024
@rdma_users - memlock 4096
EOF
if ! sandbox_sshd_start; then
	fail "sshd started in the sandbox"
	exit 1
fi

# memlock soft:hard (bytes) of a real ssh login
login_memlock() {
	sandbox_ssh "$1" cat /proc/self/limits </dev/null |
		awk '/^Max locked memory/ { print $4 ":" $5 }'
}
got=$(login_memlock alice)
is_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1"; diag "expected $3, got '$2'"; fi; }
is_eq "alice's ssh login: soft and hard 1024 KiB (hard from line 1, the '-' quirk)" "$got" "1048576:1048576"
got=$(login_memlock carol)
is_eq "carol's ssh login: 4096 KiB from line 3" "$got" "4194304:4194304"

# check and explain through NSS, as an admin runs them here
"$RDMALIMITS" check > "$tmp/check" 2>&1
check "check does not call line 1 dead" sh -c '! grep -q "50-three.conf:1: .*never takes effect" "$1"' _ "$tmp/check"
check "check: line 1 takes effect for alice, not for carol" \
	grep -q "50-three.conf:1: info: overridden for carol .*takes effect for alice" "$tmp/check"
grep -q "50-three.conf" "$tmp/check" || sed 's/^/# /' "$tmp/check"
"$RDMALIMITS" explain alice --json > "$tmp/explain" 2>&1
check "explain alice: hard 1 MiB from line 1" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["memlock"]
sys.exit(not (m["hard"] == 1048576 and m["hard_source"].endswith("50-three.conf:1")))' "$tmp/explain"
exit 0
