#!/bin/bash
# The session model against the real setuid su, in the sandbox of tests/e2e/sandbox.sh
# (private mount, PID and network namespaces; copies of /etc/passwd, group, pam.d and security
# bound over the real ones).  Each case is one where explain, check, doctor or verify said
# something a real su session contradicted (each checked against the previous code):
#   1. "conf=" with nothing after it (a stray space: "conf= /etc/security/a.conf"): pam_limits
#      reads the file "", fails, and su fails; the tool ignored the argument and predicted the
#      limits of limits.d.
#   2. a module without a session function (pam_nologin, pam_wheel: no pam_sm_open_session) in
#      the session stack: libpam returns PAM_MODULE_UNKNOWN.  required after pam_limits: su
#      fails; as the condition of a jump over pam_limits: the jump is never taken.  The tool
#      took both modules as succeeding.
#   3. pam_limits' setrlimit fails as a whole (a hard entry above the caller's hard limit):
#      explain named the soft entry as the source of the soft value, which is the old one.
#   4. verify's target: an entry that asks soft above its own hard (pam_limits lowers soft):
#      the cause was "nothing the model knows"; and a soft-only entry (the hard limit is no
#      part of the target: it was PID 1's).
#   5. Debian's chroot item before pam_rdmalimit: the module runs inside the directory and
#      finds no policy there; explain predicted the policy's value.
#   6. apply of an entry that pam_rdmalimit changes after pam_limits (a rule with lower = true
#      below it, or a rule above it): apply said the entry takes effect (exit 0), and su got
#      another value.
#   7. a jump over pam_rdmalimit for the user's group: explain and verify said the module is
#      not in the stack, and gave rdmalimits enable as the fix, which changes nothing.
#   8. a jump on a condition the model assumes (the remote host): verify's own session takes
#      the other path; its reason blamed another module instead of naming the assumed line.
# Root only.
set -u

# shellcheck source=e2e.sh
. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

SU=/bin/su

if ! sandbox_inside; then
	e2e_su_outer "the session model against the real su" python3
	sandbox_require "${need[@]}"
	sandbox_outer "/etc/pam.d, /etc/security, PAM module directory" "$0" "$@"
	done_testing
fi

# ---------------------------------------------------------------------------------------------
e2e_inner_by_name
SEC=$SANDBOX_DIR/security
H=$(($(ulimit -H -l) * 1024))
[ "$H" -ge $((8 * 1024 * 1024)) ] || { echo "Bail out! the hard memlock limit here is $H bytes; 8 MiB needed"; exit 1; }
HK=$((H / 1024))
diag "hard memlock limit read here: $H bytes"
for m in pam_nologin pam_wheel; do
	[ -f "$SEC/$m.so" ] || { echo "Bail out! $m.so is not in the module directory"; exit 1; }
done
sandbox_user alice || { echo "Bail out! sandbox_user"; exit 1; }

