#!/bin/bash
# A seeded sample of the mutation runner (tests/mutate/mutate.py, HACKING.md "Mutation
# testing"): 20 mutants of the login path, lib/base and the session engine, each built in a
# copy of the tree and run against the tests of its file.  A mutant the tests catch, or one
# that does not compile, is "ok"; a survivor listed in HACKING.md as equivalent is "ok" with
# its reason; any other survivor is "not ok ... # TODO": automake counts it as an expected
# failure (XFAIL), so it shows in ./run test's output without failing it.  The seed is the
# UTC date (MUTATE_SEED overrides it), printed first: the same day gives the same mutants.
# Then: the runner finished, and the working tree is unchanged (so editing the tree while this
# test runs fails it too).
# Root: the shell tests of the login path run in namespaces.
. "$top_srcdir/tests/tap.sh"

require_root "test-mutate-sample"
command -v python3 >/dev/null || skip_all "python3 is missing"
git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1 ||
	skip_all "not a git checkout: the runner copies the tree by git ls-files"

# the files git knows, as the runner copies them: they must be the same after the run
tree_sum() {
	(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard | xargs -0 sha256sum 2>/dev/null) |
		sha256sum
}

export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
seed=${MUTATE_SEED:-$(date -u +%Y%m%d)}
before=$(tree_sum)
# a budget well inside 5 minutes on 2 cores: no mutant starts after 190 s, none runs over 100 s
rc=0
out=$(python3 "$top_srcdir/tests/mutate/mutate.py" --tap --no-baseline \
	--sample "${MUTATE_SAMPLE:-20}" --seed "$seed" --budget 190 --timeout 100) || rc=$?
printf '%s\n' "$out" | grep -v '^1\.\.'
_tap_n=$(printf '%s\n' "$out" | grep -cE '^(ok|not ok) ')
check "the runner finished (exit status $rc)" [ "$rc" -eq 0 ]
check "the working tree is byte for byte what it was" [ "$before" = "$(tree_sum)" ]
echo "1..$_tap_n"
[ "$_tap_failed" -eq 0 ]
