//! Rodinia kmeans: Lloyd's k-means over `npoints` points of `nfeatures` features.
//!
//! As in Rodinia (`cluster` → `allocateMemory` → `kmeans_clustering` → `kmeansCuda`): the
//! features are uploaded point-major and `invert_mapping` transposes them once (1-D grid of
//! `num_blocks_perdim²` blocks of 256 threads); the initial centres are the first `nclusters`
//! points; each iteration the host uploads the memberships and centres, writes the centres to
//! the `__constant__` array `c_clusters`, launches `kmeansPoint` on a `num_blocks_perdim ×
//! num_blocks_perdim` grid, copies the memberships back, counts the changes (delta) and averages
//! the new centres in f32; it stops when no point moved (delta ≤ 0.001) or after 501 iterations.
//!
//! Rodinia's default input is the `kdd_cup` file (494020 points, 34 features, 5 clusters); here
//! the points are seeded: each is a random one of 5 random centres plus uniform noise wide enough
//! that the clusters overlap and Lloyd's iterations take a while to settle.
//!
//! Validation is exact: the kernel's distance is an `fma.rn.f32` chain in feature order and the
//! comparison is strict, both mirrored by the CPU reference, which runs the same host loop with
//! a CPU assignment step. The final memberships, the iteration count and the final centres
//! (bit patterns) must all match.
//!
//! `rodinia/kmeans-textures` runs `kmeans_tex.ptx` instead: the same kernels reading the
//! features through Rodinia's texture reference `t_features` (`tex1Dfetch`), compiled with
//! NVRTC 11.8 since CUDA 12 has no texture references. The host binds linear textures over
//! the buffers Rodinia binds them to (`t_features`, and the unread `t_features_flipped` and
//! `t_clusters`); the results must be the same.

use super::bind_linear;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Threads per block (Rodinia's THREADS_PER_DIM²).
const THREADS: usize = 256;
/// The size of the `c_clusters` constant array: ASSUMED_NR_CLUSTERS × 34 features.
const MAX_CENTRE_VALUES: usize = 32 * 34;
/// Rodinia's default convergence threshold.
const THRESHOLD: f32 = 0.001;

/// One problem.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub npoints: usize,
    pub nfeatures: usize,
    pub nclusters: usize,
}

/// Seeded points, point-major: 5 blob centres in [0, 1)^nfeatures, each point a random blob's
/// centre plus uniform noise in [-0.6, 0.6) per feature.
fn inputs(p: &Params) -> Vec<f32> {
    let mut rng = Rng::new(0x4B3E_0001);
    let blobs: Vec<Vec<f32>> = (0..5)
        .map(|_| (0..p.nfeatures).map(|_| rng.f32_in(0.0, 1.0)).collect())
        .collect();
    let mut out = Vec::with_capacity(p.npoints * p.nfeatures);
    for _ in 0..p.npoints {
        let b = &blobs[(rng.next_u64() % 5) as usize];
        out.extend(b.iter().map(|c| c + rng.f32_in(-0.6, 0.6)));
    }
    out
}

/// Rodinia's grid: ⌈npoints / 256⌉ blocks rounded up to a square; returns the side.
fn blocks_per_dim(npoints: usize) -> usize {
    let blocks = npoints.div_ceil(THREADS);
    let mut side = (blocks as f64).sqrt() as usize;
    while side * side < blocks {
        side += 1;
    }
    side
}

/// The host's k-means loop (`kmeans_clustering` with `kmeansCuda`'s host part); `assign` is the
/// kernel step: it gets the centres and fills the new memberships. Returns (centres,
/// memberships, iterations).
fn kmeans_host(
    p: &Params,
    features: &[f32],
    mut assign: impl FnMut(&[f32], &mut [i32]) -> runtime::Result<()>,
) -> runtime::Result<(Vec<f32>, Vec<i32>, usize)> {
    let (n, nf, k) = (p.npoints, p.nfeatures, p.nclusters);
    // initial centres: the first k points (Rodinia's random pick is commented out)
    let mut clusters = features[..k * nf].to_vec();
    let mut membership = vec![-1i32; n];
    let mut membership_new = vec![-1i32; n];
    let mut new_centers_len = vec![0i32; k];
    let mut new_centers = vec![0.0f32; k * nf];
    let mut iterations = 0;
    let mut loop_count = 0;
    loop {
        assign(&clusters, &mut membership_new)?;
        let mut delta = 0;
        for i in 0..n {
            let c = membership_new[i] as usize;
            new_centers_len[c] += 1;
            if membership_new[i] != membership[i] {
                delta += 1;
                membership[i] = membership_new[i];
            }
            for j in 0..nf {
                new_centers[c * nf + j] += features[i * nf + j];
            }
        }
        for c in 0..k {
            for j in 0..nf {
                if new_centers_len[c] > 0 {
                    clusters[c * nf + j] = new_centers[c * nf + j] / new_centers_len[c] as f32;
                }
                new_centers[c * nf + j] = 0.0;
            }
            new_centers_len[c] = 0;
        }
        iterations += 1;
        let again = delta as f32 > THRESHOLD && loop_count < 500;
        loop_count += 1;
        if !again {
            break;
        }
    }
    Ok((clusters, membership, iterations))
}

