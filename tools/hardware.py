#!/usr/bin/env python3
"""Runs the microbenchmarks of tools/microbench.py and the validation corpus of
tools/gpgpusim/launches/corpus.toml on a GPU through the CUDA driver API (issue 48, item 5),
and compares them with the matching warpsim preset.

    python3 tools/hardware.py                        # the real GPU: libcuda, results/hardware/GPU/
    python3 tools/hardware.py --lib warpsim --mode v100 --out DIR   # the harness on warpsim
    python3 tools/hardware.py --compare-only results/hardware/GPU   # add warpsim's figures later
    python3 tools/hardware.py --export-corpus DIR    # the corpus + inputs, for a machine without warpsim

The driver-API program is clients/c/launch_bench.c, compiled here with gcc against the real
libcuda (`--lib cuda`, -l:libcuda.so.1) or against libwarpsim_cuda.so (`--lib warpsim`, with
WARPSIM_MODE=`--mode`). This script writes its manifests (one a launch), runs it, and reads its
JSON and output buffers:

- microbenchmarks: the launches of tools/microbench.py (`steps()`, its BENCHES table) with the
  device's own SM count and clock in place of a preset's; each figure computed by the bench's
  own `figure` from the output buffer (the `%clock` deltas the kernels write) and, for the
  bandwidths, the measured launch's event time x the SM clock;
- corpus: the launches of the list (`[[launch]]` with generated inputs, `[[capture]]` captured
  by `warpsim run`: the warpsim binary is needed for these); the figure is the event time of
  the launch x the SM clock that cuDeviceGetAttribute(CLOCK_RATE) reports: an estimate of the
  kernel's cycles that includes the launch overhead the events see (a few microseconds on
  hardware), at the reported (boost) clock, not a clock the GPU was seen to run at. The corpus
  kernels cannot be timed with %clock64 without changing them, so they are not.

Before every repetition the inputs are copied again and, with flush_l2, a buffer twice the L2's
size is written, so each repetition starts with the L2 holding none of the inputs (warpsim and
GPGPU-Sim start cold). Figures take the median event time over the repetitions and the output
buffers of the last one. Under libwarpsim_cuda.so the simulated caches persist from launch to
launch of a process and cuMemsetD32 does not pass through them, so only the first repetition
starts cold there: compare figures from `--repeat 1` runs with warpsim's.

Output (`--out`, default results/hardware/GPU-NAME-SLUG/ for a GPU and
target/hardware/GPU-NAME-SLUG/ for warpsim's device): device.json, microbench.json, corpus.json,
table.md; the manifests, raw results and output buffers go to target/hardware/work/runs/ (a
folder named after the output folder; captures to target/hardware/work/capture/). With a
matching preset (GPU name -> preset: PRESETS_BY_NAME) and a warpsim binary, each figure gets
warpsim's for that preset (`warpsim run-ptx --timing PRESET`, as tools/microbench.py and
tools/gpgpusim/compare.py run them) and the published figure of tools/microbench.py; without
(`--no-compare`, or no binary on the GPU's machine) `--compare-only DIR` adds them later.
Standard library only.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import microbench  # noqa: E402  (one table of benchmarks, one way to compute each figure)

REPO = microbench.REPO
SOURCE = REPO / "clients" / "c" / "launch_bench.c"
CORPUS = REPO / "tools" / "gpgpusim" / "launches" / "corpus.toml"
WORK = REPO / "target" / "hardware"

# GPU name (cuDeviceGetName) -> warpsim preset, first match wins; the note says how close.
PRESETS_BY_NAME = [
    (r"^warpsim (\S+) \(timing model\)$", None, "warpsim's own device under that preset"),
    (r"V100", "v100", "same GPU (GV100)"),
    (r"H100", "h100", "same GPU (GH100); the preset is the SXM5 part"),
    (r"H200", "h100", "nearest preset: the same GH100 SMs, H200's HBM3e memory system differs"),
    (r"A100", "a100", "same GPU (GA100)"),
    (r"RTX 2060", "rtx2060", "same GPU (TU106)"),
    (r"RTX 3070", "rtx3070", "same GPU (GA104)"),
    (r"GTX 480", "gtx480", "same GPU (GF100)"),
    (r"GTX 980", "gtx980", "same GPU (GM204)"),
    (r"TITAN X \(Pascal\)", "titanx", "same GPU (GP102)"),
]

SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
         "f32": 4, "f64": 8}


def matching_preset(name):
    """(preset or None, note) for a device name."""
    for pattern, preset, note in PRESETS_BY_NAME:
        m = re.search(pattern, name)
        if m:
            return (preset or m.group(1)), note
    return None, f"no matching preset for `{name}`"


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def compare_module():
    spec = importlib.util.spec_from_file_location("compare", REPO / "tools" / "gpgpusim" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# The driver-API program
# ---------------------------------------------------------------------------------------------

def build(lib, work):
    """Compiles launch_bench against libcuda or libwarpsim_cuda.so; returns (binary, env)."""
    exe = work / f"launch_bench.{lib if lib in ('cuda', 'warpsim') else 'custom'}"
    cmd = ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(SOURCE)]
    env = dict(os.environ)
    if lib == "cuda":
        # The driver installs libcuda.so.1; the unversioned link comes with a toolkit only.
        cmd += ["-l:libcuda.so.1"]
    else:
        path = Path(os.environ.get("WARPSIM_CUDA_LIB", REPO / "target" / "release" / "libwarpsim_cuda.so")
                    if lib == "warpsim" else lib).resolve()
        if not path.exists():
            sys.exit(f"hardware.py: no {path} (cargo build --release -p warpsim-cuda)")
        cmd += [f"-L{path.parent}", f"-l:{path.name}"]
        env["LD_LIBRARY_PATH"] = f"{path.parent}:{env.get('LD_LIBRARY_PATH', '')}"
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        hint = ("\n(no libcuda.so.1 where the linker looks: is the NVIDIA driver installed? "
                "--lib PATH/libcuda.so.1 names it)" if lib == "cuda" else "")
        sys.exit(f"hardware.py: building launch_bench failed:\n{' '.join(cmd)}\n{done.stderr}{hint}")
    return exe, env


def run_bench(exe, env, manifest, result):
    """Runs a manifest; the result's JSON, or None with the program's error (printed)."""
    done = subprocess.run([str(exe), str(manifest), str(result)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
        print(f"hardware.py: {manifest.name}: {message}", file=sys.stderr)
        return None, message
    return json.loads(result.read_text()), None


def device_info(exe, env, work):
    out = work / "device.json"
    done = subprocess.run([str(exe), "--info", str(out)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"hardware.py: launch_bench --info failed:\n{done.stderr}")
    return json.loads(out.read_text())


# ---------------------------------------------------------------------------------------------
# Manifests from run-ptx's argument forms
# ---------------------------------------------------------------------------------------------

def manifest_arg(spec, work):
    """A run-ptx `--arg` as a manifest `arg` line."""
    kind, _, rest = spec.partition(":")
    if spec.startswith("@"):
        return f"arg alias {int(spec[1:])}"
    if kind in SIZES:
        return f"arg {kind} {rest}"
    if kind == "bin":
        ty, _, path = rest.partition(":")
        return f"arg file {in_repo(path)}"
    if kind == "zeros":
        ty, _, n = rest.partition(":")
        return f"arg zeros {SIZES[ty] * int(n)}"
    if kind == "npy":
        return f"arg file {npy_body(in_repo(rest), work)}"
    raise ValueError(f"argument `{spec}` has no driver-API form here (textures, surfaces)")


def in_repo(path):
    """A path as absolute, a relative one taken from the repository's root."""
    return Path(path) if Path(path).is_absolute() else REPO / path


