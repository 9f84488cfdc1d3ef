//! Rodinia particlefilter: tracks one disk-shaped object through a synthetic noisy video of
//! `Nfr` frames of `IszX × IszY` pixels with `Nparticles` particles. Two registered samples, one
//! per Rodinia CUDA version:
//!
//! - `rodinia/particlefilter_naive` (`ex_particle_CUDA_naive_seq.cu`): the host runs the filter
//!   (random-walk motion, likelihoods over the disk's pixels, weights, CDF, resampling
//!   thresholds `u`) and per frame uploads arrayX, arrayY, xj, yj, CDF and u, launches `kernel`
//!   (the sequential CDF search per particle) on ⌈Nparticles / 128⌉ blocks of 128 threads (this
//!   version's `threads_per_block`), and copies xj and yj back.
//! - `rodinia/particlefilter_float` (`ex_particle_CUDA_float_seq.cu`; its particle state is
//!   double despite the name): the video and seeds are uploaded once; per frame
//!   `likelihood_kernel`, `sum_kernel`, `normalize_weights_kernel` and `find_index_kernel` run
//!   on ⌈Nparticles / 512⌉ blocks of 512 threads, with the random numbers drawn on the device;
//!   arrayX, arrayY and the weights are copied back after the last frame.
//!
//! The video is Rodinia's `videoSequence` (a radius-5 disk moving +1 in x and −2 in y per frame,
//! intensities 100/228, plus `(int)(5 · randn)` noise from Rodinia's LCG `randu` and Box-Muller
//! `randn`), generated here in Rust. Rodinia seeds particle i with `time(0) * i`; here `time(0)`
//! is the constant [`SEED_TIME`], so runs are reproducible. Rodinia's `roundDouble` truncates
//! (its post-increment returns the old value); that is kept.
//!
//! Differences from Rodinia:
//! - float: Rodinia's `normalize_weights_kernel` lets thread 0 of block 0 build the CDF from all
//!   normalised weights and draw `u1` from `seed[0]` while other blocks are still normalising
//!   their weights and already reading `u[0]`: a race between blocks whose result depends on
//!   block scheduling (and differs between warpsim's functional and timing modes). Here the CDF
//!   (from `weights[x] / sum`, bit for bit the normalised weight) and `u1` are computed by
//!   `sum_kernel`'s single thread, which runs in the launch before and gets the weights, CDF, u
//!   and seeds as extra arguments; `normalize_weights_kernel` normalises and spreads `u1`.
//! - float: `(unsigned char)(5 · randn)` of a negative value is undefined in C; it is taken as
//!   x86 does (truncate to int, keep the low byte), so the u8 video is the int video mod 256.
//! - Memory Rodinia leaves uninitialised (the video before drawing, the dilation target) is zero.
//!
//! Validation:
//! - naive: bit-exact. The kernel only compares and copies doubles; every frame the CPU repeats
//!   the search on the uploaded CDF and u and xj, yj must match bit for bit.
//! - float: the final seeds (pure integer LCG) exactly; arrayX, arrayY and the weights within
//!   1e-12 relative (plus 1e-12 absolute). The reference follows the PTX operation by operation
//!   (the `fma.rn.f64` NVRTC forms for the motion update, `pow(x, 2)` as `x · x`, the shared-memory
//!   reduction tree per block, the sequential sum and CDF), except for libdevice's inlined double
//!   `cos`, `log` and `exp`, which are within 1–2 ulp of Rust's (CUDA's documented bounds: 2, 1
//!   and 1 ulp): a few ulp per frame in the positions and weights, orders of magnitude below the
//!   tolerance. A discrete flip (a position truncated to another pixel, a CDF comparison decided
//!   the other way) would change values entirely and fail; the inputs are fixed, so a pass is
//!   reproducible.

use crate::Validation;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Stands in for Rodinia's `time(0)` in `seed[i] = time(0) * i`.
const SEED_TIME: i64 = 1_300_000_000;
/// Disk radius of the object and of the likelihood neighbourhood.
const RADIUS: i32 = 5;
const PI: f64 = std::f64::consts::PI;

/// One problem: Rodinia's `-x IszX -y IszY -z Nfr -np Nparticles`.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub isz_x: usize,
    pub isz_y: usize,
    pub nfr: usize,
    pub nparticles: usize,
}

