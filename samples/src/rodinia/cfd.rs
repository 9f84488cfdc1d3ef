//! Rodinia cfd (`euler3d`, single precision): an explicit finite-volume Euler solver on an
//! unstructured mesh of elements with four faces. The host uploads the far-field state and its
//! flux contributions to `__constant__` memory, initializes the variables with
//! `cuda_initialize_variables` (variables, old_variables, fluxes), then per iteration copies
//! the variables to `old_variables` and launches `cuda_compute_step_factor` followed by three
//! Runge-Kutta stages of `cuda_compute_flux` + `cuda_time_step`; every kernel has 192-thread
//! blocks over `nelr` (the element count rounded up to 192).
//!
//! The mesh: Rodinia reads `fvcorr.domn.097K` (97 046 tetrahedra). Here a seeded generator
//! builds a mesh of the same kind and size: a structured grid of prism-like cells with four
//! closed faces each (±x, ±y of a grid turned slightly against the free stream and tilted out of
//! its plane, so every normal component is used), cell volumes jittered by ±20 %, a thin plate
//! in the middle whose faces are wing (wall) boundaries, far-field faces on the outside (the
//! flow stays finite and physical over Rodinia's 2000 iterations), and the face list written as
//! Rodinia's file stores it (Fortran numbering, outward normals) and then read with Rodinia's
//! conversion (`-1`/`-2` boundary codes, negated normals). Rodinia pads to `nelr` by duplicating the last
//! element's area and neighbours but (a bug) not its normals, which stay as allocated; here
//! they are zero.
//!
//! Validation is bit-exact: the CPU reference repeats every launch with the operations NVRTC
//! emitted (`div.rn`/`sqrt.rn`, and `fma.rn` exactly where the PTX has it: for instance the
//! pressure of element i is contracted into an `fma` but a neighbour's pressure is not), so the
//! final variables after all iterations must match to the bit.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Rodinia's BLOCK_SIZE_0..4 (all kernels).
pub const BLOCK_SIZE: usize = 192;
pub const NNB: usize = 4;
pub const NDIM: usize = 3;
pub const NVAR: usize = 5;
pub const RK: usize = 3;
const GAMMA: f32 = 1.4;
const VAR_DENSITY: usize = 0;
const VAR_MOMENTUM: usize = 1;
const VAR_DENSITY_ENERGY: usize = 4;

/// Mesh and iteration count.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Grid cells in x and y (before the obstacle is cut out).
    pub nx: usize,
    pub ny: usize,
    pub iterations: usize,
}

/// small: a 24 × 16 grid (376 elements, 2 blocks), 3 iterations; default: 350 × 278 (97 068
/// elements; nelr 97 152 as for `fvcorr.domn.097K`'s 97 046) with Rodinia's 2000 iterations;
/// large: 500 × 388 (193 502 elements; nelr 193 536 as for `fvcorr.domn.193K`), 2000
/// iterations.
pub fn params(size: Size) -> Params {
    match size {
        Size::Small => Params {
            nx: 24,
            ny: 16,
            iterations: 3,
        },
        Size::Default => Params {
            nx: 350,
            ny: 278,
            iterations: 2000,
        },
        Size::Large => Params {
            nx: 500,
            ny: 388,
            iterations: 2000,
        },
    }
}

/// The mesh as the kernels see it (structure-of-arrays over `nelr`).
pub struct Mesh {
    pub nel: usize,
    pub nelr: usize,
    pub areas: Vec<f32>,
    /// `[i + j * nelr]`: neighbour element, −1 wing, −2 far field.
    pub neighbours: Vec<i32>,
    /// `[i + (j + k * NNB) * nelr]`: inward face normal times face area.
    pub normals: Vec<f32>,
}

/// The obstacle (the "wing"): a thin plate across the middle third of the grid in x, one
/// hundredth of it (at least one cell) thick in y, centred.
fn obstacle(p: &Params, ix: usize, iy: usize) -> bool {
    let (w, t) = (p.nx / 3, (p.ny / 100).max(1));
    let (x0, y0) = (p.nx / 2 - w / 2, p.ny / 2 - t / 2);
    (x0..x0 + w).contains(&ix) && (y0..y0 + t).contains(&iy)
}

