#!/bin/bash
# Every byte a user can put in a process name (0x01..0x1f, 0x7f, 0x80..0xff) and in a user
# name (from NSS: a private copy of /etc/passwd) as `rdmalimits status` shows it in each of
# its outputs: the text table, --json and --prometheus give the one escaping rule's text
# (rdmalimits(8), OUTPUT: printable ASCII kept, a backslash as \\, any other byte as \xHH),
# JSON parses (strict) and Prometheus passes promtool, and no output holds a byte outside
# printable ASCII.  The processes belong to root and to a throwaway uid (64377), mlock 64 KiB
# each (so --prometheus --threshold 4K lists them) and are killed at the end; status runs with
# --pid for each.  A name with a newline, a backslash and an ESC too: the kernel shows the first
# two in /proc/PID/status as \n and \\, status shows comm's own bytes (/proc/PID/comm), the
# same as doctor --pid, each escaped once.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
require_root "processes of another uid, a private /etc/passwd"
if [ -z "${STATUS_ESCAPE_INSIDE:-}" ]; then
	STATUS_ESCAPE_INSIDE=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
no_plan

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "python3 is missing"
T=$(mktemp -d)
HOLDERS=()
cleanup() {
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
chmod 755 "$T"
mkdir -m 1777 "$T/ready"

# a user whose name holds an escape sequence, DEL, a backslash and bytes above 0x7f
UID_X=64377
UNAME=$'u\x1b[31m\x7f\\\xff\xc3\xa4'
cp /etc/passwd "$T/passwd"
printf '%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$UNAME" $UID_X $UID_X >> "$T/passwd"
chmod 644 "$T/passwd"
mount --bind "$T/passwd" /etc/passwd

# hold NAME_HEX [SETPRIV ARGS...]: a process named so, with 64 KiB locked; its pid in $held
cat > "$T/hold.py" <<'PY'
import ctypes, mmap, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(15, ctypes.c_char_p(bytes.fromhex(sys.argv[1])), 0, 0, 0) != 0:
    sys.exit("prctl")
buf = mmap.mmap(-1, 65536)
if libc.mlock(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(buf))), ctypes.c_size_t(65536)) != 0:
    sys.exit("mlock")
open(sys.argv[2], "w").close()
signal.pause()
PY
hold() {
	local hex=$1 ready=$T/ready/$RANDOM
	shift
	"$@" "$PY" "$T/hold.py" "$hex" "$ready" &
	held=$!
	HOLDERS+=("$held")
	for ((i = 0; i < 200; i++)); do [ -e "$ready" ] && return 0; sleep 0.05; done
	return 1
}

