#!/bin/bash
# libpam's reader of pam.d files against the tool's model of it: for each stack below, a real
# session (tests/diff/pam-session: pam_start_confdir() over the stack, Debian 12's libpam) and
# `rdmalimits --root TREE explain root --service S --json` say the same: the session opens, or
# pam_open_session() returns the same code, or pam_start() fails, or never returns.  The
# stacks are the shapes libpam reads otherwise than line by line and word by word: its line
# buffer of 1024 bytes (a longer line is read in pieces, the rest of a long comment is a line of
# its own, a continued line that fills the buffer up to a backslash loops for ever), DOS line
# ends (a carriage return is part of the last word), a file that ends inside a continued line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

PAM_SESSION=${PAM_SESSION:-$top_builddir/tests/diff/pam-session}
require_built "$PAM_SESSION" "$RDMALIMITS"
permit=$(compgen -G "/lib/*/security/pam_permit.so" || compgen -G "/usr/lib/*/security/pam_permit.so") ||
	skip_all "pam_permit.so not installed"
permit=${permit%%$'\n'*}
moddir=$(dirname "$permit")

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/pam.d" "$R/etc/security" "$R$moddir"
# the tree's module directory: what the model asks whether libpam can load a module
cp "$moddir/pam_permit.so" "$moddir/pam_deny.so" "$moddir/pam_limits.so" "$moddir/pam_succeed_if.so" "$R$moddir/"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\n' > "$R/etc/group"
: > "$R/etc/security/limits.conf"
printf 'session required pam_permit.so\n' > "$R/etc/pam.d/other"

# the stacks, written byte for byte
python3 - "$R/etc/pam.d" <<'EOF'
import os, sys
d = sys.argv[1]
def put(name, text):
    with open(os.path.join(d, name), "wb") as f:
        f.write(text.encode())
put("plain", "session required pam_permit.so\n")
# DOS line ends: the module is "pam_permit.so\r", which libpam cannot load
put("crlf", "session required pam_permit.so\r\n")
put("crlf-optional", "session required pam_permit.so\nsession optional pam_deny.so\r\n")
# ... an argument ending in \r is the module's business: pam_permit takes any
put("crlf-arg", "session required pam_permit.so x\r\n")
# a line longer than 1023 bytes: the first piece has no module, the rest is a line of its own
put("long", "session required" + " " * 1100 + "pam_permit.so\n")
# the module's name across the boundary: the first piece names "pam_d"
put("long-name", "session required".ljust(1018) + "pam_deny.so\n")
# the longest line that is one piece, and one byte more (the newline alone is the second piece)
put("fits", "session required pam_deny.so".ljust(1022) + "\n")
put("fits-1", "session required pam_deny.so".ljust(1023) + "\n")
# a long comment: what follows its first 1023 bytes is read as a line
put("comment-hides", "session required pam_permit.so #".ljust(1023) + "session required pam_deny.so\n")
put("comment-tail", "session required pam_permit.so #" + "x" * 1100 + "\n")
# a continued line whose second piece is cut at the buffer's end: "pam_d"
put("cont-cut", "session required \\\n" + " " * 1000 + "pam_deny.so\n")
# a continued line filling the buffer up to its backslash: libpam reads it for ever
put("cont-hang", "session".ljust(1022) + "\\\nrequired pam_permit.so\n")
# ... one byte shorter: fgets() has room for one byte of the next line, "session r" has no module
put("cont-tight", "session".ljust(1021) + "\\\nrequired pam_permit.so\n")
# a file that ends inside a continued line: libpam gives up on it
put("cont-end", "session required pam_permit.so\nsession required \\\n")
# pam_succeed_if, which the model evaluates for the user (root here, in the tree and on the host)
def cond(name, control, args, tail="session required pam_deny.so\nsession required pam_permit.so\n"):
    put(name, "session %s pam_succeed_if.so %s\n%s" % (control, args, tail))
