#!/usr/bin/env bash
# End-to-end benchmark: heapql against heaptrack_print on one real heaptrack
# trace (by default a Python interpreter compiling the standard library, tens
# of millions of allocation calls). See bench/README.md.
#
# usage: bench/run-bench.sh [--quick] [--workload compile|walk|cxx] [--workdir DIR] [--repeat N]
#                           [--passes N] [--heapql PATH] [--label TEXT] [--with-raw] [--rerecord] [--record-only]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

workdir="$root/build/bench-work"
heapql="$root/build/heapql"
quick=0
workload_kind=compile
repeat=1
passes=""
with_raw=0
rerecord=0
record_only=0
label=""

usage() {
  sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<'EOF'

options:
  --quick        a small trace (~1.5 M allocation calls) for a smoke run
  --workload K   compile (default): compile the standard library, few unique
                 stacks (~0.5 M); walk: parse, compile and pickle syntax
                 trees, many unique stacks (>= 1.5 M); cxx: clang++-14
                 compiling googletest's own unit test, a C++ program whose
                 symbolized frames merge many traces into one stack
  --workdir DIR  where traces are recorded and kept (default build/bench-work);
                 a trace already there is reused
  --repeat N     run every command N times (round robin), report the median
  --passes N     compile: passes over the standard library when recording (default 7;
                 --quick: 1 pass over 80 files); walk: hundreds of files
                 (default 6; --quick: N x 40 files); not for cxx
  --heapql PATH  the heapql binary (default build/heapql)
  --with-raw     also record with `heapql record` (raw twin, exact block
                 identity) and time the query on that trace
  --rerecord     record again even if a trace is cached
  --record-only  record (and count) the trace, measure nothing
  --label TEXT   what the heapql binary is (printed; default: the tree's git state)
EOF
}

die() { echo "run-bench: $*" >&2; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --workload) workload_kind="${2:?--workload needs compile, walk or cxx}"; shift ;;
    --workdir) workdir="${2:?--workdir needs a directory}"; shift ;;
    --repeat) repeat="${2:?--repeat needs a number}"; shift ;;
    --passes) passes="${2:?--passes needs a number}"; shift ;;
    --heapql) heapql="${2:?--heapql needs a path}"; shift ;;
    --with-raw) with_raw=1 ;;
    --rerecord) rerecord=1 ;;
    --record-only) record_only=1 ;;
    --label) label="${2:?--label needs a text}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
  shift
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat wants a positive number, got '$repeat'"
[[ -z "$passes" || "$passes" =~ ^[1-9][0-9]*$ ]] || die "--passes wants a positive number, got '$passes'"
[[ "$workload_kind" =~ ^(compile|walk|cxx)$ ]] || die "--workload wants compile, walk or cxx, got '$workload_kind'"
[[ "$workload_kind" != cxx || -z "$passes" ]] || die "--passes is for the compile and walk workloads"

# ---------------------------------------------------------------- tools
missing=()
for tool in heaptrack heaptrack_print zstd python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [[ ! -x /usr/bin/time ]]; then
  echo "run-bench: /usr/bin/time is missing: it measures peak RSS (Debian package 'time': apt-get install time)" >&2
  missing+=("/usr/bin/time")
