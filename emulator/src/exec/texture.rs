//! Executing texture and surface instructions (`tex`, `tld4`, `txq`, `suld`, `sust`, `sured`,
//! `suq`) lane by lane: each lane resolves its handle to an object of the device's table
//! ([`crate::texture`]), then samples ([`crate::texture::sample`]) or accesses the surface.
//! The timing model's lane targets come from the same code, reading nothing.

use super::{CtaEnv, Target, at, global_fault, lanes, write};
use crate::alu::round::{self, Format as FloatFormat};
use crate::error::FaultKind;
use crate::texture::sample::{self, Coords, Read};
use crate::texture::{
    ChannelKind, Layout, ReadMode, Resource, ResourceKind, SamplerState, Surface, Texture,
};
use crate::warp::{WARP_SIZE, Warp};
use isa::{
    Inst, Op, Operand, ResourceQuery, Rounding, SurfaceAccess, SurfaceClamp, Tex, TexGeom,
    TexLevel, Tld4, Type,
};

type LaneResult<T> = Result<T, (FaultKind, u32)>;

/// Executes a texture or surface instruction for the lanes of `exec`.
pub(super) fn execute(env: &mut CtaEnv, w: &mut Warp, inst: &Inst, exec: u32) -> LaneResult<()> {
    let program = env.program;
    let code = &program.code[w.frame().func.index()];
    let mem = env.mem;
    let mut load = |a: u64, n: u32| mem.load(a, n).map_err(global_fault);
    for l in lanes(exec) {
        let results: Vec<(u64, Type)> = match &inst.op {
            Op::Tex(t) => {
                let (r, float) = lookup(env, w, inst, t, l, &mut load).map_err(at(l))?;
                let mut out = tex_results(t.dty, r, float);
                if inst.dsts.len() > 1 {
                    out.push((1, Type::Pred));
                }
                out
            }
            Op::Tld4(t) => {
                let r = gather(env, w, inst, t, l, &mut load).map_err(at(l))?;
                let mut out: Vec<_> = r.iter().map(|v| (u64::from(*v), Type::B32)).collect();
                if inst.dsts.len() > 1 {
                    out.push((1, Type::Pred));
                }
                out
            }
            Op::Txq { query, level } => {
                let lod = level.then(|| env.read(w, &inst.srcs[1], l) as i32);
                let r = resolve(env, w, &inst.srcs[0], l).map_err(at(l))?;
                vec![(u64::from(txq(&r, *query, lod)), Type::B32)]
            }
            Op::Suq { query } => {
                let s = surface(env, w, &inst.srcs[0], l).map_err(at(l))?;
                vec![(u64::from(query_layout(&s.layout, *query)), Type::B32)]
            }
            Op::Suld(a) => {
                let mut out = Vec::with_capacity(usize::from(a.vec));
                let addr = surface_element(env, w, inst, a, l).map_err(at(l))?;
                for i in 0..u32::from(a.vec) {
                    let v = match addr {
                        Some(addr) => {
                            load(addr + u64::from(i * a.ty.bytes()), a.ty.bytes()).map_err(at(l))?
                        }
                        None => 0,
                    };
                    out.push((v, a.ty));
                }
                out
            }
            Op::Sust(a) => {
                if let Some(addr) = surface_element(env, w, inst, a, l).map_err(at(l))? {
                    for (i, e) in elements(&inst.srcs[2]).iter().enumerate() {
                        let v = env.read(w, e, l);
                        let size = a.ty.bytes();
                        env.store_global(addr + i as u64 * u64::from(size), size, v)
                            .map_err(global_fault)
                            .map_err(at(l))?;
                    }
                }
                Vec::new()
            }
            Op::Sured { op, access } => {
                if let Some(addr) = surface_element(env, w, inst, access, l).map_err(at(l))? {
                    let b = env.read(w, &inst.srcs[2], l);
                    let update = |old| crate::alu::atomic_update(*op, access.ty, old, b, 0);
                    env.mem
                        .atomic(addr, access.ty.bytes(), update)
                        .map_err(global_fault)
                        .map_err(at(l))?;
                }
                Vec::new()
            }
            _ => unreachable!("texture::execute of a non-texture instruction"),
        };
        let frame = w.frame_mut();
        let mut dsts = inst.dsts.iter().flat_map(|d| match d {
            Operand::Vector(v) => v.iter(),
            d => std::slice::from_ref(d).iter(),
        });
        for (v, ty) in results {
            if let Some(d) = dsts.next() {
                write(frame, code, d, l, v, ty);
            }
        }
    }
    Ok(())
}

