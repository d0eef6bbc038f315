#!/bin/bash
# The JSON and Prometheus writers of tool/output.c fed every byte 0x01..0xff alone, all of
# them in a row, and thousands of random strings (tests/security/output-writers): each JSON
# document is pure printable ASCII and parses with Python's strict json.loads; each string in
# it (value, key, text of lines) is the one escaping rule applied to the bytes (rdmalimits(8),
# OUTPUT): printable ASCII kept, a backslash as \\, any other byte as \xHH; the Prometheus
# samples pass promtool check metrics and a strict reading of the exposition format, and each
# label value, unescaped, is that same rule's text.  The rule is written again here, in
# Python, from the man page: it is not taken from the code under test.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

W=${top_builddir:?}/tests/security/output-writers
require_built "$W"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SEED=${OUTPUT_SEED:-$((RANDOM * 32768 + RANDOM))}
N=${OUTPUT_CASES:-5000}
diag "seed $SEED (OUTPUT_SEED=$SEED repeats this run), $N random strings"

"$W" json "$SEED" "$N" > "$T/json"
check "json: the writer ran" test $? -eq 0 -a -s "$T/json"
"$W" prom "$SEED" "$N" > "$T/prom"
check "prom: the writer ran" test $? -eq 0 -a -s "$T/prom"

cat > "$T/check.py" <<'PY'
import json, re, sys

def rule(b):
    out = []
    for c in b:
        if c == 0x5c:
            out.append("\\\\")
        elif 0x20 <= c < 0x7f:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)

def rule_lines(b):
    return "\n".join("\t".join(rule(w) for w in l.split(b"\t")) for l in b.split(b"\n"))

bad = []
def fail(n, what, line):
    if len(bad) < 10:
        bad.append("case %d: %s: %r" % (n, what, line[:200]))

def check_json(path):
    n = 0
    for n, raw in enumerate(open(path, "rb")):
        line = raw.rstrip(b"\n")
        if any(c < 0x20 or c > 0x7e for c in line):
            fail(n, "a byte outside printable ASCII in the JSON text", line)
            continue
        try:
            d = json.loads(line.decode("ascii"), strict=True)
        except ValueError as e:
            fail(n, "not JSON: %s" % e, line)
            continue
        b = bytes.fromhex(d["hex"])
        if d["s"] != rule(b):
            fail(n, "value %r, want %r" % (d["s"], rule(b)), line)
        if list(d["keyed"]) != [rule(b)]:
            fail(n, "key %r, want %r" % (list(d["keyed"]), rule(b)), line)
        if d["lines"] != rule_lines(b):
            fail(n, "lines %r, want %r" % (d["lines"], rule_lines(b)), line)
    return n + 1

SAMPLE = re.compile(r'^t_bytes\{case="([0-9]+)",hex="([0-9a-f]*)",v="((?:[ !#-\[\]-~]|\\[\\"n])*)"\} 1$')
def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"\\": "\\", '"': '"', "n": "\n"}[m.group(1)], v)

def check_prom(path):
    n = 0
    for raw in open(path, "rb"):
        line = raw.rstrip(b"\n")
        if line.startswith(b"#"):
            continue
        m = SAMPLE.match(line.decode("latin-1"))
        if not m:
            fail(n, "not a sample of the exposition format with printable ASCII label values", line)
        else:
            b = bytes.fromhex(m.group(2))
            if unescape(m.group(3)) != rule(b):
                fail(n, "label %r, want %r" % (unescape(m.group(3)), rule(b)), line)
        n += 1
    return n

count = check_json(sys.argv[2]) if sys.argv[1] == "json" else check_prom(sys.argv[2])
print("%d cases" % count)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
for f in json prom; do
	if python3 "$T/check.py" "$f" "$T/$f" > "$T/$f.out" 2>&1; then
		ok "$f: every case parses and carries the escaping rule's text ($(head -n 1 "$T/$f.out"))"
	else
		not_ok "$f: every case parses and carries the escaping rule's text" "$(cat "$T/$f.out")"
	fi
done
if command -v promtool > /dev/null 2>&1; then
	if promtool check metrics < "$T/prom" > "$T/promtool" 2>&1; then
		ok "prom: promtool check metrics accepts it"
	else
		not_ok "prom: promtool check metrics accepts it" "$(head -n 20 "$T/promtool")"
	fi
else
	skip_ci "promtool is installed (Debian package prometheus)"
fi
done_testing
