#!/bin/bash
# contrib/udev/90-rdmalimit.rules through `udevadm test` (which reads the rules and prints the
# RUN lines, it runs nothing): on add and remove of a physical network interface the cache
# unit is restarted, for lo and veth (/devices/virtual/) it is not; RDMA devices where the
# host has any.  In a private mount namespace whose only rules directory holds this rule,
# with a tmpfs /run (udevadm test writes /run/udev/data; /run/systemd/system is made there so
# the rule's TEST sees a systemd host).  Root only; needs udevadm (package udev).
set -u

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

RULE=$top_srcdir/contrib/udev/90-rdmalimit.rules
UNIT=rdmalimit-cache.service

if [ "${RDMALIMIT_UDEV_INNER:-}" != 1 ]; then
	require_root "udev rule test"
	command -v udevadm >/dev/null ||
		skip_all "udevadm is missing (package udev)" "udevadm is missing (./run deps installs the udev package)"
	export RDMALIMIT_UDEV_INNER=1 top_srcdir top_builddir
	exec unshare --mount --propagation private "$BASH" "$0"
fi

no_plan
bail() { echo "Bail out! $*"; exit 99; }
mount --make-rprivate / || bail "mount --make-rprivate / failed"
mount -t tmpfs -o mode=0755,size=16m rdmalimit-udev-run /run || bail "cannot mount a tmpfs over /run"
mkdir -p /run/systemd/system /run/rules || bail "mkdir in /run failed"
install -m 0644 "$RULE" /run/rules/ || bail "cannot copy $RULE"
for d in /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d /usr/local/lib/udev/rules.d; do
	[ -d "$d" ] || continue
	mount --bind /run/rules "$d" || bail "cannot bind the rules directory over $d"
done

# runs ACTION SYSPATH: how many RUN lines of udevadm test restart the unit
runs() {
	udevadm test --action="$1" "$2" >/run/out 2>&1
	grep -c "^run: '/bin/systemctl --no-block restart $UNIT'" /run/out
}

udevadm test --action=add /sys/class/net/lo >/run/out 2>&1
check "udevadm reads the rule" grep -q 'Reading rules file: .*90-rdmalimit.rules' /run/out
if grep -iE 'invalid|unknown key|failed to parse|error' /run/out | grep -v 'Failed to open device' >/run/bad; then
	fail "the rule parses without complaint"
	sed 's/^/#   /' /run/bad
else
	ok "the rule parses without complaint"
fi

for a in add remove move; do
	check "lo $a: no restart" [ "$(runs $a /sys/class/net/lo)" = 0 ]
done

phys=
for n in /sys/class/net/*; do
	case $(readlink -f "$n") in /sys/devices/virtual/*) ;; *) phys=${n##*/}; break ;; esac
done
if [ -n "$phys" ]; then
	for a in add remove move; do
		check "physical $phys ($(readlink -f "/sys/class/net/$phys" | cut -d/ -f4-5)) $a: one restart" \
			[ "$(runs $a "/sys/class/net/$phys")" = 1 ]
	done
	check "physical $phys change: no restart" [ "$(runs change "/sys/class/net/$phys")" = 0 ]
	# without systemd as init, nothing is run
	rmdir /run/systemd/system
	check "physical $phys add without systemd: no restart" [ "$(runs add "/sys/class/net/$phys")" = 0 ]
	mkdir /run/systemd/system
else
	skip_ci "a physical network interface to test the rule on (none here)"
fi

# a veth pair in a network namespace of its own, with its sysfs
if unshare --net --mount "$BASH" -c '
	mount -t sysfs rdmalimit-udev-sysfs /sys &&
	ip link add rlu0 type veth peer name rlu1 || exit 2
	for a in add remove; do
		udevadm test --action=$a /sys/class/net/rlu0 2>&1 | grep -q "^run: .*'"$UNIT"'" && exit 1
	done
	exit 0'; then
	ok "veth add/remove: no restart"
else
	fail "veth add/remove: no restart"
fi

# RDMA devices: where the host has some, each one restarts the unit on add and remove
n=0
for c in /sys/class/infiniband /sys/class/infiniband_verbs; do
	for d in "$c"/*; do
		[ -e "$d" ] || continue
		n=$((n + 1))
		check "${d#/sys/class/} add: one restart" [ "$(runs add "$d")" = 1 ]
		check "${d#/sys/class/} remove: one restart" [ "$(runs remove "$d")" = 1 ]
	done
done
[ "$n" -gt 0 ] || skip "no RDMA device here for udevadm test"
# and the rule says so (udevadm test cannot be given a device the kernel does not have)
check "the rule restarts the unit for the infiniband and infiniband_verbs subsystems, physical or not" \
	grep -Eq '^SUBSYSTEM=="infiniband\|infiniband_verbs", \\$' "$RULE"

done_testing
