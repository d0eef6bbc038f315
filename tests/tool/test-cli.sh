#!/bin/bash
# rdmalimits command-line habits: per-command help, negative sizes reach the size parser,
# near-miss sizes get a hint, --help lists each option once, probe without RDMA, an empty
# policy file, --pid.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
mkdir -p "$R/etc/security/limits.d"
printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n' > "$R/etc/passwd"
printf 'root:x:0:\nalice:x:1001:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
: > "$R/etc/security/limits.conf"
rl() { "$RDMALIMITS" --root "$R" "$@"; }

# run DESC EXIT PATTERN ARGS...: exit status and a line of the output (stdout and stderr)
run() {
	local d=$1 want=$2 pat=$3
	shift 3
	"$RDMALIMITS" "$@" > "$T/out" 2>&1
	local rc=$?
	if [ "$rc" -eq "$want" ] && grep -q -e "$pat" "$T/out"; then
		ok "$d"
	else
		fail "$d (exit $rc)"
		sed 's/^/# /' "$T/out"
	fi
}

# --- help per command
run "apply --help: the command's usage" 0 "^ rdmalimits \[options\] apply DOMAIN" apply --help
run "apply --help: its own options" 0 "^     --soft SIZE" apply --help
check "apply --help: not the other commands' options" sh -c '! grep -q -- "--ssh\|--proc1-limits" "$1"' _ "$T/out"
run "help apply" 0 "^ rdmalimits \[options\] apply DOMAIN" help apply
run "help pin-test: --force as pin-test means it" 0 "pin more than half of MemAvailable" help pin-test
run "doctor --help: --unit as doctor means it" 0 "--unit UNIT *also examine this systemd unit" doctor --help
run "-h after the command" 0 "^ rdmalimits \[options\] check" check -h
run "help: the general usage" 0 "^Commands:" help
run "--help: the general usage" 0 "^Commands:" --help
run "help of an unknown command" 2 "unknown command 'nosuch'" help nosuch
"$RDMALIMITS" --help > "$T/out"
check "--help lists --unit once" test "$(grep -c '^ *--unit UNIT' "$T/out")" = 1
check "--help names help COMMAND" grep -q "^ help *\[COMMAND\]" "$T/out"

# --- negative sizes reach the size parser
run "apply @g -1: what is wrong with the size" 2 "size '-1': a size cannot be negative" --root "$R" apply @rdma_users -1
check "apply @g -1: not an invalid option" sh -c '! grep -q "invalid option" "$1"' _ "$T/out"
run "apply @g -1G" 2 "size '-1G': a size cannot be negative" --root "$R" apply @rdma_users -1G
run "--soft -1G" 2 "soft '-1G': a size cannot be negative" --root "$R" apply alice --soft -1G
run "pin-test -4K" 2 "'-4K': a size cannot be negative" pin-test -4K
run "after --, a word with a dash is an argument (list takes none)" 2 "list: takes no arguments ('-1')" --root "$R" list -- -1
run "after --, -odd is remove's domain, refused as a domain" 2 "domain '-odd': user and group names do not start with '-'" --root "$R" remove -- -odd
run "verify --ssh-option without --ssh" 2 "verify: --ssh-option goes with --ssh" verify alice --ssh-option -v
run "verify --ssh with an option as its destination" 2 "--ssh '-oProxyCommand=x': expected a destination" verify alice --ssh=-oProxyCommand=x
run "-1 as an option is still refused where no number belongs" 2 "" --root "$R" list -1
check "nothing was written" test ! -e "$R/etc/security/limits.d/zz-rdmalimits.conf"

