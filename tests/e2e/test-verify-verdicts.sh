#!/bin/bash
# verify's three verdicts against real PAM sessions (the su service's stack, opened by verify
# itself in the sandbox of tests/e2e/sandbox.sh), where it used to print "OK", exit 0:
#   - alice is in rdma_users (the policy asks 3 MiB) and in rdma, for which a limits.d entry
#     says `hard memlock 7gb`, read by pam_limits as 7 KiB: the session gets 7 KiB as explain
#     predicts, but below its target.  Exit 1, the cause is that entry's file:line, the fix is
#     to change that entry, and no LimitMEMLOCK= is offered (su has no unit);
#   - dave's rule asks more than the hard limit of the process opening the session, without
#     CAP_SYS_RESOURCE: exit 1, the cause is that process's hard limit;
#   - erin's rule is met: exit 0; frank has no target: exit 0;
#   - explain --service su without --pid predicts a real su from the caller's limits;
#   - a module the model does not know (pam_exec running prlimit on the session's process)
#     changes memlock: the session differs from the prediction, exit 5, "model-error".
# Root only; the JSON verdicts are checked too.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

if ! sandbox_inside; then
	require_root "verify verdicts"
	no_plan
	sandbox_require python3 prlimit -f /lib/x86_64-linux-gnu/security/pam_exec.so
	sandbox_outer "" "$0" "$@"
	done_testing
fi

e2e_inner
H=$(($(ulimit -H -l) * 1024))
[ "$H" -ge $((4 * 1024 * 1024)) ] || { echo "Bail out! the hard memlock limit is $H; 4 MiB needed"; exit 1; }
diag "hard memlock limit here: $H bytes"
sandbox_user alice rdma_users rdma && sandbox_user dave big && sandbox_user erin small && sandbox_user frank ||
	{ echo "Bail out! sandbox_user"; exit 1; }
sandbox_policy <<EOF
version = 1;
rules = (
  { group = "rdma_users"; memlock = "3M"; },
  { group = "big"; memlock = "$((H / 1024 * 2))K"; },
  { group = "small"; memlock = "1M"; }
);
EOF
sandbox_limits_d 50-rdma.conf <<'EOF'
@rdma hard memlock 7gb
EOF
SU_STACK="session required pam_limits.so
session optional $PAM_MODULE conf=/etc/security/rdmalimit.conf"
printf 'auth sufficient pam_rootok.so\naccount required pam_permit.so\n%s\n' "$SU_STACK" >/etc/pam.d/su

# verdict USER WANT-EXIT DESC: verify USER --service su, text and JSON
verdict() {
	"$RDMALIMITS" verify "$1" --service su >"$tmp/v-$1" 2>&1
	rc=$?
	"$RDMALIMITS" --json verify "$1" --service su >"$tmp/v-$1.json" 2>&1
	jrc=$?
	if [ $rc = "$2" ] && [ $jrc = "$2" ]; then
		ok "verify $1: $3 (exit $2)"
	else
		fail "verify $1: $3 (exit $2; got $rc, --json $jrc)"
		sed 's/^/#   /' "$tmp/v-$1"
	fi
}

verdict alice 1 "as predicted, below the policy's 3 MiB"
check "alice: says BELOW TARGET, pam_limits set the hard limit to 7 KiB from the entry" \
	grep -q "^BELOW TARGET: the session gets what explain predicts, but pam_limits set the hard limit to 7 KiB from /etc/security/limits.d/50-rdma.conf:1" "$tmp/v-alice"
check "alice: the fix is that entry" \
	grep -q "^fix: change or remove the entry at /etc/security/limits.d/50-rdma.conf:1" "$tmp/v-alice"
check "alice: no LimitMEMLOCK= offered (the cause is an entry; su has no unit)" \
	test "$(grep -c LimitMEMLOCK "$tmp/v-alice")" = 0
check "alice --json: verdict below-target, shortfall where the entry" \
	test "$(json "$tmp/v-alice.json" 'd["verdict"], d["shortfall"]["where"], d["target"]["soft"]')" = \
	"below-target /etc/security/limits.d/50-rdma.conf:1 3145728"

