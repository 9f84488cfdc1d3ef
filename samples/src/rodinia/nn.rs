//! Rodinia nn (nearest neighbour): one `euclid` launch computes the distance from every
//! hurricane record to a query point; the host then selects the k nearest (Rodinia's
//! `findLowest`, a partial selection sort) from the distances it copies back.
//!
//! NVRTC compiles `sqrtf(dlat*dlat + dlng*dlng)` to `mul.f32` + `fma.rn.f32` + `sqrt.rn.f32`;
//! the reference does the same with `f32::mul_add` and the correctly rounded `f32::sqrt`, so
//! the distances are compared bit-exactly, and the k nearest records (indices) exactly.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's DEFAULT_THREADS_PER_BLOCK.
pub const THREADS_PER_BLOCK: u32 = 256;
/// Query point and result count of Rodinia's run script (`-r 5 -lat 30 -lng 90`).
pub const QUERY_LAT: f32 = 30.0;
pub const QUERY_LNG: f32 = 90.0;
pub const RESULTS: usize = 5;

/// Records per size: small 4096; default 42 764 (Rodinia's `filelist_4`: four hurricane
/// files of 10 691 records); large 2^22.
pub fn records(size: Size) -> usize {
    match size {
        Size::Small => 4096,
        Size::Default => 42_764,
        Size::Large => 1 << 22,
    }
}

/// Seeded (latitude, longitude) pairs, interleaved as Rodinia's `LatLong` structs. Like the
/// hurricane database, coordinates have one decimal digit (parsed with `atof`, so rounded
/// through f64): latitude 7.0–69.9, longitude 0.0–358.9.
pub fn locations(n: usize) -> Vec<f32> {
    let mut rng = Rng::new(0x4E4E_0001);
    let mut out = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let lat = 70 + rng.next_u64() % 630;
        let lng = rng.next_u64() % 3590;
        out.push((lat as f64 / 10.0) as f32);
        out.push((lng as f64 / 10.0) as f32);
    }
    out
}

/// The CPU reference of `euclid`, with the kernel's contraction.
pub fn reference(locations: &[f32], lat: f32, lng: f32) -> Vec<f32> {
    locations
        .chunks_exact(2)
        .map(|p| {
            let (dlat, dlng) = (lat - p[0], lng - p[1]);
            dlat.mul_add(dlat, dlng * dlng).sqrt()
        })
        .collect()
}

/// Rodinia's `findLowest`: the indices of the `k` smallest distances, by partial selection
/// sort (swapping records and distances as it goes, so ties resolve as Rodinia's do).
pub fn find_lowest(distances: &[f32], k: usize) -> Vec<u32> {
    let mut d = distances.to_vec();
    let mut records: Vec<u32> = (0..d.len() as u32).collect();
    for i in 0..k.min(d.len()) {
        let mut min_loc = i;
        for j in i..d.len() {
            if d[j] < d[min_loc] {
                min_loc = j;
            }
        }
        records.swap(i, min_loc);
        d.swap(i, min_loc);
    }
    records.truncate(k.min(d.len()));
    records
}

/// Both comparisons together: passes only if each does.
fn both(a: Validation, b: Validation) -> Validation {
    Validation {
        checked: a.checked + b.checked,
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a.first_mismatch.or(b.first_mismatch),
        max_abs_diff: a.max_abs_diff.max(b.max_abs_diff),
    }
}

/// Rodinia nn as a registered sample.
pub struct Nn;

impl Sample for Nn {
    fn name(&self) -> &'static str {
        "rodinia/nn"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["euclid"]
    }

    fn size_description(&self, size: Size) -> String {
        format!(
            "{} records, query ({QUERY_LAT}, {QUERY_LNG}), {RESULTS} nearest",
            records(size)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = records(size);
        let mut session = Session::new(dev);
        let module = session.load("rodinia/nn/nn.ptx")?;
        let euclid = module.kernel("euclid")?;
        let locs = locations(n);
        let d_locations = dev.alloc_from(&locs)?;
        let d_distances = dev.alloc::<f32>(n)?;

        // Rodinia's scaling: a 2-D grid only when the blocks exceed the 1-D grid limit.
        let max_grid_x = u64::from(dev.config().max_grid_dims[0]);
        let blocks = (n as u64).div_ceil(u64::from(THREADS_PER_BLOCK));
        let grid_y = blocks.div_ceil(max_grid_x).max(1);
        let grid_x = blocks.div_ceil(grid_y).max(1);
        session.launch(
            &euclid,
            (grid_x as u32, grid_y as u32, 1),
            THREADS_PER_BLOCK,
            0,
            &[
                (&d_locations).into(),
                (&d_distances).into(),
                Arg::I32(n as i32),
                Arg::F32(QUERY_LAT),
                Arg::F32(QUERY_LNG),
            ],
        )?;
        let distances = d_distances.to_host()?;

        let expected = reference(&locs, QUERY_LAT, QUERY_LNG);
        let validation = both(
            Validation::exact_f32(&distances, &expected),
            Validation::exact(
                &find_lowest(&distances, RESULTS),
                &find_lowest(&expected, RESULTS),
            ),
        );
        Ok(session.finish(validation))
    }
}
