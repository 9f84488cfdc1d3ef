//! The PTX abstract syntax tree, as the grammar produces it.
//!
//! Deliberately close to the text: names borrow from the source, instructions are generic
//! (`@guard opcode .mod* operands;`) and are decoded into typed ISA instructions by `lower`, so the
//! grammar never needs a rule per opcode or per modifier order. Every node carries its [`Span`].

/// A byte range in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A value with the span it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Spanned<T> {
        Spanned { value, span }
    }
}

/// A whole PTX file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module<'a> {
    pub items: Vec<Item<'a>>,
}

/// A module-scope directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    /// `.version 8.8`
    Version {
        major: u32,
        minor: u32,
        span: Span,
    },
    /// `.target sm_70, texmode_independent`
    Target {
        names: Vec<Spanned<&'a str>>,
        span: Span,
    },
    /// `.address_size 64`
    AddressSize {
        bits: u32,
        span: Span,
    },
    /// A module-scope variable declaration.
    Var(VarDecl<'a>),
    Function(Function<'a>),
    /// `.pragma "nounroll";` at module scope.
    Pragma {
        values: Vec<&'a str>,
        span: Span,
    },
    /// Directives parsed and ignored: `.file`, `.section` (debug info), ...
    Ignored {
        directive: &'a str,
        span: Span,
    },
}

/// `.visible`, `.extern`, `.weak`, `.common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

/// A variable declaration: `[linkage] .space [.align N] [.vN] .type name[dims]* [= init] (, name...)*;`
///
/// `.reg .b32 %r<42>;` declares `%r0` .. `%r41` (see [`DeclName::range`]).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    /// State space without the dot: `reg`, `global`, `shared`, `local`, `const`, `param`,
    /// `shared::cta`, ...
    pub space: Spanned<&'a str>,
    pub align: Option<Spanned<u32>>,
    /// Vector width from `.v2` / `.v4` / `.v8`.
    pub vec: Option<Spanned<u32>>,
    /// Type name without the dot (`b32`, `f32`, `pred`, ...).
    pub ty: Spanned<&'a str>,
    /// Other attributes without the dot (e.g. `ptr` of kernel params, `global` after `.ptr`).
    pub attrs: Vec<Spanned<&'a str>>,
    pub names: Vec<DeclName<'a>>,
    pub span: Span,
}

/// One declared name of a [`VarDecl`].
#[derive(Clone, Debug, PartialEq)]
pub struct DeclName<'a> {
    pub name: Spanned<&'a str>,
    /// `%r<42>`: declares `name0` .. `name41`.
    pub range: Option<Spanned<u32>>,
    /// Array dimensions in order; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    pub init: Option<Init<'a>>,
    pub span: Span,
}

/// A variable initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init<'a> {
    /// A constant (see [`Operand`] for how literals are kept).
    Int {
        bits: u64,
        span: Span,
    },
    F32 {
        bits: u32,
        span: Span,
    },
    F64 {
        bits: u64,
        span: Span,
    },
    /// `sym` or `sym+4`: the address of a symbol.
    Symbol {
        name: &'a str,
        offset: i64,
        span: Span,
    },
    /// `generic(sym)` or `generic(sym)+4`.
    Generic {
        name: &'a str,
        offset: i64,
        span: Span,
    },
    /// `{a, b, ...}`.
    List {
        items: Vec<Init<'a>>,
        span: Span,
    },
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

/// A kernel or device function, with or without a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    pub kind: FuncKind,
    pub name: Spanned<&'a str>,
    /// Return parameters `.func (.param .b32 r) name(...)`.
    pub rets: Vec<VarDecl<'a>>,
    /// Parameters (each a [`VarDecl`] with exactly one name, space `param` or `reg`).
    pub params: Vec<VarDecl<'a>>,
    /// `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`, `.pragma` between the
    /// signature and the body.
    pub directives: Vec<FuncDirective<'a>>,
    /// `None` for a prototype (`.func foo(...);`).
    pub body: Option<Vec<Statement<'a>>>,
    pub span: Span,
}

