#!/usr/bin/env bash
# Speed benchmark: `schedtrace analyze` against the tool people use today on the same file, and
# against the floor of reading the file at all, as RATIOS of paired runs (A B A B ..., the ratio
# taken pair by pair, then the median): a ratio holds while the shared machine's speed drifts,
# a single wall time does not. Also peak RSS (median of the runs) and events/s.
# Run bench/capture-large.sh first (and see bench/README.md for the text inputs).
# Usage: bench/run.sh [OUT] [PAIRS]   (OUT as given to capture-large.sh; default bench/out; 3 pairs)
# NO_BUILD=1 uses the release binaries as they are (while another cargo holds the build lock).
# The last lines are one summary: per input, the paired ratio against the reference tool
# (with the aim of issue 31 beside it) and against the floor of reading the file.
set -euo pipefail
out=${1:-bench/out}
pairs=${2:-3}
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release --quiet
  cargo build --release --quiet -p schedtrace-ingest --example touch_floor
fi
bin=target/release/schedtrace
floor=target/release/examples/touch_floor
tfile=$(mktemp)
summary=$(mktemp)
trap 'rm -f "$tfile" "$summary"' EXIT

one() { # one run of a shell command line; prints "wall_s peak_rss_kib"
  /usr/bin/time -o "$tfile" -f '%e %M' sh -c "exec $1" >/dev/null 2>&1 || true
  tail -n 1 "$tfile"
}

# pair LABEL_A CMD_A LABEL_B CMD_B: PAIRS runs of each in turn; prints medians and A/B, and
# appends "LABEL_A / LABEL_B: ratio (min-max)" to the summary.
pair() {
  local a=() b=()
  one "$2" >/dev/null # warm-up, not counted
  for _ in $(seq "$pairs"); do
    a+=("$(one "$2")")
    b+=("$(one "$4")")
  done
  python3 - "$summary" "$1" "$3" "${a[@]}" -- "${b[@]}" <<'EOF'
import statistics as st, sys
summary, la, lb, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
cut = rest.index("--")
a = [tuple(map(float, r.split())) for r in rest[:cut]]
b = [tuple(map(float, r.split())) for r in rest[cut + 1:]]
med = lambda xs: st.median(xs)
ratios = [x[0] / max(y[0], 1e-3) for x, y in zip(a, b)]
ratio = med(ratios)
for label, runs in ((la, a), (lb, b)):
    print(f"  {label:<34} wall {med([r[0] for r in runs]):7.2f} s (min {min(r[0] for r in runs):.2f}, max {max(r[0] for r in runs):.2f})"
          f"   peak RSS {med([r[1] for r in runs]) / 1024:7.1f} MiB")
print(f"  {'ratio ' + la + ' / ' + lb:<34} {ratio:7.2f}  (median of {len(a)} pairs)")
with open(summary, "a") as f:
    f.write(f"{la} / {lb}\t{ratio:.2f}\t{min(ratios):.2f}-{max(ratios):.2f}\n")
EOF
}

events_of() { # total events schedtrace reads from a file
  "$bin" analyze "$1" --json - 2>/dev/null |
    python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["quality"]["events"].values()))'
}

for f in "$out"/large.perf.data "$out"/large.trace.dat "$out"/large.txt "$out"/large.txt.zst; do
  [ -f "$f" ] || continue
  size=$(stat -L -c %s "$f")
  n=$(events_of "$f")
  echo "== $f: $((size / 1048576)) MiB, $n events"
  cat "$f" >/dev/null # page cache: every command reads from memory
  ours="$bin analyze $f"
  echo "== $(basename "$f")" >>"$summary"
  case "$f" in
    *.perf.data) pair "perf sched latency" "perf sched latency -i $f" "schedtrace analyze" "$ours"
      echo "aim (issue 31): >= 6" >>"$summary" ;;
    *.trace.dat) pair "trace-cmd report >/dev/null" "trace-cmd report -i $f" "schedtrace analyze" "$ours"
      echo "aim (issue 31): >= 30" >>"$summary" ;;
  esac
  case "$f" in
    *.zst) pair "schedtrace analyze" "$ours" "floor: zstd -dc >/dev/null" "zstd -dcqf $f" ;;
    *) pair "schedtrace analyze" "$ours" "floor: touch_floor (map)" "$floor $f map" ;;
  esac
  one "$ours" | python3 -c "import sys; w, rss = map(float, sys.stdin.read().split()); print(f'  throughput: {$n / w / 1e6:.1f} M events/s, {$size / w / 1e6:.0f} MB/s of input, peak RSS {rss / 1024:.0f} MiB = {100 * rss * 1024 / $size:.1f} % of the file')"
done
echo
echo "== summary: paired ratios, median (min-max of the pairs); above 1 means schedtrace is faster"
echo "   than the reference, and the floor ratio is how many reads of the file analyze costs"
column -t -s $'\t' "$summary"
