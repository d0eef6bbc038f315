#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What CAP_IPC_LOCK does to the AF_XDP UMEM accounting, measured with a real UMEM registration
# (tests/e2e/umem-reg) by a throwaway uid at a memlock limit of 64 KiB, and what doctor says of
# it on a Kubernetes node:
#   - with CAP_IPC_LOCK in its effective set (ambient, as a non-root process gets it only that
#     way), a 4 MiB UMEM registers: the accounting is skipped (net/xdp/xdp_umem.c);
#   - without it, or with it only where exec does not make it effective (inheritable without
#     ambient: how a non-root container process holds a capability added in its pod spec),
#     the same registration fails with ENOBUFS;
#   - doctor's Kubernetes finding says the first is the condition, and no longer that the
#     capability "does not lift" the accounting (which the first case disproves).
# Root only (setpriv to another uid with capabilities).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"

require_root "CAP_IPC_LOCK and the UMEM accounting"
UMEM=$top_builddir/tests/e2e/umem-reg
require_built "$UMEM" "$RDMALIMITS"
for c in setpriv prlimit; do
	command -v "$c" >/dev/null || skip_all "$c is missing"
done
no_plan
ID=64211
reg() { # CAPS AMBIENT: register 4 MiB as uid ID at 64 KiB; prints umem-reg's answer
	prlimit --memlock=65536:65536 setpriv --reuid=$ID --regid=$ID --clear-groups \
		--inh-caps="$1" --ambient-caps="$2" "$UMEM" 4194304 2>/dev/null
}
got=$(reg +ipc_lock,+net_raw +ipc_lock,+net_raw)
[ "$got" = errno=EAFNOSUPPORT ] && skip_all "this kernel has no AF_XDP"
check "CAP_IPC_LOCK effective (ambient): a 4 MiB UMEM registers at a 64 KiB limit (got '$got')" test "$got" = ok
got=$(reg +net_raw +net_raw)
check "without CAP_IPC_LOCK: ENOBUFS (got '$got')" test "$got" = errno=ENOBUFS
got=$(reg +ipc_lock,+net_raw +net_raw)
check "CAP_IPC_LOCK inheritable but not ambient (not effective after exec): ENOBUFS (got '$got')" \
	test "$got" = errno=ENOBUFS

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/security" "$R/var/lib/kubelet" "$R/etc/pam.d"
printf 'root:x:0:0::/root:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\n' > "$R/etc/group"
: > "$R/etc/security/limits.conf"
"$RDMALIMITS" --root "$R" doctor > "$T/out" 2>&1
check "doctor on a Kubernetes node: CAP_IPC_LOCK counts only in the effective set" \
	grep -q "CAP_IPC_LOCK lifts the accounting only for a process that has it in its effective set" "$T/out"
check "doctor no longer says CAP_IPC_LOCK does not lift the accounting" \
	bash -c "! grep -q 'does not lift' '$T/out'"
done_testing
