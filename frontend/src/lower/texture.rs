//! Texture and surface instructions in the front end: decoding `tex`, `tld4`, `txq`, `suld`,
//! `sust`, `sured` and `suq`, and lowering their operands, whose `[a, b, c]` brackets and
//! `{...}|p` destinations the generic shape matching does not know ([`isa::texture`] has the
//! operand conventions of the result).

use super::Result;
use super::body::{FnLowerer, LocalName};
use super::decode::Decoded;
use super::mods::Mods;
use super::shape::Slot;
use super::{ModuleName, body::inst_span};
use crate::ast::{self, OperandKind as K};
use crate::diag::Diagnostic;
use isa::{
    AtomOp, Op, Opaque, Operand, ResourceQuery, SurfaceAccess, SurfaceClamp, SymbolRef, Tex,
    TexGeom, TexLevel, Tld4, Type,
};

/// Geometries that are valid PTX but that warpsim has no textures for.
fn unexecuted_geometry(s: &str) -> bool {
    matches!(s, "cube" | "acube" | "2dms" | "a2dms")
}

fn geometry(m: &mut Mods) -> Result<TexGeom> {
    m.take(TexGeom::from_name)?
        .ok_or_else(|| m.error("missing the geometry (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`)"))
}

/// Decodes a texture or surface instruction; `None` for opcodes that are not one.
pub(super) fn decode(opcode: &str, m: &mut Mods) -> Result<Option<Decoded>> {
    Ok(Some(match opcode {
        "tex" => tex(m)?,
        "tld4" => tld4(m)?,
        "txq" => {
            let level = m.flag("level")?;
            let query = m
                .take(|s| ResourceQuery::from_name(s, false))?
                .ok_or_else(|| m.error("missing the query (`.width`, `.filter_mode`, ...)"))?;
            if level && !query.per_level() {
                return Err(m.error(format!("`.{}` has no `.level` form", query.name())));
            }
            b32_result(m)?;
            Decoded::Texture(Op::Txq { query, level })
        }
        "suq" => {
            let query = m
                .take(|s| ResourceQuery::from_name(s, true))?
                .ok_or_else(|| m.error("missing the query (`.width`, `.channel_order`, ...)"))?;
            b32_result(m)?;
            Decoded::Texture(Op::Suq { query })
        }
        // Formatted surface access (`.p`) is not executed.
        "suld" | "sust" | "sured" if m.any(|s| s == "p") => Decoded::Unsupported,
        "suld" | "sust" => {
            if !m.flag("b")? {
                return Err(m.error("missing `.b` (unformatted access)"));
            }
            let geom = geometry(m)?;
            // Cache operators are hints; warpsim's caches are the timing model's.
            m.take(|s| matches!(s, "ca" | "cg" | "cs" | "cv" | "wb" | "wt").then_some(()))?;
            let vec = m.vector()?;
            if vec > 4 {
                return Err(m.error("invalid vector width (`.v2` or `.v4`)"));
            }
            let ty = m.one_type()?;
            if !matches!(ty, Type::B8 | Type::B16 | Type::B32 | Type::B64) {
                return Err(m.error(format!("invalid type `.{ty}` (`.b8` to `.b64`)")));
            }
            let access = SurfaceAccess {
                geom,
                ty,
                vec,
                clamp: clamp(m)?,
            };
            Decoded::Texture(if opcode == "suld" {
                Op::Suld(access)
            } else {
                Op::Sust(access)
            })
        }
        "sured" => {
            if !m.flag("b")? {
                return Err(m.error("missing `.b` (unformatted access)"));
            }
            let op = m
                .take(|s| match s {
                    "add" => Some(AtomOp::Add),
                    "min" => Some(AtomOp::Min),
                    "max" => Some(AtomOp::Max),
                    "and" => Some(AtomOp::And),
                    "or" => Some(AtomOp::Or),
                    _ => None,
                })?
                .ok_or_else(|| m.error("missing the operation (`.add`, `.min`, ...)"))?;
            let geom = geometry(m)?;
            let ty = m.one_type()?;
            let allowed: &[Type] = match op {
                AtomOp::Add => &[Type::U32, Type::U64, Type::S32],
                AtomOp::Min | AtomOp::Max => &[Type::U32, Type::S32, Type::U64, Type::S64],
                _ => &[Type::B32, Type::B64],
            };
            if !allowed.contains(&ty) {
                return Err(m.error(format!("invalid type `.{ty}` for this operation")));
            }
            let access = SurfaceAccess {
                geom,
                ty,
                vec: 1,
                clamp: clamp(m)?,
            };
            Decoded::Texture(Op::Sured { op, access })
        }
        _ => return Ok(None),
    }))
}

