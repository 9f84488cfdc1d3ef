#!/usr/bin/env python3
"""Runs the hardware-anchor microbenchmarks (samples/microbench, tools/microbench_ptx.py) on
warpsim's presets and tabulates them beside the published hardware figures (docs/validation.md).

    python3 tools/microbench.py [--presets gtx480,v100] [--only lat_ffma,chase_l1]
        [--set KEY=VALUE]... [--gpgpusim] [--doc] [--warpsim target/release/warpsim]

Each benchmark runs with `warpsim run-ptx --timing PRESET` (its output buffer read back from
.npy, its kernel cycles from --stats-json); the figure is computed as the studies compute it
(cycles per dependent operation, operations per cycle per SM, bytes per cycle converted to
GB/s at the preset's core clock). `--set` passes overrides to every run (the experiments of
docs/validation.md). `--gpgpusim` also runs the same PTX and arguments on GPGPU-Sim's matching
configuration (tools/gpgpusim: gtx480, titanx, v100, rtx2060, rtx3070; needs
target/gpgpusim) and adds its figure. Results go to target/microbench/results.json and
table.md; `--doc` also replaces the table between the markers of docs/validation.md.
Standard library only.
"""

import argparse
import importlib.util
import json
import struct
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "target" / "microbench"
PRESETS = ["gtx480", "gtx980", "titanx", "v100", "rtx2060", "rtx3070", "a100", "h100"]
DOC = REPO / "docs" / "validation.md"
BEGIN, END = "<!-- microbench table begin -->", "<!-- microbench table end -->"

# Pointer-chase arrays: buf[i] = (i + stride) mod n, 4-byte indices.
CHASES = {
    "l1": (1024, 32),      # 4 KB, one 128-byte line a step: 32 lines, in every L1
    "l2": (131072, 32),    # 512 KB, a line a step: larger than every L1, smaller than every L2
    "shared": (1024, 1),   # 4 KB copied to shared memory
}

LAT_ITERS = 32      # 512 dependent operations a pass
THR_ITERS = 8       # 256 operations a thread
THR_BLOCK = 1024
DRAM_BYTES = 32 << 20
L2_BYTES = 512 << 10
L2_REPS = 32


def latency(op):
    return {"file": "alu.ptx", "kernel": f"lat_{op}", "grid": lambda c: 1, "block": 1,
            "args": lambda c: ["zeros:u32:8", f"u32:{LAT_ITERS}"],
            "figure": lambda out, cycles, c: out[1] / (16 * LAT_ITERS), "unit": "cycles"}


def throughput(op):
    def figure(out, cycles, c):
        warps = THR_BLOCK // 32
        start = min(out[2 * w] for w in range(warps))
        end = max(out[2 * w + 1] for w in range(warps))
        return THR_BLOCK * 32 * THR_ITERS / (end - start)
    return {"file": "alu.ptx", "kernel": f"thr_{op}", "grid": lambda c: 1, "block": THR_BLOCK,
            "args": lambda c: [f"zeros:u32:{2 * THR_BLOCK // 32}", f"u32:{THR_ITERS}"],
            "figure": figure, "unit": "ops/clk/SM"}


# Tensor-core benchmarks (tensor*.ptx): FLOP of one MMA (2MNK), the file, and the presets whose
# GPU has the instruction (tensor.ptx, sm_70: every preset with tensor cores; tensor_sm75.ptx:
# Turing on; tensor_sm80.ptx: Ampere on). gtx480, gtx980 and titanx have no tensor cores (their
# presets would run the MMAs on the SP pipelines: not a measurement of anything), so they are
# skipped.
TENSOR = {
    "wmma_f16": (2 * 16 * 16 * 16, "tensor.ptx"), "wmma_f32": (2 * 16 * 16 * 16, "tensor.ptx"),
    "wmma_bf16": (2 * 16 * 16 * 16, "tensor_sm80.ptx"), "wmma_tf32": (2 * 16 * 16 * 8, "tensor_sm80.ptx"),
    "mma_k8": (2 * 16 * 8 * 8, "tensor_sm75.ptx"),
    "mma_f16": (2 * 16 * 8 * 16, "tensor_sm80.ptx"), "mma_f32": (2 * 16 * 8 * 16, "tensor_sm80.ptx"),
    "mma_bf16": (2 * 16 * 8 * 16, "tensor_sm80.ptx"), "mma_tf32": (2 * 16 * 8 * 8, "tensor_sm80.ptx"),
}
TENSOR_PRESETS = {
    "tensor.ptx": ["v100", "rtx2060", "rtx3070", "a100", "h100"],
    "tensor_sm75.ptx": ["rtx2060", "rtx3070", "a100", "h100"],
    "tensor_sm80.ptx": ["rtx3070", "a100", "h100"],
}
TENSOR_THR_BLOCK = 512     # 16 warps, 4 a sub-core, 8 accumulators each: 32 MMAs in flight a sub-core (registers fit a real SM)


