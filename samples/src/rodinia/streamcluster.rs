//! Rodinia streamcluster: online k-median clustering (from PARSEC). The host runs Rodinia's
//! local search unchanged (`streamCluster` → `localSearch` → `pkmedian`: `pspeedy`,
//! `selectfeasible_fast`, `pFL`), and every gain evaluation (`pgain`) uploads the center table
//! and the points, launches `kernel_compute_cost` (512 threads per block, one thread per point)
//! and finishes the gain on the host from the `work_mem` and `switch_membership` it copies back.
//! The number of launches is therefore decided by the search itself.
//!
//! Rodinia's `lrand48` calls (point generation, shuffles, speedy's coin flips, feasible-center
//! sampling) draw from seeded [`Rng`]s instead, so a run is deterministic.
//!
//! Validation: NVRTC compiles the distance loop to `sub.f32` + `fma.rn.f32` (the weight
//! multiply and the subtractions stay separate), which the reference mirrors with
//! `f32::mul_add`; each thread writes only its own row of `work_mem`, so every launch's outputs
//! (`work_mem` bits and `switch_membership`) are compared exactly with the CPU reference of the
//! kernel on the same inputs. The whole clustering is then rerun with the CPU reference in place
//! of the kernel, and the final centers (ids, weights, coordinates) must match exactly.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device, DeviceBuffer, Kernel};

/// Rodinia's THREADS_PER_BLOCK.
pub const THREADS_PER_BLOCK: u32 = 512;
/// Rodinia's MAXBLOCKS (grid x limit before the grid becomes two-dimensional).
pub const MAXBLOCKS: u32 = 65536;
/// Repetitions of speedy (SP) and the iteration factor (ITER) of Rodinia's source.
const SP: i32 = 1;
const ITER: i64 = 1;
/// Seeds of the generated stream (SimStream) and of the search's random choices.
const STREAM_SEED: u64 = 0x5C_0001;
const SEARCH_SEED: u64 = 0x5C_0002;

/// Command-line parameters of Rodinia's `sc_gpu k1 k2 d n chunksize clustersize`.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub kmin: i64,
    pub kmax: i64,
    pub dim: usize,
    pub n: usize,
    pub chunksize: usize,
    pub clustersize: usize,
}

/// small: `3 6 4 1024 512 100` (two chunks, so the final pass over the intermediate centers
/// runs the search again); default: `3 6 16 65536 65536 1000`, the input of GPGPU-Sim/Accel-Sim
/// simulation studies; large: `10 20 256 65536 65536 1000`, Rodinia's run script.
pub fn params(size: Size) -> Params {
    match size {
        Size::Small => Params {
            kmin: 3,
            kmax: 6,
            dim: 4,
            n: 1024,
            chunksize: 512,
            clustersize: 100,
        },
        Size::Default => Params {
            kmin: 3,
            kmax: 6,
            dim: 16,
            n: 65536,
            chunksize: 65536,
            clustersize: 1000,
        },
        Size::Large => Params {
            kmin: 10,
            kmax: 20,
            dim: 256,
            n: 65536,
            chunksize: 65536,
            clustersize: 1000,
        },
    }
}

/// One point: Rodinia's `Point` with the coordinate pointer as an index into a store.
#[derive(Clone, Copy, Debug, Default)]
pub struct Point {
    pub weight: f32,
    /// Offset of the coordinates in the owning [`Points::store`].
    pub coord: usize,
    pub assign: i64,
    pub cost: f32,
}

/// Rodinia's `Points`: `num` points in use out of `p`, coordinates in `store`.
pub struct Points {
    pub dim: usize,
    pub num: usize,
    pub p: Vec<Point>,
    pub store: Vec<f32>,
}

impl Points {
    fn coord(&self, i: usize) -> &[f32] {
        let c = self.p[i].coord;
        &self.store[c..c + self.dim]
    }
}

/// Squared distance as the host computes it (`dist`).
fn dist(points: &Points, a: usize, b: usize) -> f32 {
    let (pa, pb) = (points.coord(a), points.coord(b));
    let mut result = 0.0f32;
    for (x, y) in pa.iter().zip(pb) {
        result += (x - y) * (x - y);
    }
    result
}

