#!/bin/bash
# RDMA part of the hardware probe: devices and ports from sysfs (hw_probe(), what a login
# runs: never libibverbs), and the ibverbs attributes added by hw_probe_verbs() (the tool
# only) against the fake libibverbs (tests/fake-ibverbs) and the real library of this host;
# the lazy loading, a missing library and the RAM probe.
#
# Root only: the RDMA devices are made in sysfs with tests/lib/fakesys.sh, in a private mount
# namespace this script re-runs itself in (the host's /sys is never touched).
set -u

# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
require_fake_verbs
# shellcheck source=../lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"
HW_DUMP=$top_builddir/tests/hw/hw-dump
FAKE_IBVERBS_DIR=$top_builddir/tests/fake-ibverbs/lib
# value KEY FILE: the value of a KEY=VALUE line of hw-dump output
value() { sed -n "s/^$1=//p" "$2"; }

if [ "${RDMALIMIT_RDMA_TEST_INNER:-}" != 1 ]; then
	require_root "RDMA probe tests"
	export RDMALIMIT_RDMA_TEST_INNER=1
	fakesys_unshare -m --propagation private -- "$BASH" "$0" "$@"
fi

tmp=$(mktemp -d)
trap 'fakesys_reset; rm -rf "$tmp"' EXIT