def tensor_latency(name):
    flop, file = TENSOR[name]
    return {"file": file, "kernel": f"lat_{name}", "grid": lambda c: 1, "block": 32,
            "args": lambda c: ["zeros:u32:8", f"u32:{LAT_ITERS}"], "presets": TENSOR_PRESETS[file],
            "figure": lambda out, cycles, c: out[1] / (16 * LAT_ITERS), "unit": "cycles"}


def tensor_throughput(name):
    flop, file = TENSOR[name]

    def figure(out, cycles, c):
        warps = TENSOR_THR_BLOCK // 32
        start = min(out[2 * w] for w in range(warps))
        end = max(out[2 * w + 1] for w in range(warps))
        return TENSOR_THR_BLOCK // 32 * 32 * THR_ITERS * flop / (end - start)
    return {"file": file, "kernel": f"thr_{name}", "grid": lambda c: 1, "block": TENSOR_THR_BLOCK,
            "args": lambda c: [f"zeros:u32:{2 * TENSOR_THR_BLOCK // 32}", f"u32:{THR_ITERS}"],
            "presets": TENSOR_PRESETS[file], "figure": figure, "unit": "FLOP/clk/SM"}


def chase(kind, chain, steps, pass_):
    kernel = {"l1": "chase_ca", "l2": "chase_cg", "dram": "chase_cg", "shared": "chase_shared"}[kind]
    return {"file": "memory.ptx", "kernel": kernel, "grid": lambda c: 1, "block": 1,
            "args": lambda c: ["zeros:u32:8", f"chase:{chain}", f"u32:{steps}"],
            "figure": lambda out, cycles, c: out[pass_] / steps, "unit": "cycles"}


def bandwidth(total, reps):
    n16 = total // 16
    return {"file": "memory.ptx", "kernel": "bw_read", "grid": lambda c: c["sms"] * 8,
            "block": 256, "warm": reps > 1,
            "args": lambda c: ["zeros:u32:4", f"zeros:u32:{total // 4}", f"u32:{n16}",
                               f"u32:{n16 - 1}", f"u32:{reps}"],
            "figure": lambda out, cycles, c: total * reps / cycles * c["clock_mhz"] / 1000,
            "unit": "GB/s"}


BENCHES = {
    **{f"lat_{op}": latency(op) for op in ["fadd", "ffma", "iadd", "imad", "dfma", "sin", "ex2", "rsqrt"]},
    **{f"thr_{op}": throughput(op) for op in ["ffma", "iadd", "imad", "dfma", "ex2"]},
    "chase_l1": chase("l1", "l1", 256, 1),
    "chase_shared": chase("shared", "shared", 1024, 1),
    "chase_l2": chase("l2", "l2", 4096, 1),
    "chase_dram": chase("dram", "l2", 4096, 0),
    "bw_dram": bandwidth(DRAM_BYTES, 1),
    "bw_l2": bandwidth(L2_BYTES, L2_REPS),
    **{f"lat_{t}": tensor_latency(t) for t in TENSOR},
    **{f"thr_{t}": tensor_throughput(t) for t in TENSOR},
}

# ---------------------------------------------------------------------------------------------
# Published hardware figures: (value, GPU, source). docs/validation.md ("How these figures were
# obtained") quotes the table cell each one was read from; "UNVERIFIED (recalled)" marks the few
# kept from the page's first version that no source read so far confirms.
# ---------------------------------------------------------------------------------------------

