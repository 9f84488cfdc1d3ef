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

NVRTC 13 (CUDA 13, which no longer compiles for compute_70: its architectures are
compute_75 and later) is for PTX sets and sweeps (``--nvrtc 13``). CUDA 13's wheels are the
unsuffixed ones, and put everything into one ``site-packages/nvidia/cu13`` tree::

    pip install nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cuda-crt nvidia-cuda-cccl

(NVRTC's ``nvidia/cu13/lib/libnvrtc.so.13``, or ``$WARPSIM_NVRTC13``, then the system
loader's ``libnvrtc.so.13``; the headers: the runtime's cuda_fp16.h, mma.h, ... and crt/ in
``nvidia/cu13/include``, CCCL's nv/target and cuda/barrier in ``nvidia/cu13/include/cccl``).

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
    python3 tools/regen_ptx.py --ptx-set cuda13-sm_90 --nvrtc 13 --arch compute_90 [--check]
                                               # the PTX set samples/ptx-sets/cuda13-sm_90:
                                               # every source's PTX from NVRTC 13 for
                                               # compute_90, laid out as samples/, with its
                                               # manifest ptx-set.toml (a source that needs
                                               # another NVRTC or a later architecture is
                                               # listed there as not applicable, with why);
                                               # a NAME with a '/' is a directory anywhere
    python3 tools/regen_ptx.py --arch-sweep target/release/warpsim
                                               # compile samples/corpus for every
                                               # architecture of ARCH_SWEEP and list
                                               # what `warpsim check` finds unsupported
    python3 tools/regen_ptx.py --arch-sweep target/release/warpsim --nvrtc 13 --sources all
                                               # every samples/**/*.cu for every architecture
                                               # NVRTC 13 supports (nvrtcGetSupportedArchs):
                                               # what is unsupported, fails to parse or lower,
                                               # or is not applicable (--markdown: as tables;
                                               # --archs A,B: those; --keep DIR: keep the PTX)

The exact output depends on the NVRTC version; the committed corpus was
produced by the version recorded in samples/corpus/README.md, each PTX set by the one its
manifest records.
"""

import argparse
import ctypes
import glob
import json
import os
import re
import shlex
import site
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
DEFAULT_ARCH = "--gpu-architecture=compute_70"
FLAGS_RE = re.compile(r"^\s*//\s*nvrtc-flags:(.*)$")
VERSION_RE = re.compile(r"^\s*//\s*nvrtc-version:\s*(\d+)\s*$")
DEFAULT_MAJOR = 12
# The library file of each NVRTC major version, the directory below a site-packages directory
# where its wheel puts it, and the wheel (CUDA 13's wheels are unsuffixed and share one
# nvidia/cu13 tree; CUDA 11's and 12's each have their own nvidia/cuda_* directories).
LIBRARY = {13: "libnvrtc.so.13", 12: "libnvrtc.so.12", 11: "libnvrtc.so.11.2"}
LIBRARY_DIR = {13: "nvidia/cu13/lib", 12: "nvidia/cuda_nvrtc/lib", 11: "nvidia/cuda_nvrtc/lib"}
NVRTC_WHEEL = {13: "nvidia-cuda-nvrtc", 12: "nvidia-cuda-nvrtc-cu12", 11: "nvidia-cuda-nvrtc-cu11"}
FLAGS_SCAN_LINES = 10
# NVRTC 12.x warns about every compute_70 compile; not worth repeating.
QUIET_LOG_RE = re.compile(r"^nvrtc: warning: Architectures prior to .* are deprecated.*$\n?", re.M)


def nvrtc_env(major):
    """The environment variable that names NVRTC `major`'s library: WARPSIM_NVRTC for the
    default version (the one `warpsim run-cu` reads too), WARPSIM_NVRTC<major> for others."""
    return "WARPSIM_NVRTC" if major == DEFAULT_MAJOR else f"WARPSIM_NVRTC{major}"


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
    env = os.environ.get(nvrtc_env(major))
    if env:
        yield env
    seen = set()
    for d in _site_dirs():
        lib = os.path.join(d, LIBRARY_DIR[major], LIBRARY[major])
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
            sys.exit(
                f"regen_ptx: cannot load NVRTC {major}; install it with\n"
                f"    pip install {NVRTC_WHEEL[major]}\n"
                f"or point {nvrtc_env(major)} at {LIBRARY[major]}.  Tried:\n" + "\n".join(errors)
            )
        self.major = major
        self._archs = None
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
        L.nvrtcGetNumSupportedArchs.argtypes = [ctypes.POINTER(ctypes.c_int)]
        L.nvrtcGetSupportedArchs.argtypes = [ctypes.POINTER(ctypes.c_int)]
        L.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        for name in ("nvrtcGetPTXSize", "nvrtcGetProgramLogSize"):
            getattr(L, name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        for name in ("nvrtcGetPTX", "nvrtcGetProgramLog"):
            getattr(L, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        for name in ("nvrtcVersion", "nvrtcCreateProgram", "nvrtcDestroyProgram",
                     "nvrtcCompileProgram", "nvrtcGetPTXSize", "nvrtcGetPTX",
                     "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
                     "nvrtcGetNumSupportedArchs", "nvrtcGetSupportedArchs"):
            getattr(L, name).restype = ctypes.c_int

    def _check(self, what, rc):
        if rc != 0:
            msg = self.lib.nvrtcGetErrorString(rc).decode()
            raise RuntimeError(f"{what} failed: {msg} ({rc})")

    def version(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check("nvrtcVersion", self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
        return major.value, minor.value

    def supported_archs(self):
        """The virtual architectures this NVRTC compiles for (`nvrtcGetSupportedArchs`), as
        `compute_NN` names in increasing order."""
        if self._archs is not None:
            return self._archs
        count = ctypes.c_int()
        self._check("nvrtcGetNumSupportedArchs", self.lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)))
        archs = (ctypes.c_int * count.value)()
        self._check("nvrtcGetSupportedArchs", self.lib.nvrtcGetSupportedArchs(archs))
        self._archs = [f"compute_{a}" for a in sorted(archs)]
        return self._archs

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


# The CUDA headers NVRTC does not build in (cuda_fp16.h, cuda_bf16.h, mma.h,
# cuda_pipeline_primitives.h, cooperative_groups, libcu++'s cuda/barrier, ...) and those they
# include, per NVRTC major version: (the include directory below a site-packages directory, a
# file that shows it is there, the wheel that ships it). CUDA 13 moved CCCL's headers (nv/target,
# cuda/...) into include/cccl and crt/ into a wheel of its own. NVRTC 11 takes CUDA 12's.
HEADER_WHEELS = {
    12: [("nvidia/cuda_runtime/include", "cuda_fp16.h", "nvidia-cuda-runtime-cu12"),
         ("nvidia/cuda_cccl/include", "nv/target", "nvidia-cuda-cccl-cu12"),
         ("nvidia/cuda_nvcc/include", "crt/mma.h", "nvidia-cuda-nvcc-cu12")],
    13: [("nvidia/cu13/include", "cuda_fp16.h", "nvidia-cuda-runtime"),
         ("nvidia/cu13/include/cccl", "nv/target", "nvidia-cuda-cccl"),
         ("nvidia/cu13/include", "crt/mma.h", "nvidia-cuda-crt")],
}
HEADER_WHEELS[11] = HEADER_WHEELS[12]


def cuda_includes(major):
    """The include directories of NVRTC `major`'s header wheels (HEADER_WHEELS), the runtime's
    first, each once; exits naming the wheels that are missing."""
    found, missing = [], []
    for subdir, probe, wheel in HEADER_WHEELS[major]:
        inc = next((os.path.join(d, subdir) for d in _site_dirs()
                    if os.path.exists(os.path.join(d, subdir, probe))), None)
        if inc is None:
            missing.append(wheel)
        elif inc not in found:
            found.append(inc)
    if missing:
        sys.exit(f"regen_ptx: this source includes CUDA headers, which NVRTC {major} takes from "
                 f"wheels; install them with\n    pip install {' '.join(missing)}")
    return found


# Sources including any header get the wheels' include directories (NVRTC builds in only a
# few of CUDA's headers).
CUDA_INCLUDE_RE = re.compile(r"#include\s*<")
ARCH_FLAG_PREFIXES = ("--gpu-architecture", "-arch")
ARCH_RE = re.compile(r"^compute_(\d+)$")


def arch_number(arch: str) -> int:
    """`compute_90` → 90; exits on anything else."""
    m = ARCH_RE.match(arch)
    if not m:
        sys.exit(f"regen_ptx: `{arch}` is not a virtual architecture (compute_NN)")
    return int(m.group(1))


def source_arch(text: str) -> str:
    """The architecture the source's `// nvrtc-flags:` ask for (default compute_70)."""
    for flag in source_flags(text):
        if flag.startswith(ARCH_FLAG_PREFIXES):
            return flag.split("=", 1)[1]
    return DEFAULT_ARCH.split("=", 1)[1]


class NotApplicable(Exception):
    """A source that the requested NVRTC version or architecture cannot compile as written;
    the message says why."""


class Target:
    """What every source is compiled with: an NVRTC major version and an architecture, each
    forced (a PTX set, a sweep) or, where None, the source's own (the committed PTX)."""

    def __init__(self, major=None, arch=None):
        self.major = major
        self._archs = None
        self.arch = arch

    def major_for(self, text: str) -> int:
        """The NVRTC major version for this source; NotApplicable when the source asks for
        an older one than the one forced (texture references left CUDA with version 12)."""
        own = source_major(text)
        if self.major is None or own == self.major:
            return own
        if own != DEFAULT_MAJOR:
            raise NotApplicable(
                f"needs NVRTC {own} (`// nvrtc-version: {own}`): it uses what CUDA 12 removed "
                f"(texture references), which NVRTC {self.major} does not compile")
        return self.major

    def arch_for(self, text: str) -> str:
        """The architecture for this source; NotApplicable when the source needs a later
        one than the one forced."""
        own = source_arch(text)
        if self.arch is None:
            return own
        if arch_number(own) > arch_number(self.arch):
            raise NotApplicable(f"needs {own} or later (`// nvrtc-flags: --gpu-architecture={own}`)")
        return self.arch


def compile_options(text: str, major: int, arch: str):
    """The NVRTC options for a source: its `// nvrtc-flags:` with `arch` in place of its
    architecture (first when it names none), then the header wheels' include paths."""
    extra = [f"--gpu-architecture={arch}" if f.startswith(ARCH_FLAG_PREFIXES) else f
             for f in source_flags(text)]
    has_arch = any(f.startswith(ARCH_FLAG_PREFIXES) for f in extra)
    includes = cuda_includes(major) if CUDA_INCLUDE_RE.search(text) else []
    return (([] if has_arch else [f"--gpu-architecture={arch}"]) + extra
            + [f"--include-path={i}" for i in includes])


def all_sources():
    return sorted(SAMPLES.rglob("*.cu"))


def corpus_sources():
    return sorted((SAMPLES / "corpus").glob("*.cu"))


def rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)


