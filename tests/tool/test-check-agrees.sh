#!/bin/bash
# --check says what the real run does (rdmalimits(8) EXIT STATUS): apply, remove, apply --unit
# and remove --unit on trees that lack the directories they write in, each run twice on copies
# of one tree, once with --check and once for real.  The real run's exit status 0 with a change
# is --check's 3, no change 0 for both, a failure 1 for both with the same message; --check
# writes nothing.  limits.d missing: apply makes it (--check says the directory and the file
# would be made), remove has nothing to take out, as when limits.d holds no drop-in.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

require_built "$RDMALIMITS"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tree_sum() { (cd "$1" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort -k2); }

# mkroot DIR [nosecurity]: users, and etc/security/limits.conf without limits.d (or no
# etc/security at all); never etc/systemd/system
mkroot() {
	rm -rf "$1"
	mkdir -p "$1/etc" "$1/proc/1"
	printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n' > "$1/etc/passwd"
	printf 'root:x:0:\nalice:x:1001:\n' > "$1/etc/group"
	printf 'Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                8388608              bytes     \n' > "$1/proc/1/limits"
	if [ "${2:-}" != nosecurity ]; then
		mkdir -p "$1/etc/security"
		printf '*\tsoft\tmemlock\t8192\n' > "$1/etc/security/limits.conf"
	fi
}

# both DESC SETUP WANT-CHECK WANT-REAL ARGS...: the real run and --check on copies of a tree
# made by SETUP; their exit statuses, --check's tree unchanged, and a failure's messages alike
both() {
	local d=$1 setup=$2 wc=$3 wr=$4 before rc_c rc_r
	shift 4
	$setup "$T/c"
	$setup "$T/r"
	before=$(tree_sum "$T/c")
	"$RDMALIMITS" --root "$T/c" --flavour debian "$@" --check > "$T/c.out" 2> "$T/c.err"
	rc_c=$?
	"$RDMALIMITS" --root "$T/r" --flavour debian "$@" > "$T/r.out" 2> "$T/r.err"
	rc_r=$?
	check "$d: the real run exits $wr ($rc_r)" test "$rc_r" -eq "$wr"
	check "$d: --check exits $wc ($rc_c)" test "$rc_c" -eq "$wc"
	check "$d: --check writes nothing" test "$before" = "$(tree_sum "$T/c")"
	if [ "$wr" -eq 1 ]; then
		sed "s#$T/[cr]/#ROOT/#g" "$T/c.err" > "$T/c.msg"
		sed "s#$T/[cr]/#ROOT/#g" "$T/r.err" > "$T/r.msg"
		diff_ok "$d: --check fails with the real run's message" "$T/r.msg" "$T/c.msg"
	fi
}
nosecurity() { mkroot "$1" nosecurity; }

# --- apply without limits.d: made by the real run, predicted by --check
both "apply, no limits.d" mkroot 3 0 apply alice 1G
check "... the real run made limits.d and the drop-in" test -f "$T/r/etc/security/limits.d/zz-rdmalimits.conf"
same "... and says both" "$T/r.out" <<EOF
$T/r/etc/security/limits.d: created
$T/r/etc/security/limits.d/zz-rdmalimits.conf: created
EOF
same "... --check says both would be created" "$T/c.out" <<EOF
$T/c/etc/security/limits.d: would be created
$T/c/etc/security/limits.d/zz-rdmalimits.conf: would be created
EOF
"$RDMALIMITS" --root "$T/c" --flavour debian --json apply alice 1G --check > "$T/c.json" 2>&1
check "... --check --json: exit 3, changed, the new file's diff" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["changed"] and d["check"] and d["diff"].startswith("--- /dev/null\n") and "alice\thard\tmemlock\t1048576" in d["diff"] else 1)
' "$T/c.json"

# --- apply without etc/security: the real run cannot make limits.d, --check neither
both "apply, no etc/security" nosecurity 1 1 apply alice 1G

# --- remove without limits.d: nothing to take out, as without the drop-in
both "remove, no limits.d" mkroot 0 0 remove alice
same "... says there is nothing to remove" "$T/r.out" <<EOF
$T/r/etc/security/limits.d/zz-rdmalimits.conf: does not exist, nothing to remove
EOF
check "... and writes no limits.d" test ! -e "$T/r/etc/security/limits.d"
mkroot "$T/r"
"$RDMALIMITS" --root "$T/r" --flavour debian --json remove alice > "$T/r.json" 2> "$T/r.err"
check "... --json: exit 0, nothing changed" test $? -eq 0 -a "$(cat "$T/r.json")" = \
	"{\"changed\": false, \"file\": \"$T/r/etc/security/limits.d/zz-rdmalimits.conf\", \"diff\": \"\"}"
both "remove, no etc/security" nosecurity 0 0 remove alice
# and with limits.d but no drop-in, as before
withdir() { mkroot "$1" && mkdir "$1/etc/security/limits.d"; }
both "remove, limits.d without the drop-in" withdir 0 0 remove alice

# --- apply --unit without etc/systemd/system: refused by both, --force or not
both "apply --unit --force, no etc/systemd/system" mkroot 1 1 apply --unit foo 1G --force
check "... says it is no systemd system" grep -q "etc/systemd/system does not exist: is this a systemd system?" "$T/c.err"
both "remove --unit, no etc/systemd/system" mkroot 0 0 remove --unit foo
withunits() { mkroot "$1" && mkdir -p "$1/etc/systemd/system" && printf '[Service]\nExecStart=/bin/true\n' > "$1/etc/systemd/system/foo.service"; }
both "apply --unit, the unit without drop-ins" withunits 3 0 apply --unit foo 1G
done_testing