/// What one `kernel_compute_cost` launch sees.
pub struct CostArgs<'a> {
    pub num: usize,
    pub dim: usize,
    pub x: i64,
    pub points: &'a [Point],
    pub k: i32,
    pub stride: i32,
    /// Dimension-major coordinates (`coord_h[i * num + point]`).
    pub coord: &'a [f32],
    /// Whether `coord` changed since the last launch (Rodinia re-uploads it only then).
    pub coord_changed: bool,
    pub center_table: &'a [i32],
}

/// The CPU reference of `kernel_compute_cost`: `work_mem` (stride × (num + 1)) and
/// `switch_membership`, with the kernel's `fma.rn.f32` accumulation.
pub fn reference_compute_cost(a: &CostArgs) -> (Vec<f32>, Vec<u8>) {
    let stride = a.stride as usize;
    let mut work = vec![0.0f32; stride * (a.num + 1)];
    let mut switch = vec![0u8; a.num];
    let x = a.x as i32 as usize; // the kernel takes `int p2`
    for tid in 0..a.num {
        let mut sum = 0.0f32;
        for i in 0..a.dim {
            let diff = a.coord[i * a.num + tid] - a.coord[i * a.num + x];
            sum = diff.mul_add(diff, sum);
        }
        let p = &a.points[tid];
        let x_cost = sum * p.weight;
        if x_cost < p.cost {
            switch[tid] = 1;
            work[tid * stride + a.k as usize] += x_cost - p.cost;
        } else {
            let col = a.center_table[p.assign as usize] as usize;
            work[tid * stride + col] += p.cost - x_cost;
        }
    }
    (work, switch)
}

/// Who evaluates the cost: the simulated GPU or the CPU reference.
trait CostKernel {
    fn compute_cost(&mut self, a: &CostArgs) -> runtime::Result<(Vec<f32>, Vec<u8>)>;
}

struct CpuCost;

impl CostKernel for CpuCost {
    fn compute_cost(&mut self, a: &CostArgs) -> runtime::Result<(Vec<f32>, Vec<u8>)> {
        Ok(reference_compute_cost(a))
    }
}

/// Device buffers Rodinia allocates on the first `pgain` (`allocDevMem`).
struct DeviceState {
    capacity: usize,
    center_table: DeviceBuffer<i32>,
    switch_membership: DeviceBuffer<u8>,
    p: DeviceBuffer<u8>,
    coord: DeviceBuffer<f32>,
}

/// The GPU path: launches the kernel and checks each launch against the reference.
struct GpuCost<'s, 'd> {
    session: &'s mut Session<'d>,
    kernel: Kernel,
    state: Option<DeviceState>,
    validation: Validation,
}

/// Rodinia's 64-bit `Point` layout: weight @0, coord pointer @8 (unused on the device),
/// assign @16, cost @24; 32 bytes.
fn pack_points(points: &[Point]) -> Vec<u8> {
    let mut out = vec![0u8; points.len() * 32];
    for (chunk, p) in out.chunks_exact_mut(32).zip(points) {
        chunk[0..4].copy_from_slice(&p.weight.to_le_bytes());
        chunk[16..24].copy_from_slice(&p.assign.to_le_bytes());
        chunk[24..28].copy_from_slice(&p.cost.to_le_bytes());
    }
    out
}

/// Appends one comparison to a running one (indices continue after the values checked so far).
fn accumulate(acc: &mut Validation, v: Validation) {
    if acc.first_mismatch.is_none() {
        acc.first_mismatch = v.first_mismatch.map(|(i, g, e)| (acc.checked + i, g, e));
    }
    acc.checked += v.checked;
    acc.mismatches += v.mismatches;
    acc.max_abs_diff = acc.max_abs_diff.max(v.max_abs_diff);
}

fn empty_validation() -> Validation {
    Validation::exact::<u8>(&[], &[])
}