/// Where each lane of `exec` reads or writes when `inst` (a texture or surface instruction)
/// runs: the first texel a lookup reads, the element a surface access moves. Lanes that read
/// nothing, or that will fault, get [`Target::None`].
pub(super) fn lane_targets(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    exec: u32,
    out: &mut [Target; WARP_SIZE],
) {
    for (l, t) in out.iter_mut().enumerate() {
        *t = Target::None;
        if exec & (1 << l) == 0 {
            continue;
        }
        let mut first = None;
        let mut record = |a: u64, _: u32| -> Result<u64, FaultKind> {
            first.get_or_insert(a);
            Ok(0)
        };
        let found = match &inst.op {
            Op::Tex(x) => lookup(env, w, inst, x, l, &mut record).is_ok(),
            Op::Tld4(x) => gather(env, w, inst, x, l, &mut record).is_ok(),
            Op::Suld(a) | Op::Sust(a) | Op::Sured { access: a, .. } => {
                first = surface_element(env, w, inst, a, l).ok().flatten();
                true
            }
            _ => false,
        };
        if found && let Some(a) = first {
            *t = Target::Global(a);
        }
    }
}

/// The object a texture, sampler or surface operand names in lane `l`: a handle, or a
/// pointer to an opaque module variable, whose 8 bytes hold the handle bound to it.
fn resolve(env: &CtaEnv, w: &Warp, operand: &Operand, l: usize) -> Result<Resource, FaultKind> {
    let value = env.read(w, operand, l);
    let resources = env.mem.resources();
    if let Some(r) = resources.get(value) {
        return Ok(r);
    }
    let program = env.program;
    let opaque = program
        .global_addrs
        .iter()
        .zip(&program.module.globals)
        .find(|(a, g)| **a == Some(value) && g.opaque.is_some());
    let Some((_, var)) = opaque else {
        return Err(FaultKind::InvalidOperand {
            detail: format!("{value:#x} is not a texture, sampler or surface handle"),
        });
    };
    let handle = env.mem.load(value, 8).map_err(global_fault)?;
    resources
        .get(handle)
        .ok_or_else(|| FaultKind::InvalidOperand {
            detail: if handle == 0 {
                format!("`.{} {}` is not bound", var.ty_name(), var.name)
            } else {
                format!(
                    "`.{} {}` is bound to handle {handle}, which names no live object",
                    var.ty_name(),
                    var.name
                )
            },
        })
}

trait OpaqueName {
    fn ty_name(&self) -> &'static str;
}

impl OpaqueName for isa::Variable {
    fn ty_name(&self) -> &'static str {
        self.opaque.map_or("b64", isa::Opaque::type_name)
    }
}

fn wrong_kind(r: &Resource, want: &str) -> FaultKind {
    FaultKind::InvalidOperand {
        detail: format!("a {} handle where a {want} is expected", r.kind_name()),
    }
}

fn texture(env: &CtaEnv, w: &Warp, operand: &Operand, l: usize) -> Result<Texture, FaultKind> {
    match resolve(env, w, operand, l)? {
        Resource::Texture(t) => Ok(t),
        r => Err(wrong_kind(&r, "texture")),
    }
}

