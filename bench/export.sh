#!/usr/bin/env bash
# Export benchmark (issue: "export of all tables no slower than 2 x analyze"): for the large
# trace.dat of bench/capture-large.sh, `schedtrace export` of all tables in each format against
# `schedtrace analyze` of the same file, as the median of paired runs' ratios (A B A B ..., the
# ratio pair by pair: it holds while the shared machine's speed drifts), wall and CPU
# (user + system, of the process and its threads), peak RSS against the file's size, rows/s.
# The dataset goes to a tmpfs (/dev/shm) when there is one, so the figure is not the disk's;
# --force replaces it from run to run (its removal is part of each run, as it is for a user).
# Usage: bench/export.sh [OUT] [PAIRS]   (OUT as given to capture-large.sh; default bench/out; 5 pairs)
# Builds with `--features parquet` (polars, some 10 minutes the first time); NO_BUILD=1 uses
# target/release/schedtrace as it is.
set -euo pipefail
out=${1:-bench/out}
pairs=${2:-5}
trace="$out/large.trace.dat"
[ -f "$trace" ] || { echo "bench/export.sh: no $trace: run bench/capture-large.sh $out first" >&2; exit 2; }
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release --quiet --features parquet
fi
bin=target/release/schedtrace
base=$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")
dir=$(mktemp -d "$base/schedtrace-export-bench.XXXXXX")
tfile=$(mktemp)
trap 'rm -rf "$dir" "$tfile"' EXIT

one() { # one run of a command line; prints "wall_s cpu_s peak_rss_kib"
  /usr/bin/time -o "$tfile" -f '%e %U %S %M' sh -c "exec $1" >/dev/null 2>&1 || true
  tail -n 1 "$tfile" | awk '{print $1, $2 + $3, $4}'
}

size=$(stat -L -c %s "$trace")
cat "$trace" >/dev/null # page cache: every run reads from memory
analyze="$bin analyze $trace --json /dev/null"
echo "== $trace: $((size / 1048576)) MiB; $pairs pairs after a warm-up of each"
for format in csv parquet ndjson; do
  export_cmd="$bin export big=$trace -o $dir/$format --format $format --force --quiet"
  if ! $bin export big="$trace" -o "$dir/$format" --format "$format" --force --quiet 2>/dev/null; then
    echo "  $format: not written by this build (parquet needs --features parquet)"
    continue
  fi
  rows=$($bin export big="$trace" -o "$dir/$format" --format "$format" --force 2>&1 |
    sed -n 's/.*wrote \([0-9]*\) rows.*/\1/p')
  bytes=$(du -sb "$dir/$format" | cut -f1)
  one "$analyze" >/dev/null # warm-up
  a=() b=()
  for _ in $(seq "$pairs"); do
    a+=("$(one "$export_cmd")")
    b+=("$(one "$analyze")")
  done
  python3 - "$format" "$size" "$rows" "$bytes" "${a[@]}" -- "${b[@]}" <<'EOF'
import statistics as st, sys
fmt, size, rows, nbytes, rest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
cut = rest.index("--")
a = [tuple(map(float, r.split())) for r in rest[:cut]]
b = [tuple(map(float, r.split())) for r in rest[cut + 1:]]
med = st.median
wall = med([x[0] / y[0] for x, y in zip(a, b)])
cpu = med([x[1] / y[1] for x, y in zip(a, b)])
ew, ec, erss = (med([r[i] for r in a]) for i in range(3))
aw, ac = med([r[0] for r in b]), med([r[1] for r in b])
print(f"  {fmt:<8} export {ew:.2f} s ({ec:.2f} s cpu), analyze {aw:.2f} s ({ac:.2f} s cpu): "
      f"{wall:.2f} x the wall, {cpu:.2f} x the cpu; {rows / ew / 1e6:.2f} M rows/s, "
      f"peak RSS {erss / 1024:.1f} MiB = {100 * erss * 1024 / size:.1f} % of the file; "
      f"{nbytes:,} bytes written ({rows:,} rows)")
EOF
  rm -rf "${dir:?}/$format"
done
