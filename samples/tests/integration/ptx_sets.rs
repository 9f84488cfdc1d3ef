//! The PTX sets of samples/ptx-sets: NVRTC 13's output for compute_90 and compute_120 of every
//! sample's CUDA C. Each set is complete (every source's PTX, or the reason it is not
//! applicable) and of its architecture; every sample validates from each set at the small size
//! under the JIT, and a few under the timing model with the instruction counts of their
//! functional runs; a missing set, a missing file or a file not applicable is an error naming
//! it, on the command line too. hotspot3D's and lbm's bit-exact references follow the `fma`
//! contraction of the PTX run, read from its kernel (NVRTC 13 for compute_120 fuses products
//! that NVRTC 12.9 does not), and a contraction they do not know is an error.

use crate::common::TempDir;
use runtime::{Device, DeviceConfig};
use std::path::{Path, PathBuf};
use std::process::Command;
use warpsim::parboil::lbm::{self, Relaxation};
use warpsim::ptx_set::{self, PtxSet};
use warpsim::registry;
use warpsim::rodinia::hotspot3d::{self, AboveTerm};
use warpsim::sample::{Sample, Size};

/// The committed sets: name, NVRTC major version, architecture.
const SETS: [(&str, &str, &str); 2] = [
    ("cuda13-sm_90", "13", "compute_90"),
    ("cuda13-sm_120", "13", "compute_120"),
];

/// Samples run under the timing model from each set: the simplest, a shared-memory stencil
/// (whose sm_120 PTX sets a predicate with `mov.pred %p, -1`), a data-dependent graph
/// traversal, a tree reduction in shared memory, a matrix product.
const TIMED: [&str; 5] = [
    "saxpy",
    "rodinia/hotspot",
    "rodinia/bfs",
    "sdk/reduction",
    "polybench/gemm",
];

/// Every `.cu` under the samples directory, as paths relative to it.
fn sources() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "cu") {
                let rel = path.strip_prefix(root).unwrap();
                out.push(rel.to_str().unwrap().replace('\\', "/"));
            }
        }
    }
    let root = warpsim::samples_dir();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// Every `.ptx` below `dir`.