impl CostKernel for GpuCost<'_, '_> {
    fn compute_cost(&mut self, a: &CostArgs) -> runtime::Result<(Vec<f32>, Vec<u8>)> {
        let dev = self.session.dev;
        let (num, stride) = (a.num, a.stride as usize);
        // allocDevMem on the first call, sized for this (the first chunk's) point count.
        let first = self.state.is_none();
        if first {
            self.state = Some(DeviceState {
                capacity: num,
                center_table: dev.alloc(num)?,
                switch_membership: dev.alloc(num)?,
                p: dev.alloc(num * 32)?,
                coord: dev.alloc(num * a.dim)?,
            });
        }
        let st = self.state.as_ref().expect("allocated above");
        if num > st.capacity {
            return Err(runtime::Error::InvalidValue(format!(
                "streamcluster: {num} points exceed the {} allocated on the first pgain",
                st.capacity
            )));
        }
        let work_mem = dev.alloc::<f32>(stride * (num + 1))?;
        if a.coord_changed || first {
            st.coord.copy_from_host(a.coord)?;
        }
        st.center_table.copy_from_host(a.center_table)?;
        st.p.copy_from_host(&pack_points(&a.points[..num]))?;
        st.switch_membership.memset(0)?;
        work_mem.memset(0)?;

        let blocks =
            ((num as u32 + THREADS_PER_BLOCK - 1) as f32 / THREADS_PER_BLOCK as f32) as u32;
        let blocks_y = ((blocks + MAXBLOCKS - 1) as f32 / MAXBLOCKS as f32) as u32;
        let blocks_x = ((blocks + blocks_y - 1) as f32 / blocks_y as f32) as u32;
        self.session.launch(
            &self.kernel,
            (blocks_x, blocks_y, 1),
            THREADS_PER_BLOCK,
            0,
            &[
                Arg::I32(num as i32),
                Arg::I32(a.dim as i32),
                Arg::I64(a.x),
                (&st.p).into(),
                Arg::I32(a.k),
                Arg::I32(a.stride),
                (&st.coord).into(),
                (&work_mem).into(),
                (&st.center_table).into(),
                (&st.switch_membership).into(),
            ],
        )?;
        let work = work_mem.to_host()?;
        let mut switch = st.switch_membership.to_host()?;
        switch.truncate(num);

        let (want_work, want_switch) = reference_compute_cost(a);
        accumulate(
            &mut self.validation,
            Validation::exact_f32(&work, &want_work),
        );
        accumulate(
            &mut self.validation,
            Validation::exact(&switch, &want_switch),
        );
        Ok((work, switch))
    }
}

/// Rodinia's host-side state (its globals and function-local statics) around one backend.
struct StreamCluster<B: CostKernel> {
    backend: B,
    rng: Rng,
    prm: Params,
    switch_membership: Vec<u8>,
    is_center: Vec<bool>,
    center_table: Vec<i32>,
    is_coord_changed: bool,
    /// pgain's `static int iter`.
    iter: u64,
    coord_h: Vec<f32>,
    /// pkmedian's `static long k`.
    k: i64,
}

/// The final result: per output center its id, weight and coordinates.
#[derive(Debug, Default, PartialEq)]
pub struct Clustering {
    pub ids: Vec<i64>,
    pub weights: Vec<f32>,
    pub coords: Vec<f32>,
}

impl<B: CostKernel> StreamCluster<B> {
    fn new(backend: B, prm: Params) -> Self {
        StreamCluster {
            backend,
            rng: Rng::new(SEARCH_SEED),
            prm,
            switch_membership: Vec::new(),
            is_center: Vec::new(),
            center_table: Vec::new(),
            is_coord_changed: false,
            iter: 0,
            coord_h: Vec::new(),
            k: 0,
        }
    }

    /// `lrand48()`: 31 random bits.
    fn lrand48(&mut self) -> i64 {
        (self.rng.next_u64() >> 33) as i64
    }

    /// `(float)lrand48() / (float)INT_MAX`.
    fn unit(&mut self) -> f32 {
        self.lrand48() as f32 / i32::MAX as f32
    }

    fn shuffle(&mut self, points: &mut Points) {
        let num = points.num as i64;
        for i in 0..num - 1 {
            let j = self.lrand48() % (num - i) + i;
            points.p.swap(i as usize, j as usize);
        }
    }

    fn intshuffle(&mut self, a: &mut [i32]) {
        let len = a.len() as i64;
        for i in 0..len {
            let j = self.lrand48() % (len - i) + i;
            a.swap(i as usize, j as usize);
        }
    }

