#!/bin/bash
# Concurrency: many rdmalimits apply/remove runs on one drop-in at the same time.  The
# limits.d lock must serialise them: every entry applied is there exactly once, every entry
# removed is gone, the file parses and keeps its marker, no temporary file is left.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan
# shellcheck source=stress.sh
. "$(dirname "$0")/stress.sh"
N=${STRESS_N:-50}
rl() { "$RDMALIMITS" --root "$R" --flavour debian "$@"; }

mkroot() {
	rm -rf "$R"
	mkdir -p "$D"
	{
		echo 'root:x:0:0::/root:/bin/sh'
		echo 'alice:x:1001:1001::/home/alice:/bin/sh'
	} > "$R/etc/passwd"
	{
		echo 'root:x:0:'
		for i in $(seq "$N"); do echo "g$i:x:$((3000 + i)):alice"; echo "h$i:x:$((4000 + i)):alice"; done
	} > "$R/etc/group"
	printf '*\tsoft\tmemlock\t8192\n*\thard\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
}

# a wait that collects the exit status of every background job into $T/rc.*
run_bg() { # run_bg NAME COMMAND...
	local name=$1
	shift
	("$@" > "$T/log.$name" 2>&1; echo $? > "$T/rc.$name") &
}

failed_jobs() { # the names of jobs that did not exit 0
	local f
	for f in "$T"/rc.*; do
		[ "$(cat "$f")" = 0 ] || echo "${f##*/rc.}"
	done
}

# --- 2 x N runs in parallel: N applies of @g1..@gN, N apply-then-remove of @h1..@hN
mkroot
rl apply @base 1G > /dev/null 2>&1
check "set-up: the drop-in exists" test -f "$F"
rm -f "$T"/rc.* "$T"/log.*
for i in $(seq "$N"); do
	run_bg "g$i" rl apply "@g$i" "${i}M"
	run_bg "h$i" sh -c '"$0" --root "$1" --flavour debian apply "@h$2" 1G && "$0" --root "$1" --flavour debian remove "@h$2"' \
		"$RDMALIMITS" "$R" "$i"
done
wait
check "all $((2 * N)) jobs finished" test "$(ls "$T"/rc.* | wc -l)" -eq $((2 * N))
bad=$(failed_jobs)
if [ -z "$bad" ]; then
	ok "every apply and remove exited 0"
else
	fail "every apply and remove exited 0 (failed: $(echo $bad))"
	for j in $bad; do sed "s/^/# $j: /" "$T/log.$j"; done | head -20
fi
missing=0 dup=0
for i in $(seq "$N"); do
	kib=$((i * 1024))
	for type in soft hard; do
		c=$(grep -c -x "@g$i	$type	memlock	$kib" "$F")
		[ "$c" -eq 0 ] && missing=$((missing + 1))
		[ "$c" -gt 1 ] && dup=$((dup + 1))
	done
done
check "every applied entry is present (missing: $missing)" test "$missing" -eq 0
check "no applied entry is present twice (duplicated: $dup)" test "$dup" -eq 0
check "no other @gN lines" test "$(grep -c '^@g' "$F")" -eq $((2 * N))
check "the removed domains are gone" test "$(grep -c '^@h' "$F")" -eq 0
check "@base is still there" test "$(grep -c -x '@base	\(soft\|hard\)	memlock	1048576' "$F")" -eq 2
check "the drop-in starts with the marker" test "$(head -n 1 "$F")" = "$MARKER"
check "the drop-in has only the header and entries" test "$(wc -l < "$F")" -eq $((2 + 2 + 2 * N))
rl check > "$T/out" 2>&1
check "rdmalimits check exits 0" test $? -eq 0
check "no temporary file left" test "$(ls -A "$D")" = "zz-rdmalimits.conf"
check "the drop-in is mode 0644" test "$(stat -c %a "$F")" = 644

# --- all the domains removed again in parallel: the drop-in goes away, nothing left behind
rm -f "$T"/rc.* "$T"/log.*
for i in $(seq "$N"); do
	run_bg "g$i" rl remove "@g$i"
done
run_bg base rl remove @base
wait
bad=$(failed_jobs)
check "parallel removes exited 0${bad:+ (failed: $(echo $bad))}" test -z "$bad"
check "the last remove deleted the drop-in" test ! -e "$F"
check "limits.d is empty" test -z "$(ls -A "$D")"

# --- the same domain from many runs at once: one soft and one hard line in the end
mkroot
rm -f "$T"/rc.* "$T"/log.*
for i in $(seq 20); do
	run_bg "s$i" rl apply @g1 "${i}G"
done
wait
bad=$(failed_jobs)
check "20 applies of one domain exited 0${bad:+ (failed: $(echo $bad))}" test -z "$bad"
check "one domain applied 20 times at once: one soft line" test "$(grep -c '^@g1	soft	' "$F")" -eq 1
check "one domain applied 20 times at once: one hard line" test "$(grep -c '^@g1	hard	' "$F")" -eq 1
check "one domain applied 20 times at once: soft and hard agree" \
	test "$(awk '$1 == "@g1" { print $4 }' "$F" | sort -u | wc -l)" -eq 1
check "no temporary file left" test "$(ls -A "$D")" = "zz-rdmalimits.conf"

# --- limits.d does not exist yet: the first parallel applies create it together
mkroot
rmdir "$D"
rm -f "$T"/rc.* "$T"/log.*
for i in $(seq 20); do
	run_bg "n$i" rl apply "@g$i" 1G
done
wait
bad=$(failed_jobs)
check "limits.d created by parallel applies: the drop-in exists" test -f "$F"
check "limits.d created by parallel applies: no temporary file left" test "$(ls -A "$D" | grep -vc '^zz-rdmalimits.conf$')" -eq 0
if [ -z "$bad" ]; then
	ok "limits.d created by parallel applies: every apply exited 0"
else
	# edit_begin(): mkdir(limits.d) failing with EEXIST because another run just created it
	# is reported as "No such file or directory"
	fail "limits.d created by parallel applies: every apply exited 0 ($(echo $bad | wc -w) failed: $(head -n 1 "$T/log.$(echo $bad | cut -d' ' -f1)"))"
fi
count=0
for i in $(seq 20); do
	[ "$(cat "$T/rc.n$i")" = 0 ] || continue
	grep -q "^@g$i	soft	memlock	1048576$" "$F" && grep -q "^@g$i	hard	memlock	1048576$" "$F" || count=$((count + 1))
done
check "limits.d created by parallel applies: every successful apply is in the drop-in" test "$count" -eq 0

done_testing
