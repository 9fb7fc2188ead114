#!/usr/bin/env bash
# Instructions per event under valgrind's callgrind, for ingest alone (ingest/examples/read_count)
# and for the whole `schedtrace analyze` (ingest + analysis + report), on fixed fixtures of each
# format. Instruction counts do not depend on the machine's load the way wall time does, so a
# change to a hot path can be judged on a busy machine: run this before and after.
# One rayon thread, so that idle workers spinning for work add nothing that varies.
# Usage: bench/instructions.sh            (needs valgrind; takes about a minute)
set -euo pipefail
cargo build --release --quiet
cargo build --release --quiet -p schedtrace-ingest --example read_count
bin=target/release/schedtrace
count=target/release/examples/read_count
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pp=fixtures/traces/eevdf-6.18-host/pipe_pinned
cp "$pp/trace.dat" "$tmp/trace.dat"
xz -dc "$pp/perf.sched.data.xz" >"$tmp/perf.data"
xz -dc "$pp/trace-cmd.report.txt.xz" >"$tmp/report.txt"
xz -dc "$pp/perf.sched.script.txt.xz" >"$tmp/script.txt"

instructions() { # command... -> instructions executed (callgrind's "Collected")
  RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

printf '%-12s %9s %16s %16s\n' input events 'ingest instr/ev' 'analyze instr/ev'
for f in trace.dat perf.data report.txt script.txt; do
  n=$("$count" "$tmp/$f")
  ingest=$(instructions "$count" "$tmp/$f")
  whole=$(instructions "$bin" analyze "$tmp/$f")
  printf '%-12s %9d %16.1f %16.1f\n' "$f" "$n" "$(echo "$ingest / $n" | bc -l)" "$(echo "$whole / $n" | bc -l)"
done
