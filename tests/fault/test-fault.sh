#!/bin/bash
# Fault injection: rdmalimits apply/remove with one file-system call failing (LD_PRELOAD
# shim tests/fault/fault.so, see fault.c).  For every step of the atomic replacement (lock,
# read, temp file open, write, fchmod, fsync, close, rename) and every errno that matters
# (EIO, ENOSPC, EACCES, ...): the old drop-in stays byte-identical, no temporary file is left
# in limits.d, the message names the file and the error, the exit status is non-zero.
#
# The last step, fsync of limits.d, comes after the rename: the file is already replaced
# (or, for a remove of the last domain, already gone) when it fails.  The tool exits 1, leaves
# no temporary file, and says what was done and what failed ("written, but syncing its
# directory to disk failed (Input/output error)"; "removed, but ..."): both checked below.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/tap.sh"
no_plan

# T, R, D and F as the stress tests have them (its tree of its own: mkroot below)
. "$top_srcdir/tests/stress/stress.sh"

# the shim: built by tests/fault/fault.am (libtool module), or compiled here when run alone
SHIM=
for s in "$top_builddir/tests/fault/.libs/fault.so" "$top_builddir/tests/fault/fault.so"; do
	[ -f "$s" ] && SHIM=$s && break
done
if [ -z "$SHIM" ]; then
	if ${CC:-cc} -std=gnu11 -fPIC -shared -o "$T/fault.so" "$top_srcdir/tests/fault/fault.c" -ldl 2> "$T/cc.log"; then
		SHIM=$T/fault.so
	else
		skip_all "fault.so not built and no compiler: $(head -1 "$T/cc.log")"
	fi
fi
require_built "$RDMALIMITS"
# a sanitizer build links libasan first; the shim must still come before libc
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

mkroot() { # mkroot DOMAIN... : a root with a drop-in holding 1G for each DOMAIN
	local key="tpl-$(printf '%s' "$*" | tr -c 'a-z0-9' _)" d
	if [ ! -d "$T/$key" ]; then
		# built once per set of domains, then copied
		rm -rf "$R"
		mkdir -p "$D"
		printf 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n' > "$R/etc/passwd"
		printf 'root:x:0:\ng:x:2000:alice\nh:x:2001:alice\n' > "$R/etc/group"
		printf '*\tsoft\tmemlock\t8192\n' > "$R/etc/security/limits.conf"
		for d in "$@"; do
			"$RDMALIMITS" --root "$R" --flavour debian apply "$d" 1G > /dev/null 2>&1 || return 1
		done
		mv "$R" "$T/$key"
	fi
	rm -rf "$R"
	cp -a "$T/$key" "$R"
	cp -p "$F" "$T/old" 2> /dev/null || rm -f "$T/old"
	ls -A "$D" > "$T/listing"
}

errtext() { # the strerror() text of an errno name
	case $1 in
	EIO) echo "Input/output error" ;;
	ENOSPC) echo "No space left on device" ;;
	EACCES) echo "Permission denied" ;;
	EPERM) echo "Operation not permitted" ;;
	EROFS) echo "Read-only file system" ;;
	EDQUOT) echo "Disk quota exceeded" ;;
	ENOLCK) echo "No locks available" ;;
	esac
}

# inject SETUP-DOMAINS CALL NTH PATHPAT ERRNO -- ARGS...: run rdmalimits ARGS with the fault;
# leaves the exit status in $rc, stderr+stdout in $T/out, the fault log in $T/flog
inject() {
	local call=$1 nth=$2 pat=$3 err=$4
	shift 5
	rm -f "$T/flog"
	FAULT_CALL=$call FAULT_NTH=$nth FAULT_PATH=$pat FAULT_ERRNO=$err FAULT_LOG=$T/flog \
		LD_PRELOAD=$SHIM "$RDMALIMITS" --root "$R" --flavour debian "$@" > "$T/out" 2>&1
	rc=$?
}

