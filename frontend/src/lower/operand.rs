//! Lowering one operand against the [`Slot`] its position requires: name resolution, type
//! compatibility of registers, and conversion of immediates to the operand's type.

use super::ModuleName;
use super::Result;
use super::body::{FnLowerer, LocalName};
use super::shape::Slot;
use crate::ast::{self, OperandKind as K, Span};
use crate::diag::Diagnostic;
use isa::{AddrBase, AddrWidth, Address, Operand, SpecialReg, SymbolRef, Type, TypeKind, VReg};

/// Whether a register declared as `reg` may stand where the instruction expects `want`.
///
/// The manual's rules: bit-size types match any type of the same size; integer instructions take
/// integer or bit-size registers, float instructions float or bit-size registers; `ld`, `st`
/// and `cvt` (`wide`) also accept registers wider than the instruction type
/// ([`wider_allowed`]).
fn compatible(reg: Type, want: Type, wide: bool) -> bool {
    if (reg == Type::Pred) != (want == Type::Pred) {
        return false;
    }
    let size_ok =
        reg.bits() == want.bits() || (wide && reg.bits() > want.bits() && wider_allowed(reg, want));
    let kind_ok = match (reg.kind(), want.kind()) {
        (TypeKind::Bits, _) | (_, TypeKind::Bits) => true,
        (TypeKind::Float, k) | (k, TypeKind::Float) => k == TypeKind::Float,
        _ => true,
    };
    size_ok && kind_ok
}

/// Whether a register of type `reg`, wider than the instruction type `want`, may be an
/// operand of `ld`, `st` or `cvt` (the manual's "Operand Size Exceeding Instruction-Type
/// Size"): a bit-size register with any type, an integer register with an integer or bit-size
/// type, a float register only with a bit-size type (a float type's size must match). A wider
/// source is truncated to the type; a wider destination is sign-extended for a signed integer
/// type and zero-extended otherwise (`emulator::warp::fit_to_register`).
fn wider_allowed(reg: Type, want: Type) -> bool {
    match reg.kind() {
        TypeKind::Bits => true,
        TypeKind::Float => want.kind() == TypeKind::Bits,
        _ => !want.is_float(),
    }
}

impl FnLowerer<'_, '_> {
    fn typed_reg(
        &self,
        name: &str,
        component: Option<&str>,
        want: Type,
        wide: bool,
        span: Span,
    ) -> Result<VReg> {
        let r = self.reg(name, component, span)?;
        let have = self.func.reg(r).ty;
        if !compatible(have, want, wide) {
            let shown = match component {
                Some(c) => format!("{name}.{c}"),
                None => name.to_string(),
            };
            return Err(Diagnostic::semantic(
                span,
                format!("type mismatch: `{shown}` is `.{have}`, expected `.{want}`"),
            ));
        }
        Ok(r)
    }

    /// Lowers a destination operand.
    pub(super) fn dst(&self, o: &ast::Operand, slot: Slot) -> Result<Operand> {
        match (&o.kind, slot) {
            (K::Sink, Slot::Data { .. } | Slot::Val(_) | Slot::Pred { .. }) => Ok(Operand::Sink),
            (K::Vector(items), Slot::Data { ty, vec }) if vec > 1 => {
                self.vector(items, o.span, ty, vec, |it| {
                    self.dst(it, Slot::Data { ty, vec: 1 })
                })
            }
            (K::Vector(items), Slot::Elems(ty)) => self.elems(items, o.span, ty, true),
            (K::Vector(items), Slot::Fragment { ty, regs }) => {
                self.vector(items, o.span, ty, regs, |it| {
                    self.dst(it, Slot::Data { ty, vec: 1 })
                })
            }
            (_, Slot::Fragment { regs, .. }) => Err(fragment_expected(o.span, regs)),
            (_, Slot::B128) => Ok(halves(self.b128(o)?)),
            (
                K::Name {
                    name,
                    component: None,
                },
                Slot::Data { ty, vec },
            ) if vec > 1 => self.vector_reg(name, ty, vec, o.span),
            (K::Name { name, component }, Slot::Data { ty, vec: 1 } | Slot::Wide(ty)) => Ok(
                Operand::Reg(self.typed_reg(name, *component, ty, true, o.span)?),
            ),
            (K::Name { name, component }, Slot::Val(ty)) => Ok(Operand::Reg(
                self.typed_reg(name, *component, ty, false, o.span)?,
            )),
            (
                K::Name {
                    name,
                    component: None,
                },
                Slot::Pred { .. },
            ) => Ok(Operand::Reg(self.pred_reg(name, o.span)?)),
            (_, Slot::Data { vec, .. }) if vec > 1 => Err(Diagnostic::semantic(
                o.span,
                format!("expected a vector of {vec} registers"),
            )),
            _ => Err(Diagnostic::semantic(
                o.span,
                "expected a register as destination",
            )),
        }
    }

