#!/usr/bin/env bash
# Recording benchmark: `heapql record` against `heaptrack` recording the same
# program, round robin in one run, and queries on a recording in progress.
# See bench/README.md ("Recording").
#
# usage: bench/record-bench.sh [--workload walk|cxx|compile] [--quick] [--passes N] [--repeat N]
#                              [--heapql PATH] [--workdir DIR] [--no-live]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

workdir="$root/build/bench-work/record"
heapql="$root/build/heapql"
quick=0
workload_kind=walk
repeat=3
passes=""
live=1

usage() {
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  cat <<'EOF'

options:
  --workload K   walk (default): many unique stacks; cxx: clang++-14; compile:
                 few unique stacks (the workloads of run-bench.sh)
  --quick        the small form of the workload (seconds, not minutes)
  --passes N     the workload's size, as in run-bench.sh
  --repeat N     recordings by each tool, round robin (default 3); medians
  --heapql PATH  the heapql binary (default build/heapql)
  --workdir DIR  where the recordings go (default build/bench-work/record);
                 each round deletes the previous round's
  --no-live      skip the recording queried while it runs
EOF
}

die() { echo "record-bench: $*" >&2; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --workload) workload_kind="${2:?--workload needs walk, cxx or compile}"; shift ;;
    --quick) quick=1 ;;
    --passes) passes="${2:?--passes needs a number}"; shift ;;
    --repeat) repeat="${2:?--repeat needs a number}"; shift ;;
    --heapql) heapql="${2:?--heapql needs a path}"; shift ;;
    --workdir) workdir="${2:?--workdir needs a directory}"; shift ;;
    --no-live) live=0 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
  shift
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat wants a positive number, got '$repeat'"
[[ -z "$passes" || "$passes" =~ ^[1-9][0-9]*$ ]] || die "--passes wants a positive number, got '$passes'"
[[ "$workload_kind" =~ ^(compile|walk|cxx)$ ]] || die "--workload wants walk, cxx or compile, got '$workload_kind'"
for tool in heaptrack zstd python3; do command -v "$tool" >/dev/null 2>&1 || die "missing: $tool"; done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
[[ -x "$heapql" ]] || die "no heapql at $heapql (build first: cmake -S . -B build && cmake --build build -j2)"

# shellcheck source=bench/workloads.sh
source "$here/workloads.sh"
define_workload

mkdir -p "$workdir"
workdir="$(cd "$workdir" && pwd)"
# A private copy: a rebuild of the tree during the run cannot mix two versions.
cp "$heapql" "$workdir/heapql.bench"
heapql_id="$(git -C "$root" describe --always --dirty 2>/dev/null || echo "no git"), sha256 $(sha256sum "$heapql" | cut -c1-12)"
heapql="$workdir/heapql.bench"
export PYTHONMALLOC=malloc