JIA18 = "Jia et al. 2018 (arXiv:1804.06826)"
JIA19 = "Jia et al. 2019 (arXiv:1903.07486)"
ABDEL22 = "Abdelkhalik et al. 2022 (arXiv:2208.11174)"
LUO24 = "Luo et al. 2024 (arXiv:2402.13499)"
ACCELSIM = "Accel-Sim GPU_Microbenchmark output.file (accel-sim-framework util/tuner)"
GUIDE = "CUDA Programming Guide throughput table (via transcriptions, see above)"
SUN22 = "Sun et al. 2022 (arXiv:2206.02874)"
UNVERIFIED = "UNVERIFIED (recalled)"

# The throughput rows: the Programming Guide's results per clock per SM for the preset's compute
# capability. gtx480 2.0, gtx980 5.2, titanx 6.1, v100 7.0, rtx2060 7.5, rtx3070 8.6, a100 8.0,
# h100 9.0.
CC = {"gtx480": "2.0", "gtx980": "5.2", "titanx": "6.1", "v100": "7.0", "rtx2060": "7.5",
      "rtx3070": "8.6", "a100": "8.0", "h100": "9.0"}
GPUS = {"gtx480": "GTX 480", "gtx980": "GTX 980", "titanx": "TITAN X (Pascal)", "v100": "V100",
        "rtx2060": "RTX 2060", "rtx3070": "RTX 3070", "a100": "A100", "h100": "H100"}


def guide(values):
    """{preset: value or (value, note)}: the guide's figure for the preset's compute capability;
    a note (UNVERIFIED) replaces the citation where no transcription read confirms the cell."""
    out = {}
    for p, v in values.items():
        v, note = v if isinstance(v, tuple) else (v, None)
        out[p] = (v, GPUS[p], f"{GUIDE}, cc {CC[p]}" + (f", {note}" if note else ""))
    return out


