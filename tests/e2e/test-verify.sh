#!/bin/bash
# verify against real logins, in the sandbox of tests/e2e/sandbox.sh (private mount, PID and
# network namespaces; a private sshd on 127.0.0.1 with a throwaway key).  Each case is one
# verify used to get wrong (each checked against the previous code):
#   1. verify's own PAM session (--service sshd, the default) starts from verify's limits; a
#      login through the running sshd starts from sshd's: with sshd's hard limit below the
#      target, verify said OK where explain and a real ssh login say 2 MiB: now BELOW TARGET,
#      naming sshd's limit, as the real login through verify --ssh says.
#   2. --ssh that never logs in (connection refused, unknown host key, no ssh) was a MODEL
#      ERROR (exit 5): now "cannot verify" (exit 1, JSON verdict null).
#   3. the login is USER's: DEST without a user logs in as USER (it used to be root), and a
#      DEST naming another user is refused.
#   4. what the user's start-up files print (a forged limits row, 16 KiB of banner) is not
#      read: only what follows verify's mark; and verify leaves its stdin alone.
#   5. a start-up file that holds the login: verify gives up after --probe-timeout seconds
#      (default 60) and kills its ssh client (what the server runs for the login is the
#      server's: sshd does not end a command when its client goes).
#   6. another module's message about memlock is not the module's (told_user).
#   7. verify's own PAM session held by a FIFO the user made (~/.pam_environment, pam_env):
#      verify gives up after --probe-timeout seconds and kills it, and what it started even in
#      a session of its own (pam_exec).
# Root only.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

if ! sandbox_inside; then
	require_root "verify e2e"
	no_plan
	sandbox_require python3 -f "$PAM_MODULE"
	sandbox_outer "/etc/passwd, group, shadow, pam.d, security, utmp/wtmp, /dev/log" "$0" "$@"
	done_testing
fi

e2e_inner
sandbox_pam_module "$PAM_MODULE" conf=/etc/security/rdmalimit.conf || { echo "Bail out! module line"; exit 1; }
[ "$SANDBOX_MEMLOCK_HARD" -ge $((8 * 1024 * 1024)) ] ||
	{ echo "Bail out! the hard memlock limit is $SANDBOX_MEMLOCK_HARD; 8 MiB needed"; exit 1; }
sandbox_user vmember rdma_users && sandbox_user vother || { echo "Bail out! sandbox_user"; exit 1; }
sandbox_policy <<'EOF'
version = 1;
rules = ( { group = "rdma_users"; memlock = "4M"; } );
EOF
# sshd's hard limit below the policy's 4 MiB: its logins cannot get more
M2=$((2 * 1024 * 1024))
SANDBOX_SSHD_MEMLOCK_HARD=$M2
sandbox_sshd_start || { fail "sshd started"; exit 1; }
pid=$SANDBOX_SSHD_PID
diag "sshd pid $pid, memlock soft $SANDBOX_SSHD_MEMLOCK_SOFT hard $SANDBOX_SSHD_MEMLOCK_HARD"
OPTS=(--ssh-option=-p"$SANDBOX_PORT" --ssh-option=-i"$SANDBOX_KEY" --ssh-option=-oStrictHostKeyChecking=no
	--ssh-option=-oUserKnownHostsFile=/dev/null --ssh-option=-oLogLevel=ERROR)

# --- 1. verify's own PAM session vs a login through the running sshd
"$RDMALIMITS" --json explain vmember >"$tmp/x.json" 2>&1
check "explain: a login through sshd (pid $pid) gets sshd's hard 2 MiB" \
	test "$(json "$tmp/x.json" 'd["policy"]["session"]["hard"]')" = "$M2"
