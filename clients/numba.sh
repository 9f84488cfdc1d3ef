#!/usr/bin/env bash
# numba-cuda @cuda.jit kernels, unmodified, with warpsim as numba's CUDA driver.
source "$(dirname "$0")/env.sh"
NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0 LD_LIBRARY_PATH=$work/lib "$python" -W ignore::UserWarning -W ignore::RuntimeWarning \
    "$root/clients/python/numba_kernels.py"