fn b32_result(m: &mut Mods) -> Result<()> {
    match m.one_type()? {
        Type::B32 => Ok(()),
        ty => Err(m.error(format!("invalid type `.{ty}` (`.b32`)"))),
    }
}

fn clamp(m: &mut Mods) -> Result<SurfaceClamp> {
    m.take(SurfaceClamp::from_name)?
        .ok_or_else(|| m.error("missing the out-of-range mode (`.trap`, `.clamp`, `.zero`)"))
}

fn tex(m: &mut Mods) -> Result<Decoded> {
    let level = m
        .take(|s| match s {
            "base" => Some(TexLevel::Base),
            "level" => Some(TexLevel::Level),
            "grad" => Some(TexLevel::Grad),
            _ => None,
        })?
        .unwrap_or(TexLevel::Implicit);
    if m.any(unexecuted_geometry) {
        return Ok(Decoded::Unsupported);
    }
    let geom = geometry(m)?;
    let vec = m.vector()?;
    let (dty, cty) = m.two_types()?;
    let vec_ok = match dty {
        Type::U32 | Type::S32 | Type::F32 | Type::F16 => vec == 4,
        Type::F16x2 => vec == 2,
        _ => return Err(m.error(format!("invalid result type `.{dty}`"))),
    };
    if !vec_ok {
        return Err(m.error(if dty == Type::F16x2 {
            "`.f16x2` results need `.v2`"
        } else {
            "results need `.v4`"
        }));
    }
    if !matches!(cty, Type::S32 | Type::F32) {
        return Err(m.error(format!(
            "invalid coordinate type `.{cty}` (`.s32` or `.f32`)"
        )));
    }
    Ok(Decoded::Texture(Op::Tex(Tex {
        geom,
        level,
        dty,
        cty,
        sampler: false,
        offset: false,
    })))
}

fn tld4(m: &mut Mods) -> Result<Decoded> {
    let comp = m
        .take(isa::texture::Channel::from_name)?
        .ok_or_else(|| m.error("missing the component (`.r`, `.g`, `.b`, `.a`)"))?;
    if m.any(|s| matches!(s, "cube" | "acube")) {
        return Ok(Decoded::Unsupported);
    }
    let geom = geometry(m)?;
    if !matches!(geom, TexGeom::D2 | TexGeom::A2d) {
        return Err(m.error(format!(
            "invalid geometry `.{}` (`.2d` or `.a2d`)",
            geom.name()
        )));
    }
    if m.vector()? != 4 {
        return Err(m.error("results need `.v4`"));
    }
    let (dty, cty) = m.two_types()?;
    if !matches!(dty, Type::U32 | Type::S32 | Type::F32) {
        return Err(m.error(format!("invalid result type `.{dty}`")));
    }
    if cty != Type::F32 {
        return Err(m.error(format!("invalid coordinate type `.{cty}` (`.f32`)")));
    }
    Ok(Decoded::Texture(Op::Tld4(Tld4 {
        comp,
        geom,
        dty,
        sampler: false,
        offset: false,
    })))
}

/// The registers a texture instruction's results go to: the element type and count.
fn result_slot(dty: Type) -> Slot {
    match dty {
        Type::F16x2 => Slot::Data {
            ty: Type::F16x2,
            vec: 2,
        },
        ty => Slot::Data { ty, vec: 4 },
    }
}

