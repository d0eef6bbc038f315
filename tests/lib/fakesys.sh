# shellcheck shell=bash
# fakesys.sh: fake RDMA devices and "physical" network interfaces in sysfs, for tests that run
# in a PRIVATE mount namespace (usually with a private network namespace and sysfs mounted
# again there: `mount -t sysfs sysfs /sys`).  Source it from bash; root only.
#
# Nothing here touches the host: every mount is made in the caller's mount namespace, and the
# functions refuse to run when that namespace is the host's.  The caller says which one the
# host's is by exporting FAKESYS_HOST_MNTNS (`readlink /proc/self/ns/mnt` before unshare) or,
# inside tests/e2e/sandbox.sh, SANDBOX_HOST_MNTNS.
#
# Functions
#   fakesys_unshare OPTION... -- COMMAND...
#                             (host side, before the namespaces) run COMMAND, in place of this
#                             shell, in the namespaces of `unshare OPTION...`, with
#                             FAKESYS_HOST_MNTNS (this namespace), top_srcdir and top_builddir
#                             exported; where unshare OPTION... is not permitted the whole test
#                             is skipped, or fails under CI=true (skip_all of tests/tap.sh)
#   fakesys_rdma SPEC...      replace /sys/class/infiniband by the devices SPEC... (none: an
#                             empty directory).  SPEC = DEV:PORT[,PORT...] (or DEV: for a
#                             device without ports), PORT = STATE[/LL] for ports 1, 2, ...
#                             STATE: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER, as a
#                             number or a name; LL: IB (default) or Eth.  E.g. mlx5_0:4/IB,1/IB
#                             is device mlx5_0 with port 1 ACTIVE and port 2 DOWN, InfiniBand;
#                             rxe0:4/Eth one ACTIVE RoCE port.  Each device gets node_type
#                             "1: CA", ports/N/state ("4: ACTIVE"), ports/N/phys_state and
#                             ports/N/link_layer ("InfiniBand" / "Ethernet").
#                             /sys/class becomes a tmpfs the first time: every class the kernel
#                             shows stays reachable there (each /sys/class/NAME is bind-mounted
#                             in it, so /sys/class/net lists live interfaces and its relative
#                             links ../../devices/... resolve as before).
#   fakesys_physical IFNAME   make the existing interface IFNAME look physical: its sysfs
#                             directory (/sys/devices/virtual/net/IFNAME, reached through the
#                             /sys/class/net/IFNAME link) is covered by a tmpfs holding a bind of
#                             every real entry (ifindex, queues/, ... stay the kernel's) plus a
#                             `device` link.  The listing of /sys/class/net stays live: new
#                             interfaces appear in it, and its inode numbers are the kernel's.
#                             Already physical or already done: nothing to do.
#   fakesys_reset             undo everything above (lazily: a process that still holds a
#                             file keeps it); also fine when nothing was done, or when /sys was
#                             mounted again since
# Variables: FAKESYS_TMPDIR (default $TMPDIR or /tmp): where the empty staging directories
#   for the mounts are made, and removed right after.

_fakesys_phys_mounts=()

fakesys_unshare() {
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	unshare "${opts[@]}" true 2>/dev/null || skip_all "unshare ${opts[*]} is not permitted here"
	FAKESYS_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
	export FAKESYS_HOST_MNTNS top_srcdir top_builddir
	exec unshare "${opts[@]}" "$@"
}

_fakesys_msg() { echo "fakesys: $*" >&2; }

_fakesys_check_ns() {
	local host=${FAKESYS_HOST_MNTNS:-${SANDBOX_HOST_MNTNS:-}}
	if [ "$(id -u)" != 0 ]; then
		_fakesys_msg "needs root"
		return 1
	fi
	if [ -z "$host" ] || [ "$(readlink /proc/self/ns/mnt)" = "$host" ]; then
		_fakesys_msg "not in a private mount namespace (set FAKESYS_HOST_MNTNS to the host's before unshare): refusing"
		return 1
	fi
}

# _fakesys_stage: an empty tmpfs on a new staging directory; prints the directory
_fakesys_stage() {
	local d
	d=$(mktemp -d "${FAKESYS_TMPDIR:-${TMPDIR:-/tmp}}/fakesys.XXXXXX") || return 1
	if ! mount -t tmpfs -o mode=0755,size=4m,nosuid,nodev,noexec fakesys "$d"; then
		rmdir "$d"
		return 1
	fi
	echo "$d"
}

# _fakesys_unstage DIR: after a failure, drop the staging tmpfs and its directory
_fakesys_unstage() {
	umount -R -l "$1" 2>/dev/null
	rmdir "$1" 2>/dev/null
	return 1
}

# /sys/class as a tmpfs with a bind of every class the kernel has
_fakesys_class() {
	local stage c n
	[ "$(stat -f -c %T /sys/class 2>/dev/null)" = tmpfs ] && return 0
	if [ "$(stat -f -c %T /sys 2>/dev/null)" != sysfs ]; then
		_fakesys_msg "/sys is not a sysfs"
		return 1
	fi
	# mount --move refuses a shared parent; only this namespace's view changes
	mount --make-rprivate /sys || return 1
	stage=$(_fakesys_stage) || return 1
	for c in /sys/class/*; do
		n=${c##*/}
		mkdir "$stage/$n" && mount --bind "$c" "$stage/$n" || { _fakesys_unstage "$stage"; return 1; }
	done
	mount --move "$stage" /sys/class || { _fakesys_unstage "$stage"; return 1; }
	rmdir "$stage"
}

