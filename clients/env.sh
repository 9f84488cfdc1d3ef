# Shared by the client scripts (sourced): the library, a libcuda.so.1 link to it, and a Python
# environment with the packages the clients use, made from PyPI wheels on first use.
#
# The versions are pinned so that CI runs what was checked. nvidia-nvjitlink-cu12 is left out
# on purpose: with it, numba-cuda links through nvJitLink into a cubin, which warpsim cannot
# run (it runs PTX); without it numba links through the driver's cuLink*, which hands back PTX.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The library: $WARPSIM_CUDA_LIB (CI: the one its test build made), else cargo build's.
lib=$(realpath -m "${WARPSIM_CUDA_LIB:-$root/target/release/libwarpsim_cuda.so}")
libdir=$(dirname "$lib")
warpsim=$root/target/release/warpsim
work=$root/target/clients
if [ ! -f "$lib" ] || [ ! -x "$warpsim" ]; then
    echo "clients: build first: cargo build --workspace --release" >&2
    exit 1
fi
mkdir -p "$work/lib"
# What numba-cuda and cuda-python load (cuda.pathfinder: dlopen("libcuda.so.1")).
ln -sf "$lib" "$work/lib/libcuda.so.1"
venv=$work/venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --no-cache-dir --only-binary=:all: --disable-pip-version-check \
        numpy==2.4.6 numba==0.68.1 llvmlite==0.50.0 numba-cuda==0.30.4 \
        cuda-python==12.9.10 cuda-bindings==12.9.10 cuda-core==1.2.2 cuda-pathfinder==1.9.1 \
        nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86 \
        nvidia-cuda-runtime-cu12==12.9.79
fi
python=$venv/bin/python
nvrtc=$("$python" -c 'import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])')/lib/libnvrtc.so.12
