//! Every committed PTX file under `samples/` (NVRTC output for SAXPY, the instruction corpus,
//! every suite's ports, and the PTX sets of `samples/ptx-sets`: NVRTC 13's for compute_90 and
//! compute_120) lowers without a diagnostic, passes the IR verifier, and gets a
//! register allocation that respects liveness, from the interference-graph colouring (its
//! graph is within `regalloc::edge_budget`, so the linear-scan fallback never decides a
//! committed kernel's registers).

use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("samples directory")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            ptx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

#[test]
fn every_sample_ptx_lowers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    assert!(
        files.len() >= 20,
        "expected the corpus under {}",
        root.display()
    );
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable PTX");
        match frontend::compile(&path.display().to_string(), &text) {
            Err(e) => failures.push(e.to_string()),
            Ok(module) => {
                let violations = isa::verify::verify_module(&module);
                if !violations.is_empty() {
                    failures.push(format!("{}: {violations:?}", path.display()));
                }
                for f in module.functions.iter().filter(|f| !f.is_declaration()) {
                    let a = isa::analysis::FunctionAnalysis::compute(f);
                    let errors = isa::regalloc::validate(f, &a.liveness, &a.alloc);
                    if !errors.is_empty() {
                        failures.push(format!(
                            "{} `{}`: allocation errors {errors:?}",
                            path.display(),
                            f.name
                        ));
                    }
                    let edges = isa::regalloc::Interference::edge_bound(f, &a.liveness);
                    if edges > isa::regalloc::edge_budget(f) {
                        failures.push(format!(
                            "{} `{}`: {edges} interference edges, beyond the graph allocator's \
                             budget of {}",
                            path.display(),
                            f.name,
                            isa::regalloc::edge_budget(f)
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
