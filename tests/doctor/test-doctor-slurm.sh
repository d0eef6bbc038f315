#!/bin/bash
# rdmalimits doctor and spank_rdmalimit: plugstack.conf on root trees (the plugin loaded, its
# file missing for an optional and a required line, another required plugin's file missing,
# named twice, from an include, an include cycle; a PropagateResourceLimits name Slurm
# refuses), the plugin missing on a node with RDMA hardware and a policy with rules (and not
# without the hardware: tests/lib/fakesys.sh devices in a private mount and network
# namespace), and running job steps compared with
# explain --slurm: stand-ins for slurmstepd (a root process of that name, titled
# "slurmstepd: [JOB.STEP]") and their tasks (children as nobody) in a private PID namespace,
# slurmd's limits from its unit there.
# Root only: the namespaces, and the policy must be root's.
set -u

# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
# shellcheck source=../lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"
# shellcheck source=doctor.sh
. "$(dirname "$0")/doctor.sh"

if [ "${RDMALIMIT_DOCTOR_SLURM_INNER:-}" != 1 ]; then
	require_root "private namespaces; the tree's policy counts only when root owns it"
	export RDMALIMIT_DOCTOR_SLURM_INNER=1 RDMALIMITS
	fakesys_unshare -m -n -p -f --mount-proc --propagation private -- "$BASH" "$0" "$@"
fi
no_plan

T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; fakesys_reset; rm -rf "$T"' EXIT
R=$T/root
OUT=$T/out
# the JSON finding with this id: its severity and where, one per line
slurm_json_of() { json_of "$1" severity where; }
# this network namespace's own sysfs: its interfaces (lo) only
mount -t sysfs sysfs /sys || { fail "sysfs in the private network namespace"; done_testing; exit 1; }

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/etc/slurm" "$R/usr/lib/systemd/system" "$R/opt/slurm"
	printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nalice:x:1001:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	: > "$R/etc/security/limits.conf"
	printf 'version = 1;\nrules = ( { group = "rdma_users"; memlock = "1G"; } );\n' > "$R/etc/security/rdmalimit.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf"
	printf 'ClusterName=lab\nPropagateResourceLimitsExcept=MEMLOCK\nPluginDir=/opt/slurm\n' > "$R/etc/slurm/slurm.conf"
	: > "$R/opt/slurm/spank_rdmalimit.so"
	printf '[Service]\nExecStart=/usr/sbin/slurmd\nLimitMEMLOCK=infinity\n' > "$R/usr/lib/systemd/system/slurmd.service"
}

# --- the plugin missing: only on a node with the hardware
mkroot
: > "$R/etc/slurm/plugstack.conf"
fakesys_rdma || fail "no RDMA device in sysfs"
run
check "no RDMA device, no physical interface: no missing-plugin finding" hasnt "spank_rdmalimit.so is not loaded"
check "Except=MEMLOCK, no plugin: OK, with the caveat of a user's srun --propagate=MEMLOCK" \
	line "OK   slurm.conf: PropagateResourceLimitsExcept=MEMLOCK: tasks get slurmd's memlock, not the submit host's (unless a user runs srun --propagate=MEMLOCK: then his own soft limit, up to slurmd's hard)"
fakesys_rdma mlx5_0:4/IB || fail "a fake RDMA device"
run
check "an RDMA device with an active port, a policy with a rule, slurmd.service: WARN" \
	line "WARN etc/slurm/plugstack.conf: spank_rdmalimit.so is not loaded, on a node with RDMA/AF_XDP hardware (the host running doctor, not the tree: 1 RDMA device; \`auto\` counts 1 active port and RX queue) and a policy with 1 rule" "(etc/slurm/plugstack.conf)"