fn sampler(env: &CtaEnv, w: &Warp, operand: &Operand, l: usize) -> Result<SamplerState, FaultKind> {
    match resolve(env, w, operand, l)? {
        Resource::Sampler(s) => Ok(s),
        r => Err(wrong_kind(&r, "sampler")),
    }
}

fn surface(env: &CtaEnv, w: &Warp, operand: &Operand, l: usize) -> Result<Surface, FaultKind> {
    match resolve(env, w, operand, l)? {
        Resource::Surface(s) => Ok(s),
        r => Err(wrong_kind(&r, "surface")),
    }
}

/// The instruction's geometry against the object's: the same dimensions, layered or not.
fn check_geometry(layout: &Layout, geom: TexGeom, inst: &Inst) -> Result<(), FaultKind> {
    if geom.dims() == usize::from(layout.dims) && geom.layered() == (layout.layers > 0) {
        return Ok(());
    }
    Err(FaultKind::InvalidOperand {
        detail: format!("`{}` on a {} object", inst.op, layout.describe()),
    })
}

fn elements(o: &Operand) -> &[Operand] {
    match o {
        Operand::Vector(v) => v,
        o => std::slice::from_ref(o),
    }
}

/// A coordinate vector's layer (0 when not layered) and its first three coordinates' bits.
fn coordinates(env: &CtaEnv, w: &Warp, o: &Operand, geom: TexGeom, l: usize) -> (u32, [u32; 3]) {
    let elems = elements(o);
    let (layer, rest) = if geom.layered() {
        (env.read(w, &elems[0], l) as u32, &elems[1..])
    } else {
        (0, elems)
    };
    let mut c = [0u32; 3];
    for (d, e) in rest.iter().take(geom.dims()).enumerate() {
        c[d] = env.read(w, e, l) as u32;
    }
    (layer, c)
}

fn offsets(env: &CtaEnv, w: &Warp, o: &Operand, l: usize) -> [i32; 3] {
    let mut out = [0i32; 3];
    for (d, e) in elements(o).iter().take(3).enumerate() {
        out[d] = env.read(w, e, l) as i32;
    }
    out
}

/// What a `tex` or `tld4` reads in lane `l` before sampling: its texture, the sampler state
/// (the texture's own, or the sampler operand's), the layer and coordinates' bits, and the
/// index of the source after the coordinates.
struct Lookup {
    tex: Texture,
    state: SamplerState,
    layer: u32,
    coords: [u32; 3],
    next: usize,
}

fn prepare(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    geom: TexGeom,
    with_sampler: bool,
    l: usize,
) -> Result<Lookup, FaultKind> {
    let tex = texture(env, w, &inst.srcs[0], l)?;
    let state = match with_sampler {
        true => sampler(env, w, &inst.srcs[1], l)?,
        false => tex.sampler,
    };
    check_geometry(&tex.layout, geom, inst)?;
    let at = 1 + usize::from(with_sampler);
    let (layer, coords) = coordinates(env, w, &inst.srcs[at], geom, l);
    Ok(Lookup {
        tex,
        state,
        layer,
        coords,
        next: at + 1,
    })
}

/// `tex` in lane `l`: the four results and whether they are floats.
fn lookup(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    t: &Tex,
    l: usize,
    read: &mut Read<FaultKind>,
) -> Result<([u32; 4], bool), FaultKind> {
    let p = prepare(env, w, inst, t.geom, t.sampler, l)?;
    // One level of detail: `tex.level` and `tex.grad` read the base level.
    let extra = match t.level {
        TexLevel::Level => 1,
        TexLevel::Grad => 2,
        TexLevel::Implicit | TexLevel::Base => 0,
    };
    let offset = match t.offset {
        true => offsets(env, w, &inst.srcs[p.next + extra], l),
        false => [0; 3],
    };
    let coords = match t.cty {
        Type::S32 => Coords::Int(p.coords.map(|v| v as i32)),
        _ => Coords::Float(p.coords.map(f32::from_bits)),
    };
    let r = sample::lookup(&p.tex, &p.state, p.layer, coords, offset, read)?;
    Ok((r, p.tex.returns_float()))
}

