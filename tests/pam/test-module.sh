#!/bin/bash
# pam_rdmalimit.so in real PAM sessions: tests/pam/pam-run calls pam_start_confdir() +
# pam_open_session() with a stack that loads the built module by absolute path, and reports
# the RLIMIT_MEMLOCK the session process has afterwards, the PAM conversation and what the
# module sent to /dev/log.
#
# Root only (the policy must be root-owned).  Everything runs re-executed inside
# `unshare --mount --net`:
#   - a private /dev (tmpfs with null, zero, urandom, tty bind-mounted, rbind over /dev) so
#     pam-run can bind /dev/log; the host's /dev (devtmpfs, shared) is never written;
#   - fake users and groups: generated passwd/group/nsswitch.conf bind-mounted over /etc's
#     (the host's files are untouched);
#   - a private network namespace (only lo; the XDP tests add veth pairs) with its own sysfs,
#     so the module counts the queues of the namespace's interfaces;
#   - without CAP_SYS_RESOURCE (capsh --drop) so raising the hard limit fails with EPERM as
#     on the machines we test on, and with a hard memlock limit of 8 MiB (lowered to it when
#     higher; the tests need at least 8 MiB).
# Every session starts from soft 64 KiB / hard = that hard limit.
#
# Small predicates are defined next to their use and called through expect_true:
# shellcheck disable=SC2317
set -u

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
require_fake_verbs
# shellcheck source=tests/lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"

: "${PAM_MODULE:=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so}"
PAM_RUN=$top_builddir/tests/pam/pam-run
DLOPEN_MODULE=$top_builddir/tests/pam/dlopen-module
HW_DUMP=$top_builddir/tests/hw/hw-dump
FAKE_DIR=$top_builddir/tests/fake-ibverbs/lib
SUPP=$top_srcdir/tests/pam/valgrind.supp

# ---------------------------------------------------------------------------------------------
# Outside: check what is needed, then re-run this script in the namespaces.
if [ "${RDMALIMIT_PAM_TEST_INNER:-}" != 1 ]; then
	require_root "pam_rdmalimit module tests"
	require_built "$PAM_MODULE" "$PAM_RUN" "$DLOPEN_MODULE" "$FAKE_DIR/libibverbs.so.1"
	export RDMALIMIT_PAM_TEST_INNER=1 PAM_MODULE
	if command -v capsh >/dev/null; then
		# capsh -- ARGS runs /bin/bash ARGS with cap_sys_resource out of the bounding set
		fakesys_unshare --mount --net -- capsh --drop=cap_sys_resource -- "$0"
	fi
	fakesys_unshare --mount --net -- "$BASH" "$0"
fi

# ---------------------------------------------------------------------------------------------
# Inside the namespaces.
umask 022
no_plan

bail() {
	echo "Bail out! $*"
	exit 99
}

tmp=$(mktemp -d /tmp/rdmalimit-pam-test.XXXXXX) || bail "mktemp failed"
# shellcheck disable=SC2317 # called from the trap
cleanup() {
	# the mounts vanish with the namespace; detach the private /dev before removing the tree
	umount -l "$tmp/dev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Nothing may propagate to the host.
mount --make-rprivate / || bail "mount --make-rprivate / failed"

# Private /dev.  Bash's <(...) needs /dev/fd.
if ! mkdir "$tmp/dev" || ! mount -t tmpfs -o mode=755,size=1m rdmalimit-dev "$tmp/dev"; then
	bail "cannot mount a tmpfs for the private /dev"
fi
for d in null zero urandom tty; do
	if ! touch "$tmp/dev/$d" || ! mount --bind "/dev/$d" "$tmp/dev/$d"; then
		bail "cannot bind /dev/$d"
	fi
done
ln -s /proc/self/fd "$tmp/dev/fd"
ln -s /proc/self/fd/0 "$tmp/dev/stdin"
ln -s /proc/self/fd/1 "$tmp/dev/stdout"
ln -s /proc/self/fd/2 "$tmp/dev/stderr"
mount --rbind "$tmp/dev" /dev || bail "cannot rbind the private /dev over /dev"
[ "$(cd /dev && echo *)" = "fd null stderr stdin stdout tty urandom zero" ] ||
	bail "the private /dev is not in place: $(cd /dev && echo *)"

# A private /run: no hardware cache of the host (/run/rdmalimit/hw.cache, written by
# `rdmalimits probe --save`) stands in for the live probe, and no nscd socket is reachable.
mount -t tmpfs -o mode=755,size=1m rdmalimit-run /run || bail "cannot mount a private /run"

# Fake users and groups:
#   ann   member of rdma_users by the group's member list (primary group ann)
#   bob   member of rdma_users by primary gid only
#   carl  member of rdma_users and hpc (two groups with rules) and of small
#   dave  has a user rule, and is a member of rdma_users and hpc too
#   eve   member of no group with a rule
#   fred  has a user rule and no group with a rule
# and a group with a rule that nobody is in.
cat >"$tmp/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
ann:x:2001:2001:member by gr_mem:/nonexistent:/usr/sbin/nologin
bob:x:2002:3000:member by primary gid:/nonexistent:/usr/sbin/nologin
carl:x:2003:2003:member of two groups:/nonexistent:/usr/sbin/nologin
dave:x:2004:2004:user rule:/nonexistent:/usr/sbin/nologin
eve:x:2005:2005:non-member:/nonexistent:/usr/sbin/nologin
fred:x:2006:2006:user rule only:/nonexistent:/usr/sbin/nologin
EOF
cat >"$tmp/group" <<'EOF'
root:x:0:
nogroup:x:65534:
ann:x:2001:
carl:x:2003:
dave:x:2004:
eve:x:2005:
fred:x:2006:
rdma_users:x:3000:ann,carl,dave
hpc:x:3001:carl,dave
small:x:3002:carl
empty:x:3003:
EOF
printf 'passwd: files\ngroup: files\nshadow: files\n' >"$tmp/nsswitch.conf"
for f in passwd group nsswitch.conf; do
	mount --bind "$tmp/$f" "/etc/$f" || bail "cannot bind $tmp/$f over /etc/$f"
done
[ "$(id -Gn carl | tr ' ' '\n' | sort | tr '\n' ' ')" = "carl hpc rdma_users small " ] ||
	bail "fake groups are not visible through NSS: $(id carl 2>&1)"

# The namespace's own sysfs: /sys/class/net then shows its interfaces.
mount -t sysfs rdmalimit-sysfs /sys || bail "cannot mount sysfs in the network namespace"
# RDMA devices are made in this namespace's sysfs (tests/lib/fakesys.sh): the module counts
# ports from sysfs and never loads libibverbs

# The hard limit, and CAP_SYS_RESOURCE (bit 24 of CapEff).
hard_kib=$(ulimit -H -l)
if [ "$hard_kib" = unlimited ] || [ "$hard_kib" -gt 8192 ]; then
	if ! ulimit -S -l 8192 || ! ulimit -H -l 8192; then
		bail "cannot lower the hard memlock limit to 8 MiB"
	fi
	hard_kib=8192
fi
[ "$hard_kib" -ge 8192 ] || bail "the hard memlock limit is $hard_kib KiB; these tests need 8 MiB"
K=1024
M=$((1024 * 1024))
HARD=$((hard_kib * K))
START="$((64 * K)):$HARD"
capeff=$(sed -n 's/^CapEff:\s*//p' /proc/self/status)
if (((16#$capeff >> 24) & 1)); then
	has_sys_resource=true
else
	has_sys_resource=false
fi
diag "hard memlock limit $HARD bytes; CAP_SYS_RESOURCE: $has_sys_resource; kernel $(uname -r)"

# ---------------------------------------------------------------------------------------------
# Helpers
mkdir "$tmp/pam.d" "$tmp/policy"
# libpam reads CONFDIR/other for the management groups a service leaves out
printf '%s required pam_deny.so\n' auth account password session >"$tmp/pam.d/other"
SERVICE=rdmalimit-test

# policy NAME: the policy text from stdin into $tmp/policy/NAME.conf (root, 0644); prints the path
policy() {
	local f=$tmp/policy/$1.conf
	cat >"$f" && chown 0:0 "$f" && chmod 0644 "$f"
	echo "$f"
}

# line_of FILE REGEX: the line number of the first line matching
line_of() { grep -n -m1 -E "$2" "$1" | cut -d: -f1; }

# rdma_scenario NAME: the RDMA devices sysfs shows (and the fake libibverbs lists, for the
# tool), by name: none and empty (no device), one (mlx5_0: port 1 ACTIVE, port 2 DOWN), two
# (and mlx5_1 with an ACTIVE Ethernet port), queryfail (mlx5_0 without readable ports)
rdma_scenario_now=
rdma_scenario() {
	[ "$1" = "$rdma_scenario_now" ] && return 0
	case $1 in
	none | empty) fakesys_rdma ;;
	one) fakesys_rdma mlx5_0:4/IB,1/IB ;;
	two) fakesys_rdma mlx5_0:4/IB,1/IB mlx5_1:4/Eth ;;
	queryfail) fakesys_rdma mlx5_0: ;;
	*) bail "unknown RDMA scenario $1" ;;
	esac || bail "fakesys_rdma $1 failed"
	rdma_scenario_now=$1
}