fn ptx_below(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            ptx_below(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

#[test]
fn each_set_holds_every_source_compiled_by_its_nvrtc_for_its_architecture() {
    let sources = sources();
    assert!(sources.len() > 90, "{} sources", sources.len());
    let mut named: Vec<String> = SETS.iter().map(|s| s.0.to_string()).collect();
    named.sort();
    assert_eq!(ptx_set::available(), named);
    for (name, major, arch) in SETS {
        let set = PtxSet::open(name).unwrap();
        let m = set.manifest().expect("a named set has a manifest");
        assert!(m.nvrtc.starts_with(&format!("{major}.")), "{name}: {m:?}");
        assert_eq!(m.arch, arch, "{name}");
        assert!(m.command.contains(&format!("--ptx-set {name} ")), "{m:?}");
        // Every source's PTX is there or not applicable, with a reason; never both.
        for cu in &sources {
            let ptx = cu.replace(".cu", ".ptx");
            let present = set.root().join(&ptx).is_file();
            let reason = m.not_applicable.get(&ptx);
            assert!(present != reason.is_some(), "{name}: {ptx}: {reason:?}");
            assert!(reason.is_none_or(|r| !r.is_empty()), "{name}: {ptx}");
        }
        // Nothing else, and every file from that NVRTC for that architecture.
        let mut files = Vec::new();
        ptx_below(set.root(), &mut files);
        assert_eq!(files.len() + m.not_applicable.len(), sources.len());
        let target = format!(".target sm_{}", arch.trim_start_matches("compute_"));
        let release = format!("Cuda compilation tools, release {}", m.nvrtc);
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            assert!(text.contains(&target), "{}: not {target}", file.display());
            assert!(text.contains(&release), "{}: not {release}", file.display());
        }
    }
}

/// Runs every sample at the small size from `set` under the JIT; the failures, one line each.
fn failures_from(set: &PtxSet) -> Vec<String> {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let mut failures = Vec::new();
    for s in registry::all() {
        match s.run_from(&dev, Size::Small, set) {
            Ok(o) if o.validation.passed() => assert!(o.launches > 0, "{}", s.name()),
            Ok(o) => failures.push(format!("{}: FAIL: {}", s.name(), o.validation)),
            Err(e) => failures.push(format!("{}: ERROR: {e}", s.name())),
        }
    }
    failures
}

#[test]
fn every_sample_validates_from_cuda13_sm_90() {
    let failures = failures_from(&PtxSet::open("cuda13-sm_90").unwrap());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_sample_validates_from_cuda13_sm_120() {
    let failures = failures_from(&PtxSet::open("cuda13-sm_120").unwrap());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs `s` at the small size from `set` on `dev`; it must validate. Its warp instructions.
fn validated_warp_insts(dev: &Device, s: &dyn Sample, set: &PtxSet) -> Result<u64, String> {
    let o = s
        .run_from(dev, Size::Small, set)
        .map_err(|e| format!("{}: ERROR: {e}", s.name()))?;
    if !o.validation.passed() {
        return Err(format!("{}: FAIL: {}", s.name(), o.validation));
    }
    Ok(o.stats.warp_insts)
}

#[test]
fn samples_from_each_set_validate_under_the_timing_model() {
    let mut failures = Vec::new();
    for (name, _, _) in SETS {
        let set = PtxSet::open(name).unwrap();
        for sample in TIMED {
            let s = registry::find(sample).unwrap();
            let functional = Device::new(DeviceConfig::default()).unwrap();
            let timed = Device::new(DeviceConfig {
                // The newest preset: Hopper, sm_90's own (there is none for sm_120).
                timing: Some(timing::GpuConfig::preset("h100")),
                ..DeviceConfig::default()
            })
            .unwrap();
            match (
                validated_warp_insts(&functional, s, &set),
                validated_warp_insts(&timed, s, &set),
            ) {
                (Ok(f), Ok(t)) => {
                    let report = timed.take_timing().expect("a timing report");
                    assert_eq!(f, t, "{name} {sample}: warp instructions");
                    assert_eq!(report.total.warp_insts, t, "{name} {sample}");
                    assert!(report.total.gpu_sim_cycle > 0, "{name} {sample}");
                }
                (Err(e), _) | (_, Err(e)) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_set_in_force_is_the_one_read_and_its_gaps_are_named() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let saxpy = registry::find("saxpy").unwrap();
    // A copy of cuda13-sm_90 without SAXPY's file: the run must fail naming it (had it read
    // the committed PTX, it would pass), then pass again once the file is back.
    let dir = TempDir::new("ptx-set-gap");
    let root = PathBuf::from(dir.path("set"));
    let original = PtxSet::open("cuda13-sm_90").unwrap();
    std::fs::create_dir_all(root.join("saxpy")).unwrap();
    std::fs::copy(
        original.root().join(ptx_set::MANIFEST),
        root.join(ptx_set::MANIFEST),
    )
    .unwrap();
    let copy = PtxSet::open(root.to_str().unwrap()).unwrap();
    let err = saxpy
        .run_from(&dev, Size::Small, &copy)
        .err()
        .expect("no saxpy.ptx in the copy")
        .to_string();
    assert!(err.contains("has no saxpy/saxpy.ptx"), "{err}");
    assert!(
        err.contains("--ptx-set cuda13-sm_90 --nvrtc 13 --arch compute_90"),
        "the manifest's command: {err}"
    );
    std::fs::copy(
        original.root().join("saxpy/saxpy.ptx"),
        root.join("saxpy/saxpy.ptx"),
    )
    .unwrap();
    let o = saxpy.run_from(&dev, Size::Small, &copy).unwrap();
    assert!(o.validation.passed(), "{}", o.validation);
    // Outside `run_from` the committed PTX is read again.
    assert!(saxpy.run(&dev, Size::Small).unwrap().validation.passed());
    // A texture-reference variant is not applicable to NVRTC 13: the manifest's reason.
    let kmeans = registry::find("rodinia/kmeans-textures").unwrap();
    let err = kmeans
        .run_from(&dev, Size::Small, &original)
        .err()
        .expect("kmeans_tex.ptx is not in the set")
        .to_string();
    assert!(
        err.contains("has no rodinia/kmeans/kmeans_tex.ptx: not applicable: needs NVRTC 11"),
        "{err}"
    );
    // Names that are no set.
    let err = PtxSet::open("cuda99-sm_1").unwrap_err();
    assert!(
        err.contains("no PTX set named `cuda99-sm_1`") && err.contains("`cuda13-sm_90`"),
        "{err}"
    );
    let err = PtxSet::open("./no/such/set").unwrap_err();
    assert!(err.contains("./no/such/set does not exist"), "{err}");
}

/// The contraction hotspot3D's and lbm's references follow, read from each set's kernel: NVRTC
/// 12.9 (committed) and NVRTC 13 for compute_90 leave `ct * above` separate outside the unrolled
/// loop body and the directional relaxations unfused; NVRTC 13 for compute_120 fuses both.
const CONTRACTIONS: [(&str, AboveTerm, Relaxation); 3] = [
    (
        ptx_set::COMMITTED,
        AboveTerm::FusedInUnrolledBody,
        Relaxation::Separate,
    ),
    (
        "cuda13-sm_90",
        AboveTerm::FusedInUnrolledBody,
        Relaxation::Separate,
    ),
    ("cuda13-sm_120", AboveTerm::Fused, Relaxation::Fused),
];

#[test]
fn the_references_follow_the_contraction_of_the_ptx_run() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let kernel = |set: &PtxSet, file: &str, name: &str| {
        let module = dev.load_ptx_file(&set.path(file).unwrap()).unwrap();
        module.kernel(name).unwrap()
    };
    for (name, above, relax) in CONTRACTIONS {
        let set = PtxSet::open(name).unwrap();
        let k = kernel(&set, "rodinia/hotspot3D/hotspot3D.ptx", "hotspotOpt1");
        assert_eq!(AboveTerm::of(k.function()), Ok(above), "{name}");
        let k = kernel(&set, "parboil/lbm/lbm.ptx", "performStreamCollide_kernel");
        assert_eq!(Relaxation::of(k.function()), Ok(relax), "{name}");
    }
    // The two forms differ at the small size, so the choice matters: the exact validation
    // fails a result of the other form (as it did from cuda13-sm_120 before the references
    // followed the PTX: 1 of 8192 values 1 ulp off, and 8299 of 124800).
    let p = hotspot3d::Problem::of(Size::Small);
    let (power, temp) = hotspot3d::inputs(&p);
    let k = hotspot3d::Coefficients::new(p.ny, p.nx, p.layers);
    let split = hotspot3d::reference(&power, &temp, &p, &k, AboveTerm::FusedInUnrolledBody);
    let fused = hotspot3d::reference(&power, &temp, &p, &k, AboveTerm::Fused);
    assert!(!warpsim::Validation::exact_f32(&fused, &split).passed());
    let p = lbm::Problem::of(Size::Small);
    let l = lbm::Layout::new(p.size);
    let grid = lbm::initial_grid(&l, &lbm::obstacles(p.size));
    let step = |relax| {
        let mut next = grid.clone();
        lbm::step(&l, &grid, &mut next, relax);
        next
    };
    let separate = step(Relaxation::Separate);
    assert!(!warpsim::Validation::exact_f32(&step(Relaxation::Fused), &separate).passed());
}

#[test]
fn a_contraction_the_references_do_not_know_is_an_error() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    // cuda13-sm_120's lbm with one of its 18 fused relaxations (tempN's) unfused: 17 fused and
    // one separate is neither form, and the run says so instead of validating against either.
    let dir = TempDir::new("ptx-set-contraction");
    let root = PathBuf::from(dir.path("set"));
    std::fs::create_dir_all(root.join("parboil/lbm")).unwrap();
    let sm_120 = PtxSet::open("cuda13-sm_120").unwrap();
    let text = std::fs::read_to_string(sm_120.path("parboil/lbm/lbm.ptx").unwrap()).unwrap();
    let fused = "fma.rn.f32 \t%r7, %r81, %r85, %r82;";
    assert_eq!(
        text.matches(fused).count(),
        1,
        "tempN's relaxation in lbm.ptx"
    );
    let text = text.replace(
        fused,
        "mul.f32 \t%r85, %r81, %r85;\n\tadd.f32 \t%r7, %r85, %r82;",
    );
    std::fs::write(root.join("parboil/lbm/lbm.ptx"), text).unwrap();
    let set = PtxSet::open(root.to_str().unwrap()).unwrap();
    let err = registry::find("parboil/lbm")
        .unwrap()
        .run_from(&dev, Size::Small, &set)
        .err()
        .expect("a mixed contraction")
        .to_string();
    assert!(
        err.contains("cannot follow this PTX's contraction")
            && err.contains("17 are the addend of an `fma.rn.f32` and 1 are added separately"),
        "{err}"
    );
    // A hotspotOpt1 that never fuses a product by `ct` (parameter 11).
    let params: Vec<String> = (0..14)
        .map(|i| format!(".param .f32 hotspotOpt1_param_{i}"))
        .collect();
    let ptx = format!(
        ".version 8.0\n.target sm_70\n.address_size 64\n.visible .entry hotspotOpt1({})\n{{\n\
         \t.reg .f32 %f<4>;\n\tld.param.f32 %f1, [hotspotOpt1_param_11];\n\
         \tld.param.f32 %f2, [hotspotOpt1_param_12];\n\tmul.f32 %f3, %f2, %f1;\n\
         \tadd.f32 %f3, %f3, %f2;\n\tret;\n}}\n",
        params.join(", ")
    );
    let module = dev.load_ptx("separate.ptx", &ptx).unwrap();
    let err = AboveTerm::of(module.kernel("hotspotOpt1").unwrap().function()).unwrap_err();
    assert!(
        err.contains("has no `fma.rn.f32` by `ct` (parameter 11) and 1 `mul.f32`"),
        "{err}"
    );
}

fn warpsim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_runs_from_a_set_and_refuses_what_cannot_apply() {
    let dir = TempDir::new("ptx-set-cli");
    let json = dir.path("stats.json");
    let (ok, out, err) = warpsim(&[
        "run",
        "saxpy",
        "--size",
        "small",
        "--functional",
        "--ptx-set",
        "cuda13-sm_120",
        "--stats-json",
        &json,
    ]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("PTX from PTX set `cuda13-sm_120` (NVRTC 13.") && out.contains("PASS"),
        "{out}"
    );
    // The statistics say where the PTX came from.
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(stats[0]["ptx_set"], "cuda13-sm_120", "{stats}");
    let (ok, _, err) = warpsim(&["run", "saxpy", "--functional", "--ptx-set", "sm_90"]);
    assert!(!ok && err.contains("no PTX set named `sm_90`"), "{err}");
    // ptxas's counts are the committed PTX's.
    let (ok, _, err) = warpsim(&[
        "run",
        "saxpy",
        "--size",
        "small",
        "--regs",
        "ptxas",
        "--ptx-set",
        "cuda13-sm_90",
    ]);
    assert!(!ok && err.contains("--regs ptxas takes"), "{err}");
}
