#!/bin/bash
# The login path's promises, tried as an attacker would (issue: security of the login path):
#   a. a real setuid su with a hostile environment (VERBS_LOG_FILE, MLX5_DEBUG_FILE, ...) loads
#      no RDMA library and creates no file, with no cache, a stale cache and a valid one;
#   b. with a case-insensitive name service, BOB gets bob's user rule;
#   c. PAM_USER with a newline and an escape sequence, and a group name with bytes >= 0x80,
#      reach the log escaped;
#   d. a 4 MiB cache of rdma lines and a 100 MiB one are refused without using much memory;
#   e. 200 veth interfaces change neither auto nor the cache's validity;
#   f. RDMA ports are counted from sysfs at login, without libibverbs.
# Everything runs in the private mount + PID + network namespaces of tests/e2e/sandbox.sh
# (throwaway /etc/passwd, group, shadow, pam.d, security; tmpfs /run and /dev; the host's
# /etc, /dev and /run are never written), with the namespace's own sysfs and the fakes of
# tests/lib/fakesys.sh.  Root only; under CI=true every unmet requirement is a failure.
#
# Against the module of commit 10d7be6 (before the login path stopped loading libibverbs),
# this printed (abridged; 18 of 41 failed):
#   not ok - a/no cache/real libibverbs: no file at VERBS_LOG_FILE, ...
#            # created in .../attack: verbs.log (root, 666)
#   ok     - a/no cache/real libibverbs: no RDMA library mapped in su   (unloaded again by then)
#   not ok - a/no cache/fake libibverbs: no file at ... (marker (root, 644)); never loaded
#   not ok - a/stale cache/{real,fake}: the same;  ok - a/valid cache/{real,fake}: all
#   not ok - b: BOB gets bob's user rule (got soft=65536 hard=8388608, want 1 MiB/1 MiB)
#   not ok - c: (3 cases) "cannot look up user <ESC>[31m..." raw, and "rdmalimit: FAKE ...:
#            no such user" starting a line; "rule group gr\xc3\xa9pe\xff" raw
#   not ok - f: 3 MiB (got 64 KiB: "auto found no RDMA/AF_XDP hardware"), libibverbs loaded;
#            with the cache too
#   not ok - d/4m: the module logs that it did not use the cache ("hardware probe failed:
#            Cannot allocate memory" under RLIMIT_AS 160 MiB);  ok - d/100m
#   not ok - e: 3 MiB without veth (got 5 MiB: the veth peer counted); 200 veth: 8 MiB (205 MiB
#            wanted), the cache stale ("hardware (probed)")
# Every case passes once the module counts ports from sysfs, reads no environment, matches
# pw_name, escapes its log lines, caps the cache reader and counts physical interfaces only.
#
# Small predicates are defined next to their use and called through check:
# shellcheck disable=SC2317
set -u

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
require_fake_verbs
# shellcheck source=tests/e2e/sandbox.sh
. "$top_srcdir/tests/e2e/sandbox.sh"
# shellcheck source=tests/lib/fakesys.sh
. "$top_srcdir/tests/lib/fakesys.sh"

: "${PAM_MODULE:=$top_builddir/pam_rdmalimit/.libs/pam_rdmalimit.so}"
PAM_RUN=$top_builddir/tests/pam/pam-run
FAKE_VERBS=$top_builddir/tests/fake-ibverbs/lib/libibverbs.so.1
NSS_CI_DIR=$top_builddir/tests/login/lib
REAL_VERBS=$(readlink -f "$(ldconfig -p 2>/dev/null | sed -n 's/^\s*libibverbs\.so\.1 (libc6,x86-64) => //p' | head -1)" 2>/dev/null)
SU=/bin/su

