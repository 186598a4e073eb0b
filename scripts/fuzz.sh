#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (func FuzzX(f *testing.F) in
# a tracked _test.go file) for FUZZTIME each, with one worker (the machine
# is shared), and prints the executions of each and their total.
#
# Go fuzzes one target per invocation; to link each package's instrumented
# test binary once rather than once per target, the script builds it with
# `go test -c -fuzz` and runs it per target in the package's directory, as
# `go test -fuzz` does, with a fresh corpus cache (so that the baseline is
# the committed seeds, and each run costs the same).
#
# Minimizing each new interesting input takes most of a few seconds' budget
# (the executions are counted only once it is done: a 3 s run of a decoder
# counted about 10 executions with it, 15,000 without), so it is off unless
# FUZZMINIMIZETIME says otherwise; a failing input is then written as found.
#
# A target fails the run when it finds a failing input (written to its
# package's testdata/fuzz/FuzzX/, which plain `go test` then replays). Go
# 1.26's coordinator can also report a bare "context deadline exceeded" as
# -fuzztime ends, with no failing input (https://go.dev/issue/75804, fixed in
# Go 1.27): that run is retried once, and counted if it finds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-3s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

total=0
n=0
start=$SECONDS
# run dir bin target: fuzzes target, leaves its output in $out; fails only
# on a finding.
run() {
  local dir=$1 bin=$2 t=$3 attempt
  for attempt in 1 2; do
    if out=$(cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^$t\$" -test.fuzztime="$FUZZTIME" -test.fuzzminimizetime="$FUZZMINIMIZETIME" -test.parallel=1 \
      -test.fuzzcachedir="$tmp/cache/$dir/$t" 2>&1); then
      return 0
    fi
    if [ -n "$(git status --porcelain --untracked-files=all -- "$dir/testdata/fuzz/$t" 2>/dev/null)" ] ||
      ! grep -q '^    context deadline exceeded$' <<<"$out" || grep -q 'Failing input written' <<<"$out"; then
      echo "$out"
      echo "fuzz: ./$dir $t FAILED"
      return 1
    fi
    echo "fuzz: ./$dir $t: the coordinator's deadline race (go.dev/issue/75804), no failing input; again" >&2
  done
}
for dir in $(git ls-files '*_test.go' | xargs grep -l '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' | xargs -n1 dirname | sort -u); do
  bin=$tmp/$(tr / _ <<<"$dir").test
  "$GO" test -c -fuzz=. -o "$bin" "./$dir"
  for t in $(cat $(git ls-files "$dir/*_test.go" | grep -v "^$dir/.*/") | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p'); do
    run "$dir" "$bin" "$t"
    execs=$(sed -n 's/^fuzz: elapsed: .*, execs: \([0-9]*\) .*/\1/p' <<<"$out" | tail -1)
    echo "fuzz: ./$dir $t: ${execs:-0} execs in $FUZZTIME"
    total=$((total + ${execs:-0}))
    n=$((n + 1))
  done
done
cd "$root"
echo "fuzz: $n targets, $total executions in total, $((SECONDS - start))s"
