#!/bin/bash
# rdmalimits against throwaway root trees: apply/remove/list/check/explain, refusals.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
rl() { "$RDMALIMITS" --root "$R" --flavour debian-1.5.2 "$@"; }

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security/limits.d" "$R/proc/1"
	cat > "$R/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
alice:x:1001:1001::/home/alice:/bin/sh
bob:x:1002:1002::/home/bob:/bin/sh
carol:x:1003:2000::/home/carol:/bin/sh
P
	cat > "$R/etc/group" <<'G'
root:x:0:
alice:x:1001:
bob:x:1002:
rdma_users:x:2000:alice
G
	cat > "$R/etc/security/limits.conf" <<'L'
# /etc/security/limits.conf
*               soft    memlock         8192
*               hard    memlock         8192
L
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"
}
tree_sum() { (cd "$R" && find . -printf '%p %m %s %i\n' | sort && find . -type f -exec cat {} + | md5sum); }

# --- apply: create, idempotent, same inode
mkroot
D=$R/etc/security/limits.d/zz-rdmalimits.conf
rl apply @rdma_users 1G > "$T/out" 2>&1
check "apply exits 0" test $? -eq 0
same "apply writes the drop-in" "$D" <<'E'
# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'.
# Memlock limits for RDMA and AF_XDP users, in KiB as pam_limits reads them.
@rdma_users	soft	memlock	1048576
@rdma_users	hard	memlock	1048576
E
check "drop-in mode 0644" test "$(stat -c %a "$D")" = 644
ino=$(stat -c %i "$D")
rl apply @rdma_users 1G > "$T/out" 2>&1
check "second apply exits 0" test $? -eq 0
check "second apply keeps the inode" test "$(stat -c %i "$D")" = "$ino"
check "second apply says unchanged" grep -q "unchanged" "$T/out"
rl --json apply @rdma_users 1G > "$T/out"
same "apply --json unchanged" "$T/out" <<E
{"changed": false, "file": "$D", "diff": "", "effective": true, "checked_users": 2, "overridden_by": []}
E
check "no temporary files left" test "$(ls -A "$R/etc/security/limits.d" | wc -l)" = 1
# the users checked are those the look-ups know, each once: a name on a second passwd line, a
# comment, a line without fields are no more users
cp "$R/etc/passwd" "$T/passwd.keep"
printf 'alice:x:1009:2000::/:/bin/sh
# carol2:x:1010:2000::/:/bin/sh
nofields
' >> "$R/etc/passwd"
rl --json apply @rdma_users 1G > "$T/out"
check "apply --json: alice's second passwd line is not a third user checked" grep -q '"checked_users": 2,' "$T/out"
cp "$T/passwd.keep" "$R/etc/passwd"

# --- --check and --diff
before=$(tree_sum)
rl apply alice 2G --check > "$T/out" 2>&1
check "apply --check exits 3 when it would change" test $? -eq 3
check "apply --check changes nothing" test "$(tree_sum)" = "$before"
rl apply @rdma_users 1G --check > /dev/null 2>&1
check "apply --check exits 0 when nothing would change" test $? -eq 0
rl apply alice 2G --soft 1G --diff > "$T/out" 2>/dev/null
same "apply --diff shows the change" "$T/out" <<E
--- $D
+++ $D
@@ -1,4 +1,6 @@
 # rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'.
 # Memlock limits for RDMA and AF_XDP users, in KiB as pam_limits reads them.
 @rdma_users	soft	memlock	1048576
 @rdma_users	hard	memlock	1048576
+alice	soft	memlock	1048576
+alice	hard	memlock	2097152
$D: updated
E
rl apply alice unlimited > /dev/null 2>&1
check "apply unlimited" grep -q "^alice	hard	memlock	unlimited$" "$D"