# ---------------------------------------------------------------------------------------------
# Outside: requirements, then this script again in the namespaces.
if ! sandbox_inside; then
	require_root "login path attack tests"
	require_built "$PAM_MODULE" "$PAM_RUN" "$FAKE_VERBS" "$NSS_CI_DIR/libnss_ci.so.2" "$RDMALIMITS"
	case $PAM_MODULE in /run/* | /dev/* | /var/log/*)
		echo "1..1"; echo "not ok 1 - the module must not live under /run, /dev or /var/log"; exit 1 ;;
	esac
	[ -n "$REAL_VERBS" ] && [ -f "$REAL_VERBS" ] || skip_all "libibverbs.so.1 is not installed (package libibverbs1)"
	[ -u "$SU" ] || skip_all "$SU is not setuid root"
	for c in setpriv prlimit unshare ip python3 timeout; do
		command -v "$c" >/dev/null || skip_all "$c is missing"
	done
	unshare --mount --pid --fork --net true 2>/dev/null || skip_all "unshare --mount --pid --net is not permitted here"
	export top_srcdir top_builddir PAM_MODULE RDMALIMITS REAL_VERBS
	sandbox_reexec "$0" "$@"
	exit $?
fi

# ---------------------------------------------------------------------------------------------
# Inside.
umask 022
no_plan
bail() {
	echo "Bail out! $*"
	exit 99
}
# no sshd here: sandbox_start must not put the module in the sshd stack
module=$PAM_MODULE
SANDBOX_PAM_MODULE= PAM_MODULE= sandbox_start || bail "sandbox_start failed"
PAM_MODULE=$module
mount -t sysfs rdmalimit-login-sysfs /sys || bail "cannot mount the namespace's sysfs"
export FAKESYS_TMPDIR=$SANDBOX_DIR
T=$SANDBOX_DIR/t
mkdir -m 0755 "$T" "$T/pam.d" "$T/cache" || bail "mkdir $T"
printf '%s required pam_deny.so\n' auth account password session >"$T/pam.d/other"

K=1024
M=$((1024 * 1024))
hard_kib=$(ulimit -H -l)
[ "$hard_kib" != unlimited ] || bail "no hard memlock limit in the sandbox"
HARD=$((hard_kib * K))
[ "$HARD" -ge $((4 * M)) ] || bail "the hard memlock limit is $HARD bytes; these tests need 4 MiB"
START="$((64 * K)):$HARD"
diag "hard memlock limit $HARD bytes; module $PAM_MODULE"

sandbox_user alice rdma || bail "sandbox_user alice"
sandbox_user bob g || bail "sandbox_user bob"
sandbox_user carl || bail "sandbox_user carl"
# gina's only group has a name with bytes >= 0x80 (as a directory service may hand out)
GRNAME=$'gr\xc3\xa9pe\xff'
sandbox_user gina "$GRNAME" || bail "sandbox_user gina"

# policy NAME: stdin -> $T/NAME.conf (root, 0644); prints the path
policy() {
	cat >"$T/$1.conf" && chown 0:0 "$T/$1.conf" && chmod 0644 "$T/$1.conf" && echo "$T/$1.conf"
}
HWSECTION='hardware = { base = "1M"; rdma_port = "1M"; xsk_queue = "1M"; xsk_copy_queue = "1M"; ram_share = 0.5; };'
P_AUTO=$(policy auto <<EOF
version = 1;
$HWSECTION
rules = ( { group = "rdma"; memlock = "auto"; } );
EOF
)

# save_cache PATH CONF: rdmalimits probe --save as root with a clean environment
save_cache() {
	rm -f "$1"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$RDMALIMITS" probe --save --cache "$1" --conf "$2" >"$T/save.out" 2>&1 ||
		{ diag "probe --save failed: $(cat "$T/save.out")"; return 1; }
}

# session USER CONF [MODULE ARG...]: pam-run, one session from soft 64 KiB.  Environment:
# PENV (words for env: the session's environment), AS (an RLIMIT_AS for pam-run, bytes),
# NETNS_PID (the session runs in that process's network namespace, nsenter -n: sysfs stays
# this one's).
# Output in $T/out, exit status in $run_rc.
session() {
	local user=$1 conf=$2 pre=() ns=()
	shift 2
	printf 'session [success=ok ignore=ignore default=die] %s conf=%s%s\nsession required pam_permit.so\n' \
		"$PAM_MODULE" "$conf" "${*:+ $*}" >"$T/pam.d/login-test"
	[ -n "${AS:-}" ] && pre=(prlimit --as="$AS" --)
	[ -n "${NETNS_PID:-}" ] && ns=(nsenter -t "$NETNS_PID" -n --)
	# shellcheck disable=SC2086 # PENV is a word list
	"${ns[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ${PENV:-} timeout 60 "${pre[@]}" "$PAM_RUN" \
		--confdir "$T/pam.d" --service login-test --user "$user" --memlock "$START" --syslog \
		>"$T/out" 2>"$T/err"
	run_rc=$?
}
rc() { sed -n 's/^rc=//p' "$T/out"; }
soft() { sed -n 's/^soft=\([^ ]*\) hard=.*/\1/p' "$T/out"; }
hard() { sed -n 's/^soft=[^ ]* hard=//p' "$T/out"; }
result() { echo "rc=$(rc) soft=$(soft) hard=$(hard) exit=$run_rc"; }
logs() { sed -n 's/^log: [a-z?]* //p' "$T/out"; }
show() {
	sed 's/^/#   out: /' "$T/out"
	sed 's/^/#   err: /' "$T/err"
}
# expect DESC WANT: result() is WANT
expect() {
	local got
	got=$(result)
	if [ "$got" = "$2" ]; then
		ok "$1"
	else
		fail "$1"
		diag "want: $2" "got:  $got"
		show
	fi
}
# expect_log DESC ERE: some log line matches (case-insensitive)
expect_log() {
	if logs | grep -qiE -- "$2"; then
		ok "$1"
	else
		fail "$1"
		diag "no log line matches: $2"
		show
	fi
}