/// Builds the mesh as Rodinia's file would hold it and reads it the way Rodinia does.
pub fn mesh(p: &Params) -> Mesh {
    let mut rng = Rng::new(0xCFD0_0001);
    // Element numbers (1-based, Fortran style) of the cells outside the obstacle.
    let mut id = vec![0i32; p.nx * p.ny];
    let mut nel = 0;
    for iy in 0..p.ny {
        for ix in 0..p.nx {
            if !obstacle(p, ix, iy) {
                nel += 1;
                id[iy * p.nx + ix] = nel as i32;
            }
        }
    }
    let nelr = BLOCK_SIZE * (nel / BLOCK_SIZE + (nel % BLOCK_SIZE).min(1));
    // The grid's axes, turned by 0.05 rad in the x-y plane and tilted 0.05 rad out of it: unit
    // face normals e_x and e_y.
    let (a, b) = (0.05f64, 0.05f64);
    let ex = [a.cos() * b.cos(), a.sin() * b.cos(), b.sin()].map(|v| v as f32);
    let ey = [-a.sin(), a.cos(), 0.0].map(|v| v as f32);
    let mut areas = vec![0.0f32; nelr];
    let mut neighbours = vec![0i32; nelr * NNB];
    let mut normals = vec![0.0f32; nelr * NDIM * NNB];
    let mut i = 0;
    for iy in 0..p.ny {
        for ix in 0..p.nx {
            if obstacle(p, ix, iy) {
                continue;
            }
            areas[i] = rng.f32_in(0.8, 1.2);
            // Faces −x, +x, −y, +y: (neighbour cell, outward normal).
            let faces = [
                (ix.checked_sub(1).map(|x| (x, iy)), ex, -1.0f32),
                ((ix + 1 < p.nx).then_some((ix + 1, iy)), ex, 1.0),
                (iy.checked_sub(1).map(|y| (ix, y)), ey, -1.0),
                ((iy + 1 < p.ny).then_some((ix, iy + 1)), ey, 1.0),
            ];
            for (j, (nb, axis, sign)) in faces.into_iter().enumerate() {
                // The file: a neighbour's number, 0 for the wing, negative for the far field.
                let file_nb = match nb {
                    None => -1,
                    Some((x, y)) if obstacle(p, x, y) => 0,
                    Some((x, y)) => id[y * p.nx + x],
                };
                // Rodinia's read: negative → −1, then Fortran → C numbering.
                let mut nb = if file_nb < 0 { -1 } else { file_nb };
                nb -= 1;
                neighbours[i + j * nelr] = nb;
                for k in 0..NDIM {
                    let file_normal = sign * axis[k];
                    normals[i + (j + k * NNB) * nelr] = -file_normal;
                }
            }
            i += 1;
        }
    }
    // Padding: the last element's area and neighbours (normals are left as allocated: zero).
    let last = nel - 1;
    for i in nel..nelr {
        areas[i] = areas[last];
        for j in 0..NNB {
            neighbours[i + j * nelr] = neighbours[last + j * nelr];
        }
    }
    Mesh {
        nel,
        nelr,
        areas,
        neighbours,
        normals,
    }
}

/// The far-field state and its flux contributions, computed as Rodinia's host code does.
pub struct FarField {
    pub variable: [f32; NVAR],
    /// momentum_x, momentum_y, momentum_z, density_energy (each a float3).
    pub flux_contribution: [[f32; 3]; 4],
}

/// Rodinia's host `compute_flux_contribution` (plain float arithmetic, no contraction).
fn host_flux_contribution(
    momentum: [f32; 3],
    de: f32,
    pressure: f32,
    v: [f32; 3],
) -> [[f32; 3]; 4] {
    let mx = [
        v[0] * momentum[0] + pressure,
        v[0] * momentum[1],
        v[0] * momentum[2],
    ];
    let my = [mx[1], v[1] * momentum[1] + pressure, v[1] * momentum[2]];
    let mz = [mx[2], my[2], v[2] * momentum[2] + pressure];
    let de_p = de + pressure;
    [mx, my, mz, [v[0] * de_p, v[1] * de_p, v[2] * de_p]]
}