# session USER CONF [MODULE ARGS...]: one PAM session of USER with the module reading CONF.
# Environment: SCENARIO (RDMA devices in sysfs, and the fake libibverbs the tool may load;
# default none), START (SOFT:HARD), RUN (a wrapper command, e.g. valgrind), PAMRUN_ARGS.
# Output in $tmp/out, stderr in $tmp/err, exit status of pam-run in $run_rc.
session() {
	local user=$1 conf=$2
	shift 2
	last_user=$user last_conf=$conf last_scenario=${SCENARIO:-none} last_start=${START_AT:-$START}
	last_cache=()
	local arg
	for arg in "$@"; do
		case $arg in cache=*) last_cache=(--cache "${arg#cache=}") ;; esac
	done
	rdma_scenario "${SCENARIO:-none}"
	printf 'session [success=ok ignore=ignore default=die] %s conf=%s%s\nsession required pam_permit.so\n' \
		"$PAM_MODULE" "$conf" "${*:+ $*}" >"$tmp/pam.d/$SERVICE"
	# shellcheck disable=SC2086 # RUN and PAMRUN_ARGS are word lists
	env LD_LIBRARY_PATH="$FAKE_DIR" FAKE_IBVERBS_SCENARIO="${SCENARIO:-none}" \
		timeout "${TIMEOUT:-10}" ${RUN:-} "$PAM_RUN" --confdir "$tmp/pam.d" --service "$SERVICE" \
		--user "$user" --memlock "${START_AT:-$START}" --syslog ${PAMRUN_ARGS:-} \
		>"$tmp/out" 2>"$tmp/err"
	run_rc=$?
}

rc() { sed -n 's/^rc=//p' "$tmp/out"; }
soft() { sed -n 's/^soft=\([^ ]*\) hard=.*/\1/p' "$tmp/out"; }
hard() { sed -n 's/^soft=[^ ]* hard=//p' "$tmp/out"; }
# logs [LEVEL]: the module's log lines (text only), of LEVEL when given
logs() { sed -n "s/^log: ${1:-[a-z?]*} //p" "$tmp/out"; }
infos() { sed -n 's/^info: //p' "$tmp/out"; }
count() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi; }

show() {
	sed 's/^/#   out: /' "$tmp/out"
	sed 's/^/#   err: /' "$tmp/err"
	[ "$run_rc" = 0 ] || echo "#   pam-run exit status $run_rc"
}

# expect DESC RC SOFT HARD: the session's rc and limits (and pam-run ran cleanly)
expect() {
	local got want pred
	got="rc=$(rc) soft=$(soft) hard=$(hard) exit=$run_rc"
	want="rc=$2 soft=$3 hard=$4 exit=0"
	if [ "$got" = "$want" ]; then
		ok "$1"
	else
		fail "$1"
		diag "want: $want" "got:  $got"
		show
	fi
	# explain predicts what the module did (one session from START, with the same NSS,
	# hardware and policy)
	if [ "$(rc)" = PAM_SUCCESS ] && [ -z "${PAMRUN_ARGS:-}" ] && getent passwd "$last_user" >/dev/null; then
		pred=$(env LD_LIBRARY_PATH="$FAKE_DIR" FAKE_IBVERBS_SCENARIO="$last_scenario" \
			"$RDMALIMITS" explain "$last_user" --json --conf "$last_conf" "${last_cache[@]}" 2>/dev/null |
			python3 "$top_srcdir/tests/pam/explain-model.py" "$last_start")
		if [ "$pred" = "$(soft) $(hard)" ]; then
			ok "... explain predicts it ($pred)"
		else
			fail "... explain predicts it"
			diag "explain: ${pred:-nothing}" "session: $(soft) $(hard)"
		fi
	fi
}

# expect_log DESC FIXED-STRING [LEVEL]: some log line (of LEVEL) contains the string
expect_log() {
	if logs "${3:-}" | grep -qF -- "$2"; then
		ok "$1"
	else
		fail "$1"
		diag "no ${3:-} log line contains: $2"
		show
	fi
}