def npy_body(path, work):
    """A .npy file's data as a raw file (the header dropped)."""
    data = path.read_bytes()
    major = data[6]
    size = struct.unpack("<H" if major == 1 else "<I", data[8:10] if major == 1 else data[8:12])[0]
    body = work / "npy" / (path.stem + ".bin")
    body.parent.mkdir(parents=True, exist_ok=True)
    body.write_bytes(data[(10 if major == 1 else 12) + size:])
    return body


def symbol_file(spec, work, name):
    """A run-ptx `--symbol NAME=VALUE`'s value as a file of its bytes."""
    kind, _, rest = spec.partition(":")
    if kind == "bin":
        return in_repo(rest.partition(":")[2])
    if kind == "npy":
        return npy_body(in_repo(rest), work)
    if kind in SIZES:
        path = work / "symbols" / f"{name}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = {"f32": "<f", "f64": "<d"}.get(kind) or ("<" + microbench_pack(kind))
        value = float(rest) if kind.startswith("f") else int(rest, 0)
        path.write_bytes(struct.pack(fmt, value))
        return path
    raise ValueError(f"symbol value `{spec}` has no driver-API form here")


def microbench_pack(kind):
    return {"u8": "B", "u16": "H", "u32": "I", "u64": "Q", "i8": "b", "i16": "h", "i32": "i",
            "i64": "q"}[kind]


