#!/usr/bin/env bash
# The repository on its own: clones it (its committed HEAD) into a temporary folder with no
# ../shared beside it and runs the README's test command there. Passes when that command passes;
# lists the tests that skipped for want of the third-party traces (one `skipped <test>:` line
# each), so a test that silently needs ../shared shows up as a failure, not as a pass.
#
# The clone builds into this checkout's target folder (CARGO_TARGET_DIR) so that the
# dependencies are not compiled a second time; the workspace's own crates are, from the clone.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
command=$(grep -m1 -E '^cargo (test|nextest)' "$here/README.md") || {
  echo "fresh-clone: no test command (a line starting with 'cargo test') in README.md" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-hardlinks "$here" "$tmp/schedtrace"
if [ -e "$tmp/shared" ]; then
  echo "fresh-clone: $tmp/shared exists, the clone would not stand alone" >&2
  exit 1
fi
cd "$tmp/schedtrace"
echo "fresh-clone: running '$command' in a clone without ../shared"
log="$tmp/test.log"
status=0
# Not under CI=true: there a missing ../shared/traces/public fails its tests on purpose.
env -u CI CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}" bash -c "$command" >"$log" 2>&1 || status=$?
# Cargo names a workspace crate's artifacts by its path relative to the workspace, so the clone's
# build replaced this checkout's; the fixtures crate bakes its own folder in (CARGO_MANIFEST_DIR).
# A newer mtime makes the checkout's next build compile it again from its own folder.
touch "$here/fixtures/src/lib.rs"
grep -E '^test result:' "$log" | sed 's/^/fresh-clone: /' || true
skipped=$(grep -oE 'skipped [^ ]+: \.\./shared/traces/public is absent' "$log" | awk '{print $2}' | sed 's/:$//' | sort -u)
echo "fresh-clone: $(printf '%s\n' "$skipped" | grep -c .) tests skipped without ../shared/traces/public:"
printf '%s\n' "$skipped" | sed '/^$/d; s/^/  /'
if [ "$status" -ne 0 ]; then
  echo "fresh-clone: FAILED (status $status); the failing part of the log:" >&2
  grep -E -A20 '^failures:|panicked at|^error' "$log" | head -80 >&2 || true
  exit "$status"
fi
echo "fresh-clone: passed"
