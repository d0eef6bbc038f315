#!/bin/bash
# spank_rdmalimit end to end: a real single-node Slurm (Debian's munged, slurmctld, slurmd) in
# the throwaway sandbox of tests/e2e/sandbox.sh (private mount, PID and network namespaces;
# copies of /etc/passwd, group and security bound over the real ones), slurm.conf's
# PlugStackConfig naming the BUILT plugin; srun tasks of two throwaway users:
#   alice  member of rdma_users (policy: memlock H/2)
#   bob    no rule (Slurm's own behaviour)
#   carol  a user rule above the hard limit H this machine allows (2H): the shortfall
# slurmd runs with soft H/4, hard H (root here lacks CAP_SYS_RESOURCE: nobody raises H).
# Asserted, for PropagateResourceLimits unset (Slurm's default ALL) and for
# PropagateResourceLimitsExcept=MEMLOCK:
#   - alice's task gets soft H/2, hard H whatever the submit shell's soft limit (H/8 or 3H/4,
#     and srun --propagate=MEMLOCK, the `U` value), one slurmd log line per step naming
#     user, job.step, rule and values (two tasks on the node: both get it, one line);
#   - bob's task gets what Slurm gives: the submit shell's soft limit under ALL, slurmd's under
#     Except=MEMLOCK; no plugin line for bob;
#   - carol's task gets soft = hard = H, slurmd's log has the warning with the cause and the
#     fix (LimitMEMLOCK=), srun's stderr the message to the user;
#   - a broken policy: the job runs with Slurm's limits and the log says why; with `strict` and
#     `required` in plugstack.conf the step fails (an optional plugin's error Slurm ignores);
#   - every srun result above is what `rdmalimits explain USER --slurm --submit-memlock S`
#     predicted (the step that fails: no task); doctor compares running steps of alice (the
#     plugin) and bob (the submit shell's soft, which doctor does not know) with it.
# Root only (the daemons run as root); fails under CI=true when it cannot run.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"
# shellcheck source=slurm.sh
. "$(dirname "${BASH_SOURCE[0]}")/slurm.sh"
: "${SPANK_PLUGIN:=$top_builddir/spank/.libs/spank_rdmalimit.so}"
export SPANK_PLUGIN

# what must not change on the host: the files the sandbox shadows
host_state() { sandbox_host_state; }

if ! sandbox_inside; then
	require_root "a single-node Slurm with spank_rdmalimit"
	no_plan
	require_built "$SPANK_PLUGIN"
	for t in munged slurmctld slurmd srun scontrol sinfo unshare prlimit setpriv ip; do
		command -v "$t" >/dev/null || skip_all "$t is missing (Debian: slurmctld slurmd slurm-client munge)"
	done
	sandbox_outer "/etc/passwd, group, security" "$0" "$@"
	done_testing
fi

e2e_inner
# Slurm's daemons bind with AI_ADDRCONFIG, which wants an address besides loopback
{ ip link add rls0 type veth peer name rls1 && ip addr add 192.0.2.1/24 dev rls0 &&
	ip link set rls0 up && ip link set rls1 up; } || { fail "a veth pair in the sandbox's network namespace"; exit 1; }

H=$SANDBOX_MEMLOCK_HARD
[ "$(ulimit -Hl)" = unlimited ] || H=$(($(ulimit -Hl) * 1024))
KiB=1024
kib() { echo $(($1 / KiB)); }
# a size as the log writes it (exact: the largest unit that divides it), and as LimitMEMLOCK=
iec() { if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576)) MiB"; else echo "$(($1 / KiB)) KiB"; fi; }
sysd() { if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576))M"; else echo "$(($1 / KiB))K"; fi; }
slurmd_soft=$((H / 4)) policy=$((H / 2)) low=$((H / 8)) high=$((H * 3 / 4)) over=$((H * 2))
diag "hard H=$H; slurmd soft $slurmd_soft; policy $policy; submit shells $low and $high; carol's rule $over"

sandbox_user alice rdma_users && sandbox_user bob && sandbox_user carol ||
	{ fail "the throwaway users"; exit 1; }
# the policy the plugin reads (/etc/security here is the sandbox's copy: root-owned, 0644)
sandbox_policy <<E
version = 1;
rules = (
  { group = "rdma_users"; memlock = "$(kib "$policy")K"; },
  { user = "carol"; memlock = "$(kib "$over")K"; }
);
E
group_line=$(grep -n 'rdma_users' /etc/security/rdmalimit.conf | cut -d: -f1)
carol_line=$(grep -n '"carol"' /etc/security/rdmalimit.conf | cut -d: -f1)

W=$SANDBOX_DIR/slurm
mkdir -m 0755 "$W" "$W/munge" "$W/state" "$W/spool" "$W/etc" "$W/out"
chmod 0777 "$W/out"
if ! slurm_munged "$W"; then
	not_ok "munged starts" "$(cat "$W/munged.err")"
	exit 1