/// `tld4` in lane `l`.
fn gather(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    t: &Tld4,
    l: usize,
    read: &mut Read<FaultKind>,
) -> Result<[u32; 4], FaultKind> {
    let p = prepare(env, w, inst, t.geom, t.sampler, l)?;
    let offset = match t.offset {
        true => offsets(env, w, &inst.srcs[p.next], l),
        false => [0; 3],
    };
    let coords = [f32::from_bits(p.coords[0]), f32::from_bits(p.coords[1])];
    let offset = [offset[0], offset[1]];
    sample::gather(
        &p.tex,
        &p.state,
        p.layer,
        coords,
        offset,
        t.comp.index(),
        read,
    )
}

/// A lookup's results in the destination type: four 32-bit values, four halves (`.f16`), or
/// two pairs of halves (`.f16x2`, the first of each pair in the low half).
fn tex_results(dty: Type, r: [u32; 4], float: bool) -> Vec<(u64, Type)> {
    let half = |v: u32| {
        if float {
            round::convert(
                FloatFormat::F32,
                FloatFormat::F16,
                u64::from(v),
                Rounding::Rn,
            )
        } else {
            u64::from(v & 0xffff)
        }
    };
    match dty {
        Type::F16 => r.iter().map(|v| (half(*v), Type::F16)).collect(),
        Type::F16x2 => vec![
            (half(r[0]) | half(r[1]) << 16, Type::F16x2),
            (half(r[2]) | half(r[3]) << 16, Type::F16x2),
        ],
        _ => r.iter().map(|v| (u64::from(*v), Type::B32)).collect(),
    }
}

/// The device address of a surface access in lane `l`, `None` when it is outside the
/// surface in `.zero` mode (a load reads zero, a store does nothing).
fn surface_element(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    a: &SurfaceAccess,
    l: usize,
) -> Result<Option<u64>, FaultKind> {
    let s = surface(env, w, &inst.srcs[0], l)?;
    check_geometry(&s.layout, a.geom, inst)?;
    let (layer, c) = coordinates(env, w, &inst.srcs[1], a.geom, l);
    let layout = &s.layout;
    let bytes = i64::from(a.bytes());
    let mut x = i64::from(c[0] as i32);
    if x.rem_euclid(bytes) != 0 {
        return Err(FaultKind::InvalidOperand {
            detail: format!(
                "`{}`: byte coordinate x = {x} is not a multiple of the access size {bytes}",
                inst.op
            ),
        });
    }
    let row_bytes = i64::from(layout.extent[0]) * i64::from(layout.format.texel_bytes());
    let mut at = [0i64; 3];
    at[0] = x;
    for d in 1..a.geom.dims() {
        at[d] = i64::from(c[d] as i32);
    }
    let mut layer = i64::from(layer);
    let limits = [
        row_bytes - bytes,
        i64::from(layout.extent[1]) - 1,
        i64::from(layout.extent[2]) - 1,
    ];
    let last_layer = i64::from(layout.layers) - 1;
    let inside = (0..3).all(|d| (0..=limits[d]).contains(&at[d]))
        && (layout.layers == 0 || (0..=last_layer).contains(&layer));
    if !inside {
        match a.clamp {
            SurfaceClamp::Zero => return Ok(None),
            SurfaceClamp::Trap => {
                return Err(FaultKind::InvalidOperand {
                    detail: format!(
                        "`{}` at x = {x} bytes, y = {}, z = {}{} is outside the surface ({})",
                        inst.op,
                        at[1],
                        at[2],
                        if layout.layers > 0 {
                            format!(", layer {layer}")
                        } else {
                            String::new()
                        },
                        layout.describe()
                    ),
                });
            }
            SurfaceClamp::Clamp => {
                x = x.clamp(0, limits[0].max(0)) / bytes * bytes;
                at[0] = x;
                for d in 1..3 {
                    at[d] = at[d].clamp(0, limits[d]);
                }
                layer = layer.clamp(0, last_layer.max(0));
            }
        }
    }
    Ok(Some(
        layout.base
            + layer as u64 * layout.layer_pitch
            + at[2] as u64 * layout.slice_pitch
            + at[1] as u64 * layout.row_pitch
            + at[0] as u64,
    ))
}