    fn pgain(
        &mut self,
        x: i64,
        points: &mut Points,
        z: f32,
        numcenters: &mut i64,
    ) -> runtime::Result<f32> {
        let stride = *numcenters as i32 + 1;
        let kk = *numcenters as i32;
        let (num, dim) = (points.num, points.dim);
        let mut count = 0;
        for i in 0..num {
            if self.is_center[i] {
                self.center_table[i] = count;
                count += 1;
            }
        }
        let coord_changed = self.is_coord_changed || self.iter == 0;
        if coord_changed {
            self.coord_h.resize(num * dim, 0.0);
            for i in 0..dim {
                for j in 0..num {
                    self.coord_h[num * i + j] = points.coord(j)[i];
                }
            }
        }
        let (mut work, switch) = self.backend.compute_cost(&CostArgs {
            num,
            dim,
            x,
            points: &points.p[..num],
            k: kk,
            stride,
            coord: &self.coord_h[..num * dim],
            coord_changed,
            center_table: &self.center_table[..num],
        })?;
        self.switch_membership[..num].copy_from_slice(&switch);

        // The serial part of pgain.
        let (stride, k) = (stride as usize, kk as usize);
        let mut to_close = 0i64;
        let mut cost_of_opening_x = z;
        let lower = stride * num;
        for i in 0..num {
            if self.is_center[i] {
                let col = self.center_table[i] as usize;
                let mut low = z;
                for j in 0..num {
                    low += work[j * stride + col];
                }
                work[lower + col] = low;
                if low > 0.0 {
                    to_close += 1;
                    work[i * stride + k] -= low;
                }
            }
            cost_of_opening_x += work[i * stride + k];
        }
        if cost_of_opening_x < 0.0 {
            let xu = x as usize;
            for i in 0..num {
                let close_center =
                    work[lower + self.center_table[points.p[i].assign as usize] as usize] > 0.0;
                if self.switch_membership[i] != 0 || close_center {
                    points.p[i].cost = dist(points, i, xu) * points.p[i].weight;
                    points.p[i].assign = x;
                }
            }
            for i in 0..num {
                if self.is_center[i] && work[lower + self.center_table[i] as usize] > 0.0 {
                    self.is_center[i] = false;
                }
            }
            if x >= 0 && (x as usize) < num {
                self.is_center[xu] = true;
            }
            *numcenters = *numcenters + 1 - to_close;
        } else {
            cost_of_opening_x = 0.0;
        }
        self.iter += 1;
        Ok(-cost_of_opening_x)
    }

    fn pspeedy(&mut self, points: &mut Points, z: f32, kcenter: &mut i64) -> f32 {
        let num = points.num;
        for k in 0..num {
            let d = dist(points, k, 0);
            points.p[k].cost = d * points.p[k].weight;
            points.p[k].assign = 0;
        }
        *kcenter = 1;
        for i in 1..num {
            let to_open = self.unit() < points.p[i].cost / z;
            if to_open {
                *kcenter += 1;
                for k in 0..num {
                    let d = dist(points, i, k);
                    if d * points.p[k].weight < points.p[k].cost {
                        points.p[k].cost = d * points.p[k].weight;
                        points.p[k].assign = i as i64;
                    }
                }
            }
        }
        let mut mytotal = 0.0f32;
        for k in 0..num {
            mytotal += points.p[k].cost;
        }
        z * *kcenter as f32 + mytotal
    }

    #[allow(clippy::too_many_arguments)]
    fn pfl(
        &mut self,
        points: &mut Points,
        feasible: &mut [i32],
        z: f32,
        k: &mut i64,
        mut cost: f32,
        iter: i64,
        e: f32,
    ) -> runtime::Result<f32> {
        let mut change = cost;
        while f64::from(change / cost) > 1.0 * f64::from(e) {
            change = 0.0;
            self.intshuffle(feasible);
            for i in 0..iter {
                let x = (i % feasible.len() as i64) as usize;
                change += self.pgain(i64::from(feasible[x]), points, z, k)?;
            }
            cost -= change;
        }
        Ok(cost)
    }

    fn selectfeasible_fast(&mut self, points: &Points, kmin: i64) -> Vec<i32> {
        let num = points.num;
        let mut numfeasible = num as i32;
        let limit = (ITER * kmin) as f32 * (kmin as f32).ln();
        if numfeasible as f32 > limit {
            numfeasible = limit as i32;
        }
        if numfeasible as usize == num {
            return (0..num as i32).collect();
        }
        let mut accum = vec![0.0f32; num];
        accum[0] = points.p[0].weight;
        for i in 1..num {
            accum[i] = accum[i - 1] + points.p[i].weight;
        }
        let total = accum[num - 1];
        let mut feasible = vec![0i32; numfeasible as usize];
        for f in feasible.iter_mut() {
            let w = self.unit() * total;
            let (mut l, mut r) = (0usize, num - 1);
            if accum[0] > w {
                *f = 0;
                continue;
            }
            while l + 1 < r {
                let k = (l + r) / 2;
                if accum[k] > w {
                    r = k;
                } else {
                    l = k;
                }
            }
            *f = r as i32;
        }
        feasible
    }

