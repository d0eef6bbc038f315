#!/bin/bash
# The session model against real logins: explain (with --pid of the real sshd), verify (a real
# PAM session of this process, and a real ssh login) and the real sshd all agree, in the cases
# where the tool used to say something false:
#   - a `bob -` line (no limits): the session keeps the service's limits; verify agrees;
#   - a hard entry above the service's hard limit without CAP_SYS_RESOURCE: Debian's
#     pam_limits keeps the old limit silently; explain's end values say so;
#   - a stack that runs pam_limits, pam_rdmalimit, pam_limits: the last pam_limits decides
#     (explain: before-pam_limits), and a real ssh login gets pam_limits' value;
#   - a pam_limits argument in libpam's brackets, "[conf=/etc/security/my limits.conf]": one
#     argument, as libpam hands it over; a real PAM session agrees with explain.
# In the e2e sandbox (tests/e2e/sandbox.sh); root only, runs under CI=true.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

if ! sandbox_inside; then
	require_root "session model e2e"
	no_plan
	sandbox_require python3
	sandbox_outer "" "$0" "$@"
	done_testing
fi

e2e_inner
sandbox_pam_module "$PAM_MODULE" conf=/etc/security/rdmalimit.conf || { echo "Bail out! module line"; exit 1; }
H=$SANDBOX_MEMLOCK_HARD
KiB64=65536 M2=$((2 * 1024 * 1024)) M4=$((4 * 1024 * 1024))
[ "$H" -ge $((8 * 1024 * 1024)) ] || { echo "Bail out! the hard memlock limit is $H; 8 MiB needed"; exit 1; }

sandbox_user alice rdma_users && sandbox_user bob && sandbox_user carol && sandbox_user dave big
sandbox_policy <<'EOF'
version = 1;
rules = ( { group = "rdma_users"; memlock = "4M"; }, { group = "big"; memlock = "32M"; } );
EOF
# bob: no limits at all; carol: a hard entry above every hard limit here (16 MiB)
sandbox_limits_d 60-test.conf <<'EOF'
bob -
carol soft memlock 2048
carol hard memlock 16384
EOF
sandbox_sshd_start || { fail "sshd started"; exit 1; }
sshd_pid=$SANDBOX_SSHD_PID
diag "sshd pid $sshd_pid, memlock soft $SANDBOX_SSHD_MEMLOCK_SOFT hard $SANDBOX_SSHD_MEMLOCK_HARD"

login() { sandbox_ssh "$1" cat /proc/self/limits </dev/null >"$tmp/$1.limits" 2>"$tmp/$1.err"; memlock_of "$tmp/$1.limits"; }
lim() { [ "$1" = unlimited ] && echo unlimited || echo "$1"; }

# --- explain --pid of the real sshd predicts each real login
for u in alice bob carol; do
	got=$(login "$u")
	"$RDMALIMITS" explain "$u" --pid "$sshd_pid" --json >"$tmp/$u.json" 2>"$tmp/$u.jerr"
	pred=$(json "$tmp/$u.json" '" ".join(str(x) for x in ((d["policy"]["session"]["soft"], d["policy"]["session"]["hard"]) if d.get("policy") else (d["memlock"]["soft"] if d["memlock"]["soft"] is not None else d["service"]["memlock_soft"], d["memlock"]["hard"] if d["memlock"]["hard"] is not None else d["service"]["memlock_hard"])))')
	if [ -n "$got" ] && [ "$pred" = "$got" ]; then
		ok "explain $u --pid <sshd> predicts the real ssh login: $got"
	else
		fail "explain $u --pid <sshd> predicts the real ssh login"
		diag "login: $got" "explain: $pred" "$(cat "$tmp/$u.json" "$tmp/$u.jerr" "$tmp/$u.err" 2>/dev/null)"
	fi
done
check "bob (a '-' line): the login keeps sshd's limits" test "$(login bob)" = "$SANDBOX_SSHD_MEMLOCK_SOFT $SANDBOX_SSHD_MEMLOCK_HARD"
check "explain bob: session no-limits, memlock left to the service" \
	test "$(json "$tmp/bob.json" 'd["session"], d["memlock"]["soft"]')" = "no-limits None"
check "explain carol: the hard entry (16 MiB) is requested, the session ends with sshd's hard" \
	test "$(json "$tmp/carol.json" 'd["memlock"]["requested"]["hard"], d["memlock"]["hard"]')" = "16777216 $SANDBOX_SSHD_MEMLOCK_HARD"
