#!/usr/bin/env bash
# CUDA C in, from C: a .cu string compiled at run time by NVRTC (the pip wheel's
# libnvrtc.so.12, dlopen'ed) and launched through the driver API on warpsim.
source "$(dirname "$0")/env.sh"
gcc -O2 -Wall -Wextra -Werror -o "$work/nvrtc_saxpy" "$root/clients/c/nvrtc_saxpy.c" \
    -L"$libdir" -lwarpsim_cuda -ldl -lm
LD_LIBRARY_PATH=$libdir "$work/nvrtc_saxpy" "$nvrtc"
