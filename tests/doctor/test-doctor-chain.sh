#!/bin/bash
# rdmalimits doctor along the chain of containers and clusters, on throwaway root trees:
# containerd and CRI-O units and drop-ins on a kubelet host, dockerd's own LimitMEMLOCK next to
# daemon.json, podman's containers.conf default_ulimits (main files and drop-ins), Slurm
# (slurm.conf PropagateResourceLimits, slurmd.service, pam_slurm_adopt in sshd's stack).
# Each finding and its fix.  The policy in the tree gives `auto` = 2 GiB on any host (base 2G,
# per-unit sizes 0, fallback 2G): the policy must be root's, so this test runs as root.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
# shellcheck source=doctor.sh
. "$(dirname "$0")/doctor.sh"
require_root "doctor reads the tree's policy only when root owns it"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
OUT=$T/out

AUTO="2 GiB the hardware needs (\`auto\` of the hardware section of etc/security/rdmalimit.conf; hardware of the host running doctor, not the tree (probed live: run/rdmalimit/hw.cache: no cache): base 2 GiB"

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/etc/systemd/system" "$R/usr/lib/systemd/system"
	printf 'root:x:0:0::/root:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nrdma_users:x:2000:\n' > "$R/etc/group"
	: > "$R/etc/security/limits.conf"
	printf 'version = 1;\nhardware = { base = "2G"; rdma_port = "0"; xsk_queue = "0"; xsk_copy_queue = "0"; fallback = "2G"; ram_share = 1.0; };\nrules = ( { group = "rdma_users"; memlock = "auto"; } );\n' > "$R/etc/security/rdmalimit.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf"
}
unit() { # unit NAME DIR BODY
	printf '[Unit]\nDescription=%s\n\n[Service]\n%b' "$1" "$3" > "$R/$2/$1"
}

# --- nothing of the kind: no finding of this test's kinds, no Slurm group
mkroot
run
check "bare tree: no runtime, podman, Kubernetes or Slurm finding" \
	test -z "$(grep -E 'containerd|crio|podman|Kubernetes|slurm|Slurm' "$OUT")"

# --- a kubelet host with containerd: a vendor unit and two drop-ins, the later one wins
mkroot
mkdir -p "$R/var/lib/kubelet" "$R/etc/systemd/system/containerd.service.d"
unit containerd.service usr/lib/systemd/system 'ExecStart=/usr/bin/containerd\nLimitMEMLOCK=infinity\n'
printf '[Service]\nLimitMEMLOCK=infinity\n' > "$R/etc/systemd/system/containerd.service.d/10-site.conf"
printf '[Service]\nLimitMEMLOCK=32M\n' > "$R/etc/systemd/system/containerd.service.d/20-override.conf"
run
check "kubelet host by /var/lib/kubelet: INFO" line "INFO a Kubernetes node: pods have no ulimit field" "(var/lib/kubelet)"
check "containerd: the drop-in that wins, below auto: WARN" \
	line "WARN containerd.service: memlock 32 MiB (LimitMEMLOCK=32M): every container it starts inherits it, Kubernetes pods included, below the $AUTO" "(etc/systemd/system/containerd.service.d/20-override.conf:2)"
check "containerd: fix with the size from auto" has "fix: rdmalimits apply --unit containerd 2G --reload, then systemctl restart containerd"
check "containerd: the overridden drop-in named" \
	line "INFO containerd.service: LimitMEMLOCK=infinity here is overridden by etc/systemd/system/containerd.service.d/20-override.conf:2 (a later drop-in wins)" "(etc/systemd/system/containerd.service.d/10-site.conf:2)"
check "containerd below: warnings only, exit 0" test "$rc" -eq 0
run --json
check "containerd: --json id runtime-memlock-low, with where and fix" \
	test "$(json_of runtime-memlock-low)" = "warning|etc/systemd/system/containerd.service.d/20-override.conf:2|rdmalimits apply --unit containerd 2G --reload, then systemctl restart containerd"
check "kubelet host: --json id kubernetes-node" test "$(json_of kubernetes-node)" = "info|var/lib/kubelet|None"
# the override removed: infinity is enough
rm "$R/etc/systemd/system/containerd.service.d/20-override.conf"
run
check "containerd unlimited: OK" line "OK   containerd.service: memlock unlimited (LimitMEMLOCK=infinity): every container it starts inherits it, Kubernetes pods included; at least the 2 GiB the hardware needs" "(etc/systemd/system/containerd.service.d/10-site.conf:2)"
# a masked runtime
ln -sf /dev/null "$R/etc/systemd/system/containerd.service"
run
check "containerd masked: INFO" line "INFO containerd.service: masked: it does not start"
check "kubelet host without a runtime unit: WARN" line "WARN a Kubernetes node without a containerd.service or crio.service unit" "(var/lib/kubelet)"
check "... fix names apply --unit containerd" has "fix: give the runtime's unit the memlock the pods need: rdmalimits apply --unit containerd SIZE (or crio)"