/// CPU reference of `kmeansPoint`: the first centre at the smallest `fma`-accumulated squared
/// distance.
fn reference_assign(p: &Params, features: &[f32], clusters: &[f32], membership: &mut [i32]) {
    let nf = p.nfeatures;
    for (i, m) in membership.iter_mut().enumerate() {
        let point = &features[i * nf..(i + 1) * nf];
        let mut min_dist = f32::MAX;
        let mut index = -1;
        for c in 0..p.nclusters {
            let centre = &clusters[c * nf..(c + 1) * nf];
            let mut ans = 0.0f32;
            for (x, y) in point.iter().zip(centre) {
                let diff = x - y;
                ans = diff.mul_add(diff, ans);
            }
            if ans < min_dist {
                min_dist = ans;
                index = c as i32;
            }
        }
        *m = index;
    }
}

/// Combines two validations of one run into one report.
fn merge(a: Validation, b: Validation) -> Validation {
    let offset = a.checked;
    Validation {
        checked: a.checked + b.checked,
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a
            .first_mismatch
            .or(b.first_mismatch.map(|(i, g, e)| (i + offset, g, e))),
        max_abs_diff: a.max_abs_diff.max(b.max_abs_diff),
    }
}

/// Rodinia kmeans as a registered sample; with `texture_references`, the kernels of
/// `kmeans_tex.ptx`, which read the features through Rodinia's texture reference.
pub struct Kmeans {
    pub texture_references: bool,
}

impl Kmeans {
    pub fn params(size: Size) -> Params {
        let npoints = match size {
            Size::Small => 600,
            // the shape of Rodinia's default input, kdd_cup
            Size::Default => 494_020,
            Size::Large => 819_200,
        };
        Params {
            npoints,
            nfeatures: 34,
            nclusters: 5,
        }
    }
}

impl Sample for Kmeans {
    fn name(&self) -> &'static str {
        if self.texture_references {
            "rodinia/kmeans-textures"
        } else {
            "rodinia/kmeans"
        }
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["invert_mapping", "kmeansPoint"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Kmeans::params(size);
        let side = blocks_per_dim(p.npoints);
        format!(
            "{} points × {} features, {} clusters, threshold {THRESHOLD} ({side} × {side} blocks)",
            p.npoints, p.nfeatures, p.nclusters
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Kmeans::params(size);
        let (n, nf, k) = (p.npoints, p.nfeatures, p.nclusters);
        assert!(k * nf <= MAX_CENTRE_VALUES, "centres exceed c_clusters");
        let features = inputs(&p);

        let mut session = Session::new(dev);
        let module = session.load(if self.texture_references {
            "rodinia/kmeans/kmeans_tex.ptx"
        } else {
            "rodinia/kmeans/kmeans.ptx"
        })?;
        let invert = module.kernel("invert_mapping")?;
        let point = module.kernel("kmeansPoint")?;

        // allocateMemory
        let side = blocks_per_dim(n) as u32;
        let feature_flipped_d = dev.alloc_from(&features)?;
        let feature_d = dev.alloc::<f32>(n * nf)?;
        session.launch(
            &invert,
            side * side,
            THREADS as u32,
            0,
            &[
                (&feature_flipped_d).into(),
                (&feature_d).into(),
                Arg::I32(n as i32),
                Arg::I32(nf as i32),
            ],
        )?;
        let membership_d = dev.alloc::<i32>(n)?;
        let clusters_d = dev.alloc::<f32>(k * nf)?;
        if self.texture_references {
            bind_linear(dev, &module, "t_features", &feature_d)?;
            bind_linear(dev, &module, "t_features_flipped", &feature_flipped_d)?;
            bind_linear(dev, &module, "t_clusters", &clusters_d)?;
        }

        let (clusters, membership, iterations) =
            kmeans_host(&p, &features, |clusters, membership_new| {
                membership_d.copy_from_host(membership_new)?;
                clusters_d.copy_from_host(clusters)?;
                module.write_symbol("c_clusters", 0, &runtime::buffer::to_bytes(clusters))?;
                session.launch(
                    &point,
                    (side, side),
                    THREADS as u32,
                    0,
                    &[
                        (&feature_d).into(),
                        Arg::I32(nf as i32),
                        Arg::I32(n as i32),
                        Arg::I32(k as i32),
                        (&membership_d).into(),
                        (&clusters_d).into(),
                        // block_clusters, block_deltas: only used by the GPU reductions that
                        // Rodinia's default build leaves out
                        Arg::Ptr(0),
                        Arg::Ptr(0),
                    ],
                )?;
                membership_new.copy_from_slice(&membership_d.to_host()?);
                Ok(())
            })?;

        let (ref_clusters, ref_membership, ref_iterations) =
            kmeans_host(&p, &features, |clusters, membership_new| {
                reference_assign(&p, &features, clusters, membership_new);
                Ok(())
            })?;

        let got: Vec<i32> = membership
            .iter()
            .copied()
            .chain([iterations as i32])
            .collect();
        let expected: Vec<i32> = ref_membership
            .iter()
            .copied()
            .chain([ref_iterations as i32])
            .collect();
        let validation = merge(
            Validation::exact(&got, &expected),
            Validation::exact_f32(&clusters, &ref_clusters),
        );
        Ok(session.finish(validation))
    }
}