fi
node=$(hostname -s)
echo "optional $SPANK_PLUGIN cache=" > "$W/etc/plugstack.conf"
conf() { slurm_conf "$W" "$node" "PlugStackConfig=$W/etc/plugstack.conf" "$@"; }
conf > "$W/etc/slurm.conf"
chmod 0644 "$W/etc/slurm.conf" "$W/etc/plugstack.conf"
export SLURM_CONF=$W/etc/slurm.conf

slurmctld -i 2> "$W/slurmctld.err" || { not_ok "slurmctld starts" "$(cat "$W/slurmctld.err" "$W/slurmctld.log")"; exit 1; }
prlimit --memlock="$slurmd_soft:$H" slurmd 2> "$W/slurmd.err" ||
	{ not_ok "slurmd starts" "$(cat "$W/slurmd.err" "$W/slurmd.log")"; exit 1; }
# readiness, not timing: the node registers within a minute or the test fails
for _ in $(seq 60); do
	[ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" = idle ] && break
	sleep 1
done
if [ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" != idle ]; then
	not_ok "the node $node comes up idle" "$(tail -30 "$W/slurmctld.log" "$W/slurmd.log")"
	exit 1
fi
ok "munged, slurmctld and slurmd run; plugstack.conf: $(cat "$W/etc/plugstack.conf")"

# run USER SUBMIT_SOFT NAME [SRUN-OPTION...]: srun as USER (no PAM: setpriv) from a shell with
# memlock soft SUBMIT_SOFT, hard H; sets $soft and $hard (bytes) from the task's `ulimit -l`,
# $job (its job id) and leaves srun's stderr in $W/out/NAME.err
run() {
	local user=$1 submit=$2 name=$3 out
	shift 3
	out=$W/out/$name
	(cd / && prlimit --memlock="$submit:$H" setpriv --reuid="$user" --regid="$user" --init-groups \
		timeout 120 srun -t 2 -J "$name" "$@" sh -c 'echo "$SLURM_JOB_ID"; ulimit -Sl; ulimit -Hl') \
		> "$out.out" 2> "$out.err"
	{ read -r job; read -r soft; read -r hard; } < "$out.out"
	job=${job:-none}
	[ "${soft:-x}" = unlimited ] && soft=$((1 << 62))
	soft=$((${soft:-0} * KiB)) hard=$((${hard:-0} * KiB))
	[ "$hard" != 0 ] || diag "srun $name: $(cat "$out.out" "$out.err")" "$(tail -15 "$W/slurmd.log")"
	local p want="$soft $hard"
	[ "$hard" = 0 ] && want="None None"
	p=$(predict "$user" "$submit")
	check "explain $user --slurm predicted $name ($p)" test "$p" = "$want"
}
# predict USER SUBMIT_SOFT: what explain --slurm says the task gets, "SOFT HARD" in bytes ("None
# None": no task starts), from this node's slurm.conf, plugstack.conf, running slurmd and policy
predict() {
	"$RDMALIMITS" --json explain "$1" --slurm --submit-memlock "$(kib "$2")K" --slurm-conf "$W/etc/slurm.conf" \
		2> "$W/explain.err" | python3 -c '
import json, sys
m = json.load(sys.stdin)["memlock"]
print(*(1 << 62 if v == "unlimited" else v for v in (m["soft"], m["hard"])))' 2>> "$W/explain.err"
}
# log_line JOB: the plugin's lines in slurmd's log for that job
log_line() { grep -F "spank_rdmalimit: " "$W/slurmd.log" | grep -F "job=$1." || true; }

members() { # LABEL: alice's tasks from both submit shells, and with srun --propagate=MEMLOCK
	local label=$1 l
	run alice "$low" "alice-low-$label"
	check "$label: alice (rdma_users), submit soft $low: the task gets soft $policy ($soft)" test "$soft" = "$policy"
	check "$label: ... and hard H ($hard = $H)" test "$hard" = "$H"
	l=$(log_line "$job")
	check "$label: slurmd's log: one line for the step" test "$(grep -c . <<<"$l")" = 1
	check "$label: ... with user, job.step, rule, values, why" grep -qF \
		"spank_rdmalimit: user=alice job=$job.0 rule group rdma_users (/etc/security/rdmalimit.conf:$group_line): memlock soft=$(iec "$policy") hard=$(iec "$H") (fixed value)" <<<"$l"
	[ -n "$l" ] && diag "log: ${l#*] }"
	run alice "$high" "alice-high-$label"
	check "$label: alice, submit soft $high: still soft $policy ($soft)" test "$soft" = "$policy"
	run alice "$high" "alice-propagate-$label" --propagate=MEMLOCK
	check "$label: alice, submit soft $high, srun --propagate=MEMLOCK (the U value): still soft $policy ($soft)" \
		test "$soft" = "$policy"
}

# --- Slurm's default: PropagateResourceLimits=ALL
members default
# two tasks on the node: both get the policy, the step has one line (local task 0's)
(cd / && prlimit --memlock="$low:$H" setpriv --reuid=alice --regid=alice --init-groups \
	timeout 120 srun -t 2 -n 2 -J alice-two sh -c 'echo "$SLURM_JOB_ID $SLURM_LOCALID $(ulimit -Sl)"') \
	> "$W/out/alice-two.out" 2> "$W/out/alice-two.err"
two=$(sort -k2 "$W/out/alice-two.out" | awk '{ print $2 ":" $3 }' | tr '\n' ' ')
check "two tasks: both get soft $policy ($two)" test "$two" = "0:$(kib "$policy") 1:$(kib "$policy") "
job=$(awk '{ print $1; exit }' "$W/out/alice-two.out")
check "two tasks: one line for the step in slurmd's log" test "$(log_line "${job:-none}" | grep -c .)" = 1
run bob "$low" bob-low-default
check "default: bob (no rule) gets the submit shell's soft limit, as Slurm gives it ($soft = $low)" test "$soft" = "$low"
check "default: ... and slurmd's hard limit ($hard = $H)" test "$hard" = "$H"
check "default: no plugin line for bob's step" test -z "$(log_line "$job")"
run bob "$high" bob-high-default
check "default: bob from a shell with soft $high gets $high ($soft)" test "$soft" = "$high"

# doctor: a running step against explain --slurm (the submit shell's soft limit unknown to it);
# steps USER: start a step of USER that sleeps (select/linear: one job on the node at a time),
# print doctor's findings about running steps ("ID MESSAGE-HEAD"), end the step
steps() {
	local u=$1 pid
	(cd / && prlimit --memlock="$low:$H" setpriv --reuid="$u" --regid="$u" --init-groups \
		timeout 120 srun -t 2 -J "$u-sleep" sleep 60) > "$W/out/$u-sleep.out" 2>&1 &
	pid=$!
	for _ in $(seq 60); do
		[ -n "$(pgrep -u "$u" -x sleep)" ] && break
		sleep 1
	done
	"$RDMALIMITS" --json doctor --slurm-conf "$W/etc/slurm.conf" > "$W/doctor-$u.json" 2> "$W/doctor-$u.err"
	# status's "limits of" for the step's task, by the same model
	"$RDMALIMITS" --json status --pid "$(pgrep -u "$u" -x sleep | head -n 1)" --slurm-conf "$W/etc/slurm.conf" 2> /dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["processes"][0]["origin"]["limits_from"])' \
		> "$W/status-$u.txt" 2>&1
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if (f["id"] or "").startswith("slurm-step"):
        print(f["id"], f["message"].split(":")[0], sep=" ")' "$W/doctor-$u.json"
	scancel -n "$u-sleep" 2> /dev/null
	wait "$pid"
}
st=$(steps alice)
diag "doctor, alice's step: $st"
check "doctor: alice's running step as explain --slurm predicts (the plugin)" test "$st" = "slurm-step-memlock user alice"
check "status: alice's task's limits are spank_rdmalimit's ($(cat "$W/status-alice.txt"))" \
	test "$(cat "$W/status-alice.txt")" = "spank_rdmalimit: the policy's rule"
st=$(steps bob)
diag "doctor, bob's step: $st"
check "doctor: bob's step: its hard limit as predicted, the submit shell's soft not compared, no MISMATCH" \
	test "$st" = "slurm-step-submit-unknown user bob"
check "status: bob's task: the submit host's soft, slurmd's hard ($(cat "$W/status-bob.txt"))" \
	test "$(cat "$W/status-bob.txt")" = "the submit host (soft), slurmd (hard)"

# the shortfall: carol's rule wants 2H, slurmd's hard limit is H
run carol "$low" carol-default
check "shortfall: carol's task gets the closest value, soft = hard = H ($soft $hard)" test "$soft $hard" = "$H $H"
l=$(log_line "$job")
check "shortfall: slurmd's log names the cause and the fix (LimitMEMLOCK=)" grep -qE \
	"spank_rdmalimit: warning: user=carol job=$job\\.0 rule user carol \\(/etc/security/rdmalimit\\.conf:$carol_line\\): wanted memlock .* set soft=.* hard=.*: setrlimit: Operation not permitted: slurmstepd .* cannot raise its hard memlock limit .*CAP_SYS_RESOURCE.*fix: give slurmd LimitMEMLOCK=$(sysd "$over") " <<<"$l"
[ -n "$l" ] && diag "log: ${l#*] }"
check "shortfall: srun's stderr tells the user" grep -qF "rdmalimit: memlock is $(iec "$H"), not $(iec "$over"): slurmd cannot raise its hard limit (see rdmalimits doctor)" "$W/out/carol-default.err"
diag "srun's stderr: $(cat "$W/out/carol-default.err")"

# --- PropagateResourceLimitsExcept=MEMLOCK: Slurm gives tasks slurmd's limits
conf PropagateResourceLimitsExcept=MEMLOCK > "$W/etc/slurm.conf"
scontrol reconfigure 2> /dev/null || diag "scontrol reconfigure failed"
sleep 1
members except
run bob "$high" bob-except
check "except: bob gets slurmd's soft limit, as Slurm gives it ($soft = $slurmd_soft)" test "$soft" = "$slurmd_soft"
check "except: ... and slurmd's hard limit ($hard = $H)" test "$hard" = "$H"
check "except: no plugin line for bob's step" test -z "$(log_line "$job")"

# --- a broken policy never fails a job, unless the plugin says strict
cp /etc/security/rdmalimit.conf "$W/policy.good"
printf 'version = 1;\nrules = ( { group = "rdma_users"; memlock = "4M"; colour = "red"; } );\n' > /etc/security/rdmalimit.conf
run alice "$high" alice-broken-policy
check "broken policy: alice's task runs with Slurm's limits (slurmd's soft $slurmd_soft: $soft)" test "$soft" = "$slurmd_soft"
check "broken policy: slurmd's log says the policy is invalid, with file:line" \
	grep -qE "spank_rdmalimit: /etc/security/rdmalimit.conf:2: .*colour|spank_rdmalimit: /etc/security/rdmalimit.conf: invalid policy" "$W/slurmd.log"
# (Slurm ignores what an optional plugin returns: strict takes effect for a required one)
echo "optional $SPANK_PLUGIN cache= strict" > "$W/etc/plugstack.conf"
run alice "$high" alice-strict-optional
check "broken policy, strict but optional: Slurm runs the task all the same ($soft)" test "$soft" = "$slurmd_soft"
echo "required $SPANK_PLUGIN cache= strict" > "$W/etc/plugstack.conf"
run alice "$high" alice-strict
if [ "$hard" = 0 ]; then ok "broken policy, strict, required: the step fails (no task output)"; else
	not_ok "broken policy, strict, required: the step fails (no task output)" "$(cat "$W/out/alice-strict.out" "$W/out/alice-strict.err")"; fi
check "broken policy, strict: slurmd's log says why" grep -qE "spank_rdmalimit: job=[0-9]+\.0: no decision \(Invalid argument\): strict: an error for Slurm" "$W/slurmd.log"
echo "optional $SPANK_PLUGIN cache=" > "$W/etc/plugstack.conf"
cp "$W/policy.good" /etc/security/rdmalimit.conf

# --- two lines that load the plugin: Slurm loads it once a line into the same copy (one dlopen
# handle), and each line's init runs: the last line decides, as explain --slurm says.  Its
# policy missing, nothing is applied; the first line's decision was applied before.
printf 'optional %s cache=\noptional %s conf=/nonexistent/rdmalimit.conf cache=\n' "$SPANK_PLUGIN" "$SPANK_PLUGIN" \
	> "$W/etc/plugstack.conf"
run alice "$low" alice-two-lines
check "two plugin lines, the last one's policy missing: not the first line's policy ($soft != $policy)" \
	test "$soft" != "$policy"
echo "optional $SPANK_PLUGIN cache=" > "$W/etc/plugstack.conf"

# --- UsePAM=1: slurmstepd opens the PAM session "slurm" as root before it forks the tasks, which
# inherit its limits: bob (no rule) gets what pam_limits sets there, as explain --slurm predicts
printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession required pam_limits.so\n' > /etc/pam.d/slurm
printf 'bob soft memlock %s\nbob hard memlock %s\n' "$(kib "$low")" "$(kib "$policy")" | sandbox_limits_d 50-slurm.conf
conf PropagateResourceLimitsExcept=MEMLOCK UsePAM=1 > "$W/etc/slurm.conf"
scontrol reconfigure 2> /dev/null || diag "scontrol reconfigure failed"
sleep 1
run bob "$high" bob-usepam
check "UsePAM=1: bob's task has what the slurm PAM session's pam_limits set ($soft $hard = $low $policy)" \
	test "$soft $hard" = "$low $policy"
st=$(steps bob)
check "UsePAM=1: doctor finds bob's running step as explain --slurm predicts it, no MISMATCH ($st)" \
	test "$st" = "slurm-step-memlock user bob"
conf PropagateResourceLimitsExcept=MEMLOCK > "$W/etc/slurm.conf"
scontrol reconfigure 2> /dev/null || diag "scontrol reconfigure failed"
sleep 1
# the daemons go: PID 1 of the sandbox's PID namespace exits after them
for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
	[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
exit 0
