//! Every `.ptx` file under `samples/` and `tests/fixtures/syntax/` parses without error.
//!
//! Also prints a rough parse throughput (MB/s) over the largest file; it is informational only
//! (never asserted). For a meaningful number run it optimised:
//! `cargo test --release -p frontend --test parse_corpus -- --nocapture`.

use std::path::{Path, PathBuf};
use std::time::Instant;

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
    // The corpus may still be empty while it is being committed; the fixtures below cover the
    // same ground, so an empty directory is not an error.
    check_all(&ptx_files(&manifest_dir().join("../samples")));
}

#[test]
fn syntax_fixtures_parse() {
    let files = ptx_files(&manifest_dir().join("tests/fixtures/syntax"));
    assert!(files.len() >= 6, "syntax fixtures missing: {files:?}");
    check_all(&files);
}

#[test]
fn throughput() {
    let mut files = ptx_files(&manifest_dir().join("../samples"));
    files.extend(ptx_files(&manifest_dir().join("tests/fixtures/syntax")));
    let Some(largest) = files
        .iter()
        .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
    else {
        return;
    };
    let text = std::fs::read_to_string(largest).expect("readable");
    // Enough repetitions for a stable number, few enough for an unoptimised test build; the best
    // of several rounds filters out noise from other processes.
    let reps = (4 << 20) / text.len().max(1);
    let mut rates = Vec::new();
    let mut items = 0;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..reps {
            items += frontend::parser::parse("bench.ptx", &text).map_or(0, |m| m.items.len());
        }
        rates.push((text.len() * reps) as f64 / 1e6 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "parse throughput on {} ({} bytes x {reps}, 5 rounds): best {:.1} MB/s, median {:.1} MB/s \
         ({items} items)",
        largest.display(),
        text.len(),
        rates[4],
        rates[2],
    );
}
