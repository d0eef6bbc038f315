#!/bin/bash
# Every reader that follows includes is bounded (lib/base/visit.h): a pam.d file that
# includes itself 20 times, an sshd_config that includes itself three times, a slurm.conf
# Include loop, a fan-out without a cycle, many unit drop-ins.  Each command must end (timeout
# 20: before the bound they ran for ever, growing) and name the include's file:line; a diamond
# (the same file included twice, from two places) reads as before.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
require_root "the trees' files must be root's for the tool to trust them"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
OUT=$T/out
# rl ARG...: rdmalimits on the tree, bounded in time and address space (1 GiB: not under ASan,
# which reserves terabytes for its shadow); stdout and stderr in $OUT, the exit status in $rc
# (124: it did not end)
aslimit=(prlimit --as=$((1 << 30)) --)
[ -n "${RDMALIMIT_SANITIZED:-}" ] && aslimit=()
rl() {
	"${aslimit[@]}" timeout 20 "$RDMALIMITS" --root "$R" --flavour debian "$@" > "$OUT" 2>&1
	rc=$?
}
has() { grep -qF -- "$1" "$OUT"; }
ended() { [ "$rc" != 124 ] && [ "$rc" -lt 128 ]; }
show() { sed 's/^/#   /' "$OUT" | head -20; }

mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/pam.d" "$R/etc/security/limits.d" "$R/etc/ssh" "$R/etc/slurm" "$R/proc/1" \
		"$R/etc/systemd/system" "$R/lib/x86_64-linux-gnu/security"
	printf 'root:x:0:0:root:/root:/bin/sh\nalice:x:1001:2000::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	printf '*\tsoft\tmemlock\t8192\n*\thard\tmemlock\t8192\n@rdma_users\t-\tmemlock\t1048576\n' \
		> "$R/etc/security/limits.conf"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"
	for m in pam_limits pam_permit pam_unix pam_rdmalimit; do : > "$R/lib/x86_64-linux-gnu/security/$m.so"; done
}

# --- the finding of issue 27: pam.d/loop is pam_limits and 20 lines '@include loop'
mkroot
{ echo "session required pam_limits.so"; for _ in $(seq 20); do echo "@include loop"; done; } > "$R/etc/pam.d/loop"
CYCLE="etc/pam.d/loop:2: an include cycle"

rl explain alice --service loop
show
check "loop: explain ends" ended
check "loop: explain fails (exit $rc)" test "$rc" -eq 1
check "loop: explain names the include at file:line" has "$CYCLE"
check "loop: explain says what libpam does with it" has "libpam cannot load this stack"

rl enable --check --service loop
check "loop: enable --check ends" ended
check "loop: enable --check fails (exit $rc)" test "$rc" -eq 1
check "loop: enable --check names the include at file:line" has "$CYCLE"
check "loop: enable --check wrote nothing" test "$(grep -c . "$R/etc/pam.d/loop")" -eq 21

rl enable --check
check "loop: enable --check over every service ends" ended
check "loop: ... and names the include at file:line" has "$CYCLE"

rl doctor --service loop
show
check "loop: doctor ends" ended
check "loop: doctor fails (exit $rc)" test "$rc" -eq 1
check "loop: doctor reports the cycle at file:line" grep -q "FAIL loop: an include cycle.*(etc/pam.d/loop:2)" "$OUT"

# sshd's own stack includes itself: its session and its account phase (pam_slurm_adopt's
# reader) both meet the cycle; doctor reports it and goes on
printf 'session required pam_limits.so\n@include sshd\naccount required pam_unix.so\n' > "$R/etc/pam.d/sshd"
rl doctor
check "sshd includes itself: doctor ends with its findings (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && ! grep -q '^rdmalimits: doctor:' '$OUT'"
check "sshd includes itself: doctor reports the cycle at file:line" \
	grep -q "FAIL sshd: an include cycle.*(etc/pam.d/sshd:2)" "$OUT"
rm "$R/etc/pam.d/sshd"