# =============================================================================================
# a. su with a hostile environment
SU_HOME=$SANDBOX_HOME/alice
EV=$SU_HOME/attack
cat >"$SANDBOX_DIR/etc/pam.d/su" <<EOF || bail "cannot write the su stack"
auth sufficient pam_rootok.so
auth sufficient pam_permit.so
account required pam_permit.so
password required pam_deny.so
session required pam_permit.so
EOF

# su_attack LABEL LIB CACHE-ARG: alice runs su alice with the attacker's environment; LIB real
# or fake (the fake libibverbs bind-mounted over the real one in this namespace)
su_attack() {
	local label="a/$1/$2 libibverbs" lib=$2 cachearg=$3 pid ppid i inner maps created bad
	rm -rf "$EV"
	install -d -o alice -g alice -m 0777 "$EV"
	printf 'session optional %s conf=%s %s\n' "$PAM_MODULE" "$P_AUTO" "$cachearg" >>"$SANDBOX_DIR/etc/pam.d/su"
	if [ "$lib" = fake ]; then
		mount --bind "$FAKE_VERBS" "$REAL_VERBS" || bail "cannot bind the fake libibverbs over $REAL_VERBS"
	fi
	# the shell su starts: its parent is the su process holding the PAM session
	inner=$(printf 'echo $PPID > %q; while [ ! -e %q ]; do sleep 0.05; done' "$EV/ppid" "$EV/go")
	setpriv --reuid=alice --regid=alice --init-groups -- \
		env -i PATH=/usr/bin:/bin HOME="$SU_HOME" USER=alice LOGNAME=alice SHELL=/bin/bash \
		VERBS_LOG_LEVEL=9 VERBS_LOG_FILE="$EV/verbs.log" RDMAV_DRIVERS=mlx5,rxe,mlx4 RDMAV_FORK_SAFE=1 \
		MLX5_DEBUG_FILE="$EV/mlx5.log" MLX5_DEBUG_MASK=0xffff MLX4_DEBUG_FILE="$EV/mlx4.log" \
		IBV_SHOW_WARNINGS=1 RDMAV_HUGEPAGES_SAFE=1 LD_LIBRARY_PATH="$EV/lib" \
		LANG=C.UTF-8 LC_ALL=C.UTF-8 LC_MESSAGES=C.UTF-8 FAKE_IBVERBS_MARKER="$EV/marker" \
		bash -c 'umask 000; exec timeout 60 "$0" alice -c "$1"' "$SU" "$inner" \
		</dev/null >"$T/su.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		[ -s "$EV/ppid" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	ppid=$(cat "$EV/ppid" 2>/dev/null)
	maps=
	[ -n "$ppid" ] && maps=$(cat "/proc/$ppid/maps" 2>/dev/null)
	touch "$EV/go"
	wait "$pid"
	[ "$lib" = fake ] && umount "$REAL_VERBS"
	# the stack without the module line again
	sed -i '/pam_rdmalimit/d' "$SANDBOX_DIR/etc/pam.d/su"

	if [ -n "$ppid" ] && [ -n "$maps" ] && grep -q 'pam_rdmalimit' <<<"$maps"; then
		ok "$label: su opened the session with the module (pid $ppid)"
	else
		fail "$label: su opened the session with the module"
		sed 's/^/#   su: /' "$T/su.out"
	fi
	created=$(cd "$EV" && find . -mindepth 1 ! -name ppid ! -name go -printf '%P (%u, %m)\n')
	if [ -z "$created" ]; then
		ok "$label: no file at VERBS_LOG_FILE, MLX5_DEBUG_FILE, MLX4_DEBUG_FILE or the marker"
	else
		fail "$label: no file at VERBS_LOG_FILE, MLX5_DEBUG_FILE, MLX4_DEBUG_FILE or the marker"
		diag "created in $EV: $created"
	fi
	bad=$(grep -E 'libibverbs|/libibverbs/|libmlx[45]|librxe|-rdmav[0-9]+\.so' <<<"$maps" | awk '{ print $NF }' | sort -u)
	if [ -n "$maps" ] && [ -z "$bad" ]; then
		ok "$label: no RDMA library mapped in su"
	else
		fail "$label: no RDMA library mapped in su"
		diag "mapped: ${bad:-(no maps read)}"
	fi
	if [ "$lib" = fake ]; then
		if [ ! -e "$EV/marker" ]; then
			ok "$label: the fake libibverbs was never loaded"
		else
			fail "$label: the fake libibverbs was never loaded"
			diag "marker: $(tr '\n' ' ' <"$EV/marker")"
		fi
	fi
}

