#!/usr/bin/env python3
"""Regenerate the committed PTX under samples/ from the CUDA sources beside it.

Every ``samples/**/NAME.cu`` is compiled with NVRTC (loaded through ctypes,
no nvcc or GPU needed) and the PTX is written to ``samples/**/NAME.ptx``.
The generated PTX is committed, so building or testing warpsim never needs
this tool; it is only for changing the corpus.

Setup (NVRTC and ptxas ship as pip wheels)::

    pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-runtime-cu12 \
        nvidia-cuda-cccl-cu12

(the last two for sources that include CUDA headers NVRTC does not build in, such as
cuda_fp16.h, cuda_pipeline_primitives.h or cooperative_groups.h; their directories are passed
as include paths). The NVRTC shared library is looked up in, in order: ``$WARPSIM_NVRTC`` (a
path to libnvrtc.so*), ``site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12``
of any importable site directory, then the system loader (``libnvrtc.so``).

A source may ask for NVRTC 11 (``pip install nvidia-cuda-nvrtc-cu11``; ``$WARPSIM_NVRTC11``
or ``libnvrtc.so.11.2`` found the same way), for what CUDA 12 removed, such as texture
references::

    // nvrtc-version: 11

Compile options: ``--gpu-architecture=compute_70`` by default.  A source file
may add options in a comment within its first lines::

    // nvrtc-flags: -use_fast_math
    // nvrtc-flags: --gpu-architecture=compute_80

An explicit ``--gpu-architecture``/``-arch`` replaces the default one.
Kernels should be declared ``extern "C" __global__`` so their names are
not mangled.

Usage::

    python3 tools/regen_ptx.py [FILE.cu ...]   # no files: every .cu under samples/
    python3 tools/regen_ptx.py --check         # exit 1 if a committed .ptx is stale
    python3 tools/regen_ptx.py --coverage      # report PTX instruction families
                                               # not found in any committed .ptx
    python3 tools/regen_ptx.py --arch-sweep target/release/warpsim
                                               # compile samples/corpus for every
                                               # architecture of ARCH_SWEEP and list
                                               # what `warpsim check` finds unsupported

The exact output depends on the NVRTC version; the committed corpus was
produced by the version recorded in samples/corpus/README.md.
"""

import argparse
import ctypes
import glob
import os
import re
import shlex
import site
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
DEFAULT_ARCH = "--gpu-architecture=compute_70"
FLAGS_RE = re.compile(r"^\s*//\s*nvrtc-flags:(.*)$")
VERSION_RE = re.compile(r"^\s*//\s*nvrtc-version:\s*(\d+)\s*$")
DEFAULT_MAJOR = 12
# The library file of each NVRTC major version the sources may ask for.
LIBRARY = {12: "libnvrtc.so.12", 11: "libnvrtc.so.11.2"}
FLAGS_SCAN_LINES = 10
# NVRTC 12.x warns about every compute_70 compile; not worth repeating.
QUIET_LOG_RE = re.compile(r"^nvrtc: warning: Architectures prior to .* are deprecated.*$\n?", re.M)


# ---------------------------------------------------------------------------
# NVRTC through ctypes
# ---------------------------------------------------------------------------

def _site_dirs():
    dirs = []
    try:
        dirs.extend(site.getsitepackages())
    except AttributeError:  # virtualenv without getsitepackages
        pass
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    dirs.extend(p for p in sys.path if p)
    return dirs


def _candidate_libs(major):
    env = os.environ.get("WARPSIM_NVRTC" if major == DEFAULT_MAJOR else f"WARPSIM_NVRTC{major}")
    if env:
        yield env
    seen = set()
    for d in _site_dirs():
        lib = os.path.join(d, "nvidia", "cuda_nvrtc", "lib", LIBRARY[major])
        if os.path.exists(lib) and lib not in seen:
            seen.add(lib)
            yield lib
    yield LIBRARY[major]
    if major == DEFAULT_MAJOR:
        yield "libnvrtc.so"