check "... fix: the plugstack.conf line" has "fix: add the line 'optional spank_rdmalimit.so' to etc/slurm/plugstack.conf"
run --json
check "... --json id slurm-spank-missing" test "$(slurm_json_of slurm-spank-missing)" = "warning|etc/slurm/plugstack.conf"
rm "$R/etc/slurm/plugstack.conf"
run
check "no plugstack.conf at all: the same finding" line "WARN no plugstack.conf: spank_rdmalimit.so is not loaded"
rm "$R/usr/lib/systemd/system/slurmd.service"
run
check "no slurmd (a login node): no missing-plugin finding" hasnt "spank_rdmalimit.so is not loaded"
mkroot
printf 'version = 1;\nrules = ();\n' > "$R/etc/security/rdmalimit.conf"
run
check "a policy without rules: no missing-plugin finding" hasnt "spank_rdmalimit.so is not loaded"

# --- plugstack.conf lines
mkroot
echo 'optional spank_rdmalimit.so conf=/etc/security/rdmalimit.conf' > "$R/etc/slurm/plugstack.conf"
run
check "loaded from PluginDir: OK with its arguments" line "OK   plugstack.conf loads spank_rdmalimit (/opt/slurm/spank_rdmalimit.so conf=/etc/security/rdmalimit.conf)" "(etc/slurm/plugstack.conf:1)"
check "... no missing-plugin finding" hasnt "spank_rdmalimit.so is not loaded"
check "... Except=MEMLOCK with the plugin: OK, without the --propagate caveat (the plugin drops it)" \
	line "OK   slurm.conf: PropagateResourceLimitsExcept=MEMLOCK: tasks get slurmd's memlock, not the submit host's" "(etc/slurm/slurm.conf:2)"
check "... (no caveat)" hasnt "unless a user runs srun --propagate=MEMLOCK"
sed -i 's/^PropagateResourceLimitsExcept=MEMLOCK$/#&/' "$R/etc/slurm/slurm.conf"
run
check "MEMLOCK propagated, the plugin loaded: the warning says it sets the policy's value for its users" \
	line "WARN slurm.conf: PropagateResourceLimits is not set (its default is ALL): srun and sbatch copy the submit host's soft memlock into every task: spank_rdmalimit sets the policy's value for the users a rule matches, the others get the submit host's"
sed -i 's/^#\(PropagateResourceLimitsExcept=MEMLOCK\)$/\1/' "$R/etc/slurm/slurm.conf"
echo 'optional /usr/lib/nowhere/spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf"
run
check "optional, its file missing: WARN" line "WARN plugstack.conf names /usr/lib/nowhere/spank_rdmalimit.so, which does not exist: Slurm skips the optional plugin" "(etc/slurm/plugstack.conf:1)"
check "... exit 0 (warnings only)" test "$rc" = 0
check "... not reported as loaded" hasnt "plugstack.conf loads spank_rdmalimit"
echo 'required /usr/lib/nowhere/spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf"
run
check "required, its file missing: FAIL, every job step fails" line "FAIL plugstack.conf names /usr/lib/nowhere/spank_rdmalimit.so, which does not exist: a required plugin that cannot be loaded makes Slurm fail every job step"
check "... exit 1" test "$rc" = 1
run --json
check "... --json id slurm-spank-so-missing" test "$(slurm_json_of slurm-spank-so-missing)" = "error|etc/slurm/plugstack.conf:1"
# another plugin, required, whose file does not exist (after ours): the stack fails, so ours
# does not "load" for any task
printf 'optional spank_rdmalimit.so\nrequired /usr/lib/nowhere/spank_other.so\n' > "$R/etc/slurm/plugstack.conf"
run
check "another required plugin missing: FAIL, every job step fails" line "FAIL plugstack.conf requires /usr/lib/nowhere/spank_other.so, which does not exist: Slurm cannot load its plugin stack and fails every job step on this node (spank_rdmalimit included)" "(etc/slurm/plugstack.conf:2)"
check "... not reported as loaded" hasnt "plugstack.conf loads spank_rdmalimit"
check "... exit 1" test "$rc" = 1
run --json
check "... --json id slurm-plugstack-required-missing" test "$(slurm_json_of slurm-plugstack-required-missing)" = "error|etc/slurm/plugstack.conf:2"
printf 'optional spank_rdmalimit.so\noptional /usr/lib/nowhere/spank_other.so\n' > "$R/etc/slurm/plugstack.conf"
run
check "... optional: skipped, ours loads" line "OK   plugstack.conf loads spank_rdmalimit" "(etc/slurm/plugstack.conf:1)"
mkdir -p "$R/etc/slurm/plugstack.conf.d"
echo 'include /etc/slurm/plugstack.conf.d/*.conf' > "$R/etc/slurm/plugstack.conf"
echo 'optional spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf.d/10-rdma.conf"
echo 'optional spank_rdmalimit.so strict' > "$R/etc/slurm/plugstack.conf.d/20-again.conf"
run
check "from an include (glob), named twice: the last line loads" line "OK   plugstack.conf loads spank_rdmalimit (/opt/slurm/spank_rdmalimit.so strict)" "(etc/slurm/plugstack.conf.d/20-again.conf:1)"
check "... named twice: INFO" line "INFO plugstack.conf names spank_rdmalimit.so on 2 lines"
echo 'include ../plugstack.conf' > "$R/etc/slurm/plugstack.conf.d/10-rdma.conf"
run
check "an include cycle in plugstack.conf: FAIL" line "FAIL plugstack.conf: an include cycle" "(etc/slurm/plugstack.conf.d/10-rdma.conf:1)"
run --json
check "... --json id slurm-plugstack-include-cycle" test "$(slurm_json_of slurm-plugstack-include-cycle)" = "error|etc/slurm/plugstack.conf.d/10-rdma.conf:1"
sed -i 's/^PropagateResourceLimitsExcept=.*/PropagateResourceLimitsExcept=Memlock/' "$R/etc/slurm/slurm.conf"
run
check "PropagateResourceLimitsExcept=Memlock (Slurm's names are upper case): FAIL, slurm.conf refused" \
	line "FAIL slurm.conf: PropagateResourceLimitsExcept=Memlock: Slurm does not know a name in it and refuses slurm.conf" "(etc/slurm/slurm.conf:2)"