# A source including another by a quoted name (`#include "kmeans.cu"`) gets its own directory.
LOCAL_INCLUDE_RE = re.compile(r'#include\s*"')


class UnsupportedArch(Exception):
    """An architecture the loaded NVRTC does not compile for."""


def compile_source(nvrtc_for, cu: Path, target: Target):
    """Compiles `cu` for `target` with the NVRTC that `nvrtc_for(major)` loads: (ptx, log,
    options). Raises NotApplicable, UnsupportedArch and CompileError (with NVRTC's log)."""
    text = cu.read_text()
    major = target.major_for(text)
    arch = target.arch_for(text)
    nvrtc = nvrtc_for(major)
    if arch not in nvrtc.supported_archs():
        got, minor = nvrtc.version()
        raise UnsupportedArch(f"NVRTC {got}.{minor} does not compile for {arch} (it does for "
                              f"{', '.join(nvrtc.supported_archs())})")
    opts = compile_options(text, major, arch)
    if LOCAL_INCLUDE_RE.search(text):
        opts.append(f"--include-path={cu.parent}")
    try:
        ptx, log = nvrtc.compile(text, cu.name, opts)
    except CompileError as e:
        raise CompileError(f"NVRTC failed on {rel(cu)} with {' '.join(opts)}:\n{e}") from None
    return ptx, log, opts