pub fn far_field() -> FarField {
    let angle_of_attack = (std::f64::consts::PI / 180.0) as f32 * 0.0f32;
    let density = 1.4f64 as f32;
    let pressure = 1.0f32;
    let speed_of_sound = ((GAMMA * pressure / density) as f64).sqrt() as f32;
    let speed = 1.2f32 * speed_of_sound;
    let v = [
        speed * (angle_of_attack as f64).cos() as f32,
        speed * (angle_of_attack as f64).sin() as f32,
        0.0,
    ];
    let momentum = [density * v[0], density * v[1], density * v[2]];
    let energy = density * (0.5f32 * (speed * speed)) + (pressure / (GAMMA - 1.0f32));
    FarField {
        variable: [density, momentum[0], momentum[1], momentum[2], energy],
        flux_contribution: host_flux_contribution(momentum, energy, pressure, v),
    }
}

/// One element's state and derived quantities, as the kernels compute them.
struct State {
    density: f32,
    momentum: [f32; 3],
    density_energy: f32,
    velocity: [f32; 3],
    speed_sqd: f32,
}

fn load(vars: &[f32], nelr: usize, i: usize) -> State {
    let density = vars[i + VAR_DENSITY * nelr];
    let momentum = [0, 1, 2].map(|k| vars[i + (VAR_MOMENTUM + k) * nelr]);
    let velocity = momentum.map(|m| m / density);
    let speed_sqd = velocity[2].mul_add(
        velocity[2],
        velocity[0].mul_add(velocity[0], velocity[1] * velocity[1]),
    );
    State {
        density,
        momentum,
        density_energy: vars[i + VAR_DENSITY_ENERGY * nelr],
        velocity,
        speed_sqd,
    }
}

/// `compute_pressure` where NVRTC did not contract (step factor, neighbours).
fn pressure_plain(s: &State) -> f32 {
    (s.density_energy - (s.density * 0.5) * s.speed_sqd) * (GAMMA - 1.0)
}

/// `compute_speed_of_sound`.
fn speed_of_sound(s: &State, pressure: f32) -> f32 {
    ((pressure * GAMMA) / s.density).sqrt()
}

/// Reference `cuda_compute_step_factor`.
pub fn ref_step_factor(nelr: usize, vars: &[f32], areas: &[f32]) -> Vec<f32> {
    (0..nelr)
        .map(|i| {
            let s = load(vars, nelr, i);
            let c = speed_of_sound(&s, pressure_plain(&s));
            0.5 / (areas[i].sqrt() * (c + s.speed_sqd.sqrt()))
        })
        .collect()
}

/// What a face needs from a neighbour element: its state and the quantities NVRTC derives from
/// it without contracting the pressure. The same for every element that reads it, so the
/// reference computes it once per element and launch.
struct Neighbour {
    density: f32,
    momentum: [f32; 3],
    density_energy: f32,
    velocity: [f32; 3],
    speed: f32,
    sound: f32,
    de_p: f32,
    /// fma(m[a], v[a], p): the diagonal flux contributions.
    diag: [f32; 3],
}

fn neighbour(vars: &[f32], nelr: usize, k: usize) -> Neighbour {
    let s = load(vars, nelr, k);
    let pressure = pressure_plain(&s);
    Neighbour {
        density: s.density,
        momentum: s.momentum,
        density_energy: s.density_energy,
        velocity: s.velocity,
        speed: s.speed_sqd.sqrt(),
        sound: speed_of_sound(&s, pressure),
        de_p: s.density_energy + pressure,
        diag: [0, 1, 2].map(|a| s.momentum[a].mul_add(s.velocity[a], pressure)),
    }
}