class Nvrtc:
    def __init__(self, major=DEFAULT_MAJOR):
        errors = []
        self.lib = None
        for cand in _candidate_libs(major):
            try:
                self.lib = ctypes.CDLL(cand)
                self.path = cand
                break
            except OSError as e:
                errors.append(f"  {cand}: {e}")
        if self.lib is None:
            wheel = f"nvidia-cuda-nvrtc-cu{major}"
            env = "WARPSIM_NVRTC" if major == DEFAULT_MAJOR else f"WARPSIM_NVRTC{major}"
            sys.exit(
                f"regen_ptx: cannot load NVRTC {major}; install it with\n"
                f"    pip install {wheel}\n"
                f"or point {env} at {LIBRARY[major]}.  Tried:\n" + "\n".join(errors)
            )
        L = self.lib
        prog_p = ctypes.POINTER(ctypes.c_void_p)
        L.nvrtcGetErrorString.restype = ctypes.c_char_p
        L.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        L.nvrtcVersion.argtypes = [ctypes.POINTER(ctypes.c_int)] * 2
        L.nvrtcCreateProgram.argtypes = [
            prog_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
        ]
        L.nvrtcDestroyProgram.argtypes = [prog_p]
        L.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        for name in ("nvrtcGetPTXSize", "nvrtcGetProgramLogSize"):
            getattr(L, name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        for name in ("nvrtcGetPTX", "nvrtcGetProgramLog"):
            getattr(L, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        for name in ("nvrtcVersion", "nvrtcCreateProgram", "nvrtcDestroyProgram",
                     "nvrtcCompileProgram", "nvrtcGetPTXSize", "nvrtcGetPTX",
                     "nvrtcGetProgramLogSize", "nvrtcGetProgramLog"):
            getattr(L, name).restype = ctypes.c_int

    def _check(self, what, rc):
        if rc != 0:
            msg = self.lib.nvrtcGetErrorString(rc).decode()
            raise RuntimeError(f"{what} failed: {msg} ({rc})")

    def version(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check("nvrtcVersion", self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
        return major.value, minor.value

    def compile(self, source: str, name: str, options):
        """Return (ptx, log); raise CompileError(log) on failure."""
        L = self.lib
        prog = ctypes.c_void_p()
        self._check("nvrtcCreateProgram", L.nvrtcCreateProgram(
            ctypes.byref(prog), source.encode(), name.encode(), 0, None, None))
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = L.nvrtcCompileProgram(prog, len(options), opts)
            size = ctypes.c_size_t()
            self._check("nvrtcGetProgramLogSize", L.nvrtcGetProgramLogSize(prog, ctypes.byref(size)))
            buf = ctypes.create_string_buffer(size.value)
            self._check("nvrtcGetProgramLog", L.nvrtcGetProgramLog(prog, buf))
            log = buf.value.decode(errors="replace")
            if rc != 0:
                msg = L.nvrtcGetErrorString(rc).decode()
                raise CompileError(f"{msg}\n{log}")
            self._check("nvrtcGetPTXSize", L.nvrtcGetPTXSize(prog, ctypes.byref(size)))
            buf = ctypes.create_string_buffer(size.value)
            self._check("nvrtcGetPTX", L.nvrtcGetPTX(prog, buf))
            return buf.value.decode(), log
        finally:
            L.nvrtcDestroyProgram(ctypes.byref(prog))


class CompileError(Exception):
    pass


# ---------------------------------------------------------------------------
# Sources and options
# ---------------------------------------------------------------------------

def source_flags(text: str):
    """Extra NVRTC flags from `// nvrtc-flags:` comments in the first lines."""
    flags = []
    for line in text.splitlines()[:FLAGS_SCAN_LINES]:
        m = FLAGS_RE.match(line)
        if m:
            flags.extend(shlex.split(m.group(1)))
    return flags


def source_major(text: str):
    """The NVRTC major version a `// nvrtc-version:` comment asks for (default 12)."""
    for line in text.splitlines()[:FLAGS_SCAN_LINES]:
        m = VERSION_RE.match(line)
        if m:
            major = int(m.group(1))
            if major not in LIBRARY:
                sys.exit(f"regen_ptx: nvrtc-version {major}: known versions are {sorted(LIBRARY)}")
            return major
    return DEFAULT_MAJOR


def cuda_includes():
    """The CUDA headers NVRTC does not build in (cuda_fp16.h, cuda_bf16.h, mma.h,
    cuda_pipeline_primitives.h, cooperative_groups, ...) from the nvidia-cuda-runtime-cu12
    wheel, and those they include from the nvidia-cuda-cccl-cu12 (nv/target) and
    nvidia-cuda-nvcc-cu12 (crt/mma.h) wheels: the include directories found, the runtime's
    first."""
    found = []
    for wheel, probe in (
        ("cuda_runtime", "cuda_fp16.h"),
        ("cuda_cccl", "nv/target"),
        ("cuda_nvcc", "crt/mma.h"),
    ):
        for d in _site_dirs():
            inc = os.path.join(d, "nvidia", wheel, "include")
            if os.path.isfile(os.path.join(inc, probe)):
                found.append(inc)
                break
    return found


# Sources including any header get the wheels' include directories (NVRTC builds in only a
# few of CUDA's headers).
CUDA_INCLUDE_RE = re.compile(r"#include\s*<")


def compile_options(text: str):
    extra = source_flags(text)
    has_arch = any(f.startswith(("--gpu-architecture", "-arch")) for f in extra)
    includes = []
    if CUDA_INCLUDE_RE.search(text):
        includes = cuda_includes()
        if not includes:
            sys.exit("regen_ptx: this source includes CUDA headers; they come from wheels:\n"
                     "    pip install nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12")
    return ([] if has_arch else [DEFAULT_ARCH]) + extra + [f"--include-path={i}" for i in includes]


def all_sources():
    return sorted(SAMPLES.rglob("*.cu"))


def rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)


# A source including another by a quoted name (`#include "kmeans.cu"`) gets its own directory.
LOCAL_INCLUDE_RE = re.compile(r'#include\s*"')


def generate(nvrtc: Nvrtc, cu: Path):
    text = cu.read_text()
    opts = compile_options(text)
    if LOCAL_INCLUDE_RE.search(text):
        opts.append(f"--include-path={cu.parent}")
    try:
        ptx, log = nvrtc.compile(text, cu.name, opts)
    except CompileError as e:
        sys.stderr.write(f"\nregen_ptx: NVRTC failed on {rel(cu)} with {' '.join(opts)}:\n{e}\n")
        sys.exit(1)
    return ptx, log, opts


# ---------------------------------------------------------------------------
# Coverage: one or more regexes per PTX instruction family.  A family is
# covered when every regex in its list matches somewhere in the corpus.
# ---------------------------------------------------------------------------

def _ins(pattern):
    """Regex matching an instruction at the start of a PTX statement
    (optionally predicated)."""
    return r"(?m)^\s*(?:@!?%?\w+\s+)?" + pattern


COVERAGE = [
    # integer arithmetic
    ("add/sub int", [_ins(r"add\.s32"), _ins(r"add\.s64"), _ins(r"sub\.s32"), _ins(r"sub\.s64"),
                     _ins(r"add\.sat\.s32"), _ins(r"sub\.sat\.s32"), _ins(r"add\.u16"), _ins(r"sub\.u16")]),
    ("mul int .lo/.hi/.wide", [_ins(r"mul\.lo\.s32"), _ins(r"mul\.hi\.(?:s|u)32"), _ins(r"mul\.wide\.(?:s|u)32"),
                               _ins(r"mul\.lo\.s64"), _ins(r"mul\.hi\.(?:s|u)64"), _ins(r"mul\.wide\.(?:s|u)16")]),
    ("mad int .lo/.hi/.wide", [_ins(r"mad\.lo\.s32"), _ins(r"mad\.hi\.(?:s|u)32"), _ins(r"mad\.wide\.(?:s|u)32"),
                               _ins(r"mad\.lo\.s64"), _ins(r"mad\.hi\.sat\.s32")]),
    ("mul24/mad24", [_ins(r"mul24\.lo\.(?:s|u)32"), _ins(r"mul24\.hi\.(?:s|u)32"),
                     _ins(r"mad24\.lo\.(?:s|u)32"), _ins(r"mad24\.hi\.(?:s|u)32")]),
    ("div/rem int", [_ins(r"div\.s32"), _ins(r"div\.u32"), _ins(r"rem\.s32"), _ins(r"rem\.u32"),
                     _ins(r"div\.[su]64"), _ins(r"rem\.[su]64")]),
    ("abs/neg/min/max int", [_ins(r"abs\.s32"), _ins(r"neg\.s32"), _ins(r"min\.s32"), _ins(r"max\.s32"),
                             _ins(r"min\.u32"), _ins(r"max\.u32"), _ins(r"abs\.s64"), _ins(r"neg\.s64"),
                             _ins(r"min\.[su]64"), _ins(r"max\.[su]64")]),
    ("add.cc/addc/sub.cc/subc", [_ins(r"add\.cc\.u32"), _ins(r"addc\.cc\.u32"), _ins(r"addc\.u32"),
                                 _ins(r"sub\.cc\.u32"), _ins(r"subc\.cc\.u32"), _ins(r"subc\.u32"),
                                 _ins(r"add\.cc\.u64"), _ins(r"addc\.u64")]),
    ("mad.cc/madc", [_ins(r"mad\.lo\.cc\.u32"), _ins(r"madc\.hi\.(?:cc\.)?u32"), _ins(r"madc\.lo\.u32")]),
    ("sad", [_ins(r"sad\.u32"), _ins(r"sad\.s32")]),
    # bit manipulation
    ("popc/clz", [_ins(r"popc\.b32"), _ins(r"popc\.b64"), _ins(r"clz\.b32"), _ins(r"clz\.b64")]),
    ("bfind", [_ins(r"bfind\.u32"), _ins(r"bfind\.s32"), _ins(r"bfind\.shiftamt\.u32"), _ins(r"bfind\.u64")]),
    ("brev", [_ins(r"brev\.b32"), _ins(r"brev\.b64")]),
    ("bfe/bfi", [_ins(r"bfe\.u32"), _ins(r"bfe\.s32"), _ins(r"bfe\.u64"), _ins(r"bfi\.b32"), _ins(r"bfi\.b64")]),
    ("prmt", [_ins(r"prmt\.b32\s"), _ins(r"prmt\.b32\.(?:f4e|b4e|rc8|ecl|ecr|rc16)")]),
    ("shf", [_ins(r"shf\.l\.wrap\.b32"), _ins(r"shf\.r\.wrap\.b32"), _ins(r"shf\.l\.clamp\.b32"),
             _ins(r"shf\.r\.clamp\.b32")]),
    ("bmsk", [_ins(r"bmsk\.(?:clamp|wrap)\.b32")]),
    ("and/or/xor/not/cnot", [_ins(r"and\.b32"), _ins(r"or\.b32"), _ins(r"xor\.b32"), _ins(r"not\.b32"),
                             _ins(r"cnot\.b32"), _ins(r"and\.b64"), _ins(r"and\.pred"), _ins(r"or\.pred"),
                             _ins(r"xor\.pred"), _ins(r"not\.pred")]),
    ("shl/shr", [_ins(r"shl\.b32"), _ins(r"shl\.b64"), _ins(r"shr\.s32"), _ins(r"shr\.u32"),
                 _ins(r"shr\.s64"), _ins(r"shr\.u64")]),
    # comparison and selection
    ("setp int", [_ins(r"setp\.(?:eq|ne)\.s32"), _ins(r"setp\.lt\.s32"), _ins(r"setp\.le\.s32"),
                  _ins(r"setp\.gt\.s32"), _ins(r"setp\.ge\.s32"), _ins(r"setp\.(?:lo|lt)\.u32"),
                  _ins(r"setp\.(?:ls|le)\.u32"), _ins(r"setp\.(?:hi|gt)\.u32"), _ins(r"setp\.(?:hs|ge)\.u32"),
                  _ins(r"setp\.\w+\.[su]64")]),
    ("setp float ordered/unordered", [_ins(r"setp\.(?:eq|ne|lt|le|gt|ge)\.f32"),
                                      _ins(r"setp\.(?:equ|neu|ltu|leu|gtu|geu)\.f32"),
                                      _ins(r"setp\.num\.f32"), _ins(r"setp\.nan\.f32"),
                                      _ins(r"setp\.\w+\.f64"), _ins(r"setp\.\w+\.ftz\.f32")]),
    ("setp bool-op + p|q", [_ins(r"setp\.\w+\.and\.\w+"), _ins(r"setp\.\w+\.or\.\w+"),
                            _ins(r"setp\.\w+\.xor\.\w+"), r"setp[.\w]*\s+%?\w+\|%?\w+,"]),
    ("set", [_ins(r"set\.\w+\.u32\.\w+"), _ins(r"set\.\w+\.f32\.\w+"), _ins(r"set\.\w+\.s32\.\w+")]),
    ("selp", [_ins(r"selp\.b32"), _ins(r"selp\.(?:b64|f64|u64|s64)"), _ins(r"selp\.(?:f32|s32|u32)")]),
    ("slct", [_ins(r"slct\.\w+\.s32"), _ins(r"slct\.\w+\.f32")]),
    # floating point
    ("f32 add/sub/mul rounding", [_ins(r"add\.f32"), _ins(r"add\.rn\.f32"), _ins(r"add\.rz\.f32"),
                                  _ins(r"add\.rm\.f32"), _ins(r"add\.rp\.f32"), _ins(r"sub\.f32"),
                                  _ins(r"sub\.r[nzmp]\.f32"), _ins(r"mul\.f32"), _ins(r"mul\.r[nzmp]\.f32"),
                                  _ins(r"add\.(?:r[nzmp]\.)?ftz\.f32"), _ins(r"add\.(?:r[nzmp]\.)?(?:ftz\.)?sat\.f32")]),
    ("f32 fma/mad", [_ins(r"fma\.rn\.f32"), _ins(r"fma\.rz\.f32"), _ins(r"fma\.rm\.f32"), _ins(r"fma\.rp\.f32"),
                     _ins(r"fma\.rn\.(?:ftz\.)?sat\.f32"), _ins(r"fma\.rn\.ftz\.f32"), _ins(r"mad\.(?:r[nzmp]\.)?(?:ftz\.)?f32")]),
    ("f32 div", [_ins(r"div\.rn\.f32"), _ins(r"div\.r[zmp]\.f32"), _ins(r"div\.approx\.f32"),
                 _ins(r"div\.full\.f32"), _ins(r"div\.\w+\.ftz\.f32")]),
    ("f32 rcp/sqrt/rsqrt", [_ins(r"rcp\.rn\.f32"), _ins(r"rcp\.approx\.(?:ftz\.)?f32"), _ins(r"sqrt\.rn\.f32"),
                            _ins(r"sqrt\.approx\.(?:ftz\.)?f32"), _ins(r"rsqrt\.approx\.(?:ftz\.)?f32"),
                            _ins(r"sqrt\.r[zmp]\.f32"), _ins(r"rcp\.r[zmp]\.f32")]),
    ("f32 sin/cos/ex2/lg2/tanh", [_ins(r"sin\.approx\.(?:ftz\.)?f32"), _ins(r"cos\.approx\.(?:ftz\.)?f32"),
                                  _ins(r"ex2\.approx\.(?:ftz\.)?f32"), _ins(r"lg2\.approx\.(?:ftz\.)?f32"),
                                  _ins(r"tanh\.approx\.f32")]),
    ("f32 abs/neg/min/max/copysign", [_ins(r"abs\.(?:ftz\.)?f32"), _ins(r"neg\.(?:ftz\.)?f32"),
                                      _ins(r"min\.(?:ftz\.)?(?:NaN\.)?f32"), _ins(r"max\.(?:ftz\.)?(?:NaN\.)?f32"),
                                      _ins(r"copysign\.f32"), _ins(r"abs\.ftz\.f32")]),
    ("f64 arith", [_ins(r"add\.f64"), _ins(r"add\.r[nzmp]\.f64"), _ins(r"sub\.(?:r[nzmp]\.)?f64"),
                   _ins(r"mul\.(?:r[nzmp]\.)?f64"), _ins(r"fma\.rn\.f64"), _ins(r"fma\.r[zmp]\.f64"),
                   _ins(r"mad\.r[nzmp]\.f64"), _ins(r"div\.rn\.f64"), _ins(r"div\.r[zmp]\.f64")]),
    ("f64 rcp/sqrt/rsqrt", [_ins(r"rcp\.rn\.f64"), _ins(r"rcp\.approx\.ftz\.f64"), _ins(r"sqrt\.rn\.f64"),
                            _ins(r"sqrt\.r[zmp]\.f64"), _ins(r"rsqrt\.approx\.f64")]),
    ("f64 abs/neg/min/max/copysign", [_ins(r"abs\.f64"), _ins(r"neg\.f64"), _ins(r"min\.f64"),
                                      _ins(r"max\.f64"), _ins(r"copysign\.f64")]),
    # conversion and movement
    ("cvt int<->int", [_ins(r"cvt\.u32\.u64"), _ins(r"cvt\.s64\.s32"), _ins(r"cvt\.u64\.u32"),
                       _ins(r"cvt\.s32\.s8"), _ins(r"cvt\.u16\.u32"), _ins(r"cvt\.sat\.\w+\.\w+")]),
    ("cvt float->int", [_ins(r"cvt\.rni\.s32\.f32"), _ins(r"cvt\.rzi\.s32\.f32"), _ins(r"cvt\.rmi\.s32\.f32"),
                        _ins(r"cvt\.rpi\.s32\.f32"), _ins(r"cvt\.rzi\.u32\.f32"), _ins(r"cvt\.rzi\.[su]64\.f64"),
                        _ins(r"cvt\.rzi\.(?:ftz\.)?sat\.\w+\.f32|cvt\.rzi\.ftz\.\w+\.f32")]),
    ("cvt int->float", [_ins(r"cvt\.rn\.f32\.s32"), _ins(r"cvt\.rz\.f32\.s32"), _ins(r"cvt\.rm\.f32\.[su]32"),
                        _ins(r"cvt\.rp\.f32\.[su]32"), _ins(r"cvt\.rn\.f64\.[su]64"), _ins(r"cvt\.rn\.f32\.u64")]),
    ("cvt float<->float", [_ins(r"cvt\.f64\.f32"), _ins(r"cvt\.rn\.f32\.f64"), _ins(r"cvt\.r[zmp]\.f32\.f64"),
                           _ins(r"cvt\.rni\.f32\.f32"), _ins(r"cvt\.rzi\.f64\.f64"), _ins(r"cvt\.rn\.f16\.f32"),
                           _ins(r"cvt\.f32\.f16"), _ins(r"cvt\.\w*\.?sat\.f32\.f32|cvt\.sat\.f32\.f32"),
                           _ins(r"cvt\.ftz\.\w+\.f32|cvt\.\w+\.ftz\.\w+\.f32")]),
    ("cvt.rna", [_ins(r"cvt\.rna\.")]),
    ("cvta / cvta.to", [_ins(r"cvta\.to\.global\.u64"), _ins(r"cvta\.to\.shared\.u64"), _ins(r"cvta\.global\.u64"),
                        _ins(r"cvta\.shared\.u64"), _ins(r"cvta\.local\.u64"), _ins(r"cvta\.const\.u64"),
                        _ins(r"cvta\.to\.local\.u64")]),
    ("mov", [_ins(r"mov\.u32\s+%r\d+,\s*%tid"), _ins(r"mov\.u64\s+%rd\d+,\s*[A-Za-z_$]"),
             _ins(r"mov\.b64\s+%rd\d+,\s*\{"), _ins(r"mov\.b64\s+\{"), _ins(r"mov\.(?:f32|b32)")]),
    # memory
    ("ld/st global", [_ins(r"ld\.global\.(?:[uf]32|b32|s32)"), _ins(r"st\.global\.(?:[uf]32|b32|s32)"),
                      _ins(r"ld\.global\.v2"), _ins(r"ld\.global\.v4"), _ins(r"st\.global\.v2"),
                      _ins(r"st\.global\.v4"), _ins(r"ld\.global\.[usb]8"), _ins(r"st\.global\.[usb]16")]),
    ("ld/st shared", [_ins(r"ld\.shared\."), _ins(r"st\.shared\."), _ins(r"ld\.shared\.v[24]"),
                      _ins(r"st\.shared\.v[24]")]),
    ("ld/st local", [_ins(r"ld\.local\."), _ins(r"st\.local\.")]),
    ("ld const/param", [_ins(r"ld\.const\."), _ins(r"ld\.param\."), _ins(r"st\.param\.")]),
    ("ld/st generic", [_ins(r"ld\.(?:volatile\.)?(?:u|s|b|f)\d+"), _ins(r"st\.(?:volatile\.)?(?:u|s|b|f)\d+")]),
    ("ld.global.nc / ldu", [_ins(r"ld\.global\.nc\."), _ins(r"ldu\.global\.")]),
    ("ld/st volatile", [_ins(r"ld\.volatile\."), _ins(r"st\.volatile\.")]),
    ("ld/st relaxed/acquire/release", [_ins(r"ld\.relaxed\.(?:gpu|cta|sys)"), _ins(r"ld\.acquire\.(?:gpu|cta|sys)"),
                                       _ins(r"st\.relaxed\.(?:gpu|cta|sys)"), _ins(r"st\.release\.(?:gpu|cta|sys)"),
                                       _ins(r"(?:ld|st)\.\w+\.cta"), _ins(r"(?:ld|st)\.\w+\.sys")]),
    ("cache operators", [_ins(r"ld\.global\.ca"), _ins(r"ld\.global\.cg"), _ins(r"ld\.global\.cs"),
                         _ins(r"ld\.global\.lu"), _ins(r"ld\.global\.cv"), _ins(r"st\.global\.wb"),
                         _ins(r"st\.global\.cg"), _ins(r"st\.global\.cs"), _ins(r"st\.global\.wt")]),
    # atomics
    ("atom global", [_ins(r"atom\.global\.add\.u32"), _ins(r"atom\.global\.add\.f32"), _ins(r"atom\.global\.add\.f64"),
                     _ins(r"atom\.global\.add\.u64"), _ins(r"atom\.global\.inc\.u32"), _ins(r"atom\.global\.dec\.u32"),
                     _ins(r"atom\.global\.min\.s32"), _ins(r"atom\.global\.max\.s32"), _ins(r"atom\.global\.min\.u32"),
                     _ins(r"atom\.global\.max\.u64"), _ins(r"atom\.global\.min\.s64"),
                     _ins(r"atom\.global\.and\.b32"), _ins(r"atom\.global\.or\.b32"), _ins(r"atom\.global\.xor\.b32"),
                     _ins(r"atom\.global\.and\.b64"), _ins(r"atom\.global\.exch\.b32"), _ins(r"atom\.global\.exch\.b64"),
                     _ins(r"atom\.global\.cas\.b32"), _ins(r"atom\.global\.cas\.b64")]),
    ("atom shared", [_ins(r"atom\.shared\.add\."), _ins(r"atom\.shared\.cas\."), _ins(r"atom\.shared\.(?:min|max)\."),
                     _ins(r"atom\.shared\.(?:and|or|xor|exch|inc|dec)\.")]),
    ("atom generic / scoped", [_ins(r"atom\.(?:add|cas|exch|min|max|inc|dec|and|or|xor)\."),
                               _ins(r"atom\.(?:\w+\.)*(?:cta|sys|gpu)\.")]),
    ("red", [_ins(r"red\.global\.add\."), _ins(r"red\.shared\.add\."), _ins(r"red\.(?:global\.)?(?:min|max)\."),
             _ins(r"red\.(?:global\.)?(?:and|or|xor)\."), _ins(r"red\.(?:global\.)?(?:inc|dec)\.")]),
    # synchronisation
    ("bar.sync / barrier.sync", [_ins(r"bar\.sync\s+0;"), _ins(r"barrier\.sync(?:\.aligned)?\s+\d+,\s*\S+;"),
                                 _ins(r"bar(?:rier)?\.sync\s+%r")]),
    ("bar.arrive", [_ins(r"bar(?:rier)?\.arrive")]),
    ("bar.red", [_ins(r"bar(?:rier)?\.red\.popc\.u32"), _ins(r"bar(?:rier)?\.red\.and\.pred"),
                 _ins(r"bar(?:rier)?\.red\.or\.pred")]),
    ("bar.warp.sync", [_ins(r"bar\.warp\.sync")]),
    ("membar/fence", [_ins(r"membar\.cta"), _ins(r"membar\.gl"), _ins(r"membar\.sys"),
                      _ins(r"fence\.(?:sc|acq_rel)\.(?:cta|gpu|sys)")]),
    # warp level
    ("vote.sync", [_ins(r"vote\.sync\.all\.pred"), _ins(r"vote\.sync\.any\.pred"), _ins(r"vote\.sync\.uni\.pred"),
                   _ins(r"vote\.sync\.ballot\.b32")]),
    ("shfl.sync", [_ins(r"shfl\.sync\.idx\.b32"), _ins(r"shfl\.sync\.up\.b32"), _ins(r"shfl\.sync\.down\.b32"),
                   _ins(r"shfl\.sync\.bfly\.b32"), r"shfl\.sync\.\w+\.b32\s+%r\d+\|%p\d+"]),
    ("match.sync", [_ins(r"match\.any\.sync\.b32"), _ins(r"match\.all\.sync\.b32"), _ins(r"match\.any\.sync\.b64"),
                    _ins(r"match\.all\.sync\.b64")]),
    ("activemask", [_ins(r"activemask\.b32")]),
    ("redux.sync", [_ins(r"redux\.sync\.add\.(?:s|u)32"), _ins(r"redux\.sync\.min\.(?:s|u)32"),
                    _ins(r"redux\.sync\.max\.(?:s|u)32"), _ins(r"redux\.sync\.and\.b32"),
                    _ins(r"redux\.sync\.or\.b32"), _ins(r"redux\.sync\.xor\.b32")]),
    # control flow
    ("bra / bra.uni", [_ins(r"bra\s"), _ins(r"bra\.uni\s"), r"(?m)^\s*@%?\w+\s+bra", r"(?m)^\s*@!%?\w+\s+bra"]),
    ("call / ret", [_ins(r"call(?:\.uni)?\s"), _ins(r"ret;"), r"\.callprototype"]),
    ("exit / trap", [_ins(r"exit;"), _ins(r"trap;")]),
    # special registers
    ("special registers", [r"%tid\.[xyz]", r"%ntid\.[xyz]", r"%ctaid\.[xyz]", r"%nctaid\.[xyz]",
                           r"%tid\.y", r"%tid\.z", r"%ntid\.z", r"%ctaid\.z", r"%nctaid\.z",
                           r"%laneid", r"%warpid", r"%nwarpid", r"%smid", r"%nsmid", r"%gridid",
                           r"%clock\b", r"%clock64", r"%globaltimer", r"%lanemask_eq", r"%lanemask_le",
                           r"%lanemask_lt", r"%lanemask_ge", r"%lanemask_gt"]),
    # textures and surfaces
    ("tex / suld / sust", [_ins(r"tex\.1d\."), _ins(r"tex\.2d\."), _ins(r"suld\.b\.2d"), _ins(r"sust\.b\.2d")]),
]


def coverage(ptx_files):
    """Print, per family, the files matching the most of its patterns and
    any pattern that matches nowhere.  Returns the process exit status."""
    texts = {rel(p): p.read_text() for p in ptx_files}
    missing = []
    for family, patterns in COVERAGE:
        hits = {f: 0 for f in texts}
        absent = []
        for pat in patterns:
            rx = re.compile(pat)
            matched = [f for f, t in texts.items() if rx.search(t)]
            for f in matched:
                hits[f] += 1
            if not matched:
                absent.append(pat)
        ranked = sorted((f for f in hits if hits[f]), key=lambda f: (-hits[f], f))
        shown = ", ".join(f"{os.path.basename(f)}({hits[f]})" for f in ranked[:4])
        if len(ranked) > 4:
            shown += f", +{len(ranked) - 4} more"
        status = "ok  " if not absent else "MISS"
        print(f"{status} {family:30s} {len(patterns) - len(absent):2d}/{len(patterns):<2d} {shown or '-'}")
        for pat in absent:
            print(f"       no match: {pat}")
        if absent:
            missing.append(family)
    if missing:
        print(f"\n{len(missing)} famil{'y' if len(missing) == 1 else 'ies'} incompletely covered: "
              + "; ".join(missing))
        return 1
    print(f"\nall {len(COVERAGE)} families covered ({sum(len(p) for _, p in COVERAGE)} patterns)")
    return 0


# ---------------------------------------------------------------------------

# The virtual architectures of issue 20's bar: NVRTC 12.x's output for each must run.
ARCH_SWEEP = ["compute_70", "compute_75", "compute_80", "compute_86", "compute_89", "compute_90"]


def arch_sweep(nvrtc: Nvrtc, warpsim: str):
    """Compiles every samples/corpus source for each architecture of ARCH_SWEEP at or above
    its own into a temporary directory, runs `warpsim check` on the result, and tabulates
    the unsupported instructions per architecture. Returns 1 if any is found."""
    import subprocess
    import tempfile
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for cu in sorted((SAMPLES / "corpus").glob("*.cu")):
            text = cu.read_text()
            opts = compile_options(text)
            own = next((o.split("=", 1)[1] for o in opts if o.startswith("--gpu-architecture")),
                       DEFAULT_ARCH.split("=", 1)[1])
            rest = [o for o in opts if not o.startswith(("--gpu-architecture", "-arch"))]
            for arch in ARCH_SWEEP:
                if int(arch.split("_")[1]) < int(own.split("_")[1]):
                    continue
                try:
                    ptx, _ = nvrtc.compile(text, cu.name, [f"--gpu-architecture={arch}"] + rest)
                except CompileError as e:
                    sys.exit(f"regen_ptx: NVRTC failed on {rel(cu)} for {arch}:\n{e}")
                out = Path(tmp) / f"{cu.stem}.{arch}.ptx"
                out.write_text(ptx)
                check = subprocess.run([warpsim, "check", str(out)], capture_output=True, text=True)
                report = check.stdout + check.stderr
                for m in re.finditer(r"unsupported: (\S+)", report):
                    found.setdefault(arch, {}).setdefault(m.group(1), set()).add(cu.name)
                if check.returncode != 0 and "unsupported" not in report:
                    print(f"{arch} {cu.name}: {report.strip()}")
                    found.setdefault(arch, {}).setdefault("(error)", set()).add(cu.name)
    for arch in ARCH_SWEEP:
        entries = found.get(arch, {})
        print(f"{arch}: {'nothing unsupported' if not entries else ''}")
        for op, files in sorted(entries.items()):
            print(f"    {op:40s} {', '.join(sorted(files))}")
    return 1 if found else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help=".cu files (default: every .cu under samples/)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate in memory; exit 1 if any committed .ptx differs")
    ap.add_argument("--coverage", action="store_true",
                    help="report instruction families missing from the committed .ptx")
    ap.add_argument("--arch-sweep", metavar="WARPSIM",
                    help="compile samples/corpus for every architecture of ARCH_SWEEP and run "
                         "this warpsim binary's `check` on each (nothing is written)")
    args = ap.parse_args(argv)

    if args.coverage:
        return coverage(sorted(SAMPLES.rglob("*.ptx")))
    if args.arch_sweep:
        return arch_sweep(Nvrtc(), args.arch_sweep)

    sources = [p if p.suffix == ".cu" else p.with_suffix(".cu") for p in args.files] or all_sources()
    compilers = {}

    def nvrtc_for(major):
        if major not in compilers:
            compilers[major] = Nvrtc(major)
            got, minor = compilers[major].version()
            print(f"NVRTC {got}.{minor} ({compilers[major].path})")
        return compilers[major]

    stale = []
    for cu in sources:
        if not cu.exists():
            sys.exit(f"regen_ptx: no such file: {cu}")
        ptx, log, opts = generate(nvrtc_for(source_major(cu.read_text())), cu)
        out = cu.with_suffix(".ptx")
        if args.check:
            old = out.read_text() if out.exists() else None
            state = "ok" if old == ptx else ("MISSING" if old is None else "STALE")
            if state != "ok":
                stale.append(rel(out))
            print(f"{state:7s} {rel(out)}")
        else:
            out.write_text(ptx)
            print(f"wrote   {rel(out)}  [{' '.join(opts)}]")
        log = QUIET_LOG_RE.sub("", log).strip()
        if log:
            print("  " + log.replace("\n", "\n  "))
    if stale:
        print(f"\n{len(stale)} stale PTX file(s); run: python3 tools/regen_ptx.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
