#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (func FuzzX(f *testing.F) in
# a tracked _test.go file) for FUZZTIME each, one `go test -fuzz` per target
# since Go fuzzes one target per invocation, with one worker (the machine is
# shared), and prints the executions of each and their total.
#
# A target fails the run when it finds a failing input (written to its
# package's testdata/fuzz/FuzzX/, which plain `go test` then replays). Go
# 1.26's coordinator can also report a bare "context deadline exceeded" as
# -fuzztime ends, with no failing input (https://go.dev/issue/75804, fixed in
# Go 1.27): that run is retried once, and counted if it finds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-3s}

total=0
n=0
start=$SECONDS
run() { # pkg target: runs it, sets out; fails only on a real finding
  local pkg=$1 t=$2 attempt
  for attempt in 1 2; do
    if out=$("$GO" test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -parallel 1 "$pkg" 2>&1); then
      return 0
    fi
    # A failing input is written under testdata/fuzz/<target>/: untracked.
    if [ -n "$(git status --porcelain --untracked-files=all -- "$pkg/testdata/fuzz/$t")" ] ||
      ! grep -q '^    context deadline exceeded$' <<<"$out" || grep -q 'Failing input written' <<<"$out"; then
      echo "$out"
      echo "fuzz: $pkg $t FAILED"
      return 1
    fi
    echo "fuzz: $pkg $t: the coordinator's deadline race (go.dev/issue/75804), no failing input; again" >&2
  done
  return 0
}
for f in $(git ls-files '*_test.go'); do
  for t in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' "$f"); do
    pkg=./$(dirname "$f")
    run "$pkg" "$t"
    execs=$(sed -n 's/^fuzz: elapsed: .*, execs: \([0-9]*\) .*/\1/p' <<<"$out" | tail -1)
    echo "fuzz: $pkg $t: ${execs:-0} execs in $FUZZTIME"
    total=$((total + ${execs:-0}))
    n=$((n + 1))
  done
done
echo "fuzz: $n targets, $total executions in total, $((SECONDS - start))s"