fakesys_rdma mlx5_0:4/IB,1/IB || bail "fakesys_rdma"
for lib in real fake; do
	su_attack "no cache" "$lib" "cache="
	save_cache "$T/cache/stale" "$P_AUTO" || fail "probe --save for the stale cache"
	fakesys_rdma mlx5_0:1/IB,1/IB || bail "fakesys_rdma"   # the port went down since
	su_attack "stale cache" "$lib" "cache=$T/cache/stale"
	save_cache "$T/cache/valid" "$P_AUTO" || fail "probe --save for the valid cache"
	su_attack "valid cache" "$lib" "cache=$T/cache/valid"
	fakesys_rdma mlx5_0:4/IB,1/IB || bail "fakesys_rdma"
done
fakesys_reset

# =============================================================================================
# b. a case-insensitive name service: BOB is bob
P_CI=$(policy ci <<'EOF'
version = 1;
lower = true;
rules = (
  { group = "g";   memlock = "4M"; },
  { user  = "bob"; memlock = "1M"; }
);
EOF
)
printf 'passwd: ci files\ngroup: files\nshadow: files\n' >"$T/nsswitch.conf"
mount --bind "$T/nsswitch.conf" /etc/nsswitch.conf || bail "cannot bind nsswitch.conf"
ci_canon() { [ "$(LD_LIBRARY_PATH=$NSS_CI_DIR getent passwd BOB | cut -d: -f1)" = bob ]; }
check "b: harness: the ci source answers BOB with bob's entry" ci_canon
PENV="LD_LIBRARY_PATH=$NSS_CI_DIR" session bob "$P_CI" cache=
expect "b: bob gets the user rule, 1 MiB" "rc=PAM_SUCCESS soft=$M hard=$M exit=0"
want_bob=$(result)
PENV="LD_LIBRARY_PATH=$NSS_CI_DIR" session BOB "$P_CI" cache=
expect "b: BOB gets bob's user rule, as bob does" "$want_bob"
umount /etc/nsswitch.conf