def generate(nvrtc_for, cu: Path, target: Target):
    """compile_source, exiting on an unsupported architecture or a compile error (NotApplicable
    goes to the caller)."""
    try:
        return compile_source(nvrtc_for, cu, target)
    except UnsupportedArch as e:
        sys.exit(f"regen_ptx: {rel(cu)}: {e}; pass --arch")
    except CompileError as e:
        sys.stderr.write(f"\nregen_ptx: {e}\n")
        sys.exit(1)


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
# PTX sets: every source compiled by one NVRTC for one architecture, laid out as samples/ is
# (rodinia/nn/nn.cu → SET/rodinia/nn/nn.ptx), with a manifest. `warpsim run --ptx-set` runs
# the samples from one.
# ---------------------------------------------------------------------------

PTX_SETS = SAMPLES / "ptx-sets"
MANIFEST = "ptx-set.toml"
SET_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def committed_ptx():
    """The committed PTX beside the sources (the PTX sets' files excluded)."""
    return sorted(p for p in SAMPLES.rglob("*.ptx") if PTX_SETS not in p.parents)


def set_dir(spec: str) -> Path:
    """A set's directory: samples/ptx-sets/NAME for a bare name, else the directory given."""
    if "/" in spec:
        return Path(spec)
    if not SET_NAME_RE.match(spec):
        sys.exit(f"regen_ptx: `{spec}` is not a PTX set name (letters, digits, '.', '_', '-') "
                 f"nor a directory (with a '/')")
    return PTX_SETS / spec