# expect_true DESC COMMAND...: like check, with the output shown on failure
expect_true() {
	local d=$1
	shift
	if "$@"; then
		ok "$d"
	else
		fail "$d"
		show
	fi
}

S64K=$((64 * K))

# =============================================================================================
# Static rules, membership, precedence
base=$(policy static <<'EOF'
version = 1;
rules = (
  { group = "rdma_users"; memlock = "4M"; },
  { group = "hpc";        memlock = "6M"; },
  { group = "small";      memlock = "1M"; },
  { group = "empty";      memlock = "7M"; },
  { user  = "dave";       memlock = "2M"; },
  { user  = "fred";       memlock = "3M"; hard = "5M"; }
);
EOF
)
l_rdma=$(line_of "$base" 'group = "rdma_users"')

session ann "$base"
expect "group rule 4M via the member list: soft 4 MiB, hard unchanged" PAM_SUCCESS $((4 * M)) "$HARD"
one_info_line() {
	[ "$(logs)" = "pam_rdmalimit($SERVICE:session): user=ann rule group rdma_users ($base:$l_rdma): memlock soft=4 MiB hard=8 MiB (fixed value)" ] &&
		[ "$(count "$(logs info)")" = 1 ]
}
expect_true "one info line naming user, rule and values, nothing else logged" one_info_line
expect_true "no conversation message when the target is reached" [ -z "$(infos)" ]

session bob "$base"
expect "member by primary gid counts" PAM_SUCCESS $((4 * M)) "$HARD"

session carl "$base"
expect "largest of the matching group rules wins (4M, 6M, 1M -> 6M)" PAM_SUCCESS $((6 * M)) "$HARD"
expect_log "... and the log names the winning rule" "user=carl rule group hpc ($base:$(line_of "$base" 'group = "hpc"'))" info

reversed=$(policy reversed <<'EOF'
version = 1;
rules = (
  { group = "small";      memlock = "1M"; },
  { group = "hpc";        memlock = "6M"; },
  { group = "rdma_users"; memlock = "4M"; }
);
EOF
)
session carl "$reversed"
expect "largest wins whatever the order in the file" PAM_SUCCESS $((6 * M)) "$HARD"

session dave "$base"
expect "user rule (2M) beats the larger group rules (4M, 6M)" PAM_SUCCESS $((2 * M)) "$HARD"
expect_log "... and the log names the user rule" "user=dave rule user dave ($base:$(line_of "$base" 'user  = "dave"'))" info

session fred "$base"
expect "hard 5M below the current hard limit: soft 3 MiB, hard not lowered" PAM_SUCCESS $((3 * M)) "$HARD"

session eve "$base"
expect "non-member: limits unchanged, session succeeds (PAM_IGNORE)" PAM_SUCCESS "$S64K" "$HARD"
expect_true "non-member: nothing logged without debug" [ -z "$(logs)" ]

session eve "$base" strict
expect "non-member with strict: still succeeds (no rule is not an error)" PAM_SUCCESS "$S64K" "$HARD"

session nosuchuser "$base"
expect "unknown user: session succeeds, limits unchanged" PAM_SUCCESS "$S64K" "$HARD"
expect_log "... and it is logged" "cannot look up user nosuchuser" err
session nosuchuser "$base" strict
session_failed() { [ "$run_rc" = 0 ] && [ -n "$(rc)" ] && [ "$(rc)" != PAM_SUCCESS ]; }
expect_true "unknown user with strict: the session fails" session_failed
session "" "$base"
expect "empty user name: session succeeds, limits unchanged" PAM_SUCCESS "$S64K" "$HARD"
expect_log "... and it is logged" "cannot determine the user name" err
expect_true "... once, and nothing else is looked up" [ "$(count "$(logs err)")" = 1 ]
session "" "$base" strict
expect_true "empty user name with strict: the session fails" session_failed
# no user at all (PAM_USER never set): the same, not a crash
PAMRUN_ARGS=--no-user session "" "$base"
expect "no user name: session succeeds, limits unchanged" PAM_SUCCESS "$S64K" "$HARD"
expect_log "... and it is logged" "cannot determine the user name" err
PAMRUN_ARGS=--no-user session "" "$base" strict
expect_true "no user name with strict: the session fails" session_failed
# every argument is read, not only those before "debug"
session nosuchuser "$base" debug strict
expect_true "unknown user with debug strict: the session fails" session_failed

# never lower unless lower = true
START_AT="$((6 * M)):$HARD" session ann "$base"
expect "soft 6 MiB above the rule's 4M: not lowered" PAM_SUCCESS $((6 * M)) "$HARD"
expect_log "... logged as already so" "memlock soft=6 MiB hard=8 MiB (already so)" info

lower=$(policy lower <<'EOF'
version = 1;
lower = true;
rules = (
  { group = "rdma_users"; memlock = "4M"; hard = "4M"; },
  { group = "hpc";        memlock = "2M"; }
);
EOF
)
session ann "$lower"
expect "lower = true, hard \"4M\": hard lowered to 4 MiB too" PAM_SUCCESS $((4 * M)) $((4 * M))
START_AT="$((6 * M)):$HARD" session ann "$lower"
expect "lower = true: soft 6 MiB lowered to 4 MiB" PAM_SUCCESS $((4 * M)) $((4 * M))
session carl "$lower"
expect "lower = true, no hard: hard = soft (largest group rule 4M)" PAM_SUCCESS $((4 * M)) $((4 * M))
session eve "$lower"
expect "lower = true, non-member: unchanged" PAM_SUCCESS "$S64K" "$HARD"

# module arguments
session ann "$base" bogus
expect "unknown option: ignored, the session goes on" PAM_SUCCESS $((4 * M)) "$HARD"
expect_log "... and logged" "unknown option: bogus, ignoring" err

session eve "$base" debug
expect_log "debug: a non-member's session logs a debug line" "user=eve: no rule of $base matches" debug
session ann "$base" debug
expect_true "debug, static rule: still exactly one info line" [ "$(count "$(logs info)")" = 1 ]

# =============================================================================================
# auto with RDMA ports from sysfs; the fake libibverbs is on LD_LIBRARY_PATH and must never be
# loaded by the module
auto=$(policy auto <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "0"; };
rules = (
  { group = "rdma_users"; memlock = "auto"; },
  { group = "small";      memlock = "1M"; }
);
EOF
)
fallback=$(policy fallback <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "0"; fallback = "3M"; };
rules = ( { group = "rdma_users"; memlock = "auto"; } );
EOF
)

