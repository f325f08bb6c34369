#!/usr/bin/env bash
# Fuzzes the shipped policies far longer than CI does (CI runs 300 inputs per
# target). Run it once after each change of policies/ and after each OPA
# upgrade, after go generate ./internal/policy:
#
#   scripts/fuzz-policies.sh [-n INPUTS]
#
# Each target (FuzzShippedPolicies, FuzzContractPolicies, FuzzLayoutPolicies)
# runs INPUTS inputs (default 500000, about 6 minutes each on two cores): an
# arbitrary JSON value in place of one document must evaluate without a built-in or
# evaluation error, and the generated plan must give exactly what OPA's
# evaluator gives on the compiled rules. A count, not a duration: when a
# duration ends while the fuzzer minimises an input, go test reports a
# failure that is none. A failing input is kept under
# internal/policy/testdata/fuzz/, where go test replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."

inputs=500000
while [ $# -gt 0 ]; do
	case "$1" in
	-n) inputs="$2"; shift 2 ;;
	-h | --help) sed -n '2,15p' "$0"; exit 0 ;;
	*) echo "fuzz-policies.sh: unknown argument \"$1\" (expected -n INPUTS)" >&2; exit 2 ;;
	esac
done
case "$inputs" in
'' | *[!0-9]*) echo "fuzz-policies.sh: -n \"$inputs\": expected a whole number of inputs" >&2; exit 2 ;;
esac

for target in FuzzShippedPolicies FuzzContractPolicies FuzzLayoutPolicies; do
	printf '\n==> %s, %s inputs\n' "$target" "$inputs"
	go test -run='^$' -fuzz="^$target\$" -fuzztime="${inputs}x" ./internal/policy
done
echo
echo "the shipped policies held for ${inputs} inputs per target"