/// Reference `cuda_compute_flux`.
pub fn ref_flux(mesh: &Mesh, vars: &[f32], ff: &FarField) -> Vec<f32> {
    let nelr = mesh.nelr;
    let nbs: Vec<Neighbour> = (0..nelr).map(|k| neighbour(vars, nelr, k)).collect();
    let mut fluxes = vec![0.0f32; nelr * NVAR];
    for i in 0..nelr {
        let si = load(vars, nelr, i);
        let (mi, vi) = (si.momentum, si.velocity);
        let speed_i = si.speed_sqd.sqrt();
        // NVRTC contracts element i's pressure: fma(ρ·(−0.5), |v|², ρE).
        let pressure_i =
            (si.density * -0.5).mul_add(si.speed_sqd, si.density_energy) * (GAMMA - 1.0);
        let sound_i = speed_of_sound(&si, pressure_i);
        let de_p_i = si.density_energy + pressure_i;
        // Flux contributions of i: fc_i[a][b] is fma(m[a], v[a], p) on the diagonal and
        // v[min] · m[max] off it (fc_momentum_y.x = fc_momentum_x.y, ...).
        let diag_i = [0, 1, 2].map(|a| mi[a].mul_add(vi[a], pressure_i));
        let fde_i = [0, 1, 2].map(|a| vi[a] * de_p_i);
        let mut fc_i = [[0.0f32; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                fc_i[a][b] = if a == b {
                    diag_i[a]
                } else {
                    vi[a.min(b)] * mi[a.max(b)]
                };
            }
        }

        let mut f_density = 0.0f32;
        let mut f_m = [0.0f32; 3];
        let mut f_de = 0.0f32;
        for j in 0..NNB {
            let nb = mesh.neighbours[i + j * nelr];
            let n = [0, 1, 2].map(|k| mesh.normals[i + (j + k * NNB) * nelr]);
            let normal_len = n[2].mul_add(n[2], n[0].mul_add(n[0], n[1] * n[1])).sqrt();
            if nb >= 0 {
                let sn = &nbs[nb as usize];
                let (mn, vn) = (sn.momentum, sn.velocity);
                let factor =
                    ((normal_len * -0.2) * 0.5) * (sn.sound + (sound_i + (speed_i + sn.speed)));
                f_density = (si.density - sn.density).mul_add(factor, f_density);
                f_de = (si.density_energy - sn.density_energy).mul_add(factor, f_de);
                for a in 0..3 {
                    f_m[a] = (mi[a] - mn[a]).mul_add(factor, f_m[a]);
                }
                for c in 0..3 {
                    let factor = n[c] * 0.5;
                    f_density = factor.mul_add(mi[c] + mn[c], f_density);
                    f_de = factor.mul_add(vn[c].mul_add(sn.de_p, fde_i[c]), f_de);
                    for (a, f) in f_m.iter_mut().enumerate() {
                        // fc_nb[a][c] + fc_i[a][c]: two fma results summed on the diagonal,
                        // fma(v_nb[lo], m_nb[hi], v_i[lo] · m_i[hi]) off it.
                        let sum = if a == c {
                            diag_i[a] + sn.diag[a]
                        } else {
                            vn[a.min(c)].mul_add(mn[a.max(c)], fc_i[a][c])
                        };
                        *f = factor.mul_add(sum, *f);
                    }
                }
            } else if nb == -1 {
                for c in 0..3 {
                    f_m[c] = pressure_i.mul_add(n[c], f_m[c]);
                }
            } else if nb == -2 {
                for c in 0..3 {
                    let factor = n[c] * 0.5;
                    f_density = factor.mul_add(mi[c] + ff.variable[VAR_MOMENTUM + c], f_density);
                    f_de = factor.mul_add(fde_i[c] + ff.flux_contribution[3][c], f_de);
                    for (a, f) in f_m.iter_mut().enumerate() {
                        *f = factor.mul_add(fc_i[a][c] + ff.flux_contribution[a][c], *f);
                    }
                }
            }
        }
        fluxes[i + VAR_DENSITY * nelr] = f_density;
        for a in 0..3 {
            fluxes[i + (VAR_MOMENTUM + a) * nelr] = f_m[a];
        }
        fluxes[i + VAR_DENSITY_ENERGY * nelr] = f_de;
    }
    fluxes
}

/// Reference `cuda_time_step`.
pub fn ref_time_step(
    j: usize,
    nelr: usize,
    old: &[f32],
    vars: &mut [f32],
    step: &[f32],
    fluxes: &[f32],
) {
    for (i, step) in step.iter().enumerate().take(nelr) {
        let factor = step / (RK + 1 - j) as f32;
        for v in 0..NVAR {
            let at = i + v * nelr;
            vars[at] = factor.mul_add(fluxes[at], old[at]);
        }
    }
}

