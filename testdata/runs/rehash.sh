#!/usr/bin/env bash
# rehash.sh [-n] RUN_DIR [PATH...]
#
# Rewrites the hash of evidence-log entries in RUN_DIR/state/EVIDENCE_LOG.md to the
# first 16 hex digits of the logged file's SHA-256, as the spec prescribes. With PATHs
# (as written in the log, relative to RUN_DIR) only those entries are touched.
# -n only reports entries whose hash is stale and exits 1 if there is one.
#
# Only entries already holding a 16-hex hash are considered, and paths that are
# absolute or contain ".." are skipped: several err/ cases are built from exactly
# those, and a helper that "repairs" them would erase the problem they exist to show.
# Never run it without PATHs on an err/ case about hashes (hash_mismatch, symlink_*).
# An err/ case is a patch (see README.md): RUN_DIR is err/<case>/<run>, -n only.
set -euo pipefail

check_only=false
if [[ ${1:-} == -n ]]; then
  check_only=true
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "usage: rehash.sh [-n] RUN_DIR [PATH...]" >&2
  exit 2
fi
run_dir=${1%/}
shift

# An err case (err/<case>/, holding patch.txtar) is a patch over an ok case:
# its runs exist only once written out. -n writes the case out into a scratch
# folder and checks the run there; a hash in a patch is not rewritten here
# but written as {{hash <run>/PATH}}, which becomes the file's hash when the
# case is written out.
case_dir="" d=$run_dir
while [[ -n $d && $d != . && $d != / ]]; do
  if [[ -f $d/patch.txtar ]]; then
    case_dir=$d
    break
  fi
  [[ $d == */* ]] || break
  d=${d%/*}
done
if [[ -n $case_dir ]]; then
  if ! $check_only; then
    echo "rehash.sh: $case_dir is a patch over an ok case: in its patch.txtar write the hash as {{hash <run>/PATH}} (the path from the case folder), then check with: ./rehash.sh -n $run_dir" >&2
    exit 2
  fi
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  case_abs=$(cd "$case_dir" && pwd)
  (cd "$(dirname "$0")/../.." && go run ./internal/audit/audittest/cmd/materialise -o "$scratch" "$case_abs")
  run_dir=$scratch/${case_dir##*/}${run_dir#"$case_dir"}
fi
log="$run_dir/state/EVIDENCE_LOG.md"
if [[ ! -f $log ]]; then
  echo "rehash.sh: no evidence log at \"$log\"" >&2
  exit 2
fi

declare -A wanted=()
for p in "$@"; do wanted[$p]=1; done

entry_re='^(- `([^`]+)` - \[hash:)([0-9a-f]{16})(\].*)$'
stale=0
out=""
while IFS= read -r line || [[ -n $line ]]; do
  if [[ $line =~ $entry_re ]]; then
    head=${BASH_REMATCH[1]} path=${BASH_REMATCH[2]} logged=${BASH_REMATCH[3]} tail=${BASH_REMATCH[4]}
    if { [[ $# -eq 0 ]] || [[ -n ${wanted[$path]:-} ]]; } &&
      [[ $path != /* && /$path/ != */../* && -f "$run_dir/$path" ]]; then
      sum=$(sha256sum -- "$run_dir/$path")
      actual=${sum:0:16}
      if [[ $actual != "$logged" ]]; then
        stale=1
        echo "$path: logged $logged, file hashes to $actual" >&2
        line="$head$actual$tail"
      fi
    fi
  fi
  out+="$line"$'\n'
done <"$log"

if $check_only; then
  exit "$stale"
fi
if [[ $stale -eq 1 ]]; then
  printf '%s' "$out" >"$log.new"
  mv -- "$log.new" "$log"
fi