# --- CRI-O on a host recognised by kubelet.service and by /etc/kubernetes
mkroot
mkdir -p "$R/lib/systemd/system"
unit kubelet.service lib/systemd/system 'ExecStart=/usr/bin/kubelet\n'
unit crio.service usr/lib/systemd/system 'ExecStart=/usr/bin/crio\n'
printf '[Manager]\nDefaultLimitMEMLOCK=64M\n' > "$R/etc/systemd/system.conf"
run
check "kubelet host by kubelet.service" line "INFO a Kubernetes node" "(lib/systemd/system/kubelet.service)"
check "crio without LimitMEMLOCK: DefaultLimitMEMLOCK applies, below auto: WARN" \
	line "WARN crio.service: memlock 64 MiB (no LimitMEMLOCK=: DefaultLimitMEMLOCK of etc/systemd/system.conf:2): every container it starts inherits it" "below the $AUTO" "(usr/lib/systemd/system/crio.service)"
check "crio: fix" has "fix: rdmalimits apply --unit crio 2G --reload, then systemctl restart crio"
rm "$R/lib/systemd/system/kubelet.service"
mkdir -p "$R/etc/kubernetes"
run
check "kubelet host by /etc/kubernetes" line "INFO a Kubernetes node" "(etc/kubernetes)"
mkdir -p "$R/etc/systemd/system/crio.service.d"
printf '[Service]\nLimitMEMLOCK=bogus\n' > "$R/etc/systemd/system/crio.service.d/memlock.conf"
run
check "crio: an unparsable drop-in: FAIL in the containers group" line "FAIL LimitMEMLOCK=bogus cannot be parsed: systemd ignores it" "(etc/systemd/system/crio.service.d/memlock.conf:2)"

# --- docker: dockerd's own LimitMEMLOCK next to daemon.json
mkroot
mkdir -p "$R/etc/docker"
unit docker.service usr/lib/systemd/system 'ExecStart=/usr/bin/dockerd\nLimitMEMLOCK=16M\n'
printf '{"log-level": "info"}\n' > "$R/etc/docker/daemon.json"
run
check "docker: no default-ulimits (unchanged INFO)" line "INFO docker: no default-ulimits memlock"
check "dockerd's own memlock below auto: WARN" \
	line "WARN docker.service: memlock 16 MiB (LimitMEMLOCK=16M): containers started without --ulimit inherit it (daemon.json sets no default-ulimits memlock), below the $AUTO" "(usr/lib/systemd/system/docker.service:6)"
check "dockerd: fix names apply --unit docker and daemon.json" has "fix: rdmalimits apply --unit docker 2G --reload, then systemctl restart docker; or set default-ulimits memlock in /etc/docker/daemon.json"
printf '{"default-ulimits": {"memlock": {"Name": "memlock", "Soft": -1, "Hard": -1}}}\n' > "$R/etc/docker/daemon.json"
run
check "daemon.json unlimited: OK (unchanged)" line "OK   docker: containers start with memlock unlimited (default-ulimits)"
check "with default-ulimits, dockerd's own memlock is only information" \
	line "INFO docker.service: memlock 16 MiB (LimitMEMLOCK=16M): containers get daemon.json's default-ulimits instead"
check "... and no warning for it" hasnt "WARN docker.service"

# --- podman: containers.conf default_ulimits, the main files and drop-ins in order
mkroot
mkdir -p "$R/usr/share/containers" "$R/etc/containers/containers.conf.d"
printf '[containers]\ndefault_ulimits = [\n  "nofile=1280:2560",\n  "memlock=67108864:67108864",\n]\n' > "$R/usr/share/containers/containers.conf"
run
check "podman: the vendor file's 64 MiB, below the configured maximum: WARN" \
	line "WARN podman: containers start with memlock 64 MiB (default_ulimits), below the soft 2 GiB" "(usr/share/containers/containers.conf:2)"
check "podman: fix" has 'fix: add default_ulimits = [ "memlock=-1:-1" ] (bytes, -1: unlimited) to the [containers] table of /etc/containers/containers.conf'
printf '# site\n[engine]\ncgroup_manager = "systemd"\n\n[containers]\nlog_size_max = -1\ndefault_ulimits = [ "memlock=-1:-1" ]\n' > "$R/etc/containers/containers.conf"
run
check "podman: /etc's file overrides the vendor's: OK" line "OK   podman: containers start with memlock unlimited (default_ulimits)" "(etc/containers/containers.conf:7)"
printf '[containers]\ndefault_ulimits = [\n "nofile=1024:1024"\n]\n' > "$R/etc/containers/containers.conf.d/90-nofile.conf"
run
check "podman: a drop-in without memlock replaces the array: INFO" \
	line "INFO podman: no memlock in containers.conf's default_ulimits: containers get the memlock of the process that runs podman" "(etc/containers/containers.conf.d/90-nofile.conf:2)"