# the cycle through another file, by includes only: reported where it closes
printf 'session required pam_limits.so\nsession include loop-b\n' > "$R/etc/pam.d/loop-a"
printf 'session required pam_permit.so\nsession include loop-a\n' > "$R/etc/pam.d/loop-b"
rl explain alice --service loop-a
check "a -> b -> a: explain fails at etc/pam.d/loop-b:2" sh -c "[ $rc -eq 1 ] && grep -qF 'etc/pam.d/loop-b:2: an include cycle' '$OUT'"
# ... through a substack: no cycle, libpam's 16 substack levels end it (a substack of itself:
# tests/agree/test-reader.sh, against a real session).  Here an include sits between the
# substacks: the includes nest 16 deep before the substacks do, where Linux-PAM 1.5 reads on and
# 1.6 fails the line: explain says it cannot know which, with the line
printf 'session required pam_limits.so\nsession substack loop-b\n' > "$R/etc/pam.d/loop-a"
rl explain alice --service loop-a
check "a -> b -> a through a substack: no cycle; explain stops at the include depth, with the line" \
	sh -c "[ $rc -eq 1 ] && grep -qF 'etc/pam.d/loop-b:2: includes nested 16 deep' '$OUT' && ! grep -q 'cycle' '$OUT'"

# --- a fan-out without a cycle: 20 includes of a file that includes 20 more, 8 levels
mkroot
for i in $(seq 0 8); do
	{
		echo "session required pam_limits.so"
		[ "$i" -lt 8 ] && for _ in $(seq 20); do echo "@include fan$((i + 1))"; done
	} > "$R/etc/pam.d/fan$i"
done
rl explain alice --service fan0
show
check "fan-out: explain ends" ended
check "fan-out: explain fails (exit $rc)" test "$rc" -eq 1
check "fan-out: explain names where it stopped and the bound" \
	grep -qE "etc/pam.d/fan[0-9]+:[0-9]+: more than 1000 files" "$OUT"
rl doctor --service fan0
check "fan-out: doctor ends" ended
check "fan-out: doctor reports the bound at file:line" grep -qE "FAIL fan0: more than 1000 files.*\(etc/pam.d/fan[0-9]+:[0-9]+\)" "$OUT"
rl enable --check --service fan0
check "fan-out: enable --check ends, fails and says where" \
	sh -c "[ $rc -eq 1 ] && grep -qE 'etc/pam.d/fan[0-9]+:[0-9]+: more than 1000 files' '$OUT'"

# --- a diamond: common-session twice in sshd's stack, once through another file; read as before
mkroot
printf 'session required pam_unix.so\nsession required pam_limits.so\n' > "$R/etc/pam.d/common-session"
printf '@include common-session\nsession optional pam_permit.so\n' > "$R/etc/pam.d/common-extra"
printf '@include common-session\n@include common-extra\nsession substack common-session\n' > "$R/etc/pam.d/sshd"
printf 'UsePAM yes\nInclude /etc/ssh/sshd_config.d/*.conf\nInclude /etc/ssh/sshd_config.d/*.conf\n' > "$R/etc/ssh/sshd_config"
mkdir -p "$R/etc/ssh/sshd_config.d"
printf 'X11Forwarding no\n' > "$R/etc/ssh/sshd_config.d/a.conf"
rl explain alice --service sshd
show
check "diamond: explain succeeds (exit $rc)" test "$rc" -eq 0
check "diamond: explain's answer is pam_limits' @rdma_users line" \
	sh -c "grep -q 'soft  1 GiB.*from etc/security/limits.conf:3' '$OUT' && grep -q 'hard  1 GiB.*from etc/security/limits.conf:3' '$OUT'"
check "diamond: explain names no include problem" sh -c "! grep -q 'include cycle\|more than 1000' '$OUT'"
rl enable --check --service sshd
check "diamond: enable --check plans the line after the last pam_limits (exit $rc)" \
	sh -c "[ $rc -eq 3 ] && grep -qF 'would add pam_rdmalimit after pam_limits (etc/pam.d/common-session:2), line 4' '$OUT'"
