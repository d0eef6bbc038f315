#!/bin/bash
# An sshd that opens no PAM session (UsePAM no) against real ssh logins.  The real sshd runs
# with `-o UsePAM=no` on its command line (its -f file says yes: the command line is read
# first, and the first value wins), and with Debian's sshd stack, which runs pam_limits and
# pam_rdmalimit, in the e2e sandbox (tests/e2e/sandbox.sh).  A member of rdma_users (the policy
# asks 2 MiB) and a user without a rule log in by ssh and get sshd's own limits.  Asserted:
#   - explain (the running sshd, found as explain finds it) predicts the real logins: the
#     session opens no PAM session, pam_session "none" from the command line of that sshd, and
#     the values are sshd's own, not the 2 MiB of the stack.  It used to predict the stack's;
#   - explain's text says so and gives the fix (UsePAM yes);
#   - verify --ssh: the member agrees but is below the policy's target (exit 1, the cause
#     UsePAM no); the other user agrees and has no target (exit 0);
#   - verify without --ssh (a PAM session of sshd opened by verify itself): never "OK" for an
#     sshd that opens none (exit 1, saying it is not what an ssh login gets);
#   - doctor reads the same answer: UsePAM no from the running sshd's command line (it used to
#     read /etc/ssh/sshd_config only, which says yes here);
#   - doctor --pid of a process of an ssh login compares it with what a new ssh login gets:
#     with UsePAM no a restart does not help (it used to say "restart it from a new session"),
#     with UsePAM yes it does;
#   - with sshd restarted without the option, explain predicts the stack's 2 MiB again and a
#     real login gets it;
#   - an sshd started with a relative -f: explain reads the default file and says so.
# Root only; runs under CI=true.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

if ! sandbox_inside; then
	require_root "sshd UsePAM no e2e"
	no_plan
	sandbox_require python3 -f "$PAM_MODULE"
	sandbox_outer "/etc/passwd, group, shadow, pam.d, security, utmp/wtmp, /dev/log" "$0" "$@"
	done_testing
fi

e2e_inner
sandbox_pam_module "$PAM_MODULE" conf=/etc/security/rdmalimit.conf || { echo "Bail out! module line"; exit 1; }
M2=$((2 * 1024 * 1024))
[ "$SANDBOX_MEMLOCK_HARD" -ge $((4 * 1024 * 1024)) ] ||
	{ echo "Bail out! the hard memlock limit is $SANDBOX_MEMLOCK_HARD; 4 MiB needed"; exit 1; }

sandbox_user nopam-member rdma_users && sandbox_user nopam-other || { echo "Bail out! sandbox_user"; exit 1; }
# Without PAM, sshd itself refuses a locked account ('!'); '*' is a password nobody has, not a
# lock: key logins work either way
shadow=$(sed 's/^\(nopam-[a-z]*\):!:/\1:*:/' "$SANDBOX_DIR/etc/shadow") &&
	printf '%s\n' "$shadow" >"$SANDBOX_DIR/etc/shadow" || { echo "Bail out! shadow"; exit 1; }   # in place: it is bound
sandbox_policy <<'EOF'
version = 1;
rules = ( { group = "rdma_users"; memlock = "2M"; } );
EOF

SANDBOX_SSHD_ARGS="-o UsePAM=no"
sandbox_sshd_start || { fail "sshd started with -o UsePAM=no"; exit 1; }
pid=$SANDBOX_SSHD_PID
soft=$SANDBOX_SSHD_MEMLOCK_SOFT hard=$SANDBOX_SSHD_MEMLOCK_HARD
diag "sshd pid $pid (-o UsePAM=no), memlock soft $soft hard $hard"

login() { sandbox_ssh "$1" cat /proc/self/limits </dev/null >"$tmp/$1.limits" 2>"$tmp/$1.err"; memlock_of "$tmp/$1.limits"; }
vssh() {
	"$RDMALIMITS" "$@" --ssh "$U@127.0.0.1" --ssh-option=-p"$SANDBOX_PORT" --ssh-option=-i"$SANDBOX_KEY" \
		--ssh-option=-oStrictHostKeyChecking=no --ssh-option=-oUserKnownHostsFile=/dev/null
}