    /// Lowers a source operand.
    pub(super) fn src(&self, o: &ast::Operand, slot: Slot) -> Result<Operand> {
        match slot {
            Slot::Addr => self.address(o),
            Slot::B128 => Ok(halves(self.b128(o)?)),
            Slot::Pred { negatable } => match &o.kind {
                K::Name {
                    name,
                    component: None,
                } => Ok(Operand::Reg(self.pred_reg(name, o.span)?)),
                K::NotName { name } if negatable => {
                    Ok(Operand::NotPred(self.pred_reg(name, o.span)?))
                }
                K::NotName { .. } => Err(Diagnostic::semantic(
                    o.span,
                    "this predicate cannot be negated",
                )),
                K::Int { bits } => Ok(Operand::Imm(predicate_constant(*bits))),
                _ => Err(Diagnostic::semantic(o.span, "expected a predicate")),
            },
            Slot::Data { ty, vec } if vec > 1 => match &o.kind {
                K::Vector(items) => {
                    self.vector(items, o.span, ty, vec, |it| self.src(it, Slot::Wide(ty)))
                }
                K::Name {
                    name,
                    component: None,
                } => self.vector_reg(name, ty, vec, o.span),
                _ => Err(Diagnostic::semantic(
                    o.span,
                    format!("expected a vector of {vec} elements"),
                )),
            },
            Slot::Elems(ty) => match &o.kind {
                K::Vector(items) => self.elems(items, o.span, ty, false),
                _ => Err(Diagnostic::semantic(o.span, "expected a vector")),
            },
            Slot::Fragment { ty, regs } => match &o.kind {
                K::Vector(items) => self.vector(items, o.span, ty, regs, |it| {
                    Ok(Operand::Reg(match &it.kind {
                        K::Name { name, component } => {
                            self.typed_reg(name, *component, ty, true, it.span)?
                        }
                        _ => return Err(Diagnostic::semantic(it.span, "expected a register")),
                    }))
                }),
                _ => Err(fragment_expected(o.span, regs)),
            },
            Slot::Data { ty, .. } | Slot::Wide(ty) => self.value(o, ty, true, false),
            Slot::Val(ty) => self.value(o, ty, false, false),
            Slot::MovSrc(ty) | Slot::CvtaSrc(ty) => self.value(o, ty, false, true),
        }
    }