# the names: every byte but NUL, newline and backslash, 15 a name (comm's length)
BYTES=$("$PY" -c 'print("".join("%02x" % b for b in list(range(1, 0x0a)) + list(range(0x0b, 0x20)) + [0x7f] + list(range(0x80, 0x100))))')
NAMES=()
for ((o = 0; o < ${#BYTES}; o += 30)); do NAMES+=("${BYTES:o:30}"); done
# and one with the two the kernel escapes itself in status (and an ESC), and the user's process
NAMES+=("$(printf 'a\nb\\c\033' | od -An -tx1 | tr -d ' \n')")
: > "$T/cases"
for n in "${NAMES[@]}"; do
	hold "$n" || { fail "a process named $n started"; continue; }
	echo "$held $n root" >> "$T/cases"
done
hold 6f776e65722d6f662d78 setpriv --reuid $UID_X --regid $UID_X --clear-groups && echo "$held 6f776e65722d6f662d78 x" >> "$T/cases"
check "the processes started ($(wc -l < "$T/cases") of $((${#NAMES[@]} + 1)))" test "$(wc -l < "$T/cases")" -eq $((${#NAMES[@]} + 1))

while read -r pid hex who; do
	for f in text json prom; do
		case $f in
		text) opt=() ;;
		json) opt=(--json) ;;
		prom) opt=(--prometheus --threshold 4K) ;;
		esac
		timeout 60 "$RDMALIMITS" status "${opt[@]}" --pid "$pid" > "$T/$pid.$f" 2> "$T/$pid.$f.err"
		echo $? > "$T/$pid.$f.rc"
	done
	timeout 60 "$RDMALIMITS" doctor --pid "$pid" > "$T/$pid.doctor" 2>&1
done < "$T/cases"

cat > "$T/check.py" <<'PY'
import json, re, subprocess, sys

T, uname_hex = sys.argv[1], sys.argv[2]

def rule(b):
    return "".join("\\\\" if c == 0x5c else chr(c) if 0x20 <= c < 0x7f else "\\x%02x" % c for c in b)

def unescape_prom(v):
    return re.sub(r'\\(.)', lambda m: {"\\": "\\", '"': '"', "n": "\n"}[m.group(1)], v)

def report(good, desc, why=""):
    why = " ".join(str(why).split())
    print("%s\t%s%s" % ("ok" if good else "not ok", desc, "" if good or not why else ": " + why))

uname = bytes.fromhex(uname_hex)
for line in open(T + "/cases"):
    pid, hexname, who = line.split()
    name = bytes.fromhex(hexname)
    label = "pid %s named %s" % (pid, rule(name))
    want_comm, want_user = rule(name), (rule(uname) if who == "x" else "root")
    outs = {}
    for f in ("text", "json", "prom"):
        rc = open("%s/%s.%s.rc" % (T, pid, f)).read().strip()
        data = open("%s/%s.%s" % (T, pid, f), "rb").read() + open("%s/%s.%s.err" % (T, pid, f), "rb").read()
        raw = [c for c in data if (c < 0x20 and c != 0x0a) or c > 0x7e]
        report(rc == "0" and not raw, "%s: %s: exit 0, only printable ASCII" % (label, f),
               "exit %s, raw bytes %s" % (rc, bytes(raw[:8])))
        outs[f] = data.decode("latin-1")
    # text: the row of the pid, its COMM and USER cells
    row = [l for l in outs["text"].splitlines() if re.match(r"\s*%s\s" % pid, l)]
    ok = len(row) == 1 and " %s " % want_comm in row[0] + " " and " %s " % want_user in row[0]
    report(ok, "%s: text: COMM %s, USER %s" % (label, want_comm, want_user), repr(row))
    try:
        d = json.loads(outs["json"], strict=True)
        p = [x for x in d["processes"] if x["pid"] == int(pid)]
        ok = len(p) == 1 and p[0]["comm"] == want_comm and p[0]["user"] == want_user
        ok = ok and (who != "x" or [u["user"] for u in d["users"]] == [want_user])
        report(ok, "%s: json: comm and user" % label, repr(p[:1]))
    except ValueError as e:
        report(False, "%s: json parses" % label, str(e))
    m = re.search(r'^rdmalimit_process_memlock_limit_bytes\{pid="%s",comm="((?:[^"\\]|\\.)*)",user="((?:[^"\\]|\\.)*)"' % pid,
                  outs["prom"], re.M)
    ok = m is not None and unescape_prom(m.group(1)) == want_comm and unescape_prom(m.group(2)) == want_user
    report(ok, "%s: prometheus: comm and user labels" % label, m.group(0) if m else "no sample")
    chk = subprocess.run(["promtool", "check", "metrics"], input=outs["prom"].encode("latin-1"),
                         capture_output=True)
    report(chk.returncode == 0, "%s: prometheus: promtool check metrics" % label, chk.stderr.decode()[:200])
    # doctor --pid reads comm the same way (/proc/PID/comm): the same text
    doc = open("%s/%s.doctor" % (T, pid), "rb").read().decode("latin-1")
    report(" %s (pid %s)" % (want_comm, pid) in doc, "%s: doctor --pid shows the comm status shows" % label,
           [l for l in doc.splitlines() if "(pid %s)" % pid in l][:1])
PY
if command -v promtool > /dev/null 2>&1; then
	"$PY" "$T/check.py" "$T" "$(printf '%s' "$UNAME" | od -An -tx1 | tr -d ' \n')" > "$T/results" 2>&1
	while IFS=$'\t' read -r verdict desc; do
		if [ "$verdict" = ok ]; then ok "$desc"; else fail "$desc"; fi
	done < "$T/results"
	judged=$(grep -c $'^ok\t\|^not ok\t' "$T/results")
	if [ "$judged" -eq $(($(wc -l < "$T/cases") * 8)) ] && ! grep -qv $'^ok\t\|^not ok\t' "$T/results"; then
		ok "the checker judged every process, 8 checks each ($judged)"
	else
		not_ok "the checker judged every process, 8 checks each ($judged)" "$(grep -v $'^ok\t\|^not ok\t' "$T/results")"
	fi
else
	skip_ci "promtool is installed (Debian package prometheus)"
fi
done_testing
