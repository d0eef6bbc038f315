#!/bin/bash
# The demo's second half: the module in a real sshd login, in a throwaway sandbox of private
# namespaces (tests/e2e/sandbox.sh).  Nothing on the host changes.  Root only.
# Usage: contrib/demo-sandbox.sh BUILD_DIR
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
B=${1:?build dir}
B=$(cd "$B" && pwd)
. "$top/tests/e2e/sandbox.sh"

step() { printf '\n\033[1;34m## %s\033[0m\n' "$*"; }
show() { printf '\033[1m$ %s\033[0m\n' "$*"; "$@"; echo "[exit $?]"; }

if ! sandbox_inside; then
	if [ "$(id -u)" != 0 ]; then
		echo "(the sshd part of the demo needs root: skipped)"
		exit 0
	fi
	step "Part 2: pam_rdmalimit in real ssh logins (a sandbox: private mount, PID and network namespaces)"
	sandbox_reexec "$0" "$@"
	exit $?
fi

RL=$B/rdmalimits
sandbox_start
export PATH=$SANDBOX_BIN:$PATH
sandbox_pam_module "$B/pam_rdmalimit/.libs/pam_rdmalimit.so" conf=/etc/security/rdmalimit.conf
sandbox_user alice rdma_users >/dev/null
sandbox_user carol xdp_users >/dev/null
sandbox_user dave hpc >/dev/null
sandbox_user bob >/dev/null
# a copy of the tool the users can run; CAP_NET_RAW lets pin-test open an AF_XDP socket
RLU=$(sandbox_install "$RL" cap_net_raw+ep)
# AF_XDP hardware for this sandbox: a veth pair with 4 RX queues on each end
ip link add va numrxqueues 4 numtxqueues 4 type veth peer name vb numrxqueues 4 numtxqueues 4
ip link set va up; ip link set vb up
mount -t sysfs sysfs /sys   # this network namespace's view of /sys/class/net
hard=$SANDBOX_MEMLOCK_HARD
cat <<T
sshd runs with memlock soft 64 KiB, hard $((hard / 1024)) KiB; this host lacks CAP_SYS_RESOURCE,
so no login here can get more than $((hard / 1024)) KiB (real sites raise sshd's LimitMEMLOCK).
Users: alice (rdma_users), carol (xdp_users), dave (hpc), bob (none).
T

step "probe --save: what hardware this host has (here: the sandbox's veth pair, counted only because
   the policy includes it: virtual interfaces never count by default), saved to /run/rdmalimit/hw.cache"
sandbox_policy <<'P'
version = 1;
hardware = {
  rdma_port = "1G";
  xsk_queue = "16M";
  xsk_copy_queue = "512K"; # per RX queue of a copy-mode XDP interface
  base = "1M";
  ram_share = 0.5;
  include = [ "va", "vb" ];  # the sandbox has no physical interface; real hosts need none of this
};
rules = (
  { group = "xdp_users"; memlock = "auto"; },
  { group = "hpc";       memlock = "16M"; }
);
P
show "$RL" probe --save
show cat /etc/security/rdmalimit.conf

size=$((hard / 1024 / 1024 - 2))M
step "limits.conf for rdma_users, scaled to this host: rdmalimits apply @rdma_users $size"
show "$RL" apply @rdma_users "$size"
show "$RL" check --policy

step "explain: what each login will get, and why"
for u in alice carol; do show "$RL" explain "$u"; done

sandbox_sshd_start
step "real ssh logins: /proc/self/limits inside each session"
for u in alice carol bob; do
	printf '\033[1m$ ssh %s@127.0.0.1 grep locked /proc/self/limits\033[0m\n' "$u"
	sandbox_ssh "$u" grep "'Max locked memory'" /proc/self/limits </dev/null
done

step "pin-test inside the logins: a 3 MiB AF_XDP UMEM and mlock"
for u in carol bob; do
	printf '\033[1m$ ssh %s@127.0.0.1 rdmalimits pin-test 3M\033[0m\n' "$u"
	sandbox_ssh "$u" "$RLU" pin-test 3M </dev/null
	echo "[exit $?]"
done

step "verify: a real PAM session (sshd's stack) next to explain's prediction"
show "$RL" verify carol --service sshd
show "$RL" verify --ssh "ssh://alice@127.0.0.1:$SANDBOX_PORT" alice --ssh-option=-i"$SANDBOX_KEY" \
	--ssh-option=-oStrictHostKeyChecking=no --ssh-option=-oUserKnownHostsFile=/dev/null \
	--ssh-option=-oLogLevel=ERROR

step "a policy asking more than sshd may give (dave: 16M): the login still works, and says why"
mark=$(sandbox_log_mark)
printf '\033[1m$ ssh -t dave@127.0.0.1 ...\033[0m\n'
sandbox_ssh_tty dave grep "'Max locked memory'" /proc/self/limits </dev/null | tr -d '\r'
echo "pam_rdmalimit's log line:"
sandbox_log_wait 'pam_rdmalimit.*user=dave' 5 "$mark" | sed 's/^/  /'
show "$RL" verify dave
echo
echo "The sandbox goes away now; nothing on this host was changed."