# Bytes of every file a recording named BASE left (BASE.*).
folder_bytes() { find "$workdir" -maxdepth 1 -name "$(basename "$1").*" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
size_of() { if [[ -f "$1" ]]; then stat -c %s "$1"; else echo 0; fi; }
# %.15g: byte counts print whole, not as 4.0e+07.
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {printf "%.15g\n", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "inf"}'; }
verdict() { awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; print ok ? "met" : "NOT met"}'; }
timed() {  # out-file, argv...: wall seconds and peak RSS (KiB) into out-file
  local out="$1"; shift
  /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>"$out.stderr"
}

echo "workload $workload_kind: ${workload[*]}"
echo "heapql: $heapql_id; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
ht_wall=() hq_wall=() ht_bytes=() hq_folder=() hq_store=() hq_trace=()
for ((round = 1; round <= repeat; round++)); do
  rm -f "$workdir"/heaptrack-rec.* "$workdir"/heapql-rec.*
  timed "$workdir/ht.time" heaptrack -o "$workdir/heaptrack-rec" "${workload[@]}" || die "heaptrack failed: $(tail -5 "$workdir/ht.time.stderr")"
  timed "$workdir/hq.time" "$heapql" record -o "$workdir/heapql-rec" -- "${workload[@]}" ||
    die "heapql record failed: $(tail -5 "$workdir/hq.time.stderr")"
  ht_wall+=("$(cut -d' ' -f1 "$workdir/ht.time")")
  hq_wall+=("$(cut -d' ' -f1 "$workdir/hq.time")")
  ht_bytes+=("$(size_of "$workdir/heaptrack-rec.zst")")
  hq_folder+=("$(folder_bytes "$workdir/heapql-rec")")
  hq_store+=("$(size_of "$workdir/heapql-rec.zst.hqdb")")
  hq_trace+=("$(size_of "$workdir/heapql-rec.zst")")
  printf '  round %d: heaptrack %.2f s, heapql record %.2f s (%s)\n' "$round" "${ht_wall[-1]}" "${hq_wall[-1]}" \
    "$(ratio "${hq_wall[-1]}" "${ht_wall[-1]}")x"
done
echo "  heapql left: $(cd "$workdir" && ls -l heapql-rec.* | awk '{printf "%s %d B; ", $9, $5}')"

mwall_ht=$(echo "${ht_wall[*]}" | median)
mwall_hq=$(echo "${hq_wall[*]}" | median)
mbytes_ht=$(echo "${ht_bytes[*]}" | median)
mfolder=$(echo "${hq_folder[*]}" | median)
mstore=$(echo "${hq_store[*]}" | median)
mtrace=$(echo "${hq_trace[*]}" | median)

if [[ $live -eq 1 ]]; then
  # One more recording, asked `query --by stack` every second while it runs.
  rm -f "$workdir"/live-rec.* "$workdir"/live-query.*
  /usr/bin/time -f '%e %M' -o "$workdir/live.time" "$heapql" record -o "$workdir/live-rec" -- "${workload[@]}" \
    >/dev/null 2>"$workdir/live.stderr" &
  recorder=$!
  latencies=() answered_by=() in_progress=0 refused=0
  while kill -0 "$recorder" 2>/dev/null; do
    sleep 1
    [[ -s "$workdir/live-rec.zst" ]] || continue
    kill -0 "$recorder" 2>/dev/null || break
    start=$(date +%s.%N)
    if "$heapql" query "$workdir/live-rec.zst" --by stack --top 10 --format json >"$workdir/live-query.json" \
        2>"$workdir/live-query.stderr"; then
      latencies+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')")
      if grep -q 'recording in progress' "$workdir/live-query.stderr"; then
        in_progress=$((in_progress + 1))
        answered_by+=("journal")
      else
        answered_by+=("store")
      fi
    else
      refused=$((refused + 1))
      cp "$workdir/live-query.stderr" "$workdir/live-query.failed.$refused"
    fi
  done
  wait "$recorder" || die "the live heapql record failed: $(tail -5 "$workdir/live.stderr")"
  live_wall=$(cut -d' ' -f1 "$workdir/live.time")
fi

echo
printf '%-44s %12s %12s %10s  %s\n' "measure (median of $repeat)" heaptrack "heapql" ratio target
printf '%-44s %12.2f %12.2f %10s  <= 1.1x: %s\n' "record wall seconds" "$mwall_ht" "$mwall_hq" \
  "$(ratio "$mwall_hq" "$mwall_ht")" "$(verdict "$(ratio "$mwall_hq" "$mwall_ht")" '<=' 1.1)"
printf '%-44s %12.0f %12.0f %10s  <= 2.5x: %s\n' "folder bytes (heaptrack: its .zst)" "$mbytes_ht" "$mfolder" \
  "$(ratio "$mfolder" "$mbytes_ht")" "$(verdict "$(ratio "$mfolder" "$mbytes_ht")" '<=' 2.5)"
printf '%-44s %12.0f %12.0f %10s  <= 1x: %s\n' "store bytes vs its trace's .zst" "$mtrace" "$mstore" \
  "$(ratio "$mstore" "$mtrace")" "$(verdict "$(ratio "$mstore" "$mtrace")" '<=' 1)"
if [[ $live -eq 1 ]]; then
  if [[ ${#latencies[@]} -gt 0 ]]; then
    max_latency=$(printf '%s\n' "${latencies[@]}" | sort -g | tail -1)
    printf '%-44s %12s %12.3f %10s  <= 1 s: %s\n' "live query, slowest of ${#latencies[@]} (s)" - "$max_latency" - \
      "$(verdict "$max_latency" '<=' 1)"
    printf '%-44s %12s %12.3f\n' "live query, median (s)" - "$(echo "${latencies[*]}" | median)"
  fi
  echo "  live queries: ${#latencies[@]} answered ($in_progress said 'recording in progress'), $refused refused"
  # Each query in turn, and what answered it: the slowest is seen in its place.
  for ((q = 0; q < ${#latencies[@]}; q++)); do
    printf '%s%.2f (%s)' "$([[ $q -eq 0 ]] && echo '  each in turn: ' || echo ', ')" "${latencies[$q]}" "${answered_by[$q]}"
  done
  [[ ${#latencies[@]} -eq 0 ]] || echo
  printf '%-44s %12.2f %12.2f %10s  (never blocks: ~1x)\n' "record wall, queried every second" "$mwall_hq" \
    "$live_wall" "$(ratio "$live_wall" "$mwall_hq")"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