def write_manifest(path, name, ptx, steps, symbols, repeat, flush, outputs, work):
    """steps: [(kernel, grid, block, shared, args)] with run-ptx argument specs; outputs: the
    argument numbers whose buffers are read back, to work/outputs/NAME.K.bin."""
    lines = [f"launch {name}", f"ptx {Path(ptx).resolve()}", f"repeat {repeat}"]
    if flush:
        lines.append("flush_l2")
    for sym in symbols:
        sname, _, value = sym.partition("=")
        lines.append(f"symbol {sname} {symbol_file(value, work, sname)}")
    files = {}
    for kernel, grid, block, shared, args in steps:
        lines += [f"kernel {kernel}", "grid " + str(grid).replace(",", " "),
                  "block " + str(block).replace(",", " "), f"shared {shared}"]
        lines += [manifest_arg(a, work) for a in args]
    for k in outputs:
        files[k] = work / "outputs" / f"{name.replace('/', '-')}.{k}.bin"
        files[k].parent.mkdir(parents=True, exist_ok=True)
        lines.append(f"out {k} {files[k]}")
    lines.append("end")
    path.write_text("\n".join(lines) + "\n")
    return files


def buffer_args(steps):
    """The numbers of the buffer arguments that are not `@K` (each buffer once)."""
    out, k = [], 0
    for *_, args in steps:
        for a in args:
            if a.split(":", 1)[0] in ("bin", "zeros", "npy"):
                out.append(k)
            k += 1
    return out


# ---------------------------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------------------------

def measure_microbench(exe, env, device, names, repeat, work):
    """{name: {...}} for the microbenchmarks, on the device."""
    info = {"sms": device["sms"], "clock_mhz": device["clock_khz"] / 1000}
    microbench.WORK.mkdir(parents=True, exist_ok=True)   # the chase arrays live there
    results = {}
    for name in names:
        bench = microbench.BENCHES[name]
        steps = [(k, g, b, 0, a) for k, g, b, a in microbench.steps(bench, info)]
        ptx = REPO / "samples" / "microbench" / bench["file"]
        manifest = work / "manifests" / f"microbench.{name}.txt"
        files = write_manifest(manifest, f"microbench.{name}", ptx, steps, [], repeat, True, [0], work)
        raw, error = run_bench(exe, env, manifest, work / "raw" / f"microbench.{name}.json")
        if raw is None:
            results[name] = {"failed": error}
            continue
        ms = raw["launches"][0]["steps"][-1]["ms"]
        cycles = statistics.median(ms) * device["clock_khz"]
        out = read_u32(files[0])
        results[name] = {
            "figure": bench["figure"](out, cycles, info), "unit": bench["unit"],
            "kernel": bench["kernel"], "ms": ms, "out": out[:8], "outputs": {"0": str(files[0])},
            "run_ptx": [str(ptx.relative_to(REPO))] + microbench.launch_args(bench, info),
        }
        print(f"{name:14} {microbench.fmt(results[name]['figure']):>10} {bench['unit']}", flush=True)
    return results


