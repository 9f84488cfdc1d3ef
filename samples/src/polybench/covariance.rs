//! Polybench-GPU covariance: the covariance matrix of m variables over n observations, in three
//! launches: `mean_kernel` (256 × 1 threads per block, one thread per column), `reduce_kernel`
//! (32 × 8, one thread per element: centre) and `covar_kernel` (256 × 1, one thread per column
//! j1 filling row j1 of the upper triangle, diagonal included, and its mirror). The arrays are
//! (n+1) × (m+1) with 1-based indices, as in the suite.
//!
//! Input is Polybench-GPU's formula data[i][j] = i·j/m. Validation is bit-exact on mean, the
//! centred data and symmat: the mean is an `add.f32` sum then `div.rn.f32` by the suite's
//! float_n, the products are `fma.rn.f32` chains in ascending i (see `covariance.ptx`), all of
//! which the reference repeats.

use super::common::{self, BLOCK_1D, BLOCK_2D, grid_1d, grid_2d, int};
use super::correlation::{column_products, dims, means};
use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::Device;

/// Polybench-GPU covariance as a registered sample (its sizes are correlation's: the same
/// Polybench datasets).
pub struct Covariance;

impl Sample for Covariance {
    fn name(&self) -> &'static str {
        "polybench/covariance"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["mean_kernel", "reduce_kernel", "covar_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let (m, n) = dims(size);
        format!("{m} variables × {n} observations")
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let (m, n) = dims(size);
        let w = m + 1;
        let data = common::matrix(n + 1, w, |i, j| i * j / m as f32);

        let mut session = Session::new(dev);
        let module = session.load("polybench/covariance/covariance.ptx")?;
        let k_mean = module.kernel("mean_kernel")?;
        let k_reduce = module.kernel("reduce_kernel")?;
        let k_covar = module.kernel("covar_kernel")?;
        let d_data = common::upload(dev, &data)?;
        let d_mean = common::zeros(dev, w)?;
        let d_symmat = common::zeros(dev, w * w)?;
        let (mm, nn) = (int(m), int(n));
        session.launch(
            &k_mean,
            grid_1d(m),
            BLOCK_1D,
            0,
            &[(&d_mean).into(), (&d_data).into(), mm.clone(), nn.clone()],
        )?;
        session.launch(
            &k_reduce,
            grid_2d(m, n),
            BLOCK_2D,
            0,
            &[(&d_mean).into(), (&d_data).into(), mm.clone(), nn.clone()],
        )?;
        session.launch(
            &k_covar,
            grid_1d(m),
            BLOCK_1D,
            0,
            &[(&d_symmat).into(), (&d_data).into(), mm, nn],
        )?;
        let got = common::concat(&[&d_mean.to_host()?, &d_data.to_host()?, &d_symmat.to_host()?]);

        let mean = means(&data, m, n);
        let mut centred = data.clone();
        for i in 1..=n {
            for j in 1..=m {
                centred[i * w + j] -= mean[j];
            }
        }
        let symmat = column_products(&centred, m, n, 1..m + 1, true);
        let expected = common::concat(&[&mean, &centred, &symmat]);
        Ok(session.finish(Validation::exact_f32(&got, &expected)))
    }
}