    /// A register, immediate or special register of type `ty`; with `symbols`, also the address of
    /// a variable or function (`mov`, `cvta`).
    fn value(&self, o: &ast::Operand, ty: Type, wide: bool, symbols: bool) -> Result<Operand> {
        match &o.kind {
            K::Name { name, component } => {
                if let Some(local) = self.lookup(name) {
                    return match local {
                        LocalName::Var(sym) if symbols && component.is_none() => {
                            Ok(Operand::SymbolAddr { sym, offset: 0 })
                        }
                        LocalName::Var(_) => Err(Diagnostic::semantic(
                            o.span,
                            format!("`{name}` is a variable; use `[{name}]` to access it"),
                        )),
                        _ => Ok(Operand::Reg(
                            self.typed_reg(name, *component, ty, wide, o.span)?,
                        )),
                    };
                }
                if name.starts_with('%') {
                    if let Some(s) = SpecialReg::from_name(name, *component) {
                        // `%is_explicit_cluster` is the one `.pred` special register: it moves
                        // into predicates only, and the others into predicates never.
                        if (s.ty() == Type::Pred) != (ty == Type::Pred) {
                            return Err(Diagnostic::semantic(
                                o.span,
                                format!("special register `{s}` is a `.{}`, not a `.{ty}`", s.ty()),
                            ));
                        }
                        return Ok(Operand::Special(s));
                    }
                    if let (Some(c), Some(_)) = (component, SpecialReg::from_name(name, None)) {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("`{name}` has no component `.{c}`"),
                        ));
                    }
                    if SpecialReg::is_special_name(name) {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("`{name}` needs a component `.x`, `.y` or `.z`"),
                        ));
                    }
                }
                match self.module_name(name) {
                    Some(ModuleName::Global(g)) if symbols => Ok(Operand::SymbolAddr {
                        sym: SymbolRef::Global(g),
                        offset: 0,
                    }),
                    Some(ModuleName::Func(f)) if symbols => Ok(Operand::FuncAddr(f)),
                    Some(_) => Err(Diagnostic::semantic(
                        o.span,
                        format!("symbol `{name}` cannot be used here"),
                    )),
                    None if name.starts_with('%') => Err(Diagnostic::semantic(
                        o.span,
                        format!("undefined register `{name}`"),
                    )),
                    // A predefined identifier of PTX: the warp size in threads, a constant.
                    None if *name == "WARP_SZ" => Ok(Operand::Imm(int_immediate(32, ty, o.span)?)),
                    None => Err(Diagnostic::semantic(
                        o.span,
                        format!("undefined symbol `{name}`"),
                    )),
                }
            }
            K::NameOffset { name, offset } if symbols => {
                let sym = match (self.lookup(name), self.module_name(name)) {
                    (Some(LocalName::Var(s)), _) => s,
                    (None, Some(ModuleName::Global(g))) => SymbolRef::Global(g),
                    _ => {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("`{name}` is not a variable"),
                        ));
                    }
                };
                Ok(Operand::SymbolAddr {
                    sym,
                    offset: *offset,
                })
            }
            K::Int { bits } => Ok(Operand::Imm(int_immediate(*bits, ty, o.span)?)),
            K::F32 { bits } => Ok(Operand::Imm(float_immediate(
                f64::from(f32::from_bits(*bits)),
                u64::from(*bits),
                32,
                ty,
                o.span,
            )?)),
            K::F64 { bits } => Ok(Operand::Imm(float_immediate(
                f64::from_bits(*bits),
                *bits,
                64,
                ty,
                o.span,
            )?)),
            K::NotName { .. } => Err(Diagnostic::semantic(
                o.span,
                "`!` applies only to predicate operands",
            )),
            K::NegName { .. } => Err(Diagnostic::semantic(
                o.span,
                "`-` negates only the sources of `vmad`",
            )),
            K::Address { .. } => Err(Diagnostic::semantic(o.span, "unexpected address operand")),
            K::Vector(_) => Err(Diagnostic::semantic(o.span, "unexpected vector operand")),
            K::Sink => Err(Diagnostic::semantic(
                o.span,
                "`_` is only allowed as a destination",
            )),
            _ => Err(Diagnostic::semantic(
                o.span,
                "expected a register or immediate",
            )),
        }
    }

    fn vector(
        &self,
        items: &[ast::Operand],
        span: Span,
        _ty: Type,
        vec: u8,
        each: impl Fn(&ast::Operand) -> Result<Operand>,
    ) -> Result<Operand> {
        if items.len() != vec as usize {
            return Err(Diagnostic::semantic(
                span,
                format!("expected a vector of {vec} elements, found {}", items.len()),
            ));
        }
        Ok(Operand::Vector(
            items.iter().map(each).collect::<Result<_>>()?,
        ))
    }

    /// A `.vN` vector register named whole where an instruction moves `vec` elements of `ty`:
    /// its components, in order.
    fn vector_reg(&self, name: &str, ty: Type, vec: u8, span: Span) -> Result<Operand> {
        let Some(LocalName::VecReg { first, n }) = self.lookup(name) else {
            return Err(Diagnostic::semantic(
                span,
                format!("expected a vector of {vec} registers"),
            ));
        };
        if n != vec {
            return Err(Diagnostic::semantic(
                span,
                format!("`{name}` is a vector of {n} registers, expected {vec}"),
            ));
        }
        let components = (0..u32::from(n)).map(|i| {
            let r = VReg(first.0 + i);
            let have = self.func.reg(r).ty;
            if have.bits() == ty.bits() || (have.bits() > ty.bits() && wider_allowed(have, ty)) {
                Ok(Operand::Reg(r))
            } else {
                Err(Diagnostic::semantic(
                    span,
                    format!("type mismatch: `{name}` is `.v{n}.{have}`, expected `.{ty}` elements"),
                ))
            }
        });
        Ok(Operand::Vector(components.collect::<Result<_>>()?))
    }

    /// A `.b128` register named whole: its low and high halves.
    pub(super) fn b128(&self, o: &ast::Operand) -> Result<[VReg; 2]> {
        match &o.kind {
            K::Name {
                name,
                component: None,
            } => match self.lookup(name) {
                Some(LocalName::B128 { lo }) => Ok([lo, VReg(lo.0 + 1)]),
                Some(_) => {
                    let r = self.reg(name, None, o.span)?;
                    Err(Diagnostic::semantic(
                        o.span,
                        format!(
                            "type mismatch: `{name}` is `.{}`, expected `.b128`",
                            self.func.reg(r).ty
                        ),
                    ))
                }
                None => Err(self.reg(name, None, o.span).err().unwrap_or_else(|| {
                    Diagnostic::semantic(o.span, format!("undefined register `{name}`"))
                })),
            },
            _ => Err(Diagnostic::semantic(o.span, "expected a `.b128` register")),
        }
    }

    /// The `{a, b}` of a pack/unpack `mov`: 2, 4 or 8 elements of equal size, at least 8 bits,
    /// that add up to `ty` ("both the overall size of the vector and the size of the scalar
    /// must match the size of the instruction type").
    pub(super) fn elems(
        &self,
        items: &[ast::Operand],
        span: Span,
        ty: Type,
        dst: bool,
    ) -> Result<Operand> {
        let n = items.len() as u32;
        if !matches!(n, 2 | 4 | 8) || !ty.bits().is_multiple_of(n) {
            return Err(Diagnostic::semantic(
                span,
                format!("cannot split `.{ty}` into {n} elements"),
            ));
        }
        let elem_bits = ty.bits() / n;
        let elem = Type::from_name(&format!("b{elem_bits}")).ok_or_else(|| {
            Diagnostic::semantic(span, format!("cannot split `.{ty}` into {n} elements"))
        })?;
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            out.push(match (&it.kind, dst) {
                (K::Sink, true) => Operand::Sink,
                (K::Name { name, component }, _) => {
                    let r = self.reg(name, *component, it.span)?;
                    let have = self.func.reg(r).ty;
                    // 8-bit elements live in 16-bit registers.
                    if have.bits() != elem_bits && !(elem_bits == 8 && have.bits() == 16) {
                        return Err(Diagnostic::semantic(
                            it.span,
                            format!("type mismatch: `{name}` is `.{have}`, expected a {elem_bits}-bit element"),
                        ));
                    }
                    Operand::Reg(r)
                }
                (_, false) => self.value(it, elem, false, false)?,
                _ => return Err(Diagnostic::semantic(it.span, "expected a register")),
            });
        }
        Ok(Operand::Vector(out))
    }

    fn address(&self, o: &ast::Operand) -> Result<Operand> {
        let K::Address { base, offset } = &o.kind else {
            return Err(Diagnostic::semantic(o.span, "expected an address `[...]`"));
        };
        // A register base computes `base + offset` at its own width (`AddrWidth`).
        let mut width = AddrWidth::Bits64;
        let base = match base {
            None => AddrBase::Absolute,
            Some(name) => match self.lookup(name) {
                Some(LocalName::Var(sym)) => AddrBase::Symbol(sym),
                Some(_) => {
                    let r = self.reg(name, None, o.span)?;
                    let ty = self.func.reg(r).ty;
                    if !(ty.is_integer() && matches!(ty.bits(), 32 | 64)) {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!(
                                "address register `{name}` is `.{ty}`, expected a 32- or 64-bit integer"
                            ),
                        ));
                    }
                    width = AddrWidth::of_register(ty.bits());
                    AddrBase::Reg(r)
                }
                None => match self.module_name(name) {
                    Some(ModuleName::Global(g)) => AddrBase::Symbol(SymbolRef::Global(g)),
                    Some(ModuleName::Func(_)) => {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("`{name}` is a function, not data"),
                        ));
                    }
                    None if name.starts_with('%') => {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("undefined register `{name}`"),
                        ));
                    }
                    None => {
                        return Err(Diagnostic::semantic(
                            o.span,
                            format!("undefined symbol `{name}`"),
                        ));
                    }
                },
            },
        };
        Ok(Operand::Address(Address {
            base,
            offset: *offset,
            width,
        }))
    }
}

