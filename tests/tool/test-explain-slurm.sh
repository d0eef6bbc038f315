#!/bin/bash
# rdmalimits explain USER --slurm on throwaway root trees: the memlock a Slurm job task gets,
# for each branch of the path (lib/session/slurmtask.h): PropagateResourceLimits unset, ALL,
# MEMLOCK excluded, an Except list without MEMLOCK, a name Slurm refuses, lines continued by a
# trailing backslash and escaped bytes; the submit shell's
# soft limit below and above slurmd's hard; spank_rdmalimit absent, present (optional, from an
# included file, with conf=), its file missing (optional, required), another plugin's file
# missing (required: no task); a member and a non-member;
# a policy the plugin cannot load (strict required, optional); slurmd without CAP_SYS_RESOURCE
# (--pid of a process whose bounding set lacks it): the closest value.  The policy must be
# root's, so this test runs as root.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
require_root "the tree's policy counts only when root owns it"
no_plan

T=$(mktemp -d)
trap 'kill "$slurmd_pid" 2>/dev/null; rm -rf "$T"' EXIT
R=$T/root
MiB=1048576
GiB=$((1024 * MiB))

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security" "$R/etc/slurm/plugstack.conf.d" "$R/usr/lib/systemd/system" "$R/opt/slurm/plugins"
	printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\nbob:x:1002:1002::/home/bob:/bin/sh\ncarol:x:1003:1003::/home/carol:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nalice:x:1001:\nbob:x:1002:\ncarol:x:1003:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	printf 'version = 1;\nrules = (\n  { group = "rdma_users"; memlock = "512M"; },\n  { user = "carol"; memlock = "4G"; }\n);\n' > "$R/etc/security/rdmalimit.conf"
	printf 'version = 1;\nrules = ( { user = "bob"; memlock = "256M"; } );\n' > "$R/etc/security/other.conf"
	chmod 644 "$R/etc/security/rdmalimit.conf" "$R/etc/security/other.conf"
	printf 'ClusterName=lab\nSlurmctldHost=head\nPluginDir=/opt/slurm/plugins\n' > "$R/etc/slurm/slurm.conf"
	: > "$R/etc/slurm/plugstack.conf"
	: > "$R/opt/slurm/plugins/spank_rdmalimit.so"
	printf '[Service]\nExecStart=/usr/sbin/slurmd\nLimitMEMLOCK=64M:1G\n' > "$R/usr/lib/systemd/system/slurmd.service"
}
# ex USER ARG...: explain --slurm, text in $T/out, JSON in $T/json, the exit status in $rc
ex() {
	local user=$1
	shift
	"$RDMALIMITS" --root "$R" explain "$user" --slurm "$@" > "$T/out" 2> "$T/err"
	rc=$?
	"$RDMALIMITS" --root "$R" --json explain "$user" --slurm "$@" > "$T/json" 2>> "$T/err"
}
# js EXPR: a value of the JSON as Python prints it (j is the document)
js() { python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/json" "$1"; }
# is SOFT HARD BY: the task's memlock and who decided it
is() { test "$(js 'j["memlock"]["soft"], j["memlock"]["hard"], j["slurm"]["decided_by"]')" = "($1, $2, '$3')"; }
has() { grep -qF -- "$1" "$T/out"; }
show() { sed 's/^/#   /' "$T/out" "$T/err"; }

# --- no plugin: Slurm's behaviour
mkroot
ex bob --submit-memlock 4M
check "PropagateResourceLimits unset (default ALL), no plugin: bob gets the submit shell's soft 4 MiB, slurmd's hard 1 GiB" is $((4 * MiB)) $GiB propagated
check "... exit 0" test "$rc" = 0
check "... the default named, at slurm.conf" has "1. PropagateResourceLimits is not set (its default is ALL): srun and sbatch put the submit shell's soft memlock in the job's environment (SLURM_RLIMIT_MEMLOCK)"
check "... slurmd's limits from its unit, file:line" has "[usr/lib/systemd/system/slurmd.service:3]"
check "... which submit limit was used" has "The submit shell's soft memlock: 4 MiB (--submit-memlock 4M)"
check "... no plugin in plugstack.conf, said" has "plugstack.conf does not name spank_rdmalimit.so: no plugin sets memlock"
check "... assumptions said (slurmd's unit, its capability, srun without --propagate)" \
	test "$(grep -c '^Assumed: ' "$T/out")" = 2
check "JSON: the slurmd object (unit, 64 MiB / 1 GiB)" test "$(js 'j["slurm"]["slurmd"]["from"], j["slurm"]["slurmd"]["memlock_soft"], j["slurm"]["slurmd"]["memlock_hard"]')" = "('unit', $((64 * MiB)), $GiB)"
check "JSON: submit from the option, depends_on_submit" test "$(js 'j["slurm"]["submit"]["from"], j["slurm"]["depends_on_submit"], j["slurm"]["plugstack"]["plugin"]')" = "('option', True, None)"
ex bob --submit-memlock 4G
check "submit soft 4 GiB above slurmd's hard 1 GiB: Slurm lowers it to the hard limit" is $GiB $GiB propagated
check "... capped in JSON, and the step says why" test "$(js 'j["slurm"]["capped"]')" = True
check "... text: reducing req" has "is above the hard 1 GiB: Slurm lowers it to the hard limit"
ex bob
self=$(ulimit -Sl)
[ "$self" = unlimited ] && self=18446744073709551615 || self=$((self * 1024))
check "no --submit-memlock: the caller's own soft limit, said" test "$(js 'j["slurm"]["submit"]["soft"], j["slurm"]["submit"]["from"]')" = "($([ "$self" = 18446744073709551615 ] && echo "'unlimited'" || echo "$self"), 'caller')"
check "... text says it is assumed" has "assumed: the caller's own soft limit"

printf 'PropagateResourceLimits=ALL\n' >> "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "PropagateResourceLimits=ALL: the submit shell's soft" is $((4 * MiB)) $GiB propagated
check "... at its line" test "$(js 'j["slurm"]["propagate"]["where"]')" = etc/slurm/slurm.conf:4
printf 'PropagateResourceLimitsExcept=MEMLOCK\n' >> "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "Except=MEMLOCK (beats PropagateResourceLimits): slurmd's limits" is $((64 * MiB)) $GiB slurmd
check "... named at its line" test "$(js 'j["slurm"]["propagate"]')" = "{'memlock': False, 'setting': 'PropagateResourceLimitsExcept=MEMLOCK', 'where': 'etc/slurm/slurm.conf:5'}"
sed -i 's/^PropagateResourceLimitsExcept=.*/PropagateResourceLimitsExcept = "NOFILE, CORE"/' "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "Except list without MEMLOCK (quoted, blanks around =): MEMLOCK propagates" is $((4 * MiB)) $GiB propagated
sed -i '/^PropagateResourceLimitsExcept/d; s/^PropagateResourceLimits=.*/PropagateResourceLimits=NOFILE,RLIMIT_CORE/' "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "PropagateResourceLimits list without MEMLOCK: slurmd's limits" is $((64 * MiB)) $GiB slurmd
sed -i 's/^PropagateResourceLimits=.*/PropagateResourceLimits=NOFILE,memlock/' "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "a name Slurm does not know (memlock in lower case): slurm.conf refused, no task" is None None no-task
check "... said" has 'it refuses slurm.conf ("Bad PropagateResourceLimits")'
sed -i '/^PropagateResourceLimits/d' "$R/etc/slurm/slurm.conf"
echo 'Include limits.conf' >> "$R/etc/slurm/slurm.conf"
echo 'PropagateResourceLimitsExcept=MEMLOCK' > "$R/etc/slurm/limits.conf"
ex bob --submit-memlock 4M
check "an Include'd file's Except=MEMLOCK counts, at its file:line" test "$(js 'j["slurm"]["decided_by"], j["slurm"]["propagate"]["where"]')" = "('slurmd', 'etc/slurm/limits.conf:1')"
rm "$R/etc/slurm/limits.conf"
sed -i '/^Include/d' "$R/etc/slurm/slurm.conf"
# a line continued by a trailing backslash (parse_config.c _get_next_line(): each physical
# line's comment stripped, then joined, then its escapes stripped), as Slurm reads it
# with_lines FORMAT: explain for bob (4M) with slurm.conf and these lines (printf's FORMAT) after it;
# slurm.conf as it was afterwards
with_lines() {
	cp "$R/etc/slurm/slurm.conf" "$T/slurm.conf.base"
	# shellcheck disable=SC2059 # the lines are printf's format: their backslashes are the point
	printf "$1" >> "$R/etc/slurm/slurm.conf"
	ex bob --submit-memlock 4M
	cp "$T/slurm.conf.base" "$R/etc/slurm/slurm.conf"
}
with_lines 'PropagateResourceLimitsExcept=NOFILE,\\\nMEMLOCK\n'
check "Except=NOFILE,MEMLOCK continued on the next line: slurmd's limits, at the first line" \
	test "$(js 'j["slurm"]["decided_by"], j["slurm"]["propagate"]["setting"], j["slurm"]["propagate"]["where"]')" = "('slurmd', 'PropagateResourceLimitsExcept=NOFILE,MEMLOCK', 'etc/slurm/slurm.conf:4')"
with_lines 'PropagateResourceLimitsExcept=MEMLOCK,\\  \t\nNOFILE # blanks after the backslash, a comment\n'
check "... blanks after the backslash and a comment on the next line: the same" \
	test "$(js 'j["slurm"]["decided_by"], j["slurm"]["propagate"]["setting"]')" = "('slurmd', 'PropagateResourceLimitsExcept=MEMLOCK,NOFILE')"
with_lines 'PropagateResourceLimitsExcept=NOFILE # a comment ends the line \\\nPropagateResourceLimitsExcept=MEMLOCK\n'
check "... a backslash inside a comment continues nothing: the second line counts" \
	test "$(js 'j["slurm"]["decided_by"], j["slurm"]["propagate"]["where"]')" = "('slurmd', 'etc/slurm/slurm.conf:5')"
with_lines 'PropagateResourceLimitsExcept=NOFILE\\\\\nPropagateResourceLimitsExcept=MEMLOCK\n'
check "... an even number of backslashes continues nothing" \
	test "$(js 'j["slurm"]["decided_by"], j["slurm"]["propagate"]["where"]')" = "('slurmd', 'etc/slurm/slurm.conf:5')"
with_lines 'PropagateResourceLimitsExcept=MEM\\LOCK\n'
check "... an escaped letter is the letter (MEM\\LOCK is MEMLOCK)" is $((64 * MiB)) $GiB slurmd

# --- the plugin
echo 'optional spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf"
for s in 4M 4G; do
	ex alice --submit-memlock $s
	check "plugin, member, submit $s: the policy's 512 MiB soft, slurmd's higher hard kept" is $((512 * MiB)) $GiB plugin
done
check "... the plugin's line, found in PluginDir" test "$(js 'j["slurm"]["plugstack"]["plugin"]["where"], j["slurm"]["plugstack"]["plugin"]["so"]')" = "('etc/slurm/plugstack.conf:1', '/opt/slurm/plugins/spank_rdmalimit.so')"
check "... the rule at file:line" has "[/etc/security/rdmalimit.conf:3]"
check "... SLURM_RLIMIT_MEMLOCK removed, said" has "the plugin removes SLURM_RLIMIT_MEMLOCK from the job's environment"
check "... JSON policy object" test "$(js 'j["slurm"]["policy"]["rule"], j["slurm"]["policy"]["line"], j["slurm"]["policy"]["eperm"]')" = "('group rdma_users', 3, False)"
ex bob --submit-memlock 4M
check "plugin, non-member: Slurm's behaviour (the submit shell's soft)" is $((4 * MiB)) $GiB propagated
check "... no rule, said" has "no rule of the policy matches bob: the plugin changes nothing"
ex carol --submit-memlock 4M
check "plugin, carol's rule above slurmd's hard, slurmd with CAP_SYS_RESOURCE (a tree: assumed): 4 GiB" is $((4 * GiB)) $((4 * GiB)) plugin
# a second name for carol's uid: a job carries the uid, the plugin looks it up (getpwuid(): the
# first entry, carol), so a rule for the second name never applies to its jobs
sed -i 's/^carol:.*/&\ncarol2:x:1003:1003::\/home\/carol:\/bin\/sh/' "$R/etc/passwd"
printf 'version = 1;\nrules = (\n  { group = "rdma_users"; memlock = "512M"; },\n  { user = "carol2"; memlock = "2G"; }\n);\n' \
	> "$R/etc/security/rdmalimit.conf"
ex carol2 --submit-memlock 4M
check "two names for one uid: the plugin's user is the uid's (carol, no rule), not carol2's rule" is $((4 * MiB)) $GiB propagated
check "... said, with the uid" has "a job carries the uid 1003, which the plugin looks up: its user is carol, not carol2"
mkroot
echo 'optional spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf"

# the plugin from an included file, with conf=
: > "$R/etc/slurm/plugstack.conf"
echo 'include plugstack.conf.d/*.conf' > "$R/etc/slurm/plugstack.conf"
echo 'optional /opt/slurm/plugins/spank_rdmalimit.so conf=/etc/security/other.conf' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
ex bob --submit-memlock 4M
check "optional with conf= in an included file: bob gets other.conf's 256 MiB" is $((256 * MiB)) $GiB plugin
check "... the line in plugstack.conf.d" test "$(js 'j["slurm"]["plugstack"]["plugin"]["where"], j["slurm"]["policy"]["file"]')" = "('etc/slurm/plugstack.conf.d/rdma.conf:1', '/etc/security/other.conf')"
ex alice --submit-memlock 4M
check "... alice, no rule in other.conf: Slurm's behaviour" is $((4 * MiB)) $GiB propagated
# glob(3), as Slurm's include calls it: a wildcard in a directory, and a dot file only for a
# pattern that starts with a dot
echo 'include plugstack.c*.d/*.conf' > "$R/etc/slurm/plugstack.conf"
ex bob --submit-memlock 4M
check "include with a wildcard in a directory: the plugin's line found there" test "$(js 'j["slurm"]["plugstack"]["plugin"]["where"]')" = "etc/slurm/plugstack.conf.d/rdma.conf:1"
mv "$R/etc/slurm/plugstack.conf.d/rdma.conf" "$R/etc/slurm/plugstack.conf.d/.rdma.conf"
ex bob --submit-memlock 4M
check "... a dot file is not matched by *.conf" is $((4 * MiB)) $GiB propagated
echo 'include plugstack.conf.d/.*.conf' > "$R/etc/slurm/plugstack.conf"
ex bob --submit-memlock 4M
check "... but by .*.conf" test "$(js 'j["slurm"]["plugstack"]["plugin"]["where"]')" = "etc/slurm/plugstack.conf.d/.rdma.conf:1"
mv "$R/etc/slurm/plugstack.conf.d/.rdma.conf" "$R/etc/slurm/plugstack.conf.d/rdma.conf"
echo 'include plugstack.conf.d/*.conf' > "$R/etc/slurm/plugstack.conf"

# the plugin's file missing
echo 'optional /opt/slurm/nowhere/spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
ex alice --submit-memlock 4M
check "optional, its file missing: Slurm skips it (the submit shell's soft)" is $((4 * MiB)) $GiB propagated
echo 'required /opt/slurm/nowhere/spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
ex alice --submit-memlock 4M
check "required, its file missing: no task starts" is None None no-task
check "... the cause" has "No task starts: the required plugin /opt/slurm/nowhere/spank_rdmalimit.so does not exist"
# another plugin, required, whose file does not exist: Slurm aborts the stack there, before or
# after the line that loads spank_rdmalimit; optional, it is skipped
echo 'required spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
printf 'required /opt/slurm/nowhere/spank_other.so\n' > "$R/etc/slurm/plugstack.conf.d/other.conf"
ex alice --submit-memlock 4M
check "another required plugin missing, after ours: no task starts" is None None no-task
check "... the cause, at its line" has "No task starts: the required plugin /opt/slurm/nowhere/spank_other.so does not exist"
check "... JSON: its FILE:LINE" test "$(js 'j["slurm"]["steps"][-1]["source"]')" = etc/slurm/plugstack.conf.d/other.conf:1
printf 'required /opt/slurm/nowhere/spank_other.so\n' > "$R/etc/slurm/plugstack.conf.d/0-other.conf"
rm "$R/etc/slurm/plugstack.conf.d/other.conf"
ex alice --submit-memlock 4M
check "... before ours: no task starts either" is None None no-task
printf 'optional /opt/slurm/nowhere/spank_other.so\nrequired spank_other2.so\n' > "$R/etc/slurm/plugstack.conf.d/0-other.conf"
: > "$R/opt/slurm/plugins/spank_other2.so"
ex alice --submit-memlock 4M
check "... optional, or required and found in PluginDir: the plugin decides" is $((512 * MiB)) $GiB plugin
rm "$R/etc/slurm/plugstack.conf.d/0-other.conf" "$R/opt/slurm/plugins/spank_other2.so"

# a line longer than Slurm's 4095-byte fgets(): read as two lines, as Slurm reads it; here a
# comment of 4095 bytes, then the plugin's line (it said no line names the plugin)
rm -f "$R/etc/slurm/plugstack.conf.d/"*.conf
{ printf '#%4094s' '' | tr ' ' x; printf 'optional spank_rdmalimit.so\n'; } > "$R/etc/slurm/plugstack.conf.d/long.conf"
ex alice --submit-memlock 4M
check "a 4095-byte comment and the plugin's line on one physical line: the plugin loads" is $((512 * MiB)) $GiB plugin
rm "$R/etc/slurm/plugstack.conf.d/long.conf"

# a policy the plugin cannot load
echo 'required spank_rdmalimit.so conf=/etc/security/none.conf strict' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
ex alice --submit-memlock 4M
check "required strict, no policy: the step fails" is None None no-task
echo 'optional spank_rdmalimit.so conf=/etc/security/none.conf strict' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
ex alice --submit-memlock 4M
check "optional strict, no policy: Slurm ignores the error (its behaviour)" is $((4 * MiB)) $GiB propagated
check "... said" has "strict, but Slurm ignores an optional plugin's error"

# --- slurmd without CAP_SYS_RESOURCE: --pid of a process standing in for it
echo 'optional spank_rdmalimit.so' > "$R/etc/slurm/plugstack.conf.d/rdma.conf"
setpriv --bounding-set -sys_resource prlimit --memlock=$((2 * MiB)):$((6 * MiB)) sleep 300 &
slurmd_pid=$!
for _ in $(seq 50); do
	[ "$(awk '/^Max locked memory/ { print $5 }' "/proc/$slurmd_pid/limits" 2>/dev/null)" = $((6 * MiB)) ] && break
	sleep 0.1
done
ex carol --pid "$slurmd_pid" --submit-memlock 4M
check "slurmd without CAP_SYS_RESOURCE, hard 6 MiB: carol's 4 GiB falls short, the closest value 6 MiB" is $((6 * MiB)) $((6 * MiB)) plugin
check "... eperm, slurmd from the pid" test "$(js 'j["slurm"]["policy"]["eperm"], j["slurm"]["slurmd"]["from"], j["slurm"]["slurmd"]["cap_sys_resource"]')" = "(True, 'pid', False)"
check "... the shortfall said, with the capability's source" has "slurmstepd has no CAP_SYS_RESOURCE: its hard limit cannot rise above 6 MiB"
ex alice --pid "$slurmd_pid" --submit-memlock 4M
check "... alice's 512 MiB: the closest value too" is $((6 * MiB)) $((6 * MiB)) plugin
ex bob --pid "$slurmd_pid" --submit-memlock 4M
check "... bob: the submit shell's 4 MiB within the process's hard 6 MiB" is $((4 * MiB)) $((6 * MiB)) propagated
kill "$slurmd_pid" 2>/dev/null

# --- UsePAM=1: slurmstepd opens the PAM session "slurm" as root before it forks the tasks (mgr.c
# pam_setup()), which inherit its limits: the path starts from them, as explain --service slurm
# models that session from slurmd's limits
mkroot
printf 'PropagateResourceLimitsExcept=MEMLOCK\nUsePAM=1\n' >> "$R/etc/slurm/slurm.conf"
mkdir -p "$R/etc/pam.d"
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/slurm"
printf 'bob soft memlock 131072\nbob hard memlock 262144\n' > "$R/etc/security/limits.conf"
ex bob --submit-memlock 4M
check "UsePAM=1: bob's task gets what the slurm PAM session sets (128 MiB / 256 MiB), not slurmd's" \
	is $((128 * MiB)) $((256 * MiB)) slurmd
check "... said, at its line" has "UsePAM=1: slurmstepd opens the PAM session \"slurm\" as root before it forks the tasks, which inherit its limits: memlock soft 128 MiB, hard 256 MiB (as explain bob --service slurm models it)"
check "... JSON pam object" test "$(js 'j["slurm"]["pam"]["where"], j["slurm"]["pam"]["opens"], j["slurm"]["pam"]["memlock_soft"]')" = "('etc/slurm/slurm.conf:5', True, $((128 * MiB)))"
"$RDMALIMITS" --root "$R" --json explain bob --service slurm > "$T/svc.json" 2>&1
check "... the same values as explain --service slurm" \
	test "$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j["memlock"]["soft"], j["memlock"]["hard"])' "$T/svc.json")" = "$((128 * MiB)) $((256 * MiB))"
printf 'session required pam_deny.so\n' > "$R/etc/pam.d/slurm"
ex bob --submit-memlock 4M
check "UsePAM=1, the slurm session fails: no task (Slurm fails the step)" test "$(js 'j["slurm"]["decided_by"], j["memlock"]["soft"]')" = "('no-task', None)"
check "... said" has "pam_setup() fails and Slurm fails the job step"
sed -i 's/^UsePAM=1$/UsePAM=no/' "$R/etc/slurm/slurm.conf"
ex bob --submit-memlock 4M
check "UsePAM=no: slurmd's limits again, no PAM object" test "$(js 'j["memlock"]["soft"], j["slurm"]["pam"]')" = "($((64 * MiB)), None)"
mkroot

# --- usage
"$RDMALIMITS" --root "$R" explain alice --slurm --service slurm > "$T/out" 2>&1
check "--slurm with --service: a usage error (exit 2)" test $? = 2
"$RDMALIMITS" --root "$R" explain alice --submit-memlock 4M > "$T/out" 2>&1
check "--submit-memlock without --slurm: a usage error" test $? = 2
"$RDMALIMITS" --root "$R" explain alice --slurm --submit-memlock 4096 > "$T/out" 2>&1
check "--submit-memlock with a bare number: refused as every size is" test $? = 2
"$RDMALIMITS" --root "$R" explain alice --slurm --slurm-conf /etc/slurm/none.conf > "$T/out" 2>&1
check "--slurm-conf naming no file: exit 1" test $? = 1
mv "$R/etc/slurm/slurm.conf" "$R/etc/slurm/site.conf"
ex bob --slurm-conf /etc/slurm/site.conf --submit-memlock 4M
check "--slurm-conf: that file is read (plugstack.conf next to it)" test "$(js 'j["slurm"]["slurm_conf"], j["slurm"]["plugstack"]["file"]')" = "('etc/slurm/site.conf', 'etc/slurm/plugstack.conf')"
printf 'Include site.conf\n' >> "$R/etc/slurm/site.conf"
ex bob --slurm-conf /etc/slurm/site.conf --submit-memlock 4M
check "an Include cycle: no prediction, exit 1" test "$rc" = 1
check "... said" grep -q "include cycle" "$T/err"

done_testing
