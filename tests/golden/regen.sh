#!/usr/bin/env bash
# Writes tests/golden/out/ from a schedtrace binary (default: target/release/schedtrace), one
# text report and one JSON report per line of cases.txt, with the trace's path replaced by
# <TRACE> so that the outputs do not depend on where the traces are.
# Usage: tests/golden/regen.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-target/release/schedtrace}
out=tests/golden/out
mkdir -p "$out"
resolve() {
  case $1 in
    fixtures/*) echo "$1" ;;
    public/*) echo "../shared/traces/$1" ;;
    *) if [ -e "fixtures/traces/$1" ]; then echo "fixtures/traces/$1"; else echo "../shared/traces/$1"; fi ;;
  esac
}
grep -v '^#' tests/golden/cases.txt | while IFS='|' read -r name trace args; do
  name=$(echo $name); trace=$(echo $trace)
  path=$(resolve "$trace")
  [ -e "$path" ] || { echo "skip $name: $path missing" >&2; continue; }
  # shellcheck disable=SC2086
  "$bin" analyze "$path" $args 2>/dev/null | sed "s|$path|<TRACE>|g" > "$out/$name.txt" || true
  # shellcheck disable=SC2086
  "$bin" analyze "$path" $args --json - 2>/dev/null | sed "s|$path|<TRACE>|g" | xz -9 -c > "$out/$name.json.xz" || true
done