# =============================================================================================
# c. log injection
P_INJ=$(policy inj <<EOF
version = 1;
rules = ( { group = "rdma"; memlock = "2M"; }, { group = "$GRNAME"; memlock = "2M"; } );
EOF
)
INJECT='rdmalimit: FAKE'
# clean_log DESC: the session's log lines have no raw control byte nor byte >= 0x80, and the
# injected text never starts a line of pam-run's output
clean_log() {
	python3 - "$T/out" "$INJECT" <<'EOF'
import sys
out, inject = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
known = (b"rc=", b"soft=", b"info: ", b"close_rc=", b"log: ", b"log_count=", b"sessions=", b"fds=")
bad = 0
logs = 0
for line in out.split(b"\n"):
    if not line:
        continue
    if line.startswith(inject) or not line.startswith(known):
        print("# line not written by pam-run (injected?): %r" % line)
        bad += 1
    if line.startswith(b"log: "):
        logs += 1
        if any(c < 0x20 or c >= 0x7f for c in line):
            print("# raw control byte or byte >= 0x80: %r" % line)
            bad += 1
if logs == 0:
    print("# the module logged nothing")
    bad += 1
sys.exit(1 if bad else 0)
EOF
}
session $'carl\n'"$INJECT"$' \e[31mred\e[0m\r\a' "$P_INJ" cache= debug
check "c: PAM_USER with a newline and escape sequences: every log line escaped, nothing injected" clean_log
session $'\e]0;title\a'"$INJECT" "$P_INJ" cache= debug
check "c: PAM_USER starting with an OSC sequence: escaped" clean_log
session gina "$P_INJ" cache= debug
check "c: a group name with bytes >= 0x80: escaped in every log line" clean_log
if [ "$(rc)" = PAM_SUCCESS ] && [ "$(soft)" = $((2 * M)) ]; then
	ok "c: gina still matches the rule of her group"
else
	fail "c: gina still matches the rule of her group"
	show
fi

# =============================================================================================
# f. RDMA ports from sysfs in the login path, no libibverbs (before e: no physical interface)
fakesys_rdma mlx5_0:4/IB,4/IB || bail "fakesys_rdma"
FENV="LD_LIBRARY_PATH=${FAKE_VERBS%/*} FAKE_IBVERBS_SCENARIO=none FAKE_IBVERBS_MARKER=$T/marker.f"
rm -f "$T/marker.f"
PENV=$FENV session alice "$P_AUTO" cache= debug
expect "f: two ACTIVE ports in sysfs, no cache: memlock = base + 2 x rdma_port = 3 MiB" \
	"rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
check "f: ... and libibverbs was never loaded" [ ! -e "$T/marker.f" ]
save_cache "$T/cache/f" "$P_AUTO" || fail "f: probe --save"
rm -f "$T/marker.f"
PENV=$FENV session alice "$P_AUTO" "cache=$T/cache/f" debug
expect "f: with the cache probe --save wrote: 3 MiB too" "rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
check "f: ... and libibverbs was never loaded" [ ! -e "$T/marker.f" ]

# =============================================================================================
# d. hostile caches (with the RDMA device of f, so the fingerprint matches the forged lines)
save_cache "$T/cache/d-valid" "$P_AUTO" || fail "d: probe --save"
python3 - "$T/cache/d-valid" "$T/cache/d-4m" $((4 * M - 4 * K)) <<'EOF' || fail "d: forging the 4 MiB cache"
import sys
src, dst, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
magic, rest = data.split(b"\n", 1)
# v3: "section NAME LENGTH" headers, the hardware in its own section; else one plain body
sections = []
if rest.startswith(b"section "):
    while rest:
        head, rest = rest.split(b"\n", 1)
        word, name, size = head.split(b" ")
        assert word == b"section", head
        size = int(size)
        sections.append([name, rest[:size]])
        rest = rest[size:]
else:
    sections.append([None, rest])
def render():
    return magic + b"\n" + b"".join((b"section %s %d\n" % (n, len(t)) if n else b"") + t for n, t in sections)
hw = [s for s in sections if s[0] in (b"hardware", None)][0]
lines = hw[1].split(b"\n")
at = next(i for i, l in enumerate(lines) if l.startswith(b"rdma_status ")) + 1
lines[at - 1] = b"rdma_status 0"
# the device block the probe wrote (the fake mlx5_0), else the v3 form with 255 ports
block = None
for k, l in enumerate(lines):
    if l.startswith(b"rdma "):
        end = k + 1
        while end < len(lines) and lines[end].startswith(b"port "):
            end += 1
        block = lines[k:end]
        break
if block is None:
    block = [b"rdma mlx5_0 1 1099511627776 16777216 0 255", b"port 1 4 1 0"]