fn params(size: Size) -> Params {
    match size {
        // partial last blocks in both versions (8 × 128, 2 × 512)
        Size::Small => Params {
            isz_x: 32,
            isz_y: 32,
            nfr: 4,
            nparticles: 1000,
        },
        // Rodinia's run scripts: -x 128 -y 128 -z 10 -np 10000
        Size::Default => Params {
            isz_x: 128,
            isz_y: 128,
            nfr: 10,
            nparticles: 10000,
        },
        Size::Large => Params {
            isz_x: 256,
            isz_y: 256,
            nfr: 10,
            nparticles: 20000,
        },
    }
}

fn describe(p: &Params, threads: usize) -> String {
    format!(
        "{} × {} video, {} frames, {} particles ({} blocks of {threads})",
        p.isz_x,
        p.isz_y,
        p.nfr,
        p.nparticles,
        p.nparticles.div_ceil(threads)
    )
}

/// Rodinia's `randu`: GCC's LCG on `seed[index]`, uniform in [0, 1).
fn randu(seed: &mut [i32], index: usize) -> f64 {
    let num = 1_103_515_245i32
        .wrapping_mul(seed[index])
        .wrapping_add(12345);
    seed[index] = num % i32::MAX;
    (f64::from(seed[index]) / f64::from(i32::MAX)).abs()
}

/// Rodinia's `randn` (Box-Muller), as the host and `d_randn` compute it.
fn randn(seed: &mut [i32], index: usize) -> f64 {
    let u = randu(seed, index);
    let v = randu(seed, index);
    let cosine = (2.0 * PI * v).cos();
    let rt = -2.0 * u.ln();
    rt.sqrt() * cosine
}

/// Rodinia's `roundDouble` / `dev_round_double`: truncation toward zero.
fn round_double(value: f64) -> i32 {
    value as i32
}

/// The initial seeds: `time(0) * i` stored in an int.
fn seeds(p: &Params) -> Vec<i32> {
    (0..p.nparticles)
        .map(|i| (SEED_TIME * i as i64) as i32)
        .collect()
}

/// Rodinia's `videoSequence` with int pixels (the naive version's type); advances `seed[0]`.
fn video(p: &Params, seed: &mut [i32]) -> Vec<i32> {
    let (dx, dy, dz) = (p.isz_x as i32, p.isz_y as i32, p.nfr as i32);
    let max_size = (dx * dy * dz) as usize;
    let mut frames = vec![0i32; max_size];
    let x0 = round_double(f64::from(dy) / 2.0);
    let y0 = round_double(f64::from(dx) / 2.0);
    frames[(x0 * dy * dz + y0 * dz) as usize] = 1;
    for k in 1..dz {
        let xk = (x0 + (k - 1)).abs();
        let yk = (y0 - 2 * (k - 1)).abs();
        let mut pos = (yk * dy * dz + xk * dz + k) as usize;
        if pos >= max_size {
            pos = 0;
        }
        frames[pos] = 1;
    }
    // imdilate_disk with radius 5
    let mut dilated = vec![0i32; max_size];
    for z in 0..dz {
        for x in 0..dx {
            for y in 0..dy {
                if frames[(x * dy * dz + y * dz + z) as usize] != 1 {
                    continue;
                }
                for xx in (x - RADIUS).max(0)..(x + RADIUS).min(dx) {
                    for yy in (y - RADIUS).max(0)..(y + RADIUS).min(dy) {
                        let d = f64::from((xx - x).pow(2) + (yy - y).pow(2)).sqrt();
                        if d < f64::from(RADIUS) {
                            dilated[(xx * dy * dz + yy * dz + z) as usize] = 1;
                        }
                    }
                }
            }
        }
    }
    for v in &mut dilated {
        *v = match *v {
            0 => 100,
            1 => 228,
            other => other,
        };
    }
    // addNoise, in Rodinia's x, y, z order (the same as memory order)
    for v in &mut dilated {
        *v += (5.0 * randn(seed, 0)) as i32;
    }
    dilated
}

/// `strelDisk` + `getneighbors`: the (dy, dx) offsets of the radius-5 disk, interleaved as
/// Rodinia's `objxy` (`[2n]` = y − centre, `[2n + 1]` = x − centre).
fn disk_offsets() -> Vec<i32> {
    let diameter = RADIUS * 2 - 1;
    let center = RADIUS - 1;
    let mut objxy = Vec::new();
    for x in 0..diameter {
        for y in 0..diameter {
            let d = f64::from((x - center).pow(2) + (y - center).pow(2)).sqrt();
            if d < f64::from(RADIUS) {
                objxy.push(y - center);
                objxy.push(x - center);
            }
        }
    }
    objxy
}