SCENARIO=none session ann "$auto"
expect "auto, no RDMA hardware (none): untouched" PAM_SUCCESS "$S64K" "$HARD"
expect_log "... logged" "auto found no RDMA/AF_XDP hardware and the policy has no fallback: memlock left unchanged" info
SCENARIO=empty session ann "$auto"
expect "auto, an empty device list: untouched" PAM_SUCCESS "$S64K" "$HARD"
SCENARIO=none session ann "$fallback"
expect "auto, no hardware, fallback 3M: 3 MiB" PAM_SUCCESS $((3 * M)) "$HARD"
expect_log "... logged as the fallback" "auto: no RDMA/AF_XDP hardware found, fallback 3 MiB" info

rm -f "$tmp/marker"
FAKE_IBVERBS_MARKER=$tmp/marker SCENARIO=one session ann "$auto"
expect "auto, one active port: base 1M + 2M = 3 MiB" PAM_SUCCESS $((3 * M)) "$HARD"
expect_log "... with the counts in the log" "(auto: 1 active RDMA port, 0 zero-copy and 0 copy-mode XDP RX queues;" info
expect_log "... and that max_mr_size is unknown without a cache" "the max_mr_size cap is unknown (no valid cache" info
check "... the module did not load libibverbs (ports from sysfs)" [ ! -e "$tmp/marker" ]
rm -f "$tmp/marker"
FAKE_IBVERBS_MARKER=$tmp/marker SCENARIO=one session carl "$base"
expect "a static rule with the fake library around" PAM_SUCCESS $((6 * M)) "$HARD"
check "... does not load libibverbs (no auto rule decides)" [ ! -e "$tmp/marker" ]
rm -f "$tmp/marker"

SCENARIO=two session ann "$auto"
expect "auto, two active ports: 1M + 2 x 2M = 5 MiB" PAM_SUCCESS $((5 * M)) "$HARD"
SCENARIO=two session carl "$auto"
expect "auto (5M) vs a 1M group rule: the larger wins" PAM_SUCCESS $((5 * M)) "$HARD"

SCENARIO=queryfail session ann "$auto"
expect "auto, a device whose ports cannot be read: contributes no port, untouched" PAM_SUCCESS "$S64K" "$HARD"
expect_true "... and what the module did is logged (one info line)" [ "$(count "$(logs info)")" = 1 ]
SCENARIO=queryfail session ann "$fallback"
expect "auto, unreadable ports with fallback 3M: 3 MiB" PAM_SUCCESS $((3 * M)) "$HARD"
SCENARIO=queryfail session ann "$auto" debug
expect_log "debug: the hardware found is logged" "1 RDMA device(s), 0 active port(s)" debug

SCENARIO=two session ann "$auto" debug
expect "auto with debug: same result" PAM_SUCCESS $((5 * M)) "$HARD"
expect_log "debug: the probe's summary is logged at debug level" "2 RDMA device(s), 2 active port(s)" debug
SCENARIO=two session ann "$auto"
expect_true "without debug: no debug lines" [ -z "$(logs debug)" ]

bounds=$(policy bounds <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "0"; };
rules = (
  { group = "rdma_users"; memlock = "auto"; minimum = "6M"; },
  { user  = "dave";       memlock = "auto"; }
);
EOF
)
SCENARIO=one session ann "$bounds"
expect "auto 3M with minimum 6M: 6 MiB" PAM_SUCCESS $((6 * M)) "$HARD"
SCENARIO=two session carl "$(policy bounds-hpc <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "0"; };
rules = ( { group = "hpc"; memlock = "auto"; maximum = "2M"; } );
EOF
)"
expect "auto 5M with maximum 2M: 2 MiB" PAM_SUCCESS $((2 * M)) "$HARD"
SCENARIO=none session dave "$bounds"
expect "a user rule whose auto finds nothing: untouched (group rules do not apply)" \
	PAM_SUCCESS "$S64K" "$HARD"
expect_log "... logged with the user rule" "user=dave rule user dave" info

# ram_share: MemTotal from /proc/meminfo now; the double arithmetic of lib/login/policy.c (a share
# of MemTotal, truncated), never below the 64 KiB floor (POLICY_MIN_BYTES)
mem_total=$(($(sed -n 's/^MemTotal:\s*\([0-9]*\) kB$/\1/p' /proc/meminfo) * K))
for share in 0.00001 0.0000000001; do
	f=$(policy "share-$share" <<EOF
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "0"; ram_share = $share; };
rules = ( { group = "rdma_users"; memlock = "auto"; } );
EOF
)
	cap=$(awk -v m="$mem_total" -v s="$share" 'BEGIN { printf "%.0f", int(m * s) }')
	want=$((5 * M))
	[ "$cap" -lt "$want" ] && want=$cap
	[ "$want" -lt "$S64K" ] && want=$S64K
	SCENARIO=two session ann "$f"
	expect "ram_share $share of MemTotal $mem_total: auto 5M clamped to $want" PAM_SUCCESS "$want" "$HARD"
done

# =============================================================================================
# auto with AF_XDP: veth pairs in this network namespace.  veth has XDP features (copy mode)
# only while its peer has no more TX queues than it has RX queues
# (drivers/net/veth.c veth_set_xdp_features); expectations come from sysfs.  veths are
# virtual: they count only because the policy includes them (v*, c*); $xdp_phys counts
# physical interfaces only.
xdp=$(policy xdp <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "256K"; include = [ "v*", "c*" ]; };
rules = ( { group = "rdma_users"; memlock = "auto"; } );
EOF
)
xdp_phys=$(policy xdp-phys <<'EOF'
version = 1;
hardware = { base = "1M"; rdma_port = "2M"; xsk_queue = "0"; xsk_copy_queue = "256K"; };
rules = ( { group = "rdma_users"; memlock = "auto"; } );
EOF
)
SCENARIO=none session ann "$xdp"
expect "AF_XDP auto, only lo: untouched" PAM_SUCCESS "$S64K" "$HARD"

pairs=("va 4 2 vb 2 2" "vc 3 3 vd 1 1")
setup_ok=true
for p in "${pairs[@]}"; do
	read -r a arx atx b brx btx <<<"$p"
	ip link add "$a" numrxqueues "$arx" numtxqueues "$atx" type veth \
		peer name "$b" numrxqueues "$brx" numtxqueues "$btx" 2>>"$tmp/ip.err" || setup_ok=false
	ip link set "$a" up 2>>"$tmp/ip.err" && ip link set "$b" up 2>>"$tmp/ip.err" || setup_ok=false
done
if ! $setup_ok; then
	fail "veth pairs created"
	sed 's/^/# /' "$tmp/ip.err"
