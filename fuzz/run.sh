#!/usr/bin/env bash
# Fuzzes one target with the project's limits: bash fuzz/run.sh TARGET SECONDS [libFuzzer options]
# TARGET: parse_lower, run_ptx or cuda_calls. New inputs go to fuzz/work/TARGET (ignored by git); the
# committed seeds in fuzz/corpus/TARGET are read, never written. Needs nightly and cargo-fuzz.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?target: parse_lower, run_ptx or cuda_calls}
seconds=${2:?seconds}
shift 2
# PTX tokens help the targets that read PTX; a call sequence has no tokens.
dict=(-dict=ptx.dict)
case $target in
    # Inputs: the whole front end takes the largest committed PTX (47 KB) and more.
    parse_lower) max_len=65536 ;;
    # Small kernels; warpsim::fuzzing::MAX_RUN_BYTES skips anything longer.
    run_ptx) max_len=24576 ;;
    # Call sequences; warpsim_cuda::fuzzing::MAX_BYTES skips anything longer.
    cuda_calls) max_len=4096; dict=() ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
mkdir -p "work/$target"
# -timeout: seconds one input may take (each takes milliseconds: a slow one is a hang);
# -rss_limit_mb: memory of the whole process (libFuzzer's default, 2 GiB, stated);
# -malloc_limit_mb: the largest single allocation. One process on one core (no -jobs: libFuzzer
# would send its output to fuzz-N.log files); add -fork=1 -ignore_crashes=1 to keep going past
# a crash.
exec cargo +nightly fuzz run -O "$target" "work/$target" "corpus/$target" -- \
    "${dict[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -max_total_time="$seconds" -print_final_stats=1 "$@"