/// The whole solve on the CPU: the variables after `iterations`.
pub fn reference(mesh: &Mesh, ff: &FarField, iterations: usize) -> Vec<f32> {
    let nelr = mesh.nelr;
    let mut vars: Vec<f32> = (0..NVAR * nelr).map(|at| ff.variable[at / nelr]).collect();
    for _ in 0..iterations {
        let old = vars.clone();
        let step = ref_step_factor(nelr, &vars, &mesh.areas);
        for j in 0..RK {
            let fluxes = ref_flux(mesh, &vars, ff);
            ref_time_step(j, nelr, &old, &mut vars, &step, &fluxes);
        }
    }
    vars
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// cfd as a registered sample.
pub struct Cfd;

impl Sample for Cfd {
    fn name(&self) -> &'static str {
        "rodinia/cfd"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &[
            "cuda_initialize_variables",
            "cuda_compute_step_factor",
            "cuda_compute_flux",
            "cuda_time_step",
        ]
    }

    fn size_description(&self, size: Size) -> String {
        let p = params(size);
        let m = mesh(&p);
        format!(
            "{} elements ({} padded), {} iterations × (step factor + {RK} × (flux + time step))",
            m.nel, m.nelr, p.iterations
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = params(size);
        let m = mesh(&p);
        let ff = far_field();
        let nelr = m.nelr;

        let mut session = Session::new(dev);
        let module = session.load("rodinia/cfd/cfd.ptx")?;
        let init = module.kernel("cuda_initialize_variables")?;
        let step_factor = module.kernel("cuda_compute_step_factor")?;
        let flux = module.kernel("cuda_compute_flux")?;
        let time_step = module.kernel("cuda_time_step")?;

        // Far-field conditions to constant memory (cudaMemcpyToSymbol).
        module.write_symbol("ff_variable", 0, &f32_bytes(&ff.variable))?;
        for (name, fc) in [
            "ff_flux_contribution_momentum_x",
            "ff_flux_contribution_momentum_y",
            "ff_flux_contribution_momentum_z",
            "ff_flux_contribution_density_energy",
        ]
        .into_iter()
        .zip(&ff.flux_contribution)
        {
            module.write_symbol(name, 0, &f32_bytes(fc))?;
        }

        let areas = dev.alloc_from(&m.areas)?;
        let neighbours = dev.alloc_from(&m.neighbours)?;
        let normals = dev.alloc_from(&m.normals)?;
        let variables = dev.alloc::<f32>(nelr * NVAR)?;
        let old_variables = dev.alloc::<f32>(nelr * NVAR)?;
        let fluxes = dev.alloc::<f32>(nelr * NVAR)?;
        let step_factors = dev.alloc::<f32>(nelr)?;
        let grid = (nelr / BLOCK_SIZE) as u32;
        let block = BLOCK_SIZE as u32;
        let nelr_arg = Arg::I32(nelr as i32);
        for buf in [&variables, &old_variables, &fluxes] {
            session.launch(&init, grid, block, 0, &[nelr_arg.clone(), buf.into()])?;
        }
        step_factors.memset(0)?;

        for _ in 0..p.iterations {
            // copy<float>(old_variables, variables): device to device, through the host here.
            old_variables.copy_from_host(&variables.to_host()?)?;
            session.launch(
                &step_factor,
                grid,
                block,
                0,
                &[
                    nelr_arg.clone(),
                    (&variables).into(),
                    (&areas).into(),
                    (&step_factors).into(),
                ],
            )?;
            for j in 0..RK {
                session.launch(
                    &flux,
                    grid,
                    block,
                    0,
                    &[
                        nelr_arg.clone(),
                        (&neighbours).into(),
                        (&normals).into(),
                        (&variables).into(),
                        (&fluxes).into(),
                    ],
                )?;
                session.launch(
                    &time_step,
                    grid,
                    block,
                    0,
                    &[
                        Arg::I32(j as i32),
                        nelr_arg.clone(),
                        (&old_variables).into(),
                        (&variables).into(),
                        (&step_factors).into(),
                        (&fluxes).into(),
                    ],
                )?;
            }
        }
        let got = variables.to_host()?;
        let want = reference(&m, &ff, p.iterations);
        Ok(session.finish(Validation::exact_f32(&got, &want)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A uniform free stream stays uniform on the closed cells of the mesh away from the
    /// obstacle and the outer boundary, and the solution stays physical.
    #[test]
    fn solution_stays_physical() {
        let p = params(Size::Small);
        let m = mesh(&p);
        let ff = far_field();
        let vars = reference(&m, &ff, 20);
        for (i, &density) in vars.iter().enumerate().take(m.nel) {
            assert!(
                density.is_finite() && density > 0.0,
                "density {density} at {i}"
            );
        }
    }
}
