#!/usr/bin/env bash
# Measures h3a-check against the targets of BENCHMARKS.md and prints the
# targets table, with the reference commands (openssl dgst -sha256, sha256sum,
# conftest when installed) timed in the same run over the same files.
#
#   scripts/bench.sh [-r ROUNDS] [-o DIR] [--fresh] [--memory | --ratios]
#
# Every figure is a median of ROUNDS alternated runs (default 7), so that a
# busy moment falls on both sides of a ratio; the best run is printed beside
# it, and so is CPU time, which the machine's load hardly changes (the check
# uses both cores, the reference one, so load costs the check more). Corpora
# are generated once into DIR (default _bench-out/, ignored by git and, for
# its leading underscore, by the go command's ./...: walking a corpus of
# 1.6 million files made every go test ./... 25 s slower) with fixed
# seeds and reused; --fresh regenerates them. Needs bash 5, Go, git, openssl
# and coreutils; CPU time and peak RSS need GNU time (apt-get install time),
# the count of git processes strace. The history row checks a copy of the
# 1,000 small runs committed to a scratch repository in DIR, against that
# commit (--base HEAD) and without history (--base none).
# Takes about a minute on two cores, plus about 20 s to generate the corpora
# the first time. --memory adds the memory targets: peak RSS of 100,000
# small runs with the text and the json format (a corpus of 2 GB and 1.6
# million files, about 2 minutes to generate, 3 to 6 to check, each), of
# one run with a 63 MB EVIDENCE_LOG.md of 600,000 entries, and of one
# Stigmergy run whose 37 KB execution-blueprint.yml nests aliases under
# long keys. CI does not run it: .ci/run runs each benchmark once
# (go test -bench . -benchtime=1x -short).
# --ratios measures only the three ratios against their anchors, alternated
# in one run: one typical run (--format json --base none) / conftest on its
# JSON files (when conftest is installed; the row says so when it is not),
# the large corpus / openssl dgst -sha256 over every file, and --changed
# with 1 of 2,000 small runs edited / the full check of the same
# repository (a scratch repository in DIR, against its commit).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=7
out=_bench-out
fresh=false
memory=false
ratios=false
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds="$2"; shift 2 ;;
	-o) out="$2"; shift 2 ;;
	--fresh) fresh=true; shift ;;
	--memory) memory=true; shift ;;
	--ratios) ratios=true; shift ;;
	-h|--help) sed -n '2,33p' "$0"; exit 0 ;;
	*) echo "bench.sh: unknown argument \"$1\" (expected -r ROUNDS, -o DIR, --fresh, --memory or --ratios)" >&2; exit 2 ;;
	esac
done
[ "${BASH_VERSINFO[0]}" -ge 5 ] || { echo "bench.sh: needs bash 5 for EPOCHREALTIME" >&2; exit 2; }
for tool in go git openssl sha256sum; do
	command -v "$tool" >/dev/null || { echo "bench.sh: $tool not found" >&2; exit 2; }
done
gnutime=""
if /usr/bin/time -f %M true >/dev/null 2>&1; then gnutime=/usr/bin/time; fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bin="$out/h3a-check"
echo "building h3a-check and synth into $out" >&2
# The binary as releases build it (.goreleaser.yaml): static, without
# the dynamic loader's start, which is a tenth of one run's time.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" ./cmd/h3a-check
go build -o "$out/synth" ./internal/synth

# corpus NAME RUNS ARTIFACTS SIZE [SYNTH FLAGS]: generate once (fixed
# seed), reuse.
corpus() {
	local dir="$out/$1"
	if $fresh || [ ! -f "$dir/.complete" ]; then
		rm -rf "$dir"
		echo "generating $1: $2 runs x $3 artifacts x $4 bytes ${*:5}" >&2
		"$out/synth" -runs "$2" -artifacts "$3" -size "$4" -seed 1 -out "$dir" "${@:5}" >&2
		touch "$dir/.complete"
	fi
}
corpus large 100 50 65536
corpus typical 1 8 8192
if ! $ratios; then
	corpus small1k 1000 6 1024
	corpus small10k 10000 6 1024
