//! warpsim's workloads: host drivers with deterministic inputs and CPU references, run through
//! the runtime and validated. The `warpsim` binary (`main.rs`) is the command line over them.

pub mod contraction;
pub mod dnn;
pub mod fuzzing;
pub mod inputs;
pub mod parboil;
pub mod polybench;
pub mod ptx_set;
pub mod registry;
pub mod rodinia;
pub mod sample;
pub mod saxpy;
pub mod sdk;

use std::path::{Path, PathBuf};

/// Where the committed samples live: `WARPSIM_SAMPLES` if set, else this crate's directory.
pub fn samples_dir() -> PathBuf {
    std::env::var_os("WARPSIM_SAMPLES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf(),
        PathBuf::from,
    )
}

/// Comparison of a result with its CPU reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    pub checked: usize,
    pub mismatches: usize,
    /// First mismatching index with (got, expected), as text.
    pub first_mismatch: Option<(usize, String, String)>,
    /// Largest absolute difference seen (0 when bit-exact).
    pub max_abs_diff: f64,
}

impl Validation {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    /// Exact comparison of values with `==` (integers, or anything compared exactly).
    pub fn exact<T: PartialEq + std::fmt::Debug>(got: &[T], expected: &[T]) -> Validation {
        let mut v = Validation {
            checked: expected.len(),
            mismatches: expected.len().abs_diff(got.len()),
            first_mismatch: None,
            max_abs_diff: 0.0,
        };
        for (i, (g, e)) in got.iter().zip(expected).enumerate() {
            if g != e {
                v.mismatches += 1;
                v.first_mismatch
                    .get_or_insert((i, format!("{g:?}"), format!("{e:?}")));
            }
        }
        v
    }

    /// Comparison within a tolerance: passes where |got − expected| ≤ abs + rel·|expected|
    /// (NaN matches only NaN). Each use documents why its tolerance is what it is.
    pub fn close(got: &[f64], expected: &[f64], rel: f64, abs: f64) -> Validation {
        let mut v = Validation {
            checked: expected.len(),
            mismatches: expected.len().abs_diff(got.len()),
            first_mismatch: None,
            max_abs_diff: 0.0,
        };
        for (i, (g, e)) in got.iter().zip(expected).enumerate() {
            let diff = (g - e).abs();
            let ok = if e.is_nan() || g.is_nan() {
                e.is_nan() && g.is_nan()
            } else {
                diff <= abs + rel * e.abs()
            };
            if !(e.is_nan() || g.is_nan()) {
                v.max_abs_diff = v.max_abs_diff.max(diff);
            }
            if !ok {
                v.mismatches += 1;
                v.first_mismatch
                    .get_or_insert((i, format!("{g:e}"), format!("{e:e}")));
            }
        }
        v
    }

    /// [`Validation::close`] for f32 data.
    pub fn close_f32(got: &[f32], expected: &[f32], rel: f64, abs: f64) -> Validation {
        let widen = |v: &[f32]| v.iter().map(|x| f64::from(*x)).collect::<Vec<_>>();
        Validation::close(&widen(got), &widen(expected), rel, abs)
    }

    /// Bit-exact comparison of f32 results.
    pub fn exact_f32(got: &[f32], expected: &[f32]) -> Validation {
        let mut v = Validation {
            checked: expected.len(),
            mismatches: 0,
            first_mismatch: None,
            max_abs_diff: 0.0,
        };
        if got.len() != expected.len() {
            v.mismatches = expected.len().abs_diff(got.len());
        }
        for (i, (g, e)) in got.iter().zip(expected).enumerate() {
            if g.to_bits() != e.to_bits() {
                v.mismatches += 1;
                v.max_abs_diff = v.max_abs_diff.max(f64::from((g - e).abs()));
                v.first_mismatch
                    .get_or_insert((i, format!("{g:e}"), format!("{e:e}")));
            }
        }
        v
    }
}

impl std::fmt::Display for Validation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.passed() && self.max_abs_diff == 0.0 {
            write!(f, "{} values match the CPU reference exactly", self.checked)
        } else if self.passed() {
            let (n, d) = (self.checked, self.max_abs_diff);
            write!(
                f,
                "{n} values within tolerance of the CPU reference (max |diff| {d:e})"
            )
        } else {
            write!(
                f,
                "{} of {} values differ (max |diff| {:e})",
                self.mismatches, self.checked, self.max_abs_diff
            )?;
            if let Some((i, g, e)) = &self.first_mismatch {
                write!(f, "; first at [{i}]: got {g}, expected {e}")?;
            }
            Ok(())
        }
    }
}