/// The likelihood of a particle at (x, y) in frame k: Rodinia's index computation and
/// `calcLikelihoodSum` / countOnes (`pow(v, 2)` is exact, `v · v`, on both sides).
fn likelihood(
    p: &Params,
    pixel: impl Fn(usize) -> i32,
    objxy: &[i32],
    x: f64,
    y: f64,
    k: usize,
) -> f64 {
    let (dy, dz) = (p.isz_y as i32, p.nfr as i32);
    let max_size = p.isz_x * p.isz_y * p.nfr;
    let count_ones = objxy.len() / 2;
    let mut sum = 0.0f64;
    for o in objxy.chunks(2) {
        let ind_x = round_double(x) + o[1];
        let ind_y = round_double(y) + o[0];
        let mut ind = (ind_x * dy * dz + ind_y * dz + k as i32).unsigned_abs() as usize;
        if ind >= max_size {
            ind = 0;
        }
        let a = f64::from(pixel(ind) - 100);
        let b = f64::from(pixel(ind) - 228);
        sum += (a * a - b * b) / 50.0;
    }
    sum / count_ones as f64
}

/// The resampling search of `kernel` / `find_index_kernel` for every particle: the first CDF
/// entry ≥ u[i], else the last. u is nondecreasing, so one forward scan finds them all.
// `!(a >= b)`, not `a < b`: the kernel's test, which a NaN fails
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn find_indices(cdf: &[f64], u: &[f64]) -> Vec<usize> {
    let n = cdf.len();
    let mut x = 0;
    u.iter()
        .map(|&ui| {
            while x < n && !(cdf[x] >= ui) {
                x += 1;
            }
            x.min(n - 1)
        })
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Combines validations of one run into one report.
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

/// Rodinia particlefilter, naive version, as a registered sample.
pub struct ParticlefilterNaive;

/// The naive version's `threads_per_block`.
const NAIVE_THREADS: usize = 128;

impl Sample for ParticlefilterNaive {
    fn name(&self) -> &'static str {
        "rodinia/particlefilter_naive"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        describe(&params(size), NAIVE_THREADS)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let n = p.nparticles;
        let mut seed = seeds(&p);
        let frames = video(&p, &mut seed);
        let objxy = disk_offsets();

        let mut session = Session::new(dev);
        let module = session.load("rodinia/particlefilter/particlefilter_naive.ptx")?;
        let kernel = module.kernel("kernel")?;

        let xe = f64::from(round_double(p.isz_y as f64 / 2.0));
        let ye = f64::from(round_double(p.isz_x as f64 / 2.0));
        let mut array_x = vec![xe; n];
        let mut array_y = vec![ye; n];
        let mut xj = vec![0.0f64; n];
        let mut yj = vec![0.0f64; n];
        let mut weights = vec![1.0 / n as f64; n];
        let mut cdf = vec![0.0f64; n];
        let mut u = vec![0.0f64; n];

        let d_array_x = dev.alloc::<f64>(n)?;
        let d_array_y = dev.alloc::<f64>(n)?;
        let d_xj = dev.alloc::<f64>(n)?;
        let d_yj = dev.alloc::<f64>(n)?;
        let d_cdf = dev.alloc::<f64>(n)?;
        let d_u = dev.alloc::<f64>(n)?;
        let blocks = n.div_ceil(NAIVE_THREADS) as u32;

        let mut validation: Option<Validation> = None;
        for k in 1..p.nfr {
            // motion model
            for x in 0..n {
                array_x[x] = array_x[x] + 1.0 + 5.0 * randn(&mut seed, x);
                array_y[x] = array_y[x] - 2.0 + 2.0 * randn(&mut seed, x);
            }
            // likelihoods and weights
            for x in 0..n {
                let l = likelihood(&p, |i| frames[i], &objxy, array_x[x], array_y[x], k);
                weights[x] *= l.exp();
            }
            let sum: f64 = weights.iter().sum();
            for w in &mut weights {
                *w /= sum;
            }
            // (Rodinia prints the expected position here; it does not feed back)
            cdf[0] = weights[0];
            for x in 1..n {
                cdf[x] = weights[x] + cdf[x - 1];
            }
            let u1 = (1.0 / n as f64) * randu(&mut seed, 0);
            for (x, ux) in u.iter_mut().enumerate() {
                *ux = u1 + x as f64 / n as f64;
            }

            d_array_x.copy_from_host(&array_x)?;
            d_array_y.copy_from_host(&array_y)?;
            d_xj.copy_from_host(&xj)?;
            d_yj.copy_from_host(&yj)?;
            d_cdf.copy_from_host(&cdf)?;
            d_u.copy_from_host(&u)?;
            session.launch(
                &kernel,
                blocks,
                NAIVE_THREADS as u32,
                0,
                &[
                    (&d_array_x).into(),
                    (&d_array_y).into(),
                    (&d_cdf).into(),
                    (&d_u).into(),
                    (&d_xj).into(),
                    (&d_yj).into(),
                    Arg::I32(n as i32),
                ],
            )?;
            yj = d_yj.to_host()?;
            xj = d_xj.to_host()?;

            // reference: the same search on the same CDF and thresholds
            let idx = find_indices(&cdf, &u);
            let exp_x: Vec<f64> = idx.iter().map(|&i| array_x[i]).collect();
            let exp_y: Vec<f64> = idx.iter().map(|&i| array_y[i]).collect();
            let v = merge(
                Validation::exact(&bits(&xj), &bits(&exp_x)),
                Validation::exact(&bits(&yj), &bits(&exp_y)),
            );
            validation = Some(match validation {
                Some(acc) => merge(acc, v),
                None => v,
            });

            array_x.copy_from_slice(&xj);
            array_y.copy_from_slice(&yj);
            weights.fill(1.0 / n as f64);
        }
        let validation = validation.unwrap_or(Validation {
            checked: 0,
            mismatches: 0,
            first_mismatch: None,
            max_abs_diff: 0.0,
        });
        Ok(session.finish(validation))
    }
}

