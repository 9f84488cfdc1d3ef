//! Variable declarations: types, alignment, array sizes and initializers.

use super::Names;
use crate::ast::{self, Init, Span, VarDecl};
use crate::diag::Diagnostic;
use isa::{InitValue, Linkage, SrcLoc, StateSpace, Type, Variable};

type Result<T> = std::result::Result<T, Diagnostic>;

/// The parts of a declaration shared by all of its names.
pub(crate) struct DeclType {
    pub space: StateSpace,
    pub ty: Type,
    pub vec: u8,
    pub align: Option<u32>,
    /// `.texref`, `.samplerref`, `.surfref`: `ty` is `.b64`, the handle's slot.
    pub opaque: Option<isa::Opaque>,
}

/// Decodes a declaration's state space, type, vector width and alignment.
pub(crate) fn decl_type(decl: &VarDecl) -> Result<DeclType> {
    let space = StateSpace::from_name(decl.space.value).ok_or_else(|| {
        Diagnostic::semantic(
            decl.space.span,
            format!("unknown state space `.{}`", decl.space.value),
        )
    })?;
    let opaque = isa::Opaque::from_type_name(decl.ty.value);
    let ty = match opaque {
        Some(_) => Type::B64,
        None => Type::from_name(decl.ty.value).ok_or_else(|| {
            Diagnostic::semantic(decl.ty.span, format!("unknown type `.{}`", decl.ty.value))
        })?,
    };
    if let Some(kind) = opaque
        && space != StateSpace::Global
    {
        return Err(Diagnostic::semantic(
            decl.ty.span,
            match space {
                StateSpace::Param => format!(
                    "unsupported: `.param .{}` (pass a texture or surface object as a `.u64` parameter)",
                    kind.type_name()
                ),
                _ => format!(
                    "`.{}` variables must be `.global` (module scope)",
                    kind.type_name()
                ),
            },
        ));
    }
    let vec = match decl.vec {
        None => 1,
        Some(v) if matches!(v.value, 2 | 4) => v.value as u8,
        Some(v) => {
            return Err(Diagnostic::semantic(
                v.span,
                format!("invalid vector width `.v{}`", v.value),
            ));
        }
    };
    let align = match decl.align {
        None => None,
        Some(a) if a.value.is_power_of_two() => Some(a.value),
        Some(a) => {
            return Err(Diagnostic::semantic(
                a.span,
                format!("alignment {} is not a power of two", a.value),
            ));
        }
    };
    if ty == Type::Pred && space != StateSpace::Reg {
        return Err(Diagnostic::semantic(
            decl.ty.span,
            "`.pred` variables must be in `.reg`",
        ));
    }
    Ok(DeclType {
        space,
        ty,
        vec,
        align,
        opaque,
    })
}

pub(crate) fn linkage(l: Option<ast::Spanned<ast::Linkage>>) -> Linkage {
    match l.map(|l| l.value) {
        None => Linkage::Internal,
        Some(ast::Linkage::Visible) => Linkage::Visible,
        Some(ast::Linkage::Extern) => Linkage::Extern,
        Some(ast::Linkage::Weak) => Linkage::Weak,
        Some(ast::Linkage::Common) => Linkage::Common,
    }
}