_fakesys_state() { # STATE -> "4: ACTIVE"
	case ${1^^} in
	1 | DOWN) echo "1: DOWN" ;;
	2 | INIT) echo "2: INIT" ;;
	3 | ARMED) echo "3: ARMED" ;;
	4 | ACTIVE) echo "4: ACTIVE" ;;
	5 | ACTIVE_DEFER) echo "5: ACTIVE_DEFER" ;;
	*) return 1 ;;
	esac
}

_fakesys_ll() { # LL -> InfiniBand|Ethernet
	case ${1^^} in
	'' | IB | INFINIBAND) echo InfiniBand ;;
	ETH | ETHERNET | ROCE) echo Ethernet ;;
	*) return 1 ;;
	esac
}

# _fakesys_put FILE TEXT: a read-only attribute file
_fakesys_put() { printf '%s\n' "$2" >"$1" && chmod 0444 "$1"; }

fakesys_rdma() {
	local ib=/sys/class/infiniband spec dev ports p pt n st ll d
	_fakesys_check_ns || return 1
	# every spec is checked before anything changes
	for spec in "$@"; do
		if ! [[ $spec =~ ^[A-Za-z0-9_.-]+:([0-9A-Za-z_]+(/[A-Za-z]+)?(,[0-9A-Za-z_]+(/[A-Za-z]+)?)*)?$ ]]; then
			_fakesys_msg "bad spec '$spec' (DEV:STATE[/LL],...)"
			return 1
		fi
		ports=${spec#*:}
		IFS=, read -ra p <<<"$ports"
		for n in "${p[@]}"; do
			if ! _fakesys_state "${n%%/*}" >/dev/null || { [[ $n == */* ]] && ! _fakesys_ll "${n#*/}" >/dev/null; }; then
				_fakesys_msg "bad port '$n' in '$spec'"
				return 1
			fi
		done
	done
	_fakesys_class || return 1
	if mountpoint -q "$ib"; then
		umount -l "$ib" || return 1
	fi
	rm -rf "$ib" && mkdir -m 0755 "$ib" || return 1
	for spec in "$@"; do
		dev=${spec%%:*} ports=${spec#*:}
		d=$ib/$dev
		mkdir -p "$d/ports" || return 1
		_fakesys_put "$d/node_type" "1: CA" &&
			_fakesys_put "$d/node_guid" "0000:0000:0000:0001" || return 1
		IFS=, read -ra p <<<"$ports"
		n=0
		for pt in "${p[@]}"; do
			n=$((n + 1))
			st=$(_fakesys_state "${pt%%/*}") || return 1
			if [[ $pt == */* ]]; then ll=$(_fakesys_ll "${pt#*/}"); else ll=InfiniBand; fi
			mkdir "$d/ports/$n" || return 1
			_fakesys_put "$d/ports/$n/state" "$st" &&
				_fakesys_put "$d/ports/$n/link_layer" "$ll" || return 1
			if [ "${st%%:*}" = 4 ]; then
				_fakesys_put "$d/ports/$n/phys_state" "5: LinkUp"
			else
				_fakesys_put "$d/ports/$n/phys_state" "3: Disabled"
			fi || return 1
		done
	done
}

fakesys_physical() {
	local ifname=$1 real stage e n m
	_fakesys_check_ns || return 1
	if [ -z "$ifname" ] || [[ $ifname == */* ]] || [ ! -e "/sys/class/net/$ifname" ]; then
		_fakesys_msg "no interface '$ifname' in /sys/class/net"
		return 1
	fi
	real=$(readlink -f "/sys/class/net/$ifname") || return 1
	for m in "${_fakesys_phys_mounts[@]}"; do
		[ "$m" = "$real" ] && mountpoint -q "$m" && return 0
	done
	[ -e "$real/device" ] && return 0
	mount --make-rprivate /sys || return 1
	stage=$(_fakesys_stage) || return 1
	for e in "$real"/* "$real"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		n=${e##*/}
		if [ -L "$e" ]; then
			# relative links (subsystem -> ../../../../class/net) resolve the same from here
			ln -s "$(readlink "$e")" "$stage/$n"
		elif [ -d "$e" ]; then
			mkdir "$stage/$n" && mount --bind "$e" "$stage/$n"
		else
			: >"$stage/$n" && mount --bind "$e" "$stage/$n"
		fi || { _fakesys_unstage "$stage"; return 1; }
	done
	# a parent device, as a PCI or virtio NIC has: /sys/devices/virtual/net/IF/../../../platform
	ln -s ../../../platform "$stage/device" || { _fakesys_unstage "$stage"; return 1; }
	mount --move "$stage" "$real" || { _fakesys_unstage "$stage"; return 1; }
	rmdir "$stage"
	_fakesys_phys_mounts+=("$real")
}

fakesys_reset() {
	local m i
	_fakesys_check_ns || return 1
	for ((i = ${#_fakesys_phys_mounts[@]} - 1; i >= 0; i--)); do
		m=${_fakesys_phys_mounts[$i]}
		# only our own tmpfs (sysfs may have been mounted again over it since)
		if [ "$(stat -f -c %T "$m" 2>/dev/null)" = tmpfs ]; then
			umount -R -l "$m" 2>/dev/null
		fi
	done
	_fakesys_phys_mounts=()
	if [ "$(stat -f -c %T /sys/class 2>/dev/null)" = tmpfs ]; then
		umount -R -l /sys/class || return 1
	fi
	return 0
}