# --- real logins and explain
for u in nopam-member nopam-other; do
	got=$(login "$u")
	check "$u: a real ssh login gets sshd's own limits ($soft $hard)" test "$got" = "$soft $hard"
	"$RDMALIMITS" --json explain "$u" >"$tmp/$u.json" 2>"$tmp/$u.jerr"
	pred=$(json "$tmp/$u.json" '(d["policy"]["session"]["soft"], d["policy"]["session"]["hard"]) if d.get("policy") else (d["memlock"]["soft"] if d["memlock"]["soft"] is not None else d["service"]["memlock_soft"], d["memlock"]["hard"] if d["memlock"]["hard"] is not None else d["service"]["memlock_hard"])')
	if [ -n "$got" ] && [ "$pred" = "$got" ]; then
		ok "explain $u predicts the real ssh login: $got"
	else
		fail "explain $u predicts the real ssh login"
		diag "login: $got" "explain: $pred" "$(cat "$tmp/$u.json" "$tmp/$u.jerr" "$tmp/$u.err" 2>/dev/null)"
	fi
done
check "explain --json: no PAM session, from the command line of the running sshd" \
	test "$(json "$tmp/nopam-member.json" 'd["session"], d["pam_session"]["state"], d["pam_session"]["where"]')" = \
	"no-limits none the command line of sshd (pid $pid)"
check "explain --json: the policy's rule matches, its order is no-pam-session" \
	test "$(json "$tmp/nopam-member.json" 'd["policy"]["soft"], d["policy"]["order"]')" = "$M2 no-pam-session"
"$RDMALIMITS" explain nopam-member >"$tmp/x-member" 2>&1
check "explain's text: sshd opens no PAM session, and why" \
	grep -qF "sshd opens no PAM session (UsePAM no, the command line of sshd (pid $pid)): neither pam_limits nor pam_rdmalimit runs for ssh logins" "$tmp/x-member"
check "explain's text: the memlock an ssh login gets" \
	grep -qF "memlock of an ssh login of nopam-member: soft 64 KiB," "$tmp/x-member"
check "explain's text: the fix" \
	grep -qF "fix: start sshd without its -o UsePAM option (the command line of sshd (pid $pid): its unit's ExecStart=" "$tmp/x-member"
check "explain's text: the policy does not apply to its logins" \
	grep -qF "sshd opens no PAM session: this policy does not apply to its logins." "$tmp/x-member"

# --- verify through a real ssh login
U=nopam-member vssh --json verify nopam-member >"$tmp/v-member.json" 2>"$tmp/v-member.err"
rc=$?
if [ "$rc" = 1 ] && [ "$(json "$tmp/v-member.json" 'd["verdict"], d["agree"], d["got"]["soft"]')" = "below-target True $soft" ]; then
	ok "verify nopam-member --ssh: as predicted, below the policy's target (exit 1)"
else
	fail "verify nopam-member --ssh: as predicted, below the policy's target (exit $rc)"
	sed 's/^/#   /' "$tmp/v-member.json" "$tmp/v-member.err"
fi
check "... its shortfall: UsePAM no, with the fix" \
	test "$(json "$tmp/v-member.json" 'd["shortfall"]["where"], "UsePAM no" in d["shortfall"]["why"], d["shortfall"]["fix"].startswith("start sshd without its -o UsePAM option")')" = \
	"the command line of sshd (pid $pid) True True"
U=nopam-other vssh verify nopam-other >"$tmp/v-other" 2>&1
rc=$?
check "verify nopam-other --ssh: no target, as predicted: OK (exit $rc)" \
	grep -q "^OK: the session gets what explain predicts$" "$tmp/v-other"

# --- verify's own PAM session of sshd is not an ssh login
"$RDMALIMITS" verify nopam-other --service sshd >"$tmp/v-pam" 2>&1
rc=$?
check "verify nopam-other --service sshd (a PAM session): not OK (exit 1: $rc)" test "$rc" = 1
check "... says this PAM session is not what an ssh login gets" \
	grep -qF -- "- this PAM session of sshd, opened by verify itself, is not what a login through sshd gets" "$tmp/v-pam"
check "... and why" grep -qF "BELOW TARGET: the session gets what explain predicts, but sshd opens no PAM session" "$tmp/v-pam"