# the checks after a fault that must leave everything as it was
unchanged_after() { # DESCRIPTION ERRNO NAME-PATTERN
	local d=$1 err=$2 name=$3 text
	text=$(errtext "$err")
	if [ ! -s "$T/flog" ]; then
		fail "$d: the fault was injected"
		sed 's/^/# /' "$T/out"
		return
	fi
	check "$d: exit status non-zero ($rc)" test "$rc" -ne 0 -a "$rc" -lt 128
	if [ -e "$T/old" ]; then
		check "$d: the old drop-in is byte-identical" cmp -s "$T/old" "$F"
	else
		check "$d: no drop-in was created" test ! -e "$F"
	fi
	if [ "$(ls -A "$D")" = "$(cat "$T/listing")" ]; then
		ok "$d: no temporary file left in limits.d"
	else
		fail "$d: no temporary file left in limits.d"
		ls -A "$D" | sed 's/^/# /'
	fi
	if grep -q -e "$name" "$T/out" && grep -q -F "$text" "$T/out"; then
		ok "$d: the message names the file and the error"
	else
		fail "$d: the message names the file ($name) and the error ($text)"
		sed 's/^/# /' "$T/out"
	fi
}

TMPPAT='.zz-rdmalimits.conf.*'
# The steps, as CALL NTH PATH-PATTERN ERRNO... (one case per errno; '-': any file).
# Replacing the drop-in: lock limits.d, read the old file, then fs_write_atomic().
steps_replace=(
	"flock 1 - ENOLCK EIO"
	"open 1 zz-rdmalimits.conf EACCES EIO"
	"read 1 zz-rdmalimits.conf EIO"
	"open 1 $TMPPAT EACCES ENOSPC EIO EROFS EDQUOT"
	"write 1 $TMPPAT ENOSPC EIO EDQUOT"
	"fchmod 1 $TMPPAT EPERM EIO"
	"fsync 1 $TMPPAT EIO ENOSPC"
	"close 1 $TMPPAT EIO"
	"rename 1 $TMPPAT EACCES ENOSPC EIO"
)
# Creating it: nothing may be left behind.
steps_create=(
	"open 1 $TMPPAT EACCES ENOSPC"
	"write 1 $TMPPAT ENOSPC"
	"fchmod 1 $TMPPAT EIO"
	"fsync 1 $TMPPAT EIO"
	"rename 1 $TMPPAT EIO"
)
# Removing the last domain deletes the file (unlinkat, then fsync of limits.d).
steps_unlink=(
	"flock 1 - EIO"
	"open 1 zz-rdmalimits.conf EACCES"
	"unlinkat 1 zz-rdmalimits.conf EACCES EIO EROFS"
)

run_steps() { # STEPS-ARRAY LABEL SETUP-DOMAINS -- ARGS...
	local -n list=$1
	local label=$2 setup=$3 s call nth pat errs err name
	shift 4
	for s in "${list[@]}"; do
		read -r call nth pat errs <<< "$s"
		[ "$pat" = - ] && pat=
		for err in $errs; do
			# shellcheck disable=SC2086
			mkroot $setup || { fail "$label: setting up the root"; return; }
			inject "$call" "$nth" "$pat" "$err" -- "$@"
			name=zz-rdmalimits.conf
			[ "$call" = flock ] && name=limits.d
			unchanged_after "$label: $call fails with $err" "$err" "$name"
		done
	done
}

run_steps steps_replace "apply @g 2G" "@g" -- apply @g 2G
run_steps steps_create "apply @g 2G (new drop-in)" "" -- apply @g 2G
run_steps steps_replace "remove @g (other domains stay)" "@g @h" -- remove @g
run_steps steps_unlink "remove @g (the last domain)" "@g" -- remove @g