PUBLISHED = {
    # Instruction latencies: Jia 2018 Table 4.1 (Pascal, Volta), Jia 2019 Table 4.1 (adds Turing,
    # measured on a T4), Abdelkhalik 2022 Table II (A100, PTX-level dependent chains).
    "lat_fadd": {
        "titanx": (6, "Pascal", f"{JIA18}, Table 4.1 (FADD 6)"),
        "v100": (4, "Volta", f"{JIA18}, Table 4.1 (FADD 4)"),
        "rtx2060": (4, "Turing (T4, TU104)", f"{JIA19}, Table 4.1 (FADD 4)"),
        "a100": (4, "A100", f"{ABDEL22}, sec. IV text with Table II (single-precision add, dependent: 4)"),
    },
    "lat_ffma": {
        "gtx480": (22, "Fermi (cc 2.x)", f"CUDA C Programming Guide 'about 22 clock cycles', {UNVERIFIED}"),
        "titanx": (6, "Pascal", f"{JIA18}, Table 4.1 (FFMA 6)"),
        "v100": (4, "Volta", f"{JIA18}, Table 4.1 (FFMA 4)"),
        "rtx2060": (4, "Turing (T4, TU104)", f"{JIA19}, Table 4.1 (FFMA 4)"),
        "a100": (4, "A100", f"{ABDEL22}, Table II (mad_rn.f32 dependent CPI 4)"),
    },
    "lat_iadd": {
        "titanx": (6, "Pascal", f"{JIA18}, Table 4.1 (IADD 6)"),
        "v100": (4, "Volta", f"{JIA18}, Table 4.1 (IADD3 4)"),
        "rtx2060": (4, "Turing (T4, TU104)", f"{JIA19}, Table 4.1 (IADD3 4)"),
        "a100": (4, "A100", f"{ABDEL22}, Table II (add.u32 dependent CPI 4)"),
    },
    "lat_imad": {
        "v100": (5, "Volta", f"{JIA18}, Table 4.1 (IMAD 5)"),
        "rtx2060": (5, "Turing (T4, TU104)", f"{JIA19}, Table 4.1 (IMAD 5)"),
    },
    "lat_dfma": {
        "titanx": (8, "Pascal", f"{JIA18}, Table 4.1 (DFMA 8)"),
        "v100": (8, "Volta", f"{JIA18}, Table 4.1 (DFMA 8)"),
        "rtx2060": (54, "Turing (T4, TU104)", f"{JIA19}, Table 4.1 (DFMA ~54)"),
    },
    # Pointer-chase latencies in cycles: Jia 2018/2019 Table 3.1 (PCIe cards), Luo 2024 Table IV
    # (A100 PCIe, H800 PCIe), Accel-Sim's TITAN V run (mem_lat).
    "chase_l1": {
        "gtx980": (82, "Tesla M60 (GM204)", f"{JIA18}, Table 3.1 (L1 data hit latency)"),
        "titanx": (82, "Tesla P4 (GP104)", f"{JIA18}, Table 3.1 (L1 data hit latency)"),
        "v100": (28, "Tesla V100 PCIe", f"{JIA18}, Table 3.1 (L1 data hit latency)"),
        "rtx2060": (32, "Tesla T4 (TU104)", f"{JIA19}, Table 3.1 (L1 data hit latency)"),
        "a100": (37.9, "A100 PCIe", f"{LUO24}, Table IV (L1 Cache)"),
        "h100": (40.7, "H800 PCIe (GH100)", f"{LUO24}, Table IV (L1 Cache)"),
    },
    "chase_shared": {
        "gtx980": (23, "Tesla M60 (GM204)", f"{JIA18}, Table 3.1 (shared no-conflict latency)"),
        "titanx": (23, "Tesla P4 (GP104)", f"{JIA18}, Table 3.1 (shared no-conflict latency)"),
        "v100": (19, "Tesla V100 PCIe", f"{JIA18}, Table 3.1 (shared no-conflict latency)"),
        "rtx2060": (19, "Tesla T4 (TU104)", f"{JIA19}, Table 3.1 (shared no-conflict latency)"),
        "a100": (29.0, "A100 PCIe", f"{LUO24}, Table IV (Shared)"),
        "h100": (29.0, "H800 PCIe (GH100)", f"{LUO24}, Table IV (Shared)"),
    },
    "chase_l2": {
        "gtx980": (207, "Tesla M60 (GM204)", f"{JIA18}, Table 3.1 (L2 hit latency ~207)"),
        "titanx": (216, "Tesla P4 (GP104)", f"{JIA18}, Table 3.1 (L2 hit latency ~216)"),
        "v100": (193, "Tesla V100 PCIe", f"{JIA18}, Table 3.1 (L2 hit latency ~193)"),
        "rtx2060": (188, "Tesla T4 (TU104)", f"{JIA19}, Table 3.1 (L2 hit latency ~188)"),
        "a100": (261.5, "A100 PCIe", f"{LUO24}, Table IV (L2 Cache)"),
        "h100": (263.0, "H800 PCIe (GH100)", f"{LUO24}, Table IV (L2 Cache)"),
    },
    "chase_dram": {
        "v100": (313.5, "TITAN V (GV100)", f"{ACCELSIM}, mem_lat 'Mem latency = 313.4630 cycles'"),
        "a100": (466.3, "A100 PCIe", f"{LUO24}, Table IV (Global)"),
        "h100": (478.8, "H800 PCIe (GH100)", f"{LUO24}, Table IV (Global)"),
    },
    "bw_dram": {
        "gtx480": (177.4, "GTX 480", f"vendor peak, {UNVERIFIED}"),
        "gtx980": (224.0, "GTX 980", f"vendor peak, {UNVERIFIED}"),
        "titanx": (480.0, "TITAN X (Pascal)", f"vendor peak, {UNVERIFIED}"),
        "v100": (750.0, "Tesla V100 PCIe", f"{JIA18}, Table 3.1 (global measured 750 'GiB/s', of 900)"),
        "rtx2060": (336.0, "RTX 2060", f"peak from deviceQuery 7001 MHz x 2 x 192 bit, {ACCELSIM}"),
        "rtx3070": (448.0, "RTX 3070", f"vendor peak, {UNVERIFIED}"),
        "a100": (1407.2, "A100 PCIe 40 GB (HBM2e 1215 MHz)", f"{LUO24}, Table V (Global Memory)"),
        "h100": (3352.0, "H100 SXM5", f"vendor peak, {UNVERIFIED}"),
    },
    # L2 bandwidth. Luo 2024 gives bytes per clock (FP32.v4 column), converted here at the
    # preset's clock so the ratio is the bytes-per-clock ratio; Jia 2019 gives GB/s at the V100
    # PCIe's own clock (max 1,380 MHz; the v100 preset runs at 1,447).
    "bw_l2": {
        "v100": (2155.0, "Tesla V100 PCIe", f"{JIA19}, Table 3.4 (L2 load throughput, GB/s)"),
        "a100": (2007.9 * 1.410, "A100 PCIe", f"{LUO24}, Table V (L2 FP32.v4 2007.9 byte/clk x 1410 MHz)"),
        "h100": (3942.4 * 1.980, "H800 PCIe (GH100)", f"{LUO24}, Table V (L2 FP32.v4 3942.4 byte/clk x preset 1980 MHz)"),
    },
    # Results per clock per SM (see guide()).
    "thr_ffma": guide({"gtx480": 32, "gtx980": 128, "titanx": 128, "v100": 64, "rtx2060": 64,
                       "rtx3070": 128, "a100": 64, "h100": 128}),
    "thr_iadd": guide({"gtx480": 32, "gtx980": 128, "titanx": 128, "v100": 64, "rtx2060": 64,
                       "rtx3070": 64, "a100": 64, "h100": 64}),
    "thr_imad": guide({"gtx480": 16, "v100": 64, "rtx2060": 64, "rtx3070": (64, UNVERIFIED),
                       "a100": (64, UNVERIFIED), "h100": (64, UNVERIFIED)}),
    "thr_dfma": guide({"gtx480": 16, "gtx980": 4, "titanx": 4, "v100": 32, "rtx2060": (2, UNVERIFIED),
                       "rtx3070": 2, "a100": 32, "h100": 64}),
    "thr_ex2": guide({"gtx480": 4, "gtx980": 32, "titanx": 32, "v100": 16, "rtx2060": 16,
                      "rtx3070": 16, "a100": 16, "h100": (16, UNVERIFIED)}),
}

