#!/usr/bin/env bash
# cuda-python's documented SAXPY example (cuda.bindings.driver + nvrtc), unmodified.
source "$(dirname "$0")/env.sh"
LD_LIBRARY_PATH=$work/lib "$python" "$root/clients/python/cuda_python_saxpy.py"