printf '[containers]\ndefault_ulimits = [ "memlock=lots" ]\n' > "$R/etc/containers/containers.conf.d/95-bad.conf"
run
check "podman: an unreadable memlock entry: WARN" line "WARN podman: the memlock entry of default_ulimits cannot be read" "(etc/containers/containers.conf.d/95-bad.conf:2)"
printf '[containers]\ndefault_ulimits = [ "memlock=0:0" ]\n' > "$R/etc/containers/containers.conf.d/95-bad.conf"
run
check "podman: memlock 0: WARN" line "WARN podman: containers start with memlock 0 B (default_ulimits)" ": 0 breaks every RDMA memory registration"
# memlock in another table is not podman's default
rm "$R/etc/containers/containers.conf.d/"*
printf '[engine]\ndefault_ulimits = [ "memlock=1:1" ]\n' > "$R/etc/containers/containers.conf"
run
check "podman: default_ulimits outside [containers] is ignored" line "WARN podman: containers start with memlock 64 MiB" "(usr/share/containers/containers.conf:2)"

# --- Slurm
mkroot
mkdir -p "$R/etc/slurm"
printf 'ClusterName=lab\nSlurmctldHost=head\nProctrackType=proctrack/cgroup\n' > "$R/etc/slurm/slurm.conf"
unit slurmd.service usr/lib/systemd/system 'ExecStart=/usr/sbin/slurmd\nLimitMEMLOCK=infinity\n'
run
check "slurm.conf without PropagateResourceLimits: default ALL copies the submit host's memlock: WARN" \
	line "WARN slurm.conf: PropagateResourceLimits is not set (its default is ALL): srun and sbatch copy the submit host's soft memlock into every task" "(etc/slurm/slurm.conf)"
check "... fix: PropagateResourceLimitsExcept=MEMLOCK" has "fix: set PropagateResourceLimitsExcept=MEMLOCK in slurm.conf (or take MEMLOCK out of PropagateResourceLimits), then scontrol reconfigure"
check "slurmd.service unlimited: OK" line "OK   slurmd.service: memlock unlimited (LimitMEMLOCK=infinity): Slurm tasks get it (a slurmd started from the unit) unless PropagateResourceLimits copies the submit host's; at least the 2 GiB" "(usr/lib/systemd/system/slurmd.service:6)"
check "the Slurm group heads its findings" grep -qx "Slurm jobs" "$OUT"
printf 'PropagateResourceLimits=ALL\npropagateresourcelimitsexcept=NOFILE,MEMLOCK # RDMA\n' >> "$R/etc/slurm/slurm.conf"
run
check "PropagateResourceLimitsExcept=...,MEMLOCK (any case): OK" line "OK   slurm.conf: PropagateResourceLimitsExcept=NOFILE,MEMLOCK: tasks get slurmd's memlock, not the submit host's" "(etc/slurm/slurm.conf:5)"
sed -i '/propagateresourcelimitsexcept/d; s/^PropagateResourceLimits=ALL/PropagateResourceLimits=NOFILE,MEMLOCK/' "$R/etc/slurm/slurm.conf"
run
check "PropagateResourceLimits naming MEMLOCK: WARN at its line" line "WARN slurm.conf: PropagateResourceLimits=NOFILE,MEMLOCK: srun and sbatch copy" "(etc/slurm/slurm.conf:4)"
sed -i 's/^PropagateResourceLimits=.*/PropagateResourceLimits=NONE/' "$R/etc/slurm/slurm.conf"
run
check "PropagateResourceLimits=NONE: OK" line "OK   slurm.conf: PropagateResourceLimits=NONE: tasks get slurmd's memlock"
# an Include'd file sets it; slurmd's unit gets a low drop-in
sed -i '/^PropagateResourceLimits/d' "$R/etc/slurm/slurm.conf"
echo 'Include limits.conf' >> "$R/etc/slurm/slurm.conf"
printf 'PropagateResourceLimitsExcept=MEMLOCK\n' > "$R/etc/slurm/limits.conf"
mkdir -p "$R/etc/systemd/system/slurmd.service.d"
printf '[Service]\nLimitMEMLOCK=64K\n' > "$R/etc/systemd/system/slurmd.service.d/50-site.conf"
run
check "slurm.conf Include: the included setting counts" line "OK   slurm.conf: PropagateResourceLimitsExcept=MEMLOCK" "(etc/slurm/limits.conf:1)"
check "slurmd below auto: WARN at the drop-in" line "WARN slurmd.service: memlock 64 KiB (LimitMEMLOCK=64K): Slurm tasks get it" "below the $AUTO" "(etc/systemd/system/slurmd.service.d/50-site.conf:2)"
check "slurmd: Slurm's own fix, infinity" has "fix: rdmalimits apply --unit slurmd unlimited --reload, then systemctl restart slurmd (Slurm's own slurmd.service sets LimitMEMLOCK=infinity)"
# a login node: slurm.conf, no slurmd
rm -r "$R/usr/lib/systemd/system/slurmd.service" "$R/etc/systemd/system/slurmd.service.d"
run
check "slurm.conf without slurmd.service: INFO" line "INFO no slurmd.service: not a compute node" "(etc/slurm/slurm.conf)"
# the Debian location
mkroot
mkdir -p "$R/etc/slurm-llnl"
printf 'PropagateResourceLimitsExcept=MEMLOCK\n' > "$R/etc/slurm-llnl/slurm.conf"
run
check "slurm-llnl/slurm.conf is read" line "OK   slurm.conf: PropagateResourceLimitsExcept=MEMLOCK" "(etc/slurm-llnl/slurm.conf:1)"