# --- near misses get a hint
run "512MB: did you mean 512M" 2 "size '512MB'.*did you mean 512M?" --root "$R" apply alice 512MB
run "1GB: did you mean 1G" 2 "did you mean 1G?" --root "$R" apply alice 1GB
run "1.5G: did you mean 1536M" 2 "size '1.5G'.*did you mean 1536M?" --root "$R" apply alice 1.5G
run "1,5G: did you mean 1536M" 2 "did you mean 1536M?" --root "$R" apply alice 1,5G
run "--hard 2.5GiB: did you mean 2560M" 2 "hard '2.5GiB'.*did you mean 2560M?" --root "$R" apply alice --hard 2.5GiB
run "a bare number: the KiB hint" 2 "needs a unit" --root "$R" apply alice 1048576
run "1g is a size (apply --check: would change)" 3 "would be created" --root "$R" apply alice 1g --check
check "nothing was written" test ! -e "$R/etc/security/limits.d/zz-rdmalimits.conf"

# --- probe without an RDMA device says so
"$RDMALIMITS" probe > "$T/out" 2>&1
check "probe: no 'Function not implemented'" sh -c '! grep -q "Function not implemented" "$1"' _ "$T/out"
if ! ls /sys/class/infiniband/* > /dev/null 2>&1; then
	check "probe: 'no RDMA device'" grep -q "no RDMA device" "$T/out"
else
	skip "probe: this host has RDMA devices"
fi

# --- --pid is checked once, for every command that takes it, and echoed escaped
for cmd in "explain alice" doctor status; do
	run "$cmd --pid abc: expected a process id" 2 "^rdmalimits: --pid 'abc': expected a process id" $cmd --pid abc
	run "$cmd --pid 0 is no process" 2 "--pid '0': expected a process id" $cmd --pid 0
	run "$cmd --pid: control bytes echoed escaped" 2 "--pid 'x.x1b\[31m': expected" $cmd --pid "$(printf 'x\033[31m')"
	check "$cmd --pid: no raw escape byte in the message" sh -c '! grep -q "$(printf "\033")" "$1"' _ "$T/out"
done
run "list --pid: the option does not apply" 2 "list: option --pid does not apply" list --pid 1
# --root: the commands that work on this running system refuse it (they used to ignore it:
# status read this system's users for a user of the tree)
for cmd in "verify alice" "status alice" "pin-test 1M"; do
	run "$cmd --root: refused" 2 "${cmd%% *}: option --root does not apply" --root "$R" $cmd
	"$RDMALIMITS" ${cmd%% *} --help > "$T/help" 2>&1
	check "${cmd%% *} --help does not offer --root" sh -c '! grep -q -- "--root" "$1"' _ "$T/help"
done
# probe --save --cache: an absolute path, else a usage error and nothing written
(cd "$T" && "$RDMALIMITS" --root "$R" probe --save --cache rel.cache > "$T/out" 2>&1)
check "probe --save --cache rel.cache: usage error (2)" test $? -eq 2
check "... says so" grep -q "probe: --cache 'rel.cache': expected the absolute path of a file; nothing written" "$T/out"
check "... nothing written" test ! -e "$T/rel.cache"
run "list with an argument: it takes none, said so" 2 "list: takes no arguments ('extra')" --root "$R" list extra
run "doctor --probe-timeout without --pid: nothing probes" 2 "doctor: --probe-timeout applies to --pid" --root "$R" doctor --probe-timeout 3
"$RDMALIMITS" list --help > "$T/help" 2>&1
check "list --help offers --root" grep -q -- "--root DIR" "$T/help"

# --- an empty policy file is a clear finding
: > "$R/etc/security/rdmalimit.conf"
run "check --policy: an empty policy file" 1 "rdmalimit.conf: error: is empty" --root "$R" check --policy
check "check --policy: the policy shown relative to --root, as limits files are" grep -q "^etc/security/rdmalimit.conf: error: is empty" "$T/out"
check "check --policy: not 'version is missing'" sh -c '! grep -q "version is missing" "$1"' _ "$T/out"
printf '# nothing yet\n\n' > "$R/etc/security/rdmalimit.conf"
run "check --policy: comments only is empty too" 1 "is empty" --root "$R" check --policy
rl --json check --policy > "$T/out"
check "check --policy --json: id policy-empty with a fix" python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not any(f.get("id") == "policy-empty" and f.get("fix") for f in j["findings"]))' "$T/out"

done_testing