    fn pkmedian(
        &mut self,
        points: &mut Points,
        kmin: i64,
        kmax: i64,
        kfinal: &mut i64,
    ) -> runtime::Result<f32> {
        let num = points.num;
        let mut hiz = 0.0f32;
        let mut loz = 0.0f32;
        let mut myhiz = 0.0f32;
        for kk in 0..num {
            myhiz += dist(points, kk, 0) * points.p[kk].weight;
        }
        hiz += myhiz;
        let mut z = ((f64::from(hiz) + f64::from(loz)) / 2.0) as f32;
        if num as i64 <= kmax {
            for kk in 0..num {
                points.p[kk].assign = kk as i64;
                points.p[kk].cost = 0.0;
            }
            *kfinal = self.k;
            return Ok(0.0);
        }
        let mut k = self.k;
        self.shuffle(points);
        let mut cost = self.pspeedy(points, z, &mut k);
        let mut i = 0;
        while k < kmin && i < SP {
            cost = self.pspeedy(points, z, &mut k);
            i += 1;
        }
        while k < kmin {
            if i >= SP {
                hiz = z;
                z = ((f64::from(hiz) + f64::from(loz)) / 2.0) as f32;
                i = 0;
            }
            self.shuffle(points);
            cost = self.pspeedy(points, z, &mut k);
            i += 1;
        }
        let mut feasible = self.selectfeasible_fast(points, kmin);
        for i in 0..num {
            self.is_center[points.p[i].assign as usize] = true;
        }
        let iters = (ITER * kmax) as f32 * (kmax as f32).ln();
        loop {
            cost = self.pfl(points, &mut feasible, z, &mut k, cost, iters as i64, 0.1)?;
            let kf = k as f64;
            if (kf <= 1.1 * kmax as f64 && kf >= 0.9 * kmin as f64)
                || (k <= kmax + 2 && k >= kmin - 2)
            {
                cost = self.pfl(points, &mut feasible, z, &mut k, cost, iters as i64, 0.001)?;
            }
            if k > kmax {
                loz = z;
                z = ((f64::from(hiz) + f64::from(loz)) / 2.0) as f32;
                cost += (z - loz) * k as f32;
            }
            if k < kmin {
                hiz = z;
                z = ((f64::from(hiz) + f64::from(loz)) / 2.0) as f32;
                cost += (z - hiz) * k as f32;
            }
            if (k <= kmax && k >= kmin) || f64::from(loz) >= 0.999 * f64::from(hiz) {
                break;
            }
        }
        self.k = k;
        *kfinal = k;
        Ok(cost)
    }

    fn local_search(&mut self, points: &mut Points, kfinal: &mut i64) -> runtime::Result<()> {
        let num = points.num;
        self.switch_membership = vec![0; num];
        self.is_center = vec![false; num];
        self.center_table = vec![0; num];
        let (kmin, kmax) = (self.prm.kmin, self.prm.kmax);
        self.pkmedian(points, kmin, kmax, kfinal)?;
        Ok(())
    }

