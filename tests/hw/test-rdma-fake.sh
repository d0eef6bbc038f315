#!/bin/bash
# RDMA part of hw_probe() against the fake libibverbs (tests/fake-ibverbs), plus the real
# library of this host, the lazy loading, a missing library and the RAM probe.
set -u

# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fake SCENARIO|SPEC=... [hw-dump args]: hw-dump (run by ${run[@]}, if set) with the fake
# library, output in $tmp/out, stderr in $tmp/err
run=()
fake() {
	local sc=$1
	shift
	if [[ $sc == SPEC=* ]]; then
		env LD_LIBRARY_PATH="$FAKE_IBVERBS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			FAKE_IBVERBS_SPEC="${sc#SPEC=}" "${run[@]}" "$HW_DUMP" "$@" >"$tmp/out" 2>"$tmp/err"
	else
		env -u FAKE_IBVERBS_SPEC LD_LIBRARY_PATH="$FAKE_IBVERBS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
			FAKE_IBVERBS_SCENARIO="$sc" "${run[@]}" "$HW_DUMP" "$@" >"$tmp/out" 2>"$tmp/err"
	fi
}

# rdma_lines: the RDMA facts of $tmp/out (and the exit status and stderr when not clean)
rdma_lines() {
	grep -E '^(rdma|active_ports|min_max_mr_size)' "$tmp/out"
	[ -s "$tmp/err" ] && sed 's/^/stderr: /' "$tmp/err"
}

# scenario DESC SCENARIO EXPECTED (the rdma lines, exactly)
scenario() {
	fake "$2" rdma
	printf '%s\n' "$3" >"$tmp/expected"
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

# 3-7: the scenarios
scenario "none: NULL device list with ENOSYS" none \
"rdma_status=-ENOSYS
rdma_devices=0
active_ports=0
min_max_mr_size=0"

scenario "empty: an empty device list" empty \
"rdma_status=0
rdma_devices=0
active_ports=0
min_max_mr_size=0"

scenario "one: mlx5_0 with an ACTIVE InfiniBand port and a DOWN port" one \
"rdma_status=0
rdma_devices=1
rdma mlx5_0 node=CA max_mr_size=1099511627776 max_mr=16777216 ports=2 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
rdma mlx5_0 port 2 DOWN InfiniBand error=0
active_ports=1
min_max_mr_size=1099511627776"

scenario "two: two devices, min max_mr_size 4 GiB over the active ones" two \
"rdma_status=0
rdma_devices=2
rdma mlx5_0 node=CA max_mr_size=1099511627776 max_mr=16777216 ports=2 error=0
rdma mlx5_0 port 1 ACTIVE InfiniBand error=0
rdma mlx5_0 port 2 DOWN InfiniBand error=0
rdma mlx5_1 node=CA max_mr_size=4294967296 max_mr=16777216 ports=1 error=0
rdma mlx5_1 port 1 ACTIVE Ethernet error=0
active_ports=2
min_max_mr_size=4294967296"

scenario "queryfail: ibv_query_device fails with EIO, the device is kept with its error" queryfail \
"rdma_status=0
rdma_devices=1
rdma mlx5_0 node=CA max_mr_size=0 max_mr=0 ports=0 error=-EIO
active_ports=0
min_max_mr_size=0"

# 8: open and port failures (FAKE_IBVERBS_SPEC); a DOWN device's size does not count
scenario "open and port query failures are per device and port; the probe goes on" \
	"SPEC=r0:CA:8192:1:ACTIVE/IB:openfail;r1:RNIC:65536:5:fail,ACTIVE/ETH;r2:CA:4096:7:DOWN/IB" \
"rdma_status=0
rdma_devices=3
rdma r0 node=CA max_mr_size=0 max_mr=0 ports=0 error=-ENODEV
rdma r1 node=RNIC max_mr_size=65536 max_mr=5 ports=2 error=0
rdma r1 port 1 NOP unspecified error=-EIO
rdma r1 port 2 ACTIVE Ethernet error=0
rdma r2 node=CA max_mr_size=4096 max_mr=7 ports=1 error=0
rdma r2 port 1 DOWN InfiniBand error=0
active_ports=1
min_max_mr_size=65536"

# 9: repeated probes in one process give the same result (no state kept between calls)
fake two rdma
cp "$tmp/out" "$tmp/once"
fake two --repeat 20 rdma
diff_ok "20 probes in one process: same result as one" "$tmp/once" "$tmp/out"

# 10-11: libibverbs is loaded only when RDMA is asked for.  The fake appends to a marker
# file from its constructor; the positive control shows the marker works.
rm -f "$tmp/marker"
FAKE_IBVERBS_MARKER=$tmp/marker fake two xdp mem
if [ ! -e "$tmp/marker" ] && grep -qx 'rdma_status=-ENODATA' "$tmp/out"; then
	ok "hw_probe(HW_XDP|HW_MEM) does not load libibverbs (rdma_status=-ENODATA)"
else
	not_ok "hw_probe(HW_XDP|HW_MEM) does not load libibverbs" "$(cat "$tmp/marker" "$tmp/out" 2>&1)"
fi
FAKE_IBVERBS_MARKER=$tmp/marker fake two rdma
check "hw_probe(HW_RDMA) loads it (marker written)" grep -sqx loaded "$tmp/marker"

# 12: the same with the dynamic loader's own log and whatever libibverbs this host has
LD_DEBUG=files "$HW_DUMP" xdp mem >/dev/null 2>"$tmp/lddebug"
LD_DEBUG=files "$HW_DUMP" rdma >/dev/null 2>"$tmp/lddebug-rdma"
if ! grep -q 'file=libibverbs' "$tmp/lddebug" && grep -q 'file=libibverbs.so.1' "$tmp/lddebug-rdma"; then
	ok "LD_DEBUG=files: libibverbs.so.1 is looked up for rdma only"
else
	not_ok "LD_DEBUG=files: libibverbs.so.1 is looked up for rdma only" \
		"xdp mem: $(grep libibverbs "$tmp/lddebug")" "rdma: $(grep libibverbs "$tmp/lddebug-rdma")"
fi

# 13: the real library of this host.  Without RDMA kernel support (no
# /sys/class/infiniband_verbs) libibverbs returns NULL with ENOSYS; without the library
# the probe says -ENOENT.  With real devices the result is not predictable: skip.
env -u LD_LIBRARY_PATH "$HW_DUMP" rdma >"$tmp/out" 2>"$tmp/err"
if [ -z "$ldconfig" ]; then
	skip "the host's libibverbs" "no ldconfig to tell whether it is installed"
elif [ -z "$real" ]; then
	check "no libibverbs.so.1 installed: rdma_status=-ENOENT" grep -qx 'rdma_status=-ENOENT' "$tmp/out"
elif [ -d /sys/class/infiniband_verbs ] && [ -n "$(ls -A /sys/class/infiniband_verbs)" ]; then
	skip "real libibverbs without RDMA devices" "this host has RDMA devices"
else
	check "real libibverbs ($real), no RDMA kernel support: rdma_status=-ENOSYS, 0 devices" \
		[ "$(value rdma_status "$tmp/out")" = -ENOSYS -a "$(value rdma_devices "$tmp/out")" = 0 ]
fi

# 14: a missing library.  The real one is installed system-wide, so LD_LIBRARY_PATH cannot
# hide it: as root, a private mount namespace covers every libibverbs.so.1 ldconfig knows
# with /dev/null (the host's files are untouched) and dlopen() fails there.
if [ -z "$real" ]; then
	skip "missing library hidden in a mount namespace" "no libibverbs installed (test 13 covered it)"
elif [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	skip "missing library hidden in a mount namespace" "needs root and unshare -m"
else
	hide=
	for f in $("$ldconfig" -p | sed -n 's/^\s*libibverbs\.so\.1 (.*) => //p'); do
		hide+="mount --bind /dev/null $(readlink -f "$f") && "
	done
	env -u LD_LIBRARY_PATH unshare -m sh -c "${hide}exec \"\$0\" rdma" "$HW_DUMP" >"$tmp/out" 2>"$tmp/err"
	if grep -qx 'rdma_status=-ENOENT' "$tmp/out" && grep -qx 'rdma_devices=0' "$tmp/out"; then
		ok "libibverbs.so.1 cannot be loaded: rdma_status=-ENOENT, 0 devices"
	else
		not_ok "libibverbs.so.1 cannot be loaded: rdma_status=-ENOENT" "$(cat "$tmp/out" "$tmp/err")"
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
	for sc in none empty one two queryfail "SPEC=r0:CA:8192:1:ACTIVE/IB:openfail;r1:RNIC:65536:5:fail,ACTIVE/ETH"; do
		# shellcheck disable=SC2054 # commas inside a valgrind option
		run=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
		     --error-exitcode=1)
		fake "$sc" --repeat 3 all || bad+=" $sc: $(cat "$tmp/err")"
	done
	run=()
	if [ -z "$bad" ]; then
		ok "valgrind: no leaks or errors over 6 fake scenarios (3 probes each, all parts)"
	else
		not_ok "valgrind: no leaks or errors over the fake scenarios" "$bad"
	fi
fi

finish
