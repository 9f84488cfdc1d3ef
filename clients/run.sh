#!/usr/bin/env bash
# Runs every real CUDA client against libwarpsim_cuda.so (CI's "clients" step): each script
# checks its results and exits non-zero on any failure. The first run makes the Python
# environment (target/clients/venv) from PyPI wheels.
set -uo pipefail
here=$(dirname "$0")
passed=0 failed=0
for client in c_saxpy launch_bench nvrtc run_cu numba cuda_python; do
    echo "== client: $client"
    start=$(date +%s)
    if bash "$here/$client.sh"; then
        passed=$((passed + 1))
        echo "== client: $client passed ($(( $(date +%s) - start )) s)"
    else
        failed=$((failed + 1))
        echo "== client: $client FAILED ($(( $(date +%s) - start )) s)"
    fi
done
echo "clients: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