/// OpenCL's channel data type codes (`CL_SNORM_INT8`, ...), which `txq`/`suq` return.
fn channel_data_type(kind: ChannelKind, read: ReadMode) -> u32 {
    let normalized = read == ReadMode::NormalizedFloat;
    match (kind, normalized) {
        (ChannelKind::S8, true) => 0x10D0,
        (ChannelKind::S16, true) => 0x10D1,
        (ChannelKind::U8, true) => 0x10D2,
        (ChannelKind::U16, true) => 0x10D3,
        (ChannelKind::S8, _) => 0x10D7,
        (ChannelKind::S16, _) => 0x10D8,
        (ChannelKind::S32, _) => 0x10D9,
        (ChannelKind::U8, _) => 0x10DA,
        (ChannelKind::U16, _) => 0x10DB,
        (ChannelKind::U32, _) => 0x10DC,
        (ChannelKind::F16, _) => 0x10DD,
        (ChannelKind::F32, _) => 0x10DE,
    }
}

/// What `txq` reads of a texture (its own sampler state in unified mode) or a sampler.
fn txq(r: &Resource, query: ResourceQuery, lod: Option<i32>) -> u32 {
    let (tex, state) = match r {
        Resource::Texture(t) => (Some(t), t.sampler),
        Resource::Sampler(s) => (None, *s),
        Resource::Surface(s) => return query_layout(&s.layout, query),
    };
    match query {
        ResourceQuery::FilterMode => state.filter as u32,
        ResourceQuery::AddrMode(d) => state.address[usize::from(d)] as u32,
        ResourceQuery::ForceUnnormalizedCoords => u32::from(!state.normalized_coords),
        ResourceQuery::NormalizedCoords => u32::from(state.normalized_coords),
        // Textures have one level: other levels have no extent.
        _ if lod.is_some_and(|lod| lod != 0) => 0,
        ResourceQuery::ChannelDataType => {
            tex.map_or(0, |t| channel_data_type(t.layout.format.kind, t.read_mode))
        }
        _ => tex.map_or(0, |t| query_layout(&t.layout, query)),
    }
}

/// The properties an object's memory layout answers (`suq`, and `txq`'s extents).
fn query_layout(layout: &Layout, query: ResourceQuery) -> u32 {
    match query {
        ResourceQuery::Width => layout.extent[0],
        ResourceQuery::Height => layout.extent[1],
        ResourceQuery::Depth => layout.extent[2],
        ResourceQuery::ArraySize => layout.layers,
        // OpenCL's CL_R, CL_RG, CL_RGBA.
        ResourceQuery::ChannelOrder => match layout.format.channels {
            1 => 0x10B0,
            2 => 0x10B2,
            _ => 0x10B5,
        },
        ResourceQuery::ChannelDataType => {
            channel_data_type(layout.format.kind, ReadMode::ElementType)
        }
        ResourceQuery::NumMipmapLevels | ResourceQuery::NumSamples => 1,
        // 1 for pitch-linear memory, 0 for arrays (block-linear on NVIDIA GPUs).
        ResourceQuery::MemoryLayout => u32::from(layout.kind != ResourceKind::Array),
        ResourceQuery::NormalizedCoords
        | ResourceQuery::ForceUnnormalizedCoords
        | ResourceQuery::FilterMode
        | ResourceQuery::AddrMode(_) => 0,
    }
}