# what the module told the user, and who sees it (verify's own PAM session got the message; an
# interactive login shows it, 'ssh host cmd' and 'su - USER -c cmd' do not)
check "alice: verify says what the module told this session" \
	grep -q "^the module told this session: memlock is 7 KiB, not 3 MiB: su cannot raise its hard limit" "$tmp/v-alice"
check "alice: ... and that a user sees it only in an interactive login" \
	grep -q "a user sees it only in an interactive login (a terminal: ssh, login, su); 'ssh host cmd' and 'su - USER -c cmd'" "$tmp/v-alice"
check "alice --json: told_user is the message, told_shown interactive-only" \
	test "$(json "$tmp/v-alice.json" 'd["told_user"][:27], d["told_shown"]')" = "memlock is 7 KiB, not 3 MiB interactive-only"

verdict dave 1 "as predicted, below a target above the hard limit"
check "dave: the cause is the hard limit of the process that opens the session" \
	grep -q "^BELOW TARGET: .* has the hard limit .* and no CAP_SYS_RESOURCE" "$tmp/v-dave"
verdict erin 0 "as predicted, and the policy's 1 MiB reached"
check "erin --json: verdict ok" test "$(json "$tmp/v-erin.json" 'd["verdict"]')" = ok
check "erin: on target, the module told nothing, and verify says nothing of it" \
	test "$(json "$tmp/v-erin.json" 'd["told_user"], d["told_shown"]')" = "None None" -a \
	"$(grep -c "told" "$tmp/v-erin")" = 0
verdict frank 0 "no rule, no entry: nothing to reach"
check "frank --json: verdict ok, no target" test "$(json "$tmp/v-frank.json" 'd["verdict"], d["target"]')" = "ok None"

# explain --service su without --pid models the caller (su keeps the limits of who runs it), not
# PID 1: a real su from a shell with a hard limit of 4 MiB gets what explain predicts there
real=$(prlimit --memlock=65536:4194304 -- su frank -c 'cat /proc/self/limits' </dev/null 2>/dev/null |
	awk '/^Max locked memory/ { print $4, $5 }')
prlimit --memlock=65536:4194304 -- "$RDMALIMITS" --json explain frank --service su >"$tmp/x-frank.json" 2>&1
pred=$(json "$tmp/x-frank.json" 'd["memlock"]["soft"], d["memlock"]["hard"]')
check "explain frank --service su predicts the real su from a caller with hard 4 MiB ($real)" \
	test -n "$real" -a "$pred" = "$real" -a "$real" = "65536 4194304"
check "... and says the session is opened by the caller" \
	test "$(json "$tmp/x-frank.json" 'd["service"]["assumed"], d["service"]["process"][:10]')" = "False the caller"

# quiet: the module tells the user nothing, and verify says so by not claiming it
printf 'auth sufficient pam_rootok.so\naccount required pam_permit.so\n%s quiet\n' "$SU_STACK" >/etc/pam.d/su
verdict alice 1 "quiet: still below the policy's 3 MiB"
check "alice, quiet: no message claimed" \
	test "$(json "$tmp/v-alice.json" 'd["told_user"], d["told_shown"]')" = "None None" -a \
	"$(grep -c "told this session" "$tmp/v-alice")" = 0
printf 'auth sufficient pam_rootok.so\naccount required pam_permit.so\n%s\n' "$SU_STACK" >/etc/pam.d/su

# a module the model does not know lowers the soft limit of the session's process
printf 'auth sufficient pam_rootok.so\naccount required pam_permit.so\n%s\n%s\n' "$SU_STACK" \
	'session optional pam_exec.so /bin/sh -c [prlimit --pid $PPID --memlock=12288:]' >/etc/pam.d/su
verdict erin 5 "a module the model does not know changes memlock: model error"
check "erin: says MODEL ERROR" grep -q "^MODEL ERROR: the session does not get what explain predicts" "$tmp/v-erin"
check "erin --json: verdict model-error" test "$(json "$tmp/v-erin.json" 'd["verdict"]')" = model-error
exit 0