/// The halves of a `.b128` register as the ISA operand for them: a vector, low first.
fn halves([lo, hi]: [VReg; 2]) -> Operand {
    Operand::Vector(vec![Operand::Reg(lo), Operand::Reg(hi)])
}

/// An integer literal as an operand of type `ty`: kept as its 64-bit value for integer types,
/// converted by value for float types.
fn int_immediate(bits: u64, ty: Type, span: Span) -> Result<u64> {
    match ty {
        Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 => Err(half_immediate(ty, span)),
        Type::F32 => Ok(u64::from((bits as i64 as f32).to_bits())),
        Type::F64 => Ok((bits as i64 as f64).to_bits()),
        Type::Pred => Ok(predicate_constant(bits)),
        _ => Ok(bits),
    }
}

/// An integer literal used as a predicate: the manual's "Predicate Constants" read integer
/// constants as C does, zero false and anything else true (NVVM writes `mov.pred %p, -1`).
fn predicate_constant(bits: u64) -> u64 {
    u64::from(bits != 0)
}

/// A float literal (`bits` of `size` bits, value `value`) as an operand of type `ty`.
fn float_immediate(value: f64, bits: u64, size: u32, ty: Type, span: Span) -> Result<u64> {
    // A literal of the operand's own size keeps its exact bits (NaN payloads included).
    match ty {
        Type::F32 if size == 32 => Ok(bits),
        Type::F64 if size == 64 => Ok(bits),
        Type::F32 => Ok(u64::from((value as f32).to_bits())),
        Type::F64 => Ok(value.to_bits()),
        t if t.kind() == TypeKind::Bits && t.bits() == size => Ok(bits),
        Type::F16 | Type::F16x2 | Type::BF16 | Type::BF16x2 => Err(half_immediate(ty, span)),
        t => Err(Diagnostic::semantic(
            span,
            format!("float literal for a `.{t}` operand"),
        )),
    }
}

/// PTX has no literals of the half-precision types: their bits are moved into a register.
fn half_immediate(ty: Type, span: Span) -> Diagnostic {
    let via = if ty.bits() == 16 {
        "mov.b16"
    } else {
        "mov.b32"
    };
    Diagnostic::semantic(
        span,
        format!("immediate operand of type `.{ty}`: move its bits into a register with `{via}`"),
    )
}

/// The error for a matrix fragment written otherwise than as a `{...}` of its registers.
fn fragment_expected(span: Span, regs: u8) -> Diagnostic {
    Diagnostic::semantic(
        span,
        format!("expected a matrix fragment: a `{{...}}` of {regs} registers"),
    )
}
