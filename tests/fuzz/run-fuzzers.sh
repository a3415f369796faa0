#!/usr/bin/env bash
# Builds the reader's libFuzzer targets (tests/fuzz) in their own build folder and runs each
# for a bounded time on a corpus kept in that folder, seeded by gaplens-fuzz-seeds. Fails
# (exit 1) on any crash, sanitizer report, timeout (hang), out-of-memory, leak or
# difference between the direct scan and SQLite; every failing input is kept under
# BUILD/fuzz-findings/<target>/. docs/FUZZING.md says how to run longer and reproduce.
#
# usage: tests/fuzz/run-fuzzers.sh [--build DIR] [--seconds N] [--keep-going] [--real DIR | --no-real] [TARGET...]
#   --build DIR    build folder (default: build-fuzz beside this checkout's sources)
#   --seconds N    fuzzing time per target (default 90)
#   --keep-going   libFuzzer's fork mode: keep fuzzing after a finding (for long runs),
#                  still failing at the end if anything was found
#   --real DIR     also seed from cuts of the real exports under DIR (default: the
#                  GAPLENS_REAL_DATA_DIR environment, else ../shared/nsys-real if present)
#   TARGET         fuzz_reader and/or fuzz_scan_differential (default: both, in that order)
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/../.." && pwd)"
build_dir="$source_dir/build-fuzz"
seconds=90
keep_going=0
real_dir="${GAPLENS_REAL_DATA_DIR:-$source_dir/../shared/nsys-real}"
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build_dir="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    --real) real_dir="$2"; shift 2 ;;
    --no-real) real_dir=""; shift ;;
    fuzz_reader | fuzz_scan_differential) targets+=("$1"); shift ;;
    *) echo "run-fuzzers: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_reader fuzz_scan_differential)

# Configure once (clang, no Qt), then build only what fuzzing needs. Absolute paths: the
# fuzzers run inside the build folder.
mkdir -p "$build_dir"
build_dir="$(cd "$build_dir" && pwd)"
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DGAPLENS_FUZZ=ON -DGAPLENS_BUILD_GUI=OFF -DBUILD_TESTING=OFF > "$build_dir.configure.log" 2>&1 \
    || { cat "$build_dir.configure.log"; exit 1; }
  rm -f "$build_dir.configure.log"
fi
cmake --build "$build_dir" -j2 --target gaplens-fuzz

fuzz_dir="$build_dir/tests/fuzz"
seeds="$build_dir/fuzz-seeds"
rm -rf "$seeds"
seed_args=("$seeds")
if [ -n "$real_dir" ] && [ -d "$real_dir" ]; then seed_args+=(--real "$real_dir"); fi
"$fuzz_dir/gaplens-fuzz-seeds" "${seed_args[@]}"

# Inputs libFuzzer keeps as failures; its slow-unit-* files (over 10 s on a busy machine,
# but under -timeout) are only reported.
count_findings() {
  find "$1" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l
}

failed=0
for target in "${targets[@]}"; do
  corpus="$build_dir/fuzz-corpus/$target"
  findings="$build_dir/fuzz-findings/$target"
  log="$build_dir/fuzz-logs/$target.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  # -timeout: one input taking longer is a hang; -rss_limit_mb: well above what any
  # input should need (the loads refuse more than 256 MiB of model, fuzz_load.h).
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536
        -dict="$source_dir/tests/fuzz/sqlite_export.dict" -artifact_prefix="$findings/" -print_final_stats=1)
  if [ "$keep_going" = 1 ]; then
    args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  before="$(count_findings "$findings")"
  echo "== $target: fuzzing for ${seconds}s, log in $log"
  status=0
  # The outer timeout catches a hang of libFuzzer itself (its -timeout needs a live process).
  ( cd "$build_dir" && timeout --kill-after=30 "$((seconds + 300))" "$fuzz_dir/$target" "${args[@]}" \
      "$corpus" "$seeds" ) > "$log" 2>&1 || status=$?
  after="$(count_findings "$findings")"
  executions="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)"
  [ -n "$executions" ] || executions="$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)"
  rate="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)"
  # Fork mode prints no final stats: its last status line has the executions and the time.
  elapsed="$(grep -E '^#[0-9]+: .* time: [0-9]+s' "$log" | tail -1 | sed -E 's/.* time: ([0-9]+)s.*/\1/' || true)"
  if [ -z "$rate" ] && [ -n "$executions" ] && [ -n "$elapsed" ] && [ "$elapsed" -gt 0 ]; then
    rate="$((executions / elapsed))"
  fi
  echo "   executions ${executions:-?}, exec/s ${rate:-?}, corpus $(find "$corpus" -type f | wc -l) files," \
       "new findings $((after - before)) in $findings, slow units $(find "$findings" -name 'slow-unit-*' | wc -l)"
  problem=""
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    problem="libFuzzer itself did not finish (exit $status)"
  elif [ "$status" -ne 0 ]; then
    problem="libFuzzer exit status $status"
  elif [ "$after" -gt "$before" ]; then
    problem="new inputs in $findings"
  elif grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|gaplens fuzz:' "$log"; then
    problem="a sanitizer or target report in the log"
  fi
  if [ -n "$problem" ]; then
    failed=1
    echo "   FAILED: $problem; first reports:"
    grep -E -A12 'gaplens fuzz:|runtime error:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)' "$log" \
      | grep -v -E '^ +#[0-9]+ 0x' | head -40 | sed 's/^/     /' || true
  fi
done
exit "$failed"