# --- explain
rl explain --json alice > "$T/out"
same "explain --json: the user's own entries beat the group's" "$T/out" <<'E'
{"user": "alice", "uid": 1001, "flavour": {"name": "debian-1.5.2", "release": "1.5.2", "from": "--flavour"}, "session": "limits", "pam_session": {"state": "assumed", "where": null, "why": "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config", "assumed_success": null}, "service": {"name": "sshd", "process": "assumed: the limits of PID 1 (the tree's proc/1/limits) and with CAP_SYS_RESOURCE (as a root daemon has)", "assumed": true, "memlock_soft": 65536, "memlock_hard": 8388608, "cap_sys_resource": true}, "memlock": {"soft": "unlimited", "hard": "unlimited", "soft_source": "etc/security/limits.d/zz-rdmalimits.conf:5", "hard_source": "etc/security/limits.d/zz-rdmalimits.conf:6", "requested": {"soft": "unlimited", "hard": "unlimited"}}, "overridden": [{"source": "etc/security/limits.conf:2", "slot": "soft", "rank": "DEFAULT", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:5 (the stronger USER rank)"}, {"source": "etc/security/limits.conf:3", "slot": "hard", "rank": "DEFAULT", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:6 (the stronger USER rank)"}, {"source": "etc/security/limits.d/zz-rdmalimits.conf:3", "slot": "soft", "rank": "GROUP", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:5 (the stronger USER rank)"}, {"source": "etc/security/limits.d/zz-rdmalimits.conf:4", "slot": "hard", "rank": "GROUP", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:6 (the stronger USER rank)"}]}
E
rl explain --json carol > "$T/out"
same "explain --json: a member by primary gid gets the group's entry" "$T/out" <<'E'
{"user": "carol", "uid": 1003, "flavour": {"name": "debian-1.5.2", "release": "1.5.2", "from": "--flavour"}, "session": "limits", "pam_session": {"state": "assumed", "where": null, "why": "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config", "assumed_success": null}, "service": {"name": "sshd", "process": "assumed: the limits of PID 1 (the tree's proc/1/limits) and with CAP_SYS_RESOURCE (as a root daemon has)", "assumed": true, "memlock_soft": 65536, "memlock_hard": 8388608, "cap_sys_resource": true}, "memlock": {"soft": 1073741824, "hard": 1073741824, "soft_source": "etc/security/limits.d/zz-rdmalimits.conf:3", "hard_source": "etc/security/limits.d/zz-rdmalimits.conf:4", "requested": {"soft": 1073741824, "hard": 1073741824}}, "overridden": [{"source": "etc/security/limits.conf:2", "slot": "soft", "rank": "DEFAULT", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:3 (the stronger GROUP rank)"}, {"source": "etc/security/limits.conf:3", "slot": "hard", "rank": "DEFAULT", "reason": "overridden by etc/security/limits.d/zz-rdmalimits.conf:4 (the stronger GROUP rank)"}]}
E
rl explain --json root > "$T/out"
same "explain --json: root on Debian starts from /proc/1/limits and ignores '*'" "$T/out" <<'E'
{"user": "root", "uid": 0, "flavour": {"name": "debian-1.5.2", "release": "1.5.2", "from": "--flavour"}, "session": "limits", "pam_session": {"state": "assumed", "where": null, "why": "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config", "assumed_success": null}, "service": {"name": "sshd", "process": "assumed: the limits of PID 1 (the tree's proc/1/limits) and with CAP_SYS_RESOURCE (as a root daemon has)", "assumed": true, "memlock_soft": 65536, "memlock_hard": 8388608, "cap_sys_resource": true}, "memlock": {"soft": 65536, "hard": 8388608, "soft_source": "/proc/1/limits", "hard_source": "/proc/1/limits", "requested": {"soft": 65536, "hard": 8388608}}, "overridden": []}
E
"$RDMALIMITS" --root "$R" --flavour upstream-1.7.2 explain --json root > "$T/out"
same "explain --json: upstream applies '*' to root" "$T/out" <<'E'
{"user": "root", "uid": 0, "flavour": {"name": "upstream-1.7.2", "release": "1.7.2", "from": "--flavour"}, "session": "limits", "pam_session": {"state": "assumed", "where": null, "why": "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config", "assumed_success": null}, "service": {"name": "sshd", "process": "assumed: the limits of PID 1 (the tree's proc/1/limits) and with CAP_SYS_RESOURCE (as a root daemon has)", "assumed": true, "memlock_soft": 65536, "memlock_hard": 8388608, "cap_sys_resource": true}, "memlock": {"soft": 8388608, "hard": 8388608, "soft_source": "etc/security/limits.conf:2", "hard_source": "etc/security/limits.conf:3", "requested": {"soft": 8388608, "hard": 8388608}}, "overridden": []}
E
printf 'bob -\n' > "$R/etc/security/limits.d/50-bob.conf"
rl explain --json bob > "$T/out"
same "explain --json: a no-limits line leaves memlock to the service" "$T/out" <<'E'
{"user": "bob", "uid": 1002, "flavour": {"name": "debian-1.5.2", "release": "1.5.2", "from": "--flavour"}, "session": "no-limits", "pam_session": {"state": "assumed", "where": null, "why": "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config", "assumed_success": null}, "service": {"name": "sshd", "process": "assumed: the limits of PID 1 (the tree's proc/1/limits) and with CAP_SYS_RESOURCE (as a root daemon has)", "assumed": true, "memlock_soft": 65536, "memlock_hard": 8388608, "cap_sys_resource": true}, "memlock": {"soft": null, "hard": null, "soft_source": "inherited", "hard_source": "inherited", "requested": {"soft": null, "hard": null}}, "stop": "etc/security/limits.d/50-bob.conf:1", "overridden": []}
E
rm "$R/etc/security/limits.d/50-bob.conf"
# a stack without pam_limits: alice's entries set nothing, in the text as in the JSON
mkdir -p "$R/etc/pam.d"
printf 'session required pam_permit.so\n' > "$R/etc/pam.d/nolimits"
rl explain --json alice --service nolimits > "$T/out"
check "explain --json: no pam_limits in the stack: memlock inherited" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["session"] == "no-limits" and d["memlock"]["soft"] is None and d["memlock"]["soft_source"] == "inherited", d' "$T/out"
rl explain alice --service nolimits > "$T/out"
check "explain: no pam_limits in the stack: the text says the service's own, not limits.conf's" \
	grep -q "^  soft  (the service's own) *inherited$" "$T/out"
check "... and why" grep -q "no pam_limits runs in the nolimits session stack: what limits.conf says for alice sets nothing" "$T/out"
check "... and names no limits.conf line as the source" eval '! grep -q "from etc/security/limits" "$T/out"'
# a module whose result decides the path and which the model does not evaluate: the answer
# rests on its success, and explain says so
printf 'session sufficient pam_succeed_if.so rhost = gw.example.org\nsession required pam_limits.so\n' > "$R/etc/pam.d/cond"
rl explain alice --service cond > "$T/out"
check "explain: an assumed result that decides the path is said, with its line" \
	grep -q "^Assumed: etc/pam.d/cond:1 'sufficient pam_succeed_if.so' succeeds: rdmalimits does not evaluate that module" "$T/out"
rl explain --json alice --service cond > "$T/out"
check "explain --json: pam_session.assumed_success names it" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["pam_session"]["assumed_success"] != "etc/pam.d/cond:1 '"'"'sufficient pam_succeed_if.so'"'"'")' "$T/out"
rl explain --json alice --service nolimits > "$T/out"
check "... null where nothing was assumed" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["pam_session"]["assumed_success"] is not None)' "$T/out"
rm -r "$R/etc/pam.d"
rl explain nosuchuser > "$T/out" 2>&1
check "explain of an unknown user fails" test $? -eq 1
check "explain of an unknown user says so" grep -q "does not exist" "$T/out"

# --- a tree without proc/1/limits: the host's PID 1 never answers for it; the assumption is said
mv "$R/proc/1/limits" "$T/proc1.saved"
rl --json explain alice > "$T/out" 2>&1
check "no proc/1/limits in the tree: explain says what it assumed for PID 1, not the host's" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["service"]["process"]
sys.exit(not ("assumed 8 MiB" in p and "host" not in p and d["service"]["memlock_hard"] == 8388608))' "$T/out"
mv "$T/proc1.saved" "$R/proc/1/limits"

# --- a hard entry below the inherited soft limit lowers the soft one with it (upstream: no baseline)
R2=$T/hardonly
mkdir -p "$R2/etc/security/limits.d" "$R2/proc/1"
cp "$R/etc/passwd" "$R/etc/group" "$R2/etc/"
: > "$R2/etc/security/limits.conf"
printf 'alice hard memlock 1024\n' > "$R2/etc/security/limits.d/40-hardonly.conf"
printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         8388608              8388608              bytes     \n' > "$R2/proc/1/limits"
"$RDMALIMITS" --root "$R2" --flavour upstream --json explain alice > "$T/out" 2>&1
check "hard-only entry below the service's soft: the session's soft is that value, not 'inherited'" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["memlock"]
sys.exit(not (m["soft"] == 1048576 and m["hard"] == 1048576 and m["soft_source"].startswith("the hard limit")))' "$T/out"

# --- list, explain and check name one flavour: the release modelled and what decided it
for fl in upstream-1.5.1 debian-1.4.0 upstream; do
	l=$("$RDMALIMITS" --root "$R" --flavour "$fl" --json list | python3 -c 'import json,sys; d=json.load(sys.stdin)["flavour"]; print(d["name"], d["release"], d["from"])')
	e=$("$RDMALIMITS" --root "$R" --flavour "$fl" --json explain alice | python3 -c 'import json,sys; d=json.load(sys.stdin)["flavour"]; print(d["name"], d["release"], d["from"])')
	check "--flavour $fl: list and explain name the same flavour ($l)" test -n "$l" -a "$l" = "$e"
	check "... and its release is the Linux-PAM version of the name" python3 -c '
import sys; n, r, f = sys.argv[1].split(); sys.exit(n.split("-", 1)[1] != r)' "$l"
done

# --- list
rl list > "$T/out"
same "list shows every memlock entry in read order" "$T/out" <<'E'
# memlock entries in the order pam_limits (debian-1.5.2, from --flavour) reads them
etc/security/limits.conf:2                       *                soft  8192         8 MiB
etc/security/limits.conf:3                       *                hard  8192         8 MiB
etc/security/limits.d/zz-rdmalimits.conf:3       @rdma_users      soft  1048576      1 GiB
etc/security/limits.d/zz-rdmalimits.conf:4       @rdma_users      hard  1048576      1 GiB
etc/security/limits.d/zz-rdmalimits.conf:5       alice            soft  unlimited    unlimited
etc/security/limits.d/zz-rdmalimits.conf:6       alice            hard  unlimited    unlimited
E
# '-' lines: list says what check and explain say (pam_limits honours them for users, @groups
# and ranges, never for '*' or a %group)
printf '* -\n%%rdma_users -\nbob -\n' > "$R/etc/security/limits.d/10-stop.conf"
rl list > "$T/out"
check "list: '* -' has no effect" grep -q "10-stop.conf:1 .*(no effect: pam_limits honours '-' lines only" "$T/out"
check "list: '%group -' has no effect" grep -q "10-stop.conf:2 .*(no effect" "$T/out"
check "list: 'bob -' stops pam_limits" grep -q "10-stop.conf:3 .*(no limits: stops pam_limits" "$T/out"
rl --json list > "$T/out"
check "list --json: the ignored ones say so" python3 -c '
import json, sys
e = [x for x in json.load(open(sys.argv[1]))["entries"] if x["file"].endswith("10-stop.conf")]
sys.exit(not ([x.get("ignored", False) for x in e] == [True, True, False] and all(x["no_limits"] for x in e)))' "$T/out"
rl check > "$T/out" 2>&1
check "... as check says" grep -q "10-stop.conf:1: warning: '\* -' has no effect" "$T/out"
rl --json explain carol > "$T/out"
check "... and explain: carol (in rdma_users by her primary group) still gets limits" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["session"] != "limits")' "$T/out"
rm "$R/etc/security/limits.d/10-stop.conf"