# --- interrupted calls are retried: EINTR from flock() and write() is not a failure
for call in flock write; do
	mkroot @g
	pat=$TMPPAT
	[ "$call" = flock ] && pat=
	inject "$call" 1 "$pat" EINTR -- apply @g 2G
	check "$call interrupted once (EINTR): the fault was injected" test -s "$T/flog"
	check "$call interrupted once (EINTR): retried, apply succeeds" test "$rc" -eq 0
	check "$call interrupted once (EINTR): the new drop-in is complete" grep -q "^@g	hard	memlock	2097152$" "$F"
done

# --- fsync of limits.d after the rename
new_expected() { # the drop-in apply @g 2G writes over @g 1G
	printf '%s\n' "# rdmalimits: managed file; change it with 'rdmalimits apply' and 'rdmalimits remove'." \
		"# Memlock limits for RDMA and AF_XDP users, in KiB as pam_limits reads them." \
		"@g	soft	memlock	2097152" "@g	hard	memlock	2097152"
}
mkroot @g
inject fsync 1 limits.d EIO -- apply @g 2G
check "apply, fsync of limits.d fails: the fault was injected" test -s "$T/flog"
check "apply, fsync of limits.d fails: exit status 1" test "$rc" -eq 1
check "apply, fsync of limits.d fails: the drop-in is already replaced by the new one" cmp -s <(new_expected) "$F"
check "apply, fsync of limits.d fails: no temporary file left" test "$(ls -A "$D")" = "$(cat "$T/listing")"
# The file is already replaced: the message says it was written and what failed after
check "apply, fsync of limits.d fails: the message says the file was written, then the sync failed" \
	grep -q "limits.d/zz-rdmalimits.conf: written, but syncing its directory to disk failed (Input/output error): check the disk$" "$T/out"
check "apply, fsync of limits.d fails: one line, no claim that the file is unchanged" \
	test "$(grep -c . "$T/out")" = 1 -a "$(grep -c unchanged "$T/out")" = 0
diag "the tool says: $(cat "$T/out")"

mkroot @g
inject fsync 1 limits.d EIO -- remove @g
check "remove (last), fsync of limits.d fails: the fault was injected" test -s "$T/flog"
check "remove (last), fsync of limits.d fails: exit status 1" test "$rc" -eq 1
check "remove (last), fsync of limits.d fails: the drop-in is already gone" test ! -e "$F"
check "remove (last), fsync of limits.d fails: the message says the file was removed, then the sync failed" \
	grep -q "limits.d/zz-rdmalimits.conf: removed, but syncing its directory to disk failed (Input/output error): check the disk$" "$T/out"
check "remove (last), fsync of limits.d fails: one line, no claim that the file is unchanged" \
	test "$(grep -c . "$T/out")" = 1 -a "$(grep -c unchanged "$T/out")" = 0
diag "the tool says: $(cat "$T/out")"

# --- a fault on a call the tool does not make for this file changes nothing
mkroot @g
inject rename 1 no-such-name EIO -- apply @g 2G
check "a fault pattern that matches nothing: apply succeeds" test "$rc" -eq 0
check "a fault pattern that matches nothing: nothing was injected" test ! -s "$T/flog"

# --- limits.d missing, and another run creates it between our open() and mkdir(): the
# shim makes mkdir() create the directory and then fail with EEXIST (FAULT_MODE=after)
mkroot
rm -rf "$D"
rm -f "$T/flog"
FAULT_CALL=mkdir FAULT_MODE=after FAULT_PATH=limits.d FAULT_ERRNO=EEXIST FAULT_LOG=$T/flog \
	LD_PRELOAD=$SHIM "$RDMALIMITS" --root "$R" --flavour debian apply @g 1G > "$T/out" 2>&1
rc=$?
check "mkdir of limits.d loses a race: the fault was injected" test -s "$T/flog"
check "mkdir of limits.d loses a race: limits.d exists" test -d "$D"
diag "the tool says: $(cat "$T/out")"
if [ "$rc" -eq 0 ] && [ -f "$F" ]; then
	ok "mkdir of limits.d loses a race: apply goes on and writes the drop-in"
else
	fail "mkdir of limits.d loses a race: apply goes on and writes the drop-in (exit $rc)"
fi

done_testing
