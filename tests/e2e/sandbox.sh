# shellcheck shell=bash
# sandbox.sh: a throwaway login sandbox with the real Debian sshd, for the e2e tests and the demo.
# Source it from bash; root only.
#
# Everything happens in private namespaces entered by re-executing the calling script:
#   mount (private propagation), PID (so no process of the sandbox can outlive it: when the
#   script, PID 1 there, exits, the kernel kills the rest), network (only a loopback
#   interface: the sshd cannot be reached from outside, and any port is free).
# Inside, throwaway copies are bind-mounted over /etc/passwd, /etc/group, /etc/shadow,
# /etc/pam.d and /etc/security, and tmpfs over /run (sshd's privilege separation dir, utmp,
# motd), /var/log (wtmp, btmp, lastlog) and /dev (a private /dev with host nodes bind-mounted
# in and a datagram socket at /dev/log that records what pam_syslog sends).  The host's real
# /etc, /run, /var/log and /dev are never written.  Everything the sandbox creates lives in
# tmpfs (the sandbox's own files in $SANDBOX_DIR=/run/rdmalimit-sandbox.ID) that disappears with
# the mount namespace; nothing is created on the host, even when the script is killed.
# So the module and programs under test must not live under /run, /var/log or /dev.
#
# Usage (see tests/e2e/test-sshd.sh):
#   . tests/e2e/sandbox.sh
#   if ! sandbox_inside; then
#           ... host-side checks before ...
#           sandbox_reexec "$0" "$@"; rc=$?      # runs this script again in the namespaces
#           ... host-side checks after (sandbox_leftovers) ...
#           exit $rc
#   fi
#   sandbox_start                                # installs an EXIT trap calling sandbox_stop
#   sandbox_user alice rdma_users                # user alice, member of rdma_users
#   sandbox_user bob
#   sandbox_policy <<EOF
#   version = 1; rules = ( { group = "rdma_users"; memlock = "6M"; } );
#   EOF
#   sandbox_sshd_start                           # memlock soft 64 KiB, hard = min(hard, 8 MiB)
#   sandbox_ssh alice cat /proc/self/limits </dev/null
#   sandbox_log_wait 'pam_rdmalimit.*user=alice'
#
# Functions
#   sandbox_inside                 true inside the namespaces made by sandbox_reexec
#   sandbox_reexec SCRIPT ARG...   (host side) run bash SCRIPT ARG... in new mount+PID+net
#                                  namespaces with RLIMIT_MEMLOCK soft $SANDBOX_MEMLOCK_SOFT,
#                                  hard $SANDBOX_MEMLOCK_HARD (the namespace's PID 1, whose
#                                  /proc/1/limits Debian's pam_limits starts from, looks like
#                                  the sshd's parent); returns its exit status
#   sandbox_new_dir                (host side) choose $SANDBOX_DIR now (sandbox_reexec does
#                                  unless it is set), e.g. before running sandbox_reexec in a
#                                  subshell
#   sandbox_leftovers              (host side, after) list host processes still naming the
#                                  sandbox directory; false when there are none
#   sandbox_require [-f FILE | -m WHAT | COMMAND]...
#                                  (host side, before) bail out (exit 99), naming what is
#                                  missing, unless the commands the sandbox runs and each
#                                  COMMAND (a name or an executable's path) and FILE are here,
#                                  and /etc/pam.d/sshd runs pam_limits; -m WHAT: missing too
#                                  (a check of the caller's that failed)
#   sandbox_host_state [-d DIR]... [PATH...]
#                                  (host side) print what a sandboxed run must leave as it was:
#                                  the files it shadows in /etc, the places sshd, PAM and syslog
#                                  write to, each DIR listed and each PATH (see below)
#   sandbox_start                  build the sandbox (see above); PAM module line from
#                                  $SANDBOX_PAM_MODULE or $PAM_MODULE when set; installs
#                                  traps (EXIT: sandbox_stop) unless $SANDBOX_NO_TRAP is set
#   sandbox_pam_module PATH [ARG...]  put `session optional PATH ARG...` after pam_limits in
#                                  the sandbox's sshd stack (default ARG: conf=/etc/security/
#                                  rdmalimit.conf); without PATH: remove the line
#   sandbox_group NAME             create group NAME (gid 64501+) unless it exists; prints gid
#   sandbox_user NAME [GROUP...]   user NAME (uid 64001+, own group, /bin/bash, password
#                                  locked, home in the sandbox, the run's ed25519 key in
#                                  ~/.ssh/authorized_keys), member of GROUP... (created)
#   sandbox_policy                 stdin -> /etc/security/rdmalimit.conf (root, 0644)
#   sandbox_limits_d NAME          stdin -> /etc/security/limits.d/NAME (root, 0644)
#   sandbox_install PROGRAM [CAPS] copy PROGRAM to $SANDBOX_BIN (0755, executable by the
#                                  sandbox users), setcap CAPS (e.g. cap_net_raw+ep) when given;
#                                  prints the copy's path
#   sandbox_sshd_start             start /usr/sbin/sshd -D -e on 127.0.0.1:$SANDBOX_PORT with a
#                                  throwaway host key and config, memlock soft
#                                  $SANDBOX_SSHD_MEMLOCK_SOFT hard $SANDBOX_SSHD_MEMLOCK_HARD
#                                  (bytes; default 64 KiB and the namespace's hard limit).
#                                  Debian's pam_limits restarts every session from
#                                  /proc/1/limits, i.e. $SANDBOX_MEMLOCK_*: change both.
#   sandbox_sshd_stop              stop it (by pid) and wait for it
#   sandbox_ssh USER COMMAND...    ssh USER@127.0.0.1 COMMAND with the run's key; no config,
#                                  no known_hosts, BatchMode, killed after $SANDBOX_SSH_TIMEOUT
#                                  (30) s; returns ssh's status
#   sandbox_ssh_tty USER COMMAND...  the same with a pty (-tt): PAM messages to the user show
#   sandbox_log_mark               print the current line count of $SANDBOX_SYSLOG
#   sandbox_log_wait PATTERN [TIMEOUT [FROM]]  wait (default 5 s) until a line after line FROM
#                                  of $SANDBOX_SYSLOG matches the ERE PATTERN; print it
#   sandbox_stop                   stop sshd and the log listener, unmount everything
#                                  (idempotent; also the EXIT trap)
# Variables (after sandbox_start): SANDBOX_DIR, SANDBOX_BIN, SANDBOX_KEY, SANDBOX_PORT,
#   SANDBOX_SYSLOG (what arrived at /dev/log, one line per message), SANDBOX_SSHD_LOG,
#   SANDBOX_SSHD_PID, SANDBOX_HOME (parent of the homes).

