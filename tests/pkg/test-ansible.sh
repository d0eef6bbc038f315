#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/ansible: site.yml (role rdmalimit, module rdmalimits) against localhost, on a
# throwaway root tree, with the rdmalimits of this build.  The install, enable (pam-auth-update)
# and verify steps are skipped by tag: they act on the host.  Needs ansible-playbook
# (Debian: ansible); skips without it, fails instead under CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

ANSIBLE_DIR=$top_srcdir/contrib/ansible

command -v ansible-playbook >/dev/null 2>&1 || skip_all "ansible-playbook is missing (Debian: apt-get install ansible)"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/security/limits.d" "$R/etc/pam.d" "$R/etc/systemd/system" "$T/home/tmp"
printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\nbob:x:1002:1002::/home/bob:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\nalice:x:1001:\nbob:x:1002:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
printf '*\tsoft\tmemlock\t8192\n*\thard\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
cat > "$R/etc/pam.d/sshd" <<'E'
@include common-session
session    optional     pam_motd.so noupdate
session    required     pam_limits.so
session    required     pam_env.so
E
cp "$R/etc/pam.d/sshd" "$T/sshd.orig"
cat > "$R/etc/pam.d/common-session" <<'E'
# here are the per-package modules (the "Primary" block)
session	required	pam_unix.so
# end of pam-auth-update config
E

# Ansible keeps its state in the test directory, finds the module and the role in contrib/
export ANSIBLE_HOME=$T/home ANSIBLE_LOCAL_TEMP=$T/home/tmp ANSIBLE_REMOTE_TEMP=$T/home/tmp
export ANSIBLE_LIBRARY=$ANSIBLE_DIR/library ANSIBLE_ROLES_PATH=$ANSIBLE_DIR/roles
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=0
command -v /usr/bin/python3 >/dev/null || ANSIBLE_PYTHON_INTERPRETER=$(command -v python3)
cd "$T" || exit 1

# vars FILE LIMITS...: the play's variables, LIMITS as YAML flow mappings
vars() {
	local f=$1 l
	shift
	{
		echo "rdmalimit_hosts: localhost"
		echo "rdmalimit_root: $R"
		echo "rdmalimits_path: $RDMALIMITS"
		echo "rdmalimit_policy_owner: $(id -un)"
		echo "rdmalimit_policy_group: $(id -gn)"
		echo "ansible_become: false"
		echo "rdmalimit_limits:"
		for l in "$@"; do
			echo "  - $l"
		done
	} > "$f"
}
# play VARS [ansible-playbook options]: output in $T/out, "changed=N" of the recap in $changed
play() {
	local v=$1
	shift
	ansible-playbook -i localhost, -c local -e "@$v" --skip-tags install,enable,verify \
		"$@" "$ANSIBLE_DIR/site.yml" > "$T/out" 2>&1
	rc=$?
	changed=$(sed -n 's/^localhost *:.* changed=\([0-9]*\).*/\1/p' "$T/out")
	if [ $rc -ne 0 ]; then
		sed 's/^/# /' "$T/out" | tail -40
	fi
	return $rc
}
tree_sum() { (cd "$R" && find . -printf '%p %m %s\n' | sort && find . -type f -exec cat {} + | md5sum); }
D=$R/etc/security/limits.d/zz-rdmalimits.conf

# alice's own entry is meant to beat the group's for her: the group's says allow_overridden
vars "$T/v1.yml" '{domain: "@rdma_users", memlock: 1G, allow_overridden: true}' '{domain: alice, memlock: 2G, hard: 4G}'
vars "$T/v2.yml" '{domain: "@rdma_users", memlock: 1G, allow_overridden: true}' '{domain: alice, memlock: 2G, hard: 4G}' \
	'{domain: bob, memlock: 8G}'
vars "$T/v3.yml" '{domain: "@rdma_users", memlock: 1G, allow_overridden: true}' '{domain: alice, state: absent}' \
	'{domain: bob, memlock: 8G}'

# --- first run: policy, sshd line, drop-in
check "first run succeeds" play "$T/v1.yml"
check "first run changes (policy, sshd stack, limits)" test "${changed:-x}" = 3
same "drop-in written by the module" "$D" <<'E'
# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'.
# Memlock limits for RDMA and AF_XDP users, in KiB as pam_limits reads them.
@rdma_users	soft	memlock	1048576
@rdma_users	hard	memlock	1048576
alice	soft	memlock	2097152
alice	hard	memlock	4194304
E
check "policy written, mode 0644" test "$(stat -c %a "$R/etc/security/rdmalimit.conf")" = 644
check "policy has the example's rules" grep -q '{ group = "spdk"; memlock = "auto"; minimum = "1G"; }' \
	"$R/etc/security/rdmalimit.conf"