# --- doctor: the same answer
"$RDMALIMITS" --json doctor >"$tmp/doctor.json" 2>&1
check "doctor: UsePAM no, from the running sshd's command line" \
	test "$(json "$tmp/doctor.json" '[f["severity"] + " " + f["where"] for f in d["findings"] if f["message"].startswith("sshd: UsePAM")][0]')" = \
	"error the command line of sshd (pid $pid)"

# --- doctor --pid of a process of an ssh login: judged against what a new ssh login gets (the
# session engine), not the configuration alone.  The policy changes after it started: a new
# login gets no more (no PAM session), so doctor says a restart does not help, with the fix.
# It used to say "restart it from a new session".
sandbox_ssh nopam-member 'exec sleep 300' </dev/null >/dev/null 2>&1 &
client=$!
for _ in $(seq 100); do
	sleeper=$(pgrep -u nopam-member -x sleep) && break
	sleep 0.05
done
sleep 2.1   # a change doctor can tell from the start (it allows a second)
touch /etc/security/rdmalimit.conf
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d-pid" 2>&1
check "doctor --pid <sleep of the ssh login>: a new sshd session gets the same, a restart does not help" \
	grep -qF "WARN sleep (pid $sleeper): memlock soft 64 KiB, hard $(("$hard" / 1048576)) MiB: a new sshd session of nopam-member gets the same (a restart does not help), below its target soft 2 MiB, hard 2 MiB (the policy's rule group rdma_users (line 2)): sshd opens no PAM session (UsePAM no, the command line of sshd (pid $pid))" "$tmp/d-pid"
check "... with the fix for that cause" bash -c 'grep -A1 -F "WARN sleep (pid $1): memlock" "$2" | grep -qF "fix: start sshd without its -o UsePAM option"' _ "$sleeper" "$tmp/d-pid"
check "... its start before the policy changed: a restart does not change it" \
	grep -q "INFO sleep (pid $sleeper): started .*rdmalimit.conf changed .*; a new sshd session of nopam-member gets the same memlock, so a restart does not change it" "$tmp/d-pid"
check "... and it says 'restart it' nowhere" bash -c '! grep -qF "restart it" "$1"' _ "$tmp/d-pid"
[ -s "$tmp/d-pid" ] && grep -q "WARN sleep" "$tmp/d-pid" || sed 's/^/#   /' "$tmp/d-pid"
# the session is the privileged sshd's, root's: not the user's own sshd between them
usersshd=$(awk '/^PPid:/ { print $2 }' "/proc/$sleeper/status")
priv=$(awk '/^PPid:/ { print $2 }' "/proc/$usersshd/status")
diag "sleep $sleeper < sshd $usersshd (uid $(awk '/^Uid:/ { print $2 }' "/proc/$usersshd/status")) < sshd $priv"

# a process of no login (root's, started here): compared with the configuration, no session
# of a service is claimed for it
sleep 300 </dev/null >/dev/null 2>&1 &
plain=$!
"$RDMALIMITS" doctor --pid "$plain" >"$tmp/d-plain" 2>&1
check "doctor --pid <a root process of no login>: no session of a service claimed" \
	bash -c '! grep -q "new [a-z]* session" "$1" && grep -q "sleep (pid $2): " "$1"' _ "$tmp/d-plain" "$plain"
kill "$plain"
wait "$plain" 2>/dev/null

# a user's process cannot steer explain with an sshd-like command line: only root's sshd's
# -f and -o count: the answer comes from /etc/ssh/sshd_config (the host's), not its argv
su -s /bin/sh nopam-other -c 'exec sh -c "sleep 300; :" -o UsePAM=no' </dev/null >/dev/null 2>&1 &
fake=""
for _ in $(seq 100); do
	# the oldest: a child the shell forks shows the same command line until it execs sleep
	fake=$(pgrep -o -u nopam-other -f 'sleep 300; :') && break
	sleep 0.05
done
"$RDMALIMITS" --json explain nopam-member --pid "$fake" >"$tmp/x-fake.json" 2>&1
check "explain --pid <a user's process with -o UsePAM=no in its argv>: not taken for sshd's options" \
	test "$(json "$tmp/x-fake.json" '(d["pam_session"]["where"] or "").startswith("/etc/ssh/sshd_config")')" = True
