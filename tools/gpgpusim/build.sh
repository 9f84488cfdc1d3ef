#!/usr/bin/env bash
# Builds GPGPU-Sim 4.2 (gpgpu-sim_distribution, branch `dev`) as warpsim's reference simulator,
# without a GPU or a CUDA toolkit install, and the generic host driver `ptxsim` (run-ptx's
# command line). Everything goes under target/gpgpusim/ and is reused by the next call: a
# second call with nothing to do takes a second.
#
#   bash tools/gpgpusim/build.sh [GPGPUSIM_GIT_DIR]
#
# GPGPUSIM_GIT_DIR (or $GPGPUSIM_GIT): a git directory of gpgpu-sim/gpgpu-sim_distribution, bare
# or not (the source is not on any package registry, so it is the one input from outside); only
# needed for the first build. Produces target/gpgpusim/env.sh (source it before running) and
# target/gpgpusim/bin/ptxsim. See tools/gpgpusim/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="${GPGPUSIM_WORK:-$REPO/target/gpgpusim}"
BRANCH="${GPGPUSIM_BRANCH:-dev}"
PY="${PYTHON:-python3}"
mkdir -p "$WORK"
S="$WORK/gpgpu-sim"
C="$WORK/cuda"
started=$(date +%s)
step() { echo "gpgpusim: $1 ($(( $(date +%s) - started )) s)"; }

# 1. Tools and CUDA pieces from PyPI: bison and flex (GNU bison 3.8.2, flex 2.6.4), CUDA 11.8's
#    runtime headers (GPGPU-Sim's libcudart implements CUDA 11's API), and ptxas 12.9 (the PTX
#    under test is .version 8.x, which ptxas 11.8 rejects; 12.9 made samples/ptxas-registers.tsv).
if [ ! -x "$WORK/venv/bin/bison" ]; then
  "$PY" -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q bison-bin flex-bin nvidia-cuda-runtime-cu11==11.8.89 \
    nvidia-cuda-nvcc-cu11==11.8.89 nvidia-cuda-profiler-api-cu11==11.8.86
  step "bison, flex and CUDA 11.8 headers installed"
fi
if [ ! -x "$WORK/cu12/nvidia/cuda_nvcc/bin/ptxas" ]; then
  "$WORK/venv/bin/pip" install -q --target "$WORK/cu12" nvidia-cuda-nvcc-cu12==12.9.86
  step "ptxas 12.9 installed"
fi
# bison runs GNU m4, which its wheel does not ship.
if ! command -v m4 >/dev/null; then
  echo "gpgpusim: m4 missing: apt-get install m4" >&2
  (apt-get install -y m4 || { apt-get update && apt-get install -y m4; }) >/dev/null
fi
SP="$("$WORK/venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')/nvidia"

# 2. A stand-in CUDA_INSTALL_PATH: the wheels' headers, an nvcc that only tells its version (the
#    build asks), ptxas 12.9 behind a wrapper for GPGPU-Sim's ptxinfo parser, and a cuobjdump
#    that hands GPGPU-Sim the PTX file named by $PTXSIM_PTX.
rm -rf "$C"
mkdir -p "$C/bin" "$C/include" "$C/lib64"
for d in "$SP/cuda_runtime/include" "$SP/cuda_nvcc/include" "$SP/cuda_profiler_api/include"; do
  for f in "$d"/*; do ln -sfn "$f" "$C/include/$(basename "$f")"; done
done
ln -sfn "$SP/cuda_runtime/lib/libcudart.so.11.0" "$C/lib64/libcudart.so.11.0"
cp "$HERE/fake-bin/nvcc" "$HERE/fake-bin/cuobjdump" "$HERE/fake-bin/makedepend" \
  "$HERE/fake-bin/ptxas" "$C/bin/"
ln -sfn "$WORK/cu12/nvidia/cuda_nvcc/bin/ptxas" "$C/bin/ptxas-real"
chmod +x "$C/bin/"*

# 3. The source: the branch, with tools/gpgpusim/patches/ applied (each says what it fixes).
if [ ! -d "$S/.git" ]; then
  GITDIR="${1:-${GPGPUSIM_GIT:-}}"
  if [ -z "$GITDIR" ] || ! git -C "$GITDIR" rev-parse --git-dir >/dev/null 2>&1; then
    echo "gpgpusim: no GPGPU-Sim source yet: give a git directory of" \
      "gpgpu-sim/gpgpu-sim_distribution as the argument or in \$GPGPUSIM_GIT" \
      "(got '${GITDIR}')" >&2
    exit 2
  fi
  git clone -q -b "$BRANCH" "$GITDIR" "$S"
  for p in "$HERE"/patches/*.patch; do git -C "$S" apply "$p"; done
  step "source cloned at $(git -C "$S" rev-parse --short HEAD), patches applied"
fi

# 4. The simulator (make rebuilds only what changed).
export PATH="$C/bin:$WORK/venv/bin:$PATH"
export CUDA_INSTALL_PATH="$C"
(
  cd "$S"
  set +u
  # shellcheck disable=SC1091
  source setup_environment release >/dev/null
  set -u
  make -j"$(nproc)" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
)
LIB="$(find "$S/lib" \( -name libcudart.so -type f -o -name libcudart.so -type l \) | head -1)"
[ -n "$LIB" ] || { echo "gpgpusim: the build made no libcudart.so (see $WORK/build.log)" >&2; exit 1; }
LIBDIR="$(dirname "$LIB")"
step "simulator built ($LIBDIR)"

# 5. The generic driver, linked against a stub with libcudart.so.11.0's SONAME (GPGPU-Sim reads
#    the program's CUDA version from `ldd`) and run against GPGPU-Sim's libcudart.
mkdir -p "$WORK/bin" "$WORK/stub"
gcc -shared -fPIC -Wl,-soname,libcudart.so.11.0 -o "$WORK/stub/libcudart.so" \
  "$HERE/drivers/cudart_stub.c"
g++ -O2 -std=c++17 -I"$C/include" -o "$WORK/bin/ptxsim" "$HERE/drivers/ptxsim.cc" \
  -L"$WORK/stub" -lcudart -Wl,-rpath,"$LIBDIR"

cat >"$WORK/env.sh" <<ENV
export CUDA_INSTALL_PATH="$C"
export PTXAS_CUDA_INSTALL_PATH="$C"
export PATH="$C/bin:$WORK/bin:\$PATH"
export LD_LIBRARY_PATH="$LIBDIR:\${LD_LIBRARY_PATH:-}"
export GPGPUSIM_ROOT="$S"
export GPGPUSIM_CONFIGS="$S/configs/tested-cfgs"
# as setup_environment does for CUDA >= 6: skips the cuobjdump -ptx -elf -sass pruning
export CUOBJDUMP_SIM_FILE="jj"
ENV
step "done: source $WORK/env.sh; the driver is ptxsim"