# --- running job steps (this PID namespace; slurm.conf, the policy and slurmd.service in $T)
S=$T/live
mkdir -p "$S/slurm" "$S/units"
mount --bind "$S/units" /etc/systemd/system || fail "a private /etc/systemd/system"
printf '[Service]\nExecStart=/usr/sbin/slurmd\nLimitMEMLOCK=2M:6M\n' > /etc/systemd/system/slurmd.service
printf 'version = 1;\nrules = ( { user = "nobody"; memlock = "4M"; } );\n' > "$S/policy.conf"
chmod 644 "$S/policy.conf"
cp /bin/bash "$S/slurmstepd"
: > "$S/spank_rdmalimit.so"
# step JOB.STEP SOFT:HARD TASK-SOFT:HARD (bytes): a root "slurmstepd" with the first limits,
# titled as Slurm titles it, and its task as nobody with the second
step() {
	prlimit --memlock="$2" -- bash -c 'exec -a "slurmstepd: [$1]" "$2" -c "setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --memlock=$3 sleep 300 & wait"' \
		_ "$1" "$S/slurmstepd" "$3" &
	for _ in $(seq 50); do
		pgrep -u nobody -x sleep > /dev/null && break
		sleep 0.1
	done
}
live() { # doctor of this (namespaced) system, its Slurm findings
	"$RDMALIMITS" doctor --conf "$S/policy.conf" --slurm-conf "$S/slurm/slurm.conf" "$@" > "$OUT" 2> "$T/err"
	rc=$?
}
stop() { pkill -u nobody -x sleep; wait 2>/dev/null; }
printf 'ClusterName=lab\nPropagateResourceLimitsExcept=MEMLOCK\n' > "$S/slurm/slurm.conf"
: > "$S/slurm/plugstack.conf"
step 77.0 2097152:6291456 2097152:6291456
live
check "a step whose task has slurmd's limits (Except=MEMLOCK, no plugin): OK, as predicted" \
	line "OK   user nobody: memlock soft 2 MiB, hard 6 MiB, as explain --slurm predicts (slurmd)" "(job_77/step_0 (pid "
