//! Every `.ptx` file under `samples/` and `tests/fixtures/syntax/` parses without error.
//! (Parse speed is measured by `warpsim bench frontend`, not here.)

use std::path::{Path, PathBuf};

/// All `.ptx` files below `dir`, sorted so the output is deterministic.
fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses each file and reports every failure at once.
fn check_all(files: &[PathBuf]) {
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("fixture is readable UTF-8");
            frontend::parser::parse(&path.display().to_string(), &text)
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} file(s) failed to parse:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn samples_parse() {
    // Every committed sample and corpus file (48 when this was written): a missing or moved
    // directory must fail, not pass over nothing. (Parse speed is `warpsim bench frontend`.)
    let files = ptx_files(&manifest_dir().join("../samples"));
    assert!(
        files.len() >= 40,
        "sample PTX missing: {} files",
        files.len()
    );
    check_all(&files);
}

#[test]
fn syntax_fixtures_parse() {
    let files = ptx_files(&manifest_dir().join("tests/fixtures/syntax"));
    assert!(files.len() >= 6, "syntax fixtures missing: {files:?}");
    check_all(&files);
}
