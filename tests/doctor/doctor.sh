# shellcheck shell=bash
# doctor.sh: what the doctor tests share, on the output file $OUT (each test sets it, and R
# and T for run).  Source it from bash after tests/tap.sh.
#   run ARG...     rdmalimits --root $R --flavour debian doctor ARG...: stdout in $OUT with the
#                  root's prefix stripped (the raw output in $OUT.raw), stderr in $T/err, the
#                  exit status in $rc
#   has TEXT       $OUT has TEXT (fixed string); hasnt TEXT: it has not
#   line WORD...   a line of $OUT has every WORD
#   show           $OUT as TAP diagnostics, its control bytes removed
#   json_of ID [FIELD...]  of the JSON finding ID in $OUT, the FIELDs (default severity, where,
#                  fix) joined by '|', one finding a line

run() {
	"$RDMALIMITS" --root "$R" --flavour debian doctor "$@" > "$OUT.raw" 2> "$T/err"
	rc=$?
	sed "s|$R/||g" "$OUT.raw" > "$OUT"
}
has() { grep -qF -- "$1" "$OUT"; }
hasnt() { ! grep -qF -- "$1" "$OUT"; }
line() {
	local l w
	l=$(cat "$OUT")
	for w in "$@"; do l=$(grep -F -- "$w" <<< "$l"); done
	[ -n "$l" ]
}
show() { sed 's/^/#   /' "$OUT" | LC_ALL=C tr -d '\000-\010\013-\037\177'; }
json_of() {
	local id=$1
	shift
	[ $# -gt 0 ] || set -- severity where fix
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == sys.argv[2]:
        print(*(f[k] for k in sys.argv[3:]), sep="|")' "$OUT" "$id" "$@"
}