/// A performance-tuning or other directive of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncDirective<'a> {
    /// Without the dot: `maxntid`, `reqntid`, `minnctapersm`, `maxnreg`, `pragma`, `noreturn`, ...
    pub name: Spanned<&'a str>,
    /// Numeric arguments (`.maxntid 256, 1, 1`).
    pub numbers: Vec<u64>,
    /// String arguments (`.pragma "nounroll"`).
    pub strings: Vec<&'a str>,
    pub span: Span,
}

/// A statement inside a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    Label(Spanned<&'a str>),
    Instruction(Instruction<'a>),
    Var(VarDecl<'a>),
    /// `{ ... }`: a nested scope (NVRTC wraps call sequences in one).
    Block {
        body: Vec<Statement<'a>>,
        span: Span,
    },
    /// `.pragma "nounroll";`
    Pragma {
        values: Vec<&'a str>,
        span: Span,
    },
    /// `name: .callprototype (.param .b32 _) _ (.param .b64 _);`
    CallPrototype {
        label: Spanned<&'a str>,
        rets: Vec<VarDecl<'a>>,
        params: Vec<VarDecl<'a>>,
        span: Span,
    },
    /// `name: .calltargets f1, f2;`
    CallTargets {
        label: Spanned<&'a str>,
        targets: Vec<Spanned<&'a str>>,
        span: Span,
    },
    /// Debug directives parsed and ignored: `.loc`, `.file`, ...
    Ignored {
        directive: &'a str,
        span: Span,
    },
}

/// A guard `@p` or `@!p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard<'a> {
    pub pred: &'a str,
    pub negated: bool,
    pub span: Span,
}

/// `@guard opcode.mod1.mod2 operand, operand, ...;`
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    pub guard: Option<Guard<'a>>,
    pub opcode: Spanned<&'a str>,
    /// Modifiers without their leading dot, in source order (`shared::cta` stays one modifier).
    pub modifiers: Vec<Spanned<&'a str>>,
    pub operands: Vec<Operand<'a>>,
    pub span: Span,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    pub kind: OperandKind<'a>,
    pub span: Span,
}

/// What an operand is, syntactically.
///
/// Integer literals (decimal, hex `0x`, octal `0`, binary `0b`, optional `U` suffix, optional
/// leading `-`) are kept as their 64-bit two's-complement bits. `0fXXXXXXXX` gives [`F32`],
/// `0dXXXXXXXXXXXXXXXX` and decimal float literals (`1.5`, `1e-3`) give [`F64`].
///
/// [`F32`]: OperandKind::F32
/// [`F64`]: OperandKind::F64
#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind<'a> {
    /// A register, special register, variable, label or function name, with an optional
    /// `.x`-style component (`%tid.x`, `%v.y`).
    Name {
        name: &'a str,
        component: Option<&'a str>,
    },
    /// `!%p`
    NotName {
        name: &'a str,
    },
    /// `-%r`, `-%r.h0`: a negated source of `vmad`.
    NegName {
        name: &'a str,
        component: Option<&'a str>,
    },
    /// `%p|%q`: the two predicate destinations of `setp`, `shfl.sync`'s `d|p`, `match`'s `d|p`.
    /// Each half is a [`OperandKind::Name`], with its vector component if any (`%v.x|%p`), or
    /// a [`OperandKind::Sink`] (`_`).
    Pair {
        first: Box<Operand<'a>>,
        second: Box<Operand<'a>>,
    },
    /// `sym+8` / `sym-8` outside brackets.
    NameOffset {
        name: &'a str,
        offset: i64,
    },
    Int {
        bits: u64,
    },
    F32 {
        bits: u32,
    },
    F64 {
        bits: u64,
    },
    /// `[base]`, `[base+imm]`, `[base+-imm]`, `[base-imm]`, `[imm]`.
    Address {
        base: Option<&'a str>,
        offset: i64,
    },
    /// `{a, b, c, d}`
    Vector(Vec<Operand<'a>>),
    /// `(a, b)`: call argument and return lists.
    List(Vec<Operand<'a>>),
    /// `_`
    Sink,
}

impl Item<'_> {
    /// Where the directive is in the source.
    pub fn span(&self) -> Span {
        match self {
            Item::Version { span, .. }
            | Item::Target { span, .. }
            | Item::AddressSize { span, .. }
            | Item::Pragma { span, .. }
            | Item::Ignored { span, .. } => *span,
            Item::Var(decl) => decl.span,
            Item::Function(f) => f.span,
        }
    }
}