cond("if-user", "[success=1 default=ignore]", "user = root")
cond("if-user-not", "[success=1 default=ignore]", "user = nobody")
cond("if-uid", "sufficient", "uid < 1000 quiet", "session required pam_deny.so\n")
cond("if-uid-not", "sufficient", "uid >= 1000 quiet", "session required pam_deny.so\n")
cond("if-group", "[success=1 default=ignore]", "user ingroup root")
cond("if-notgroup", "[success=1 default=ignore]", "user notingroup root")
cond("if-service", "[success=1 default=ignore]", "service in sshd:if-service:login")
cond("if-glob", "[success=1 default=ignore]", "user =~ r*t quiet_success")
cond("if-two", "[success=1 default=ignore]", "uid eq 0 user != root")
cond("if-incomplete", "required", "user =", "session required pam_permit.so\n")
cond("if-badqual", "required", "user foo root", "session required pam_permit.so\n")
cond("if-notnum", "[success=1 default=ignore]", "uid < abc")
# a module whose name is empty once libpam cuts directories and extension: it refuses the line,
# of any type, and pam_start() fails
put("modname", "session optional pam_permit.so/\nsession required pam_permit.so\n")
put("modname-auth", "auth required .so\nsession required pam_permit.so\n")
# a directory included is read as an empty file
put("dirinc", "session include /tmp\nsession required pam_permit.so\n")
# a value named twice in a control: the last counts; default= twice: the first counts
put("ctl-dup", "session [success=ok success=bad] pam_permit.so\n")
put("ctl-dupdef", "session [default=ok default=bad] pam_permit.so\n")
# the token after a bracketed control starts right after its ']': a carriage return is the
# module, a module glued to it is the module
put("ctl-cr", "session [default=bad]\r\n")
put("ctl-glued", "session [success=ok default=bad]pam_permit.so\n")
# an include without a file name, on a line of another type: the process dies in pam_start()
put("noname-auth", "session required pam_permit.so\nauth include\n")
# an include cycle through another type's lines (libpam follows it for that type, until the
# process dies); by absolute path (libpam reads names from /etc/pam.d even under a confdir)
put("cyc-account", "session required pam_permit.so\naccount include %s/cyc-account\n" % d)
# ... and another type's include of a file that does not exist: nothing of the session's
put("gone-account", "session required pam_permit.so\naccount include %s/no-such-file\n" % d)
# a cycle through a substack ends at libpam's 16 levels, the innermost line failing; one
# through include never ends (the process dies)
put("cyc-sub", "session substack %s/cyc-sub\nsession required pam_permit.so\n" % d)
put("cyc-inc", "session required pam_permit.so\nsession include %s/cyc-inc\n" % d)
EOF
# the model reads an absolute path inside the tree: the same files there
mkdir -p "$R$R/etc"
cp -r "$R/etc/pam.d" "$R$R/etc/"
mkdir -p "$R/tmp"

