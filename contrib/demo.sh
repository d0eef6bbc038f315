#!/bin/bash
# The demo: rdmalimits on a throwaway root tree, then pam_rdmalimit in real ssh logins in a
# sandbox of private namespaces (nothing on this host changes).
# Usage: contrib/demo.sh BUILD_DIR
set -uo pipefail
B=${1:?build dir}
RL=$B/rdmalimits
S=$(mktemp -d /tmp/rdmalimit-demo.XXXXXX)
trap 'rm -rf "$S"' EXIT
R=$S/root

step() { printf '\n\033[1;34m## %s\033[0m\n' "$*"; }
run() { printf '\033[1m$ %s\033[0m\n' "$*"; "$@"; echo "[exit $?]"; }

mkdir -p "$R/etc/security/limits.d" "$R/proc/1"
cat > "$R/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/bash
alice:x:1001:1001:RDMA user:/home/alice:/bin/bash
bob:x:1002:1002:no RDMA:/home/bob:/bin/bash
P
cat > "$R/etc/group" <<'G'
root:x:0:
alice:x:1001:
bob:x:1002:
rdma_users:x:2000:alice
G
cat > "$R/etc/security/limits.conf" <<'L'
# What admins paste, and what goes wrong with it:
*               hard    memlock         64M
@rdma_users     soft    memlock         unlimited
L
cp /proc/1/limits "$R/proc/1/limits" 2>/dev/null || true
RLR() { run "$RL" --root "$R" "$@"; }

step "A throwaway root tree in $R (users alice in rdma_users, bob not)"
run cat "$R/etc/security/limits.conf"

step "check finds what pam_limits would do with it"
RLR check

step "explain: what a session of alice really gets today, and from which line"
RLR explain alice

step "apply: a validated, atomic limits.d drop-in for the group"
RLR apply @rdma_users 1G --diff
RLR apply @rdma_users 1G

step "explain again, as text and as JSON"
RLR explain alice
RLR explain bob --json

step "list: every memlock entry in the order pam_limits reads them"
RLR list

step "refused input leaves the tree unchanged"
RLR apply @rdma_users 1048576
RLR apply 'bad domain' 1G

"$(dirname "$0")/demo-sandbox.sh" "$B"
