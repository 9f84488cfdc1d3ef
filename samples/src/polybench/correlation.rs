//! Polybench-GPU correlation: the correlation matrix of m variables over n observations, in
//! four launches: `mean_kernel` and `std_kernel` (256 × 1 threads per block, one thread per
//! column), `reduce_kernel` (32 × 8, one thread per element: centre and scale) and
//! `corr_kernel` (256 × 1, one thread per column j1 filling row j1 of the upper triangle and
//! its mirror). The arrays are (n+1) × (m+1) with 1-based indices, as in the suite, and the
//! host sets symmat[m][m] = 1 afterwards, as the suite does.
//!
//! Input is Polybench-GPU's formula data[i][j] = i·j/(m+1). Validation is bit-exact on mean,
//! stddev, the reduced data and symmat: sums are `add.f32` (mean) or `fma.rn.f32` chains in
//! ascending i, `/` is `div.rn.f32`, `sqrtf` is `sqrt.rn.f32` and `sqrtf(FLOAT_N)` is folded
//! to its correctly rounded value (see `correlation.ptx`), all of which the reference repeats.

use super::common::{self, BLOCK_1D, BLOCK_2D, grid_1d, grid_2d, int};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// The suite's divisor (deliberately not n) and its standard-deviation floor.
pub const FLOAT_N: f32 = 3214212.01;
const EPS: f32 = 0.005;

/// (m, n) per size: small 20 variables × 24 observations (below Polybench's MINI 28 × 32, to
/// keep the serial per-column loops short under the timing model); default Polybench's MEDIUM
/// dataset (240, 260), since Polybench-GPU's own 2048 × 2048 (≈ 30 G thread instructions) and
/// Polybench's LARGE (1200, 1400, ≈ 8 G) exceed the default budget; large 800 × 900 (≈ 2.3 G).
pub fn dims(size: Size) -> (usize, usize) {
    match size {
        Size::Small => (20, 24),
        Size::Default => (240, 260),
        Size::Large => (800, 900),
    }
}

/// The column means of 1-based (n+1) × (m+1) `data`: a plain sum over i = 1..n, then
/// `/ FLOAT_N` (index 0 stays 0).
pub fn means(data: &[f32], m: usize, n: usize) -> Vec<f32> {
    let w = m + 1;
    let mut mean = vec![0.0f32; w];
    for (j, mj) in mean.iter_mut().enumerate().skip(1) {
        let sum = (1..=n).fold(0.0f32, |acc, i| acc + data[i * w + j]);
        *mj = sum / FLOAT_N;
    }
    mean
}

/// The symmetric matrix of column dot products of 1-based `data`, (m+1) × (m+1), as
/// `corr_kernel` and `covar_kernel` compute it: for each j1 in `j1_range`, element (j1, j2) for
/// j2 from j1 (`diagonal`) or j1 + 1 up to m is an `fma` chain over i = 1..n, mirrored to
/// (j2, j1). Everything else stays 0.
pub fn column_products(
    data: &[f32],
    m: usize,
    n: usize,
    j1_range: std::ops::Range<usize>,
    diagonal: bool,
) -> Vec<f32> {
    let w = m + 1;
    // Columns as contiguous rows (observations 1..=n), so the dot products stream.
    let columns = common::transpose(data, n + 1, w);
    let column = |j: usize| &columns[j * (n + 1) + 1..(j + 1) * (n + 1)];
    let mut symmat = vec![0.0f32; w * w];
    for j1 in j1_range {
        let first = if diagonal { j1 } else { j1 + 1 };
        for j2 in first..=m {
            let s = column(j1)
                .iter()
                .zip(column(j2))
                .fold(0.0f32, |acc, (x, y)| x.mul_add(*y, acc));
            symmat[j1 * w + j2] = s;
            symmat[j2 * w + j1] = s;
        }
    }
    symmat
}

/// Polybench-GPU correlation as a registered sample.
pub struct Correlation;

impl Sample for Correlation {
    fn name(&self) -> &'static str {
        "polybench/correlation"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mean_kernel", "std_kernel", "reduce_kernel", "corr_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (m, n) = dims(size);
        format!("{m} variables × {n} observations")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (m, n) = dims(size);
        let w = m + 1;
        let data = common::matrix(n + 1, w, |i, j| i * j / w as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/correlation/correlation.ptx")?;
        let kernel = |name| module.kernel(name);
        let (k_mean, k_std) = (kernel("mean_kernel")?, kernel("std_kernel")?);
        let (k_reduce, k_corr) = (kernel("reduce_kernel")?, kernel("corr_kernel")?);
        let d_data = common::upload(dev, &data)?;
        let (d_mean, d_std) = (common::zeros(dev, w)?, common::zeros(dev, w)?);
        let d_symmat = common::zeros(dev, w * w)?;
        let (mm, nn) = (int(m), int(n));
        let column_grid = grid_1d(m);
        session.launch(
            &k_mean,
            column_grid,
            BLOCK_1D,
            0,
            &[(&d_mean).into(), (&d_data).into(), mm.clone(), nn.clone()],
        )?;
        session.launch(
            &k_std,
            column_grid,
            BLOCK_1D,
            0,
            &[
                (&d_mean).into(),
                (&d_std).into(),
                (&d_data).into(),
                mm.clone(),
                nn.clone(),
            ],
        )?;
        session.launch(
            &k_reduce,
            grid_2d(m, n),
            BLOCK_2D,
            0,
            &[
                (&d_mean).into(),
                (&d_std).into(),
                (&d_data).into(),
                mm.clone(),
                nn.clone(),
            ],
        )?;
        session.launch(
            &k_corr,
            column_grid,
            BLOCK_1D,
            0,
            &[(&d_symmat).into(), (&d_data).into(), mm, nn],
        )?;
        let mut symmat = d_symmat.to_host()?;
        symmat[m * w + m] = 1.0;
        let got = common::concat(&[
            &d_mean.to_host()?,
            &d_std.to_host()?,
            &d_data.to_host()?,
            &symmat,
        ]);

        let mean = means(&data, m, n);
        let mut stddev = vec![0.0f32; w];
        for j in 1..=m {
            let ss = (1..=n).fold(0.0f32, |acc, i| {
                let d = data[i * w + j] - mean[j];
                d.mul_add(d, acc)
            });
            let s = (ss / FLOAT_N).sqrt();
            // The kernel's `<= EPS` test compiles to `!(s > EPS)`.
            stddev[j] = if s > EPS { s } else { 1.0 };
        }
        let mut reduced = data.clone();
        let sqrt_n = FLOAT_N.sqrt();
        for i in 1..=n {
            for j in 1..=m {
                let centred = reduced[i * w + j] - mean[j];
                reduced[i * w + j] = centred / (sqrt_n * stddev[j]);
            }
        }
        let mut expected_symmat = column_products(&reduced, m, n, 1..m, false);
        for j in 1..m {
            expected_symmat[j * w + j] = 1.0;
        }
        expected_symmat[m * w + m] = 1.0;
        let expected = common::concat(&[&mean, &stddev, &reduced, &expected_symmat]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
