#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/ansible: site.yml (role rdmalimit, module rdmalimits) against localhost, on a
# throwaway root tree, with the rdmalimits of this build.  The install, enable (pam-auth-update)
# and verify steps are skipped by tag: they act on the host.  Needs ansible-playbook
# (Debian: ansible); skips without it, fails instead under CI=true.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

ANSIBLE_DIR=$top_srcdir/contrib/ansible

if ! command -v ansible-playbook >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - ansible-playbook is missing (Debian: apt-get install ansible)"
		exit 1
	fi
	echo "1..0 # SKIP ansible-playbook is missing (Debian: apt-get install ansible)"
	exit 0
fi
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

vars "$T/v1.yml" '{domain: "@rdma_users", memlock: 1G}' '{domain: alice, memlock: 2G, hard: 4G}'
vars "$T/v2.yml" '{domain: "@rdma_users", memlock: 1G}' '{domain: alice, memlock: 2G, hard: 4G}' \
	'{domain: bob, memlock: 8G}'
vars "$T/v3.yml" '{domain: "@rdma_users", memlock: 1G}' '{domain: alice, state: absent}' \
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
same "sshd stack: pam_rdmalimit right after pam_limits" "$R/etc/pam.d/sshd" <<'E'
@include common-session
session    optional     pam_motd.so noupdate
session    required     pam_limits.so
session    optional     pam_rdmalimit.so
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

# --- the module alone: a unit, a failure with the tool's message, the documentation
adhoc() { ansible localhost -i localhost, -c local -m rdmalimits -a "$1" > "$T/out" 2>&1; }
if adhoc "unit=ib-app.service memlock=1G root=$R executable=$RDMALIMITS"; then
	check "unit: reports changed" grep -q '"changed": true' "$T/out"
	check "unit: LimitMEMLOCK= in the unit's drop-in" \
		grep -qx 'LimitMEMLOCK=1G' "$R/etc/systemd/system/ib-app.service.d/90-rdmalimits.conf"
	adhoc "unit=ib-app.service state=absent root=$R executable=$RDMALIMITS"
	check "unit absent: drop-in removed" test ! -e "$R/etc/systemd/system/ib-app.service.d/90-rdmalimits.conf"
elif grep -q -- "--unit" "$T/out"; then
	# an rdmalimits without apply --unit: the module fails with the tool's message
	ok "unit: this rdmalimits has no apply --unit; the module fails with its message"
else
	fail "unit: the module failed"
	sed 's/^/# /' "$T/out"
fi
sum2=$(tree_sum)
adhoc "domain=bob memlock=1Q root=$R executable=$RDMALIMITS"
check "bad size: the task fails" grep -q "FAILED" "$T/out"
check "bad size: with the tool's message" grep -q "size '1Q'" "$T/out"
check "bad size: nothing written" test "$(tree_sum)" = "$sum2"
adhoc "domain=bob unit=x.service memlock=1G root=$R executable=$RDMALIMITS"
check "domain and unit together are refused" grep -q "mutually exclusive" "$T/out"
# an entry another file overrides: the task fails, names the winner, and writes nothing
printf 'bob hard memlock 1024\n' > "$R/etc/security/limits.d/zzz-vendor.conf"
sum3=$(tree_sum)
adhoc "domain=bob memlock=2G root=$R executable=$RDMALIMITS"
check "an overridden entry: the task fails" grep -q "FAILED" "$T/out"
check "... naming the winning file:line" grep -q "zzz-vendor.conf:1" "$T/out"
check "... with effective false" grep -q '"effective": false' "$T/out"
check "... and nothing written" test "$(tree_sum)" = "$sum3"
adhoc "domain=bob memlock=2G allow_overridden=true root=$R executable=$RDMALIMITS"
check "allow_overridden: the task writes it" grep -q '"changed": true' "$T/out"
rm "$R/etc/security/limits.d/zzz-vendor.conf"
# --- state=status: facts per user and unit, compared with what status --json says
me=$(id -un)
"$RDMALIMITS" --json status "$me" > "$T/st.json" 2> /dev/null
want=$(python3 -c "import json; u=[x for x in json.load(open('$T/st.json'))['users'] if x['user']=='$me'][0]; s=u['memlock']['soft'] if u['memlock'] else None; print(s, s != 'unlimited' if s is not None else None)")
if adhoc "state=status domain=$me needed=unlimited executable=$RDMALIMITS"; then
	got=$(sed -n '/=> {/,$p' "$T/out" | sed '1s/.*=> {/{/' | python3 -c "import json,sys; f=json.load(sys.stdin); d=f['ansible_facts']['rdmalimits_status']; u=[x for x in d['users'] if x['user']=='$me'][0]; print(f['changed'], d['needed'], d['needed_from'], u['limit'], u['below_needed'], 'charged' in u and 'headroom' in u)" 2>&1)
	check "status facts: $me's limit and below_needed as status --json says ($want)" 		test "$got" = "False unlimited needed $want True"
	[ "$got" = "False unlimited needed $want True" ] || diag "got: $got"
else
	fail "state=status runs"
	sed 's/^/# /' "$T/out" | tail -20
fi
adhoc "state=status memlock=1G executable=$RDMALIMITS"
check "state=status refuses memlock" grep -q "memlock does not apply to state=status" "$T/out"
ansible-doc -M "$ANSIBLE_DIR/library" rdmalimits > "$T/out" 2>&1
check "ansible-doc reads the module's documentation" grep -q "memlock" "$T/out"

done_testing