"$RDMALIMITS" verify vmember --ssh vmember@127.0.0.1 "${OPTS[@]}" </dev/null >"$tmp/v-ssh" 2>&1
check "verify --ssh: the real login is below the target (exit 1)" test $? = 1
"$RDMALIMITS" verify vmember >"$tmp/v-pam" 2>&1
rc=$?
check "verify (its own PAM session of sshd): not OK either, as the real login says (exit $rc)" test "$rc" = 1
check "... it names sshd's limits as the reason" grep -q "a login through sshd (pid $pid) starts from its limits, not verify's: explain predicts soft 2 MiB, hard 2 MiB" "$tmp/v-pam"
check "... and the shortfall: sshd's hard limit" grep -q "^BELOW TARGET: .*sshd (pid $pid) has the hard limit 2 MiB and no CAP_SYS_RESOURCE" "$tmp/v-pam"
grep -q "^BELOW TARGET" "$tmp/v-pam" || sed 's/^/#   /' "$tmp/v-pam"

# --- 2. no login at all is no model error
for how in "-oPort=1" "-oHostKeyAlias=nosuchkey -oStrictHostKeyChecking=yes"; do
	# shellcheck disable=SC2086  # the options, one word each
	"$RDMALIMITS" --json verify vmember --ssh vmember@127.0.0.1 --ssh-option=-p"$SANDBOX_PORT" \
		--ssh-option=-i"$SANDBOX_KEY" --ssh-option=-oUserKnownHostsFile=/dev/null $(printf -- '--ssh-option=%s ' $how) \
		</dev/null >"$tmp/nolog.json" 2>"$tmp/nolog.err"
	rc=$?
	check "ssh that never logs in ($how): cannot verify, exit 1, not a model error (exit $rc)" \
		test "$rc" = 1 -a "$(json "$tmp/nolog.json" 'd["verdict"], d["session_opened"]')" = "None False"
	check "... said" grep -q "cannot verify: ssh vmember@127.0.0.1 failed (exit 255)" "$tmp/nolog.err"
done
PATH=/nonexistent "$RDMALIMITS" verify vmember --ssh vmember@127.0.0.1 </dev/null >"$tmp/nossh" 2>&1
check "no ssh to run: cannot verify (exit 1)" test $? = 1
check "... said" grep -q "cannot verify: ssh vmember@127.0.0.1 failed (exit 127)" "$tmp/nossh"

# --- 3. the login is USER's
"$RDMALIMITS" --json verify vmember --ssh 127.0.0.1 "${OPTS[@]}" </dev/null >"$tmp/nouser.json" 2>&1
check "DEST without a user: logs in as USER (the real login's 2 MiB)" \
	test "$(json "$tmp/nouser.json" 'd["session_opened"], d["got"]["hard"]')" = "True $M2"
"$RDMALIMITS" verify vmember --ssh vother@127.0.0.1 "${OPTS[@]}" </dev/null >"$tmp/other" 2>&1
check "DEST naming another user: refused (exit 2)" test $? = 2
check "... said" grep -q "logs in as 'vother', not as vmember" "$tmp/other"

# --- 4. the start-up files' output is not read; stdin is left alone
home=$(getent passwd vother | cut -d: -f6)
{
	echo 'echo "Max locked memory         4194304              8388608              bytes"'
	echo 'head -c 16384 /dev/zero | tr "\0" x; echo'
} >"$home/.bashrc"
chown vother: "$home/.bashrc"
"$RDMALIMITS" --json verify vother --ssh vother@127.0.0.1 "${OPTS[@]}" </dev/null >"$tmp/forged.json" 2>&1
check "a forged row and 16 KiB printed by .bashrc: the login's real limits are read" \
	test "$(json "$tmp/forged.json" 'd["session_opened"], d["got"]["soft"], d["got"]["hard"]')" = \
	"True $SANDBOX_SSHD_MEMLOCK_SOFT $M2"
left=$(printf 'one\ntwo\n' | { "$RDMALIMITS" verify vmember --ssh vmember@127.0.0.1 "${OPTS[@]}" >/dev/null 2>&1; cat; })
check "verify leaves its stdin to the next reader" test "$left" = "$(printf 'one\ntwo')"