# ---------------------------------------------------------------------------------------------
# Tensor cores. Latency: cycles per dependent MMA. Throughput: FLOP per cycle per SM (an FMA is 2
# FLOP; Sun 2022 gives FMA/clk/SM, doubled here). Abdelkhalik 2022 Table III (A100, wmma.mma);
# Sun 2022 Tables 3, 4, 5 (A100, RTX 3070 Ti = GA104, the rtx3070 preset's chip, RTX 2080 Ti =
# TU102, Turing's SM as in the rtx2060 preset's TU106; mma.sync, "completion latency" and the
# best throughput of its two convergence points); Luo 2024 Table VII (A100 PCIe, H800 PCIe, dense
# mma.sync; TFLOPS converted at the paper's own 114 SMs x 1755 MHz for the H800, Table III).
# ---------------------------------------------------------------------------------------------

def luo_h800(tflops):
    """Luo 2024's H800 TFLOPS in FLOP/clk/SM at its 114 SMs and 1755 MHz (Table III)."""
    return round(tflops * 1e12 / (114 * 1755e6), 1)


def a100_tflops(tflops):
    """An A100 TFLOPS figure in FLOP/clk/SM at 108 SMs and 1410 MHz."""
    return round(tflops * 1e12 / (108 * 1410e6), 1)


