#!/bin/bash
# A --root tree whose user name (etc/passwd), limits lines and limits.d file names hold an
# escape sequence, a byte above 0x7f, a backslash and a newline: explain, list, check and
# doctor show them, in text and with --json, through the one escaping rule (rdmalimits(8),
# OUTPUT): only printable ASCII in any output, strict JSON, and the name as the rule's text
# in both (list: also the names it does not read or cannot open).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/security/limits.d" "$R/proc/1" "$R/etc/pam.d"
U=$'u\x1b[2J\xff\\v'
ESC='u\x1b[2J\xff\\v'       # the rule's text of $U
printf 'root:x:0:0:root:/root:/bin/sh\n%s:x:1001:1001::/home/x:/bin/sh\n' "$U" > "$R/etc/passwd"
printf 'root:x:0:\ng:x:1001:\n' > "$R/etc/group"
printf '*\tsoft\tmemlock\t8192\n%s\thard\tmemlock\t4096\n' "$U" > "$R/etc/security/limits.conf"
printf '%s\tsoft\tmemlock\t1024\n' "$U" > "$R/etc/security/limits.d/a"$'\x1b\xfe'".conf"
# names pam_limits does not read (list's last lines) and cannot open: an ESC and a newline
# that, raw, would clear the screen and start a forged line
: > "$R/etc/security/limits.d/s"$'\x1b[2J\nforged.txt'
ln -s /nowhere "$R/etc/security/limits.d/u"$'\x1b[2J\nforged.conf'
printf 'session required pam_limits.so\n' > "$R/etc/pam.d/sshd"
printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$R/proc/1/limits"

printable_only() { ! LC_ALL=C grep -qP '[^\x20-\x7e\n]' "$1"; }
for cmd in "explain" "list" "check" "doctor"; do
	args=()
	[ "$cmd" = explain ] && args=("$U")
	for j in "" --json; do
		"$RDMALIMITS" --root "$R" --flavour debian $j "$cmd" "${args[@]}" > "$T/out" 2> "$T/err"
		rc=$?
		d="$cmd${j:+ $j}"
		check "$d: ran (exit $rc)" test "$rc" -le 1
		cat "$T/out" "$T/err" > "$T/all"
		check "$d: only printable ASCII on stdout and stderr" printable_only "$T/all"
		if [ -n "$j" ]; then
			check "$d: strict JSON with the name as the rule's text" python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], encoding="ascii").read(), strict=True)
want = sys.argv[2]
def strings(x):
    if isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)
    elif isinstance(x, str):
        yield x
found = [s for s in strings(d) if want in s]
sys.exit(0 if found or sys.argv[3] == "doctor" else 1)
' "$T/out" "$ESC" "$cmd"
		elif [ "$cmd" != doctor ]; then
			check "$d: the name as the rule's text" grep -qF -- "$ESC" "$T/out"
		fi
	done
done
"$RDMALIMITS" --root "$R" --flavour debian list > "$T/list" 2>&1
check "list: the file name as the rule's text" grep -qF 'etc/security/limits.d/a\x1b\xfe.conf:1' "$T/list"
check "list: a file it does not read, as the rule's text" \
	grep -qxF '# etc/security/limits.d/s\x1b[2J\x0aforged.txt: not read (the name does not end in .conf; pam_limits reads only limits.d/*.conf)' "$T/list"
check "list: a file it cannot open, as the rule's text" \
	grep -qxF '# etc/security/limits.d/u\x1b[2J\x0aforged.conf: No such file or directory' "$T/list"
check "list: no line forged by a name" bash -c '! grep -q "^forged" "$1"' _ "$T/list"
done_testing