rl doctor --service sshd
check "diamond: doctor finds pam_limits in sshd's stack" grep -q "OK   sshd: pam_limits runs in the session stack" "$OUT"
check "diamond: doctor sees UsePAM yes through the twice-included directory" grep -q "OK   sshd: UsePAM yes" "$OUT"
check "diamond: doctor names no include problem" sh -c "! grep -q 'include cycle\|more than 1000' '$OUT'"

# --- sshd_config that includes itself three times
mkroot
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/sshd"
printf 'Include /etc/ssh/sshd_config\nInclude /etc/ssh/sshd_config\nInclude /etc/ssh/sshd_config\nUsePAM yes\n' \
	> "$R/etc/ssh/sshd_config"
rl doctor
show
check "sshd_config x3: doctor ends" ended
check "sshd_config x3: doctor fails (exit $rc)" test "$rc" -eq 1
check "sshd_config x3: doctor reports the cycle at file:line" \
	grep -q "FAIL sshd: an include cycle.*Too many recursive configuration includes.*(etc/ssh/sshd_config:1)" "$OUT"

# --- sshd_config fanning out without a cycle: the first UsePAM read still counts
mkroot
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/sshd"
mkdir -p "$R/etc/ssh/f"
{ echo "UsePAM yes"; for _ in $(seq 20); do echo "Include /etc/ssh/f/f1"; done; } > "$R/etc/ssh/sshd_config"
for i in $(seq 1 8); do
	{ echo "X11Forwarding no"; [ "$i" -lt 8 ] && for _ in $(seq 20); do echo "Include f/f$((i + 1))"; done; } > "$R/etc/ssh/f/f$i"
done
rl doctor
show
check "sshd_config fan-out: doctor ends" ended
check "sshd_config fan-out: doctor warns where it stopped" \
	grep -qE "WARN sshd: more than 1000 files.*\(etc/ssh/f/f[0-9]+:[0-9]+\)" "$OUT"
check "sshd_config fan-out: the UsePAM read before counts" grep -q "OK   sshd: UsePAM yes" "$OUT"

# --- slurm.conf: 20 lines 'Include slurm.conf'
mkroot
{ echo "ClusterName=x"; for _ in $(seq 20); do echo "Include slurm.conf"; done; echo "PropagateResourceLimitsExcept=MEMLOCK"; } \
	> "$R/etc/slurm/slurm.conf"
rl doctor
show
check "slurm.conf loop: doctor ends" ended
check "slurm.conf loop: doctor reports the cycle at file:line" \
	grep -q "FAIL slurm.conf: an include cycle.*(etc/slurm/slurm.conf:2)" "$OUT"

# --- a unit with more drop-ins than the bound: doctor and apply --unit say where they stopped
mkroot
printf '[Service]\nExecStart=/bin/true\n' > "$R/etc/systemd/system/big.service"
mkdir -p "$R/etc/systemd/system/big.service.d"
for i in $(seq -w 1 1001); do printf '[Service]\nLimitMEMLOCK=1G\n' > "$R/etc/systemd/system/big.service.d/$i.conf"; done
rl doctor --unit big
show
check "1001 drop-ins: doctor ends" ended
check "1001 drop-ins: doctor says the drop-ins past the bound are not known, at the file" \
	grep -q "WARN .*big.service: more than 1000 files.*(etc/systemd/system/big.service.d/1000.conf)" "$OUT"
# apply --unit reads the drop-ins named after its own (in directory order)
for i in $(seq -w 1 1001); do mv "$R/etc/systemd/system/big.service.d/$i.conf" "$R/etc/systemd/system/big.service.d/zzz-$i.conf"; done
rl apply --unit big 2G
show
check "1001 drop-ins: apply --unit ends" ended
check "1001 drop-ins: apply --unit refuses, naming the drop-in where it stopped (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -qE 'etc/systemd/system/big.service.d/zzz-[0-9]+.conf: more than 1000 files' '$OUT'"
check "1001 drop-ins: apply --unit wrote nothing" test "$(ls "$R/etc/systemd/system/big.service.d" | grep -vc '^zzz-')" -eq 0

done_testing