TENSOR_PUBLISHED = {
    "lat_wmma_f16": {
        "a100": (16, "A100", f"{ABDEL22}, Table III (wmma m16n16k16 .f16/.f16: 16 cycles, 2 x HMMA.16816.F16)"),
    },
    "lat_wmma_f32": {
        "a100": (16, "A100", f"{ABDEL22}, Table III (wmma m16n16k16 .f16/.f32: 16 cycles, 2 x HMMA.16816.F32)"),
    },
    "lat_wmma_bf16": {
        "a100": (16, "A100", f"{ABDEL22}, Table III (wmma m16n16k16 .bf16/.f32: 16 cycles)"),
    },
    "lat_wmma_tf32": {
        "a100": (16, "A100", f"{ABDEL22}, Table III (wmma m16n16k8 .tf32/.f32: 16 cycles, 4 x HMMA.1684)"),
    },
    "lat_mma_k8": {
        "rtx2060": (17.3, "RTX 2080 Ti (TU102)", f"{SUN22}, Table 5 (FP16/FP32 m16n8k8 completion latency)"),
        "rtx3070": (18.8, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP32 m16n8k8 completion latency)"),
        "a100": (17.5, "A100 PCIe", f"{LUO24}, Table VII (FP16/FP32 m16n8k8 dense LAT; Sun 2022 Table 3: 17.7)"),
        "h100": (16.0, "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP32 m16n8k8 dense LAT)"),
    },
    "lat_mma_f16": {
        "rtx3070": (24.0, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP16 m16n8k16 completion latency)"),
        "a100": (24.6, "A100 PCIe", f"{LUO24}, Table VII (FP16/FP16 m16n8k16 dense LAT; Sun 2022 Table 3: 24.4)"),
        "h100": (24.1, "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP16 m16n8k16 dense LAT)"),
    },
    "lat_mma_f32": {
        "rtx3070": (33.0, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP32 m16n8k16 completion latency)"),
        "a100": (26.0, "A100 PCIe", f"{LUO24}, Table VII (FP16/FP32 m16n8k16 dense LAT; Sun 2022 Table 3: 24.7)"),
        "h100": (24.1, "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP32 m16n8k16 dense LAT)"),
    },
    "lat_mma_bf16": {
        "a100": (25.0, "A100", f"{SUN22}, sec. 5 finding 1 (BF16 mma.m16n8k16 'completion latency is therefore around 25')"),
    },
    "lat_mma_tf32": {
        "rtx3070": (33.3, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (TF32/FP32 m16n8k8 completion latency)"),
        "a100": (26.3, "A100 PCIe", f"{LUO24}, Table VII (TF32/FP32 m16n8k8 dense LAT; Sun 2022 Table 3: 25)"),
        "h100": (24.5, "H800 PCIe (GH100)", f"{LUO24}, Table VII (TF32/FP32 m16n8k8 dense LAT)"),
    },
    "thr_wmma_f16": {
        "v100": (1024, "V100", f"vendor peak (8 tensor cores x 64 FMA a clock), {UNVERIFIED}"),
        "a100": (a100_tflops(311), "A100", f"{ABDEL22}, Table III (.f16/.f16 '311-312 GB/s', read as TFLOPS, at 108 SMs x 1410 MHz)"),
    },
    "thr_wmma_f32": {
        "v100": (1024, "V100", f"vendor peak (8 tensor cores x 64 FMA a clock), {UNVERIFIED}"),
        "a100": (a100_tflops(310), "A100", f"{ABDEL22}, Table III (.f16/.f32 '310-312 GB/s', read as TFLOPS, at 108 SMs x 1410 MHz)"),
    },
    "thr_wmma_bf16": {
        "a100": (a100_tflops(310), "A100", f"{ABDEL22}, Table III (.bf16/.f32 '310-312 GB/s', read as TFLOPS, at 108 SMs x 1410 MHz)"),
    },
    "thr_wmma_tf32": {
        "a100": (a100_tflops(132), "A100", f"{ABDEL22}, Table III (.tf32/.f32 '132-156 GB/s', read as TFLOPS, at 108 SMs x 1410 MHz)"),
    },
    "thr_mma_k8": {
        "rtx2060": (2 * 255.1, "RTX 2080 Ti (TU102)", f"{SUN22}, Table 5 (FP16/FP32 m16n8k8: 255.1 FMA/clk/SM)"),
        "rtx3070": (2 * 253.9, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP32 m16n8k8: 253.9 FMA/clk/SM)"),
        "a100": (2 * 974.1, "A100", f"{SUN22}, Table 3 (FP16/FP32 m16n8k8: 974.1 FMA/clk/SM)"),
        "h100": (luo_h800(363.7), "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP32 m16n8k8 dense 363.7 TFLOPS at 114 SMs x 1755 MHz)"),
    },
    "thr_mma_f16": {
        "rtx3070": (2 * 509.4, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP16 m16n8k16: 509.4 FMA/clk/SM)"),
        "a100": (2 * 996.6, "A100", f"{SUN22}, Table 3 (FP16/FP16 m16n8k16: 996.6 FMA/clk/SM)"),
        "h100": (luo_h800(494.4), "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP16 m16n8k16 dense 494.4 TFLOPS at 114 SMs x 1755 MHz)"),
    },
    "thr_mma_f32": {
        "rtx3070": (2 * 252.7, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (FP16/FP32 m16n8k16: 252.7 FMA/clk/SM)"),
        "a100": (2 * 1004.2, "A100", f"{SUN22}, Table 3 (FP16/FP32 m16n8k16: 1004.2 FMA/clk/SM)"),
        "h100": (luo_h800(490.7), "H800 PCIe (GH100)", f"{LUO24}, Table VII (FP16/FP32 m16n8k16 dense 490.7 TFLOPS at 114 SMs x 1755 MHz)"),
    },
    "thr_mma_bf16": {
        "a100": (2 * 1000, "A100", f"{SUN22}, sec. 5 finding 1 (BF16 m16n8k16 'peak throughput is 1000 (FMA/clk/SM)')"),
    },
    "thr_mma_tf32": {
        "rtx3070": (2 * 126.8, "RTX 3070 Ti (GA104)", f"{SUN22}, Table 4 (TF32/FP32 m16n8k8: 126.8 FMA/clk/SM)"),
        "a100": (2 * 492.4, "A100", f"{SUN22}, Table 3 (TF32/FP32 m16n8k8: 492.4 FMA/clk/SM)"),
        "h100": (luo_h800(246.4), "H800 PCIe (GH100)", f"{LUO24}, Table VII (TF32/FP32 m16n8k8 dense 246.4 TFLOPS at 114 SMs x 1755 MHz)"),
    },
}
PUBLISHED.update(TENSOR_PUBLISHED)


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def preset_info(preset):
    cfg = tomllib.loads((REPO / "timing" / "configs" / f"{preset}.toml").read_text())
    return {"sms": cfg["gpu"]["sms"], "clock_mhz": cfg["gpu"]["clock_mhz"]}


def chase_file(name):
    n, stride = CHASES[name]
    path = WORK / f"chase_{name}_{n}_{stride}.bin"
    if not path.exists():
        path.write_bytes(struct.pack(f"<{n}I", *[(i + stride) % n for i in range(n)]))
    return f"bin:u32:{path}"


def resolve(args):
    return [chase_file(a.split(":", 1)[1]) if a.startswith("chase:") else a for a in args]


def read_npy_u32(path):
    data = Path(path).read_bytes()
    header = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header:]
    return list(struct.unpack(f"<{len(body) // 4}I", body))


def steps(bench, info):
    """A benchmark's launches in run-ptx's terms, [(kernel, grid, block, args)], the last one
    measured; arguments are numbered across the launches (`@K`), as run-ptx numbers them across
    --then. tools/hardware.py runs the same launches through the driver API."""
    args = resolve(bench["args"](info))
    grid, block = str(bench["grid"](info)), str(bench["block"])
    if not bench.get("warm"):
        return [(bench["kernel"], grid, block, args)]
    # A first launch (one pass) brings the buffer into the L2; the second, on the same
    # buffers (@0, @1), is measured.
    warm = list(args)
    warm[-1] = "u32:1"
    return [(bench["kernel"], grid, block, warm),
            (bench["kernel"], grid, block, ["@0", "@1"] + args[2:])]


def launch_args(bench, info):
    cmd = []
    for i, (kernel, grid, block, args) in enumerate(steps(bench, info)):
        cmd += (["--then"] if i else []) + ["--kernel", kernel, "--grid", grid, "--block", block]
        for a in args:
            cmd += ["--arg", a]
    return cmd


def run_warpsim(warpsim, name, bench, preset, info, sets):
    out = WORK / f"{name}.{preset}.npy"
    stats = WORK / f"{name}.{preset}.json"
    cmd = [str(warpsim), "run-ptx", str(REPO / "samples" / "microbench" / bench["file"])]
    cmd += ["--timing", preset, "--stats-json", str(stats), "--out", f"0:{out}"]
    for s in sets:
        cmd += ["--set", s]
    cmd += launch_args(bench, info)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"microbench.py: warpsim failed on {name} ({preset}):\n{done.stderr}")
    launches = json.loads(stats.read_text())[0]
    kernels = launches.get("kernels") or []
    cycles = kernels[-1]["gpu_sim_cycle"] if kernels else launches["total"]["gpu_sim_cycle"]
    return bench["figure"](read_npy_u32(out), cycles, info)