fi
if $memory; then
	corpus small100k 100000 6 1024
	corpus biglog 1 6 1024 -log-entries 600000
	# The Stigmergy example run with nine levels of four aliases under
	# 900-byte keys appended to its blueprint: 37 KB that expand to 4^9
	# values, each once with a pointer 8 KB long.
	if $fresh || [ ! -f "$out/aliases/.complete" ]; then
		rm -rf "$out/aliases"
		mkdir -p "$out/aliases/runs"
		cp -R testdata/runs/ok/stigmergy_complete/greeter "$out/aliases/runs/greeter"
		long=$(printf 'x%.0s' $(seq 900))
		{
			printf 'l0: &l0 {'
			for j in 0 1 2 3; do printf 'k0_%d_%s: v, ' "$j" "$long"; done
			printf '}\n'
			for i in $(seq 1 9); do
				printf 'l%d: &l%d {' "$i" "$i"
				for j in 0 1 2 3; do printf 'k%d_%d_%s: *l%d, ' "$i" "$j" "$long" "$((i - 1))"; done
				printf '}\n'
			done
		} >>"$out/aliases/runs/greeter/execution-blueprint.yml"
		touch "$out/aliases/.complete"
	fi
fi

# The small runs committed to a repository of their own, for the history
# row: the working tree equals the commit, as when a check runs after a
# commit or a pre-commit hook sees few changed runs.
history_repo() {
	local dir="$out/history"
	if $fresh || [ ! -f "$dir/.complete" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		cp -R "$out/small1k/runs" "$dir/runs"
		echo "committing small1k to a scratch repository at $dir" >&2
		git -C "$dir" init -q
		git -C "$dir" add -A
		GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
			git -C "$dir" -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false -c gc.auto=0 commit -qm base
		git -C "$dir" gc -q # packed, as a real repository is
		touch "$dir/.complete"
	fi
}
$ratios || history_repo

# Read everything once: the targets are for a warm page cache.
warm() { find "$out/$1/runs" -type f -print0 | xargs -0 cat >/dev/null; }

# now: microseconds since the epoch, without a subprocess.
now() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# Sample arrays: name -> space-separated values (microseconds or KiB).
declare -A samples
record() { samples[$1]+="$2 "; }

# timed NAME CMD...: run once, record wall time in microseconds.
timed() {
	local name=$1; shift
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>&1 || true
	t1=$(now)
	record "$name" $((t1 - t0))
}

# timedcpu NAME CMD...: like timed, and also record user+system CPU time
# (NAME_cpu) and peak RSS (NAME_rss) through GNU time when it is there. CPU
# time hardly depends on what else the machine runs; wall time does.
timedcpu() {
	local name=$1; shift
	if [ -z "$gnutime" ]; then
		timed "$name" "$@"
		return
	fi
	local f="$out/.time" t0 t1
	t0=$(now)
	"$gnutime" -f '%U %S %M' -o "$f" "$@" >/dev/null 2>&1 || true
	t1=$(now)
	record "$name" $((t1 - t0))
	read -r user sys rss < <(tail -1 "$f")
	record "${name}_cpu" "$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1e6}')"
	record "${name}_rss" "$rss"
}

# rss NAME CMD...: run once under GNU time, record peak RSS in KiB.
rss() {
	local name=$1; shift
	[ -n "$gnutime" ] || return 0
	local f="$out/.rss"
	"$gnutime" -f %M -o "$f" "$@" >/dev/null 2>&1 || true
	record "$name" "$(tail -1 "$f")"
}

median() { tr ' ' '\n' <<<"${samples[$1]:-}" | grep . | sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print ""}'; }
minimum() { tr ' ' '\n' <<<"${samples[$1]:-}" | grep . | sort -n | head -1; }
ms() { [ -n "$1" ] && awk -v u="$1" 'BEGIN {printf "%.1f ms", u/1000}' || echo "n/a"; }
sec() { [ -n "$1" ] && awk -v u="$1" 'BEGIN {printf "%.3f s", u/1e6}' || echo "n/a"; }
mib() { [ -n "$1" ] && awk -v k="$1" 'BEGIN {printf "%.1f MiB", k/1024}' || echo "n/a (no GNU time)"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
verdict() { awk -v v="$1" -v lim="$2" 'BEGIN {print (v <= lim) ? "met" : "MISSED"}'; }

# The large corpus and its reference commands. openssl gets every file in
# one process (xargs -s well above the list's size), as the issue measured.
large_runs="$out/large/runs"
(cd "$large_runs" && find . -type f -print0 | sort -z) >"$out/large.files"
files=$(tr -cd '\0' <"$out/large.files" | wc -c)
bytes=$(cd "$large_runs" && xargs -0 stat -c %s <"$out/large.files" | awk '{s+=$1} END {print s}')
# Commands are arrays, not functions, so that GNU time can run them.
openssl_all=(sh -c 'cd "$1" && xargs -0 -s 2000000 openssl dgst -sha256 <"$2"' sh "$large_runs" "$out/large.files")
sha256sum_all=(sh -c 'cd "$1" && xargs -0 -s 2000000 sha256sum <"$2"' sh "$large_runs" "$out/large.files")
conftest_json=(sh -c 'cd "$1" && find . -name "*.json" -not -path "*/artifacts/*" -print0 |
	xargs -0 -s 2000000 conftest test --no-color -p "$2"' sh "$large_runs" "$out/policy")
if command -v conftest >/dev/null; then
	mkdir -p "$out/policy"
	# Two rules over any JSON document, as in the issue's reference run.
	cat >"$out/policy/main.rego" <<-'EOF'
	package main
	import rego.v1
	deny contains msg if { input.run_id == ""; msg := "empty run_id" }
	deny contains msg if { not input.run_id; not input.task_id; msg := "neither run_id nor task_id" }
	EOF
fi

if $ratios; then
	# The repository of 2,000 small runs for --changed: committed, then
	# one run's roadmap edited in the working tree, as a pull request
	# that touches one run sees it.
	corpus small2k 2000 6 1024
	changed_repo="$out/changed2k"
	if $fresh || [ ! -f "$changed_repo/.complete" ]; then
		rm -rf "$changed_repo"
		mkdir -p "$changed_repo"
		cp -R "$out/small2k/runs" "$changed_repo/runs"
		echo "committing small2k to a scratch repository at $changed_repo" >&2
		git -C "$changed_repo" init -q
		git -C "$changed_repo" add -A
		GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z \
			git -C "$changed_repo" -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false -c gc.auto=0 commit -qm base
		git -C "$changed_repo" gc -q
		edited=$(find "$changed_repo/runs" -mindepth 1 -maxdepth 1 -type d | sort | sed -n 1p)
		printf -- '- one more line\n' >>"$edited/state/ROADMAP.md"
		touch "$changed_repo/.complete"
	fi
	typical_run=$(find "$out/typical/runs" -mindepth 1 -maxdepth 1 -type d)
	one_run=("$bin" --format json --base none "$typical_run")
	conftest_one=(sh -c 'cd "$1" && find . -name "*.json" -not -path "./artifacts/*" -print0 | xargs -0 conftest test --no-color -p "$2"' sh "$typical_run" "$out/policy")
	in_changed=(env -C "$changed_repo" "$bin" --format json)
	echo "measuring the ratios, $rounds alternated rounds (one run and conftest: $((rounds * 3)))" >&2
	warm large
	warm typical
	warm small2k
	find "$changed_repo/runs" -type f -print0 | xargs -0 cat >/dev/null
	for ((i = 0; i < rounds * 3; i++)); do
		timedcpu one "${one_run[@]}"
		if command -v conftest >/dev/null; then timedcpu conftest_one "${conftest_one[@]}"; fi
	done
	for ((i = 0; i < rounds; i++)); do
		timedcpu openssl "${openssl_all[@]}"
		timedcpu check "$bin" "$out/large"
		timedcpu changed "${in_changed[@]}" --changed runs
		timedcpu full "${in_changed[@]}" runs
	done
	row() { printf '%-52s | %-34s | %-8s | %s\n' "$@"; }
	cpu_row() {
		[ -n "$(median "$1_cpu")" ] || return 0
		row "  CPU time (user+sys)" "$(ratio "$(median "$1_cpu")" "$(median "$2_cpu")") ($(sec "$(median "$1_cpu")") / $(sec "$(median "$2_cpu")"))" "" ""
	}
	echo
	echo "machine: $(nproc) cores, $(uname -sr); load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "h3a-check $("$bin" version | cut -d' ' -f2), $(go version | cut -d' ' -f3), $(openssl version | cut -d' ' -f1-2); medians of alternated rounds"
	echo
	row "ratio (median wall)" "value" "target" "result"
	row "----------------------------------------------------" "----------------------------------" "--------" "------"
	if [ -n "$(median conftest_one)" ]; then
		row "one typical run / conftest on its JSON files" "$(ratio "$(median one)" "$(median conftest_one)") ($(ms "$(median one)") / $(ms "$(median conftest_one)"))" "<= 0.40" "$(verdict "$(ratio "$(median one)" "$(median conftest_one)")" 0.40)"
		cpu_row one conftest_one
	else
		row "one typical run / conftest on its JSON files" "n/a: conftest not installed ($(ms "$(median one)") alone)" "<= 0.40" "n/a"
	fi
	row "large corpus / openssl dgst -sha256, every file" "$(ratio "$(median check)" "$(median openssl)") ($(sec "$(median check)") / $(sec "$(median openssl)"))" "<= 0.60" "$(verdict "$(ratio "$(median check)" "$(median openssl)")" 0.60)"
	cpu_row check openssl
	row "--changed, 1 of 2,000 runs / the full check" "$(ratio "$(median changed)" "$(median full)") ($(sec "$(median changed)") / $(sec "$(median full)"))" "<= 0.05" "$(verdict "$(ratio "$(median changed)" "$(median full)")" 0.05)"
	cpu_row changed full
	exit 0
fi

echo "measuring the large corpus ($files files, $((bytes / 1048576)) MiB), $rounds alternated rounds" >&2
warm large
nproc_openssl=$(cd "$large_runs" && xargs -0 -s 2000000 sh -c 'echo "$#"' sh <"$out/large.files" | wc -l)
[ "$nproc_openssl" -eq 1 ] || echo "bench.sh: the file list needs $nproc_openssl openssl processes, not one" >&2
for ((i = 0; i < rounds; i++)); do
	timedcpu openssl "${openssl_all[@]}"
	timedcpu check "$bin" "$out/large"
	if ((i < 3)); then timed sha256sum "${sha256sum_all[@]}"; fi
	if command -v conftest >/dev/null && ((i < 3)); then timed conftest "${conftest_json[@]}"; fi
done

echo "measuring one typical run" >&2
typical_run=$(find "$out/typical/runs" -mindepth 1 -maxdepth 1 -type d)
warm typical
for ((i = 0; i < rounds * 3; i++)); do
	timed typical "$bin" "$typical_run"
	if ((i < rounds)); then rss typical_rss "$bin" "$typical_run"; fi
	if command -v conftest >/dev/null && ((i < rounds)); then
		timed conftest_one sh -c "cd '$typical_run' && find . -name '*.json' -not -path './artifacts/*' -print0 | xargs -0 conftest test -p '$out/policy'"
	fi
done

echo "measuring policy evaluation (BenchmarkEval, 1,000 generated runs, query prepared once)" >&2
# ns per run: one goroutine, and both cores evaluating (amortised per run);
# each round is a separate go test process, medians taken like the rest.
go test -c -o "$out/policy.test" ./internal/policy
for ((i = 0; i < (rounds + 1) / 2; i++)); do
	while read -r name ns; do
		record "$name" "$ns"
	done < <(cd internal/policy && "$out/policy.test" -test.run '^$' -test.bench 'BenchmarkEval(Parallel)?$' -test.benchtime 1s |
		awk '/^BenchmarkEval-/ {print "eval_one", int($3)} /^BenchmarkEvalParallel-/ {print "eval_par", int($3)}')
done

echo "measuring 1,000 and 10,000 small runs" >&2
warm small1k
warm small10k
for ((i = 0; i < (rounds + 1) / 2; i++)); do
	timedcpu small1k "$bin" "$out/small1k"
	timedcpu small10k "$bin" "$out/small10k"
done

echo "measuring the history stage: 1,000 small runs against their commit" >&2
warm history
# From inside the scratch repository, so that only its git is counted (from
# here the configuration's trust boundary would read this repository too).
in_history=(env -C "$out/history" "$bin")
for ((i = 0; i < rounds; i++)); do
	timedcpu history_head "${in_history[@]}" --base HEAD runs
	timedcpu history_none "${in_history[@]}" --base none runs
done
# git processes of one check with history, by strace when it is there.
git_procs="strace not installed"
if command -v strace >/dev/null; then
	strace -f -e trace=execve -o "$out/git.trace" "${in_history[@]}" --base HEAD runs >/dev/null 2>&1 || true
	gits=$(grep -E 'execve\("[^"]*/git"' "$out/git.trace" | grep -vc ENOENT || true)
	batches=$(grep -c '"cat-file", "--batch"' "$out/git.trace" || true)
	git_procs="$gits git ($batches cat-file --batch)"
fi

if $memory && [ -n "$gnutime" ]; then
	echo "measuring peak RSS: 100,000 small runs (text, json), one run with a large evidence log, one with aliases" >&2
	warm small100k
	warm biglog
	rss mem100k_text "$bin" --format text "$out/small100k"
	rss mem100k_json "$bin" --format json "$out/small100k"
	biglog_run=$(find "$out/biglog/runs" -mindepth 1 -maxdepth 1 -type d)
	biglog_bytes=$(stat -c %s "$biglog_run/state/EVIDENCE_LOG.md")
	aliases_bytes=$(stat -c %s "$out/aliases/runs/greeter/execution-blueprint.yml")
	for ((i = 0; i < 3; i++)); do
		rss mem_biglog "$bin" "$biglog_run"
		rss mem_aliases "$bin" "$out/aliases/runs/greeter"
	done
fi

o=$(median openssl)
c=$(median check)
s=$(median sha256sum)
t=$(median typical)
t_rss=$(median typical_rss)
k1=$(median small1k)
k10=$(median small10k)
k10_rss=$(median small10k_rss)

row() { printf '%-52s | %-34s | %-10s | %s\n' "$@"; }
echo
echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr); load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "h3a-check $("$bin" version | cut -d' ' -f2), $(go version | cut -d' ' -f3), $(openssl version | cut -d' ' -f1-2); $rounds alternated rounds"
echo "large corpus: $files files, $((bytes / 1048576)) MiB; small runs: 6 artifacts x 1 KiB; typical run: 8 artifacts x 8 KiB"
echo
row "measure (median; [best] where given)" "value" "target" "result"
row "----------------------------------------------------" "----------------------------------" "----------" "------"
row "large corpus: check / one openssl process, wall" "$(ratio "$c" "$o") ($(sec "$c") / $(sec "$o"))" "<= 0.60" "$(verdict "$(ratio "$c" "$o")" 0.60)"
row "  best check / best openssl" "$(ratio "$(minimum check)" "$(minimum openssl)") ($(sec "$(minimum check)") / $(sec "$(minimum openssl)"))" "" ""
if [ -n "$(median check_cpu)" ]; then
	row "  CPU time: check / openssl (user+sys)" "$(ratio "$(median check_cpu)" "$(median openssl_cpu)") ($(sec "$(median check_cpu)") / $(sec "$(median openssl_cpu)"))" "" ""
	row "  check, peak RSS" "$(mib "$(median check_rss)")" "" ""
fi
row "  reference: sha256sum / openssl, wall" "$(ratio "$s" "$o") ($(sec "$s"))" "" ""
if [ -n "$(median conftest)" ]; then
	row "  reference: conftest, 2 rules, the JSON documents" "$(sec "$(median conftest)")" "" ""
fi
row "one typical run, process start to exit" "$(ms "$t") [$(ms "$(minimum typical)")]" "<= 15 ms" "$(verdict "$t" 15000)"
row "one typical run, peak RSS" "$(mib "$t_rss")" "<= 40 MiB" "$([ -n "$t_rss" ] && verdict "$t_rss" 40960 || echo n/a)"
if [ -n "$(median conftest_one)" ]; then
	row "  reference: conftest on one run's JSON files" "$(ms "$(median conftest_one)")" "" ""
fi
row "10,000 small runs, peak RSS" "$(mib "$k10_rss")" "<= 100 MiB" "$([ -n "$k10_rss" ] && verdict "$k10_rss" 102400 || echo n/a)"
row "10,000 / 1,000 small runs, wall" "$(ratio "$k10" "$k1") ($(sec "$k10") / $(sec "$k1"))" "<= 10.5" "$(verdict "$(ratio "$k10" "$k1")" 10.5)"
if [ -n "$(median small10k_cpu)" ]; then
	row "  CPU time: 10,000 / 1,000 small runs" "$(ratio "$(median small10k_cpu)" "$(median small1k_cpu)") ($(sec "$(median small10k_cpu)") / $(sec "$(median small1k_cpu)"))" "" ""
fi
ep=$(median eval_par)
row "policy evaluation, prepared once, per run amortised" "$(awk -v n="$ep" 'BEGIN {printf "%.2f ms", n/1e6}') (both cores)" "<= 0.2 ms" "$([ -n "$ep" ] && verdict "$ep" 200000 || echo n/a)"
row "  one core, per run" "$(awk -v n="$(median eval_one)" 'BEGIN {printf "%.2f ms", n/1e6}')" "" ""
if [ -n "$(median mem100k_text)" ]; then
	row "100,000 small runs, peak RSS, text" "$(mib "$(median mem100k_text)")" "<= 150 MiB" "$(verdict "$(median mem100k_text)" 153600)"
	row "100,000 small runs, peak RSS, json" "$(mib "$(median mem100k_json)")" "<= 150 MiB" "$(verdict "$(median mem100k_json)" 153600)"
	limit_kib() { echo $(($1 * 4 / 1024 + 65536)); }
	row "one run, $((biglog_bytes / 1000000)) MB evidence log: peak RSS" "$(mib "$(median mem_biglog)")" "<= $(mib "$(limit_kib "$biglog_bytes")")" "$(verdict "$(median mem_biglog)" "$(limit_kib "$biglog_bytes")")"
	row "one run, $((aliases_bytes / 1000)) KB blueprint of aliases: peak RSS" "$(mib "$(median mem_aliases)")" "<= $(mib "$(limit_kib "$aliases_bytes")")" "$(verdict "$(median mem_aliases)" "$(limit_kib "$aliases_bytes")")"
fi
hh=$(median history_head)
hn=$(median history_none)
case "${batches:-}" in
1) git_verdict="met (one cat-file)" ;;
"") git_verdict="n/a" ;;
*) git_verdict="MISSED" ;;
esac
row "history vs base, 1,000 runs: git processes" "$git_procs" "1" "$git_verdict"
row "history vs base, 1,000 runs: --base HEAD / none" "$(ratio "$hh" "$hn") ($(sec "$hh") / $(sec "$hn"))" "<= 2" "$(verdict "$(ratio "$hh" "$hn")" 2)"
if [ -n "$(median history_head_cpu)" ]; then
	row "  CPU time: --base HEAD / none" "$(ratio "$(median history_head_cpu)" "$(median history_none_cpu)") ($(sec "$(median history_head_cpu)") / $(sec "$(median history_none_cpu)"))" "" ""
fi
echo
echo "policy evaluation, with allocations (see BENCHMARKS.md):"
echo "  go test -run '^\$' -bench Eval -benchtime=2s ./internal/policy"
echo "the history stage alone (see BENCHMARKS.md):"
echo "  go test -run '^\$' -bench Compare1000Runs -benchtime 5x ./internal/history"
