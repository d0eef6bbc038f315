#!/bin/bash
# Files of a --root tree as large as their maker likes, at no cost to him: a 2 GiB sparse file
# (one endless line of NUL bytes) in place of each file the tools read line by line:
# limits.conf, a limits.d drop-in, etc/passwd, etc/group and var/lib/dpkg/status.
# Every reader stops at its bound (64 MiB), so explain, check, list and doctor finish with a
# bounded peak memory (they grew with the file, to 2 GiB, and explain crashed when memory ran
# out), and say what they did not read.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
command -v truncate > /dev/null || skip_all "truncate (coreutils) is missing"
no_plan

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$T/root
# run CMD...: its exit status ("timeout" after 120 s) and peak RSS (KiB) in $rc and $rss, its
# output in $T/out
run() {
	read -r rc rss < <(python3 -c '
import resource, subprocess, sys
try:
    p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    rc, text = p.returncode, p.stdout
except subprocess.TimeoutExpired as e:
    rc, text = "timeout", e.stdout or b""
open(sys.argv[1], "wb").write(text)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$T/out" "$@")
}
mkroot() {
	rm -rf "$R"
	mkdir -p "$R/etc/security/limits.d" "$R/var/lib/dpkg"
	printf 'root:x:0:0:root:/root:/bin/sh\nalice:x:1001:2000::/home/alice:/bin/sh\n' > "$R/etc/passwd"
	printf 'root:x:0:\nrdma_users:x:2000:alice\n' > "$R/etc/group"
	printf '@rdma_users\tsoft\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
	printf 'ID=debian\nVERSION_ID="12"\n' > "$R/etc/os-release"
}
# the bound: 64 MiB for the file, its buffer grown by doubling, and the tool itself
MAX_KIB=$((400 * 1024))
fine() { [ "$rc" != timeout ] && [ "$rc" -lt 128 ] && [ "$rss" -lt "$MAX_KIB" ]; }

for f in etc/security/limits.conf etc/security/limits.d/x.conf etc/passwd etc/group var/lib/dpkg/status; do
	mkroot
	truncate -s 2G "$R/$f"
	for cmd in "explain alice" check list doctor; do
		# shellcheck disable=SC2086 # cmd is words
		run "$RDMALIMITS" --root "$R" $cmd
		check "$f of 2 GiB: $cmd finishes (exit $rc, no signal), peak memory $rss KiB" fine
		fine || sed 's/^/#   /' "$T/out" | tail -5
	done
done

# what they say
mkroot
truncate -s 2G "$R/etc/security/limits.d/x.conf"
run "$RDMALIMITS" --root "$R" explain alice
check "a limits.d drop-in past the bound: explain says only its first 64 MiB are modelled" \
	grep -qF "warning: etc/security/limits.d/x.conf: larger than 64 MiB: only its lines up to there are modelled" "$T/out"
check "... and still models limits.conf's line" grep -qF "from etc/security/limits.conf:1" "$T/out"
run "$RDMALIMITS" --root "$R" check
check "... check: a file-too-large warning at the file" \
	grep -qF "etc/security/limits.d/x.conf: warning: larger than 64 MiB: read up to there only" "$T/out"
mkroot
truncate -s 2G "$R/etc/passwd"
run "$RDMALIMITS" --root "$R" explain alice
check "etc/passwd past the bound: explain fails, saying why (exit $rc)" \
	bash -c '[ "$1" = 1 ] && grep -qi "too large" "$2"' _ "$rc" "$T/out"
grep -qi "too large" "$T/out" || sed 's/^/#   /' "$T/out"
done_testing