extra, i = [], 0
room = target - len(render())
while True:
    w = block[0].split(b" ")
    w[1] = b"mlx5_%d" % (i + 1000)
    l = b"\n".join([b" ".join(w)] + block[1:])
    if room - len(l) - 1 < 0:
        break
    extra.append(l)
    room -= len(l) + 1
    i += 1
hw[1] = b"\n".join(lines[:at] + extra + lines[at:])
out = render()
assert len(out) <= target, len(out)
open(dst, "wb").write(out)
print("# forged %d rdma devices, %d bytes" % (i, len(out)))
EOF
cp "$T/cache/d-valid" "$T/cache/d-100m" && truncate -s $((100 * M)) "$T/cache/d-100m"
chown 0:0 "$T/cache/d-4m" "$T/cache/d-100m"
chmod 0600 "$T/cache/d-4m" "$T/cache/d-100m"
if [ "${RDMALIMIT_SANITIZED:-}" = 1 ]; then
	AS_LIMIT=
	diag "sanitized build: no address-space limit (RLIMIT_AS breaks ASan), only the behaviour is checked"
else
	AS_LIMIT=$((160 * M))
fi
AS=$AS_LIMIT session alice "$P_AUTO" cache= debug
want_d=$(result)
diag "d: without a cache: $want_d"
for c in 4m 100m; do
	AS=$AS_LIMIT session alice "$P_AUTO" "cache=$T/cache/d-$c" debug
	expect "d/$c: the session completes as without a cache${AS_LIMIT:+, under RLIMIT_AS $((AS_LIMIT / M)) MiB}" "$want_d"
	expect_log "d/$c: the module logs that it did not use the cache" \
		'cache.*(not us|refus|ignor|too (big|large|many))|not using the cache'
done
fakesys_reset

# =============================================================================================
# e. container interfaces: 200 veth change neither auto nor the cache
if ! ip link add ph0 numrxqueues 2 numtxqueues 2 type veth peer name ph0p numrxqueues 2 numtxqueues 2; then
	fail "e: veth pair for the physical interface"
fi
fakesys_physical ph0 || fail "e: fakesys_physical ph0"
save_cache "$T/cache/e" "$P_AUTO" || fail "e: probe --save"
session alice "$P_AUTO" cache= debug
expect "e: no veth: auto = base + 2 RX queues of the one physical interface = 3 MiB" \
	"rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
want_e=$(result)
for i in $(seq 100); do echo "link add ct$i type veth peer name ct${i}p"; done >"$T/veth.batch"
ip -batch "$T/veth.batch" || fail "e: 200 veth interfaces"
diag "e: $(find /sys/class/net -mindepth 1 -maxdepth 1 | wc -l) interfaces in the namespace"
session alice "$P_AUTO" cache= debug
expect "e: 200 veth, live: the same memlock" "$want_e"
session alice "$P_AUTO" "cache=$T/cache/e" debug
expect "e: 200 veth, the cache written before them: the same memlock" "$want_e"
expect_log "e: ... and the cache is still valid (the hardware came from it)" 'hardware.*from the cache'
# a second physical interface: the first one checked sysfs against this namespace, the
# second is counted on that answer too
fakesys_physical ph0p || fail "e: fakesys_physical ph0p"
session alice "$P_AUTO" cache= debug
if [ "$HARD" -ge $((5 * M)) ]; then
	expect "e: two physical interfaces: auto = base + 2 + 2 RX queues = 5 MiB" "rc=PAM_SUCCESS soft=$((5 * M)) hard=$HARD exit=0"
else
	expect_log "e: two physical interfaces: auto counts 4 RX queues" '4 copy-mode XDP RX queues'
fi
fakesys_reset

# =============================================================================================
# g. sysfs of another network namespace (unshare -n without mounting sysfs again): sysfs's ph0,
#    "physical", says nothing of an interface named ph0 in the login's namespace
fakesys_physical ph0 || fail "g: fakesys_physical ph0"
ip link set ph0 up
session alice "$P_AUTO" cache= debug
expect "g: in sysfs's namespace: ph0 physical, auto = base + its 2 RX queues = 3 MiB" \
	"rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