/// Rodinia particlefilter, float version, as a registered sample.
pub struct ParticlefilterFloat;

/// The float version's `threads_per_block`.
const FLOAT_THREADS: usize = 512;

/// The float version's device loop on the CPU, following the PTX's operations (see the module
/// doc). Returns (arrayX, arrayY, weights); advances `seed`.
fn reference_float(
    p: &Params,
    frames: &[u8],
    objxy: &[i32],
    seed: &mut [i32],
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = p.nparticles;
    let nf = n as f64;
    let xe = f64::from(round_double(p.isz_y as f64 / 2.0));
    let ye = f64::from(round_double(p.isz_x as f64 / 2.0));
    let (mut xj, mut yj) = (vec![xe; n], vec![ye; n]);
    let (mut array_x, mut array_y) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut weights = vec![0.0f64; n];
    let mut cdf = vec![0.0f64; n];
    let mut u = vec![0.0f64; n];
    let blocks = n.div_ceil(FLOAT_THREADS);
    for k in 1..p.nfr {
        // likelihood_kernel
        for i in 0..n {
            let r = randn(seed, i);
            array_x[i] = r.mul_add(5.0, xj[i] + 1.0);
            let r = randn(seed, i);
            array_y[i] = r.mul_add(2.0, yj[i] - 2.0);
            let l = likelihood(
                p,
                |ind| i32::from(frames[ind]),
                objxy,
                array_x[i],
                array_y[i],
                k,
            );
            weights[i] = (1.0 / nf) * l.exp();
        }
        let mut partial = vec![0.0f64; blocks];
        for (b, part) in partial.iter_mut().enumerate() {
            let mut buffer: Vec<f64> = (0..FLOAT_THREADS)
                .map(|t| weights.get(b * FLOAT_THREADS + t).copied().unwrap_or(0.0))
                .collect();
            let mut s = FLOAT_THREADS / 2;
            while s > 0 {
                for t in 0..s {
                    buffer[t] += buffer[t + s];
                }
                s /= 2;
            }
            *part = buffer[0];
        }
        // sum_kernel (with the CDF and u1, see the module doc)
        let sum = partial.iter().fold(0.0f64, |acc, v| acc + v);
        cdf[0] = weights[0] / sum;
        for x in 1..n {
            cdf[x] = weights[x] / sum + cdf[x - 1];
        }
        let u1 = (1.0 / nf) * randu(seed, 0);
        // normalize_weights_kernel
        for (i, (w, ui)) in weights.iter_mut().zip(u.iter_mut()).enumerate() {
            *w /= sum;
            *ui = u1 + i as f64 / nf;
        }
        // find_index_kernel
        for (i, idx) in find_indices(&cdf, &u).into_iter().enumerate() {
            xj[i] = array_x[idx];
            yj[i] = array_y[idx];
        }
    }
    (array_x, array_y, weights)
}

impl Sample for ParticlefilterFloat {
    fn name(&self) -> &'static str {
        "rodinia/particlefilter_float"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "likelihood_kernel",
            "sum_kernel",
            "normalize_weights_kernel",
            "find_index_kernel",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        describe(&params(size), FLOAT_THREADS)
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let n = p.nparticles;
        let mut seed = seeds(&p);
        let frames: Vec<u8> = video(&p, &mut seed).iter().map(|v| *v as u8).collect();
        let objxy = disk_offsets();
        let count_ones = objxy.len() / 2;
        let max_size = p.isz_x * p.isz_y * p.nfr;