fi
[[ ${#missing[@]} -eq 0 ]] || die "missing: ${missing[*]}"
[[ -x "$heapql" ]] || die "no heapql at $heapql (build first: cmake -S . -B build && cmake --build build -j2)"
heapql="$(cd "$(dirname "$heapql")" && pwd)/$(basename "$heapql")"
heapql_origin="$heapql"

# shellcheck source=bench/workloads.sh
source "$here/workloads.sh"
define_workload

mkdir -p "$workdir"
workdir="$(cd "$workdir" && pwd)"
trace="$workdir/$name.zst"
facts="$workdir/$name.facts"
log="$workdir/$name.log"

# ---------------------------------------------------------------- record
# The cached trace is reused only if it was recorded with the same workload.
stamp="$workdir/$name.workload"
if [[ -s "$trace" && "$(cat "$stamp" 2>/dev/null)" != "${workload[*]}" ]]; then
  echo "the cached $trace was recorded with another workload: recording again"
  rerecord=1
fi

record_seconds=""
if [[ $rerecord -eq 1 || ! -s "$trace" ]]; then
  echo "recording: PYTHONMALLOC=malloc heaptrack -o $workdir/$name ${workload[*]}"
  echo "  (a full recording takes a few minutes)"
  rm -f "$trace" "$facts" "$workdir/$name.partial.zst" "$workdir/$name.partial.gz"
  start=$(date +%s.%N)
  # Recorded under a temporary name, so an interrupted recording is never reused.
  if ! PYTHONMALLOC=malloc heaptrack -o "$workdir/$name.partial" "${workload[@]}" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "heaptrack failed (log: $log)"
  fi
  record_seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
  [[ -s "$workdir/$name.partial.zst" ]] ||
    die "heaptrack wrote no $workdir/$name.partial.zst (is heaptrack built with zstd and zstd on PATH?) log: $log"
  mv "$workdir/$name.partial.zst" "$trace"
  echo "${workload[*]}" >"$stamp"
fi

# Every command runs a private copy of the binary, so that a rebuild of the
# tree while the benchmark runs (minutes) cannot mix two versions.
heapql_id="${label:-$(git -C "$root" describe --always --dirty 2>/dev/null || echo "no git")}, $(date -r "$heapql_origin" '+built %F %T'), sha256 $(sha256sum "$heapql_origin" | cut -c1-12)"
cp "$heapql_origin" "$workdir/heapql.bench"
heapql="$workdir/heapql.bench"

raw_trace=""
if [[ $with_raw -eq 1 ]]; then
  raw_name="$name-raw"
  raw_trace="$workdir/$raw_name.zst"
  if [[ $rerecord -eq 1 || ! -s "$raw_trace" || ! -s "$workdir/$raw_name.raw.zst" ]]; then
    echo "recording the raw twin: PYTHONMALLOC=malloc heapql record --keep-raw -o $workdir/$raw_name -- ${workload[*]}"
    if ! PYTHONMALLOC=malloc "$heapql" record --keep-raw -o "$workdir/$raw_name" -- "${workload[@]}" >"$workdir/$raw_name.log" 2>&1; then
      tail -20 "$workdir/$raw_name.log" >&2
      die "heapql record failed (log: $workdir/$raw_name.log)"
    fi
  fi
  # The store `heapql record` wrote beside it answers "its store" below; a
  # recording kept from an older heapql may hold a store this one refuses
  # (another format version): write it again, as a user would.
  # Its block-identity file too (NAME.zst.hqid), which `heapql record`
  # writes and an older heapql did not.
  if ! "$heapql" info "$raw_trace.hqdb" >/dev/null 2>&1 || [[ ! -s "$raw_trace.hqid" ]]; then
    echo "writing the recording's store and block-identity file with this heapql: heapql ingest $raw_trace"
    rm -f "$raw_trace.hqid"
    "$heapql" ingest "$raw_trace" --no-progress 2>/dev/null || die "heapql ingest $raw_trace failed"
  fi
  # The same two files, linked into a folder of their own without the
  # block-identity file: the recording read with its raw twin alone.
  twin_only="$workdir/twin-only"
  mkdir -p "$twin_only"
  ln -f "$raw_trace" "$workdir/$raw_name.raw.zst" "$twin_only/"
  rm -f "$twin_only/$raw_name.zst.hqid" "$twin_only/$raw_name.zst.hqdb"
fi

# ---------------------------------------------------------------- facts
# Counted once per trace and cached: calls as heaptrack_print counts them,
# the size of the text heapql and heaptrack_print parse, and the trace's
# duration (the windowed query asks for its middle tenth).
if [[ ! -s "$facts" ]] || ! grep -q '^duration_ns=' "$facts"; then
  echo "counting: heaptrack_print summary and zstd -dc | wc (once per trace)"
  calls=$(heaptrack_print -p 0 -a 0 -T 0 "$trace" | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p')
  [[ -n "$calls" ]] || die "heaptrack_print printed no 'calls to allocation functions' for $trace"
  read -r lines bytes < <(zstd -dc "$trace" | wc -lc)
  duration_ns=$("$heapql" info "$trace" --no-store --no-progress --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["duration_ns"])')
  printf 'calls=%s\nlines=%s\nbytes=%s\nduration_ns=%s\n' "$calls" "$lines" "$bytes" "$duration_ns" >"$facts"
fi
# shellcheck disable=SC1090
source "$facts"
compressed=$(stat -c %s "$trace")
if (( calls < min_calls )); then
  echo "run-bench: WARNING: the trace has only $calls allocation calls (want >= $min_calls); try --rerecord --passes N" >&2
fi
if [[ $record_only -eq 1 ]]; then
  echo "recorded: $trace ($calls allocation calls, $lines lines)"
  rm -f "$workdir/heapql.bench"
  exit 0
fi

# ---------------------------------------------------------------- measure
# Each command: its label, then argv. stdout goes to /dev/null except where a
# command's output is needed (the store statistics).
labels=()
commands=()
add() { labels+=("$1"); shift; commands+=("$*"); }
# Commands are kept as shell text, run by bash -c (the floor is a pipeline).
q() { printf '%q ' "$@"; }
add "heaptrack_print FILE"                       "$(q heaptrack_print "$trace") >/dev/null"
# The one-shot commands read the trace itself (--no-store), not a store beside it.
add "heapql info FILE"                           "$(q "$heapql" info "$trace" --no-store --no-progress) >/dev/null"
add "heapql query FILE --by stack --top 10"      "$(q "$heapql" query "$trace" --by stack --top 10 --no-store --no-progress) >/dev/null"
add "heapql info FILE --load --format json"      "$(q "$heapql" info "$trace" --load --format json --no-store --no-progress) >$(q "$workdir/store.json")"
add "zstd -dc FILE | wc -l   (floor)"            "$(q zstd -dc "$trace") | wc -l >/dev/null"
# The store (docs/store.md): ingested in each round, before the queries that read it.
store="$workdir/$name.hqdb"
# regression compares two traces (it needs --param baseline): not one of the single-trace recipes timed here.
recipes=$("$heapql" list | awk 'NR > 1 && $1 != "regression" {print $1}')
add "heapql ingest FILE -o STORE"                "$(q "$heapql" ingest "$trace" -o "$store" --no-progress) 2>/dev/null"
add "heapql query STORE --by stack --top 10"     "$(q "$heapql" query "$store" --by stack --top 10) >/dev/null"
window="$((duration_ns * 45 / 100 / 1000000))ms..$((duration_ns * 55 / 100 / 1000000))ms"
add "heapql query STORE --window $window --impacting AIFO,AOFI --by impacting,stack --top 10" \
  "$(q "$heapql" query "$store" --window "$window" --impacting AIFO,AOFI --by impacting,stack --top 10) >/dev/null"
add "the $(echo "$recipes" | wc -l) shipped recipes on STORE, in a row" \
  "for r in $(echo $recipes); do $(q "$heapql") run \$r $(q "$store") >/dev/null; done"
if [[ -n "$raw_trace" ]]; then
  # Read with its block-identity file; then as a user meets it after
  # `heapql record`, from the store the recording wrote; then that store
  # written again; then both read with the raw twin alone (the ingest
  # writes the block-identity file there, removed after it).
  twin_copy="$twin_only/$raw_name.zst"
  add "heapql query RAWFILE --by stack --top 10 --no-store" "$(q "$heapql" query "$raw_trace" --by stack --top 10 --no-store --no-progress) >/dev/null"
  add "heapql query RAWFILE --by stack --top 10 (its store)" "$(q "$heapql" query "$raw_trace" --by stack --top 10 --no-progress) >/dev/null"
  add "heapql ingest RAWFILE -o RAWSTORE"         "$(q "$heapql" ingest "$raw_trace" -o "$workdir/$name-raw.ingested.hqdb" --no-progress) 2>/dev/null"
  add "heapql query RAWFILE --no-store, raw twin alone" "$(q "$heapql" query "$twin_copy" --by stack --top 10 --no-store --no-progress) >/dev/null"
  add "heapql ingest RAWFILE, raw twin alone"  "$(q "$heapql" ingest "$twin_copy" -o "$workdir/$name-raw.twin.hqdb" --no-progress) 2>/dev/null; rm -f $(q "$twin_copy.hqid")"
fi
n=${#labels[@]}

# Page cache: read every file once, so no command pays for the first read.
cat "$trace" >/dev/null
[[ -z "$raw_trace" ]] || cat "$raw_trace" "$workdir/$name-raw.raw.zst" >/dev/null

declare -A walls rss cpus
measure() {  # index
  local i=$1 out
  out="$(mktemp)"
  if ! /usr/bin/time -f '%e %M %U %S' -o "$out" bash -c "set -o pipefail; ${commands[$i]}" 2>>"$log"; then
    tail -5 "$log" >&2
    die "failed: ${commands[$i]} (log: $log)"
  fi
  local wall kib user sys
  read -r wall kib user sys < <(tail -1 "$out")
  rm -f "$out"
  walls[$i]+="$wall "
  cpus[$i]+="$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') "
  rss[$i]+="$kib "
}

echo "measuring: $n commands x $repeat (round robin) on $trace"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < repeat; r++)); do
  for ((i = 0; i < n; i++)); do
    measure "$i"
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
wall_of=()
cpu_of=()
mib_of=()
for ((i = 0; i < n; i++)); do
  wall_of[i]=$(echo "${walls[$i]}" | median)
  cpu_of[i]=$(echo "${cpus[$i]}" | median)
  mib_of[i]=$(echo "${rss[$i]}" | median | awk '{printf "%.1f", $1/1024}')
done

store_field() {  # python expression over the parsed JSON `d`
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$workdir/store.json"
}
bytes_per_block=$(store_field 'd["store"]["bytes_per_block"]')
column_bytes=$(store_field 'd["store"]["column_bytes"]')
table_bytes=$(store_field 'd["store"]["table_bytes"]')
rm -f "$workdir/heapql.bench"
blocks=$(store_field 'd["summary"]["blocks"]')
stack_nodes=$(store_field 'd["summary"]["stack_nodes"]')
unique_stacks=$(store_field 'd["summary"]["unique_stacks"]')
if (( unique_stacks < min_stacks )); then
  echo "run-bench: WARNING: the trace has only $unique_stacks unique stacks (want >= $min_stacks); try --rerecord --passes N" >&2
fi

# ---------------------------------------------------------------- report
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b/1048576}'; }
# Three decimals: a target of 0.01x is judged on 0.011, not on its rounding.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "inf"}'; }
# The wall ratio in each round, in order: both commands of a round run seconds
# apart, so the spread shows how far the machine's pace moved the median.
round_ratios() {  # numerator index, denominator index
  paste -d' ' <(tr ' ' '\n' <<<"${walls[$1]}" | grep .) <(tr ' ' '\n' <<<"${walls[$2]}" | grep .) |
    awk '{printf "%s%.2fx", (NR > 1 ? " " : ""), ($2 > 0 ? $1 / $2 : 0)}'
}
verdict() {  # value op target
  awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {ok = (op == ">=") ? v >= t : v <= t; print ok ? "met" : "MISSED"}'
}

echo
echo "== trace =="
printf '  %-30s %s\n' "file" "$trace"
printf '  %-30s %s\n' "workload" "PYTHONMALLOC=malloc ${workload[*]}"
[[ -z "$record_seconds" ]] || printf '  %-30s %.0f s (this run)\n' "recording time" "$record_seconds"
printf '  %-30s %s\n' "calls to allocation functions" "$calls"
printf '  %-30s %s (%s)\n' "compressed size" "$compressed" "$(mib "$compressed")"
printf '  %-30s %s (%s)\n' "uncompressed size" "$bytes" "$(mib "$bytes")"
printf '  %-30s %s\n' "lines" "$lines"
if [[ -n "$raw_trace" ]]; then
  raw_twin="$workdir/$name-raw.raw.zst"
  printf '  %-30s %s (%s) + raw twin %s (%s); a second recording of the same workload\n' "RAWFILE (heapql record)" \
    "$(stat -c %s "$raw_trace")" "$(mib "$(stat -c %s "$raw_trace")")" "$(stat -c %s "$raw_twin")" "$(mib "$(stat -c %s "$raw_twin")")"
fi
printf '  %-30s %s blocks, %s stack nodes, %s unique stacks\n' "heapql store" "$blocks" "$stack_nodes" "$unique_stacks"
printf '  %-30s %s x %s, median; %s cores\n' "runs" "$repeat" "each command" "$(nproc)"
printf '  %-30s %s (before) / %s (after)\n' "load average" "$load_before" "$load_after"
printf '  %-30s %s (%s)\n' "heapql" "$heapql_origin" "$heapql_id"

echo
echo "== commands =="
printf '  %-44s %8s %8s %13s %9s %10s\n' "command" "wall s" "cpu s" "peak RSS MiB" "Mlines/s" "MB/s text"
for ((i = 0; i < n; i++)); do
  read -r lps mbps < <(awk -v l="$lines" -v b="$bytes" -v w="${wall_of[i]}" \
    'BEGIN {if (w > 0) printf "%.2f %.1f\n", l/w/1e6, b/w/1e6; else print "- -"}')
  [[ "${labels[i]}" != *RAWFILE* ]] || { lps=-; mbps=-; }  # another recording: not the same text
  printf '  %-44s %8.2f %8.2f %13s %9s %10s\n' "${labels[i]}" "${wall_of[i]}" "${cpu_of[i]}" "${mib_of[i]}" "$lps" "$mbps"
done
echo "  (cpu = user + sys of the command and its children; throughput = lines and bytes of the"
echo "   uncompressed trace text / wall time; medians over the runs)"

hp=0 info=1 query=2 load=3 floor=4 ingest=5 from_store=6 window_store=7 recipes_store=8
echo
echo "== ratios =="
printf '  %-56s %8s   %s\n' "wall  heaptrack_print / heapql query" "$(ratio "${wall_of[hp]}" "${wall_of[query]}")x" \
  "target >= 7x: $(verdict "$(ratio "${wall_of[hp]}" "${wall_of[query]}")" ">=" 7)"
printf '  %-56s %s\n' "      the same, each round" "$(round_ratios "$hp" "$query")"
printf '  %-56s %8s   %s\n' "cpu   heaptrack_print / heapql query" "$(ratio "${cpu_of[hp]}" "${cpu_of[query]}")x" \
  "(same target, on cpu time: $(verdict "$(ratio "${cpu_of[hp]}" "${cpu_of[query]}")" ">=" 7))"
printf '  %-56s %8s\n' "wall  heaptrack_print / heapql info" "$(ratio "${wall_of[hp]}" "${wall_of[info]}")x"
printf '  %-56s %8s\n' "wall  heaptrack_print / heapql info --load" "$(ratio "${wall_of[hp]}" "${wall_of[load]}")x"
printf '  %-56s %8s   %s\n' "RSS   heapql query / heaptrack_print" "$(ratio "${mib_of[query]}" "${mib_of[hp]}")x" \
  "target <= 0.7x: $(verdict "$(ratio "${mib_of[query]}" "${mib_of[hp]}")" "<=" 0.7)"
printf '  %-56s %8s\n' "RSS   heapql info / heaptrack_print" "$(ratio "${mib_of[info]}" "${mib_of[hp]}")x"
printf '  %-56s %8s\n' "RSS   heapql info --load / heaptrack_print" "$(ratio "${mib_of[load]}" "${mib_of[hp]}")x"
printf '  %-56s %8s   %s\n' "wall  heapql query / floor (zstd -dc | wc -l)" "$(ratio "${wall_of[query]}" "${wall_of[floor]}")x" \
  "target <= 1.5x: $(verdict "$(ratio "${wall_of[query]}" "${wall_of[floor]}")" "<=" 1.5)"
printf '  %-56s %8s\n' "wall  heaptrack_print / floor" "$(ratio "${wall_of[hp]}" "${wall_of[floor]}")x"

printf '  %-56s %8s   %s\n' "wall  heapql query STORE --by stack / heaptrack_print" \
  "$(ratio "${wall_of[from_store]}" "${wall_of[hp]}")x" \
  "target <= 0.01x: $(verdict "$(ratio "${wall_of[from_store]}" "${wall_of[hp]}")" "<=" 0.01)"
printf '  %-56s %8s   %s\n' "wall  heapql query STORE --window..impacting / h_print" \
  "$(ratio "${wall_of[window_store]}" "${wall_of[hp]}")x" \
  "target <= 0.03x: $(verdict "$(ratio "${wall_of[window_store]}" "${wall_of[hp]}")" "<=" 0.03)"
printf '  %-56s %8s   %s\n' "wall  shipped recipes on STORE / heaptrack_print" \
  "$(ratio "${wall_of[recipes_store]}" "${wall_of[hp]}")x" \
  "target <= 0.5x: $(verdict "$(ratio "${wall_of[recipes_store]}" "${wall_of[hp]}")" "<=" 0.5)"
printf '  %-56s %8s\n' "wall  heaptrack_print / heapql ingest" "$(ratio "${wall_of[hp]}" "${wall_of[ingest]}")x"
if [[ -n "$raw_trace" ]]; then
  raw_query=9 raw_from_store=10 raw_ingest=11 twin_query=12 twin_ingest=13
  for pair in "raw_query:heapql query RAWFILE --no-store (identity file)" "raw_ingest:heapql ingest RAWFILE (identity file)" \
    "twin_query:heapql query RAWFILE --no-store (raw twin alone)" "twin_ingest:heapql ingest RAWFILE (raw twin alone)"; do
    index_name=${pair%%:*}
    i=${!index_name}
    printf '  %-56s %8s   %s\n' "wall  heaptrack_print / ${pair#*:}" "$(ratio "${wall_of[hp]}" "${wall_of[i]}")x" \
      "target >= 4x: $(verdict "$(ratio "${wall_of[hp]}" "${wall_of[i]}")" ">=" 4)"
    printf '  %-56s %8s   %s\n' "RSS   ${pair#*:} / heaptrack_print" "$(ratio "${mib_of[i]}" "${mib_of[hp]}")x" \
      "target <= 1x: $(verdict "$(ratio "${mib_of[i]}" "${mib_of[hp]}")" "<=" 1)"
  done
  printf '  %-56s %8s\n' "wall  heaptrack_print / heapql query RAWFILE (its store)" \
    "$(ratio "${wall_of[hp]}" "${wall_of[raw_from_store]}")x"
fi
store_bytes=$(stat -c %s "$store")
printf '  %-56s %8s\n' "store file bytes a block (whole file)" "$(ratio "$store_bytes" "$blocks")"
printf '  %-56s %8s   %s\n' "store file bytes / the trace's .zst" "$(ratio "$store_bytes" "$(stat -c %s "$trace")")x" \
  "target <= 1x: $(verdict "$(ratio "$store_bytes" "$(stat -c %s "$trace")")" "<=" 1)"

echo
echo "== store (heapql info --load) =="
printf '  %-30s %s   target <= 12: %s\n' "bytes per block" "$bytes_per_block" "$(verdict "$bytes_per_block" "<=" 12)"
printf '  %-30s %s (%s)\n' "column bytes" "$column_bytes" "$(mib "$column_bytes")"
printf '  %-30s %s (%s)\n' "table bytes" "$table_bytes" "$(mib "$table_bytes")"