else
	# q IF rx|tx: the number of queues sysfs shows
	q() { find /sys/class/net/"$1"/queues/ -mindepth 1 -maxdepth 1 -name "$2-*" 2>/dev/null | wc -l; }
	copyq=0 xdp_ifs=
	for p in "${pairs[@]}"; do
		read -r a _ _ b _ _ <<<"$p"
		for pr in "$a $b" "$b $a"; do
			read -r i peer <<<"$pr"
			if [ "$(q "$peer" tx)" -le "$(q "$i" rx)" ]; then
				copyq=$((copyq + $(q "$i" rx)))
				xdp_ifs+="$i "
			fi
		done
	done
	diag "XDP-capable by the veth rule: $xdp_ifs($copyq RX queues)"
	# what the probe sees must be the same interfaces
	if [ -x "$HW_DUMP" ]; then
		"$HW_DUMP" --include 'v*' xdp >"$tmp/hw" 2>&1
		if grep -qx 'xdp_status=-EOPNOTSUPP' "$tmp/hw"; then
			skip "AF_XDP auto: the kernel has no netdev family"
			copyq=
		else
			seen=$(awk '$1 == "xdp" { print $3 }' "$tmp/hw" | sort | tr '\n' ' ')
			# shellcheck disable=SC2086 # a list of names
			want_ifs=$(printf '%s\n' $xdp_ifs | sort | tr '\n' ' ')
			if [ "$seen" = "$want_ifs" ]; then
				ok "the probe (hw-dump) lists the XDP-capable veth ends: $seen"
			else
				fail "the probe (hw-dump) lists the XDP-capable veth ends"
				diag "want: $want_ifs" "seen: $seen"
				sed 's/^/#   /' "$tmp/hw"
			fi
		fi
	fi
	if [ -n "$copyq" ]; then
		want=$((1 * M + copyq * 256 * K))
		SCENARIO=none session ann "$xdp"
		expect "AF_XDP auto: 1M + $copyq copy-mode queues x 256K = $want" PAM_SUCCESS "$want" "$HARD"
		expect_log "... counts in the log" "0 active RDMA ports, 0 zero-copy and $copyq copy-mode XDP RX queues" info
		want=$((3 * M + copyq * 256 * K))
		SCENARIO=one session ann "$xdp"
		expect "AF_XDP + one RDMA port: 1M + 2M + $copyq x 256K = $want" PAM_SUCCESS "$want" "$HARD"
		SCENARIO=none session ann "$xdp_phys"
		expect "the same veths without an include pattern: virtual, not counted, untouched" \
			PAM_SUCCESS "$S64K" "$HARD"
		# one veth end made to look physical (a sysfs device link): counted without include
		if fakesys_physical va; then
			want=$((1 * M + $(q va rx) * 256 * K))
			SCENARIO=none session ann "$xdp_phys"
			expect "a physical interface counts without include: 1M + $(q va rx) x 256K" PAM_SUCCESS "$want" "$HARD"
			fakesys_reset
			rdma_scenario_now=
		else
			fail "fakesys_physical va"
		fi
	fi
	for p in "${pairs[@]}"; do
		read -r a _ <<<"$p"
		ip link del "$a" 2>/dev/null
	done
fi

# =============================================================================================
# The hardware cache (`rdmalimits probe --save`): a login reads it instead of probing, and it
# holds what a login cannot learn itself: the devices' max_mr_size (from libibverbs, which
# only the tool loads).  The cache is written with the fake libibverbs listing mlx5_0 with a
# max_mr_size of 2 MiB, so a login that used the cache is capped at 2 MiB and one that probed
# live (sysfs and netlink: the ports, not the size) is not: the value tells which one it
# used.  A new or re-created counted interface, or another RX queue count, makes it stale; an
# interface the policy does not count (a container's veth) does not.
hwc=$tmp/hw.cache
hwc_logged() { logs debug | grep -o 'hardware ([^)]*)' | sed 's/^hardware (//; s/)$//'; }
save_cache() {
	env LD_LIBRARY_PATH="$FAKE_DIR" FAKE_IBVERBS_SPEC="mlx5_0:CA:2097152:16:ACTIVE/IB,DOWN/IB" \
		"$RDMALIMITS" probe --save --conf "$xdp" "$@" >"$tmp/probe.out" 2>&1
}
rdma_scenario one
if ip link add ca numrxqueues 2 numtxqueues 1 type veth peer name cb numrxqueues 2 numtxqueues 1 2>"$tmp/ip.err"; then
	ip link set ca up && ip link set cb up
	"$HW_DUMP" --include 'v*' --include 'c*' xdp >"$tmp/hw" 2>&1
	if grep -qx 'xdp_status=-EOPNOTSUPP' "$tmp/hw"; then
		skip "hardware cache: the kernel has no netdev family"
	else
		cq=$(awk '$1 == "xdp" { sub("rxq=", "", $6); n += $6 } END { print n + 0 }' "$tmp/hw")
		diag "hardware cache: XDP RX queues seen by the probe: $cq"
		save_cache --cache "$hwc"
		expect_true "probe --save writes the cache (root, 0600)" \
			test "$(stat -c '%u %a' "$hwc" 2>/dev/null)" = "0 600"
		expect_true "... with mlx5_0's max_mr_size from libibverbs" grep -q '^rdma mlx5_0 1 0 0 2097152 16$' "$hwc"
		live=$((3 * M + cq * 256 * K))
		rm -f "$tmp/marker"
		SCENARIO=one FAKE_IBVERBS_MARKER=$tmp/marker session ann "$xdp" cache="$hwc" debug
		expect "a valid cache: auto capped at its max_mr_size, 2 MiB" PAM_SUCCESS $((2 * M)) "$HARD"
		expect_true "... read from the cache (debug log)" test "$(hwc_logged)" = "from the cache"
		expect_true "... libibverbs not loaded" test ! -e "$tmp/marker"

		# doctor's `auto` is the login's: the cache a login reads by default, with its
		# max_mr_size, not a probe of its own (which cannot know the size); explain agrees
		dt=$tmp/doctree
		mkdir -p "$dt/etc/security/limits.d" "$dt/etc/systemd/system" "$dt/run"
		cp "$tmp/passwd" "$tmp/group" "$dt/etc/"
		: >"$dt/etc/security/limits.conf"
		cp "$xdp" "$dt/etc/security/rdmalimit.conf"
		printf '[Service]\nUser=ann\nLimitMEMLOCK=1M\n' >"$dt/etc/systemd/system/app.service"
		env LD_LIBRARY_PATH="$FAKE_DIR" FAKE_IBVERBS_SPEC="mlx5_0:CA:2097152:16:ACTIVE/IB,DOWN/IB" \
			"$RDMALIMITS" --root "$dt" probe --save >"$tmp/probe.out" 2>&1
		"$RDMALIMITS" --root "$dt" doctor --unit app >"$tmp/doctor.out" 2>&1
		expect_true "doctor --unit: the target is auto capped by the cache's max_mr_size (2 MiB), as a login gets" \
			grep -q "app.service: runs as ann with memlock soft 1 MiB, below the soft 2 MiB (etc/security/rdmalimit.conf:3, group rdma_users)" "$tmp/doctor.out"
		"$RDMALIMITS" --root "$dt" --json explain ann --service sshd >"$tmp/explain.out" 2>&1
		expect_true "... and explain predicts the same 2 MiB" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