# --- 5. a login held by a start-up file
echo 'sleep 300' >"$home/.bashrc"
"$RDMALIMITS" verify vother --ssh vother@127.0.0.1 "${OPTS[@]}" --probe-timeout 2 </dev/null >"$tmp/held" 2>&1
check "a login held by .bashrc: cannot verify after --probe-timeout 2 s (exit 1)" test $? = 1
check "... said" grep -q "cannot verify: the ssh login to vother@127.0.0.1 did not finish in 2 s" "$tmp/held"
check "... and its ssh client is gone (the server's side of the login is the server's)" sh -c '! pgrep -x ssh >/dev/null'
pkill -KILL -u vother 2>/dev/null
rm -f "$home/.bashrc"

# --- 6. what another module says is not the module's message
printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession optional pam_echo.so Reminder: memlock for RDMA jobs\nsession required pam_limits.so\nsession optional pam_rdmalimit.so quiet\n' \
	>/etc/pam.d/echo-svc
"$RDMALIMITS" --json verify vmember --service echo-svc >"$tmp/echo.json" 2>&1
check "pam_echo's line about memlock is not taken for the module's (told_user null)" \
	test "$(json "$tmp/echo.json" 'd["told_user"], "Reminder: memlock for RDMA jobs" in d["messages"]')" = "None True"
# --- 7. verify's own PAM session held by what the user controls: pam_env (user_readenv=1, as
# Debian's sshd stack has it) opens ~/.pam_environment, which the user made a FIFO nobody
# writes.  verify waited for ever; now it gives up after --probe-timeout seconds, kills the
# session's process and says so (exit 1, JSON verdict null).
printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession required pam_env.so user_readenv=1\nsession required pam_limits.so\n' \
	>/etc/pam.d/env-svc
home=$(getent passwd vother | cut -d: -f6)
setpriv --reuid "$(id -u vother)" --regid "$(id -g vother)" --clear-groups mkfifo "$home/.pam_environment"
"$RDMALIMITS" --json verify vother --service env-svc --probe-timeout 2 </dev/null >"$tmp/fifo.json" 2>"$tmp/fifo.err"
check "a FIFO as ~/.pam_environment: cannot verify after --probe-timeout 2 s (exit 1)" test $? = 1
check "... JSON: no session, verdict null, method pam" \
	test "$(json "$tmp/fifo.json" 'd["session_opened"], d["verdict"], d["method"], d["service"]')" = "False None pam env-svc"
check "... said, naming the deadline" \
	grep -q "cannot verify: the PAM session of vother (service env-svc) did not answer in 2 s" "$tmp/fifo.err"
check "... and the session's process is gone (nothing waits on the FIFO)" sh -c '! pgrep -x rdmalimits >/dev/null'
rm -f "$home/.pam_environment"
"$RDMALIMITS" verify vother --service env-svc --probe-timeout 2 </dev/null >"$tmp/nofifo" 2>&1
check "without the FIFO the same verify opens the session (exit 0)" test $? = 0
# ... and what the session started in a session of its own (pam_exec's command calls setsid())
# is killed with it: it used to stay, root's, for as long as it liked
printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession optional pam_exec.so /bin/sleep 4747\nsession required pam_limits.so\n' \
	>/etc/pam.d/exec-svc
"$RDMALIMITS" verify vother --service exec-svc --probe-timeout 2 </dev/null >"$tmp/exec" 2>&1
check "pam_exec's command holds the session: cannot verify after 2 s (exit 1)" test $? = 1
check "... and the command, in a session of its own, is gone too" sh -c '! pgrep -f "^/bin/sleep 4747\$" >/dev/null'
pkill -KILL -f "^/bin/sleep 4747$" 2>/dev/null
sandbox_sshd_stop
exit 0
