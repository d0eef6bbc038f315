#!/bin/bash
# AF_XDP part of hw_probe() (netdev generic netlink + sysfs queues) in a private network
# namespace with veth pairs.  Root only; nothing is created outside the namespace, which is
# deleted on exit.
#
# veth xdp-features (drivers/net/veth.c veth_set_xdp_features(), since Linux 6.3, commit
# fccca038f300 -- as old as the netdev family): a veth reports BASIC|REDIRECT|RX_SG only
# while its peer has no more TX queues than it has RX queues, else 0.  So the pair
# `va numrxqueues 8 numtxqueues 8 ... vb numrxqueues 3 numtxqueues 3` shows only va; the
# expectations below are derived from the queue counts sysfs shows, not hard-coded.
set -u

# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
HW_DUMP=$top_builddir/tests/hw/hw-dump
# value KEY FILE: the value of a KEY=VALUE line of hw-dump output
value() { sed -n "s/^$1=//p" "$2"; }

require_root "AF_XDP probe in a network namespace"

ns=rdmalimit-hw-$$-$RANDOM
tmp=$(mktemp -d)
# shellcheck disable=SC2317 # called from the trap
cleanup() {
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_ns() { ip netns exec "$ns" "$@"; }
# queues IF rx|tx: the number of queues sysfs shows (inside the namespace)
queues() { in_ns sh -c "ls -d /sys/class/net/$1/queues/$2-* 2>/dev/null | wc -l"; }

# name rx tx peer-name peer-rx peer-tx
pairs=(
	"va 8 3 vb 3 3"   # both ends XDP-capable: 8 + 3 copy-mode RX queues
	"vc 8 8 vd 3 3"   # vd: its peer has 8 TX queues > its 3 RX queues -> no XDP features
	"ve 1 1 vf 1 1"   # one RX queue each
)

plan 21

if ! ip netns add "$ns" 2>"$tmp/err"; then
	echo "Bail out! cannot create a network namespace: $(cat "$tmp/err")"
	exit 1
fi
setup_ok=true
for p in "${pairs[@]}"; do
	read -r a arx atx b brx btx <<<"$p"
	in_ns ip link add "$a" numrxqueues "$arx" numtxqueues "$atx" type veth \
		peer name "$b" numrxqueues "$brx" numtxqueues "$btx" 2>>"$tmp/err" || setup_ok=false
done
# a setup step, not a test: without the pairs nothing below means anything
if ! $setup_ok; then
	echo "Bail out! cannot create the veth pairs in namespace $ns: $(cat "$tmp/err")"
	exit 99
fi

# 1: sysfs shows the queue counts given to ip
mismatch=
declare -A rxq txq peer
for p in "${pairs[@]}"; do
	read -r a arx atx b brx btx <<<"$p"
	rxq[$a]=$(queues "$a" rx) txq[$a]=$(queues "$a" tx) peer[$a]=$b
	rxq[$b]=$(queues "$b" rx) txq[$b]=$(queues "$b" tx) peer[$b]=$a
	[ "${rxq[$a]}/${txq[$a]}" = "$arx/$atx" ] || mismatch+=" $a=${rxq[$a]}/${txq[$a]}"
	[ "${rxq[$b]}/${txq[$b]}" = "$brx/$btx" ] || mismatch+=" $b=${rxq[$b]}/${txq[$b]}"
done
if [ -z "$mismatch" ]; then
	ok "sysfs RX/TX queue counts are the ones given to ip"
else
	not_ok "sysfs RX/TX queue counts are the ones given to ip" "got:$mismatch"
fi

# veths are virtual: counted only when the selection includes them (v* here)
in_ns "$HW_DUMP" --include 'v*' xdp >"$tmp/out" 2>"$tmp/err"
rc=$?
status=$(value xdp_status "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$status" = 0 ]; then
	ok "hw-dump xdp in the namespace: xdp_status=0"
elif [ "$status" = -EOPNOTSUPP ]; then
	# a kernel without the netdev family (< 6.3): the probe says "unknown"
	ok "hw-dump xdp: no netdev family, xdp_status=-EOPNOTSUPP"
	for i in $(seq 3 21); do skip "netdev family checks" "kernel has no netdev family"; done
	done_testing
else
	not_ok "hw-dump xdp in the namespace: xdp_status=0" "rc=$rc" "$(cat "$tmp/out" "$tmp/err")"
fi
sed 's/^/# /' "$tmp/out"

# 3: lo has no XDP features, it must not be listed
if grep -qE '^xdp [0-9]+ lo ' "$tmp/out"; then
	not_ok "lo is not listed" "$(grep -E '^xdp [0-9]+ lo ' "$tmp/out")"
else
	ok "lo is not listed"
fi

# 4-9: each veth end, listed exactly when the kernel rule says so, with sysfs's numbers
expect_copy=0
features_seen=
for p in "${pairs[@]}"; do
	read -r a _ _ b _ _ <<<"$p"
	for i in "$a" "$b"; do
		line=$(grep -E "^xdp [0-9]+ $i " "$tmp/out")
		ifindex=$(in_ns cat "/sys/class/net/$i/ifindex")
		if [ "${txq[${peer[$i]}]}" -le "${rxq[$i]}" ]; then
			expect_copy=$((expect_copy + rxq[$i]))
			re="^xdp $ifindex $i features=0x([0-9a-f]+) zc=0 rxq=${rxq[$i]}\$"
			if [[ $line =~ $re ]]; then
				f=$((16#${BASH_REMATCH[1]}))
				features_seen+=" 0x${BASH_REMATCH[1]}"
				# BASIC 1 | REDIRECT 2 set, XSK_ZEROCOPY 8 clear
				if [ $((f & 3)) -eq 3 ] && [ $((f & 8)) -eq 0 ]; then
					ok "$i listed: ifindex $ifindex, rxq ${rxq[$i]}, copy mode (features 0x${BASH_REMATCH[1]})"
				else
					not_ok "$i listed with BASIC|REDIRECT and without XSK_ZEROCOPY" "$line"
				fi
			else
				not_ok "$i listed: ifindex $ifindex, rxq ${rxq[$i]}, zc=0" "got: '${line}'"
			fi
		else
			if [ -z "$line" ]; then
				ok "$i not listed (peer has ${txq[${peer[$i]}]} TX queues > its ${rxq[$i]} RX queues)"
			else
				not_ok "$i not listed (peer TX queues > own RX queues)" "got: $line"
			fi
		fi
	done
done

# 10-11: the counts of the auto formula
check "copy_queues=$expect_copy" [ "$(value copy_queues "$tmp/out")" = "$expect_copy" ]
check "zc_queues=0 (veth has no zero-copy)" [ "$(value zc_queues "$tmp/out")" = 0 ]

# 12: only listed interfaces are counted: xdp_interfaces agrees with the lines
n_lines=$(grep -cE '^xdp [0-9]+ ' "$tmp/out")
check "xdp_interfaces=$n_lines, the veth ends report the same features:$features_seen" \
	[ "$(value xdp_interfaces "$tmp/out")" = "$n_lines" -a \
	"$(echo "$features_seen" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)" -le 1 ]

# 13-15: without an include pattern no veth counts, and an exclude pattern wins over include
in_ns "$HW_DUMP" xdp >"$tmp/plain" 2>&1
check "virtual interfaces are not counted: copy_queues=0 without include" \
	[ "$(value copy_queues "$tmp/plain")" = 0 -a "$(value zc_queues "$tmp/plain")" = 0 ]
check "each veth is listed as physical=0 counted=0" \
	[ "$(grep -c '^xdp_sel v. physical=0 counted=0$' "$tmp/plain")" = "$n_lines" ]
in_ns "$HW_DUMP" --include 'v*' --exclude 'va' xdp >"$tmp/excl" 2>&1
check "exclude wins over include: va not counted, the others are" \
	[ "$(value copy_queues "$tmp/excl")" = "$((expect_copy - rxq[va]))" ]

# 16-17: what a login reads (HW_COUNTS): the counted interfaces alone, the same counts
in_ns "$HW_DUMP" --include 'v*' --exclude 'va' counts xdp >"$tmp/counts" 2>&1
check "counts: the same copy_queues, va left out, the other counted ends listed" \
	[ "$(value copy_queues "$tmp/counts")" = "$(value copy_queues "$tmp/excl")" -a \
	"$(grep -cE '^xdp [0-9]+ va ' "$tmp/counts")" = 0 -a \
	"$(grep -cE '^xdp [0-9]+ ' "$tmp/counts")" = "$(grep -c '^xdp_sel .* counted=1$' "$tmp/excl")" ]
in_ns "$HW_DUMP" counts xdp >"$tmp/counts0" 2>&1
check "counts without include: no veth listed, copy_queues=0" \
	[ "$(value xdp_interfaces "$tmp/counts0")" = 0 -a "$(value copy_queues "$tmp/counts0")" = 0 ]

# 18: the host's own interfaces: every listed one agrees with the host's sysfs
"$HW_DUMP" xdp >"$tmp/host" 2>&1
bad=
while read -r _ ifindex name features zc rxq; do
	f=$((${features#features=}))
	want_zc=$(((f >> 3) & 1))
	want_rxq=$(ls -d /sys/class/net/"$name"/queues/rx-* 2>/dev/null | wc -l)
	[ "$(cat /sys/class/net/"$name"/ifindex 2>/dev/null)" = "$ifindex" ] || bad+=" $name:ifindex"
	[ "$zc" = "zc=$want_zc" ] || bad+=" $name:$zc"
	[ "$rxq" = "rxq=$want_rxq" ] || bad+=" $name:$rxq/$want_rxq"
	# physical exactly when sysfs has a device link
	want_phys=0
	[ -e /sys/class/net/"$name"/device ] && want_phys=1
	grep -qx "xdp_sel $name physical=$want_phys counted=$want_phys" "$tmp/host" || bad+=" $name:physical"
done < <(grep -E '^xdp [0-9]+ ' "$tmp/host")
if [ "$(value xdp_status "$tmp/host")" = 0 ] && [ -z "$bad" ]; then
	ok "host namespace: $(grep -cE '^xdp [0-9]+ ' "$tmp/host") interface(s) agree with sysfs"
	grep -E '^xdp [0-9]+ ' "$tmp/host" | sed 's/^/# host: /'
else
	not_ok "host namespace: listed interfaces agree with sysfs" "mismatch:$bad" "$(cat "$tmp/host")"
fi

# 19-21: an interface that is up has its RX queues from the kernel's queue dump (Linux 6.8+),
# one that is down from sysfs.  Both give the same counts; with an empty directory over the
# sysfs queues of va and ve (a private mount namespace) the two ways part, which shows the way
# taken.
for i in va vb vc vd ve vf; do in_ns ip link set "$i" up; done
in_ns "$HW_DUMP" --include 'v*' xdp >"$tmp/up" 2>&1
check "interfaces up: the same interfaces and queue counts as down" \
	diff <(grep -E '^xdp [0-9]+ ' "$tmp/out") <(grep -E '^xdp [0-9]+ ' "$tmp/up")
mkdir "$tmp/empty"
# listed FILE "IFINDEX NAME RXQ"...: each interface listed in FILE with that RX queue count
listed() {
	local f=$1 w
	shift
	for w in "$@"; do
		# shellcheck disable=SC2086 # the words of w are the arguments
		set -- $w
		grep -qE "^xdp $1 $2 features=0x[0-9a-f]+ zc=0 rxq=$3\$" "$f" || return 1
	done
}
hidden() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	in_ns unshare --mount --propagation private sh -c \
		'mount --bind "$1" /sys/class/net/va/queues && mount --bind "$1" /sys/class/net/ve/queues &&
		exec "$2" --include "v*" xdp' sh "$tmp/empty" "$HW_DUMP"
}
va=$(in_ns cat /sys/class/net/va/ifindex) ve=$(in_ns cat /sys/class/net/ve/ifindex)
read -r kmaj kmin _ <<<"$(uname -r | tr '.-' '  ')"
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 8 ]; }; then
	hidden >"$tmp/hidden-up" 2>&1
	check "va and ve up, their sysfs queues hidden: rxq=${rxq[va]} and ${rxq[ve]} from the kernel's queue dump" \
		listed "$tmp/hidden-up" "$va va ${rxq[va]}" "$ve ve ${rxq[ve]}"
else
	skip "queue dump" "Linux $(uname -r) has no netdev queue dump (6.8+)"
fi
in_ns ip link set va down
hidden >"$tmp/hidden-down" 2>&1
check "va down, its sysfs queues hidden: rxq=0, from sysfs; ve up: rxq=${rxq[ve]}" \
	listed "$tmp/hidden-down" "$va va 0" "$ve ve ${rxq[ve]}"

done_testing
