#!/bin/bash
# doctor --pid of a process that runs in a su or runuser session: the real setuid su
# (util-linux) and runuser in the sandbox of tests/e2e/sandbox.sh (private mount, PID and
# network namespaces; copies of /etc/passwd, group, pam.d and security bound over the real
# ones).  Such a session is opened by the su process that stays the parent of what it runs,
# and it starts from the limits of whoever ran su; its service is su, or su-l for `su -`.
# doctor names that session, compares the process with what a new one run by the same caller
# gets (the session engine, as explain --service su --pid CALLER computes it), and the real
# session proves each answer: the process's own limits come from it.
#   1. su from an unprivileged caller with 64 KiB: the su stack runs the module, the process
#      has the policy's value, doctor says it is what a new su session gets.
#   2. the policy is raised: doctor says a new su session of that caller gets more; lowered,
#      that the process has more than a new session (it said "OK: what a new session gets").
#   3. `su -` runs the su-l stack, which has no limits module: the process keeps the
#      caller's 64 KiB, and doctor says that is what a new su-l session gets.
#   4. runuser -l from root: the runuser-l session; su run by su: the inner session, whose
#      caller is the outer su; sudo with use_pty: the first sudo's session (its monitor, a fork
#      of it, stands between it and the command), run by the first sudo's parent; that sudo as
#      PID 1 of a PID namespace: its session, whose caller doctor run inside cannot know.
#   5. the caller exits: su is init's child; doctor names PID 1 as the caller, or init.
# Before, doctor passed over su (not a daemon) and compared the process with the
# configuration alone, or claimed the ssh session su ran in.  Root only.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

SU=/bin/su
RUNUSER=/usr/sbin/runuser
SUDO=/usr/bin/sudo

if ! sandbox_inside; then
	e2e_su_outer "doctor --pid with the real su and runuser"
	[ -x "$RUNUSER" ] || need+=(-m "$RUNUSER")
	command -v setpriv >/dev/null || need+=(-m setpriv)
	[ -u "$SUDO" ] || need+=(-m "a setuid $SUDO (Debian: sudo)")
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
V2=$((V + 512 * 1024))
diag "hard memlock limit read here: $H bytes; the policy asks $V bytes, then $V2"
sandbox_user e2e-caller && sandbox_user e2e-target rdma_users || { echo "Bail out! sandbox_user"; exit 1; }
policy() {
	sandbox_policy <<EOF
version = 1;
rules = ( { group = "rdma_users"; memlock = "$(($1 / 1024))K"; } );
EOF
}
policy "$V"

# su and runuser-l open a session that runs the module; su-l's runs no limits module. Anyone
# may su here (the sandbox's own stacks): the test is about the session, not about who gets in.
stack() {
	printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession required pam_permit.so\n%s' "$1"
}
stack "session optional pam_rdmalimit.so
" >/etc/pam.d/su
stack "" >/etc/pam.d/su-l
stack "session optional pam_rdmalimit.so
" >/etc/pam.d/runuser-l
KIB=$((V / 1024))

caller_uid=$(id -u e2e-caller)
caller_gid=$(id -g e2e-caller)
# as_caller CMD: CMD run by bash as e2e-caller, with a soft memlock of 64 KiB (bash forks
# for CMD, which is not its last command, and waits: the caller stays su's parent)
as_caller() {
	setpriv --reuid="$caller_uid" --regid="$caller_gid" --init-groups \
		bash -c "ulimit -S -l 64; $1; :" </dev/null >/dev/null 2>"$tmp/caller.err"
}