# su's stack: anyone may su (the test is about the session), then SESSION
stack() {
	printf 'auth sufficient pam_permit.so\naccount required pam_permit.so\nsession required pam_permit.so\n%s' "$1" \
		>/etc/pam.d/su
}
limits() { printf '%s\n' "$@" >/etc/security/limits.d/50-e2e.conf; }
# the real session: "SOFT HARD" in KiB, or "fails"
real() { su -s /bin/sh alice -c 'echo $(ulimit -l) $(ulimit -Hl)' 2>"$tmp/su.err" </dev/null || echo fails; }
# explain's answer in the same shape: the session's end values in KiB, or "fails"
predicted() {
	"$RDMALIMITS" --json explain alice --service su >"$tmp/x.json" 2>"$tmp/x.err" || { echo "explain-exit-$?"; return; }
	python3 - "$tmp/x.json" <<'PY' 2>>"$tmp/x.err"
import json, sys
d = json.load(open(sys.argv[1]))
def kib(v):
    return "unlimited" if v == "unlimited" else str(v // 1024)
if d["session"] in ("fails", "refused"):
    print("fails")
elif d.get("policy"):
    print(kib(d["policy"]["session"]["soft"]), kib(d["policy"]["session"]["hard"]))
else:
    m, s = d["memlock"], d["service"]
    print(kib(m["soft"] if m["soft"] is not None else s["memlock_soft"]),
          kib(m["hard"] if m["hard"] is not None else s["memlock_hard"]))
PY
}
agree() {
	local got want
	got=$(real)
	want=$(predicted)
	if [ "$got" = "$want" ] && [ "$got" = "$2" ]; then
		ok "$1: explain predicts the real su: $got"
	else
		fail "$1: explain predicts the real su"
		diag "real su: $got (expected $2)" "explain: $want" "$(cat "$tmp/su.err" "$tmp/x.err" "$tmp/x.json" 2>/dev/null)"
	fi
}

# --- 1. conf= with nothing after it
limits "alice - memlock 2048"
printf 'alice - memlock 3072\n' >/etc/security/a.conf
stack "session required pam_limits.so conf= /etc/security/a.conf
"
agree "an empty conf=" fails
check "... explain says why: the file \"\" cannot be read" grep -qF '\"\" (an empty conf=)' "$tmp/x.json"
"$RDMALIMITS" check >"$tmp/check" 2>&1
check "... check: exit 1" test $? = 1
check "... check names the line and the file pam_limits cannot read" \
	grep -q 'pam.d/su:4: error: pam_limits reads "" (an empty conf=) (conf=), which it cannot read' "$tmp/check"
stack "session required pam_limits.so conf=/etc/security/a.conf
"
agree "conf=/etc/security/a.conf (the same line written right)" "3072 3072"

# --- 2. modules without a session function
limits "* soft memlock 1024" "* hard memlock $HK"
stack "session required pam_limits.so
session required pam_nologin.so
"
agree "required pam_nologin (no pam_sm_open_session) after pam_limits" fails
check "... explain: PAM_MODULE_UNKNOWN" grep -q 'PAM_MODULE_UNKNOWN' "$tmp/x.json"
"$RDMALIMITS" check >"$tmp/check" 2>&1
check "... check names the line: no session function" \
	grep -q "pam.d/su:5: error: the module 'pam_nologin.so' has no session function" "$tmp/check"
"$RDMALIMITS" doctor --service su >"$tmp/doctor" 2>&1
check "... doctor: the su stack fails" grep -q 'FAIL su: the session stack fails (pam_open_session() returns PAM_MODULE_UNKNOWN)' "$tmp/doctor"
stack "session [success=1 default=ignore] pam_wheel.so trust
session required pam_limits.so
"
agree "a jump over pam_limits on the success of pam_wheel (no session function)" "1024 $HK"
"$RDMALIMITS" doctor --service su >"$tmp/doctor" 2>&1
check "... doctor does not say the jump is taken" sh -c "! grep -q 'jumps over pam_limits' '$tmp/doctor'"

# --- 3. the whole setrlimit fails: both values are the old ones (su keeps its caller's limits:
# this shell's, whose soft limit is raised to the hard one here)
ulimit -S -l "$HK"
limits "alice soft memlock 2048" "alice hard memlock $((HK * 2))"
stack "session required pam_limits.so
"
agree "a hard entry above the caller's hard limit" "$HK $HK"
check "... explain: the soft value is kept, not the soft entry's" \
	test "$(json "$tmp/x.json" 'd["memlock"]["soft_source"].startswith("kept: ")')" = True

# --- 4. verify's target
limits "alice hard memlock 4096" "alice soft memlock 6144"
"$RDMALIMITS" --json verify alice --service su >"$tmp/v.json" 2>&1
check "soft above hard: verify BELOW TARGET (exit 1), the hard entry named, with its fix" \
	test "$(json "$tmp/v.json" 'd["verdict"], d["shortfall"]["where"].endswith("50-e2e.conf:1"), "at least 6 MiB" in d["shortfall"]["fix"]')" = \
	"below-target True True"

# --- 5. Debian's chroot item before pam_rdmalimit
J=$SANDBOX_DIR/jail
mkdir -p "$J/bin" "$J/tmp"
cp /bin/busybox "$J/bin/sh" 2>/dev/null || {
	cp /bin/dash "$J/bin/sh"
	for l in $(ldd /bin/dash | grep -o '/[^ ]*'); do
		mkdir -p "$J$(dirname "$l")" && cp "$l" "$J$l"
	done
}
sandbox_policy <<'EOF'
version = 1;
rules = ( { user = "alice"; memlock = "4M"; } );
EOF
limits "* soft memlock 1024" "* hard memlock $HK" "alice - chroot $J"
stack "session required pam_limits.so
session optional pam_rdmalimit.so
"
got=$(real)
want=$("$RDMALIMITS" --json explain alice --service su 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["policy"]["session"]; print(s["soft"]//1024, s["hard"]//1024)')
check "a chroot before pam_rdmalimit: the real su keeps pam_limits' values ($got)" test "$got" = "1024 $HK"
check "... and explain predicts them, not the policy's 4 MiB ($want)" test "$want" = "1024 $HK"
"$RDMALIMITS" --json explain alice --service su >"$tmp/x.json" 2>&1
check "... explain: the chroot line, no policy inside, not assumed" \
	test "$(json "$tmp/x.json" 'd["policy"]["chroot"]["line"].endswith("50-e2e.conf:3"), d["policy"]["chroot"]["policy_inside"], d["policy"]["chroot"]["assumed"]')" = \
	"True False False"
"$RDMALIMITS" --json verify alice --service su >"$tmp/v.json" 2>&1
check "... verify: as predicted, below the policy's target, the chroot named" \
	test "$(json "$tmp/v.json" 'd["agree"], d["verdict"], "chroots the session" in d["shortfall"]["why"]')" = "True below-target True"
# what the module returns in there is that of a module without a policy: strict fails the session
stack "session required pam_limits.so
session required pam_rdmalimit.so strict
"
agree "... the module strict and required: it finds no policy inside and fails the session" fails
stack "session required pam_limits.so
session optional pam_rdmalimit.so
"
mkdir -p "$J/etc/security"
cp /etc/security/rdmalimit.conf "$J/etc/security/"
"$RDMALIMITS" --json explain alice --service su >"$tmp/x.json" 2>&1
check "... with a policy inside the directory: said to be an assumption" \
	test "$(json "$tmp/x.json" 'd["policy"]["chroot"]["policy_inside"], d["policy"]["chroot"]["assumed"]')" = "True True"

# --- 6. apply against a policy that lowers after pam_limits
rm -f /etc/security/limits.d/50-e2e.conf
sandbox_policy <<'EOF'
version = 1;
lower = true;
rules = ( { user = "alice"; memlock = "1M"; } );
EOF
stack "session required pam_limits.so
session optional pam_rdmalimit.so
"
"$RDMALIMITS" --json apply alice 6M >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
check "apply alice 6M under a rule with lower = true: exit 4 ($rc), not effective" \
	test "$rc $(json "$tmp/a.json" 'd["effective"]')" = "4 False"
check "... it names the policy's rule and the remedy" \
	sh -c "grep -q 'rule user alice, lower = true' '$tmp/a.json' && grep -q 'give the value in its rule instead' '$tmp/a.json'"
check "... and wrote nothing" test ! -e /etc/security/limits.d/zz-rdmalimits.conf
"$RDMALIMITS" apply alice 6M --allow-overridden >/dev/null 2>&1
agree "... written all the same: the real su gets the rule's 1 MiB, as apply said" "1024 1024"
sandbox_policy <<'EOF'
version = 1;
rules = ( { user = "alice"; memlock = "1M"; } );
EOF
"$RDMALIMITS" --json apply alice 6M >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
check "the same rule without lower: apply says the entry takes effect (exit $rc)" \
	test "$rc $(json "$tmp/a.json" 'd["effective"]')" = "0 True"
agree "... and the real su gets the entry's 6 MiB" "6144 6144"
# a rule above the entry: the module raises the session past it (apply assumes, as for the
# entries, a service with CAP_SYS_RESOURCE; su, without it, cannot raise the hard limit and
# ends with soft = the entry's hard, still not the entry's values)
sandbox_policy <<'EOF'
version = 1;
rules = ( { user = "alice"; memlock = "3M"; } );
EOF
rm -f /etc/security/limits.d/zz-rdmalimits.conf
"$RDMALIMITS" --json apply alice --soft 1M --hard 2M >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
check "a rule above the entry: apply exit 4 ($rc), not effective" test "$rc $(json "$tmp/a.json" 'd["effective"]')" = "4 False"
"$RDMALIMITS" apply alice --soft 1M --hard 2M --allow-overridden >/dev/null 2>&1
agree "... written all the same: the real su does not end with the entry's 1 MiB soft" "2048 2048"

# --- 4b. a soft-only entry: the hard limit is no part of verify's target (it was PID 1's,
# Debian's baseline, which no entry asks; tests/unit/test-session.c has the case where it is
# above what the session gets)
sandbox_policy </dev/null
rm -f /etc/security/limits.d/zz-rdmalimits.conf
stack "session required pam_limits.so
"
limits "alice soft memlock 2048"
agree "a soft-only entry" "2048 $HK"
"$RDMALIMITS" --json verify alice --service su >"$tmp/v.json" 2>&1
rc=$?
check "... verify: OK (exit $rc), the target's hard is none (no entry asks it)" \
	test "$rc $(json "$tmp/v.json" 'd["verdict"], d["target"]["soft"], d["target"]["hard"]')" = "0 ok 2097152 None"

# --- 7. pam_rdmalimit in the stack, a jump over it for a group: the tool said "not in the
# stack" and gave the fix "rdmalimits enable --service su", which changes nothing (enable sees
# the module after pam_limits); the cause is the jump, named with its line
limits "alice soft memlock 64"
printf 'e2e_skip:x:64990:alice\n' >>/etc/group
printf 'version = 1;\nrules = ( { user = "alice"; memlock = "4M"; } );\n' >/etc/security/rdmalimit.conf
chmod 0644 /etc/security/rdmalimit.conf
stack "session required pam_limits.so
session [success=1 default=ignore] pam_succeed_if.so user ingroup e2e_skip quiet
session optional pam_rdmalimit.so
"
line=5
agree "a jump over pam_rdmalimit for alice" "64 $HK"
"$RDMALIMITS" explain alice --service su >"$tmp/x.txt" 2>&1
check "explain: the module is in the stack, the jump at its line passes over it" \
	grep -qF "pam_rdmalimit is in the su session stack (/etc/pam.d/su:6), but /etc/pam.d/su:$line '[success=1 default=ignore] pam_succeed_if.so' jumps over it for alice" "$tmp/x.txt"
grep -qF "jumps over it" "$tmp/x.txt" || sed 's/^/#   /' "$tmp/x.txt"
"$RDMALIMITS" --json verify alice --service su >"$tmp/v.json" 2>&1
rc=$?
check "verify: BELOW TARGET (exit $rc), the jump as the cause and its line as the fix, not enable" \
	test "$rc $(json "$tmp/v.json" 'd["verdict"], d["shortfall"]["where"], "jumps over" in d["shortfall"]["why"], d["shortfall"]["fix"].startswith("change /etc/pam.d/su:5")')" = \
	"1 below-target /etc/pam.d/su:5 True True"
[ $rc -eq 1 ] || sed 's/^/#   /' "$tmp/v.json"

# --- 8. a jump whose condition the model assumes (pam_succeed_if on the remote host): verify's
# own session has no remote host and takes the other path.  verify said "another module of the
# su stack (or the service) changes memlock"; it names the assumed line now
stack "session [success=1 default=ignore] pam_succeed_if.so rhost = 127.0.0.1 quiet
session required pam_limits.so
"
"$RDMALIMITS" --json verify alice --service su >"$tmp/v.json" 2>&1
rc=$?
check "an assumed condition: verify MODEL ERROR (exit $rc), the assumed line named as the likely cause" \
	test "$rc $(json "$tmp/v.json" 'd["verdict"], any("the model assumed that /etc/pam.d/su:4" in r for r in d["reasons"])')" = \
	"5 model-error True"
[ $rc -eq 5 ] || sed 's/^/#   /' "$tmp/v.json"
exit 0
