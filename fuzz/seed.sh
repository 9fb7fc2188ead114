#!/usr/bin/env bash
# Builds fuzz/corpus/TARGET/ from the repository's own traces (fixtures/, decompressed, each cut
# to its first 256 KiB: a fuzzer mutates small inputs faster) and fuzz/regressions/.
set -euo pipefail
cd "$(dirname "$0")"
for target in tracedat perfdata_file perfdata_pipe text perfetto pipeline; do
  mkdir -p "corpus/$target"
  cp regressions/* "corpus/$target/"
  for f in ../fixtures/*.xz ../fixtures/perfdata/*.xz; do
    xz -dc "$f" | head -c 262144 > "corpus/$target/$(basename "$f" .xz)" || true
  done
  head -c 262144 ../fixtures/pipe_pinned.eevdf-6.18.trace.dat > "corpus/$target/pipe_pinned.v7.dat"
  head -c 262144 ../fixtures/cfs-6.1-pp1.v7-zlib.dat > "corpus/$target/pp1.v7-zlib.dat"
done
# Perfetto seeds are made by our own writer from a fixture.
if [ -x ../target/release/schedtrace ]; then
  ../target/release/schedtrace convert ../fixtures/ftrace-6.18-pingpong.trace.xz -o corpus/perfetto/pingpong.perfetto-trace
  ../target/release/schedtrace convert ../fixtures/ftrace-6.18-pingpong.trace.xz --compact-sched -o corpus/perfetto/pingpong.compact.perfetto-trace
  cp corpus/perfetto/*.perfetto-trace corpus/pipeline/
fi