def set_member(cu: Path) -> str:
    """Where a source's PTX lies inside a set: its path below samples/, ending in `.ptx`."""
    try:
        return cu.resolve().relative_to(SAMPLES).with_suffix(".ptx").as_posix()
    except ValueError:
        sys.exit(f"regen_ptx: {cu} is not under samples/, and a PTX set holds only the samples")


def toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these texts)."""
    return json.dumps(text)


def wheel_version(nvrtc: Nvrtc) -> str:
    """`nvidia-cuda-nvrtc 13.5.37` when the library came from its wheel, else the path."""
    if LIBRARY_DIR[nvrtc.major] in Path(nvrtc.path).as_posix():
        try:
            from importlib import metadata
            return f"{NVRTC_WHEEL[nvrtc.major]} {metadata.version(NVRTC_WHEEL[nvrtc.major])}"
        except Exception:  # noqa: BLE001 - a wheel without metadata: fall back to the path
            pass
    return nvrtc.path


def manifest_text(nvrtc: Nvrtc, target: Target, command: str, not_applicable: dict) -> str:
    """The set's ptx-set.toml: where it came from, and each source it lacks with the reason."""
    major, minor = nvrtc.version()
    lines = [
        "# A PTX set (samples/ptx-sets/README.md): every sample's CUDA C compiled by one NVRTC for",
        "# one architecture, laid out as samples/ is. Written by tools/regen_ptx.py: regenerate it",
        "# with `command`, never by hand. `warpsim run --ptx-set NAME` runs the samples from it.",
        f"nvrtc = {toml_string(f'{major}.{minor}')}",
        f"nvrtc_library = {toml_string(wheel_version(nvrtc))}",
        f"arch = {toml_string(target.arch)}",
        f"command = {toml_string(command)}",
        "",
        "# The PTX files of samples/ that this set does not hold, each with the reason.",
        "[not_applicable]",
    ]
    lines += [f"{toml_string(k)} = {toml_string(v)}" for k, v in sorted(not_applicable.items())]
    return "\n".join(lines) + "\n"


def in_parallel(jobs: int, work, items):
    """`work(item)` for every item on `jobs` threads (NVRTC is thread-safe, and ctypes lets go
    of the GIL while it compiles), the results in the items' order."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(work, items))


def build_set(spec: str, target: Target, nvrtc_for, jobs: int):
    """Every file of the set: {member: text} (the manifest included), and NVRTC's logs."""
    command = files_command(spec, target)

    def one(cu):
        try:
            ptx, log, _ = generate(nvrtc_for, cu, target)
            return set_member(cu), ptx, QUIET_LOG_RE.sub("", log).strip(), None
        except NotApplicable as e:
            return set_member(cu), None, "", str(e)

    files, logs, not_applicable = {}, {}, {}
    for member, ptx, log, reason in in_parallel(jobs, one, all_sources()):
        if reason is not None:
            not_applicable[member] = reason
        else:
            files[member] = ptx
            if log:
                logs[member] = log
    files[MANIFEST] = manifest_text(nvrtc_for(target.major), target, command, not_applicable)
    return files, logs


