//! The fuzz targets' stable counterpart (CI has no nightly toolchain): both harnesses of
//! `warpsim::fuzzing` over every committed seed (`fuzz/corpus/<target>/`), every committed
//! crash reproducer (`fuzz/regressions/<target>/`, each a bug that was fixed) and a fixed
//! number of deterministic mutations of each seed. A harness panics exactly on a bug.

use std::path::{Path, PathBuf};

/// Mutated inputs per seed file, per target.
const PARSE_MUTATIONS: usize = 300;
const RUN_MUTATIONS: usize = 24;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted by name (an absent directory has none).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("readable file"))
        })
        .collect();
    out.sort();
    out
}

/// The seed corpus of `target`; an empty or missing one fails the test.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz_dir().join("corpus").join(target);
    let seeds = files(&dir);
    assert!(!seeds.is_empty(), "no seed files in {}", dir.display());
    seeds
}

/// SplitMix64: a small deterministic generator (the same mutations on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to PTX's syntax, for replacements and insertions.
const PUNCT: &[u8] = b"%.,;{}[]()<>+-|!@_0123456789x \n\"";

/// Whitespace-separated tokens of `data`, as (start, end) byte ranges.
fn tokens(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in data.iter().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, data.len()));
    }
    out
}

/// Lines of `data`, as (start, end) byte ranges, each with its newline.
fn lines(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in data.iter().enumerate() {
        if *b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push((start, data.len()));
    }
    out
}

/// One to three edits of `data`. Byte edits (a bit flip, a deleted range, a syntax byte, a
/// digit changed) mostly test the front end's errors; token edits (duplicated, dropped,
/// swapped, or spliced in from `other`, another seed) and line edits (an instruction deleted,
/// duplicated, swapped with another, or taken from `other`) keep more inputs loadable, so that
/// mutated kernels run.
fn mutate(data: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = data.to_vec();
    for _ in 0..1 + rng.below(3) {
        let n = out.len();
        let toks = tokens(&out);
        let rows = lines(&out);
        match rng.below(12) {
            0 if n > 0 => {
                let i = rng.below(n);
                out[i] ^= 1 << rng.below(8);
            }
            1 if n > 0 => {
                let i = rng.below(n);
                let len = (1 + rng.below(16)).min(n - i);
                out.drain(i..i + len);
            }
            2 => {
                let i = rng.below(n + 1);
                out.insert(i, PUNCT[rng.below(PUNCT.len())]);
            }
            3 => {
                let digits: Vec<usize> = (0..n).filter(|&i| out[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    out[digits[rng.below(digits.len())]] = b'0' + rng.below(10) as u8;
                }
            }
            4 if !toks.is_empty() => {
                let (s, e) = toks[rng.below(toks.len())];
                let tok = out[s..e].to_vec();
                let at = toks[rng.below(toks.len())].0;
                out.splice(at..at, tok.into_iter().chain([b' ']));
            }
            5 if !toks.is_empty() => {
                let (s, e) = toks[rng.below(toks.len())];
                out.drain(s..e);
            }
            6 if toks.len() > 1 => swap(
                &mut out,
                toks[rng.below(toks.len())],
                toks[rng.below(toks.len())],
            ),
            7 => {
                let other_toks = tokens(other);
                if !other_toks.is_empty() && !toks.is_empty() {
                    let (s, e) = other_toks[rng.below(other_toks.len())];
                    let at = toks[rng.below(toks.len())].0;
                    out.splice(at..at, other[s..e].iter().copied().chain([b' ']));
                }
            }
            8 if !rows.is_empty() => {
                let (s, e) = rows[rng.below(rows.len())];
                out.drain(s..e);
            }
            9 if !rows.is_empty() => {
                let (s, e) = rows[rng.below(rows.len())];
                let row = out[s..e].to_vec();
                let at = rows[rng.below(rows.len())].0;
                out.splice(at..at, row);
            }
            10 if rows.len() > 1 => swap(
                &mut out,
                rows[rng.below(rows.len())],
                rows[rng.below(rows.len())],
            ),
            _ => {
                let other_rows = lines(other);
                if !other_rows.is_empty() {
                    let (s, e) = other_rows[rng.below(other_rows.len())];
                    let at = rows.get(rng.below(rows.len())).map_or(0, |r| r.0);
                    out.splice(at..at, other[s..e].iter().copied());
                }
            }
        }
    }
    out
}

/// Lines of `data` that hold an instruction (indented, not a directive, ending in `;`).
fn instructions(data: &[u8]) -> Vec<(usize, usize)> {
    lines(data)
        .into_iter()
        .filter(|&(s, e)| {
            let line = data[s..e].trim_ascii();
            data[s].is_ascii_whitespace()
                && line.ends_with(b";")
                && !line.starts_with(b".")
                && !line.starts_with(b"//")
        })
        .collect()
}

/// One or two instruction-level edits of `data`, which keep most kernels loadable: an
/// instruction deleted, copied to another place (in its own or another function), swapped with
/// another, or one of its digits changed (a register number, a constant, an offset).
fn mutate_instructions(data: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = data.to_vec();
    for _ in 0..1 + rng.below(2) {
        let insts = instructions(&out);
        if insts.len() < 2 {
            break;
        }
        let (s, e) = insts[rng.below(insts.len())];
        match rng.below(4) {
            0 => {
                out.drain(s..e);
            }
            1 => {
                let inst = out[s..e].to_vec();
                let at = insts[rng.below(insts.len())].0;
                out.splice(at..at, inst);
            }
            2 => swap(&mut out, (s, e), insts[rng.below(insts.len())]),
            _ => {
                let digits: Vec<usize> = (s..e).filter(|&i| out[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    out[digits[rng.below(digits.len())]] = b'0' + rng.below(10) as u8;
                }
            }
        }
    }
    out
}

/// Swaps two disjoint byte ranges of `out` (overlapping ones are left alone).
fn swap(out: &mut Vec<u8>, a: (usize, usize), b: (usize, usize)) {
    let (first, second) = if a.0 < b.0 { (a, b) } else { (b, a) };
    if first.1 <= second.0 {
        let x = out[first.0..first.1].to_vec();
        let y = out[second.0..second.1].to_vec();
        out.splice(second.0..second.1, x);
        out.splice(first.0..first.1, y);
    }
}

/// Runs `harness` on every seed and reproducer of `target`, then on `mutations` mutations of
/// each seed ([`mutate`] and [`mutate_instructions`] in turn); a panic names the input (seed,
/// mutation number) and saves it to reproduce. Returns the number of inputs run.
fn run_target(target: &str, mutations: usize, harness: impl Fn(&[u8])) -> usize {
    let seeds = corpus(target);
    let regressions = files(&fuzz_dir().join("regressions").join(target));
    let mut count = 0;
    for (name, data) in seeds.iter().chain(&regressions) {
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness(data)));
        assert!(caught.is_ok(), "{target}: {name} panics");
        count += 1;
    }
    for (k, (name, data)) in seeds.iter().enumerate() {
        let mut rng = Rng(0x5eed ^ ((k as u64) << 32));
        for m in 0..mutations {
            // Alternately any edit and instruction edits (which keep most kernels loadable).
            let input = if m % 2 == 0 {
                mutate(data, &seeds[rng.below(seeds.len())].1, &mut rng)
            } else {
                mutate_instructions(data, &mut rng)
            };
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness(&input)));
            if caught.is_err() {
                let path = std::env::temp_dir().join(format!("{target}-{name}-mutation-{m}"));
                std::fs::write(&path, &input).expect("writing the failing input");
                panic!(
                    "{target}: mutation {m} of {name} panics; the input is in {}",
                    path.display()
                );
            }
            count += 1;
        }
    }
    count
}