sys.exit(not (e["policy"]["auto"]["value"] == 2097152 and e["policy"]["cache"]["state"] == "used"))' "$tmp/explain.out"

		# an interface the policy does not count: the cache stays valid
		ip link add xa numrxqueues 4 numtxqueues 1 type veth peer name xb numrxqueues 4 numtxqueues 1
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "an uncounted interface (xa) comes: the cache is still used" PAM_SUCCESS $((2 * M)) "$HARD"
		ip link del xa
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect_true "... and goes: still used" test "$(hwc_logged)" = "from the cache"

		# a counted interface comes: stale, probed live, and still no libibverbs
		ip link add ce numrxqueues 1 numtxqueues 1 type veth peer name cf numrxqueues 1 numtxqueues 1
		"$HW_DUMP" --include 'v*' --include 'c*' xdp >"$tmp/hw" 2>&1
		cq2=$(awk '$1 == "xdp" { sub("rxq=", "", $6); n += $6 } END { print n + 0 }' "$tmp/hw")
		live2=$((3 * M + cq2 * 256 * K))
		SCENARIO=one FAKE_IBVERBS_MARKER=$tmp/marker session ann "$xdp" cache="$hwc" debug
		expect "a new counted interface: stale, probed live ($cq2 XDP queues, max_mr_size unknown)" PAM_SUCCESS \
			"$live2" "$HARD"
		expect_true "... probed (debug log)" test "$(hwc_logged)" = "probed"
		expect_log "... the cache called stale" "cache: stale" debug
		expect_true "... libibverbs not loaded by the live probe" test ! -e "$tmp/marker"

		# saved again, then the same names created again: stale
		save_cache --cache "$hwc"
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "saved again: the cache is used" PAM_SUCCESS $((2 * M)) "$HARD"
		ip link del ce
		ip link add ce numrxqueues 1 numtxqueues 1 type veth peer name cf numrxqueues 1 numtxqueues 1
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "an interface deleted and created again with the same name: stale" PAM_SUCCESS "$live2" "$HARD"
		expect_true "... probed (debug log)" test "$(hwc_logged)" = "probed"

		# a port state change: stale
		save_cache --cache "$hwc"
		SCENARIO=two session ann "$xdp" cache="$hwc" debug
		expect "another RDMA port set: stale, probed live" PAM_SUCCESS $((live2 + 2 * M)) "$HARD"

		# an RX queue count that is not the one sysfs shows (edited into the cache): stale
		rdma_scenario one
		save_cache --cache "$hwc"
		sed -i 's/^\(xdp [0-9]* ca [0-9]*\) [0-9]* \([01]\)$/\1 9 \2/' "$hwc"
		expect_true "... (the cache names ca with 9 RX queues)" grep -q '^xdp [0-9]* ca [0-9]* 9 0$' "$hwc"
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "a cached RX queue count that differs from sysfs: stale" PAM_SUCCESS "$live2" "$HARD"

		# another interface selection than the one the cache was written for: stale
		save_cache --cache "$hwc" --conf "$xdp_phys"
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "a cache written for another include/exclude: stale" PAM_SUCCESS "$live2" "$HARD"

		# a cache others may write is refused, and that is logged
		save_cache --cache "$hwc"
		chmod 0666 "$hwc"
		SCENARIO=one session ann "$xdp" cache="$hwc" debug
		expect "a world-writable cache is not used" PAM_SUCCESS "$live2" "$HARD"
		expect_log "... and logged" "$hwc: writable by group or others: not using the cache" warning
		chmod 0600 "$hwc"

		# the default place, /run/rdmalimit/hw.cache (this test's private /run), and cache=
		save_cache
		SCENARIO=one session ann "$xdp" debug
		expect "without cache=: /run/rdmalimit/hw.cache is read" PAM_SUCCESS $((2 * M)) "$HARD"
		SCENARIO=one session ann "$xdp" cache= debug
		expect "cache= (empty): always probed live" PAM_SUCCESS "$live2" "$HARD"
		expect_log "... logged as no cache" "cache: none (cache=)" debug
		rm -rf /run/rdmalimit

		# a cache of an earlier format: logged, not used
		printf '# rdmalimit cache v3\nsection hardware 20\nfingerprint x\nend\n' >"$hwc"
		chmod 0600 "$hwc"
		SCENARIO=one session ann "$xdp" cache="$hwc"
		expect "a cache of an earlier format: probed live" PAM_SUCCESS "$live2" "$HARD"
		expect_log "... and logged" "$hwc: not a cache this build writes: not using the cache" warning
		rm -f "$hwc"
	fi
	ip link del ca 2>/dev/null
	ip link del ce 2>/dev/null
else
	fail "hardware cache: veth pair created"
	sed 's/^/# /' "$tmp/ip.err"
fi

# =============================================================================================
# EPERM: the policy asks for more than the hard limit, which cannot be raised
big=$(policy big <<'EOF'
version = 1;
rules = (
  { group = "rdma_users"; memlock = "16M"; },
  { group = "hpc";        memlock = "12M"; hard = "16M"; },
  { user  = "fred";       memlock = "4M"; hard = "16M"; }
);
EOF
)
if $has_sys_resource; then
	skip "EPERM tests: this process has CAP_SYS_RESOURCE and capsh is missing"