# wait_pid USER: the pid of USER's `sleep 300`
wait_pid() {
	local p
	for _ in $(seq 200); do
		p=$(pgrep -u "$1" -x sleep) && { echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}

# parent PID: its parent
parent() { awk '/^PPid:/ { print $2 }' "/proc/$1/status"; }

# the su process that opened the session, and its caller: the nearest su among the ancestors
su_of() {
	local p=$1
	while [ "$p" -gt 1 ]; do
		[ "$(readlink "/proc/$p/exe")" = "$2" ] && { echo "$p"; return 0; }
		p=$(parent "$p")
	done
	return 1
}

kill_sleep() {
	pkill -u "$1" -x sleep 2>/dev/null
	for _ in $(seq 100); do
		pgrep -u "$1" -x sleep >/dev/null || return 0
		sleep 0.05
	done
}

# --- 1. su from an unprivileged caller: the su stack, the policy's value -------------------
as_caller "su e2e-target -c 'exec sleep 300'" &
sleeper=$(wait_pid e2e-target) || { fail "su e2e-target started sleep"; sed 's/^/#   /' "$tmp/caller.err"; done_testing; exit 1; }
su=$(su_of "$sleeper" "$(readlink -f "$SU")")
caller=$(parent "$su")
check "the real su session gave the sleep the policy's $V" test "$(memlock_of "/proc/$sleeper/limits")" = "$V $H"
check "su ($su) runs as root, for its caller $caller (uid $caller_uid)" \
	test "$(awk '/^Uid:/ { print $2, $3 }' "/proc/$su/status")" = "$caller_uid 0"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d1" 2>&1
check "doctor --pid: what a new su session of the user run by the same caller gets, and where it runs" \
	grep -qF "OK   sleep (pid $sleeper): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB: what a new su session of e2e-target run by pid $caller gets, at its target (explain e2e-target --service su --pid $caller); it runs in the su session of pid $su" "$tmp/d1"
grep -q "OK   sleep (pid $sleeper): memlock" "$tmp/d1" || sed 's/^/#   /' "$tmp/d1"
"$RDMALIMITS" --json explain e2e-target --service su --pid "$caller" >"$tmp/x1.json" 2>&1
check "... and explain, from the caller's 64 KiB, predicts what the real session gave" \
	test "$(json "$tmp/x1.json" 'd["service"]["process"], d["service"]["memlock_soft"], d["policy"]["session"]["soft"]')" = "bash (pid $caller) 65536 $V"

# --- 2. the policy raised: a new su session gets more ----------------------------------------
policy "$V2"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d2" 2>&1
check "doctor --pid after the policy was raised: below what a new su session gets, start it again" \
	grep -qF "WARN sleep (pid $sleeper): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB is below what a new su session of e2e-target run by pid $caller gets (soft $((V2 / 1024)) KiB, hard $((H / 1048576)) MiB: explain e2e-target --service su --pid $caller); it runs in the su session of pid $su" "$tmp/d2"
check "... with the fix" bash -c 'grep -A1 -F "WARN sleep (pid $1): memlock" "$2" | grep -qF "fix: start it again from a new session"' _ "$sleeper" "$tmp/d2"
grep -q "WARN sleep (pid $sleeper): memlock" "$tmp/d2" || sed 's/^/#   /' "$tmp/d2"
# the real proof: a new su session from the same kind of caller gets it
got=$(setpriv --reuid="$caller_uid" --regid="$caller_gid" --init-groups \
	bash -c "ulimit -S -l 64; su e2e-target -c 'ulimit -S -l'" </dev/null 2>&1)
check "... and a new real su session gets $((V2 / 1024)) KiB ($got)" test "$got" = "$((V2 / 1024))"
kill_sleep e2e-target
policy "$V"

# --- 2b. the policy lowered: the process has MORE than a new su session gets.  doctor said "OK:
# what a new su session gets" and "a restart does not change it"
as_caller "su e2e-target -c 'exec sleep 300'" &
sleeper=$(wait_pid e2e-target) || { fail "su e2e-target started sleep (2b)"; done_testing; exit 1; }
su=$(su_of "$sleeper" "$(readlink -f "$SU")")
caller=$(parent "$su")
V3=$((V - 512 * 1024))
policy "$V3"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d2b" 2>&1
check "doctor --pid after the policy was lowered: above what a new su session gets, a restart lowers it" \
	grep -qF "INFO sleep (pid $sleeper): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB is above what a new su session of e2e-target run by pid $caller gets now (soft $((V3 / 1024)) KiB" "$tmp/d2b"
check "... and no OK line says it is what a new session gets" sh -c "! grep -q 'OK   sleep (pid $sleeper)' '$tmp/d2b'"
grep -q "is above what a new su session" "$tmp/d2b" || sed 's/^/#   /' "$tmp/d2b"
got=$(setpriv --reuid="$caller_uid" --regid="$caller_gid" --init-groups \
	bash -c "ulimit -S -l 64; su e2e-target -c 'ulimit -S -l'" </dev/null 2>&1)
check "... as a new real su session shows: $((V3 / 1024)) KiB ($got)" test "$got" = "$((V3 / 1024))"
kill_sleep e2e-target
policy "$V"

# --- 3. su -: the su-l stack, no limits module: the caller's 64 KiB ---------------------------
as_caller "su - e2e-target -c 'exec sleep 300'" &
sleeper=$(wait_pid e2e-target) || { fail "su - e2e-target started sleep"; done_testing; exit 1; }
su=$(su_of "$sleeper" "$(readlink -f "$SU")")
caller=$(parent "$su")
check "the real su - session kept the caller's 64 KiB" test "$(memlock_of "/proc/$sleeper/limits")" = "65536 $H"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d3" 2>&1
check "doctor --pid of su -: the su-l session gives what the caller had, short of the policy's, and why" \
	grep -qF "WARN sleep (pid $sleeper): memlock soft 64 KiB, hard $((H / 1048576)) MiB: a new su-l session of e2e-target gets the same (a restart does not help), below its target soft $((KIB / 1024)) MiB, hard $((KIB / 1024)) MiB (the policy's rule group rdma_users (line 2)): the su-l stack does not run pam_rdmalimit" "$tmp/d3"
grep -q "WARN sleep (pid $sleeper): memlock soft 64 KiB, hard $((H / 1048576)) MiB: a new" "$tmp/d3" || sed 's/^/#   /' "$tmp/d3"
kill_sleep e2e-target

# --- 4. runuser -l from root -------------------------------------------------------------------
bash -c "ulimit -S -l 64; $RUNUSER -l e2e-target -c 'exec sleep 300'; :" </dev/null >/dev/null 2>&1 &
ru_job=$!
sleeper=$(wait_pid e2e-target) || { fail "runuser -l e2e-target started sleep"; done_testing; exit 1; }
ru=$(su_of "$sleeper" "$(readlink -f "$RUNUSER")")
check "the real runuser-l session gave the sleep the policy's $V" test "$(memlock_of "/proc/$sleeper/limits")" = "$V $H"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d4" 2>&1
check "doctor --pid of runuser -l: the runuser-l session of pid $ru, run by $(parent "$ru")" \
	grep -qF "OK   sleep (pid $sleeper): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB: what a new runuser-l session of e2e-target run by pid $(parent "$ru") gets, at its target (explain e2e-target --service runuser-l --pid $(parent "$ru")); it runs in the runuser-l session of pid $ru" "$tmp/d4"
grep -q "OK   sleep (pid $sleeper): memlock" "$tmp/d4" || sed 's/^/#   /' "$tmp/d4"
kill_sleep e2e-target
wait "$ru_job" 2>/dev/null

# --- 4b. su run by su (root's su to the member, whose shell runs su to e2e-caller): two
# sessions; the inner one is what the process runs in, and the outer su is its caller
bash -c "ulimit -S -l 64; su e2e-target -c 'su e2e-caller -c \"exec sleep 300\"'; :" </dev/null >/dev/null 2>&1 &
nest_job=$!
sleeper=$(wait_pid e2e-caller) || { fail "su in su started sleep"; done_testing; exit 1; }
inner=$(su_of "$sleeper" "$(readlink -f "$SU")")
outer=$(parent "$inner")
check "su in su: the inner su's parent is the outer su ($outer)" test "$(readlink "/proc/$outer/exe")" = "$(readlink -f "$SU")"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d4b" 2>&1
check "doctor --pid: the inner su's session, run by the outer su" \
	grep -qE "sleep \(pid $sleeper\): memlock .* new su session of e2e-caller run by pid $outer gets.*--service su --pid $outer\); it runs in the su session of pid $inner$" "$tmp/d4b"
grep -q "sleep (pid $sleeper): memlock .*run by pid" "$tmp/d4b" || sed 's/^/#   /' "$tmp/d4b"
kill_sleep e2e-caller
wait "$nest_job" 2>/dev/null

# --- 4c. sudo with use_pty, from a terminal (script(1) gives it one): the sudo that opened the
# session forks a monitor (the same program, the same command line) that forks the command; the
# session's caller is the first sudo's parent
printf 'Defaults use_pty\nDefaults !lecture\ne2e-caller ALL=(e2e-target) NOPASSWD: ALL\n' > "$tmp/sudoers"
chmod 0440 "$tmp/sudoers"
mount --bind "$tmp/sudoers" /etc/sudoers
stack "session optional pam_rdmalimit.so
" >/etc/pam.d/sudo
as_caller "script -qec '$SUDO -n -u e2e-target sleep 300' /dev/null" &
sleeper=$(wait_pid e2e-target) || { fail "sudo started sleep"; sed 's/^/#   /' "$tmp/caller.err"; done_testing; exit 1; }
monitor=$(parent "$sleeper")
main=$(parent "$monitor")
caller=$(parent "$main")
check "sudo from a terminal: sleep < sudo ($monitor) < sudo ($main), the same command line, < its caller ($caller)" \
	test "$(readlink "/proc/$monitor/exe") $(readlink "/proc/$main/exe") $(tr '\0' ' ' < "/proc/$monitor/cmdline" | md5sum)" = \
	"$SUDO $SUDO $(tr '\0' ' ' < "/proc/$main/cmdline" | md5sum)"
check "the real sudo session gave the sleep the policy's $V" test "$(memlock_of "/proc/$sleeper/limits")" = "$V $H"
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d4c" 2>&1
check "doctor --pid: the session of the first sudo ($main), run by its caller ($caller)" \
	grep -qF "OK   sleep (pid $sleeper): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB: what a new sudo session of e2e-target run by pid $caller gets, at its target (explain e2e-target --service sudo --pid $caller); it runs in the sudo session of pid $main" "$tmp/d4c"
grep -q "OK   sleep (pid $sleeper): memlock" "$tmp/d4c" || sed 's/^/#   /' "$tmp/d4c" "$tmp/caller.err"
kill_sleep e2e-target

# --- 4d. the sudo that opened the session is PID 1 of its PID namespace (a container whose init
# is sudo): its monitor's parent is PID 1, the same program with the same command line, and the
# session's caller is outside the namespace.  doctor run inside it named the monitor the opener
# and PID 1 its caller ("PID 1: the caller, or init"), whose limits are the session's own
printf 'root ALL=(ALL) NOPASSWD: ALL\n' >> "$tmp/sudoers"
script -qec "unshare --pid --fork --mount-proc $SUDO -n -u e2e-target sleep 300" /dev/null </dev/null >/dev/null 2>"$tmp/ns.err" &
ns_job=$!
sleeper=$(wait_pid e2e-target) || { fail "sudo as PID 1 started sleep"; sed 's/^/#   /' "$tmp/ns.err"; done_testing; exit 1; }
monitor=$(parent "$sleeper")
main=$(parent "$monitor")
inner_pid() { awk '/^NSpid:/ { print $NF }' "/proc/$1/status"; }
check "sudo ($main) is PID 1 of its namespace, its monitor PID $(inner_pid "$monitor"), the sleep PID $(inner_pid "$sleeper")" \
	test "$(inner_pid "$main") $(readlink "/proc/$main/exe") $(readlink "/proc/$monitor/exe")" = "1 $SUDO $SUDO"
check "the real sudo session gave the sleep the policy's $V" test "$(memlock_of "/proc/$sleeper/limits")" = "$V $H"
nsenter -t "$main" -p -m "$RDMALIMITS" doctor --pid "$(inner_pid "$sleeper")" >"$tmp/d4d" 2>&1
check "doctor --pid inside: the sudo session of PID 1, whose caller it cannot know there" \
	grep -qF "INFO sleep (pid 3): it runs in the sudo session of pid 1, run from outside this PID namespace: what a new sudo session gets depends on the limits of who runs it, not known here; compared with the configuration only" "$tmp/d4d"
check "... and no line names PID 1 the caller, or the monitor the session" \
	sh -c "! grep -qE 'run by pid 1|session of pid 2' '$tmp/d4d'"
check "... the configuration alone: at least what it gives" \
	grep -qF "OK   sleep (pid 3): memlock soft $((KIB / 1024)) MiB, hard $((H / 1048576)) MiB: at least what the configuration gives e2e-target" "$tmp/d4d"
grep -q "sudo session of pid 1" "$tmp/d4d" || sed 's/^/#   /' "$tmp/d4d"
kill_sleep e2e-target
wait "$ns_job" 2>/dev/null

# --- 5. the caller gone: su is init's child, which a new session would then start from ---------
setpriv --reuid="$caller_uid" --regid="$caller_gid" --init-groups \
	bash -c "ulimit -S -l 64; setsid su e2e-target -c 'exec sleep 300' </dev/null >/dev/null 2>&1 &" </dev/null
sleeper=$(wait_pid e2e-target) || { fail "su e2e-target started sleep"; done_testing; exit 1; }
su=$(su_of "$sleeper" "$(readlink -f "$SU")")
for _ in $(seq 100); do
	[ "$(parent "$su")" = 1 ] && break
	sleep 0.05
done
check "su ($su) outlived its caller: init's child" test "$(parent "$su")" = 1
"$RDMALIMITS" doctor --pid "$sleeper" >"$tmp/d5" 2>&1
check "doctor --pid: the su session named, and PID 1 said to be the caller or init" \
	grep -qE "^  (OK  |WARN) sleep \(pid $sleeper\): memlock .* new su session of e2e-target run by pid 1 \(PID 1: the caller, or init if the caller is gone\) gets.*explain e2e-target --service su --pid 1\); it runs in the su session of pid $su$" "$tmp/d5"
grep -q "sleep (pid $sleeper): memlock .*run by pid 1" "$tmp/d5" || sed 's/^/#   /' "$tmp/d5"
kill_sleep e2e-target

# --- 6. the module before a pam_limits whose setrlimit fails: the module's values stay -------
# pam_limits asks a hard limit above the one here; su cannot raise it (no CAP_SYS_RESOURCE
# in this container), and Debian's pam_limits keeps the limits it found, the module's
stack "session optional pam_rdmalimit.so
session required pam_limits.so
" >/etc/pam.d/su
printf 'e2e-target soft memlock %d\ne2e-target hard memlock %d\n' $((V / 2048)) $((H * 2 / 1024)) \
	>/etc/security/limits.d/60-e2e.conf
as_caller "su e2e-target -c 'exec sleep 300'" &
sleeper=$(wait_pid e2e-target) || { fail "su e2e-target started sleep"; done_testing; exit 1; }
caller=$(parent "$(su_of "$sleeper" "$(readlink -f "$SU")")")
check "the real su session: pam_limits' setrlimit failed, the module's $V stays" \
	test "$(memlock_of "/proc/$sleeper/limits")" = "$V $H"
"$RDMALIMITS" --json explain e2e-target --service su --pid "$caller" >"$tmp/x6.json" 2>&1
check "explain predicts it, and names no limits.d line as the source of a value it does not set" \
	test "$(json "$tmp/x6.json" 'd["memlock"]["soft"], d["memlock"]["soft_source"][:5], d["memlock"]["hard_source"][:5]')" = "$V kept: kept:"
"$RDMALIMITS" explain e2e-target --service su --pid "$caller" >"$tmp/x6" 2>&1
check "... and does not say that pam_limits wins" grep -q "its setrlimit\$" "$tmp/x6"
grep -q "its setrlimit$" "$tmp/x6" || sed 's/^/#   /' "$tmp/x6"
rm /etc/security/limits.d/60-e2e.conf
kill_sleep e2e-target
exit 0