SANDBOX_UID_BASE=${SANDBOX_UID_BASE:-64001}
SANDBOX_GID_BASE=${SANDBOX_GID_BASE:-64501}
SANDBOX_SSHD=${SANDBOX_SSHD:-/usr/sbin/sshd}
SANDBOX_PYTHON=${SANDBOX_PYTHON:-/usr/bin/python3}

_sandbox_msg() { echo "sandbox: $*" >&2; }

# shellcheck source=../lib/privdev.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../lib/privdev.sh" || return 1

sandbox_inside() { [ "${SANDBOX_NS:-}" = 1 ] && [ -n "${SANDBOX_DIR:-}" ]; }

# bytes of `ulimit -H -l` (KiB), or "unlimited"
_sandbox_hard_bytes() {
	local h
	h=$(ulimit -H -l)
	if [ "$h" = unlimited ]; then echo unlimited; else echo $((h * 1024)); fi
}

sandbox_reexec() {
	local script=$1 rc hard
	shift
	if sandbox_inside; then
		_sandbox_msg "sandbox_reexec: already inside the sandbox"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		_sandbox_msg "sandbox_reexec: needs root"
		return 1
	fi
	# A hard limit is only ever lowered here: root without CAP_SYS_RESOURCE cannot raise it.
	hard=$(_sandbox_hard_bytes)
	if [ -z "${SANDBOX_MEMLOCK_HARD:-}" ]; then
		SANDBOX_MEMLOCK_HARD=8388608
		[ "$hard" != unlimited ] && [ "$hard" -lt "$SANDBOX_MEMLOCK_HARD" ] && SANDBOX_MEMLOCK_HARD=$hard
	fi
	SANDBOX_MEMLOCK_SOFT=${SANDBOX_MEMLOCK_SOFT:-65536}
	[ -n "${SANDBOX_DIR:-}" ] || sandbox_new_dir
	export SANDBOX_DIR SANDBOX_MEMLOCK_SOFT SANDBOX_MEMLOCK_HARD SANDBOX_NS=1
	SANDBOX_HOST_MNTNS=$(readlink /proc/self/ns/mnt) SANDBOX_HOST_NETNS=$(readlink /proc/self/ns/net)
	export SANDBOX_HOST_MNTNS SANDBOX_HOST_NETNS
	# --kill-child: if unshare dies, its child (PID 1 of the namespace) and so everyone in it
	# is killed too.  The mount namespace, with all its mounts and tmpfs, goes with them.
	prlimit --memlock="$SANDBOX_MEMLOCK_SOFT:$SANDBOX_MEMLOCK_HARD" -- \
		unshare --mount --propagation private --pid --fork --kill-child --mount-proc --net -- \
		bash "$script" "$@"
	rc=$?
	unset SANDBOX_NS
	return $rc
}