/// Builds the variable for one declared name (not for `.reg`, which declares registers).
/// Initializers that name symbols are resolved through `names`.
pub(crate) fn variable(
    decl: &VarDecl,
    dt: &DeclType,
    name: &ast::DeclName,
    names: &dyn Names,
    loc: SrcLoc,
) -> Result<Variable> {
    let elem_bytes = u64::from(dt.ty.bytes()) * u64::from(dt.vec);
    let mut count: Option<u64> = None;
    for (i, dim) in name.dims.iter().enumerate() {
        match dim {
            Some(n) => {
                count = Some(
                    count
                        .unwrap_or(1)
                        .checked_mul(*n)
                        .ok_or_else(|| Diagnostic::semantic(name.span, "array size overflows"))?,
                );
            }
            None if i == 0 => count = Some(0),
            None => {
                return Err(Diagnostic::semantic(
                    name.span,
                    "only the first array dimension may be empty",
                ));
            }
        }
    }
    let init = match &name.init {
        None => None,
        Some(init) if dt.opaque.is_some() => {
            return Err(Diagnostic::semantic(
                init_span(init),
                "unsupported: initializers of opaque variables (the host sets a texture's, \
                 sampler's or surface's properties when it binds one)",
            ));
        }
        Some(init) => {
            if !matches!(dt.space, StateSpace::Global | StateSpace::Const) {
                return Err(Diagnostic::semantic(
                    init_span(init),
                    format!("`.{}` variables cannot be initialized", dt.space),
                ));
            }
            let mut values = Vec::new();
            flatten_init(init, dt.ty, names, &mut values)?;
            let per_elem = u64::from(dt.vec);
            match count {
                Some(0) => count = Some((values.len() as u64).div_ceil(per_elem)),
                None if values.len() as u64 > per_elem => {
                    return Err(Diagnostic::semantic(
                        init_span(init),
                        "too many initializers for a scalar",
                    ));
                }
                Some(n) if values.len() as u64 > n.saturating_mul(per_elem) => {
                    return Err(Diagnostic::semantic(
                        init_span(init),
                        format!(
                            "{} initializers for an array of {} elements",
                            values.len(),
                            n * per_elem
                        ),
                    ));
                }
                _ => {}
            }
            Some(values)
        }
    };
    let extern_ = decl
        .linkage
        .is_some_and(|l| l.value == ast::Linkage::Extern);
    if count == Some(0) && !extern_ && dt.space != StateSpace::Param {
        return Err(Diagnostic::semantic(
            name.span,
            "array of unknown size must be `.extern` or initialized",
        ));
    }
    super::limits::variable_size(
        dt.space,
        name.name.value,
        count.unwrap_or(1).checked_mul(elem_bytes),
        name.span,
    )?;
    Ok(Variable {
        name: name.name.value.to_string(),
        space: dt.space,
        ty: dt.ty,
        vec: dt.vec,
        count,
        align: dt.align.unwrap_or(elem_bytes.max(1) as u32),
        init,
        linkage: linkage(decl.linkage),
        loc,
        opaque: dt.opaque,
    })
}

fn init_span(init: &Init) -> Span {
    match init {
        Init::Int { span, .. }
        | Init::F32 { span, .. }
        | Init::F64 { span, .. }
        | Init::Symbol { span, .. }
        | Init::Generic { span, .. }
        | Init::List { span, .. } => *span,
    }
}

fn flatten_init(init: &Init, ty: Type, names: &dyn Names, out: &mut Vec<InitValue>) -> Result<()> {
    let value = match *init {
        Init::List { ref items, .. } => {
            for item in items {
                flatten_init(item, ty, names, out)?;
            }
            return Ok(());
        }
        Init::Int { bits, span } => {
            if ty.is_float() {
                return Err(Diagnostic::semantic(
                    span,
                    format!("integer initializer for `.{ty}` (use a float literal)"),
                ));
            }
            InitValue::Bits(truncate(bits, ty))
        }
        Init::F32 { bits, span } => InitValue::Bits(float_bits(
            f64::from(f32::from_bits(bits)),
            u64::from(bits),
            true,
            ty,
            span,
        )?),
        Init::F64 { bits, span } => {
            InitValue::Bits(float_bits(f64::from_bits(bits), bits, false, ty, span)?)
        }
        Init::Symbol { name, offset, span } | Init::Generic { name, offset, span } => {
            if ty.bits() != 64 && ty.bits() != 32 {
                return Err(Diagnostic::semantic(
                    span,
                    format!("address initializer for `.{ty}`"),
                ));
            }
            names.init_address(name, offset, span)?
        }
    };
    out.push(value);
    Ok(())
}

/// A float literal stored in an element of type `ty`: converted to f32/f64, or its raw bits for
/// a bit-size type of the literal's own size.
fn float_bits(value: f64, raw: u64, is_f32: bool, ty: Type, span: Span) -> Result<u64> {
    match ty {
        Type::F32 if is_f32 => Ok(raw),
        Type::F64 if !is_f32 => Ok(raw),
        Type::F32 => Ok(u64::from((value as f32).to_bits())),
        Type::F64 => Ok(value.to_bits()),
        Type::B32 | Type::U32 | Type::S32 if is_f32 => Ok(raw),
        Type::B64 | Type::U64 | Type::S64 if !is_f32 => Ok(raw),
        _ => Err(Diagnostic::semantic(
            span,
            format!("float initializer for `.{ty}`"),
        )),
    }
}

/// Keeps the low `ty.bits()` bits.
pub(crate) fn truncate(bits: u64, ty: Type) -> u64 {
    match ty.bits() {
        b if b >= 64 => bits,
        b => bits & ((1u64 << b) - 1),
    }
}
