#!/bin/bash
# tests/lib/fakesys.sh on its own: fake RDMA devices and a "physical" veth in the sysfs of a
# private mount + network namespace.  Root only; nothing is changed outside the namespaces.
set -u

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
# shellcheck source=tests/lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"

if [ "${RDMALIMIT_FAKESYS_INNER:-}" != 1 ]; then
	require_root "fakesys self-test"
	export RDMALIMIT_FAKESYS_INNER=1
	fakesys_unshare --mount --propagation private --net -- "$BASH" "$0"
fi

no_plan
mount --make-rprivate / || { echo "Bail out! mount --make-rprivate / failed"; exit 99; }
mount -t sysfs fakesys-test-sysfs /sys || { echo "Bail out! cannot mount sysfs"; exit 99; }
ip link set lo up

# not COMMAND...: true when the command fails
not() { ! "$@"; }
# read FILE: its content, or <missing>
rd() { cat "$1" 2>/dev/null || echo '<missing>'; }

check "refuses to run in the host's mount namespace" \
	not env FAKESYS_HOST_MNTNS="$(readlink /proc/self/ns/mnt)" bash -c \
	". '$top_srcdir/tests/lib/fakesys.sh' && fakesys_rdma x:4" 2>/dev/null
check "refuses a bad spec" not fakesys_rdma 'mlx5_0:9/IB' 2>/dev/null
check "refuses an unknown link layer" not fakesys_rdma 'mlx5_0:4/FDDI' 2>/dev/null
check "a bad spec changed nothing" [ "$(stat -f -c %T /sys/class)" = sysfs ]

classes_before=$(cd /sys/class && echo *)
lo_before=$(rd /sys/class/net/lo/ifindex)
check "fakesys_rdma mlx5_0:4/IB,1/IB rxe0:4/Eth" fakesys_rdma mlx5_0:4/IB,1/IB rxe0:4/Eth
check "/sys/class is a tmpfs now" [ "$(stat -f -c %T /sys/class)" = tmpfs ]
check "mlx5_0 node_type" [ "$(rd /sys/class/infiniband/mlx5_0/node_type)" = "1: CA" ]
check "mlx5_0 port 1 ACTIVE InfiniBand" \
	[ "$(rd /sys/class/infiniband/mlx5_0/ports/1/state)/$(rd /sys/class/infiniband/mlx5_0/ports/1/link_layer)" = "4: ACTIVE/InfiniBand" ]
check "mlx5_0 port 2 DOWN" [ "$(rd /sys/class/infiniband/mlx5_0/ports/2/state)" = "1: DOWN" ]
check "mlx5_0 has two ports" [ "$(cd /sys/class/infiniband/mlx5_0/ports && echo *)" = "1 2" ]
check "rxe0 port 1 ACTIVE Ethernet" \
	[ "$(rd /sys/class/infiniband/rxe0/ports/1/state)/$(rd /sys/class/infiniband/rxe0/ports/1/link_layer)" = "4: ACTIVE/Ethernet" ]
check "the devices are the only entries" [ "$(cd /sys/class/infiniband && echo *)" = "mlx5_0 rxe0" ]
classes_after=$(cd /sys/class && echo *)
missing=
for c in $classes_before; do
	[[ " $classes_after " == *" $c "* ]] || missing+=" $c"
done
check "every class stays reachable${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "/sys/class/net/lo still resolves (relative link)" [ "$(rd /sys/class/net/lo/ifindex)" = "$lo_before" ]
check "/sys/class/net/lo/device does not exist" [ ! -e /sys/class/net/lo/device ]

check "fakesys_rdma again replaces the set" fakesys_rdma mlx5_1:4
check "... only mlx5_1 now" [ "$(cd /sys/class/infiniband && echo *)" = "mlx5_1" ]
check "fakesys_rdma with no spec: an empty class" fakesys_rdma
check "... empty" [ -z "$(ls -A /sys/class/infiniband)" ]

# a veth that looks physical, with the kernel's ifindex and queues
if ! ip link add fs0 numrxqueues 3 numtxqueues 3 type veth peer name fs1 numrxqueues 3 numtxqueues 3; then
	fail "the veth pair fs0/fs1 cannot be created"
fi
idx=$(rd /sys/class/net/fs0/ifindex)
ino_before=$(ls -i -d /sys/class/net/fs0 | cut -d' ' -f1)
check "fakesys_physical fs0" fakesys_physical fs0
check "fs0 has a device link" [ -e /sys/class/net/fs0/device ]
check "fs1 has none" [ ! -e /sys/class/net/fs1/device ]
check "fs0 keeps its ifindex" [ "$(rd /sys/class/net/fs0/ifindex)" = "$idx" ]
check "fs0 keeps its 3 RX queues" [ "$(cd /sys/class/net/fs0/queues && echo rx-*)" = "rx-0 rx-1 rx-2" ]
check "the listing keeps the kernel's inode for fs0" [ "$(ls -i -d /sys/class/net/fs0 | cut -d' ' -f1)" = "$ino_before" ]
check "fakesys_physical fs0 again: nothing to do" fakesys_physical fs0
check "fakesys_physical of a missing interface fails" not fakesys_physical nosuch0 2>/dev/null
ip link set fs0 up 2>/dev/null
check "the real attributes follow the kernel (operstate after link up)" [ "$(rd /sys/class/net/fs0/operstate)" != '<missing>' ]
ip link add fs2 type veth peer name fs3
check "interfaces added later appear in /sys/class/net" [ -e /sys/class/net/fs2/ifindex ]
check "... and are not physical" [ ! -e /sys/class/net/fs2/device ]

check "fakesys_reset" fakesys_reset
check "/sys/class is the kernel's again" [ "$(stat -f -c %T /sys/class)" = sysfs ]
check "fs0 is virtual again" [ ! -e /sys/class/net/fs0/device ]
check "no /sys/class/infiniband" [ ! -e /sys/class/infiniband ]
check "fakesys_reset twice" fakesys_reset

# after sysfs is mounted again (as a test does after adding a network namespace)
fakesys_rdma mlx5_0:4 >/dev/null && fakesys_physical fs0
umount -R -l /sys && mount -t sysfs fakesys-test-sysfs2 /sys
check "after a new sysfs mount: fakesys_rdma works" fakesys_rdma mlx5_0:4,4
check "... two ports" [ "$(cd /sys/class/infiniband/mlx5_0/ports && echo *)" = "1 2" ]
check "... fakesys_physical works" fakesys_physical fs0
check "... fs0 physical" [ -e /sys/class/net/fs0/device ]
check "... fakesys_reset" fakesys_reset
check "... fs0 virtual" [ ! -e /sys/class/net/fs0/device ]
left=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'fakesys.*' 2>/dev/null)
check "no staging directory left${left:+: $left}" [ -z "$left" ]

done_testing