sandbox_require() {
	local missing= t
	for t in "$SANDBOX_SSHD" ssh ssh-keygen unshare prlimit ss ip "$SANDBOX_PYTHON"; do
		command -v "$t" >/dev/null || missing+=" $t"
	done
	while [ $# -gt 0 ]; do
		if [ "$1" = -f ]; then
			[ -f "$2" ] || missing+=" $2"
			shift 2
		elif [ "$1" = -m ]; then
			missing+=" $2"
			shift 2
		else
			command -v "$1" >/dev/null || missing+=" $1"
			shift
		fi
	done
	grep -Eq '^[[:space:]]*session[[:space:]].*pam_limits\.so' /etc/pam.d/sshd 2>/dev/null ||
		missing+=" an /etc/pam.d/sshd with pam_limits"
	if [ -n "$missing" ]; then
		echo "Bail out! missing:$missing"
		exit 99
	fi
}

# sandbox_host_state [-d DIR]... [PATH...]: the hashes of /etc/passwd, group, shadow, gshadow
# and of every file under /etc/pam.d and /etc/security; the listing (type, mode, owner, size)
# of those two directories and of each DIR; the type, mode, size and time (or absence) of
# wtmp, btmp, lastlog, utmp, /run/sshd, /dev/log and each PATH.  For a test's host_state.
sandbox_host_state() {
	local dirs=(/etc/pam.d /etc/security) f
	while [ "${1:-}" = -d ]; do
		dirs+=("$2")
		shift 2
	done
	for f in /etc/passwd /etc/group /etc/shadow /etc/gshadow; do
		[ -e "$f" ] && sha256sum "$f"
	done
	find "${dirs[@]}" -printf '%p %y %m %u:%g %s\n' | LC_ALL=C sort
	find /etc/pam.d /etc/security -type f -exec sha256sum {} + | LC_ALL=C sort
	for f in /var/log/wtmp /var/log/btmp /var/log/lastlog /run/utmp /run/sshd /dev/log "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			stat -c '%n %F %a %s %Y' "$f"
		else
			echo "$f absent"
		fi
	done
}

# sandbox_outer LABEL SCRIPT ARGS...: the host side of a sandboxed test.  Runs SCRIPT again in
# the sandbox (its TAP lines go to stdout, its counters come back on fd 3 and are taken over),
# then checks that the host is as it was (with the test's host_state function, when it has
# one; LABEL says what that covers) and that no process of the sandbox is left running.
sandbox_outer() {
	local label=$1 before= after counters rc n failed left
	shift
	declare -F host_state >/dev/null && before=$(host_state)
	sandbox_new_dir # here: the command substitution below is a subshell
	exec 4>&1
	counters=$(sandbox_reexec "$@" 3>&1 1>&4 4>&-)
	rc=$?
	exec 4>&-
	if read -r n failed <<<"$counters" && [ -n "$failed" ]; then
		_tap_n=$n _tap_failed=$failed
	else
		fail "the sandboxed part ran to the end (status $rc)"
	fi
	[ "$rc" = 0 ] || diag "the sandboxed part exited with status $rc"
	if declare -F host_state >/dev/null; then
		after=$(host_state)
		if [ "$before" = "$after" ]; then
			ok "the host's $label are unchanged"
		else
			fail "the host's $label are unchanged"
			diff -u <(echo "$before") <(echo "$after") | sed 's/^/# /'
		fi
	fi
	if left=$(sandbox_leftovers); then
		fail "no sshd or other process of the sandbox is left running"
		printf '%s\n' "$left" | sed 's/^/# /'
	else
		ok "no sshd or other process of the sandbox is left running"
	fi
}

# sandbox_inner: the start of the sandbox side: when it exits, the sandbox is stopped and the
# TAP counters go back to sandbox_outer on fd 3.
sandbox_inner() {
	no_plan
	SANDBOX_NO_TRAP=1
	trap _sandbox_inner_finish EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
# shellcheck disable=SC2317 # called from the trap
_sandbox_inner_finish() {
	sandbox_stop
	echo "$_tap_n $_tap_failed" >&3
}

# The sandbox's directory: it lives in the tmpfs mounted over /run inside, so nothing is
# created on the host.  The random part makes it unique, for sandbox_leftovers and concurrent
# runs.
sandbox_new_dir() {
	SANDBOX_DIR=/run/rdmalimit-sandbox.$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
}

sandbox_leftovers() {
	local p found=1 args
	[ -n "${SANDBOX_DIR:-}" ] || return 1
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$BASHPID" ] && continue
		args=()
		{ mapfile -d '' -t args <"$p/cmdline"; } 2>/dev/null || continue
		case "${args[*]}" in
		*"$SANDBOX_DIR"*) echo "${p#/proc/} ${args[*]}"; found=0 ;;
		esac
	done
	return $found
}

# Refuse to touch mounts unless this really is a mount namespace of our own: making / private
# or mounting over /etc in the host's namespace would change the host.
_sandbox_check_ns() {
	local ns
	ns=$(readlink /proc/self/ns/mnt)
	if ! sandbox_inside || [ -z "${SANDBOX_HOST_MNTNS:-}" ] || [ "$ns" = "$SANDBOX_HOST_MNTNS" ]; then
		_sandbox_msg "not inside a private mount namespace made by sandbox_reexec: refusing"
		return 1
	fi
}

_sandbox_bind() { mount --bind "$1" "$2" && _sandbox_mounts+=("$2"); }

sandbox_start() {
	local d t
	_sandbox_check_ns || return 1
	[ -z "${_sandbox_started:-}" ] || return 0
	_sandbox_mounts=()
	mount --make-rprivate / || return 1
	d=$SANDBOX_DIR
	# /run: the sandbox's own files, sshd's privilege separation directory (root-owned, not
	# writable by others), utmp, motd.dynamic written by pam_motd.  Not nosuid: the programs
	# given file capabilities live here.
	mount -t tmpfs -o mode=0755,size=256m rdmalimit-sandbox /run || return 1
	_sandbox_started=1
	_sandbox_mounts+=(/run)
	mkdir -m 0755 "$d" /run/sshd && install -m 0664 -g utmp /dev/null /run/utmp || return 1
	if [ -z "${SANDBOX_NO_TRAP:-}" ]; then
		trap sandbox_stop EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		trap 'exit 129' HUP
	fi
	SANDBOX_BIN=$d/bin SANDBOX_HOME=$d/home SANDBOX_KEY=$d/client/id_ed25519
	SANDBOX_SYSLOG=$d/log/syslog SANDBOX_SSHD_LOG=$d/log/sshd.log
	mkdir -m 0755 "$d/etc" "$d/bin" "$d/home" "$d/log" "$d/sshd" "$d/dev" &&
		mkdir -m 0700 "$d/client" || return 1

	# network: a new namespace has lo down
	if [ "$(readlink /proc/self/ns/net)" != "${SANDBOX_HOST_NETNS:-}" ]; then
		ip link set lo up || return 1
	fi

	# /etc copies
	cp -p /etc/passwd /etc/group /etc/shadow "$d/etc/" &&
		cp -a /etc/pam.d /etc/security "$d/etc/" || return 1
	chown root:root "$d/etc/passwd" "$d/etc/group" && chmod 0644 "$d/etc/passwd" "$d/etc/group"
	chmod 0640 "$d/etc/shadow"
	chown -R root:root "$d/etc/pam.d" "$d/etc/security"
	chmod 0755 "$d/etc/pam.d" "$d/etc/security"
	: >"$d/etc/security/rdmalimit.conf" && chmod 0644 "$d/etc/security/rdmalimit.conf"
	for t in passwd group shadow pam.d security; do
		_sandbox_bind "$d/etc/$t" "/etc/$t" || return 1
	done

	# /var/log: wtmp, btmp, lastlog of pty logins
	if [ -d /var/log ]; then
		mount -t tmpfs -o mode=0755,size=16m,nosuid,nodev sandbox-varlog /var/log &&
			_sandbox_mounts+=(/var/log) || return 1
		install -m 0664 -g utmp /dev/null /var/log/wtmp
		install -m 0664 -g utmp /dev/null /var/log/lastlog
		install -m 0660 -g utmp /dev/null /var/log/btmp
	fi

	_sandbox_dev || return 1
	_sandbox_syslog_start || return 1

	# the run's client key
	ssh-keygen -q -t ed25519 -N '' -C "rdmalimit-sandbox" -f "$SANDBOX_KEY" </dev/null || return 1
	ssh-keygen -q -t ed25519 -N '' -C "rdmalimit-sandbox-host" -f "$d/sshd/ssh_host_ed25519_key" </dev/null ||
		return 1

	t=${SANDBOX_PAM_MODULE:-${PAM_MODULE:-}}
	if [ -n "$t" ]; then
		sandbox_pam_module "$t" || return 1
	fi
}

# A private /dev with a served /dev/log (tests/lib/privdev.sh): what pam_syslog sends arrives
# in $SANDBOX_SYSLOG, one line per message.
_sandbox_dev() {
	privdev_mount "$SANDBOX_DIR/dev" "${SANDBOX_HOST_MNTNS:-}" && _sandbox_mounts+=(/dev)
}

_sandbox_syslog_start() {
	local rc=0
	privdev_syslog_start "$SANDBOX_PYTHON" "$SANDBOX_SYSLOG" "$SANDBOX_DIR/log/syslog-listener.err" || rc=1
	_sandbox_syslog_pid=${PRIVDEV_SYSLOG_PID:-}
	return $rc
}

sandbox_pam_module() {
	local f=$SANDBOX_DIR/etc/pam.d/sshd line tmp
	if [ $# -gt 0 ]; then
		if [ ! -f "$1" ]; then
			_sandbox_msg "PAM module $1 does not exist"
			return 1
		fi
		line="session optional $*"
		[ $# -gt 1 ] || line+=" conf=/etc/security/rdmalimit.conf"
	fi
	if ! grep -Eq '^[[:space:]]*session[[:space:]].*pam_limits\.so' "$f"; then
		_sandbox_msg "$f has no session pam_limits.so line"
		return 1
	fi
	# after the pam_limits session line; rewrite in place (the file is bind-mounted)
	tmp=$(awk -v line="${line:-}" '
		/# sandbox: pam_rdmalimit$/ { next }
		{ print }
		line != "" && /^[[:space:]]*session[[:space:]].*pam_limits\.so/ { print line "  # sandbox: pam_rdmalimit" }
	' "$f") || return 1
	printf '%s\n' "$tmp" >"$f"
}

_sandbox_next_id() { # FILE BASE: the first id >= BASE not in column 3 of FILE
	awk -F: -v base="$2" '{ used[$3] = 1 } END { id = base; while (id in used) id++; print id }' "$1"
}

sandbox_group() {
	local name=$1 gid
	gid=$(awk -F: -v n="$name" '$1 == n { print $3 }' "$SANDBOX_DIR/etc/group")
	if [ -z "$gid" ]; then
		gid=$(_sandbox_next_id "$SANDBOX_DIR/etc/group" "$SANDBOX_GID_BASE")
		echo "$name:x:$gid:" >>"$SANDBOX_DIR/etc/group"
	fi
	echo "$gid"
}

_sandbox_add_member() { # GROUP USER
	local tmp
	tmp=$(awk -F: -v OFS=: -v g="$1" -v u="$2" '
		$1 == g { n = split($4, m, ","); found = 0
			for (i = 1; i <= n; i++) if (m[i] == u) found = 1
			if (!found) $4 = ($4 == "" ? u : $4 "," u) }
		{ print }' "$SANDBOX_DIR/etc/group") || return 1
	printf '%s\n' "$tmp" >"$SANDBOX_DIR/etc/group"
}

sandbox_user() {
	local name=$1 uid home g
	shift
	if grep -q "^$name:" "$SANDBOX_DIR/etc/passwd"; then
		_sandbox_msg "user $name exists"
		return 1
	fi
	uid=$(_sandbox_next_id "$SANDBOX_DIR/etc/passwd" "$SANDBOX_UID_BASE")
	while grep -q "^[^:]*:[^:]*:$uid:" "$SANDBOX_DIR/etc/group"; do
		uid=$((uid + 1))
	done
	home=$SANDBOX_HOME/$name
	echo "$name:x:$uid:$uid:rdmalimit sandbox user:$home:/bin/bash" >>"$SANDBOX_DIR/etc/passwd"
	echo "$name:x:$uid:" >>"$SANDBOX_DIR/etc/group"
	# locked password: key-only login (UsePAM yes lets sshd accept keys for locked accounts)
	echo "$name:!:19000:0:99999:7:::" >>"$SANDBOX_DIR/etc/shadow"
	for g in "$@"; do
		sandbox_group "$g" >/dev/null && _sandbox_add_member "$g" "$name" || return 1
	done
	install -d -m 0755 -o "$uid" -g "$uid" "$home" &&
		install -d -m 0700 -o "$uid" -g "$uid" "$home/.ssh" &&
		install -m 0600 -o "$uid" -g "$uid" "$SANDBOX_KEY.pub" "$home/.ssh/authorized_keys"
}

sandbox_policy() {
	cat >"$SANDBOX_DIR/etc/security/rdmalimit.conf" &&
		chown root:root "$SANDBOX_DIR/etc/security/rdmalimit.conf" &&
		chmod 0644 "$SANDBOX_DIR/etc/security/rdmalimit.conf"
}

sandbox_limits_d() {
	local f=$SANDBOX_DIR/etc/security/limits.d/$1
	mkdir -p "$SANDBOX_DIR/etc/security/limits.d" &&
		cat >"$f" && chown root:root "$f" && chmod 0644 "$f"
}

sandbox_install() {
	local src=$1 caps=${2:-} dst
	dst=$SANDBOX_BIN/$(basename "$src")
	install -m 0755 -o root -g root "$src" "$dst" || return 1
	if [ -n "$caps" ]; then
		setcap "$caps" "$dst" || return 1
	fi
	echo "$dst"
}

_sandbox_free_port() {
	local p i
	for i in $(seq 100); do
		p=$((20000 + RANDOM % 40000))
		if [ -z "$(ss -Hltn "sport = :$p")" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

sandbox_sshd_start() {
	local cfg=$SANDBOX_DIR/sshd/sshd_config i
	SANDBOX_SSHD_MEMLOCK_SOFT=${SANDBOX_SSHD_MEMLOCK_SOFT:-65536}
	if [ -z "${SANDBOX_SSHD_MEMLOCK_HARD:-}" ]; then
		SANDBOX_SSHD_MEMLOCK_HARD=$(_sandbox_hard_bytes)
		[ "$SANDBOX_SSHD_MEMLOCK_HARD" = unlimited ] && SANDBOX_SSHD_MEMLOCK_HARD=8388608
	fi
	for _ in 1 2 3; do
		SANDBOX_PORT=$(_sandbox_free_port) || return 1
		cat >"$cfg" <<EOF
# rdmalimit e2e sandbox sshd
ListenAddress 127.0.0.1
Port $SANDBOX_PORT
HostKey $SANDBOX_DIR/sshd/ssh_host_ed25519_key
PidFile $SANDBOX_DIR/sshd/sshd.pid
UsePAM yes
PubkeyAuthentication yes
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile .ssh/authorized_keys
StrictModes yes
PermitRootLogin no
PrintMotd no
PrintLastLog no
UseDNS no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
PermitUserEnvironment no
LoginGraceTime 30
MaxStartups 64
LogLevel VERBOSE
EOF
		# SANDBOX_SSHD_ARGS: more options on sshd's command line (-o KEYWORD=VALUE)
		# shellcheck disable=SC2086
		if ! "$SANDBOX_SSHD" -t -f "$cfg" ${SANDBOX_SSHD_ARGS:-} 2>"$SANDBOX_DIR/log/sshd-t.err"; then
			_sandbox_msg "sshd -t: $(cat "$SANDBOX_DIR/log/sshd-t.err")"
			return 1
		fi
		: >"$SANDBOX_SSHD_LOG"
		# prlimit execs sshd: $! is sshd's pid.  -D: no daemon; -e: its log to the file.
		# shellcheck disable=SC2086
		prlimit --memlock="$SANDBOX_SSHD_MEMLOCK_SOFT:$SANDBOX_SSHD_MEMLOCK_HARD" -- \
			"$SANDBOX_SSHD" -D -e -f "$cfg" ${SANDBOX_SSHD_ARGS:-} </dev/null >>"$SANDBOX_SSHD_LOG" 2>&1 &
		SANDBOX_SSHD_PID=$!
		for i in $(seq 100); do
			if [ -n "$(ss -Hltn "src 127.0.0.1:$SANDBOX_PORT")" ]; then
				return 0
			fi
			kill -0 "$SANDBOX_SSHD_PID" 2>/dev/null || break
			sleep 0.05
		done
		sandbox_sshd_stop
		grep -q 'Address already in use' "$SANDBOX_SSHD_LOG" || break
	done
	_sandbox_msg "sshd did not start: $(cat "$SANDBOX_SSHD_LOG")"
	return 1
}

sandbox_sshd_stop() {
	local i
	[ -n "${SANDBOX_SSHD_PID:-}" ] || return 0
	kill -TERM "$SANDBOX_SSHD_PID" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$SANDBOX_SSHD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$SANDBOX_SSHD_PID" 2>/dev/null
	wait "$SANDBOX_SSHD_PID" 2>/dev/null
	SANDBOX_SSHD_PID=
}

_sandbox_ssh_opts() {
	_sandbox_ssh=(timeout "${SANDBOX_SSH_TIMEOUT:-30}" ssh -F /dev/null -p "$SANDBOX_PORT" -i "$SANDBOX_KEY" -o IdentitiesOnly=yes
		-o IdentityAgent=none -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
		-o GlobalKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -o ConnectTimeout=10)
}

sandbox_ssh() {
	local user=$1
	shift
	_sandbox_ssh_opts
	"${_sandbox_ssh[@]}" -T "$user@127.0.0.1" -- "$@"
}

sandbox_ssh_tty() {
	local user=$1
	shift
	_sandbox_ssh_opts
	"${_sandbox_ssh[@]}" -tt "$user@127.0.0.1" -- "$@"
}

sandbox_log_mark() { wc -l <"$SANDBOX_SYSLOG"; }

sandbox_log_wait() {
	local pattern=$1 timeout=${2:-5} from=${3:-0} i n
	n=$((timeout * 20))
	for ((i = 0; i <= n; i++)); do
		if tail -n +"$((from + 1))" "$SANDBOX_SYSLOG" | grep -E -m1 -- "$pattern"; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

sandbox_stop() {
	local i
	[ -n "${_sandbox_started:-}" ] || return 0
	_sandbox_started=
	sandbox_sshd_stop
	if [ -n "${_sandbox_syslog_pid:-}" ]; then
		kill "$_sandbox_syslog_pid" 2>/dev/null
		wait "$_sandbox_syslog_pid" 2>/dev/null
		_sandbox_syslog_pid=
	fi
	# unmount in reverse order (lazily: a process still using a file must not keep the
	# host's view hidden); the namespace's end would drop them anyway
	for ((i = ${#_sandbox_mounts[@]} - 1; i >= 0; i--)); do
		umount -R -l "${_sandbox_mounts[$i]}" 2>/dev/null
	done
	_sandbox_mounts=()
}