else
	session ann "$big"
	expect "16M over the hard limit: session opens with the closest value (soft = hard = $HARD)" \
		PAM_SUCCESS "$HARD" "$HARD"
	warnings=$(logs warning)
	expect_true "... exactly one warning" [ "$(count "$warnings")" = 1 ]
	expect_true "... naming the cause and the fix (CAP_SYS_RESOURCE, LimitMEMLOCK)" \
		grep -q 'CAP_SYS_RESOURCE.*LimitMEMLOCK=16M' <<<"$warnings"
	expect_true "... and no other log line" [ "$(count "$(logs)")" = 1 ]
	expect_true "... the user is told once: \"memlock is 8 MiB, not 16 MiB\"" \
		[ "$(infos)" = "memlock is 8 MiB, not 16 MiB: $SERVICE cannot raise its hard limit (see rdmalimits doctor)" ]

	# only the hard limit short of the target (the soft already the rule's): still a shortfall,
	# with its warning and message, not "already so"
	hardonly=$(policy hardonly <<'EOF'
version = 1;
rules = ( { user = "fred"; memlock = "6M"; hard = "16M"; } );
EOF
)
	START_AT="$((6 * M)):$HARD" session fred "$hardonly"
	expect "soft at the rule's 6M, hard 16M wanted: the limits as they were" PAM_SUCCESS $((6 * M)) "$HARD"
	warnings=$(logs warning)
	expect_true "... one warning" [ "$(count "$warnings")" = 1 ]
	expect_true "... naming the hard limit it wanted and what it set" \
		grep -q 'wanted memlock soft=6 MiB hard=16 MiB, set soft=6 MiB hard=8 MiB' <<<"$warnings"
	expect_true "... the user is told the hard limit is 8 MiB, not 16 MiB" \
		[ "$(infos)" = "the memlock hard limit is 8 MiB, not 16 MiB: $SERVICE cannot raise its hard limit (see rdmalimits doctor)" ]

	session ann "$big" quiet
	expect "quiet: the same limits" PAM_SUCCESS "$HARD" "$HARD"
	expect_true "quiet: no conversation message" [ -z "$(infos)" ]
	expect_true "quiet: still exactly one warning" [ "$(count "$(logs warning)")" = 1 ]

	PAMRUN_ARGS=--silent session ann "$big"
	expect "PAM_SILENT (cron): the same limits" PAM_SUCCESS "$HARD" "$HARD"
	expect_true "PAM_SILENT: no conversation message, as the PAM API asks" [ -z "$(infos)" ]
	expect_true "PAM_SILENT: still exactly one warning in the log" [ "$(count "$(logs warning)")" = 1 ]

	session ann "$big" strict
	expect "strict: EPERM is not an internal error, the session opens" PAM_SUCCESS "$HARD" "$HARD"

	# hpc only: dave has a user rule, carl is in rdma_users (16M wins); use a policy for hpc
	session carl "$(policy big-hpc <<'EOF'
version = 1;
rules = ( { group = "hpc"; memlock = "12M"; hard = "16M"; } );
EOF
)"
	expect "memlock 12M hard 16M: closest value soft = hard = $HARD" PAM_SUCCESS "$HARD" "$HARD"
	expect_true "the warning names the wanted values: soft=12 MiB hard=16 MiB" \
		grep -qF "wanted memlock soft=12 MiB hard=16 MiB" <<<"$(logs warning)"

	session ann "$(policy unlimited <<'EOF'
version = 1;
rules = ( { group = "rdma_users"; memlock = "unlimited"; } );
EOF
)"
	expect "\"unlimited\" over the hard limit: soft = hard = $HARD" PAM_SUCCESS "$HARD" "$HARD"
	one_warning_infinity() {
		[ "$(count "$(logs warning)")" = 1 ] && grep -qF 'LimitMEMLOCK=infinity' <<<"$(logs warning)"
	}
	expect_true "... one warning, the fix is LimitMEMLOCK=infinity" one_warning_infinity
	expect_true "... the user is told: \"memlock is 8 MiB, not unlimited\"" \
		grep -qF 'memlock is 8 MiB, not unlimited:' <<<"$(infos)"

	session fred "$big"
	expect "memlock 4M hard 16M: soft reached (4 MiB), hard stays $HARD" PAM_SUCCESS $((4 * M)) "$HARD"
	expect_true "... one warning (the hard limit was not reached)" [ "$(count "$(logs warning)")" = 1 ]
	# one message, and not one that contradicts itself ("memlock is 4 MiB, not 4 MiB")
	told_sensibly() {
		[ "$(count "$(infos)")" = 1 ] && ! grep -qE 'memlock is ([0-9]+ [KMGT]iB), not \1:' <<<"$(infos)"
	}
	expect_true "... the user is told once, and not \"memlock is 4 MiB, not 4 MiB\"" \
		told_sensibly
fi

# =============================================================================================
# Bad policies: limits untouched, session open without strict, failed with strict, logged
# (with file:line where there is a line).  Each is the valid policy below with one change; the
# valid one is the positive control.
good='version = 1;
rules = (
  { group = "rdma_users"; memlock = "4M"; }
);'
goodf=$(policy good <<<"$good")
session ann "$goodf"
expect "control: the valid policy gives ann 4 MiB" PAM_SUCCESS $((4 * M)) "$HARD"

# bad NAME CONF EXPECTED-LOG-TEXT
bad() {
	local name=$1 conf=$2 text=$3
	session ann "$conf"
	expect "$name: limits untouched, session open" PAM_SUCCESS "$S64K" "$HARD"
	expect_log "$name: logged: $text" "$text"
	session ann "$conf" strict
	if session_failed && [ "$(soft) $(hard)" = "$S64K $HARD" ]; then
		ok "$name with strict: the session fails ($(rc)), limits untouched"
	else
		fail "$name with strict: the session fails, limits untouched"
		show
	fi
}

f=$(policy syntax <<<"${good/memlock = \"4M\"/memlock = = \"4M\"}")
bad "syntax error" "$f" "$f:3: syntax error"

f=$(policy unknown-key <<<"$good
colour = \"red\";")
bad "unknown key" "$f" "$f:5: unknown key \"colour\""

f=$(policy bare <<<"${good/\"4M\"/\"4194304\"}")
bad "bare number" "$f" "$f:3: memlock = \"4194304\": a size needs a unit"

f=$(policy zero <<<"${good/\"4M\"/\"0\"}")
bad "memlock \"0\"" "$f" "$f:3: memlock must not be 0"

f=$(policy nobody <<<"${good/group = \"rdma_users\"; /}")
bad "a rule with neither user nor group" "$f" "$f:3: the rule names neither a user nor a group"

f=$(policy owner <<<"$good")
chown 4242:0 "$f"
bad "owned by uid 4242" "$f" "$f: not owned by root: refusing the policy"

f=$(policy world <<<"$good")
chmod 0666 "$f"
bad "world-writable (0666)" "$f" "$f: writable by group or others: refusing the policy"

f=$(policy group-w <<<"$good")
chmod 0664 "$f"
bad "group-writable (0664)" "$f" "$f: writable by group or others: refusing the policy"

f=$tmp/policy/fifo.conf
mkfifo -m 0644 "$f"
bad "a FIFO (must not block)" "$f" "$f: not a regular file: refusing the policy"

f=$tmp/policy/zero-link.conf
ln -s /dev/zero "$f"
bad "a symlink to /dev/zero" "$f" "$f: not a regular file: refusing the policy"
bad "/dev/zero itself" /dev/zero "/dev/zero: not a regular file: refusing the policy"

f=$tmp/policy/missing.conf
bad "a missing policy" "$f" "$f does not exist: memlock left unchanged"