def gpgpusim_module():
    spec = importlib.util.spec_from_file_location("compare", REPO / "tools" / "gpgpusim" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_gpgpusim(compare, name, bench, preset, info):
    import re
    import shutil
    config_dir = compare.WORK / "gpgpu-sim" / "configs" / "tested-cfgs" / compare.CONFIGS[preset]
    with tempfile.TemporaryDirectory(prefix="gpgpusim-") as run_dir:
        run_dir = Path(run_dir)
        for f in config_dir.iterdir():
            shutil.copy(f, run_dir)
        config = run_dir / "gpgpusim.config"
        text = compare.REFUSED_OPTIONS.sub("", config.read_text())
        options = compare.GPGPUSIM_OPTIONS + [compare.NO_LAUNCH_LATENCY]
        config.write_text(text + "\n" + "\n".join(options) + "\n")
        out = WORK / f"{name}.{preset}.gpgpusim.npy"
        cmd = ["bash", "-c", 'source "$1"; shift; exec ptxsim "$@"', "env",
               str(compare.WORK / "env.sh"), str(REPO / "samples" / "microbench" / bench["file"])]
        cmd += launch_args(bench, info) + ["--out", f"0:{out}"]
        done = subprocess.run(cmd, cwd=run_dir, capture_output=True, text=True)
        log = done.stdout + done.stderr
        (WORK / f"{name}.{preset}.gpgpusim.log").write_text(log)
        if done.returncode != 0:
            print(f"microbench.py: GPGPU-Sim failed on {name} ({preset})", file=sys.stderr)
            return None
        cycles = [int(c) for c in re.findall(r"^gpu_sim_cycle = (\d+)", log, re.M)]
        return bench["figure"](read_npy_u32(out), cycles[-1] if cycles else 0, info)


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def table(results, presets, with_gpgpusim):
    head = "| benchmark | preset | warpsim | unit |"
    rule = "|---|---|---|---|"
    if with_gpgpusim:
        head += " GPGPU-Sim |"
        rule += "---|"
    head += " hardware | GPU, source | warpsim / hardware |"
    rule += "---|---|---|"
    lines = [head, rule]
    for name in BENCHES:
        for preset in presets:
            r = results.get(name, {}).get(preset)
            if r is None:
                continue
            pub = PUBLISHED.get(name, {}).get(preset)
            row = f"| {name} | {preset} | {fmt(r['warpsim'])} | {BENCHES[name]['unit']} |"
            if with_gpgpusim:
                row += f" {fmt(r.get('gpgpusim'))} |"
            if pub:
                ratio = r["warpsim"] / pub[0]
                flag = "" if abs(ratio - 1) <= 0.10 else " **"
                row += f" {fmt(pub[0])} | {pub[1]}: {pub[2]} | {ratio:.2f}{flag} |"
            else:
                row += " — | no published figure found | — |"
            lines.append(row)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--only", default="")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--gpgpusim", action="store_true")
    ap.add_argument("--doc", action="store_true")
    ap.add_argument("--warpsim", default=str(REPO / "target" / "release" / "warpsim"))
    a = ap.parse_args()
    presets = a.presets.split(",")
    names = a.only.split(",") if a.only else list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        sys.exit(f"microbench.py: unknown benchmark(s): {', '.join(unknown)}")
    WORK.mkdir(parents=True, exist_ok=True)
    compare = gpgpusim_module() if a.gpgpusim else None
    results = {}
    for name in names:
        bench = BENCHES[name]
        for preset in presets:
            if preset not in bench.get("presets", PRESETS):
                continue
            info = preset_info(preset)
            r = {"warpsim": run_warpsim(a.warpsim, name, bench, preset, info, a.sets)}
            if compare and preset in compare.CONFIGS:
                r["gpgpusim"] = run_gpgpusim(compare, name, bench, preset, info)
            results.setdefault(name, {})[preset] = r
            print(f"{name:14} {preset:8} {fmt(r['warpsim']):>8} {fmt(r.get('gpgpusim')):>8}", flush=True)
    (WORK / "results.json").write_text(json.dumps({"sets": a.sets, "results": results}, indent=1))
    text = table(results, presets, compare is not None)
    (WORK / "table.md").write_text(text)
    if a.doc:
        doc = DOC.read_text()
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:start] + "\n" + text + doc[end:])
    print(text)


if __name__ == "__main__":
    main()