[ "$(json "$tmp/x-fake.json" '(d["pam_session"]["where"] or "").startswith("/etc/ssh/")')" = True ] ||
	sed 's/^/#   /' "$tmp/x-fake.json"
pkill -u nopam-other 2>/dev/null

# --- without the option: the stack runs again
sandbox_sshd_stop
SANDBOX_SSHD_ARGS=
sandbox_sshd_start || { fail "sshd restarted without -o UsePAM=no"; exit 1; }
got=$(login nopam-member)
"$RDMALIMITS" --json explain nopam-member >"$tmp/m2.json" 2>&1
check "sshd with UsePAM yes: the real login gets the policy's 2 MiB ($got)" test "$got" = "$M2 $hard"
check "... and explain predicts it, the PAM session running" \
	test "$(json "$tmp/m2.json" 'd["pam_session"]["state"], d["policy"]["session"]["soft"]')" = "runs $M2"
# the earlier login's privileged sshd outlived its listener and is init's child now, as after
# `systemctl restart ssh` (KillMode=process): its title says it is a connection's, and explain
# takes the new listener, not it
check "explain models the new listener (pid $SANDBOX_SSHD_PID), not the old connection's sshd" \
	test "$(json "$tmp/m2.json" 'd["service"]["process"]')" = "sshd (pid $SANDBOX_SSHD_PID)"
# the sleep of the earlier login (its connection still open) has sshd's 64 KiB: now a new login
# gets 2 MiB, and doctor says to restart it
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d-pid2" 2>&1
check "doctor --pid: below the 2 MiB a new sshd session gets: restart it from a new login" \
	grep -qF "WARN sleep (pid $sleeper): memlock soft 64 KiB, hard $(("$hard" / 1048576)) MiB is below what a new sshd session of nopam-member gets (soft 2 MiB, hard $(("$hard" / 1048576)) MiB: explain nopam-member --service sshd); it runs in the sshd session of pid $priv" "$tmp/d-pid2"
grep -q "WARN sleep" "$tmp/d-pid2" || sed 's/^/#   /' "$tmp/d-pid2"
kill "$client" 2>/dev/null
pkill -u nopam-member 2>/dev/null
wait "$client" 2>/dev/null

# --- an sshd started with a relative -f: sshd has left the directory it read it from, so its
# file is not known: explain reads the default one and says what it assumed
sandbox_sshd_stop
(cd "$SANDBOX_DIR/sshd" && exec /usr/sbin/sshd -D -e -f sshd_config </dev/null >>"$SANDBOX_SSHD_LOG" 2>&1) &
rel=$!
for _ in $(seq 100); do
	[ -n "$(ss -Hltn "src 127.0.0.1:$SANDBOX_PORT")" ] && break
	sleep 0.05
done
"$RDMALIMITS" --json explain nopam-member >"$tmp/rel.json" 2>&1
check "sshd -f <relative path>: explain assumes the default file, and says why" \
	test "$(json "$tmp/rel.json" 'd["pam_session"]["state"], d["pam_session"]["why"].endswith("assumed: sshd (pid %d) reads /etc/ssh/sshd_config and has no -o UsePAM: its command line cannot be used (cut short, or a relative -f path)" % '"$rel"')')" = "assumed True"
# an entry asking a hard limit above sshd's (8 MiB here, no CAP_SYS_RESOURCE): doctor says the
# daemon holds it back; this sshd runs in no systemd unit (PID 1 is the sandbox's), so the fix
# names none (a unit's LimitMEMLOCK= would not reach it)
printf 'nopam-other hard memlock %d\n' $((hard / 1024 * 2)) >/etc/security/limits.d/70-more.conf
"$RDMALIMITS" --json doctor >"$tmp/doctor2.json" 2>&1
check "doctor: sshd started by hand holds the hard limit back; the fix names no systemd unit" \
	test "$(json "$tmp/doctor2.json" "[('--unit' in (f['fix'] or ''), (f['fix'] or '')[:36]) for f in d['findings'] if f['where'] == 'sshd (pid $rel)' and f['severity'] == 'error']")" = \
	"[(False, 'raise the hard limit where sshd (pid')]"
rm /etc/security/limits.d/70-more.conf
kill "$rel" 2>/dev/null
wait "$rel" 2>/dev/null
sandbox_sshd_stop
exit 0
