//! Texture and surface instructions: their geometries, queries and modifiers.
//!
//! Operand conventions (the interpreter, the JIT and the timing model rely on them):
//! - The texture, sampler or surface is a `.u64` value: a register holding an object handle
//!   (bindless, `cudaTextureObject_t`) or a pointer to an opaque variable (`mov.u64 %rd, tex`),
//!   or [`crate::Operand::SymbolAddr`] of a module-scope `.texref`, `.samplerref` or `.surfref`
//!   variable ([`crate::Variable::opaque`]), whose 8 bytes hold the handle the host bound to it.
//! - Coordinates are one [`crate::Operand::Vector`] with the geometry's element count
//!   ([`TexGeom::coord_operands`]): a layered geometry's layer index first, then x, y, z; a 3-D
//!   coordinate vector has a fourth, ignored element.
//!
//! `tex.{cube,acube,2dms,a2dms}`, depth-compare operands and `sust.p`/`suld.p` (formatted
//! surface access) lower to [`crate::Op::Unsupported`]: warpsim has no cube-map, multi-sample
//! or depth textures.

use crate::types::Type;

/// The geometry of a texture or surface access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    /// An array of 1-D layers (`.a1d`).
    A1d,
    /// An array of 2-D layers (`.a2d`).
    A2d,
}

impl TexGeom {
    pub fn from_name(name: &str) -> Option<TexGeom> {
        Some(match name {
            "1d" => TexGeom::D1,
            "2d" => TexGeom::D2,
            "3d" => TexGeom::D3,
            "a1d" => TexGeom::A1d,
            "a2d" => TexGeom::A2d,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            TexGeom::D1 => "1d",
            TexGeom::D2 => "2d",
            TexGeom::D3 => "3d",
            TexGeom::A1d => "a1d",
            TexGeom::A2d => "a2d",
        }
    }

    /// The dimensions of one layer (1, 2 or 3).
    pub fn dims(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::A1d => 1,
            TexGeom::D2 | TexGeom::A2d => 2,
            TexGeom::D3 => 3,
        }
    }

    /// Whether the first coordinate selects a layer.
    pub fn layered(self) -> bool {
        matches!(self, TexGeom::A1d | TexGeom::A2d)
    }

    /// Elements of the coordinate vector: the layer index (layered geometries), the
    /// coordinates, and the padding PTX requires to make 3 elements 4.
    pub fn coord_operands(self) -> usize {
        match self {
            TexGeom::D1 => 1,
            TexGeom::D2 | TexGeom::A1d => 2,
            TexGeom::D3 | TexGeom::A2d => 4,
        }
    }

    /// Elements of an offset vector (`tex`'s optional `e`): one per dimension, a 3-D offset
    /// padded to 4.
    pub fn offset_operands(self) -> usize {
        match self.dims() {
            3 => 4,
            d => d,
        }
    }
}

/// The mipmap level a `tex` samples: `tex`/`tex.base` the base level, `tex.level` an explicit
/// level of detail (a source), `tex.grad` one from gradients (two vector sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexLevel {
    Implicit,
    Base,
    Level,
    Grad,
}

/// `tex{.base,.level,.grad}.geom.v4.dtype.ctype d{|p}, [a{, b}, c]{, lod | dPdx, dPdy}{, e}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tex {
    pub geom: TexGeom,
    pub level: TexLevel,
    /// The destination's element type: `.u32`, `.s32`, `.f32`, `.f16` (four results), or
    /// `.f16x2` (four results packed in two registers).
    pub dty: Type,
    /// The coordinates' type: `.s32` (texel indices, never filtered) or `.f32`.
    pub cty: Type,
    /// Independent mode: a sampler operand follows the texture.
    pub sampler: bool,
    /// A coordinate offset vector (`e`, texels in -8..=7) is the last source.
    pub offset: bool,
}

/// The channel `tld4` gathers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    R,
    G,
    B,
    A,
}

