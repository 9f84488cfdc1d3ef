#!/usr/bin/env bash
# `warpsim run-cu`: the SAXPY sample's CUDA C through NVRTC and run-ptx's arguments, the
# result checked with numpy.
source "$(dirname "$0")/env.sh"
"$python" -c "import numpy as np; np.save('$work/x.npy', np.arange(4096, dtype=np.float32)); np.save('$work/y.npy', np.ones(4096, dtype=np.float32))"
WARPSIM_NVRTC=$nvrtc "$warpsim" run-cu "$root/samples/saxpy/saxpy.cu" --kernel saxpy \
    --grid 16 --block 256 --arg i32:4096 --arg f32:0.5 --arg "npy:$work/x.npy" \
    --arg "npy:$work/y.npy" --out "3:$work/out.npy"
"$python" -c "
import numpy as np
out, x = np.load('$work/out.npy'), np.arange(4096, dtype=np.float32)
assert np.array_equal(out, np.float32(0.5) * x + 1), out[:8]
print('run-cu saxpy: 4096 elements checked against numpy: ok')"