f=$tmp/policy/dir.conf
mkdir "$f"
bad "a directory" "$f" "$f: Is a directory: refusing the policy"

f=$(policy empty </dev/null)
bad "an empty file" "$f" "$f: version = 1; is missing"

f=$(policy nul <<<"${good/\"4M\"/\"4M\" @NUL@}")
sed -i 's/ @NUL@/\x00/' "$f"
bad "a NUL byte" "$f" "$f:3: the file contains a NUL byte"

f=$(policy include <<<"@include \"$tmp/policy/world.conf\"
$good")
bad "@include" "$f" "$f:1: @include is not supported"

f=$(policy huge < <(echo "$good"; head -c $((1024 * 1024)) /dev/zero | tr '\0' '#'))
bad "larger than 1 MiB" "$f" "$f: larger than 1048576 bytes: refusing the policy"

# =============================================================================================
# The module as a shared object
out=$("$DLOPEN_MODULE" "$PAM_MODULE" 2>&1)
if [ "$out" = ok ]; then
	ok "dlopen(RTLD_NOW) in a process without libpam: loads, both entry points found"
else
	fail "dlopen(RTLD_NOW) of the module"
	diag "$out"
fi
# what every login maps: the module, libpam and libc, nothing more (the policy's syntax is read
# without libconfig, netlink spoken without libmnl; libibverbs never)
if command -v readelf >/dev/null; then
	needed=$(readelf -d "$PAM_MODULE" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -vE '^(libasan|libubsan)' |
		sort | tr '\n' ' ')
	if [ "$needed" = "libc.so.6 libpam.so.0 " ]; then
		ok "the module needs only libc and libpam (no libconfig, no libmnl, no libibverbs)"
	else
		fail "the module needs only libc and libpam (no libconfig, no libmnl, no libibverbs)"
		diag "NEEDED: $needed"
	fi
else
	skip "NEEDED entries of the module: no readelf"
fi
# the login path cannot load libibverbs (the module does not even name it) and reads no
# environment variable (it imports no getenv)
if grep -qa 'libibverbs' "$PAM_MODULE"; then
	fail "the module does not name libibverbs"
	diag "$(grep -ao 'libibverbs[^ ]*' "$PAM_MODULE" | sort -u)"
else
	ok "the module does not name libibverbs: no code path loads it"
fi
if command -v nm >/dev/null; then
	envsyms=$(nm -D --undefined-only "$PAM_MODULE" | awk '{ print $2 }' | grep -E '^(secure_)?getenv|^environ|^clearenv' || true)
	check "the module imports no getenv, secure_getenv or environ" [ -z "$envsyms" ]
	dlsyms=$(nm -D --undefined-only "$PAM_MODULE" | awk '{ print $2 }' | grep -E '^dl(open|mopen|sym|vsym)' || true)
	check "the module imports no dlopen or dlsym: a login loads no library beyond it" [ -z "$dlsyms" ]
	syms=$(nm -D --defined-only "$PAM_MODULE" | awk '$2 != "A" { print $3 }' | sort | tr '\n' ' ')
	if [ "$syms" = "pam_sm_close_session pam_sm_open_session " ]; then
		ok "exports only pam_sm_open_session and pam_sm_close_session"
	else
		fail "exports only pam_sm_open_session and pam_sm_close_session"
		diag "exports: $syms"
	fi
else
	skip "exported symbols: nm not installed"
fi

# =============================================================================================
# Thousands of sessions in one process: no descriptor or memory growth
# repeat DESC N USER CONF [ARGS]: N sessions, fds equal after 100 and after N, RSS growth < 512 KiB
repeat() {
	local desc=$1 n=$2
	shift 2
	PAMRUN_ARGS="--repeat $n" TIMEOUT=150 session "$@"
	local mid end
	mid=$(sed -n 's/^fds=\([0-9]*\) rss_kb=\([0-9]*\) after=100$/\1 \2/p' "$tmp/out")
	end=$(sed -n "s/^fds=\\([0-9]*\\) rss_kb=\\([0-9]*\\) after=$n\$/\\1 \\2/p" "$tmp/out")
	read -r fd1 rss1 <<<"$mid"
	read -r fd2 rss2 <<<"$end"
	# Under ASan freed memory sits in a quarantine: RSS says nothing there (LeakSanitizer
	# checks the leaks instead), descriptors still do.
	[ -n "${RDMALIMIT_SANITIZED:-}" ] && rss2=${rss1:-0}
	if [ "$run_rc" = 0 ] && grep -qx "sessions=$n mismatches=0" "$tmp/out" &&
		[ -n "${fd1:-}" ] && [ "${fd1:-}" = "${fd2:-}" ] && [ $((rss2 - rss1)) -lt 512 ]; then
		ok "$desc: $n sessions, fds $fd1 -> $fd2, RSS $rss1 -> $rss2 KiB"
	else
		fail "$desc: $n sessions, same fds, RSS growth < 512 KiB"
		show
	fi
}
SCENARIO=two repeat "auto with RDMA ports from sysfs and debug" 2000 ann "$auto" debug
expect "... every session got 5 MiB" PAM_SUCCESS $((5 * M)) "$HARD"
expect_true "... and logged (2 lines a session: the hardware, the decision)" grep -qx 'log_count=4000' "$tmp/out"
repeat "refused policy (error path)" 300 ann "$(policy unknown-key-r <<<"$good
colour = \"red\";")"

# =============================================================================================
# valgrind memcheck over representative sessions: no error attributable to the module
if ! command -v valgrind >/dev/null; then
	skip "valgrind not installed"
elif readelf -s "$PAM_MODULE" 2>/dev/null | grep -q __asan_init; then
	skip "valgrind: the module is built with sanitizers"
else
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$SUPP"
	# vg_session DESC SCENARIO USER CONF [ARGS]
	vg_session() {
		local desc=$1
		SCENARIO=$2
		shift 2
		RUN=$vg TIMEOUT=120 PAMRUN_ARGS="--repeat 3" session "$@"
		if [ "$run_rc" = 0 ] && ! grep -q '^==[0-9]*==' "$tmp/err"; then
			ok "valgrind: $desc: no errors"
		else
			fail "valgrind: $desc (exit status $run_rc, 99: errors)"
			show
		fi
		SCENARIO=none
	}
	vg_session "static group rule" none ann "$base"
	vg_session "auto with two RDMA ports in sysfs, debug" two ann "$auto" debug
	vg_session "auto, unreadable ports, fallback" queryfail ann "$fallback"
	vg_session "refused policy (syntax error), strict" none ann "$tmp/policy/syntax.conf" strict
	vg_session "EPERM path" none ann "$big"
fi

done_testing