        let mut session = Session::new(dev);
        let module = session.load("rodinia/particlefilter/particlefilter_float.ptx")?;
        let likelihood_kernel = module.kernel("likelihood_kernel")?;
        let sum_kernel = module.kernel("sum_kernel")?;
        let normalize_weights_kernel = module.kernel("normalize_weights_kernel")?;
        let find_index_kernel = module.kernel("find_index_kernel")?;

        let xe = f64::from(round_double(p.isz_y as f64 / 2.0));
        let ye = f64::from(round_double(p.isz_x as f64 / 2.0));
        let d_array_x = dev.alloc::<f64>(n)?;
        let d_array_y = dev.alloc::<f64>(n)?;
        let d_xj = dev.alloc_from(&vec![xe; n])?;
        let d_yj = dev.alloc_from(&vec![ye; n])?;
        let d_cdf = dev.alloc::<f64>(n)?;
        let d_u = dev.alloc::<f64>(n)?;
        let d_likelihood = dev.alloc::<f64>(n)?;
        d_likelihood.memset(0)?;
        let d_weights = dev.alloc_from(&vec![1.0 / n as f64; n])?;
        let d_i = dev.alloc_from(&frames)?;
        let d_objxy = dev.alloc_from(&objxy)?;
        let d_ind = dev.alloc::<i32>(count_ones * n)?;
        let d_seed = dev.alloc_from(&seed)?;
        let d_partial_sums = dev.alloc::<f64>(n)?;

        let blocks = n.div_ceil(FLOAT_THREADS) as u32;
        let threads = FLOAT_THREADS as u32;
        let n_arg = Arg::I32(n as i32);
        for k in 1..p.nfr {
            session.launch(
                &likelihood_kernel,
                blocks,
                threads,
                0,
                &[
                    (&d_array_x).into(),
                    (&d_array_y).into(),
                    (&d_xj).into(),
                    (&d_yj).into(),
                    (&d_cdf).into(),
                    (&d_ind).into(),
                    (&d_objxy).into(),
                    (&d_likelihood).into(),
                    (&d_i).into(),
                    (&d_u).into(),
                    (&d_weights).into(),
                    n_arg.clone(),
                    Arg::I32(count_ones as i32),
                    Arg::I32(max_size as i32),
                    Arg::I32(k as i32),
                    Arg::I32(p.isz_y as i32),
                    Arg::I32(p.nfr as i32),
                    (&d_seed).into(),
                    (&d_partial_sums).into(),
                ],
            )?;
            session.launch(
                &sum_kernel,
                blocks,
                threads,
                0,
                &[
                    (&d_partial_sums).into(),
                    n_arg.clone(),
                    (&d_weights).into(),
                    (&d_cdf).into(),
                    (&d_u).into(),
                    (&d_seed).into(),
                ],
            )?;
            session.launch(
                &normalize_weights_kernel,
                blocks,
                threads,
                0,
                &[
                    (&d_weights).into(),
                    n_arg.clone(),
                    (&d_partial_sums).into(),
                    (&d_cdf).into(),
                    (&d_u).into(),
                    (&d_seed).into(),
                ],
            )?;
            session.launch(
                &find_index_kernel,
                blocks,
                threads,
                0,
                &[
                    (&d_array_x).into(),
                    (&d_array_y).into(),
                    (&d_cdf).into(),
                    (&d_u).into(),
                    (&d_xj).into(),
                    (&d_yj).into(),
                    (&d_weights).into(),
                    n_arg.clone(),
                ],
            )?;
        }
        let array_x = d_array_x.to_host()?;
        let array_y = d_array_y.to_host()?;
        let weights = d_weights.to_host()?;
        let seed_out = d_seed.to_host()?;

        let (exp_x, exp_y, exp_w) = reference_float(&p, &frames, &objxy, &mut seed);
        // 1e-12: libdevice cos/log/exp vs Rust's, a few ulp (see the module doc)
        let (rel, abs) = (1e-12, 1e-12);
        let v = merge(
            merge(
                Validation::close(&array_x, &exp_x, rel, abs),
                Validation::close(&array_y, &exp_y, rel, abs),
            ),
            merge(
                Validation::close(&weights, &exp_w, rel, 0.0),
                Validation::exact(&seed_out, &seed),
            ),
        );
        Ok(session.finish(v))
    }
}