check "explain names the sshd process it modelled" \
	test "$(json "$tmp/alice.json" 'd["service"]["assumed"]')" = False

# --- verify: a real PAM session opened by the tool itself, and a real ssh login.  alice gets
# the policy's 4 MiB, bob has no target (a '-' line): both OK, exit 0.  carol's entry asks a hard
# 16 MiB that no session here can get: as predicted, but below its target, exit 1, naming the
# process's hard limit and the missing CAP_SYS_RESOURCE.
for u in alice bob; do
	"$RDMALIMITS" verify "$u" --service sshd >"$tmp/v-$u" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q '^OK:' "$tmp/v-$u"; then
		ok "verify $u --service sshd: OK (exit 0)"
	else
		fail "verify $u --service sshd: OK (exit $rc)"
		sed 's/^/#   /' "$tmp/v-$u"
	fi
done
"$RDMALIMITS" verify carol --service sshd >"$tmp/v-carol" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^BELOW TARGET: the session gets what explain predicts, but .* has the hard limit 8 MiB and no CAP_SYS_RESOURCE' "$tmp/v-carol"; then
	ok "verify carol --service sshd: below its target (exit 1), held down by the hard limit without CAP_SYS_RESOURCE"
else
	fail "verify carol --service sshd: below its target (exit 1), held down by the hard limit (exit $rc)"
	sed 's/^/#   /' "$tmp/v-carol"
fi
"$RDMALIMITS" --json verify carol --service sshd >"$tmp/v-carol.json" 2>&1
check "verify --json carol: verdict below-target, target the entry's hard 16 MiB" \
	test "$(json "$tmp/v-carol.json" 'd["verdict"], d["target"]["hard"], d["target"]["from"]')" = \
	"below-target 16777216 /etc/security/limits.d/60-test.conf:2 (soft), /etc/security/limits.d/60-test.conf:3 (hard)"
"$RDMALIMITS" --json verify alice --ssh "alice@127.0.0.1" --ssh-option=-p"$SANDBOX_PORT" \
	--ssh-option=-i"$SANDBOX_KEY" --ssh-option=-oStrictHostKeyChecking=no \
	--ssh-option=-oUserKnownHostsFile=/dev/null >"$tmp/v-ssh" 2>"$tmp/v-ssh.err"
rc=$?
if [ "$rc" = 0 ] && [ "$(json "$tmp/v-ssh" 'd["agree"], d["assumed"]')" = "True False" ]; then
	ok "verify alice --ssh: agree (exit 0), modelled from the running sshd"
else
	fail "verify alice --ssh: agree (exit $rc), modelled from the running sshd"
	sed 's/^/#   /' "$tmp/v-ssh" "$tmp/v-ssh.err"
fi

# dave's rule (32 MiB) is above sshd's hard limit, which sshd cannot raise: the module sets
# the closest and tells the user.  Through a real 'ssh host cmd' the message does not reach
# him (sshd is quiet when a command runs), and verify says he was not told; an interactive
# login (a shell on a terminal) shows it
vssh() {
	"$RDMALIMITS" "$@" --ssh "$U@127.0.0.1" --ssh-option=-p"$SANDBOX_PORT" --ssh-option=-i"$SANDBOX_KEY" \
		--ssh-option=-oStrictHostKeyChecking=no --ssh-option=-oUserKnownHostsFile=/dev/null
}
U=dave vssh verify dave >"$tmp/v-ssh-dave" 2>&1
U=dave vssh --json verify dave >"$tmp/v-ssh-dave.json" 2>/dev/null
check "verify dave --ssh: below target, not told (told_shown not-shown)" \
	test "$(json "$tmp/v-ssh-dave.json" 'd["verdict"], d["told_user"], d["told_shown"]')" = "below-target None not-shown"
check "... the text says the user was not told, and why" \
	grep -q "^the user was not told: this ssh login ran a command without a terminal" "$tmp/v-ssh-dave"
sshc() {
	ssh -F /dev/null -p "$SANDBOX_PORT" -i "$SANDBOX_KEY" -o IdentitiesOnly=yes -o BatchMode=yes \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "$@"
}
sshc dave@127.0.0.1 true </dev/null >"$tmp/ssh-dave" 2>&1
check "... as the real 'ssh host cmd' shows: no message of the module in its output" \
	test "$(grep -c "memlock is" "$tmp/ssh-dave")" = 0
