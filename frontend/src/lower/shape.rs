//! Operand shapes: what each operand position of a decoded instruction must be.

use isa::Type;

/// The requirement on one operand position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slot {
    /// A register of a type compatible with this one; sources may also be immediates or special
    /// registers.
    Val(Type),
    /// Like `Val`, but registers may be wider than the type (`ld`, `st`, `cvt` allow it).
    Wide(Type),
    /// A predicate; `!p` allowed when `negatable`.
    Pred { negatable: bool },
    /// A memory address `[...]`.
    Addr,
    /// `ld`/`st` data: one register (vec 1) or a `{...}` of `vec` elements of the type; registers
    /// may be wider than the type.
    Data { ty: Type, vec: u8 },
    /// `mov`'s source: a value, special register, or a variable's or function's address.
    MovSrc(Type),
    /// `cvta`'s source: a register, or a variable's address.
    CvtaSrc(Type),
    /// A `{...}` of elements splitting the type's bits (pack/unpack `mov`).
    Elems(Type),
    /// A matrix fragment: a `{...}` of exactly `regs` registers of the type, even one.
    Fragment { ty: Type, regs: u8 },
    /// A `.b128` register, as its two 64-bit halves (a vector of two `.b64`, low first): the
    /// data of a `.b128` `ld` or `st`, which moves them as a `.v2.b64`.
    B128,
}

/// A short list of slots kept inline: decoding runs once per instruction, on the hot path of
/// loading PTX, and no instruction has more than five sources.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slots {
    items: [Slot; 5],
    len: usize,
}

impl Default for Slots {
    fn default() -> Slots {
        Slots {
            items: [Slot::Addr; 5],
            len: 0,
        }
    }
}

impl Slots {
    pub(crate) fn of(slots: &[Slot]) -> Slots {
        let mut out = Slots::default();
        for s in slots {
            out.push(*s);
        }
        out
    }

    pub(crate) fn push(&mut self, s: Slot) {
        self.items[self.len] = s;
        self.len += 1;
    }

    pub(crate) fn insert(&mut self, at: usize, s: Slot) {
        self.items.copy_within(at..self.len, at + 1);
        self.items[at] = s;
        self.len += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl std::ops::Deref for Slots {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        &self.items[..self.len]
    }
}

/// Destination and source slots of an instruction; trailing sources past `min_srcs` and
/// destinations past `min_dsts` are optional.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    pub dsts: Slots,
    pub min_dsts: usize,
    pub srcs: Slots,
    pub min_srcs: usize,
}

impl Shape {
    pub(crate) fn new() -> Shape {
        Shape::default()
    }

    /// A required destination.
    pub(crate) fn d(mut self, s: Slot) -> Shape {
        self.dsts.push(s);
        self.min_dsts = self.dsts.len();
        self
    }

    /// An optional destination (the `q` of `setp`'s `p|q`).
    pub(crate) fn opt_d(mut self, s: Slot) -> Shape {
        self.dsts.push(s);
        self
    }

    /// A required source.
    pub(crate) fn s(mut self, s: Slot) -> Shape {
        debug_assert_eq!(
            self.min_srcs,
            self.srcs.len(),
            "required source after optional one"
        );
        self.srcs.push(s);
        self.min_srcs = self.srcs.len();
        self
    }

    /// An optional source.
    pub(crate) fn opt_s(mut self, s: Slot) -> Shape {
        self.srcs.push(s);
        self
    }

    /// `d, a` with the same type.
    pub(crate) fn unary(ty: Type) -> Shape {
        Shape::new().d(Slot::Val(ty)).s(Slot::Val(ty))
    }

    /// `d, a, b` with the same type.
    pub(crate) fn binary(ty: Type) -> Shape {
        Shape::unary(ty).s(Slot::Val(ty))
    }

    /// `d, a, b, c` with the same type.
    pub(crate) fn ternary(ty: Type) -> Shape {
        Shape::binary(ty).s(Slot::Val(ty))
    }
}