# real SERVICE: what libpam does: opened, PAM_xxx (pam_open_session's code), pam_start (it
# fails), hang (no answer in 10 s), crash (the process dies)
real() {
	local out rc
	out=$(timeout 10 "$PAM_SESSION" "$1" root "$R/etc/pam.d" 2>/dev/null)
	rc=$?
	if [ $rc -eq 124 ]; then echo hang; return; fi
	if [ $rc -eq 1 ]; then echo pam_start; return; fi
	if [ $rc -ge 128 ]; then echo crash; return; fi
	out=${out#rc=}
	out=${out%% *}
	[ "$out" = PAM_SUCCESS ] && echo opened || echo "$out"
}

# model SERVICE: the same words from explain's JSON; a stack it cannot read says why instead
# (an include cycle, which 1.5.2 follows until the process dies: "crash")
model() {
	"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json explain root --service "$1" 2>"$T/model.err" |
		python3 -c '
import json, re, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    err = open(sys.argv[1]).read()
    print("crash" if "an include cycle" in err and "until the process crashes" in err else "unknown: " + err)
    sys.exit(0)
c = d.get("cause") or ""
if d["session"] in ("limits", "no-limits"):
    print("opened")
elif "never returns" in c:
    print("hang")
elif "dies in pam_start" in c:
    print("crash")
elif "pam_start()" in c:
    print("pam_start")
else:
    m = re.search(r"returns (PAM_[A-Z_]+)", c)
    print(m.group(1) if m else "fails: " + c)' "$T/model.err"
}

# expected answers, each measured once with Debian 12's libpam (the real column checks them
# again on every run); pam_start() lowercases the service's name (IF-USER-NOT reads if-user-not,
# and pam_succeed_if sees the service as if-user-not)
while read -r svc want; do
	r=$(real "$svc")
	m=$(model "$svc")
	check "$svc: libpam: $want" test "$r" = "$want"
	check "$svc: the model agrees with libpam ($r): $m" test "$m" = "$r"
done <<'E'
plain opened
crlf PAM_MODULE_UNKNOWN
crlf-optional opened
crlf-arg opened
long PAM_PERM_DENIED
long-name PAM_MODULE_UNKNOWN
fits PAM_SESSION_ERR
fits-1 PAM_SESSION_ERR
comment-hides PAM_SESSION_ERR
comment-tail opened
cont-cut PAM_MODULE_UNKNOWN
cont-hang hang
cont-tight PAM_PERM_DENIED
cont-end pam_start
if-user opened
if-user-not PAM_SESSION_ERR
if-uid opened
if-uid-not PAM_SESSION_ERR
if-group opened
if-notgroup PAM_SESSION_ERR
if-service opened
if-glob opened
if-two PAM_SESSION_ERR
if-incomplete PAM_SERVICE_ERR
if-badqual PAM_SERVICE_ERR
if-notnum PAM_SESSION_ERR
IF-USER-NOT PAM_SESSION_ERR
IF-SERVICE opened
modname pam_start
modname-auth pam_start
dirinc opened
ctl-dup PAM_PERM_DENIED
ctl-dupdef opened
ctl-cr PAM_MODULE_UNKNOWN
ctl-glued opened
noname-auth crash
cyc-account crash
gone-account opened
cyc-sub PAM_PERM_DENIED
cyc-inc crash
E
# a condition with use_uid (the calling process's user): not evaluated, and said
printf 'session required pam_succeed_if.so use_uid uid >= 1\nsession required pam_permit.so\n' > "$R/etc/pam.d/if-useuid"
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json explain root --service if-useuid > "$T/out" 2>&1
check "a required condition with use_uid: assumed, and said" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["pam_session"]["assumed_success"] != "etc/pam.d/if-useuid:1 '"'"'required pam_succeed_if.so'"'"'")' "$T/out"
# a condition on what the model does not know (the remote host): its success is assumed, and said
cond() { printf 'session %s pam_succeed_if.so %s\nsession required pam_deny.so\nsession required pam_permit.so\n' "$1" "$2"; }
cond '[success=1 default=ignore]' 'rhost = example.org' > "$R/etc/pam.d/if-rhost"
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json explain root --service if-rhost > "$T/out" 2>&1
check "a condition on the remote host: assumed, and said" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["pam_session"]["assumed_success"] != "etc/pam.d/if-rhost:1 '"'"'[success=1 default=ignore] pam_succeed_if.so'"'"'")' "$T/out"
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json explain root --service if-user > "$T/out" 2>&1
check "... and nothing assumed where the model evaluates the condition" python3 -c '
import json, sys; sys.exit(json.load(open(sys.argv[1]))["pam_session"]["assumed_success"] is not None)' "$T/out"

# the service called other: libpam reads pam.d/other twice, as the service's file and as
# other's, into one list; a jump past the end of the first copy lands in the second
T2=$T/other
mkdir -p "$T2"
jumpy() { # MIDDLE-LINE: the middle line between two jumps over one line
	printf 'session [success=1 default=ignore] pam_permit.so\n%s\nsession [success=1 default=ignore] pam_permit.so\n' "$1"
}
jumpy "session optional pam_exec.so /bin/sh -c [test \$PAM_TYPE = close_session || echo ran >> $T2/log]" > "$T2/other"
cp "$T2/other" "$T2/svc"
"$PAM_SESSION" other root "$T2" > /dev/null 2>&1
check "libpam: in the service other, the line both jumps skip runs (from the second copy)" grep -qx ran "$T2/log"
rm -f "$T2/log"
"$PAM_SESSION" svc root "$T2" > /dev/null 2>&1
check "libpam: in any other service it does not" test ! -e "$T2/log"
jumpy "session required pam_limits.so" > "$R/etc/pam.d/other"
printf 'root soft memlock 2048\nroot hard memlock 2048\n' > "$R/etc/security/limits.conf"
requested() {
	"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json explain root --service "$1" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["memlock"]["requested"]["soft"])'
}
check "the model: pam_limits runs in the service other" test "$(requested other)" = 2097152
check "the model: and not in a service that falls back to other" test "$(requested no-such-service)" = None
printf 'session required pam_permit.so\n' > "$R/etc/pam.d/other"
: > "$R/etc/security/limits.conf"

# what the tool says of the two that never open a session, with the file and line
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 explain root --service cont-hang > "$T/out" 2>&1
check "explain names the line that makes libpam loop" grep -q "etc/pam.d/cont-hang:1: the continued line starting here fills libpam's 1024-byte line buffer" "$T/out"
"$RDMALIMITS" --root "$R" --flavour debian-1.5.2 --json doctor --service cont-end > "$T/out" 2>&1
check "doctor says why libpam gives up on a file" grep -q "the file ends inside a continued line" "$T/out"
check "... and not that an include is missing" eval '! grep -q "@include" "$T/out"'

done_testing
