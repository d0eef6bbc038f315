#!/bin/bash
# The names admins mistype, caught where they type them, with one hint everywhere
# (lc_domain_hint()): a user domain that names a group ("did you mean @NAME"), a group or user
# a letter off ("did you mean @rdma_users" for @rdma_user), in apply's warning, check's finding
# for a limits line, and check --policy's finding for a rule.  On a throwaway root tree.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/security/limits.d"
printf 'root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\nalice:x:1000:\nrdma_users:x:2000:alice\n' >"$R/etc/group"
: >"$R/etc/security/limits.conf"
rl() { "$RDMALIMITS" --root "$R" "$@"; }

# apply: warned, with the hint, and (without --check) written all the same
rl apply rdma_users 1G --check >"$T/out" 2>&1
check "apply rdma_users (no @): did you mean '@rdma_users'" \
	grep -q "warning: user 'rdma_users' does not exist in the root's etc/passwd: the entry matches nobody until it does; did you mean '@rdma_users'?" "$T/out"
rl apply @rdma_user 1G --check >"$T/out" 2>&1
check "apply @rdma_user: did you mean '@rdma_users'" \
	grep -q "warning: group 'rdma_user' does not exist .*; did you mean '@rdma_users'?" "$T/out"
rl apply alicee 1G --check >"$T/out" 2>&1
check "apply alicee: did you mean 'alice'" grep -q "user 'alicee' does not exist .*; did you mean 'alice'?" "$T/out"
rl apply @nothing_like_it 1G --check >"$T/out" 2>&1
check "apply @nothing_like_it: warned, no hint" \
	test "$(grep -c "group 'nothing_like_it' does not exist" "$T/out")" = 1 -a "$(grep -c 'did you mean' "$T/out")" = 0

# check: the same hint for a line of limits.d
printf 'rdma_users - memlock 1048576\n@rdma_user - memlock 1048576\n' >"$R/etc/security/limits.d/50-typo.conf"
rl check >"$T/out" 2>&1
check "check: a user line naming a group: did you mean '@rdma_users'" \
	grep -q "etc/security/limits.d/50-typo.conf:1: warning: user 'rdma_users' does not exist in the tree: .*did you mean '@rdma_users'" "$T/out"
check "check: @rdma_user: did you mean '@rdma_users'" \
	grep -q "etc/security/limits.d/50-typo.conf:2: warning: group 'rdma_user' does not exist in the tree: .*did you mean '@rdma_users'" "$T/out"
rm "$R/etc/security/limits.d/50-typo.conf"

# check --policy: rules naming nobody are warnings, with the hint in the policy's words
cat >"$R/etc/security/rdmalimit.conf" <<'EOF'
version = 1;
rules = (
  { group = "rdma_user"; memlock = "1G"; },
  { user = "rdma_users"; memlock = "1G"; },
  { user = "bobb"; memlock = "1G"; },
  { user = "alice"; memlock = "2G"; }
);
EOF
rl check --policy >"$T/out" 2>&1
rc=$?
check "check --policy: warnings only (exit 0)" test $rc -eq 0
check "policy: group = \"rdma_user\": did you mean group = \"rdma_users\"" \
	grep -q 'rdmalimit.conf:3: warning: the rule.s group .rdma_user. does not exist in the tree: the rule matches nobody; did you mean group = "rdma_users"?' "$T/out"
check "policy: user = \"rdma_users\": did you mean group = \"rdma_users\"" \
	grep -q 'rdmalimit.conf:4: warning: the rule.s user .rdma_users. does not exist in the tree: the rule matches nobody; did you mean group = "rdma_users"?' "$T/out"
check "policy: user = \"bobb\": warned" grep -q "rdmalimit.conf:5: warning: the rule's user 'bobb' does not exist" "$T/out"
check "policy: alice's rule: nothing said" test "$(grep -c 'rdmalimit.conf:6' "$T/out")" = 0
rl --json check --policy >"$T/json" 2>&1
check "policy --json: the finding's id and fix" python3 -c '
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x.get("line") == 3][0]
sys.exit(not (f["id"] == "policy-unknown-name" and f["fix"] == "did you mean group = \"rdma_users\"?"))' "$T/json"

# the names hinted at are the names the look-ups find: lines of the tree's passwd and group
# that the reader skips (no uid, a uid that is not a number, no gid) are never offered
printf 'carol\ncarl:x:notanumber:1000::/:/bin/sh\n' >>"$R/etc/passwd"
printf 'devops\n' >>"$R/etc/group"
rl apply carl 1G --check >"$T/out" 2>&1
check "apply carl: a passwd line with a bad uid is no user" grep -q "user 'carl' does not exist" "$T/out"
check "apply carl: and no hint of carol, whose line has no fields" test "$(grep -c 'did you mean' "$T/out")" = 0
rl apply @devop 1G --check >"$T/out" 2>&1
check "apply @devop: no hint of a group line without a gid" \
	test "$(grep -c "group 'devop' does not exist" "$T/out")" = 1 -a "$(grep -c 'did you mean' "$T/out")" = 0
printf 'carl - memlock 1048576\n' >"$R/etc/security/limits.d/50-carl.conf"
rl check >"$T/out" 2>&1
check "check: carl's line warned, no hint of carol" \
	sh -c 'grep -q "50-carl.conf:1: warning: user .carl. does not exist in the tree" "$1" && ! grep -q "did you mean" "$1"' - "$T/out"
rm "$R/etc/security/limits.d/50-carl.conf"

# a tree whose group "file" is a directory: the names are unknown (the look-ups fail the same
# way and check says nothing of names), but check still reports every other finding
mv "$R/etc/group" "$T/group.keep"
mkdir "$R/etc/group"
printf 'alice hard memlock 64M\n' >"$R/etc/security/limits.d/50-typo.conf"
rl check >"$T/out" 2>&1
check "an unreadable etc/group: check still reports a misread value" \
	grep -q "etc/security/limits.d/50-typo.conf:1: error: '64m' is read as 64 KiB" "$T/out"
check "... and does not stop with the read error" sh -c '! grep -q "check failed" "$1"' - "$T/out"
rm "$R/etc/security/limits.d/50-typo.conf"
rmdir "$R/etc/group"
mv "$T/group.keep" "$R/etc/group"

done_testing