check "policy is valid for rdmalimits" "$RDMALIMITS" --root "$R" --quiet check --policy
same "sshd stack: pam_rdmalimit right after pam_limits, the line of rdmalimits enable" "$R/etc/pam.d/sshd" <<'E'
@include common-session
session    optional     pam_motd.so noupdate
session    required     pam_limits.so
session    optional     pam_rdmalimit.so # rdmalimits enable
session    required     pam_env.so
E

# --- idempotent
sum1=$(tree_sum)
check "second run succeeds" play "$T/v1.yml"
check "second run changes nothing (changed=0)" test "${changed:-x}" = 0
check "second run leaves the tree as it was" test "$(tree_sum)" = "$sum1"

# --- check mode (with diff): reports, changes nothing
check "check mode run succeeds" play "$T/v2.yml" --check --diff
check "check mode reports a change" test "${changed:-x}" = 1
check "check mode leaves the tree as it was" test "$(tree_sum)" = "$sum1"
check "check mode --diff shows the new lines" grep -q "^+bob	soft	memlock	8388608" "$T/out"

# --- diff mode, for real
check "diff run succeeds" play "$T/v2.yml" --diff
check "diff run changes the drop-in" test "${changed:-x}" = 1
check "--diff shows the unified diff" grep -q "^+++ $D" "$T/out"
check "--diff shows the added lines" grep -q "^+bob	hard	memlock	8388608" "$T/out"
check "bob is in the drop-in" grep -q "^bob	hard	memlock	8388608$" "$D"

# --- state: absent
check "absent run succeeds" play "$T/v3.yml" --diff
check "absent run changes the drop-in" test "${changed:-x}" = 1
check "--diff shows the removed lines" grep -q "^-alice	soft	memlock	2097152" "$T/out"
check "alice is gone from the drop-in" test -z "$(grep '^alice' "$D")"
check "the others stay" test "$(grep -c '^@rdma_users\|^bob' "$D")" = 4
check "absent again changes nothing" play "$T/v3.yml"
check "absent again: changed=0" test "${changed:-x}" = 0

# --- the sshd step is `rdmalimits enable --service sshd`: check mode reports and writes nothing,
# and a line of the module already there (the admin's own) is kept as written
cp "$T/sshd.orig" "$R/etc/pam.d/sshd"
sum2=$(tree_sum)
check "check mode on an sshd stack without the module succeeds" play "$T/v3.yml" --check --tags sshd
check "check mode reports the sshd change" test "${changed:-x}" = 1
check "check mode leaves the tree as it was" test "$(tree_sum)" = "$sum2"
printf 'session    required     pam_rdmalimit.so strict\n' >> "$R/etc/pam.d/sshd"
cp "$R/etc/pam.d/sshd" "$T/sshd.admin"
check "a run over the admin's own line succeeds" play "$T/v3.yml" --tags sshd
check "... changes nothing (changed=0)" test "${changed:-x}" = 0
check "... the admin's required line is kept as written" cmp -s "$T/sshd.admin" "$R/etc/pam.d/sshd"