stop
step 78.0 2097152:6291456 1048576:6291456
live
check "... a task with another soft limit: MISMATCH" \
	line "WARN MISMATCH: user nobody: memlock soft 1 MiB, hard 6 MiB, explain --slurm predicts soft 2 MiB, hard 6 MiB (slurmd)" "(job_78/step_0 (pid "
check "... fix: explain --slurm" has "fix: rdmalimits explain nobody --slurm shows each step"
live --json
check "... --json id slurm-step-mismatch" test "$(slurm_json_of slurm-step-mismatch | cut -d'|' -f1)" = warning
stop
# PropagateResourceLimits default: the soft limit is the submit shell's, unknown to doctor
printf 'ClusterName=lab\n' > "$S/slurm/slurm.conf"
step 79.0 2097152:6291456 3145728:6291456
live
check "propagation (default ALL): the soft not compared, the hard as predicted: OK, said" \
	line "OK   user nobody: memlock soft 3 MiB, hard 6 MiB; hard 6 MiB as explain --slurm predicts (propagated); the soft limit is the submit shell's, which doctor does not know: not compared"
check "... no MISMATCH" hasnt "MISMATCH"
stop
step 80.0 2097152:6291456 3145728:5242880
live
check "... a task with another hard limit: MISMATCH on the hard limit" \
	line "WARN MISMATCH: user nobody: memlock soft 3 MiB, hard 5 MiB, explain --slurm predicts hard 6 MiB (propagated)"
stop
# the plugin, its rule for nobody: the task gets 4 MiB whatever the submit shell had
echo "optional $S/spank_rdmalimit.so conf=$S/policy.conf" > "$S/slurm/plugstack.conf"
step 81.0 2097152:6291456 4194304:6291456
live
check "the plugin's step with the policy's 4 MiB: OK" line "OK   user nobody: memlock soft 4 MiB, hard 6 MiB, as explain --slurm predicts (plugin)"
stop
step 82.0 2097152:6291456 2097152:6291456
live
check "... a task without it: MISMATCH (the prediction does not depend on the submit shell)" \
	line "WARN MISMATCH: user nobody: memlock soft 2 MiB, hard 6 MiB, explain --slurm predicts soft 4 MiB, hard 6 MiB (plugin)"
stop
echo "optional $S/spank_rdmalimit.so conf=/etc/security/elsewhere.conf" > "$S/slurm/plugstack.conf"
step 83.0 2097152:6291456 2097152:6291456
live
check "the plugin reads another policy than doctor: INFO, not compared" line "INFO the plugin reads the policy /etc/security/elsewhere.conf, not the one doctor read"
check "... no MISMATCH" hasnt "MISMATCH"
stop
# an `auto` rule (4 MiB whatever the hardware): the hardware cache the plugin reads matters
printf 'version = 1;\nhardware = { base = "4M"; rdma_port = "0"; xsk_queue = "0"; xsk_copy_queue = "0"; fallback = "4M"; };\nrules = ( { user = "nobody"; memlock = "auto"; } );\n' > "$S/policy.conf"
echo "optional $S/spank_rdmalimit.so conf=$S/policy.conf cache=$S/other.cache" > "$S/slurm/plugstack.conf"
step 84.0 2097152:6291456 4194304:6291456
live
check "the plugin reads another hardware cache than doctor: INFO, not compared" \
	line "INFO the plugin reads the hardware cache $S/other.cache, not the one doctor read: run doctor --cache '$S/other.cache'"
check "... no comparison" hasnt "as explain --slurm predicts"
live --cache "$S/other.cache"
check "... doctor --cache that cache: compared, OK" line "OK   user nobody: memlock soft 4 MiB, hard 6 MiB, as explain --slurm predicts (plugin)"
echo "optional $S/spank_rdmalimit.so conf=$S/policy.conf cache=" > "$S/slurm/plugstack.conf"
live
check "a plugin that reads no cache (cache=): INFO, not compared" \
	line "INFO the plugin reads the hardware cache none (cache=), not the one doctor read: run doctor --cache ''"
live --cache ''
check "... doctor --cache '': compared" line "OK   user nobody: memlock soft 4 MiB, hard 6 MiB, as explain --slurm predicts (plugin)"
stop
umount /etc/systemd/system

done_testing