def read_u32(path):
    data = Path(path).read_bytes()
    return list(struct.unpack(f"<{len(data) // 4}I", data[:len(data) // 4 * 4]))


def corpus_launches(corpus_file, samples, warpsim, work):
    """The launches of a corpus list ([[launch]] and [[capture]]), optionally only those of
    the named samples (`saxpy`, `parboil/spmv`) and [[launch]] names."""
    compare = compare_module()
    # `warpsim run` finds the samples where it was built unless told: here, this checkout's.
    os.environ.setdefault("WARPSIM_SAMPLES", str(REPO / "samples"))
    listed = tomllib.loads(Path(corpus_file).read_text())
    keep = set(samples.split(",")) if samples else None
    launches = [dict(l) for l in listed.get("launch", []) if keep is None or l["name"] in keep]
    for entry in listed.get("capture", []):
        if keep is not None and entry["sample"] not in keep:
            continue
        if not Path(warpsim).exists():
            sys.exit(f"hardware.py: capturing {entry['sample']} needs the warpsim binary ({warpsim}); "
                     "capture on a machine that has it and pass --warpsim, or --no-corpus")
        launches += compare.captured(warpsim, entry, work, False)
    for launch in launches:
        launch["args"] = [compare.generated(a, work) for a in launch.get("args", [])]
    return launches


def run_ptx_args(launch):
    """`warpsim run-ptx`'s arguments for the same launch."""
    cmd = [launch["ptx"], "--kernel", launch["kernel"], "--grid", str(launch["grid"]),
           "--block", str(launch["block"]), "--shared", str(launch.get("shared", 0))]
    for a in launch["args"]:
        cmd += ["--arg", a]
    for v in launch.get("symbols", []):
        cmd += ["--symbol", v]
    return cmd


def export_corpus(launches, folder):
    """Writes the launches as a self-contained list: folder/corpus.toml ([[launch]] entries, the
    same names) and folder/data/ (each input file once, by content), paths relative to the
    repository, so a machine without warpsim (a GPU's) can run them: --corpus folder/corpus.toml."""
    import hashlib
    folder = Path(os.path.abspath(folder))    # not resolved: a target/ link stays inside REPO
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)

    def local(spec):
        kind, _, rest = spec.partition(":")
        if kind != "bin":
            return spec
        ty, _, path = rest.partition(":")
        body = Path(path).read_bytes()
        copy = data / (hashlib.sha256(body).hexdigest()[:20] + ".bin")
        if not copy.exists():
            copy.write_bytes(body)
        where = copy.relative_to(REPO) if copy.is_relative_to(REPO) else copy
        return f"bin:{ty}:{where}"

    def toml(v):
        return json.dumps(v)    # a TOML basic string or array of them
    lines = ["# Exported by tools/hardware.py --export-corpus: the launches with their inputs.", ""]
    for launch in launches:
        lines += ["[[launch]]", f"name = {toml(launch['name'])}", f"ptx = {toml(str(launch['ptx']))}",
                  f"kernel = {toml(launch['kernel'])}", f"grid = {toml(str(launch['grid']))}",
                  f"block = {toml(str(launch['block']))}", f"shared = {int(launch.get('shared', 0))}",
                  f"args = {toml([local(a) for a in launch['args']])}"]
        if launch.get("symbols"):
            syms = [n + "=" + local(v) for n, _, v in (s.partition("=") for s in launch["symbols"])]
            lines.append(f"symbols = {toml(syms)}")
        lines.append("")
    (folder / "corpus.toml").write_text("\n".join(lines))
    size = sum(f.stat().st_size for f in data.iterdir())
    print(f"exported {len(launches)} launches to {folder}/corpus.toml, inputs {size / 2**20:.1f} MiB")


def measure_corpus(exe, env, device, launches, repeat, work):
    results = {}
    for launch in launches:
        name = launch["name"]
        steps = [(launch["kernel"], launch["grid"], launch["block"], launch.get("shared", 0), launch["args"])]
        manifest = work / "manifests" / f"corpus.{name.replace('/', '-')}.txt"
        try:
            files = write_manifest(manifest, name, REPO / launch["ptx"], steps, launch.get("symbols", []),
                                   repeat, True, buffer_args(steps), work)
        except ValueError as e:
            results[name] = {"failed": str(e)}
            continue
        raw, error = run_bench(exe, env, manifest, work / "raw" / f"corpus.{name.replace('/', '-')}.json")
        if raw is None:
            results[name] = {"failed": error}
            continue
        ms = raw["launches"][0]["steps"][0]["ms"]
        results[name] = {
            "kernel": launch["kernel"], "grid": launch["grid"], "block": launch["block"],
            "ms": ms, "median_ms": statistics.median(ms),
            "cycles_estimate": round(statistics.median(ms) * device["clock_khz"]),
            "outputs": {str(k): str(v) for k, v in files.items()},
            "run_ptx": run_ptx_args(launch),
        }
        print(f"{name:48} {results[name]['median_ms']:.6f} ms  ~{results[name]['cycles_estimate']} cycles",
              flush=True)
    return results


# ---------------------------------------------------------------------------------------------
# Comparing with the matching preset
# ---------------------------------------------------------------------------------------------

def compare_microbench(results, preset, warpsim):
    info = microbench.preset_info(preset)
    microbench.WORK.mkdir(parents=True, exist_ok=True)
    for name, r in results.items():
        if "figure" not in r:
            continue
        r["warpsim"] = microbench.run_warpsim(warpsim, name, microbench.BENCHES[name], preset, info, [])
        r["warpsim_over_hardware"] = r["warpsim"] / r["figure"] if r["figure"] else None
        pub = microbench.PUBLISHED.get(name, {}).get(preset)
        if pub:
            r["published"] = {"value": pub[0], "gpu": pub[1], "source": pub[2]}


def compare_corpus(results, launches, preset, warpsim, work):
    compare = compare_module()
    by_name = {l["name"]: l for l in launches}
    for name, r in results.items():
        if "cycles_estimate" not in r or name not in by_name:
            continue
        launch = by_name[name]
        try:
            ws = compare.run_warpsim(warpsim, launch, launch["args"], preset, work)
        except compare.Failed as e:
            r["warpsim_failed"] = str(e)
            continue
        r["warpsim_cycles"] = ws["cycles"]
        r["warpsim_over_hardware"] = ws["cycles"] / r["cycles_estimate"] if r["cycles_estimate"] else None
        print(f"{name:48} warpsim {preset}: {ws['cycles']} cycles", flush=True)


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}" + ("" if abs(r - 1) <= 0.10 else " **")


def table(device, preset, note, micro, corpus):
    lines = [f"# {device['name']}: hardware against warpsim's `{preset or '—'}`", "",
             f"Device: {device['name']}, compute capability {device['compute_capability']}, "
             f"{device['sms']} SMs, clock {device['clock_khz'] / 1000:.0f} MHz (CLOCK_RATE), "
             f"L2 {device['l2_bytes'] >> 10} KB, driver {device['driver_version']}. Preset: "
             f"{preset or 'none'} ({note}).", ""]
    if micro:
        lines += ["## Microbenchmarks", "",
                  "Figures from the kernels' own `%clock` deltas (bandwidths: bytes / event time).", "",
                  "| benchmark | unit | hardware | warpsim | warpsim / hardware | published (GPU, source) |",
                  "|---|---|---|---|---|---|"]
        for name, r in micro.items():
            if "figure" not in r:
                lines.append(f"| {name} | | failed: {r.get('failed')} | | | |")
                continue
            pub = r.get("published")
            lines.append(f"| {name} | {r['unit']} | {microbench.fmt(r['figure'])} | "
                         f"{microbench.fmt(r.get('warpsim'))} | {fmt_ratio(r.get('warpsim_over_hardware'))} | "
                         + (f"{microbench.fmt(pub['value'])} ({pub['gpu']}: {pub['source']})" if pub else "—")
                         + " |")
        lines.append("")
    if corpus:
        lines += ["## Corpus", "",
                  "Hardware cycles are estimates: the median event time of the launch x the SM clock "
                  "that CLOCK_RATE reports, launch overhead included.", "",
                  "| launch | event ms (median) | hardware cycles (est.) | warpsim cycles | warpsim / hardware |",
                  "|---|---|---|---|---|"]
        for name, r in corpus.items():
            if "median_ms" not in r:
                lines.append(f"| {name} | failed: {r.get('failed')} | | | |")
                continue
            lines.append(f"| {name} | {r['median_ms']:.6f} | {r['cycles_estimate']} | "
                         f"{r.get('warpsim_cycles', '—')} | {fmt_ratio(r.get('warpsim_over_hardware'))} |")
        lines.append("")
    return "\n".join(lines)


def write_outputs(out, device, preset, note, micro, corpus, meta):
    out.mkdir(parents=True, exist_ok=True)
    (out / "device.json").write_text(json.dumps(device, indent=1) + "\n")
    head = {"device": device["name"], "preset": preset, "preset_note": note, **meta}
    if micro is not None:
        (out / "microbench.json").write_text(json.dumps({**head, "results": micro}, indent=1) + "\n")
    if corpus is not None:
        (out / "corpus.json").write_text(json.dumps({**head, "results": corpus}, indent=1) + "\n")
    (out / "table.md").write_text(table(device, preset, note, micro, corpus))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default="cuda",
                    help="cuda (the real libcuda.so.1), warpsim (libwarpsim_cuda.so: $WARPSIM_CUDA_LIB "
                         "or target/release's) or a library's path")
    ap.add_argument("--mode", help="WARPSIM_MODE for --lib warpsim (functional or a preset)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", default="", help="microbenchmarks, comma-separated (default: all)")
    ap.add_argument("--no-micro", action="store_true")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--samples", default="", help="only these [[capture]] samples / [[launch]] names")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--export-corpus", type=Path, metavar="DIR",
                    help="only write the corpus's launches and inputs to DIR (corpus.toml, data/) "
                         "for a machine without warpsim, then exit")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--compare-only", type=Path, metavar="DIR",
                    help="add warpsim's figures to the results in DIR (on a machine with warpsim)")
    ap.add_argument("--warpsim", default=str(REPO / "target" / "release" / "warpsim"))
    a = ap.parse_args()
    work = WORK / "work"
    work.mkdir(parents=True, exist_ok=True)

    if a.export_corpus:
        export_corpus(corpus_launches(a.corpus, a.samples, a.warpsim, work), a.export_corpus)
        return

    if a.compare_only:
        device = json.loads((a.compare_only / "device.json").read_text())
        preset, note = matching_preset(device["name"])
        if preset is None:
            sys.exit(f"hardware.py: {note}")
        micro = corpus = None
        meta = {}
        if (a.compare_only / "microbench.json").exists():
            saved = json.loads((a.compare_only / "microbench.json").read_text())
            meta = {k: v for k, v in saved.items() if k not in ("device", "preset", "preset_note", "results")}
            micro = saved["results"]
            compare_microbench(micro, preset, a.warpsim)
        if (a.compare_only / "corpus.json").exists():
            saved = json.loads((a.compare_only / "corpus.json").read_text())
            corpus = saved["results"]
            launches = corpus_launches(REPO / saved.get("corpus", a.corpus), saved.get("samples", ""),
                                       a.warpsim, work)
            compare_corpus(corpus, launches, preset, a.warpsim, work)
        write_outputs(a.compare_only, device, preset, note, micro, corpus, meta)
        print((a.compare_only / "table.md").read_text())
        return

    exe, env = build(a.lib, work)
    if a.mode:
        env["WARPSIM_MODE"] = a.mode
    device = device_info(exe, env, work)
    preset, note = matching_preset(device["name"])
    print(f"device: {device['name']} (cc {device['compute_capability']}, {device['sms']} SMs, "
          f"{device['clock_khz'] / 1000:.0f} MHz); preset: {preset or 'none'} ({note})", flush=True)
    simulated = device["name"].startswith("warpsim ")
    out = (a.out or ((WORK if simulated else REPO / "results" / "hardware") / slug(device["name"]))).resolve()
    # Manifests, raw results and output buffers of this run, named after its output folder
    # (captures are shared).
    run_dir = work / "runs" / slug(str(out))
    shutil.rmtree(run_dir, ignore_errors=True)
    for d in ("manifests", "raw", "outputs"):
        (run_dir / d).mkdir(parents=True)
    meta = {"lib": a.lib, "mode": a.mode, "repeat": a.repeat, "samples": a.samples,
            "corpus": str(Path(a.corpus).resolve().relative_to(REPO)) if Path(a.corpus).resolve().is_relative_to(REPO) else a.corpus}
    micro = corpus = launches = None
    if not a.no_micro:
        names = a.only.split(",") if a.only else list(microbench.BENCHES)
        unknown = [n for n in names if n not in microbench.BENCHES]
        if unknown:
            sys.exit(f"hardware.py: no microbenchmark {', '.join(unknown)} (have: {', '.join(microbench.BENCHES)})")
        micro = measure_microbench(exe, env, device, names, a.repeat, run_dir)
    if not a.no_corpus:
        launches = corpus_launches(a.corpus, a.samples, a.warpsim, work)
        corpus = measure_corpus(exe, env, device, launches, a.repeat, run_dir)
    can_compare = preset is not None and Path(a.warpsim).exists() and not a.no_compare
    if can_compare:
        if micro:
            compare_microbench(micro, preset, a.warpsim)
        if corpus:
            compare_corpus(corpus, launches, preset, a.warpsim, work)
    elif preset is not None and not a.no_compare:
        print(f"hardware.py: no warpsim binary at {a.warpsim}: run --compare-only {out} where there is one",
              file=sys.stderr)
    write_outputs(out, device, preset, note, micro, corpus, meta)
    print(f"results: {out}")
    failed = [n for r in (micro or {}, corpus or {}) for n, v in r.items() if "failed" in v]
    if failed:
        print(f"hardware.py: failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
