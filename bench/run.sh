#!/usr/bin/env bash
# Speed benchmark: schedtrace vs the tools people use today, on the same files.
# Prints wall time, events/s and peak RSS for each command.  Run bench/capture-large.sh first.
# Usage: bench/run.sh [OUT]   (OUT as given to capture-large.sh; default bench/out)
set -euo pipefail
out=${1:-bench/out}
bin=target/release/schedtrace
cargo build --release --quiet
tfile=$(mktemp)
trap 'rm -f "$tfile"' EXIT
measure() { # label, command...; sets $wall
  local label=$1; shift
  /usr/bin/time -o "$tfile" -f '%e %M' "$@" >/dev/null 2>/dev/null
  read -r wall rss < "$tfile"
  printf '%-26s wall %7.2f s   peak RSS %8.1f MiB\n' "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
}
events_of() { # total events schedtrace read from a file
  "$bin" analyze "$1" --json - 2>/dev/null | python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["quality"]["events"].values()))'
}
for f in "$out"/large.trace.dat "$out"/large.perf.data; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  n=$(events_of "$f")
  echo "== $f: $((size / 1048576)) MiB, $n events"
  sync; cat "$f" >/dev/null   # warm the page cache so every tool reads from memory
  measure "schedtrace analyze" "$bin" analyze "$f"
  printf '%-26s %.1f M events/s\n' "schedtrace throughput" "$(echo "$n / $wall / 1000000" | bc -l)"
  case "$f" in
    *.dat) measure "trace-cmd report" trace-cmd report -i "$f" ;;
    *.data)
      measure "perf sched latency" perf sched latency -i "$f"
      measure "perf sched timehist" perf sched timehist -i "$f" ;;
  esac
done
