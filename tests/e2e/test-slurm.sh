#!/bin/bash
# A real single-node Slurm (munged, slurmctld, slurmd from Debian's packages) in a private
# network namespace, its state in a throwaway directory: an srun task's memlock against what
# doctor predicts from slurm.conf and what status says of the running task.
#   - PropagateResourceLimits unset (Slurm's default ALL): the task's soft limit is the submit
#     shell's, its hard limit slurmd's; doctor warns that srun copies the submit host's limit;
#     status names the task's job step and says the soft limit came from the submit host.
#   - PropagateResourceLimitsExcept=MEMLOCK: the task gets slurmd's limits; doctor says so;
#     status says the limits are slurmd's; a user's srun --propagate=MEMLOCK still sets his
#     own soft limit, which explain states as its assumption.
#   - slurmd not started from its unit: doctor on the running system says its limits are not
#     the unit's, and that the tasks start from the running one's.
# Root only (the daemons run as root); fails under CI=true when it cannot run.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tap.sh
. "$here/../tap.sh"
# shellcheck source=slurm.sh
. "$here/slurm.sh"
: "${RDMALIMITS:=$top_builddir/rdmalimits}"

if [ "${1:-}" != --in-netns ]; then
	require_root "a single-node Slurm"
	for t in munged slurmctld slurmd srun scontrol sinfo unshare prlimit python3; do
		command -v "$t" >/dev/null || skip_all "$t is missing (Debian: slurmctld slurmd slurm-client munge)"
	done
	exec unshare --net -- "$BASH" "$0" --in-netns
fi

no_plan
# Slurm's daemons bind with AI_ADDRCONFIG, which wants an address besides loopback: a veth pair
# inside the namespace gives one (traffic stays on 127.0.0.1)
{ ip link set lo up && ip link add rls0 type veth peer name rls1 && ip addr add 192.0.2.1/24 dev rls0 &&
	ip link set rls0 up && ip link set rls1 up; } || { echo "Bail out! the private network namespace"; exit 1; }
W=$(mktemp -d /tmp/rdmalimit-slurm.XXXXXX)
stop() {
	local f
	for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 0.5
	# what is left of them (slurmstepd, a task): every other process of this network namespace
	local ns p
	ns=$(readlink /proc/$$/ns/net)
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" != $$ ] && [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	rm -rf "$W"
}
trap stop EXIT

# the limits: read the hard limit here (raising it needs CAP_SYS_RESOURCE)
hard_kib=$(ulimit -Hl)
[ "$hard_kib" = unlimited ] && hard_kib=8192
hard=$((hard_kib * 1024))
slurmd_soft=$((hard_kib * 3 / 4 * 1024))
submit_soft=$((hard_kib / 8 * 1024))
diag "hard $hard, slurmd's soft $slurmd_soft, the submit shell's soft $submit_soft"

mkdir -p "$W/munge" "$W/state" "$W/spool" "$W/etc/slurm" "$W/usr/lib/systemd/system"
if ! slurm_munged "$W"; then
	fail "munged starts"
	sed 's/^/# /' "$W/munged.err"
	done_testing
fi
node=$(hostname -s)
conf() { slurm_conf "$W" "$node" "$@"; }
conf > "$W/etc/slurm/slurm.conf"
# the tree doctor reads: this slurm.conf and Slurm's own slurmd.service
printf '[Service]\nExecStart=/usr/sbin/slurmd\nLimitMEMLOCK=infinity\n' > "$W/usr/lib/systemd/system/slurmd.service"
export SLURM_CONF=$W/etc/slurm/slurm.conf

slurmctld -i 2> "$W/slurmctld.err" || { fail "slurmctld starts"; sed 's/^/# /' "$W/slurmctld.err" "$W/slurmctld.log"; done_testing; }
prlimit --memlock="$slurmd_soft:$hard" slurmd 2> "$W/slurmd.err" ||
	{ fail "slurmd starts"; sed 's/^/# /' "$W/slurmd.err" "$W/slurmd.log"; done_testing; }