ph0_idx=$(cat /sys/class/net/ph0/ifindex)
ph0_mac=$(cat /sys/class/net/ph0/address)
unshare --net sleep 600 &
NS_B=$!
for _ in $(seq 100); do
	[ "$(readlink "/proc/$NS_B/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.05
done
inb() { nsenter -t "$NS_B" -n -- "$@"; }
# g_case LABEL IP-LINK-ARGS...: ph0 in namespace B made with these arguments (its peer ph0b
# with an ifindex of its own, so that ph0 can have sysfs's ph0's)
g_case() {
	local label=$1
	shift
	inb ip link del ph0 2>/dev/null
	inb ip link add ph0 "$@" numrxqueues 2 numtxqueues 2 type veth peer name ph0b index $((ph0_idx + 100)) \
		numrxqueues 2 numtxqueues 2 ||
		{ fail "g/$label: the veth pair in namespace B"; return; }
	inb ip link set lo up
	inb ip link set ph0 up
	inb ip link set ph0b up
	diag "g/$label: B's ph0: $(inb ip -o link show ph0 | sed 's/^\([0-9]*\):.*link\/ether \([^ ]*\).*/ifindex \1, address \2/')," \
		"sysfs's ph0: ifindex $ph0_idx, address $ph0_mac"
	NETNS_PID=$NS_B session alice "$P_AUTO" cache= debug
	expect "g/$label: B's ph0 is not counted as physical: no hardware, memlock unchanged" \
		"rc=PAM_SUCCESS soft=$((64 * K)) hard=$HARD exit=0"
	expect_log "g/$label: the module says why" 'physical interfaces unknown: sysfs shows another network namespace'
	inb "$RDMALIMITS" probe --json --conf "$P_AUTO" >"$T/probe.json" 2>"$T/probe.err"
	check "g/$label: probe --json in B: sysfs_other_netns, ph0 not physical, not counted" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = d["xdp"]
ph0 = [i for i in x["interfaces"] if i["name"] == "ph0"]
sys.exit(0 if x["sysfs_other_netns"] is True and len(ph0) == 1 and not ph0[0]["physical"] and not ph0[0]["counted"] else 1)
' "$T/probe.json"
	rm -f "$T/cache/g"
	inb "$RDMALIMITS" probe --save --cache "$T/cache/g" --conf "$P_AUTO" >"$T/probe.out" 2>&1
	check "g/$label: probe --save in B refuses (exit 1), no cache written" \
		[ "$?/$(test -e "$T/cache/g" && echo written)" = 1/ ]
	check "g/$label: ... and says why" grep -q "sysfs shows another network namespace" "$T/probe.out"
}
g_case "another ifindex" index $((ph0_idx + 50))
g_case "the same ifindex, another address" index "$ph0_idx"
# the cache written in sysfs's namespace is that namespace's: not B's
save_cache "$T/cache/gA" "$P_AUTO" || fail "g: probe --save in sysfs's namespace"
session alice "$P_AUTO" "cache=$T/cache/gA" debug
expect "g: in sysfs's namespace, its cache: 3 MiB" "rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
expect_log "g: ... from the cache" 'hardware.*from the cache'
NETNS_PID=$NS_B session alice "$P_AUTO" "cache=$T/cache/gA" debug
expect "g: in B, the cache of sysfs's namespace is not used: memlock unchanged, as live" \
	"rc=PAM_SUCCESS soft=$((64 * K)) hard=$HARD exit=0"
expect_log "g: ... the module says the cache is stale" 'cache.*stale'
# and in sysfs's own namespace nothing changed
session alice "$P_AUTO" cache= debug
expect "g: back in sysfs's namespace: ph0 physical again, 3 MiB" \
	"rc=PAM_SUCCESS soft=$((3 * M)) hard=$HARD exit=0"
"$RDMALIMITS" probe --json --conf "$P_AUTO" >"$T/probe.json" 2>"$T/probe.err"
check "g: probe --json in sysfs's namespace: sysfs_other_netns false, ph0 physical" python3 -c '
import json, sys
x = json.load(open(sys.argv[1]))["xdp"]
ph0 = [i for i in x["interfaces"] if i["name"] == "ph0"]
sys.exit(0 if x["sysfs_other_netns"] is False and len(ph0) == 1 and ph0[0]["physical"] else 1)
' "$T/probe.json"
kill "$NS_B" 2>/dev/null
wait "$NS_B" 2>/dev/null
fakesys_reset

done_testing