# --- pam_slurm_adopt in sshd's account stack
mkroot
printf 'account required pam_unix.so\naccount required pam_access.so\n' > "$R/etc/pam.d/common-account"
printf 'session required pam_unix.so\nsession optional pam_systemd.so\nsession required pam_limits.so\n' > "$R/etc/pam.d/common-session"
printf '@include common-account\n-account required pam_slurm_adopt.so\n@include common-session\n' > "$R/etc/pam.d/sshd"
run
check "pam_slurm_adopt last in the account stack: INFO, no order warning" line "INFO sshd: pam_slurm_adopt adopts ssh logins into the user's job (its cgroup), not its limits" "(etc/pam.d/sshd:2)"
check "... not reported as out of order" hasnt "runs after pam_slurm_adopt"
check "pam_systemd in the included session file conflicts: WARN" line "WARN sshd: pam_systemd in the session stack conflicts with pam_slurm_adopt" "(etc/pam.d/common-session:2)"
check "... Slurm's fix" has "fix: take pam_systemd out of the files sshd includes, and stop and mask systemd-logind, as Slurm's pam_slurm_adopt documentation says"
printf -- '-account required pam_slurm_adopt.so\naccount include common-account\nsession include common-session\n' > "$R/etc/pam.d/sshd"
sed -i '/pam_systemd/d' "$R/etc/pam.d/common-session"
run
check "pam_slurm_adopt before common-account: WARN naming the later module" line "WARN sshd: pam_access (etc/pam.d/common-account:2) runs after pam_slurm_adopt in the account stack" "(etc/pam.d/sshd:1)"
check "... fix" has "fix: make pam_slurm_adopt the last module of sshd's account stack (Slurm's pam_slurm_adopt documentation)"
check "without pam_systemd: no conflict warning" hasnt "conflicts with pam_slurm_adopt"
# an included file that cannot be read after it: libpam puts a step there that always fails
# (the same reader as the session stack's, pamstack.h), so pam_slurm_adopt is not last
printf -- '-account required pam_slurm_adopt.so\naccount include no-such-account\n' > "$R/etc/pam.d/sshd"
run
check "an unreadable include after pam_slurm_adopt: WARN, it is not last" \
	line "WARN sshd: no-such-account (a file it cannot read: a step that always fails) (etc/pam.d/sshd:2) runs after pam_slurm_adopt in the account stack" "(etc/pam.d/sshd:1)"
printf -- '-account required pam_slurm_adopt.so\naccount include common-account\nsession include common-session\n' > "$R/etc/pam.d/sshd"
run --json
check "--json ids: slurm-adopt, slurm-adopt-not-last" test "$(json_of slurm-adopt | cut -d'|' -f1,2)" = "info|etc/pam.d/sshd:1" -a "$(json_of slurm-adopt-not-last | cut -d'|' -f1)" = warning

# --- every file stays in the tree: a link out of it is not followed
mkroot
mkdir -p "$T/outside" "$R/etc/slurm"
printf 'PropagateResourceLimitsExcept=MEMLOCK\n' > "$T/outside/slurm.conf"
ln -s "$T/outside/slurm.conf" "$R/etc/slurm/slurm.conf"
run
check "--root: an absolute link to a host file resolves inside the tree (nothing read)" hasnt "PropagateResourceLimitsExcept=MEMLOCK: tasks get"
check "no stderr noise" test ! -s "$T/err"

done_testing
