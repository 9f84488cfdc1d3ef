//! The modifier set of one instruction, consumed piece by piece while decoding.
//!
//! PTX allows modifiers in any order, so decoding asks for each kind of modifier it accepts
//! (`take_flag("ftz")`, `take(Rounding::from_name)`, ...) and finally [`Mods::finish`] reports any
//! modifier nobody asked for. Asking twice for the same kind finds a duplicate and reports it.

use crate::ast::{Span, Spanned};
use crate::diag::Diagnostic;
use isa::Type;

pub(crate) struct Mods<'m, 'a> {
    list: &'m [Spanned<&'a str>],
    used: u64,
    opcode: &'a str,
    span: Span,
}

type Result<T> = std::result::Result<T, Diagnostic>;

impl<'m, 'a> Mods<'m, 'a> {
    pub(crate) fn new(opcode: Spanned<&'a str>, list: &'m [Spanned<&'a str>]) -> Result<Self> {
        if list.len() > 64 {
            return Err(Diagnostic::semantic(list[64].span, "too many modifiers"));
        }
        Ok(Mods {
            list,
            used: 0,
            opcode: opcode.value,
            span: opcode.span,
        })
    }

    /// The opcode without modifiers.
    pub(crate) fn opcode(&self) -> &'a str {
        self.opcode
    }

    /// The opcode with every modifier, as written (`ld.global.v4.f32`).
    pub(crate) fn full_name(&self) -> String {
        let mut s = self.opcode.to_string();
        for m in self.list {
            s.push('.');
            s.push_str(m.value);
        }
        s
    }

    /// Whether any modifier satisfies `pred` (consumes nothing).
    pub(crate) fn any(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.list.iter().any(|m| pred(m.value))
    }

    /// Span of the opcode and all its modifiers.
    pub(crate) fn span(&self) -> Span {
        self.list.last().map_or(self.span, |m| self.span.to(m.span))
    }

    /// Consumes the modifier `name` if present (an error if it appears twice).
    pub(crate) fn flag(&mut self, name: &str) -> Result<bool> {
        Ok(self.take(|m| (m == name).then_some(()))?.is_some())
    }

    /// Consumes the one modifier for which `parse` gives a value, if any; two such modifiers
    /// are an error (`add.rn.rz`).
    pub(crate) fn take<T>(&mut self, parse: impl Fn(&str) -> Option<T>) -> Result<Option<T>> {
        let mut found = None;
        for (i, m) in self.list.iter().enumerate() {
            if self.used & (1 << i) != 0 {
                continue;
            }
            if let Some(v) = parse(m.value) {
                if found.is_some() {
                    return Err(Diagnostic::semantic(
                        m.span,
                        format!("conflicting modifier `.{}`", m.value),
                    ));
                }
                self.used |= 1 << i;
                found = Some(v);
            }
        }
        Ok(found)
    }

    /// Consumes every modifier `parse` accepts, in order (`wmma.mma`'s two layouts).
    pub(crate) fn take_all<T>(&mut self, parse: impl Fn(&str) -> Option<T>) -> Vec<T> {
        let mut out = Vec::new();
        for (i, m) in self.list.iter().enumerate() {
            if self.used & (1 << i) == 0
                && let Some(v) = parse(m.value)
            {
                self.used |= 1 << i;
                out.push(v);
            }
        }
        out
    }

    /// Consumes every type modifier, in order. More than four is an error in every
    /// instruction, so only the count is kept past that.
    pub(crate) fn types(&mut self) -> TypeList {
        let mut out = TypeList {
            items: [Type::Pred; 4],
            len: 0,
        };
        for (i, m) in self.list.iter().enumerate() {
            if self.used & (1 << i) == 0
                && let Some(t) = Type::from_name(m.value)
            {
                self.used |= 1 << i;
                if out.len < out.items.len() {
                    out.items[out.len] = t;
                }
                out.len += 1;
            }
        }
        out
    }

    /// Consumes exactly one type modifier.
    pub(crate) fn one_type(&mut self) -> Result<Type> {
        let types = self.types();
        match types.as_slice() {
            [t] => Ok(*t),
            [] => Err(self.error("missing type modifier")),
            _ => Err(self.error("expected one type modifier")),
        }
    }

    /// Consumes exactly two type modifiers (`cvt.f32.s32`: destination first).
    pub(crate) fn two_types(&mut self) -> Result<(Type, Type)> {
        let types = self.types();
        match types.as_slice() {
            [d, s] => Ok((*d, *s)),
            _ => Err(self.error("expected two type modifiers (destination, source)")),
        }
    }

    /// Consumes a vector modifier (`v2`, `v4`, `v8`), returning its width (1 when absent).
    pub(crate) fn vector(&mut self) -> Result<u8> {
        Ok(self
            .take(|m| match m {
                "v2" => Some(2),
                "v4" => Some(4),
                "v8" => Some(8),
                _ => None,
            })?
            .unwrap_or(1))
    }

    /// An error about this instruction as a whole.
    pub(crate) fn error(&self, message: impl Into<String>) -> Diagnostic {
        let message = message.into();
        Diagnostic::semantic(self.span(), format!("{message} in `{}`", self.full_name()))
    }

    /// Reports the first modifier nobody consumed.
    pub(crate) fn finish(&self) -> Result<()> {
        for (i, m) in self.list.iter().enumerate() {
            if self.used & (1 << i) == 0 {
                return Err(Diagnostic::semantic(
                    m.span,
                    format!("unexpected modifier `.{}` for `{}`", m.value, self.opcode),
                ));
            }
        }
        Ok(())
    }
}

/// The type modifiers of an instruction, without allocating.
pub(crate) struct TypeList {
    items: [Type; 4],
    len: usize,
}

impl TypeList {
    /// The types; a list of more than four shows as five (enough for every "expected N" check).
    pub(crate) fn as_slice(&self) -> &[Type] {
        const TOO_MANY: [Type; 5] = [Type::Pred; 5];
        if self.len > self.items.len() {
            &TOO_MANY
        } else {
            &self.items[..self.len]
        }
    }
}