# readiness, not timing: the node registers within a minute or the test fails
for _ in $(seq 60); do
	[ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" = idle ] && break
	sleep 1
done
if [ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" != idle ]; then
	fail "the node $node comes up idle"
	sed 's/^/# /' "$W/slurmctld.log" "$W/slurmd.log" | tail -30
	done_testing
fi

# job NAME: an srun task (the submit shell's soft limit $submit_soft) that prints its pid and
# memlock, then waits; $pid, $soft, $hard_got are set from its output
job() {
	local out=$W/$1.out
	: > "$out"
	prlimit --memlock="$submit_soft:$hard" srun -t 2 -J "$1" \
		sh -c 'echo $$; ulimit -Sl; ulimit -Hl; exec sleep 120' > "$out" 2> "$W/$1.err" &
	for _ in $(seq 120); do
		[ "$(wc -l < "$out")" -ge 3 ] && break
		sleep 0.5
	done
	{ read -r pid; read -r soft; read -r hard_got; } < "$out"
	soft=$((${soft:-0} * 1024)) hard_got=$((${hard_got:-0} * 1024))
}
# limits_of PID: "soft hard" of /proc/PID/limits
limits_of() { awk '/^Max locked memory/ { print $4, $5 }' "/proc/$1/limits"; }
# status_of PID: "kind name soft hard limits_from" of status --json --pid PID
status_of() {
	"$RDMALIMITS" --json status --pid "$1" --slurm-conf "$W/etc/slurm/slurm.conf" 2> "$W/status.err" | python3 -c '
import json, sys
p = json.load(sys.stdin)["processes"][0]
o = p["origin"]
print(o["kind"], o["name"], p["memlock"]["soft"], p["memlock"]["hard"], o["limits_from"], sep="|")'
}
# doctor_ids: the ids of doctor's Slurm findings over the tree, with their levels
doctor_ids() {
	"$RDMALIMITS" --root "$W" --json doctor 2> /dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d.get("findings", []):
    if "slurm" in (f.get("group") or "").lower() or "slurm" in (f.get("id") or ""):
        print(f.get("severity"), f.get("id"), f.get("message"))'
}

# --- Slurm's default: PropagateResourceLimits=ALL
job default
check "default: the srun task runs (pid ${pid:-none})" test -n "${pid:-}" -a -d "/proc/${pid:-0}"
[ -n "${pid:-}" ] || sed 's/^/# /' "$W/default.err" "$W/slurmd.log" | tail -20
check "default: the task's soft limit is the submit shell's ($soft = $submit_soft)" test "$soft" = "$submit_soft"
check "default: its hard limit is slurmd's ($hard_got = $hard)" test "$hard_got" = "$hard"
ids=$(doctor_ids)
check "doctor predicts it: WARN slurm-propagates-memlock" grep -q "^warning slurm-propagates-memlock .*copy the submit host's soft memlock" <<<"$ids"
[ -n "$ids" ] || diag "doctor: $("$RDMALIMITS" --root "$W" --json doctor 2>&1 | head -c 600)"
st=$(status_of "$pid")
IFS='|' read -r kind name s_soft s_hard from <<<"$st"
check "status: the task is a Slurm job step ($kind $name)" test "$kind" = slurm -a "${name#job_}" != "$name"
read -r p_soft p_hard <<<"$(limits_of "$pid")"
check "status: the task's memlock as /proc says ($s_soft $s_hard)" test "$s_soft $s_hard" = "$p_soft $p_hard"
check "status: the soft limit came from the submit host, by explain --slurm's model ($from)" \
	test "$from" = "the submit host (soft), slurmd (hard)"
scancel -n default 2> /dev/null
wait

# --- PropagateResourceLimitsExcept=MEMLOCK: the task keeps slurmd's
conf PropagateResourceLimitsExcept=MEMLOCK > "$W/etc/slurm/slurm.conf"
scontrol reconfigure 2> /dev/null || diag "scontrol reconfigure failed"
job except
check "Except=MEMLOCK: the srun task runs (pid ${pid:-none})" test -n "${pid:-}" -a -d "/proc/${pid:-0}"
check "Except=MEMLOCK: the task's soft limit is slurmd's ($soft = $slurmd_soft)" test "$soft" = "$slurmd_soft"
check "Except=MEMLOCK: its hard limit is slurmd's ($hard_got = $hard)" test "$hard_got" = "$hard"
ids=$(doctor_ids)
check "doctor predicts it: no slurm-propagates-memlock" test -z "$(grep slurm-propagates-memlock <<<"$ids")"
check "... but OK: tasks get slurmd's memlock" grep -q "^info slurm-keeps-slurmd-memlock .*tasks get slurmd's memlock" <<<"$ids"
st=$(status_of "$pid")
IFS='|' read -r kind name s_soft s_hard from <<<"$st"
read -r p_soft p_hard <<<"$(limits_of "$pid")"
check "status: the task's memlock as /proc says ($s_soft $s_hard)" test "$s_soft $s_hard" = "$p_soft $p_hard"
check "status: the limits are slurmd's, by explain --slurm's model ($from)" \
	test "$from" = "slurmd (PropagateResourceLimits leaves memlock to it)"
scancel -n except 2> /dev/null
wait

# --- the same, and a user's srun --propagate=MEMLOCK: Slurm applies a U-prefixed value whatever
# slurm.conf says (ulimits.c _set_limit()): the task gets the submit shell's soft limit.  explain
# says it assumed no --propagate (it said nothing)
prlimit --memlock="$submit_soft:$hard" srun -t 2 -J prop --propagate=MEMLOCK sh -c 'ulimit -Sl' > "$W/prop.out" 2> "$W/prop.err"
check "Except=MEMLOCK, srun --propagate=MEMLOCK: the task gets the submit shell's soft ($(cat "$W/prop.out") KiB)" \
	test "$(cat "$W/prop.out")" = "$((submit_soft / 1024))"
"$RDMALIMITS" explain root --slurm --slurm-conf "$W/etc/slurm/slurm.conf" --submit-memlock "$((submit_soft / 1024))K" > "$W/explain.out" 2>&1
check "... explain --slurm states its assumption of no --propagate=MEMLOCK" \
	grep -q "^Assumed: srun and sbatch run without --propagate=MEMLOCK" "$W/explain.out"
grep -q "^Assumed: srun and sbatch run without --propagate=MEMLOCK" "$W/explain.out" || sed 's/^/# /' "$W/explain.out"

# --- this slurmd was not started from slurmd.service (LimitMEMLOCK=infinity in Debian's unit):
# doctor on the running system compares the running slurmd's limits with the unit's, as explain
# --slurm reads slurmd's limits (it said "OK slurmd.service: memlock unlimited: Slurm tasks get
# it" while the tasks got this slurmd's)
if grep -qs '^LimitMEMLOCK=infinity' /usr/lib/systemd/system/slurmd.service /lib/systemd/system/slurmd.service; then
	"$RDMALIMITS" --json doctor --slurm-conf "$W/etc/slurm/slurm.conf" 2> /dev/null > "$W/doctor.json"
	check "doctor: the running slurmd's memlock is not the unit's, said (slurmd-running-memlock)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(f.get("id") == "slurmd-running-memlock" and f.get("severity") == "warning" and "not slurmd.service" in f.get("message", "")
                  for f in d.get("findings", [])) else 1)' "$W/doctor.json"
else
	skip "no Debian slurmd.service with LimitMEMLOCK=infinity here"
fi
done_testing