#[test]
fn parse_lower_corpus_regressions_and_mutations() {
    let n = run_target(
        "parse_lower",
        PARSE_MUTATIONS,
        warpsim::fuzzing::parse_lower,
    );
    assert!(n > PARSE_MUTATIONS);
}

#[test]
fn run_ptx_corpus_regressions_and_mutations() {
    let n = run_target("run_ptx", RUN_MUTATIONS, |data| {
        let _ = warpsim::fuzzing::run_ptx(data);
    });
    assert!(n > RUN_MUTATIONS);
}

/// Every run_ptx seed loads and runs at least one launch to completion, so the seeds exercise
/// execution and not only the load errors.
#[test]
fn run_ptx_seeds_launch() {
    let mut idle = Vec::new();
    for (name, data) in corpus("run_ptx") {
        match warpsim::fuzzing::run_ptx(&data) {
            warpsim::fuzzing::Outcome::Load(e) => idle.push(format!("{name} does not load: {e}")),
            warpsim::fuzzing::Outcome::Launches(launches) => {
                if !launches.iter().any(|l| l.result.is_ok()) {
                    let first = launches
                        .first()
                        .map_or("no kernel".to_string(), |l| format!("{:?}", l.result));
                    idle.push(format!("no launch of {name} completes; the first: {first}"));
                }
            }
        }
    }
    assert!(idle.is_empty(), "{}", idle.join("\n"));
}

/// The outcome holds the buffers after the launch (so the engines are compared on memory,
/// not only on the launch results): SAXPY leaves `x` as uploaded and changes `y`.
#[test]
fn run_ptx_outcome_includes_buffers() {
    let saxpy = std::fs::read(fuzz_dir().join("corpus/run_ptx/saxpy.ptx")).expect("saxpy seed");
    let warpsim::fuzzing::Outcome::Launches(launches) = warpsim::fuzzing::run_ptx(&saxpy) else {
        panic!("saxpy does not load");
    };
    let saxpy_launch = &launches[0];
    assert!(saxpy_launch.result.is_ok(), "{saxpy_launch:#?}");
    let pattern = warpsim::fuzzing::buffer_pattern();
    assert_eq!(saxpy_launch.buffers.len(), 2);
    assert_eq!(saxpy_launch.buffers[0], pattern, "x is read only");
    assert_ne!(saxpy_launch.buffers[1], pattern, "y is written");
}