# fake SCENARIO|SPEC=... [hw-dump args]: hw-dump (run by ${run[@]}, if set) with the fake
# library, output in $tmp/out, stderr in $tmp/err
run=()
fake() {
	local sc=$1 var=FAKE_IBVERBS_SCENARIO
	shift
	[[ $sc == SPEC=* ]] && var=FAKE_IBVERBS_SPEC sc=${sc#SPEC=}
	env -u FAKE_IBVERBS_SPEC -u FAKE_IBVERBS_SCENARIO "$var=$sc" \
		LD_LIBRARY_PATH="$FAKE_IBVERBS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"${run[@]}" "$HW_DUMP" "$@" >"$tmp/out" 2>"$tmp/err"
}

# rdma_lines: the RDMA facts of $tmp/out (and the exit status and stderr when not clean)
rdma_lines() {
	grep -E '^(rdma|verbs_status|active_ports|min_max_mr_size|max_mr_size_unknown)' "$tmp/out"
	[ -s "$tmp/err" ] && sed 's/^/stderr: /' "$tmp/err"
}

# scenario DESC SYSFS-SPEC FAKE-SCENARIO HW-DUMP-ARGS EXPECTED (the rdma lines, exactly)
scenario() {
	# shellcheck disable=SC2086 # the sysfs spec is a word list
	fakesys_rdma $2 || echo "fakesys_rdma failed" >"$tmp/err"
	# shellcheck disable=SC2086
	fake "$3" $4
	printf '%s\n' "$5" >"$tmp/expected"
	rdma_lines >"$tmp/actual"
	diff_ok "$1" "$tmp/expected" "$tmp/actual"
}

plan 16

# 1: the probe does not link libibverbs: it is dlopen()ed
needed=$(readelf -d "$HW_DUMP" 2>&1 | grep NEEDED)
if [ -n "$needed" ] && ! grep -q libibverbs <<<"$needed"; then
	ok "hw-dump has no DT_NEEDED on libibverbs"
else
	not_ok "hw-dump has no DT_NEEDED on libibverbs" "$needed"
fi

# 2: the fake exports what the real library exports, version for version
ldconfig=$(PATH=$PATH:/sbin:/usr/sbin command -v ldconfig)
real=
[ -n "$ldconfig" ] && real=$("$ldconfig" -p | sed -n 's/^\s*libibverbs\.so\.1 (libc6,x86-64) => //p' | head -n1)
syms='ibv_(get_device_list|free_device_list|get_device_name|open_device|close_device|query_device|query_port|alloc_pd|dealloc_pd|reg_mr|dereg_mr|reg_mr_iova2)'
versions() { objdump -T "$1" | awk -v re="^$syms\$" '$NF ~ re { print $NF, $(NF-1) }' | sort; }
if [ -z "$real" ] || ! command -v objdump >/dev/null; then
	skip "fake and real symbol versions agree" "no real libibverbs.so.1 or no objdump"
else
	versions "$real" >"$tmp/real.syms"
	versions "$FAKE_IBVERBS_DIR/libibverbs.so.1" >"$tmp/fake.syms"
	diff_ok "fake and real libibverbs.so.1 ($real) export the same symbol versions" \
		"$tmp/real.syms" "$tmp/fake.syms"
fi

# 3-8: the scenarios
scenario "no /sys/class/infiniband devices: nothing to count, not an error" "" none rdma \
"rdma_status=0
rdma_devices=0
verbs_status=-ENODATA
active_ports=0
min_max_mr_size=0
max_mr_size_unknown=0"

scenario "sysfs only (what a login reads): ports counted, max_mr_size unknown, libibverbs not asked" \
	"mlx5_0:4/IB,1/IB" one rdma \
"rdma_status=0
rdma_devices=1
rdma mlx5_0 node=CA max_mr_size=0 max_mr=0 ports=2 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
rdma mlx5_0 port 2 DOWN InfiniBand error=0
verbs_status=-ENODATA
active_ports=1
min_max_mr_size=0
max_mr_size_unknown=1"

scenario "with the ibverbs attributes: mlx5_0's max_mr_size from libibverbs" "mlx5_0:4/IB,1/IB" one "rdma verbs" \
"rdma_status=0
rdma_devices=1
rdma mlx5_0 node=CA max_mr_size=1099511627776 max_mr=16777216 ports=2 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
rdma mlx5_0 port 2 DOWN InfiniBand error=0
verbs_status=0
active_ports=1
min_max_mr_size=1099511627776
max_mr_size_unknown=0"

scenario "two devices, min max_mr_size 4 GiB over the active ones" "mlx5_0:4/IB,1/IB mlx5_1:4/Eth" two "rdma verbs" \
"rdma_status=0
rdma_devices=2
rdma mlx5_0 node=CA max_mr_size=1099511627776 max_mr=16777216 ports=2 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
rdma mlx5_0 port 2 DOWN InfiniBand error=0
rdma mlx5_1 node=CA max_mr_size=4294967296 max_mr=16777216 ports=1 error=0
rdma mlx5_1 port 1 ACTIVE Ethernet error=0
verbs_status=0
active_ports=2
min_max_mr_size=4294967296
max_mr_size_unknown=0"

scenario "queryfail: ibv_query_device fails, the ports still count (sysfs), the size is unknown" \
	"mlx5_0:4/IB" queryfail "rdma verbs" \
"rdma_status=0
rdma_devices=1
rdma mlx5_0 node=CA max_mr_size=0 max_mr=0 ports=1 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
verbs_status=0
active_ports=1
min_max_mr_size=0
max_mr_size_unknown=1"

# an open failure is per device; a device libibverbs does not list keeps no attributes; a
# DOWN device's size does not count
scenario "open failures and unlisted devices are per device; the probe goes on" \
	"r0:4/IB r1:1/Eth,4/Eth r2:1/IB r3:4/IB" \
	"SPEC=r0:CA:8192:1:ACTIVE/IB:openfail;r1:RNIC:65536:5:DOWN/ETH,ACTIVE/ETH;r2:CA:4096:7:DOWN/IB" "rdma verbs" \
"rdma_status=0
rdma_devices=4
rdma r0 node=CA max_mr_size=0 max_mr=0 ports=1 error=0
rdma r0 port 1 ACTIVE InfiniBand error=0
rdma r1 node=CA max_mr_size=65536 max_mr=5 ports=2 error=0
rdma r1 port 1 DOWN Ethernet error=0
rdma r1 port 2 ACTIVE Ethernet error=0
rdma r2 node=CA max_mr_size=4096 max_mr=7 ports=1 error=0
rdma r2 port 1 DOWN InfiniBand error=0
rdma r3 node=CA max_mr_size=0 max_mr=0 ports=1 error=0
rdma r3 port 1 ACTIVE InfiniBand error=0
verbs_status=0
active_ports=3
min_max_mr_size=65536
max_mr_size_unknown=1"

# 9: repeated probes in one process give the same result (no state kept between calls)
fakesys_rdma mlx5_0:4/IB,1/IB mlx5_1:4/Eth
fake two rdma verbs
cp "$tmp/out" "$tmp/once"
fake two --repeat 20 rdma verbs
diff_ok "20 probes in one process: same result as one" "$tmp/once" "$tmp/out"

# 10-12: hw_probe() never loads libibverbs, with RDMA devices present: only hw_probe_verbs()
# does.  The fake appends to a marker file from its constructor; the positive control shows
# the marker works.
rm -f "$tmp/marker"
FAKE_IBVERBS_MARKER=$tmp/marker fake two all
if [ ! -e "$tmp/marker" ] && grep -qx 'active_ports=2' "$tmp/out" && grep -qx 'verbs_status=-ENODATA' "$tmp/out"; then
	ok "hw_probe(HW_ALL) with 2 RDMA devices counts their ports and does not load libibverbs"
else
	not_ok "hw_probe(HW_ALL) does not load libibverbs" "$(cat "$tmp/marker" "$tmp/out" 2>&1)"
fi
FAKE_IBVERBS_MARKER=$tmp/marker fake two rdma verbs
check "hw_probe_verbs() loads it (marker written)" grep -sqx loaded "$tmp/marker"
LD_DEBUG=files "$HW_DUMP" all >/dev/null 2>"$tmp/lddebug"
LD_DEBUG=files "$HW_DUMP" rdma verbs >/dev/null 2>"$tmp/lddebug-verbs"
if ! grep -q 'file=libibverbs' "$tmp/lddebug" && grep -q 'file=libibverbs.so.1' "$tmp/lddebug-verbs"; then
	ok "LD_DEBUG=files: libibverbs.so.1 is looked up by hw_probe_verbs() only"
else
	not_ok "LD_DEBUG=files: libibverbs.so.1 is looked up by hw_probe_verbs() only" \
		"all: $(grep libibverbs "$tmp/lddebug")" "verbs: $(grep libibverbs "$tmp/lddebug-verbs")"
fi

# 13: the real library of this host.  Without RDMA kernel support libibverbs returns NULL
# with ENOSYS, whatever sysfs shows; without the library the probe says -ENOENT.
fakesys_reset
env -u LD_LIBRARY_PATH "$HW_DUMP" rdma verbs >"$tmp/out" 2>"$tmp/err"
if [ -z "$ldconfig" ]; then
	skip "the host's libibverbs" "no ldconfig to tell whether it is installed"
elif [ -z "$real" ]; then
	check "no libibverbs.so.1 installed: verbs_status=-ENOENT" grep -qx 'verbs_status=-ENOENT' "$tmp/out"
elif [ -d /sys/class/infiniband_verbs ] && [ -n "$(ls -A /sys/class/infiniband_verbs)" ]; then
	skip "real libibverbs without RDMA devices" "this host has RDMA devices"
else
	check "real libibverbs ($real), no RDMA kernel support: verbs_status=-ENOSYS, 0 devices" \
		[ "$(value verbs_status "$tmp/out")" = -ENOSYS -a "$(value rdma_devices "$tmp/out")" = 0 ]
fi

# 14: a missing library: this private mount namespace covers every libibverbs.so.1 ldconfig
# knows with /dev/null (the host's files are untouched) and dlopen() fails there.
if [ -z "$real" ]; then
	skip "missing library hidden in a mount namespace" "no libibverbs installed (test 13 covered it)"
else
	hide=
	for f in $("$ldconfig" -p | sed -n 's/^\s*libibverbs\.so\.1 (.*) => //p'); do
		hide+="mount --bind /dev/null $(readlink -f "$f") && "
	done
	env -u LD_LIBRARY_PATH unshare -m sh -c "${hide}exec \"\$0\" rdma verbs" "$HW_DUMP" >"$tmp/out" 2>"$tmp/err"
	if grep -qx 'verbs_status=-ENOENT' "$tmp/out" && grep -qx 'rdma_status=0' "$tmp/out"; then
		ok "libibverbs.so.1 cannot be loaded: verbs_status=-ENOENT, sysfs still read"
	else
		not_ok "libibverbs.so.1 cannot be loaded: verbs_status=-ENOENT" "$(cat "$tmp/out" "$tmp/err")"
	fi
fi

# 15: MemTotal in bytes
"$HW_DUMP" mem >"$tmp/out" 2>"$tmp/err"
kib=$(sed -n 's/^MemTotal:\s*\([0-9]*\) kB$/\1/p' /proc/meminfo)
check "mem_total is MemTotal in bytes ($kib KiB)" \
	[ "$(value mem_status "$tmp/out")" = 0 -a "$(value mem_total "$tmp/out")" = "$((kib * 1024))" ]

# 16: no leak and no invalid access under valgrind, for every fake scenario
if ! command -v valgrind >/dev/null; then
	skip "valgrind over the fake scenarios" "valgrind not installed"
elif readelf -s "$HW_DUMP" | grep -q __asan_init; then
	skip "valgrind over the fake scenarios" "built with sanitizers"
else
	bad=
	fakesys_rdma mlx5_0:4/IB,1/IB mlx5_1:4/Eth
	for sc in none empty one two queryfail "SPEC=r0:CA:8192:1:ACTIVE/IB:openfail;r1:RNIC:65536:5:fail,ACTIVE/ETH"; do
		# shellcheck disable=SC2054 # commas inside a valgrind option
		run=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
		     --error-exitcode=1)
		fake "$sc" --repeat 3 all verbs || bad+=" $sc: $(cat "$tmp/err")"
	done
	run=()
	if [ -z "$bad" ]; then
		ok "valgrind: no leaks or errors over 6 fake scenarios (3 probes each, all parts)"
	else
		not_ok "valgrind: no leaks or errors over the fake scenarios" "$bad"
	fi
fi

done_testing