printf 'exit\n' | sshc -tt dave@127.0.0.1 >"$tmp/ssh-dave-tty" 2>&1
check "... while an interactive login (a shell on a terminal) shows it" \
	grep -q "memlock is .*, not 32 MiB: sshd cannot raise its hard limit" "$tmp/ssh-dave-tty"
# carol's shortfall is pam_limits' (no rule of the policy): nothing about telling the user
U=carol vssh --json verify carol >"$tmp/v-ssh-carol.json" 2>/dev/null
check "verify carol --ssh: below target, but the module has nothing to tell (told_shown null)" \
	test "$(json "$tmp/v-ssh-carol.json" 'd["verdict"], d["told_shown"]')" = "below-target None"

# --- the three-line stack: pam_limits, pam_rdmalimit, pam_limits: the last pam_limits decides
cp /etc/pam.d/sshd "$tmp/sshd.pam"
awk -v m="$PAM_MODULE" '{ print } $1 == "session" && index($0, m) { print "session    required     pam_limits.so" }' \
	"$tmp/sshd.pam" >/etc/pam.d/sshd
check "the stack now runs pam_limits, pam_rdmalimit, pam_limits" \
	test "$(grep -E '^session' /etc/pam.d/sshd | grep -cE 'pam_limits|pam_rdmalimit')" = 3
got=$(login alice)
"$RDMALIMITS" explain alice --pid "$sshd_pid" --json >"$tmp/three.json" 2>&1
check "explain: the last pam_limits runs after pam_rdmalimit (before-pam_limits)" \
	test "$(json "$tmp/three.json" 'd["policy"]["order"]')" = before-pam_limits
pred=$(json "$tmp/three.json" 'd["policy"]["session"]["soft"], d["policy"]["session"]["hard"]')
check "... and predicts the real login ($got), pam_limits' value, not the policy's 4 MiB" \
	test -n "$got" -a "$pred" = "$got" -a "${got%% *}" != "$M4"
"$RDMALIMITS" verify alice --service sshd >"$tmp/v-three" 2>&1
rc=$?
# the module's line is the sandbox's, not one rdmalimits enable added: enable would not move it
check "verify alice with the three-line stack: as predicted, below the policy's 4 MiB (exit 1), with the fix" \
	test $rc = 1 -a "$(grep -c -e '^BELOW TARGET: .*pam_limits runs after pam_rdmalimit' -e '^fix: move the pam_rdmalimit line (/etc/pam.d/sshd:[0-9]*) after the last pam_limits by hand: rdmalimits enable moves only a line it added$' "$tmp/v-three")" = 2
[ $rc = 1 ] || sed 's/^/#   /' "$tmp/v-three"
cp "$tmp/sshd.pam" /etc/pam.d/sshd

# --- an argument with a blank, in libpam's brackets: pam_limits reads "my limits.conf" (not
# "/etc/security/my", which does not exist and would fail the session).  A real PAM session
# (verify) gets its 3 MiB, as explain predicts.
printf 'alice soft memlock 3072\nalice hard memlock 3072\n' >"/etc/security/my limits.conf"
printf 'session required pam_limits.so [conf=/etc/security/my limits.conf]\nsession required pam_permit.so\n' \
	>/etc/pam.d/brackets
"$RDMALIMITS" --json explain alice --service brackets >"$tmp/x-brk.json" 2>&1
check "explain: [conf=/etc/security/my limits.conf] is one argument: 3 MiB from that file" \
	test "$(json "$tmp/x-brk.json" 'd["session"], d["memlock"]["hard"], d["memlock"]["hard_source"]')" = \
	"limits $((3 * 1024 * 1024)) /etc/security/my limits.conf:2"
"$RDMALIMITS" verify alice --service brackets >"$tmp/v-brk" 2>&1
rc=$?
# (below alice's policy target, as the stack runs no pam_rdmalimit: exit 1, not a model error)
check "verify alice --service brackets: a real PAM session gets the 3 MiB explain predicts (exit $rc)" \
	test "$rc" = 1 -a "$(grep -c -e '^PAM session  got: soft 3 MiB        hard 3 MiB$' \
	-e '^BELOW TARGET: the session gets what explain predicts, but the brackets stack does not run pam_rdmalimit, whose policy has a rule for the user' "$tmp/v-brk")" = 2
[ $rc = 1 ] || sed 's/^/#   /' "$tmp/v-brk" "$tmp/x-brk.json"
rm -f /etc/pam.d/brackets "/etc/security/my limits.conf"
exit 0
