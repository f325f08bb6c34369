#!/usr/bin/env bash
# findings-snapshot.sh OUT [REALWORLD]
#
# Writes what the checker says about every run it is tested on, one file per
# check, so that two versions of the checker can be compared with diff -r:
#
#   scripts/findings-snapshot.sh /tmp/before          # on the old version
#   scripts/findings-snapshot.sh /tmp/after           # on the new one
#   diff -r /tmp/before /tmp/after                    # findings must agree
#
# Each file holds the exit code and the JSON report (--format json --base
# none) of one check: every case folder under testdata/runs/ok and
# testdata/runs/err (each err case, a patch over an ok case, is written out
# first into a scratch folder under the same relative path, and checked from
# there, so its report names the same paths), and every folder of REALWORLD (default
# ../shared/realworld beside the repository) as found and with each layout
# forced. stderr is kept too: the text of "no run found" is part of the
# behaviour. The binary is stamped with a fixed version so the reports
# differ only where the findings do.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:?usage: findings-snapshot.sh OUT [REALWORLD]}"
realworld="${2:-../shared/realworld}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
bin="$scratch/h3a-check"
go build -ldflags "-X github.com/h3a-check/h3a-check/internal/cli.version=snapshot" -o "$bin" ./cmd/h3a-check
go build -o "$scratch/materialise" ./internal/audit/audittest/cmd/materialise
mkdir -p "$scratch/cases/testdata/runs/err"
"$scratch/materialise" -o "$scratch/cases/testdata/runs/err" testdata/runs/err/*/
layouts=$("$bin" check --help 2>&1 | sed -n 's/.*force a layout instead of detecting it (\([^)]*\)).*/\1/p' | tr -d ',')
[ -n "$layouts" ] || { echo "findings-snapshot.sh: cannot read the layouts from --help" >&2; exit 2; }

# snap NAME ARGS...: one check, its exit code, report and stderr in OUT/NAME.
snap() {
	local name="$1"
	shift
	local code=0
	"$bin" --format json --base none "$@" >"$out/$name.json" 2>"$out/$name.stderr" || code=$?
	echo "$code" >"$out/$name.exit"
}

for dir in testdata/runs/ok/*/; do
	dir="${dir%/}"
	snap "$(echo "$dir" | tr '/' '_')" "$dir"
done
for dir in testdata/runs/err/*/; do
	dir="${dir%/}"
	(cd "$scratch/cases" && snap "$(echo "$dir" | tr '/' '_')" "$dir")
done
if [ -d "$realworld" ]; then
	while IFS= read -r dir; do
		rel="${dir#"$realworld"}"
		name="realworld$(echo "$rel" | tr '/' '_')"
		snap "$name" "$dir"
		for l in $layouts; do
			snap "$name.layout-$l" --layout "$l" "$dir"
		done
	done < <(find "$realworld" -type d | sort)
else
	# Both snapshots must cover the same runs: say what is left out.
	echo "findings-snapshot.sh: no folder $realworld: the real-world runs are left out (give REALWORLD)" >&2
fi
echo "$(find "$out" -name '*.exit' | wc -l) checks written to $out"