impl<'a> FnLowerer<'a, '_> {
    /// Lowers the operands of a decoded texture or surface instruction. A `tex` or `tld4`
    /// learns here whether it has a sampler and an offset; one with a depth-compare operand
    /// becomes [`Op::Unsupported`].
    pub(super) fn texture_operands(
        &mut self,
        inst: &ast::Instruction<'a>,
        mut op: Op,
    ) -> Result<(Op, Vec<Operand>, Vec<Operand>)> {
        let ops = &inst.operands;
        let count_error = |expected: &str| {
            Diagnostic::semantic(
                inst_span(inst),
                format!(
                    "`{}` takes {expected} operands, found {}",
                    full_name(inst),
                    ops.len()
                ),
            )
        };
        let mut dsts = Vec::new();
        let mut srcs = Vec::new();
        match &mut op {
            Op::Tex(Tex {
                geom,
                level,
                dty,
                cty,
                sampler,
                offset,
            }) => {
                let (extra_min, extra_max) = match level {
                    TexLevel::Level => (1, 1),
                    TexLevel::Grad => (2, 2),
                    _ => (0, 0),
                };
                if ops.len() < 2 + extra_min || ops.len() > 4 + extra_max {
                    return Err(count_error("2 to 6"));
                }
                self.texture_results(&ops[0], *dty, &mut dsts)?;
                *sampler = self.bracket(&ops[1], Opaque::Texture, *geom, *cty, &mut srcs)?;
                let rest = &ops[2..];
                if rest.len() < extra_min {
                    return Err(count_error(&format!("{}", 2 + extra_min)));
                }
                let (lod, rest) = rest.split_at(extra_min);
                for l in lod {
                    srcs.push(match level {
                        TexLevel::Level => self.src(l, Slot::Val(Type::F32))?,
                        _ => self.coord_vector(l, geom.offset_operands(), Type::F32)?,
                    });
                }
                match rest {
                    [] => {}
                    [e] if matches!(e.kind, K::Vector(_)) => {
                        *offset = true;
                        srcs.push(self.coord_vector(e, geom.offset_operands(), Type::S32)?);
                    }
                    [e, _] if matches!(e.kind, K::Vector(_)) => return Ok(depth_compare(inst)),
                    [_] => return Ok(depth_compare(inst)),
                    _ => return Err(count_error("2 to 6")),
                }
            }
            Op::Tld4(Tld4 {
                geom,
                dty,
                sampler,
                offset,
                ..
            }) => {
                if !(2..=4).contains(&ops.len()) {
                    return Err(count_error("2 to 4"));
                }
                self.texture_results(&ops[0], *dty, &mut dsts)?;
                *sampler = self.bracket(&ops[1], Opaque::Texture, *geom, Type::F32, &mut srcs)?;
                match &ops[2..] {
                    [] => {}
                    [e] if matches!(e.kind, K::Vector(_)) => {
                        *offset = true;
                        srcs.push(self.coord_vector(e, 2, Type::S32)?);
                    }
                    _ => return Ok(depth_compare(inst)),
                }
            }
            Op::Txq { level, query } => {
                let want = if *level { 3 } else { 2 };
                if ops.len() != want {
                    return Err(count_error(&want.to_string()));
                }
                dsts.push(self.dst(&ops[0], Slot::Val(Type::B32))?);
                // Sampler properties are read through a sampler in independent mode, or
                // through the texture itself in unified mode.
                let kind = if matches!(
                    query,
                    ResourceQuery::FilterMode
                        | ResourceQuery::AddrMode(_)
                        | ResourceQuery::ForceUnnormalizedCoords
                ) {
                    None
                } else {
                    Some(Opaque::Texture)
                };
                srcs.push(self.bracketed_handle(&ops[1], kind)?);
                if *level {
                    srcs.push(self.src(&ops[2], Slot::Val(Type::S32))?);
                }
            }
            Op::Suq { .. } => {
                if ops.len() != 2 {
                    return Err(count_error("2"));
                }
                dsts.push(self.dst(&ops[0], Slot::Val(Type::B32))?);
                srcs.push(self.bracketed_handle(&ops[1], Some(Opaque::Surface))?);
            }
            Op::Suld(access) => {
                if ops.len() != 2 {
                    return Err(count_error("2"));
                }
                dsts.push(self.dst(singleton(&ops[0]), surface_data(access))?);
                self.surface_bracket(&ops[1], access.geom, &mut srcs)?;
            }
            Op::Sust(access) | Op::Sured { access, .. } => {
                if ops.len() != 2 {
                    return Err(count_error("2"));
                }
                self.surface_bracket(&ops[0], access.geom, &mut srcs)?;
                srcs.push(self.src(singleton(&ops[1]), surface_data(access))?);
            }
            _ => unreachable!("texture_operands of a non-texture instruction"),
        }
        Ok((op, dsts, srcs))
    }

    /// `{d, ...}` or `{d, ...}|p`: the result vector, and the residency predicate.
    fn texture_results(&self, o: &ast::Operand, dty: Type, dsts: &mut Vec<Operand>) -> Result<()> {
        match &o.kind {
            // The parser's form of `{...}|p`: the vector, then the predicate.
            K::Vector(items) if items.len() == 2 && matches!(items[0].kind, K::Vector(_)) => {
                dsts.push(self.dst(&items[0], result_slot(dty))?);
                dsts.push(self.dst(&items[1], Slot::Pred { negatable: false })?);
            }
            _ => dsts.push(self.dst(o, result_slot(dty))?),
        }
        Ok(())
    }

    /// `[a, c]` or `[a, b, c]`: the texture, the sampler if there is one (returned), and the
    /// coordinates.
    fn bracket(
        &self,
        o: &ast::Operand,
        kind: Opaque,
        geom: TexGeom,
        cty: Type,
        srcs: &mut Vec<Operand>,
    ) -> Result<bool> {
        let parts = match &o.kind {
            K::Vector(parts) if (2..=3).contains(&parts.len()) => parts,
            _ => {
                return Err(Diagnostic::semantic(
                    o.span,
                    "expected `[texture, coordinates]` or `[texture, sampler, coordinates]`",
                ));
            }
        };
        srcs.push(self.handle(&parts[0], Some(kind))?);
        let sampler = parts.len() == 3;
        if sampler {
            srcs.push(self.handle(&parts[1], Some(Opaque::Sampler))?);
        }
        srcs.push(self.coordinates(&parts[parts.len() - 1], geom, cty)?);
        Ok(sampler)
    }

    /// `[a, b]` of a surface instruction: the surface and its coordinates (x in bytes).
    fn surface_bracket(
        &self,
        o: &ast::Operand,
        geom: TexGeom,
        srcs: &mut Vec<Operand>,
    ) -> Result<()> {
        let K::Vector(parts) = &o.kind else {
            return Err(Diagnostic::semantic(
                o.span,
                "expected `[surface, coordinates]`",
            ));
        };
        let [surface, coords] = parts.as_slice() else {
            return Err(Diagnostic::semantic(
                o.span,
                "expected `[surface, coordinates]`",
            ));
        };
        srcs.push(self.handle(surface, Some(Opaque::Surface))?);
        srcs.push(self.coordinates(coords, geom, Type::S32)?);
        Ok(())
    }

    /// The coordinate vector of `geom`: a layered geometry's index (an unsigned integer),
    /// then coordinates of type `cty`, padding included; a lone 1-D coordinate may be written
    /// without braces.
    fn coordinates(&self, o: &ast::Operand, geom: TexGeom, cty: Type) -> Result<Operand> {
        let items = match &o.kind {
            K::Vector(items) => items.as_slice(),
            _ if geom.coord_operands() == 1 => std::slice::from_ref(o),
            _ => {
                return Err(Diagnostic::semantic(
                    o.span,
                    format!(
                        "expected {} coordinates in `{{...}}` for `.{}`",
                        geom.coord_operands(),
                        geom.name()
                    ),
                ));
            }
        };
        if items.len() != geom.coord_operands() {
            return Err(Diagnostic::semantic(
                o.span,
                format!(
                    "`.{}` takes {} coordinates, found {}",
                    geom.name(),
                    geom.coord_operands(),
                    items.len()
                ),
            ));
        }
        let elems = items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let ty = if geom.layered() && i == 0 {
                    Type::B32
                } else {
                    cty
                };
                self.src(it, Slot::Val(ty))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Operand::Vector(elems))
    }

    /// A `{...}` of `n` values of `ty` (an offset or gradient); a lone value for `n` = 1.
    fn coord_vector(&self, o: &ast::Operand, n: usize, ty: Type) -> Result<Operand> {
        let items = match &o.kind {
            K::Vector(items) => items.as_slice(),
            _ if n == 1 => std::slice::from_ref(o),
            _ => {
                return Err(Diagnostic::semantic(
                    o.span,
                    format!("expected a vector of {n} elements"),
                ));
            }
        };
        if items.len() != n {
            return Err(Diagnostic::semantic(
                o.span,
                format!("expected a vector of {n} elements, found {}", items.len()),
            ));
        }
        Ok(Operand::Vector(
            items
                .iter()
                .map(|it| self.src(it, Slot::Val(ty)))
                .collect::<Result<_>>()?,
        ))
    }

    /// `[a]` of `txq`/`suq`.
    fn bracketed_handle(&self, o: &ast::Operand, kind: Option<Opaque>) -> Result<Operand> {
        match &o.kind {
            K::Address {
                base: Some(name),
                offset: 0,
            } => self.handle(
                &ast::Operand {
                    kind: K::Name {
                        name,
                        component: None,
                    },
                    span: o.span,
                },
                kind,
            ),
            _ => Err(Diagnostic::semantic(
                o.span,
                "expected `[name]` of a texture, sampler or surface",
            )),
        }
    }

    /// A texture, sampler or surface: a `.u64` register, or a module-scope opaque variable
    /// of kind `kind` (any kind when `None`).
    fn handle(&self, o: &ast::Operand, kind: Option<Opaque>) -> Result<Operand> {
        let expected = match kind {
            Some(k) => format!("a `.u64` register or a `.{}` variable", k.type_name()),
            None => "a `.u64` register or a `.texref` or `.samplerref` variable".to_string(),
        };
        let K::Name {
            name,
            component: None,
        } = &o.kind
        else {
            return Err(Diagnostic::semantic(o.span, format!("expected {expected}")));
        };
        if let Some(local) = self.lookup(name) {
            return match local {
                LocalName::Var(_) => Err(Diagnostic::semantic(
                    o.span,
                    format!("`{name}` is not an opaque variable; expected {expected}"),
                )),
                _ => self.src(o, Slot::Val(Type::U64)),
            };
        }
        let Some(ModuleName::Global(g)) = self.module_name(name) else {
            return Err(Diagnostic::semantic(
                o.span,
                format!("undefined texture, sampler or surface `{name}`"),
            ));
        };
        match self.isa_module.globals[g.index()].opaque {
            Some(k) if kind.is_none_or(|want| want == k) => Ok(Operand::SymbolAddr {
                sym: SymbolRef::Global(g),
                offset: 0,
            }),
            Some(k) => Err(Diagnostic::semantic(
                o.span,
                format!("`{name}` is a `.{}`; expected {expected}", k.type_name()),
            )),
            None => Err(Diagnostic::semantic(
                o.span,
                format!("`{name}` is not an opaque variable; expected {expected}"),
            )),
        }
    }
}

/// NVRTC writes a surface access's single register as `{%r1}`: the register.
fn singleton<'o, 'a>(o: &'o ast::Operand<'a>) -> &'o ast::Operand<'a> {
    match &o.kind {
        K::Vector(items) if items.len() == 1 => &items[0],
        _ => o,
    }
}

/// The data registers of a surface access.
fn surface_data(access: &SurfaceAccess) -> Slot {
    Slot::Data {
        ty: access.ty,
        vec: access.vec,
    }
}

fn full_name(inst: &ast::Instruction) -> String {
    let mut name = inst.opcode.value.to_string();
    for m in &inst.modifiers {
        name.push('.');
        name.push_str(m.value);
    }
    name
}

/// A lookup with a depth-compare operand: warpsim has no depth textures.
fn depth_compare(inst: &ast::Instruction) -> (Op, Vec<Operand>, Vec<Operand>) {
    let text = format!("{} (with a depth-compare operand)", full_name(inst));
    (Op::Unsupported { text }, Vec::new(), Vec::new())
}