impl Channel {
    pub fn from_name(name: &str) -> Option<Channel> {
        Some(match name {
            "r" => Channel::R,
            "g" => Channel::G,
            "b" => Channel::B,
            "a" => Channel::A,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        ["r", "g", "b", "a"][self.index()]
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// `tld4.comp.{2d,a2d}.v4.dtype.f32 d{|p}, [a{, b}, c]{, e}`: the channel `comp` of the four
/// texels a bilinear filter at `c` would read, counter-clockwise from the lower left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tld4 {
    pub comp: Channel,
    pub geom: TexGeom,
    pub dty: Type,
    pub sampler: bool,
    pub offset: bool,
}

/// What `txq` and `suq` read of a texture, sampler or surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceQuery {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    MemoryLayout,
    ForceUnnormalizedCoords,
    FilterMode,
    /// `.addr_mode_N`: the address mode of dimension N.
    AddrMode(u8),
}

impl ResourceQuery {
    /// The query named `name`, if `txq` (`surface` false) or `suq` (`surface` true) has it.
    pub fn from_name(name: &str, surface: bool) -> Option<ResourceQuery> {
        use ResourceQuery as Q;
        let q = match name {
            "width" => Q::Width,
            "height" => Q::Height,
            "depth" => Q::Depth,
            "channel_data_type" => Q::ChannelDataType,
            "channel_order" => Q::ChannelOrder,
            "array_size" => Q::ArraySize,
            "memory_layout" => Q::MemoryLayout,
            "normalized_coords" => Q::NormalizedCoords,
            "num_mipmap_levels" => Q::NumMipmapLevels,
            "num_samples" => Q::NumSamples,
            "force_unnormalized_coords" => Q::ForceUnnormalizedCoords,
            "filter_mode" => Q::FilterMode,
            "addr_mode_0" => Q::AddrMode(0),
            "addr_mode_1" => Q::AddrMode(1),
            "addr_mode_2" => Q::AddrMode(2),
            _ => return None,
        };
        let ok = if surface {
            matches!(
                q,
                Q::Width
                    | Q::Height
                    | Q::Depth
                    | Q::ChannelDataType
                    | Q::ChannelOrder
                    | Q::ArraySize
                    | Q::MemoryLayout
            )
        } else {
            q != Q::MemoryLayout
        };
        ok.then_some(q)
    }

    pub fn name(self) -> &'static str {
        use ResourceQuery as Q;
        match self {
            Q::Width => "width",
            Q::Height => "height",
            Q::Depth => "depth",
            Q::ChannelDataType => "channel_data_type",
            Q::ChannelOrder => "channel_order",
            Q::NormalizedCoords => "normalized_coords",
            Q::ArraySize => "array_size",
            Q::NumMipmapLevels => "num_mipmap_levels",
            Q::NumSamples => "num_samples",
            Q::MemoryLayout => "memory_layout",
            Q::ForceUnnormalizedCoords => "force_unnormalized_coords",
            Q::FilterMode => "filter_mode",
            Q::AddrMode(0) => "addr_mode_0",
            Q::AddrMode(1) => "addr_mode_1",
            Q::AddrMode(_) => "addr_mode_2",
        }
    }

    /// Whether `txq.level` may ask it (the extents of one level).
    pub fn per_level(self) -> bool {
        matches!(
            self,
            ResourceQuery::Width | ResourceQuery::Height | ResourceQuery::Depth
        )
    }
}

/// What a surface access does with a coordinate outside the surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SurfaceClamp {
    /// `.trap`: the access faults.
    Trap,
    /// `.clamp`: the access goes to the nearest element inside.
    Clamp,
    /// `.zero`: a load returns zero, a store does nothing.
    Zero,
}

impl SurfaceClamp {
    pub fn from_name(name: &str) -> Option<SurfaceClamp> {
        Some(match name {
            "trap" => SurfaceClamp::Trap,
            "clamp" => SurfaceClamp::Clamp,
            "zero" => SurfaceClamp::Zero,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            SurfaceClamp::Trap => "trap",
            SurfaceClamp::Clamp => "clamp",
            SurfaceClamp::Zero => "zero",
        }
    }
}

/// An unformatted surface access (`suld.b`, `sust.b`, `sured.b`): `vec` elements of `ty` at a
/// byte x coordinate (and element y, z, layer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SurfaceAccess {
    pub geom: TexGeom,
    /// `.b8`, `.b16`, `.b32` or `.b64` (`sured`: its operation's type).
    pub ty: Type,
    pub vec: u8,
    pub clamp: SurfaceClamp,
}

impl SurfaceAccess {
    /// Bytes the access moves.
    pub fn bytes(&self) -> u32 {
        self.ty.bytes() * u32::from(self.vec)
    }
}

/// An opaque module-scope variable's kind (`.texref`, `.samplerref`, `.surfref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opaque {
    Texture,
    Sampler,
    Surface,
}

impl Opaque {
    pub fn from_type_name(name: &str) -> Option<Opaque> {
        Some(match name {
            "texref" => Opaque::Texture,
            "samplerref" => Opaque::Sampler,
            "surfref" => Opaque::Surface,
            _ => return None,
        })
    }

    pub fn type_name(self) -> &'static str {
        match self {
            Opaque::Texture => "texref",
            Opaque::Sampler => "samplerref",
            Opaque::Surface => "surfref",
        }
    }
}

/// Drops the results of texture lookups that nothing in `func` reads: they become
/// [`crate::Operand::Sink`]s, as a texture instruction's write mask leaves those registers
/// alone on NVIDIA GPUs (`tex1Dfetch` of a `float` writes one register, not four), so they
/// take no register.
pub fn mask_unread_results(func: &mut crate::Function) {
    let mut read = vec![false; func.regs.len()];
    for inst in func.blocks.iter().flat_map(|b| &b.insts) {
        for r in inst.uses() {
            read[r.index()] = true;
        }
    }
    for inst in func.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        if !matches!(inst.op, crate::Op::Tex(_) | crate::Op::Tld4(_)) {
            continue;
        }
        if let Some(crate::Operand::Vector(results)) = inst.dsts.first_mut() {
            for r in results.iter_mut() {
                if matches!(r, crate::Operand::Reg(v) if !read[v.index()]) {
                    *r = crate::Operand::Sink;
                }
            }
        }
    }
}