    /// streamCluster over a generated stream of `n` points.
    fn run(&mut self) -> runtime::Result<Clustering> {
        let Params {
            dim,
            n,
            chunksize,
            clustersize,
            ..
        } = self.prm;
        let mut stream_rng = Rng::new(STREAM_SEED);
        let mut remaining = n;
        let mut points = Points {
            dim,
            num: chunksize,
            p: (0..chunksize)
                .map(|i| Point {
                    coord: i * dim,
                    ..Point::default()
                })
                .collect(),
            store: vec![0.0; chunksize * dim],
        };
        let mut centers = Points {
            dim,
            num: 0,
            p: (0..clustersize)
                .map(|i| Point {
                    weight: 1.0,
                    coord: i * dim,
                    ..Point::default()
                })
                .collect(),
            store: vec![0.0; clustersize * dim],
        };
        let mut center_ids = vec![0i64; clustersize];
        let mut id_offset = 0i64;
        let mut kfinal = 0i64;
        loop {
            // SimStream::read: up to chunksize points into the block.
            let read = chunksize.min(remaining);
            for v in &mut points.store[..read * dim] {
                *v = stream_rng.f32_in(0.0, 1.0);
            }
            remaining -= read;
            points.num = read;
            for p in &mut points.p[..read] {
                p.weight = 1.0;
            }
            self.local_search(&mut points, &mut kfinal)?;
            contcenters(&mut points);
            self.is_coord_changed = true;
            if kfinal as usize + centers.num > clustersize {
                return Err(runtime::Error::InvalidValue(
                    "streamcluster: no more space for centers".into(),
                ));
            }
            copycenters(&points, &mut centers, &mut center_ids, id_offset);
            id_offset += read as i64;
            if remaining == 0 {
                break;
            }
        }
        self.local_search(&mut centers, &mut kfinal)?;
        contcenters(&mut centers);
        // outcenterIDs
        let mut is_a_median = vec![false; centers.num];
        for i in 0..centers.num {
            is_a_median[centers.p[i].assign as usize] = true;
        }
        let mut out = Clustering::default();
        for i in 0..centers.num {
            if is_a_median[i] {
                out.ids.push(center_ids[i]);
                out.weights.push(centers.p[i].weight);
                out.coords.extend_from_slice(centers.coord(i));
            }
        }
        Ok(out)
    }
}

/// Moves each center to the weighted mean of its cluster (`contcenters`).
fn contcenters(points: &mut Points) {
    let dim = points.dim;
    for i in 0..points.num {
        let a = points.p[i].assign as usize;
        if a != i {
            let relweight = points.p[a].weight + points.p[i].weight;
            let relweight = points.p[i].weight / relweight;
            let (ca, ci) = (points.p[a].coord, points.p[i].coord);
            for ii in 0..dim {
                let c = &mut points.store[ca + ii];
                *c = (f64::from(*c) * (1.0 - f64::from(relweight))) as f32;
                let add = points.store[ci + ii] * relweight;
                points.store[ca + ii] += add;
            }
            points.p[a].weight += points.p[i].weight;
        }
    }
}

/// Appends the centers of `points` to `centers` (`copycenters`).
fn copycenters(points: &Points, centers: &mut Points, ids: &mut [i64], offset: i64) {
    let mut is_a_median = vec![false; points.num];
    for i in 0..points.num {
        is_a_median[points.p[i].assign as usize] = true;
    }
    let mut k = centers.num;
    let dim = points.dim;
    let medians = (0..points.num).filter(|&i| is_a_median[i]);
    for i in medians {
        let c = centers.p[k].coord;
        centers.store[c..c + dim].copy_from_slice(points.coord(i));
        centers.p[k].weight = points.p[i].weight;
        ids[k] = i as i64 + offset;
        k += 1;
    }
    centers.num = k;
}

/// Streamcluster as a registered sample.
pub struct Streamcluster;

impl Sample for Streamcluster {
    fn name(&self) -> &'static str {
        "rodinia/streamcluster"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["kernel_compute_cost"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        format!(
            "{} points of {} dimensions in chunks of {}, {}–{} centers (`sc_gpu {} {} {} {} {} {}`)",
            p.n,
            p.dim,
            p.chunksize,
            p.kmin,
            p.kmax,
            p.kmin,
            p.kmax,
            p.dim,
            p.n,
            p.chunksize,
            p.clustersize
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let prm = params(size);
        let mut session = Session::new(dev);
        let module = session.load("rodinia/streamcluster/streamcluster.ptx")?;
        let kernel = module.kernel("kernel_compute_cost")?;
        let (got, mut validation) = {
            let mut sc = StreamCluster::new(
                GpuCost {
                    session: &mut session,
                    kernel,
                    state: None,
                    validation: empty_validation(),
                },
                prm,
            );
            let got = sc.run()?;
            (got, sc.backend.validation)
        };
        let want = StreamCluster::new(CpuCost, prm).run()?;
        accumulate(&mut validation, Validation::exact(&got.ids, &want.ids));
        accumulate(
            &mut validation,
            Validation::exact_f32(&got.weights, &want.weights),
        );
        accumulate(
            &mut validation,
            Validation::exact_f32(&got.coords, &want.coords),
        );
        Ok(session.finish(validation))
    }
}
