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