# --- remove
rl remove alice > "$T/out" 2>&1
check "remove exits 0" test $? -eq 0
check "remove drops the domain's lines" test "$(grep -c alice "$D")" = 0
check "remove keeps other domains" test "$(grep -c rdma_users "$D")" = 2
rl remove alice > "$T/out" 2>&1
check "remove again is a no-op" grep -q unchanged "$T/out"
rl remove @rdma_users --check > /dev/null 2>&1
check "remove --check exits 3" test $? -eq 3
check "remove --check leaves the file" test -f "$D"
rl remove @rdma_users > /dev/null 2>&1
check "removing the last domain removes the file" test ! -e "$D"

# --- check
mkroot
cat > "$R/etc/security/limits.d/20-site.conf" <<'L'
@rdma_users soft memlock 64M
@rdma_users hard memlock 1024abc
alice soft memlock 2048
alice hard memlock 1024
%rdma_users - memlock 1000
L
printf '* soft memlock 1' > "$R/etc/security/limits.d/30-nonl.conf"
printf '* soft memlock 1\n' > "$R/etc/security/limits.d/memlock.cfg"
printf '* soft memlock 1\n' > "$R/etc/security/limits.d/.hidden.conf"
rl check > "$T/out"
check "check exits 1 on errors" test $? -eq 1
same "check reports file:line findings" "$T/out" <<'E'
etc/security/limits.d/20-site.conf:1: error: '64m' is read as 64 KiB: pam_limits has no units, memlock counts in KiB (write e.g. 1048576 for 1 GiB)
etc/security/limits.d/20-site.conf:2: error: '1024abc' is read as 1024: pam_limits ignores what follows the digits
etc/security/limits.d/20-site.conf:5: warning: pam_limits ignores '%' domains for every item but maxlogins
etc/security/limits.d/30-nonl.conf:1: warning: no newline at the end of the file: text appended later is glued to this line
etc/security/limits.d/30-nonl.conf:1: warning: memlock 1 is 1 KiB: limits.conf counts memlock in KiB
etc/security/limits.d/.hidden.conf: warning: ignored: a dotfile; pam_limits reads only names matching *.conf that do not start with a dot
etc/security/limits.d/memlock.cfg: warning: ignored: the name does not end in .conf; pam_limits reads only limits.d/*.conf
etc/security/limits.d/20-site.conf:3: error: soft memlock 2 MiB for 'alice' is above its hard memlock 1 MiB (etc/security/limits.d/20-site.conf:4): where both apply, pam_limits sets the soft limit to the hard value
etc/security/limits.conf:2: warning: never takes effect: overridden by etc/security/limits.d/30-nonl.conf:1 ('*', DEFAULT rank)
etc/security/limits.conf:3: info: overridden for alice (hard from etc/security/limits.d/20-site.conf:4), carol (hard from etc/security/limits.d/20-site.conf:2); takes effect for bob
etc/security/limits.d/20-site.conf:1: info: overridden for alice (soft from etc/security/limits.d/20-site.conf:3); takes effect for carol
etc/security/limits.d/20-site.conf:2: info: overridden for alice (hard from etc/security/limits.d/20-site.conf:4); takes effect for carol
etc/security/limits.d/30-nonl.conf:1: info: overridden for alice (soft from etc/security/limits.d/20-site.conf:3), carol (soft from etc/security/limits.d/20-site.conf:1); takes effect for bob
3 errors, 6 warnings
E
# nonewprivs takes 0 or 1; pam_limits reads anything else as 0 (it logs it and goes on)
printf 'alice - nonewprivs 2\n' > "$R/etc/security/limits.d/25-nnp.conf"
rl check > "$T/out"
check "check: nonewprivs 2 is read as 0, not skipped" grep -q "25-nnp.conf:1: error: value '2' is neither 0 nor 1: pam_limits reads it as 0" "$T/out"
rm "$R/etc/security/limits.d/25-nnp.conf"
chmod 664 "$R/etc/security/limits.d/20-site.conf"
rl check > "$T/out"
check "check flags a group-writable file" grep -q "20-site.conf: error: is writable by its group (mode 0664)" "$T/out"
mkroot
rl check > "$T/out"
check "check of a clean tree exits 0" test $? -eq 0
rl check --json > "$T/out"
same "check --json" "$T/out" <<'E'
{"errors": 0, "warnings": 0, "findings": []}
E

# --- check: the PAM session stacks as libpam reads them (tests/agree/test-reader.sh holds each
# shape against a real session)
mkroot
moddir=$(dirname "$(compgen -G "/lib/*/security/pam_permit.so" || compgen -G "/usr/lib/*/security/pam_permit.so")")
mkdir -p "$R/etc/pam.d" "$R$moddir"
: > "$R$moddir/pam_permit.so"
: > "$R$moddir/pam_unix.so"
printf 'session required pam_permit.so\n' > "$R/etc/pam.d/other"
printf 'session required pam_unix.so\nsession optional pam_permit.so\n' > "$R/etc/pam.d/common-session"
printf '@include common-session\n' > "$R/etc/pam.d/sshd"
rl check > "$T/out"
check "check: sound PAM stacks, no finding (exit 0)" test $? -eq 0 -a "$(tail -1 "$T/out")" = "0 errors, 0 warnings"
printf 'session required pam_permit.so\r\n' > "$R/etc/pam.d/crlf"
printf 'session required\n' > "$R/etc/pam.d/nomod"
printf 'session [sucess=1] pam_permit.so\n' > "$R/etc/pam.d/badctl"
printf '@include nothere\n' > "$R/etc/pam.d/gone"
printf 'session optional pam_gone.so\n' >> "$R/etc/pam.d/common-session"
rl --json check > "$T/out"
check "check --json: each stack problem once, with its id, file:line and fix (exit 1)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((f["id"], f["file"], f["line"], f["severity"], bool(f.get("fix"))) for f in d["findings"])
want = sorted([("pam-module-missing", "etc/pam.d/crlf", 1, "error", True),
               ("pam-line-fails", "etc/pam.d/nomod", 1, "error", True),
               ("pam-bad-control", "etc/pam.d/badctl", 1, "error", True),
               ("pam-start-fails", "etc/pam.d/gone", 1, "error", True),
               ("pam-module-missing", "etc/pam.d/common-session", 3, "warning", True)])
sys.exit(got != want)' "$T/out" || sed 's/^/#   /' "$T/out"
rl check > "$T/out"
check "check: exit 1" test $? -eq 1
check "check: the carriage return in the module name is shown escaped" grep -q "crlf:1: error: libpam cannot load the module 'pam_permit.so\\\\x0d'" "$T/out"
check "check: the missing include, as doctor says it" grep -q "gone:1: error: '@include nothere' names a file that cannot be read: libpam's pam_start() fails: no gone session opens" "$T/out"
rl check "$R/etc/security/limits.conf" > "$T/out"
check "check FILE: that file only, no stacks" test $? -eq 0

# --- check is exact or silent: the '-' quirk, new findings with ids and fixes
mkroot
printf '@rdma_users hard memlock 1024\nalice soft memlock 1024\n@rdma_users - memlock 4096\n' > "$R/etc/security/limits.conf"
rl check > "$T/out"
check "check: a line the '-' quirk keeps for alice is not called dead" sh -c 'grep -q " warnings\?$" "$1" && ! grep -q "limits.conf:1: .*never takes effect" "$1"' _ "$T/out"
check "check: it names for whom line 1 takes effect" grep -q "limits.conf:1: info: overridden for carol .*takes effect for alice" "$T/out"
jf() { # jf ID LINE: the findings of check --json with that id (and line)
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("\n".join("%s|%s|%s|%s" % (f["severity"], f["line"], f["message"], f.get("fix")) for f in j["findings"] if f.get("id") == sys.argv[2] and (sys.argv[3] == "0" or str(f["line"]) == sys.argv[3])))' "$T/json" "$1" "${2:-0}"
}
mkroot
cat > "$R/etc/security/limits.d/20-new.conf" <<'L'
2000:1000 soft memlock 1024
@3000:2000 soft memlock 1024
@rdma-users soft memlock 1024
Alice soft memlock 1024
@RDMA_USERS soft memlock 1024
* soft nofile 1048576
* hard nofile 65536
bob hard nofile 4000000000
bob soft nofile unlimited
alice soft memlock 4096
alice soft memlock 4096
L
rl check --json > "$T/json"
check "check: inverted uid range, with its fix" grep -q "^error|1|.*inverted.*|write 1000:2000$" <(jf inverted-range 1)
check "check: inverted gid range, with its fix" grep -q "^error|2|.*|write @2000:3000$" <(jf inverted-range 2)
check "check: @rdma-users names no group; hint @rdma_users" grep -q "^warning|3|.*'rdma-users' does not exist.*|did you mean '@rdma_users'" <(jf unknown-domain 3)
check "check: Alice names no user; hint alice" grep -q "^warning|4|.*|did you mean 'alice'" <(jf unknown-domain 4)
check "check: @RDMA_USERS names no group; hint @rdma_users" grep -q "^warning|5|.*|did you mean '@rdma_users'" <(jf unknown-domain 5)
check "check: soft nofile above hard nofile" grep -q "^error|6|soft nofile 1048576 for '\*' is above its hard nofile 65536" <(jf soft-above-hard 6)
check "check: nofile above fs.nr_open, the host's under --root" grep -q "^warning|8|.*fs.nr_open.*the host running check" <(jf nofile-above-nr-open 8)
check "check: nofile unlimited" grep -q "^warning|9|.*PAM_PERM_DENIED" <(jf nofile-unlimited 9)
check "check: an identical duplicate is info" grep -q "^info|10|.*same entry" <(jf duplicate-entry 10)
check "check: an identical duplicate is not a warning" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(any(f["line"] in (10, 11) and f["severity"] == "warning" for f in j["findings"]))' "$T/json"
check "check: every finding has an id" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not all(f.get("id") for f in j["findings"]))' "$T/json"
check "check: every error and warning has a fix" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not all(f.get("fix") for f in j["findings"] if f["severity"] != "info"))' "$T/json"
mkroot
printf 'alice soft memlock unlimited\r\nalice hard memlock unlimited\r\n' > "$R/etc/security/limits.d/30-dos.conf"
for fl in debian upstream; do
	"$RDMALIMITS" --root "$R" --flavour $fl check > "$T/out"
	check "check --flavour $fl names CRLF line ends" grep -q "30-dos.conf: .*CRLF" "$T/out"
	check "check --flavour $fl: no bare 'not a number' for a CR" sh -c '! grep -q "not a number" "$1"' _ "$T/out"
done
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkroot
	chmod 755 "$T" "$R"
	printf '* soft memlock 1024\n' > "$R/etc/security/limits.d/40-secret.conf"
	chmod 600 "$R/etc/security/limits.d/40-secret.conf"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RDMALIMITS" --root "$R" check > "$T/out" 2>&1
	check "check: EACCES is 'permission denied'" grep -q "40-secret.conf: error: cannot be read (permission denied)" "$T/out"
	check "check: EACCES is not called a mode problem" sh -c '! grep -q "40-secret.conf.*writable by group or others" "$1"' _ "$T/out"
	chmod 700 "$T"
else
	skip "check: EACCES (needs root and setpriv)"
	skip "check: EACCES is not a mode problem (needs root and setpriv)"
fi

# --- refusals: message, non-zero exit, tree unchanged
mkroot
rl apply @rdma_users 1G > /dev/null 2>&1
before=$(tree_sum)
refuse() { # refuse DESCRIPTION EXPECTED-EXIT MESSAGE-PATTERN ARGS...
	local d=$1 want=$2 pat=$3; shift 3
	"$RDMALIMITS" "$@" > "$T/out" 2>&1
	local rc=$?
	if [ $rc -eq "$want" ] && grep -q -e "$pat" "$T/out" && [ "$(tree_sum)" = "$before" ]; then
		ok "refuses $d"
	else
		fail "refuses $d (exit $rc)"
		sed 's/^/# /' "$T/out"
	fi
}
long=$(printf 'a%.0s' $(seq 5000))
refuse "a domain with a space" 2 "whitespace" --root "$R" apply "al ice" 1G
refuse "a domain with a tab" 2 "whitespace" --root "$R" apply "$(printf 'al\tice')" 1G
refuse "a domain with #" 2 "comment" --root "$R" apply "a#b" 1G
refuse "a domain with a control character" 2 "control" --root "$R" apply "$(printf 'a\001b')" 1G
refuse "a domain with /" 2 "'/'" --root "$R" apply "a/b" 1G
refuse "a 5000-character domain" 2 "longer than" --root "$R" apply "$long" 1G
refuse "a % domain" 2 "maxlogins" --root "$R" apply "%rdma_users" 1G
refuse "an empty domain" 2 "empty" --root "$R" apply "" 1G
refuse "a reversed range" 2 "minimum is above" --root "$R" apply "@2000:1000" 1G
refuse "a size without unit" 2 "KiB" --root "$R" apply alice 1048576
refuse "a size with junk" 2 "size '1Gx'" --root "$R" apply alice 1Gx
refuse "a negative size" 2 "soft '-1G'" --root "$R" apply alice --soft -1G
refuse "an overflowing size" 2 "too large" --root "$R" apply alice 99999999999999999999G
refuse "a fraction" 2 "size '1.5G'" --root "$R" apply alice 1.5G
refuse "a size of 0" 2 "fail" --root "$R" apply alice 0
refuse "bytes that are not whole KiB" 2 "whole KiB" --root "$R" apply alice 1000B
# a limits.d someone else owns or can write: they can replace the drop-in (check: an error)
for how in "chmod 777" "chown 1001"; do
	$how "$R/etc/security/limits.d"
	before=$(tree_sum)
	refuse "to write into a limits.d after '$how'" 1 "limits.d is .*: whoever can write it can change what rdmalimits writes there; nothing written" --root "$R" apply bob 1G
	chmod 755 "$R/etc/security/limits.d"
	chown 0 "$R/etc/security/limits.d"
done
before=$(tree_sum)
refuse "a size pam_limits reads as unlimited (RLIM_INFINITY/1024 KiB)" 2 "too large: pam_limits reads it as unlimited" --root "$R" apply bob 18014398509481983K
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 apply --check bob 18014398509481982K > "$T/out" 2>&1
check "... one KiB less is a size (apply --check: would be created)" test $? -eq 3
refuse "soft above hard" 2 "above the hard" --root "$R" apply alice --soft 2G --hard 1G
refuse "soft above the existing hard" 2 "above its hard" --root "$R" apply @rdma_users --soft 2G
refuse "a file name with a path" 2 "without '/'" --root "$R" apply alice 1G --file ../x.conf
refuse "a dotfile name" 2 "dot" --root "$R" apply alice 1G --file .x.conf
refuse "a name not ending in .conf" 2 ".conf" --root "$R" apply alice 1G --file x.cfg
refuse "an unknown command" 2 "unknown command" --root "$R" frobnicate
refuse "an unknown option" 2 "unrecognized option" --root "$R" apply alice 1G --bogus
refuse "an option of another command" 2 "does not apply" --root "$R" list --soft 1G
refuse "a missing argument" 2 "expected" --root "$R" apply
refuse "too many arguments" 2 "too many" --root "$R" apply alice 1G 2G
refuse "a missing --root directory" 1 "No such file" --root "$T/nonexistent" list
refuse "an empty --root" 2 "empty" --root "" list
refuse "no command" 2 "no command" --root "$R"
refuse "a bad --flavour" 2 "debian or upstream" --root "$R" --flavour suse list
# hostile drop-ins
D=$R/etc/security/limits.d/zz-rdmalimits.conf
printf '* soft memlock 1\n' > "$T/target"
ln -s "$T/target" "$R/etc/security/limits.d/91-link.conf"
before=$(tree_sum)
refuse "a symlinked drop-in" 1 "symbolic link" --root "$R" apply alice 1G --file 91-link.conf
check "the symlink target is untouched" test "$(cat "$T/target")" = "* soft memlock 1"
printf '# written by hand\nbob soft memlock 1024\n' > "$R/etc/security/limits.d/92-hand.conf"
before=$(tree_sum)
refuse "a drop-in without the marker" 1 "not written by rdmalimits" --root "$R" apply alice 1G --file 92-hand.conf
# (the dangling link above would make Debian's pam_limits fail every session: apply says so)
rm "$R/etc/security/limits.d/91-link.conf"
"$RDMALIMITS" --root "$R" apply alice 1G --file 92-hand.conf --force > /dev/null 2>&1
check "--force takes over a memlock-only drop-in" grep -q "^bob	soft	memlock	1024$" "$R/etc/security/limits.d/92-hand.conf"
printf '# hand\nbob soft nofile 1024\n' > "$R/etc/security/limits.d/93-hand.conf"
before=$(tree_sum)
refuse "--force over lines rdmalimits does not write" 1 "does not write" --root "$R" apply alice 1G --file 93-hand.conf --force
mkdir "$R/etc/security/limits.d/94-dir.conf"
before=$(tree_sum)
refuse "a directory in place of the drop-in" 1 "not a regular file" --root "$R" apply alice 1G --file 94-dir.conf

# --- the drop-in used to be 90-rdmalimits.conf, which sorts before vendor files named with
# letters: apply moves its entries to zz-rdmalimits.conf
mkroot
printf '%s\n' "# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'." \
	'bob	soft	memlock	2048' 'bob	hard	memlock	2048' > "$R/etc/security/limits.d/90-rdmalimits.conf"
rl apply alice 1G > "$T/out" 2>&1
check "apply over the old drop-in: exit 0" test $? -eq 0
check "... the old file is gone" test ! -e "$R/etc/security/limits.d/90-rdmalimits.conf"
check "... its entries and the new ones are in zz-rdmalimits.conf" \
	test "$(grep -c -E '^(bob|alice)	(soft|hard)	memlock' "$R/etc/security/limits.d/zz-rdmalimits.conf")" = 4
check "... and apply says so" grep -q "90-rdmalimits.conf: its entries moved to zz-rdmalimits.conf" "$T/out"
# both files (the old one left beside the new): remove takes the domain out of both, and names
# each file it changes
mkroot
M="# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'."
printf '%s\n%s\n%s\n' "$M" 'alice	soft	memlock	2048' 'alice	hard	memlock	2048' > "$R/etc/security/limits.d/90-rdmalimits.conf"
cp "$R/etc/security/limits.d/90-rdmalimits.conf" "$R/etc/security/limits.d/zz-rdmalimits.conf"
rl remove alice > "$T/out" 2>&1
check "remove with the old and the new file: both lose the entry (exit 0)" \
	test $? -eq 0 -a ! -e "$R/etc/security/limits.d/90-rdmalimits.conf" -a ! -e "$R/etc/security/limits.d/zz-rdmalimits.conf"
rl --json explain alice > "$T/out2"
check "... and explain gives alice limits.conf's 8 MiB" python3 -c '
import json, sys; m = json.load(open(sys.argv[1]))["memlock"]; sys.exit(not (m["soft"] == m["hard"] == 8 << 20))' "$T/out2"
check "... both files named" test "$(grep -c -e "90-rdmalimits.conf: removed" -e "zz-rdmalimits.conf: removed" "$T/out")" = 2
printf '%s\n%s\n%s\n' "$M" 'alice	soft	memlock	2048' 'alice	hard	memlock	2048' > "$R/etc/security/limits.d/90-rdmalimits.conf"
rl --json remove alice > "$T/out" 2>&1
check "remove with only the old file: --json names the file it removes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["changed"] and d["file"].endswith("90-rdmalimits.conf") and "+++ /dev/null" in d["diff"]
              and "--- /dev/null" not in d["diff"]))' "$T/out"

# --- warnings at apply
mkroot
printf 'alice hard memlock 4096\n' > "$R/etc/security/limits.d/95-late.conf"
before=$(tree_sum)
rl apply @rdma_users 1G > "$T/out" 2>&1
check "apply refuses an entry a stronger one overrides for a member: exit 4" test $? -eq 4
check "... naming the user and the winning file:line" \
	grep -q "does not take effect for alice: hard from etc/security/limits.d/95-late.conf:1 (USER rank)" "$T/out"
check "... and writes nothing" test "$(tree_sum)" = "$before"
check "... and, against a user line, offers no later file name (none can beat a stronger rank)" \
	test "$(grep -c 'an entry of a stronger rank wins whatever the file' "$T/out")" = 1 -a "$(grep -c 'sorts after' "$T/out")" = 0
rm "$R/etc/security/limits.d/95-late.conf"
printf '@rdma_users hard memlock 4096\n' > "$R/etc/security/limits.d/zzz-late.conf"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "against a later file of the same rank: exit 4, and a --file that sorts after it is the remedy" \
	test $? -eq 4 -a "$(grep -c "write to a --file whose name sorts after zzz-late.conf" "$T/out")" = 1 -a \
	"$(grep -c 'stronger rank' "$T/out")" = 0
rm "$R/etc/security/limits.d/zzz-late.conf"
# '*' never beats a group line (ALL rank below GROUP), in an earlier file or a later one
printf '@rdma_users hard memlock 4096\n' > "$R/etc/security/limits.d/10-early.conf"
rl apply '*' 1G > "$T/out" 2>&1
check "'*' against an earlier @group line: exit 4, a stronger rank wins whatever the file, no later file name" \
	test $? -eq 4 -a "$(grep -c 'an entry of a stronger rank wins whatever the file' "$T/out")" = 1 -a \
	"$(grep -c 'sorts after' "$T/out")" = 0
rm "$R/etc/security/limits.d/10-early.conf"
printf '@rdma_users -\n' > "$R/etc/security/limits.d/50-stop.conf"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "after a '-' line that stops pam_limits: exit 4, and the remedy is that line" \
	test $? -eq 4 -a "$(grep -c "a '-' line stops pam_limits before the entry" "$T/out")" = 1
rm "$R/etc/security/limits.d/50-stop.conf"
printf 'alice hard memlock 4096\n' > "$R/etc/security/limits.d/95-late.conf"
rl --json apply @rdma_users 1G > "$T/out" 2>/dev/null
check "... --json: effective false, overridden_by, changed false" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["effective"] is False and d["changed"] is False and "95-late.conf:1" in d["overridden_by"][0]
             and d["remedy"].startswith("an entry of a stronger rank")))' "$T/out"
rl apply @rdma_users 1G --allow-overridden > "$T/out" 2>&1
check "--allow-overridden writes it (exit 0)" test $? -eq 0 -a -e "$R/etc/security/limits.d/zz-rdmalimits.conf"
# a user's own soft line (a stronger rank) above the hard value apply sets: pam_limits lowers
# that soft to the new hard (setup_limits()), so the session gets the entry's value: effective;
# a soft line below it keeps its own value: not effective (exit 4, naming it)
mkroot
printf 'alice soft memlock 4194304\n' > "$R/etc/security/limits.d/95-late.conf"
rl --json apply @rdma_users 1G > "$T/out" 2>&1
check "a stronger soft above the new hard is clamped to it: apply exits 0, effective" \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["effective"] is True and d["changed"] is True))' "$T/out"
rl explain alice --json > "$T/out" 2>/dev/null
check "... and explain predicts 1 GiB / 1 GiB for alice" \
	python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["memlock"]; sys.exit(not (m["soft"] == m["hard"] == 1 << 30))' "$T/out"
mkroot
printf 'alice soft memlock 524288\n' > "$R/etc/security/limits.d/95-late.conf"
rl apply @rdma_users 1G > "$T/out" 2>&1
check "a stronger soft below the new hard keeps its value: exit 4, naming its line" \
	test $? -eq 4 -a "$(grep -c "for alice: soft from .*95-late.conf:1 (USER rank)" "$T/out")" = 1
# what check will say of the entry apply writes is said by apply: a soft above the hard another
# entry sets (the kernel clamps it), a size check finds small for memlock
mkroot
printf 'alice - memlock 1048576\n' > "$R/etc/security/limits.d/50-alice.conf"
rl apply alice --soft 2G > "$T/out" 2>&1
check "apply alice --soft 2G above alice's hard 1 GiB: the session gets 1 GiB, not 2: exit 4, nothing written" \
	test $? -eq 4 -a ! -e "$R/etc/security/limits.d/zz-rdmalimits.conf" -a \
	"$(grep -c "for alice: soft 2 GiB is lowered to the hard limit 1 GiB from etc/security/limits.d/50-alice.conf:1" "$T/out")" = 1
check "... the remedy is a hard value too" grep -q "give a hard value too (SIZE sets both)" "$T/out"
rl apply alice --soft 2G --allow-overridden > "$T/out" 2>&1
check "... --allow-overridden writes it, and apply says what check will" \
	test $? -eq 0 -a "$(grep -c "warning: .*zz-rdmalimits.conf:[0-9]*: check will say: soft memlock 2 GiB for 'alice' is above its hard memlock 1 GiB" "$T/out")" = 1
rm "$R/etc/security/limits.d/50-alice.conf"
# the same with the hard limit of another domain ('*' in limits.conf: 8 MiB)
mkroot
rl --json apply alice --soft 1G > "$T/out" 2>/dev/null
check "apply alice --soft 1G under '*' hard 8 MiB: not effective (exit 4), the clamp named" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["effective"] is False and "lowered to the hard limit 8 MiB from etc/security/limits.conf:3" in d["overridden_by"][0]))' "$T/out"
# a session pam_limits refuses (Debian'"'"'s chroot to a directory that does not exist): the entry
# takes effect for nobody
printf 'alice - chroot /nonexistent\n' > "$R/etc/security/limits.d/50-x.conf"
rl apply alice 1G > "$T/out" 2>&1
check "apply for a user whose session pam_limits refuses (chroot): exit 4, the cause named" \
	test $? -eq 4 -a "$(grep -c "for alice: etc/security/limits.d/50-x.conf:1: chroot to /nonexistent fails" "$T/out")" = 1
rm "$R/etc/security/limits.d/50-x.conf"
# another entry of the same drop-in is another entry: alice's own line there beats @rdma_users
mkroot
rl apply alice 2G > /dev/null 2>&1
rl --json apply @rdma_users 1G > "$T/out" 2>/dev/null
check "apply @rdma_users after alice's own entry in the same drop-in: not effective for alice (exit 4)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["effective"] is False and "alice: soft from etc/security/limits.d/zz-rdmalimits.conf:3 (USER rank)" in d["overridden_by"]))' "$T/out"
rl apply 1000:2000 1G > /dev/null 2>&1
rl apply '*' 1G > "$T/out" 2>&1
check "apply '*' after a uid range in the same drop-in: exit 4" test $? -eq 4
# a second line of the same slot in a file apply takes over: it goes (pam_limits would read it last)
mkroot
printf '# by hand\nalice soft memlock 1024\nalice soft memlock 2048\n' > "$R/etc/security/limits.d/60-hand.conf"
rl apply alice 1G --file 60-hand.conf --force > "$T/out" 2>&1
check "apply over a file with the slot twice: exit 0, one soft line left" \
	test $? -eq 0 -a "$(grep -c "^alice	soft	memlock" "$R/etc/security/limits.d/60-hand.conf")" = 1
rl explain alice --json > "$T/out" 2>/dev/null
check "... and explain gives alice 1 GiB" \
	python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["memlock"]; sys.exit(not (m["soft"] == m["hard"] == 1 << 30))' "$T/out"
rl apply spdk 32K > "$T/out" 2>&1
check "apply spdk 32K: apply says what check will say of the entry" grep -q "check will say: memlock 32 is 32 KiB" "$T/out"
rl apply bob 1G > "$T/out" 2>&1
check "apply bob 1G: check has nothing to say of it, nor apply" test "$(grep -c 'check will say' "$T/out")" = 0
rl apply @nosuchgroup 1G > "$T/out" 2>&1
check "apply warns about a group that does not exist" grep -q "group 'nosuchgroup' does not exist" "$T/out"
rl apply ghost 1G > "$T/out" 2>&1
check "apply warns about a user that does not exist" grep -q "user 'ghost' does not exist" "$T/out"

# --- apply --unit / remove --unit
mkroot
mkdir -p "$R/etc/systemd/system" "$R/lib/systemd/system"
U=$R/etc/systemd/system/slurmd.service.d/zz-rdmalimits.conf
before=$(tree_sum)
refuse "apply --unit for a unit that does not exist" 1 "does not exist" --root "$R" apply --unit slurmd 1G
printf '[Service]\nExecStart=/usr/sbin/slurmd\n' > "$R/lib/systemd/system/slurmd.service"
rl apply --unit slurmd 1G > "$T/out" 2>&1
check "apply --unit exits 0" test $? -eq 0
same "apply --unit writes LimitMEMLOCK" "$U" <<'E'
# rdmalimits: managed file; change it with 'rdmalimits apply --unit' and 'rdmalimits remove --unit'.
[Service]
LimitMEMLOCK=1G
E
check "apply --unit tells how to reload" grep -q "systemctl daemon-reload && systemctl restart slurmd.service" "$T/out"
ino=$(stat -c %i "$U")
rl apply --unit slurmd.service 1G > "$T/out" 2>&1
check "apply --unit is idempotent" test "$(stat -c %i "$U")" = "$ino"
# a drop-in directory others can write: they could change the drop-in after apply
chmod 777 "$(dirname "$U")"
before=$(tree_sum)
refuse "to write into a unit's drop-in directory others can write" 1 "slurmd.service.d is writable by group or others (uid 0, mode 0777)" --root "$R" apply --unit slurmd 2G
chmod 755 "$(dirname "$U")"
rl apply --unit slurmd --soft 1G --hard unlimited --check > /dev/null 2>&1
check "apply --unit --check exits 3" test $? -eq 3
rl apply --unit slurmd --soft 1G --hard unlimited > /dev/null 2>&1
check "apply --unit soft:hard" grep -qx "LimitMEMLOCK=1G:infinity" "$U"
# `systemctl edit` writes override.conf: the tool's drop-in sorts after it, so it wins
printf '[Service]\nLimitMEMLOCK=64M\n' > "$R/etc/systemd/system/slurmd.service.d/override.conf"
rl apply --unit slurmd 2G > "$T/out" 2>&1
check "apply --unit next to override.conf: exit 0 (zz-rdmalimits.conf is applied after it)" test $? -eq 0
check "... LimitMEMLOCK=2G written" grep -qx "LimitMEMLOCK=2G" "$U"
rm "$R/etc/systemd/system/slurmd.service.d/override.conf"
# the drop-in's name before was 90-rdmalimits.conf, which override.conf beats: taken over
L=$R/etc/systemd/system/slurmd.service.d/90-rdmalimits.conf
mv "$U" "$L"
rl apply --unit slurmd 2G > "$T/out" 2>&1
check "apply --unit with the old 90-rdmalimits.conf: exit 0, the new name written, the old one gone" \
	test $? -eq 0 -a -e "$U" -a ! -e "$L"
check "... and says so" grep -q "90-rdmalimits.conf: removed (its name sorts before override.conf" "$T/out"
mv "$U" "$L"
rl remove --unit slurmd > "$T/out" 2>&1
check "remove --unit with only the old 90-rdmalimits.conf: removes it" test $? -eq 0 -a ! -e "$L" -a ! -e "$U"
mkdir -p "${L%/*}"
printf '%s\n' "[Service]" "LimitMEMLOCK=8M" > "$L"
rl apply --unit slurmd 2G > "$T/out" 2>&1
check "a 90-rdmalimits.conf without the marker is not ours: kept" test -e "$L" -a -e "$U"
rm "$L"
printf '[Service]\nLimitMEMLOCK=64M\n' > "$R/etc/systemd/system/slurmd.service.d/zzz-hand.conf"
before=$(tree_sum)
refuse "a unit name with /" 2 "unit names" --root "$R" apply --unit a/b 1G
refuse "a unit type without LimitMEMLOCK" 2 "applies to" --root "$R" apply --unit foo.timer 1G
refuse "a domain with --unit" 2 "no domain" --root "$R" apply @g --unit x 1G
refuse "apply --unit under a later drop-in that sets LimitMEMLOCK (exit 4)" 4 "zzz-hand.conf:2 sets LimitMEMLOCK= and is applied after" \
	--root "$R" apply --unit slurmd 2G
rl remove --unit slurmd > /dev/null 2>&1
check "remove --unit removes the drop-in" test ! -e "$U"
check "remove --unit keeps other drop-ins" test -e "$R/etc/systemd/system/slurmd.service.d/zzz-hand.conf"
# an instance reads its template's drop-ins too (systemd.unit(5)): one there that sorts after
# ours wins for every instance
printf '[Service]\nExecStart=/bin/true\n' > "$R/etc/systemd/system/w@.service"
mkdir -p "$R/etc/systemd/system/w@.service.d"
printf '[Service]\nLimitMEMLOCK=64M\n' > "$R/etc/systemd/system/w@.service.d/zzz-tmpl.conf"
before=$(tree_sum)
refuse "apply --unit of an instance under its template's later drop-in (exit 4)" 4 \
	"w@.service.d/zzz-tmpl.conf:2 sets LimitMEMLOCK= and is applied after" --root "$R" apply --unit w@a.service 2G

# --- Debian's chroot item: a missing directory refuses the session (PAM_PERM_DENIED, measured
# with Debian 12's pam_limits); the last matching chroot line wins; other releases ignore it
mkroot
mkdir -p "$R/jail"
printf 'alice - chroot /nonexistent\n' >> "$R/etc/security/limits.conf"
rl explain --json alice > "$T/out"
check "chroot to a missing directory: session refused" grep -q '"session": "refused"' "$T/out"
check "chroot refusal names file:line" grep -q 'limits.conf:4: chroot to /nonexistent' "$T/out"
printf '* - chroot /jail\n' >> "$R/etc/security/limits.conf"
rl explain --json alice > "$T/out"
check "chroot: the last matching line wins, whatever its rank" grep -q '"session": "limits"' "$T/out"
printf 'alice - chroot /etc/passwd\n' >> "$R/etc/security/limits.conf"
rl explain --json alice > "$T/out"
check "chroot to a file: session refused" grep -q 'chroot to /etc/passwd fails (not a directory)' "$T/out"
"$RDMALIMITS" --root "$R" --flavour rhel-9 explain --json alice > "$T/out"
check "chroot is Debian's only: RHEL's module ignores the item" grep -q '"session": "limits"' "$T/out"

# --- pam_limits' "conf=" with nothing after it under --root: the file "", which fopen() cannot
# open (it is not the root of the tree, which the reader opened and read as an empty file)
mkroot
mkdir -p "$R/etc/pam.d" "$R/lib/x86_64-linux-gnu/security"
for m in pam_permit pam_limits pam_rdmalimit; do : > "$R/lib/x86_64-linux-gnu/security/$m.so"; done
printf 'session required pam_limits.so conf=\n' > "$R/etc/pam.d/su"
rl --json explain alice --service su > "$T/out"
check "--root: conf= alone fails the session (PAM_SERVICE_ERR)" grep -q '"session": "fails"' "$T/out"
rl check > "$T/out" 2>&1
check "--root: check names the line" grep -q 'etc/pam.d/su:1: error: pam_limits reads "" (an empty conf=)' "$T/out"

# --- apply against the policy each pam_rdmalimit line reads (its conf=, not the default)
mkroot
mkdir -p "$R/etc/pam.d" "$R/lib/x86_64-linux-gnu/security"
for m in pam_permit pam_limits pam_rdmalimit; do : > "$R/lib/x86_64-linux-gnu/security/$m.so"; done
printf 'session required pam_limits.so\nsession optional pam_rdmalimit.so conf=/etc/security/site.conf\n' > "$R/etc/pam.d/su"
printf 'version = 1;\nlower = true;\nrules = ( { user = "alice"; memlock = "1M"; } );\n' > "$R/etc/security/site.conf"
rl apply alice 6M > "$T/out" 2>&1
check "apply: the su line's policy (conf=) lowers alice: exit 4" test $? -eq 4
check "... naming that policy" grep -q 'etc/security/site.conf' "$T/out"
printf 'version = 1;\nrules = ( );\n' > "$R/etc/security/site.conf"
printf 'version = 1;\nlower = true;\nrules = ( { user = "alice"; memlock = "1M"; } );\n' > "$R/etc/security/rdmalimit.conf"
rl apply alice 6M --check > "$T/out" 2>&1
check "apply: the default policy, which no line reads, is not asked (exit 3: it would write)" test $? -eq 3

# --- apply '*' checks the first 50 users of passwd, and every user another line names
mkroot
for i in $(seq 1 60); do echo "u$i:x:$((3000 + i)):$((3000 + i))::/home/u$i:/bin/sh" >> "$R/etc/passwd"; done
printf 'u60 hard memlock 1024\n' > "$R/etc/security/limits.d/50-u60.conf"
rl --json apply '*' 4M > "$T/out" 2>&1
check "apply '*': the 60th user's own line wins for him: exit 4" test $? -eq 4
check "... naming him" grep -q 'u60: hard from etc/security/limits.d/50-u60.conf:1' "$T/out"

# --- --help and --version
"$RDMALIMITS" --help > "$T/out"
check "--help exits 0 and names every command" grep -q "explain" "$T/out"
"$RDMALIMITS" --version > "$T/out"
check "--version" grep -q "^rdmalimits [0-9]" "$T/out"

done_testing
