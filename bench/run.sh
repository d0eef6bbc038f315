#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/run.sh BUILD_DIR [OUTFILE]
#
# Runs the benchmarks of bench/README.md against the build in BUILD_DIR, prints the table and
# writes it to OUTFILE (default BUILD_DIR/bench/results.txt) and the raw numbers to the same
# name with .json.  Asserts nothing about time: exit 0 when every measurement was taken,
# 77 when it cannot run here (not root, no unshare), 1 when a measurement failed, 2 on usage.
#
# Root only: everything runs in a private mount and network namespace.  There, sysfs is
# mounted again (it then shows that namespace's interfaces: lo and a veth pair, one end made
# to look physical), the RDMA devices the module counts are made in /sys/class/infiniband with
# tests/lib/fakesys.sh, and generated passwd, group and security/ are bind-mounted over /etc's.
# The host's /etc, /sys and network are never written.
# Knobs (environment): see bench/README.md; BENCH_KEEP=1 keeps the work directory.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "${1:-}" = --help ]; then
	echo "usage: bench/run.sh BUILD_DIR [OUTFILE]" >&2
	exit 2
fi
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$(cd "$1" && pwd)
OUT=${2:-$B/bench/results.txt}
mkdir -p "$(dirname "$OUT")"
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (private mount namespace with bind mounts over /etc), skipping" >&2
	exit 77
fi
if ! unshare --mount --propagation private --net --pid --fork --mount-proc true 2>/dev/null; then
	echo "bench: cannot create a mount, network and PID namespace here, skipping" >&2
	exit 77
fi
if ! command -v ip >/dev/null; then
	echo "bench: needs ip (iproute2) for the namespace's veth pair, skipping" >&2
	exit 77
fi
for f in "$B/rdmalimits" "$B/pam_rdmalimit/.libs/pam_rdmalimit.so"; do
	if [ ! -e "$f" ]; then
		echo "bench: $f is missing: build first (make -C $B)" >&2
		exit 1
	fi
done
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# the driver: from the build system when bench/bench.am is included, else compiled here
DRIVER=$B/bench/pam-bench
if [ ! -x "$DRIVER" ] || [ "$SRC/bench/pam-bench.c" -nt "$DRIVER" ] ||
	[ "$SRC/tests/lib/pam-driver.h" -nt "$DRIVER" ]; then
	if ! make -C "$B" bench/pam-bench >/dev/null 2>&1; then
		mkdir -p "$B/bench"
		"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -o "$DRIVER" "$SRC/bench/pam-bench.c" -lpam
	fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdmalimit-bench.XXXXXX")
cleanup() {
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "bench: work directory kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

echo "bench: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); a full run takes 5 to 10 minutes on 2 cores, longer under load" >&2
# the host's mount namespace, which tests/lib/fakesys.sh refuses to touch
FAKESYS_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
export FAKESYS_HOST_MNTNS SRC B OUT DRIVER WORK PY
# Its own PID namespace too: pam_limits (Debian patch 027) starts every limit from PID 1's
# /proc/1/limits, and in a container PID 1 may have a hard limit above this shell's.  Raising it
# then fails with EPERM (no CAP_SYS_RESOURCE) and pam_limits logs a line that a real login, whose
# root has CAP_SYS_RESOURCE, never pays for.  Here PID 1 is the bench itself, with its limits.
# shellcheck disable=SC2016 # expanded by the inner shell, from the exported variables
unshare --mount --propagation private --net --pid --fork --mount-proc --kill-child "$BASH" -c '
set -euo pipefail
mount --make-rprivate /
# sysfs of this network namespace: /sys/class/net lists lo, bx0 and bx1 only
mount -t sysfs bench-sysfs /sys
ip link set lo up
# the hardware the auto stacks count: one "physical" interface with 2 RX queues (a veth, copy
# mode) and 2 RDMA devices with 2 active ports (sysfs only, as a login reads them)
ip link add bx0 numrxqueues 2 numtxqueues 2 type veth peer name bx1 numrxqueues 2 numtxqueues 2
ip link set bx0 up
ip link set bx1 up
# shellcheck source=../tests/lib/fakesys.sh
. "$SRC/tests/lib/fakesys.sh"
FAKESYS_TMPDIR=$WORK
fakesys_physical bx0
fakesys_rdma mlx5_0:4/IB,1/IB mlx5_1:4/Eth
# /dev/log served, as journald serves it on every host: a login delivers its messages
. "$SRC/tests/lib/privdev.sh"
mkdir "$WORK/dev"
privdev_mount "$WORK/dev" "$FAKESYS_HOST_MNTNS"
privdev_syslog_start "$PY" "$WORK/syslog" "$WORK/syslog.err"
exec "$PY" "$SRC/bench/bench.py" --build "$B" --srcdir "$SRC" --driver "$DRIVER" --work "$WORK" --out "$OUT" \
	--syslog "$WORK/syslog"
'