# --- the module alone, in one playbook: a unit, failures with the tool's message, an overridden
# entry, state=status.  Each task's result goes to $T/results.json; the tree's checksum is taken
# between tasks to prove what a failed task did not write.
me=$(id -un)
printf '[Service]\nExecStart=/bin/true\n' > "$R/etc/systemd/system/ib-app.service"
cat > "$T/module.yml" <<E
- hosts: localhost
  gather_facts: false
  vars:
    x: "$RDMALIMITS"
    r: "$R"
    sum: "cd $R && { find . -printf '%p %m %s\\\\n' | sort; find . -type f -exec cat {} + | md5sum; }"
  tasks:
    - { name: unit, rdmalimits: { unit: ib-app.service, memlock: 1G, root: "{{ r }}", executable: "{{ x }}" }, register: unit, ignore_errors: true }
    - { name: unit file, command: "cat {{ r }}/etc/systemd/system/ib-app.service.d/zz-rdmalimits.conf", register: unit_file, ignore_errors: true }
    - { name: unit absent, rdmalimits: { unit: ib-app.service, state: absent, root: "{{ r }}", executable: "{{ x }}" }, register: unit_absent, ignore_errors: true }
    - { name: unit file gone, stat: { path: "{{ r }}/etc/systemd/system/ib-app.service.d/zz-rdmalimits.conf" }, register: unit_gone }
    - { name: sum before, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_bad0 }
    - { name: bad size, rdmalimits: { domain: bob, memlock: 1Q, root: "{{ r }}", executable: "{{ x }}" }, register: bad, ignore_errors: true }
    - { name: domain and unit, rdmalimits: { domain: bob, unit: x.service, memlock: 1G, root: "{{ r }}", executable: "{{ x }}" }, register: excl, ignore_errors: true }
    - { name: sum after, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_bad1 }
    - { name: a later file sets bob's hard limit, copy: { dest: "{{ r }}/etc/security/limits.d/zzz-vendor.conf", content: "bob hard memlock 1024\n" } }
    - { name: sum before, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_over0 }
    - { name: overridden, rdmalimits: { domain: bob, memlock: 2G, root: "{{ r }}", executable: "{{ x }}" }, register: over, ignore_errors: true }
    - { name: sum after, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_over1 }
    - { name: allow_overridden, rdmalimits: { domain: bob, memlock: 2G, allow_overridden: true, root: "{{ r }}", executable: "{{ x }}" }, register: allow, ignore_errors: true }
    - { name: remove the later file, file: { path: "{{ r }}/etc/security/limits.d/zzz-vendor.conf", state: absent } }
    - { name: status, rdmalimits: { state: status, domain: "$me", needed: unlimited, executable: "{{ x }}" }, register: status, ignore_errors: true }
    - { name: status with memlock, rdmalimits: { state: status, memlock: 1G, executable: "{{ x }}" }, register: status_bad, ignore_errors: true }
    - { name: sum before the injection, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_inj0 }
    - { name: an option as the domain, rdmalimits: { domain: "--unit=ssh", memlock: 1G, force: true, root: "{{ r }}", executable: "{{ x }}" }, register: inject, ignore_errors: true }
    - { name: sum after the injection, shell: "{{ sum }}", args: { executable: /bin/bash }, register: sum_inj1 }
    - name: results
      copy:
        dest: "$T/results.json"
        content: "{{ dict(unit=unit, unit_file=unit_file, unit_absent=unit_absent, unit_gone=unit_gone, sum_bad0=sum_bad0, bad=bad, excl=excl, sum_bad1=sum_bad1, sum_over0=sum_over0, over=over, sum_over1=sum_over1, allow=allow, status=status, status_bad=status_bad, inject=inject, sum_inj0=sum_inj0, sum_inj1=sum_inj1) | to_json }}"
E
ansible-playbook -i localhost, -c local "$T/module.yml" > "$T/out" 2>&1
check "the module's playbook runs to the end" test -s "$T/results.json"
[ -s "$T/results.json" ] || sed 's/^/# /' "$T/out" | tail -40
# res EXPR: EXPR, in Python over the results (r), is true
res() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$T/results.json" 2>/dev/null; }
check "unit: reports changed" res "r['unit'].get('changed') is True and not r['unit'].get('failed')"
check "unit: LimitMEMLOCK= in the unit's drop-in" res "'LimitMEMLOCK=1G' in r['unit_file']['stdout_lines']"
check "unit absent: drop-in removed" res "not r['unit_absent'].get('failed') and not r['unit_gone']['stat']['exists']"
check "bad size: the task fails" res "r['bad'].get('failed') is True"
check "bad size: with the tool's message" res "\"size '1Q'\" in r['bad']['msg']"
check "bad size: nothing written" res "r['sum_bad0']['stdout'] == r['sum_bad1']['stdout']"
check "domain and unit together are refused" res "r['excl'].get('failed') and 'mutually exclusive' in r['excl']['msg']"
check "an overridden entry: the task fails" res "r['over'].get('failed') is True"
check "... naming the winning file:line" res "'zzz-vendor.conf:1' in r['over']['msg']"
check "... with effective false" res "r['over'].get('effective') is False"
check "... and nothing written" res "r['sum_over0']['stdout'] == r['sum_over1']['stdout']"
check "allow_overridden: the task writes it" res "r['allow'].get('changed') is True and not r['allow'].get('failed')"
# state=status: facts per user and unit, compared with what status --json says
"$RDMALIMITS" --json status "$me" > "$T/st.json" 2> /dev/null
want=$(python3 -c "import json; u=[x for x in json.load(open('$T/st.json'))['users'] if x['user']=='$me'][0]; s=u['memlock']['soft'] if u['memlock'] else None; print(s, s != 'unlimited' if s is not None else None)")
got=$(python3 -c "import json; r=json.load(open('$T/results.json'))['status']; d=r['ansible_facts']['rdmalimits_status']; u=[x for x in d['users'] if x['user']=='$me'][0]; print(r['changed'], d['needed'], d['needed_from'], u['limit'], u['below_needed'], 'charged' in u and 'headroom' in u)" 2>&1)
check "status facts: $me's limit and below_needed as status --json says ($want)" \
	test "$got" = "False unlimited needed $want True"
[ "$got" = "False unlimited needed $want True" ] || diag "got: $got"
check "a domain that is an option (--unit=ssh) is refused" res "r['inject'].get('failed') is True and \"does not start with '-'\" in r['inject']['msg']"
check "... and nothing written (no unit drop-in, no limits entry)" res "r['sum_inj0']['stdout'] == r['sum_inj1']['stdout']"
check "state=status refuses memlock" res "'memlock does not apply to state=status' in r['status_bad']['msg']"
ansible-doc -M "$ANSIBLE_DIR/library" rdmalimits > "$T/out" 2>&1
check "ansible-doc reads the module's documentation" grep -q "memlock" "$T/out"

done_testing