def write_set(spec: str, target: Target, nvrtc_for, check: bool, jobs: int) -> int:
    """Writes (or with `check`, compares) the PTX set `spec`; files the sources no longer make
    are removed (reported as EXTRA by `check`). Returns the exit status."""
    root = set_dir(spec)
    files, logs = build_set(spec, target, nvrtc_for, jobs)
    present = {p.relative_to(root).as_posix() for p in root.rglob("*")
               if p.is_file() and (p.suffix == ".ptx" or p.name == MANIFEST)} if root.is_dir() else set()
    stale = []
    for member, text in sorted(files.items()):
        out = root / member
        if check:
            old = out.read_text() if out.exists() else None
            state = "ok" if old == text else ("MISSING" if old is None else "STALE")
            if state != "ok":
                stale.append(member)
            print(f"{state:7s} {rel(out)}")
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text)
            print(f"wrote   {rel(out)}")
        if member in logs:
            print("  " + logs[member].replace("\n", "\n  "))
    for member in sorted(present - set(files)):
        if check:
            stale.append(member)
            print(f"EXTRA   {rel(root / member)}")
        else:
            (root / member).unlink()
            print(f"removed {rel(root / member)}")
    if stale:
        print(f"\n{len(stale)} stale file(s) in {rel(root)}; run: {files_command(spec, target)}",
              file=sys.stderr)
        return 1
    return 0


def files_command(spec: str, target: Target) -> str:
    """The command that writes the set `spec` (recorded in its manifest)."""
    return f"python3 tools/regen_ptx.py --ptx-set {spec} --nvrtc {target.major} --arch {target.arch}"


# ---------------------------------------------------------------------------
# Architecture sweep: each source compiled for each architecture, `warpsim check` on the PTX
# ---------------------------------------------------------------------------

# The virtual architectures of issue 20's bar: NVRTC 12.x's output for each must run.
ARCH_SWEEP = ["compute_70", "compute_75", "compute_80", "compute_86", "compute_89", "compute_90"]
CHECK_ERROR_RE = re.compile(r"^\S+?:(\d+):(\d+): (?:error|internal error): (.*)$", re.M)
CHECK_UNSUPPORTED_RE = re.compile(r"^unsupported: (\S+) at \S+:(\d+)", re.M)


class SweepResult:
    """One source for one architecture: `status` is clean, n/a (with `reason`), nvrtc (NVRTC
    refused it: `reason`), unsupported (`unsupported`: (instruction, line) pairs) or fail
    (`reason`: warpsim check's first error, `line`)."""

    def __init__(self, status, reason="", line=None, unsupported=()):
        self.status = status
        self.reason = reason
        self.line = line
        self.unsupported = list(unsupported)


def check_ptx(warpsim: str, path: Path) -> SweepResult:
    """`warpsim check` on one file, classified."""
    import subprocess
    check = subprocess.run([warpsim, "check", str(path)], capture_output=True, text=True)
    if check.returncode != 0:
        m = CHECK_ERROR_RE.search(check.stderr)
        if m:
            return SweepResult("fail", m.group(3).strip(), line=int(m.group(1)))
        first = (check.stderr.strip() or check.stdout.strip() or f"exit {check.returncode}")
        return SweepResult("fail", first.splitlines()[0])
    found = [(m.group(1), int(m.group(2))) for m in CHECK_UNSUPPORTED_RE.finditer(check.stdout)]
    return SweepResult("unsupported", unsupported=found) if found else SweepResult("clean")


def sweep_one(nvrtc_for, warpsim: str, out_dir: Path, major, arch: str, cu: Path) -> SweepResult:
    """Compiles one source for one architecture into out_dir/ARCH/<member> and checks it."""
    try:
        ptx, _, _ = compile_source(nvrtc_for, cu, Target(major, arch))
    except NotApplicable as e:
        return SweepResult("n/a", str(e))
    except (CompileError, UnsupportedArch) as e:
        lines = [l for l in str(e).splitlines()[1:] if l.strip()]
        return SweepResult("nvrtc", lines[-1] if lines else str(e))
    out = out_dir / arch / set_member(cu)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(ptx)
    return check_ptx(warpsim, out)


def normalized(message: str) -> str:
    """A failure message with register numbers blanked (`%p12` → `%pN`), so the same cause in
    different files groups together."""
    return re.sub(r"%([A-Za-z_]+)\d+", r"%\1N", message)


def arch_sweep(nvrtc_for, major, warpsim: str, sources, archs, jobs: int, keep, markdown: bool):
    """Compiles every source for every architecture, runs `warpsim check` on each result, and
    prints what is not applicable, unsupported, or fails to parse or lower. Returns 1 if
    anything is unsupported or fails (not-applicable sources do not count)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(keep) if keep else Path(tmp)
        items = [(arch, cu) for arch in archs for cu in sources]
        results = dict(zip(items, in_parallel(
            jobs, lambda item: sweep_one(nvrtc_for, warpsim, out_dir, major, *item), items)))
    report = sweep_report(results, archs, sources, markdown)
    print(report)
    bad = [r for r in results.values() if r.status in ("unsupported", "fail", "nvrtc")]
    return 1 if bad else 0


def short(arch: str) -> str:
    return arch.removeprefix("compute_")


def sweep_report(results, archs, sources, markdown: bool) -> str:
    """The sweep's tables: per architecture the counts; then every instruction unsupported,
    every failure grouped by its message, every source not applicable, each with the
    architectures (NN of compute_NN) and the PTX's files:lines (the sources' files where no
    PTX was made)."""
    lines = []
    row = (lambda *c: "| " + " | ".join(str(x) for x in c) + " |") if markdown else \
        (lambda *c: "  ".join(f"{str(x):<12}" for x in c).rstrip())
    lines.append(row("architecture", "compiled", "clean", "unsupported", "fails", "n/a"))
    if markdown:
        lines.append("|---|---:|---:|---:|---:|---:|")
    for arch in archs:
        rs = [results[(arch, cu)] for cu in sources]
        count = lambda status: sum(r.status == status for r in rs)  # noqa: E731
        lines.append(row(arch, len(rs) - count("n/a"), count("clean"), count("unsupported"),
                         count("fail") + count("nvrtc"), count("n/a")))
    groups = {}
    for (arch, cu), r in results.items():
        # Lines are the swept PTX's (--keep keeps it); a source without one is named as such.
        ptx, source = set_member(cu), set_member(cu).removesuffix(".ptx") + ".cu"
        if r.status == "unsupported":
            for op, line in r.unsupported:
                groups.setdefault(("unsupported", op), {}).setdefault(arch, set()).add(f"{ptx}:{line}")
        elif r.status in ("fail", "nvrtc", "n/a"):
            where = f"{ptx}:{r.line}" if r.line else source
            key = {"fail": "fails", "nvrtc": "NVRTC fails", "n/a": "not applicable"}[r.status]
            groups.setdefault((key, normalized(r.reason)), {}).setdefault(arch, set()).add(where)
    if not groups:
        lines.append("\nnothing unsupported, nothing fails, every source applies")
        return "\n".join(lines)
    lines.append("")
    if markdown:
        lines += ["| what | cause | architectures | files |", "|---|---|---|---|"]
    for (kind, cause), by_arch in sorted(groups.items()):
        cause_text = f"`{cause}`" if markdown and kind == "unsupported" else cause
        if not markdown:
            lines.append(f"{kind}: {cause_text}")
        # Files by the architectures they share, so one line says "100, 103: a.ptx, b.ptx".
        by_files = {}
        for arch, files in by_arch.items():
            by_files.setdefault(tuple(sorted(files)), []).append(arch)
        for files, arch_list in sorted(by_files.items(), key=lambda kv: archs.index(kv[1][0])):
            span = "all" if len(arch_list) == len(archs) else ", ".join(
                short(a) for a in sorted(arch_list, key=archs.index))
            if markdown:
                lines.append(f"| {kind} | {cause_text} | {span} | {', '.join(files)} |")
            else:
                lines.append(f"    {span}: {', '.join(files)}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help=".cu files (default: every .cu under samples/)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate in memory; exit 1 if any committed .ptx (or the --ptx-set's "
                         "files) differs")
    ap.add_argument("--coverage", action="store_true",
                    help="report instruction families missing from the committed .ptx")
    ap.add_argument("--nvrtc", type=int, choices=sorted(LIBRARY), metavar="MAJOR",
                    help="compile every source with this NVRTC major version (11, 12 or 13); a "
                         "source that asks for another (`// nvrtc-version: 11`) is not applicable. "
                         "With --ptx-set or --arch-sweep only: the PTX beside the sources is "
                         "each source's own version's")
    ap.add_argument("--arch", metavar="compute_NN",
                    help="compile every source for this architecture; a source that needs a later "
                         "one is not applicable. With --ptx-set only")
    ap.add_argument("--ptx-set", metavar="NAME|DIR",
                    help="write every source's PTX into the PTX set samples/ptx-sets/NAME (or the "
                         "directory DIR, a path with a '/') with its manifest, instead of beside "
                         "the sources; needs --nvrtc and --arch")
    ap.add_argument("--arch-sweep", metavar="WARPSIM",
                    help="compile the sources for every architecture and run this warpsim "
                         "binary's `check` on each (nothing is written): NVRTC 12 sweeps "
                         f"{ARCH_SWEEP[0]}..{ARCH_SWEEP[-1]}, another --nvrtc every architecture "
                         "it supports (nvrtcGetSupportedArchs)")
    ap.add_argument("--sources", choices=["corpus", "all"], default="corpus",
                    help="with --arch-sweep: samples/corpus (default) or every samples/**/*.cu")
    ap.add_argument("--archs", metavar="compute_NN,...",
                    help="with --arch-sweep: these architectures instead")
    ap.add_argument("--markdown", action="store_true",
                    help="with --arch-sweep: print the tables as Markdown")
    ap.add_argument("--keep", metavar="DIR",
                    help="with --arch-sweep: keep the swept PTX in DIR/compute_NN/<path>.ptx")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="compile on this many threads (--ptx-set, --arch-sweep; default: the cores)")
    args = ap.parse_args(argv)
    validate_args(ap, args)

    compilers = {}
    loading = threading.Lock()

    def nvrtc_for(major):
        """NVRTC `major`, loaded once (compile threads ask for it at the same time)."""
        with loading:
            if major not in compilers:
                compilers[major] = Nvrtc(major)
                got, minor = compilers[major].version()
                print(f"NVRTC {got}.{minor} ({compilers[major].path})", flush=True)
            return compilers[major]

    if args.coverage:
        return coverage(committed_ptx())
    if args.arch_sweep:
        return run_sweep(args, nvrtc_for)
    if args.ptx_set:
        return write_set(args.ptx_set, Target(args.nvrtc, args.arch), nvrtc_for, args.check, args.jobs)
    return regenerate(args, nvrtc_for)


def validate_args(ap, args):
    """Refuses the combinations that would do something else than asked."""
    sweep_only = [f for f, v in (("--archs", args.archs), ("--markdown", args.markdown),
                                 ("--keep", args.keep), ("--sources", args.sources != "corpus")) if v]
    if sweep_only and not args.arch_sweep:
        ap.error(f"{', '.join(sweep_only)}: with --arch-sweep only")
    if args.arch_sweep and (args.arch or args.ptx_set or args.check or args.files):
        ap.error("--arch-sweep compiles every source for the architectures of --archs; it takes no "
                 "files, --arch, --ptx-set or --check")
    if (args.nvrtc or args.arch) and not (args.ptx_set or args.arch_sweep):
        ap.error("--nvrtc and --arch write a PTX set: add --ptx-set NAME (the PTX beside the "
                 "sources is the committed one, each from its source's own NVRTC version)")
    if args.ptx_set and not (args.nvrtc and args.arch):
        ap.error("--ptx-set needs --nvrtc MAJOR and --arch compute_NN: a set is one NVRTC's "
                 "output for one architecture")
    if args.ptx_set and args.files:
        ap.error("--ptx-set compiles every source under samples/ (a set is complete); it takes "
                 "no files")
    if args.arch:
        arch_number(args.arch)


def run_sweep(args, nvrtc_for):
    """--arch-sweep: the sources and architectures asked for, then the sweep."""
    major = args.nvrtc
    sources = all_sources() if args.sources == "all" else corpus_sources()
    if args.archs:
        archs = [a.strip() for a in args.archs.split(",") if a.strip()]
        for a in archs:
            arch_number(a)
    elif (major or DEFAULT_MAJOR) == DEFAULT_MAJOR:
        archs = ARCH_SWEEP
    else:
        archs = nvrtc_for(major).supported_archs()
    if major is not None:
        nvrtc_for(major)
    what = "every samples/**/*.cu" if args.sources == "all" else "samples/corpus/*.cu"
    print(f"{len(sources)} sources ({what}) x {len(archs)} architectures: {', '.join(archs)}",
          flush=True)
    return arch_sweep(nvrtc_for, major, args.arch_sweep, sources, archs, args.jobs, args.keep,
                      args.markdown)


def regenerate(args, nvrtc_for):
    """The committed PTX beside each source (or only the files given), or with --check a
    comparison with it."""
    sources = [p if p.suffix == ".cu" else p.with_suffix(".cu") for p in args.files] or all_sources()
    stale = []
    for cu in sources:
        if not cu.exists():
            sys.exit(f"regen_ptx: no such file: {cu}")
        ptx, log, opts = generate(nvrtc_for, cu, Target())
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
