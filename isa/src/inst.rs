//! Instructions: the [`Op`] enum (operation plus every typed modifier), operands and guards.
//!
//! Operand conventions, relied on by the interpreter, the JIT and the timing model:
//! - `dsts` holds written operands in PTX order (`setp`'s `p|q` gives two; vector loads give one
//!   [`Operand::Vector`]); `srcs` holds read operands in PTX order. Memory addresses are
//!   [`Operand::Address`] in `srcs` (first for stores and atomics, only one for loads).
//! - Immediates hold the literal's value as 64 bits: integers sign- or zero-extended, floats as the
//!   IEEE bits of the operand's own float type (an `f32` operand holds f32 bits).

use crate::function::{BlockId, FuncId, SymbolRef, VReg};
use crate::matrix::{Fragment, Layout, MatrixShape};
use crate::special::SpecialReg;
use crate::texture::{ResourceQuery, SurfaceAccess, Tex, Tld4};
use crate::types::{BoolOp, CacheOp, CmpOp, MemOrder, Rounding, Scope, StateSpace, Type};

/// A source location in the PTX text the instruction came from (1-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    pub line: u32,
    pub col: u32,
}

/// A guard predicate `@p` / `@!p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: VReg,
    pub negated: bool,
}

/// The base of a memory address `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// A register holding an address (or, for `.shared`/`.local`, a window offset).
    Reg(VReg),
    /// The address of a variable.
    Symbol(SymbolRef),
    /// An absolute address (`[0x100]`).
    Absolute,
}

/// The width at which an address's `base + offset` is computed: the base register's.
///
/// The manual computes an address expression at its register's width and zero-extends the
/// result to the address size ("Addresses are zero-extended to the specified width as
/// needed"), so `[%r+68]` with a 32-bit `%r` holding `buf - 64` is `buf + 4`, whatever the
/// module's `.address_size` (NVVM forms such bases, `%r = temp - 64·tid`, in ordinary
/// kernels). A symbol or absolute base is [`AddrWidth::Bits64`]: its sum is the module's
/// address size's, which `Program::address_mask` applies to every address afterwards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AddrWidth {
    /// A 32-bit base register: the sum wraps modulo 2^32.
    Bits32,
    /// A 64-bit base register, a symbol or an absolute address: the sum wraps modulo 2^64.
    #[default]
    Bits64,
}

impl AddrWidth {
    /// The width of a base register of `bits` bits (32 or 64).
    pub fn of_register(bits: u32) -> AddrWidth {
        if bits <= 32 {
            AddrWidth::Bits32
        } else {
            AddrWidth::Bits64
        }
    }

    /// The mask that keeps a sum at this width.
    pub fn mask(self) -> u64 {
        match self {
            AddrWidth::Bits32 => u64::from(u32::MAX),
            AddrWidth::Bits64 => u64::MAX,
        }
    }
}

/// A memory address `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
    /// The width `base + offset` is computed at (see [`AddrWidth`]): the one fact the
    /// interpreter, the JIT and the timing model's address evaluation all read.
    pub width: AddrWidth,
}

impl Address {
    /// `[base+offset]` computed at 64 bits: a symbol, an absolute address or a 64-bit register.
    pub fn new(base: AddrBase, offset: i64) -> Address {
        Address {
            base,
            offset,
            width: AddrWidth::Bits64,
        }
    }

    /// The address the operand names when its base has the value `base` (a register's value,
    /// a variable's address or window offset, 0 when absolute): `base + offset` at the
    /// operand's width, zero-extended. The module's address size applies on top of it.
    pub fn sum(&self, base: u64) -> u64 {
        base.wrapping_add(self.offset as u64) & self.width.mask()
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(VReg),
    /// A predicate source read negated (`!p`), as `setp`'s combining operand allows.
    NotPred(VReg),
    /// An immediate (see the module docs for its encoding).
    Imm(u64),
    Special(SpecialReg),
    /// The address of a variable plus a byte offset, as a value (`mov.u64 %rd, sym;`).
    /// For `.shared`/`.local` variables the value is the offset in that space's window.
    SymbolAddr {
        sym: SymbolRef,
        offset: i64,
    },
    /// A function's address (`mov.u64 %rd, func;`).
    FuncAddr(FuncId),
    Address(Address),
    /// `{a, b, c, d}`: the elements of a vector access or a pack/unpack `mov`.
    Vector(Vec<Operand>),
    /// `_`: a destination whose value is discarded.
    Sink,
}

impl Operand {
    /// The register this operand reads or writes directly, if it is one.
    pub fn reg(&self) -> Option<VReg> {
        match self {
            Operand::Reg(r) | Operand::NotPred(r) => Some(*r),
            Operand::Address(Address {
                base: AddrBase::Reg(r),
                ..
            }) => Some(*r),
            _ => None,
        }
    }

    /// Every register this operand mentions (vector elements and address bases included).
    pub fn regs(&self) -> impl Iterator<Item = VReg> + '_ {
        let (single, many): (Option<VReg>, &[Operand]) = match self {
            Operand::Vector(v) => (None, v.as_slice()),
            other => (other.reg(), &[]),
        };
        single
            .into_iter()
            .chain(many.iter().filter_map(Operand::reg))
    }
}

/// The operation of [`Op::FMixed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MixedOp {
    Add,
    Sub,
    Fma,
}

/// The operation of [`Op::IPacked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedIntOp {
    Add,
    Min,
    Max,
}

/// What a `call` calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    Direct(FuncId),
    /// Through a function address (`mov.u64 %rd, f`) read from the call's first source, which
    /// may differ between lanes; the `.callprototype` it names was checked at lowering.
    Indirect,
}

impl Callee {
    /// The function a direct call calls.
    pub fn direct(self) -> Option<FuncId> {
        match self {
            Callee::Direct(f) => Some(f),
            Callee::Indirect => None,
        }
    }
}

/// `.lo` / `.hi` / `.wide` of integer `mul` and `mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

/// The operation of a carry-chain instruction (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CarryOp {
    Add,
    Sub,
    /// `mad{c}.lo{.cc}`.
    MadLo,
    /// `mad{c}.hi{.cc}`.
    MadHi,
}

/// The kind of a float `div`, `rcp` or `sqrt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatPrecision {
    /// IEEE-compliant, with this rounding.
    Rounded(Rounding),
    /// `.approx`: the manual's error bounds.
    Approx,
    /// `.full` (div.f32 only): at most 2 ulp.
    Full,
}

/// Approximate unary float functions (always `.approx` for f32; `rcp/rsqrt/...approx.f64` too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TranscFn {
    Rsqrt,
    Sin,
    Cos,
    Ex2,
    Lg2,
    Tanh,
}

/// `testp`'s property.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestProp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// `prmt`'s mode (`None` in [`Op::Prmt`] is the default generic permute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// `shf`'s direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftDir {
    Left,
    Right,
}

/// Shift-amount handling of `shf` and `bmsk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftMode {
    Clamp,
    Wrap,
}

/// The rounding of a `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CvtRounding {
    /// No modifier (exact conversions, or integer-to-integer).
    None,
    /// `.rn .rna .rz .rm .rp`: float results.
    Float(Rounding),
    /// `.rni .rzi .rmi .rpi`: round to an integral value.
    Int(Rounding),
}

/// Read-modify-write operation of `atom` / `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    Inc,
    Dec,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// What a `bar`/`barrier` instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    /// Wait until the expected number of threads arrived.
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// Wait, and reduce a predicate across the participating threads.
    Red(BarRedOp),
    /// `barrier.cluster.arrive{.release|.relaxed}`: mark the executing threads' arrival at
    /// the cluster barrier, without waiting (no operands; `relaxed` orders no memory).
    ClusterArrive { relaxed: bool },
    /// `barrier.cluster.wait{.acquire}`: wait until the phase of the executing threads'
    /// latest arrival completes (no operands).
    ClusterWait,
}

impl BarrierKind {
    /// Whether this is one of the cluster barrier's instructions, which have no operands and
    /// use none of the CTA's 16 named barriers.
    pub fn is_cluster(self) -> bool {
        matches!(
            self,
            BarrierKind::ClusterArrive { .. } | BarrierKind::ClusterWait
        )
    }
}

/// The reduction of `bar.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// `membar`'s level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarLevel {
    Cta,
    Gl,
    Sys,
}

/// `vote.sync`'s mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// `shfl.sync`'s mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `match.sync`'s mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchMode {
    Any,
    All,
}

/// `redux.sync`'s operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// The operation of an instruction with all of its modifiers, typed.
///
/// Matched exhaustively (no `_ =>` arms) by the interpreter, the JIT and the timing classifier,
/// so a new operation makes the compiler list every place that must handle it.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    // ---- integer arithmetic: d, a, b (, c)
    IAdd {
        ty: Type,
        sat: bool,
    },
    ISub {
        ty: Type,
        sat: bool,
    },
    IMul {
        ty: Type,
        mode: MulMode,
    },
    IMad {
        ty: Type,
        mode: MulMode,
        sat: bool,
    },
    Mul24 {
        ty: Type,
        hi: bool,
    },
    Mad24 {
        ty: Type,
        hi: bool,
        sat: bool,
    },
    IDiv {
        ty: Type,
    },
    IRem {
        ty: Type,
    },
    IAbs {
        ty: Type,
    },
    INeg {
        ty: Type,
    },
    IMin {
        ty: Type,
    },
    IMax {
        ty: Type,
    },
    /// sm_90's `add`, `min` and `max` of `.u16x2`/`.s16x2` (each 16-bit half on its own) and
    /// `min`/`max.relu` of `.s32` and `.s16x2` (negative results become 0). `ty` is the
    /// element type (`.s32`, `.u16` or `.s16`); `lanes` is 1 or 2.
    IPacked {
        op: PackedIntOp,
        ty: Type,
        lanes: u8,
        relu: bool,
    },
    /// d = c + |a - b|.
    Sad {
        ty: Type,
    },
    /// Carry chains; the carry flag (CC.CF) is per-thread state.
    Carry {
        op: CarryOp,
        ty: Type,
        carry_in: bool,
        carry_out: bool,
    },

    // ---- bit manipulation
    Popc {
        ty: Type,
    },
    Clz {
        ty: Type,
    },
    Bfind {
        ty: Type,
        shift_amount: bool,
    },
    Brev {
        ty: Type,
    },
    Bfe {
        ty: Type,
    },
    Bfi {
        ty: Type,
    },
    Prmt {
        mode: Option<PrmtMode>,
    },
    Shf {
        dir: ShiftDir,
        mode: ShiftMode,
    },
    Bmsk {
        mode: ShiftMode,
    },
    /// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit of `mask`
    /// counted from bit `base` (upwards for a positive offset, downwards for a negative one),
    /// or `0xffffffff`.
    Fns,
    /// The scalar video instructions ([`Video`]). srcs: a, b (, c).
    Video(Video),
    /// The SIMD video instructions ([`SimdVideo`]). srcs: a, b, c.
    VideoSimd(SimdVideo),
    /// `lop3{.BoolOp}.b32 d{|p}, a, b, c, immLut{, q}`: bit i of `d` is bit
    /// (a_i·4 + b_i·2 + c_i) of the look-up table `immLut` (an immediate source); with a
    /// combiner, `p = (d != 0) BoolOp q`.
    Lop3 {
        combine: Option<BoolOp>,
    },
    /// `szext.{clamp,wrap}.{u32,s32}`: the low N bits of `a` sign- or zero-extended to 32,
    /// N from `b` (0 gives 0; 32 or more: `a` with `.clamp`, N mod 32 with `.wrap`).
    Szext {
        mode: ShiftMode,
        signed: bool,
    },
    /// `nanosleep.u32 t`: the warp sleeps about `t` nanoseconds (at most 1 ms), the largest `t`
    /// of its lanes; nothing else happens.
    Nanosleep,
    /// `cvt.pack.sat.{u,s}N.s32{.b32}`: `a` and `b` saturated to N-bit integers and packed,
    /// `b` in the low N bits and `a` above it; for N < 16 the bits above them come from `c`
    /// (`d = c << 2N | a << N | b`).
    CvtPack {
        bits: u8,
        signed: bool,
    },
    /// `dp4a.atype.btype`: `c` plus the dot product of the four bytes of `a` and of `b`, each
    /// operand's bytes signed when its type is `.s32`; the sum wraps at 32 bits.
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    /// `dp2a.{lo,hi}.atype.btype`: `c` plus the dot product of the two 16-bit halves of `a`
    /// and two bytes of `b` (bytes 0 and 1 with `.lo`, 2 and 3 with `.hi`).
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `createpolicy.fractional.L2::primary{.L2::secondary}.b64 d{, fraction}`: a cache policy,
    /// an opaque value that `.L2::cache_hint` accesses take as a hint. warpsim's encoding:
    /// `priorities` (primary in bits 0–3, secondary in 4–7: 0 evict_last, 1 evict_normal,
    /// 2 evict_first, 3 evict_unchanged) and the fraction's f32 bits in bits 32–63. srcs:
    /// fraction (1.0 when absent).
    Createpolicy {
        priorities: u8,
    },
    /// Logic ops also work on predicates (`ty == Pred`).
    And {
        ty: Type,
    },
    Or {
        ty: Type,
    },
    Xor {
        ty: Type,
    },
    Not {
        ty: Type,
    },
    CNot {
        ty: Type,
    },
    Shl {
        ty: Type,
    },
    Shr {
        ty: Type,
    },

    // ---- floating point
    FAdd {
        ty: Type,
        rnd: Option<Rounding>,
        ftz: bool,
        sat: bool,
    },
    FSub {
        ty: Type,
        rnd: Option<Rounding>,
        ftz: bool,
        sat: bool,
    },
    FMul {
        ty: Type,
        rnd: Option<Rounding>,
        ftz: bool,
        sat: bool,
    },
    /// `fma` and rounded `mad`: single rounding of a*b+c. `relu` (half precision only) clamps
    /// a negative result to +0.
    Fma {
        ty: Type,
        rnd: Rounding,
        ftz: bool,
        sat: bool,
        relu: bool,
    },
    FDiv {
        ty: Type,
        prec: FloatPrecision,
        ftz: bool,
    },
    Rcp {
        ty: Type,
        prec: FloatPrecision,
        ftz: bool,
    },
    Sqrt {
        ty: Type,
        prec: FloatPrecision,
        ftz: bool,
    },
    /// sm_100's mixed-precision `add{.rnd}{.sat}.f32.atype d, a, c`, `sub` likewise, and
    /// `fma.rnd{.sat}.f32.abtype d, a, b, c`: the `half` (`.f16`, `.bf16`) operands `a` (and
    /// `b`) converted to f32 exactly, then the f32 operation with `c`, rounded by `rnd`.
    FMixed {
        op: MixedOp,
        half: Type,
        rnd: Rounding,
        sat: bool,
    },
    /// Approximate functions: rsqrt, sin, cos, ex2, lg2, tanh.
    Transc {
        func: TranscFn,
        ty: Type,
        ftz: bool,
    },
    FAbs {
        ty: Type,
        ftz: bool,
    },
    FNeg {
        ty: Type,
        ftz: bool,
    },
    /// `min{.ftz}{.NaN}{.xorsign.abs}`: with `xorsign`, the smaller magnitude with the XOR of
    /// the operands' signs.
    FMin {
        ty: Type,
        ftz: bool,
        nan: bool,
        xorsign: bool,
    },
    /// `max{.ftz}{.NaN}{.xorsign.abs}`, as `FMin`.
    FMax {
        ty: Type,
        ftz: bool,
        nan: bool,
        xorsign: bool,
    },
    Copysign {
        ty: Type,
    },
    Testp {
        prop: TestProp,
        ty: Type,
    },

    // ---- comparison and selection
    /// dsts: p (, q); srcs: a, b (, c when `combine` is set).
    Setp {
        cmp: CmpOp,
        ty: Type,
        combine: Option<BoolOp>,
        ftz: bool,
    },
    Set {
        cmp: CmpOp,
        dty: Type,
        sty: Type,
        combine: Option<BoolOp>,
        ftz: bool,
    },
    /// d = c ? a : b.
    Selp {
        ty: Type,
    },
    /// d = (c >= 0) ? a : b, c of type `cty`.
    Slct {
        ty: Type,
        cty: Type,
        ftz: bool,
    },

    // ---- data movement and conversion
    Mov {
        ty: Type,
    },
    /// `mov.bN d, {a, b, ...}`: concatenates the elements, first element lowest.
    Pack {
        ty: Type,
    },
    /// `mov.bN {a, b, ...}, s`: splits `s`, lowest bits to the first element.
    Unpack {
        ty: Type,
    },
    /// `cvt`; a packed `.f16x2`/`.bf16x2` destination converts two sources, the first into the
    /// upper half. `relu` clamps negative results to +0 and `satfinite` infinite or overflowing
    /// ones to the largest finite value of their sign (half-precision destinations).
    Cvt {
        dty: Type,
        sty: Type,
        rnd: CvtRounding,
        ftz: bool,
        sat: bool,
        relu: bool,
        satfinite: bool,
    },
    /// `cvta.space` (to generic) or `cvta.to.space` (from generic).
    Cvta {
        space: StateSpace,
        to_generic: bool,
        ty: Type,
    },
    Ld {
        space: StateSpace,
        ty: Type,
        vec: u8,
        order: MemOrder,
        scope: Option<Scope>,
        cache: Option<CacheOp>,
        nc: bool,
    },
    St {
        space: StateSpace,
        ty: Type,
        vec: u8,
        order: MemOrder,
        scope: Option<Scope>,
        cache: Option<CacheOp>,
    },
    Ldu {
        space: StateSpace,
        ty: Type,
        vec: u8,
    },
    /// dsts: d; srcs: address, b (, c for cas). With `vec` > 1 (sm_90), `d` and `b` are
    /// vectors and each element is its own atomic operation on consecutive elements.
    Atom {
        space: StateSpace,
        op: AtomOp,
        ty: Type,
        vec: u8,
        order: MemOrder,
        scope: Option<Scope>,
    },
    /// srcs: address, b (a vector when `vec` > 1).
    Red {
        space: StateSpace,
        op: AtomOp,
        ty: Type,
        vec: u8,
        order: MemOrder,
        scope: Option<Scope>,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size | ignore-src}`: copies
    /// `size` bytes (4, 8 or 16) from global to shared memory, asynchronously: the copy belongs
    /// to the thread's open group until `cp.async.commit_group`, and is complete for it after
    /// a `cp.async.wait_group` that covers that group. Only the first `src-size` bytes are read,
    /// the rest filled with zeros (none read when `ignore_src` and its predicate holds).
    /// `bypass_l1` is `.cg`. srcs: shared address, global address, then src-size (a `.u32`;
    /// `size` when absent) or, with `ignore_src`, the predicate.
    CpAsync {
        size: u8,
        bypass_l1: bool,
        ignore_src: bool,
    },
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type r, [p]{, stride}`: the warp
    /// loads a matrix into the fragment `r`, a vector of registers ([`crate::matrix`]).
    /// srcs: address (, stride in elements).
    WmmaLoad {
        frag: Fragment,
        layout: Layout,
        space: StateSpace,
    },
    /// `wmma.store.d.sync.aligned.layout.shape{.space}.type [p], r{, stride}`: the warp stores
    /// fragment `r`. srcs: address, fragment (, stride in elements).
    WmmaStore {
        frag: Fragment,
        layout: Layout,
        space: StateSpace,
    },
    /// `wmma.mma.sync.aligned.alayout.blayout.shape...`: `D = A · B + C` over the warp's
    /// fragments; `satfinite` clamps integer results to `.s32` (and float ones to finite),
    /// `rnd` rounds `.f64`'s multiply-adds. dsts: d; srcs: a, b, c (fragments).
    WmmaMma {
        shape: MatrixShape,
        a_layout: Layout,
        b_layout: Layout,
        d: Type,
        a: Type,
        b: Type,
        c: Type,
        satfinite: bool,
        rnd: Option<Rounding>,
    },
    /// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype d, a, b, c`:
    /// `D = A · B + C` over fragments laid out as the manual specifies
    /// ([`Fragment::mma_element`]); the layouts are `.row.col` but in Volta's m8n8k4 `.f16`
    /// form, which takes either for each of A and B and computes four products, one per quad
    /// pair ([`MatrixShape::is_quad_pair`]). dsts: d; srcs: a, b, c.
    Mma {
        shape: MatrixShape,
        a_layout: Layout,
        b_layout: Layout,
        d: Type,
        a: Type,
        b: Type,
        c: Type,
        satfinite: bool,
    },
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}{.space}.b16 d, [p]`: `count` 8×8 matrices of
    /// 16-bit elements, each row at the address of lane `8 × matrix + row`; lane `l` gets row
    /// `l / 4`, elements `2(l % 4)` and the next, of each (with `trans`, the transposed
    /// matrix's). dsts: d (`count` registers); srcs: address.
    Ldmatrix {
        count: u8,
        trans: bool,
        space: StateSpace,
    },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}{.space}.b16 [p], r`: the inverse of `ldmatrix`.
    /// srcs: address, r (`count` registers).
    Stmatrix {
        count: u8,
        trans: bool,
        space: StateSpace,
    },
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: the warp's 8×8 matrix of 16-bit elements,
    /// held as `ldmatrix` leaves one (lane `l`: row `l / 4`, elements `2(l % 4)` and the next),
    /// transposed into `d`. dsts: d; srcs: a.
    Movmatrix,
    /// `prefetch{.space}.level [a]` and `prefetchu.L1 [a]`: a hint that brings a line into a
    /// cache; it computes nothing and cannot fault. `level` is as written (`L1`, `L2`,
    /// `L2::evict_last`, ...). srcs: address.
    Prefetch {
        space: StateSpace,
        level: PrefetchLevel,
        uniform: bool,
    },
    /// An `mbarrier` operation on the 64-bit barrier object at `srcs[0]` (in `space`: shared
    /// or generic), or `cp.async.mbarrier.arrive` ([`MbarrierOp`] has each one's operands).
    Mbarrier {
        op: MbarrierOp,
        space: StateSpace,
    },
    /// `cp.async.commit_group`: the thread's copies since the last commit become a group.
    CpAsyncCommit,
    /// `cp.async.wait_group n`: waits until at most the `n` most recent groups are incomplete.
    /// `cp.async.wait_all` is `all` (a commit, then a wait for every group).
    CpAsyncWait {
        n: u32,
        all: bool,
    },

    // ---- textures and surfaces ([`crate::texture`] has the operand conventions)
    /// `tex`: dsts: d (a vector), then optionally p (true: warpsim's texels are always
    /// resident); srcs: texture, sampler (with `sampler`), coordinates, then the level of
    /// detail (`TexLevel::Level`) or the gradients dPdx, dPdy (`TexLevel::Grad`), then the
    /// offset vector (with `offset`).
    Tex(Tex),
    /// `tld4`: dsts: d (, p); srcs: texture, sampler (with `sampler`), coordinates, offset.
    Tld4(Tld4),
    /// `txq{.level}.query.b32 d, [a]{, lod}`: srcs: texture or sampler (, lod).
    Txq {
        query: ResourceQuery,
        level: bool,
    },
    /// `suld.b.geom{.cop}{.vN}.bK.clamp d, [a, b]`: srcs: surface, coordinates.
    Suld(SurfaceAccess),
    /// `sust.b.geom{.cop}{.vN}.bK.clamp [a, b], c`: srcs: surface, coordinates, data.
    Sust(SurfaceAccess),
    /// `sured.b.op.geom.type.clamp [a, b], c`: an atomic `op` on one element of a surface.
    /// srcs: surface, coordinates, value.
    Sured {
        op: AtomOp,
        access: SurfaceAccess,
    },
    /// `suq.query.b32 d, [a]`: srcs: surface.
    Suq {
        query: ResourceQuery,
    },

    // ---- synchronisation
    /// srcs: barrier id (, thread count) (, predicate for `Red`); dsts: d for `Red`; none for
    /// the cluster barrier's kinds.
    Bar {
        kind: BarrierKind,
        aligned: bool,
    },
    /// `bar.warp.sync membermask`: waits until every lane in the mask reaches it
    /// (`__syncwarp`); srcs: membermask.
    BarWarpSync,
    Membar {
        level: MembarLevel,
    },
    Fence {
        order: MemOrder,
        scope: Scope,
    },

    // ---- warp-level
    /// dsts: d; srcs: a (predicate), membermask.
    Vote {
        mode: VoteMode,
    },
    /// dsts: d (, p); srcs: a, b, c, membermask.
    Shfl {
        mode: ShflMode,
    },
    /// dsts: d (, p); srcs: a, membermask.
    Match {
        mode: MatchMode,
        ty: Type,
    },
    Activemask,
    /// `isspacep.space p, a`: whether the generic address `a` lies in `space`'s window
    /// (`.global`, `.const`, `.local`, `.shared`, `.param`).
    Isspacep {
        space: StateSpace,
    },
    /// dsts: d; srcs: a, membermask. `abs` and `nan` (`.abs`, `.NaN`) only with `.f32`.
    Redux {
        op: ReduxOp,
        ty: Type,
        abs: bool,
        nan: bool,
    },
    /// `elect.sync d|p, membermask` (sm_90): elects one leader among the member lanes;
    /// dsts: d (the leader's lane, or a sink), p; srcs: membermask.
    Elect,

    // ---- control
    /// Ends the block; a guarded branch falls through to the next block otherwise.
    Bra {
        target: BlockId,
        uni: bool,
    },
    /// Calls `callee`; `args`/`rets` are `.param` variables of the caller. An indirect call's
    /// target is the function address in `srcs[0]` (`call (r), %rd, (a), prototype`).
    Call {
        callee: Callee,
        uni: bool,
        args: Vec<SymbolRef>,
        rets: Vec<SymbolRef>,
    },
    Ret {
        uni: bool,
    },
    Exit,
    Trap,
    /// An instruction that parsed but that warpsim cannot execute (cube-map textures, ...).
    /// `text` is the opcode with its modifiers, as written.
    Unsupported {
        text: String,
    },
}

impl Op {
    /// Whether the operation computes its destinations from its operands alone: arithmetic,
    /// logic, comparisons, selections, conversions, moves, packing. Not memory, control flow,
    /// synchronisation, warp-wide communication, or the carry chain (whose flag is per-thread
    /// state no operand names). Such an instruction may move wherever its register
    /// dependences allow ([`crate::schedule`]); an operand naming a clock is the caller's
    /// concern.
    pub fn is_register_computation(&self) -> bool {
        match self {
            Op::IAdd { .. }
            | Op::ISub { .. }
            | Op::IMul { .. }
            | Op::IMad { .. }
            | Op::Mul24 { .. }
            | Op::Mad24 { .. }
            | Op::IDiv { .. }
            | Op::IRem { .. }
            | Op::IAbs { .. }
            | Op::INeg { .. }
            | Op::IMin { .. }
            | Op::IMax { .. }
            | Op::IPacked { .. }
            | Op::Sad { .. }
            | Op::Popc { .. }
            | Op::Clz { .. }
            | Op::Bfind { .. }
            | Op::Brev { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Shf { .. }
            | Op::Bmsk { .. }
            | Op::Fns
            | Op::Lop3 { .. }
            | Op::Video(_)
            | Op::VideoSimd(_)
            | Op::Szext { .. }
            | Op::CvtPack { .. }
            | Op::Dp4a { .. }
            | Op::Dp2a { .. }
            | Op::Createpolicy { .. }
            | Op::And { .. }
            | Op::Or { .. }
            | Op::Xor { .. }
            | Op::Not { .. }
            | Op::CNot { .. }
            | Op::Shl { .. }
            | Op::Shr { .. }
            | Op::FAdd { .. }
            | Op::FSub { .. }
            | Op::FMul { .. }
            | Op::Fma { .. }
            | Op::FMixed { .. }
            | Op::FDiv { .. }
            | Op::Rcp { .. }
            | Op::Sqrt { .. }
            | Op::Transc { .. }
            | Op::FAbs { .. }
            | Op::FNeg { .. }
            | Op::FMin { .. }
            | Op::FMax { .. }
            | Op::Copysign { .. }
            | Op::Testp { .. }
            | Op::Setp { .. }
            | Op::Set { .. }
            | Op::Selp { .. }
            | Op::Slct { .. }
            | Op::Mov { .. }
            | Op::Cvt { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Cvta { .. } => true,
            Op::Carry { .. }
            | Op::Ld { .. }
            | Op::St { .. }
            | Op::Ldu { .. }
            | Op::Atom { .. }
            | Op::Red { .. }
            | Op::CpAsync { .. }
            | Op::Prefetch { .. }
            | Op::CpAsyncCommit
            | Op::CpAsyncWait { .. }
            | Op::Mbarrier { .. }
            | Op::WmmaLoad { .. }
            | Op::WmmaStore { .. }
            | Op::WmmaMma { .. }
            | Op::Mma { .. }
            | Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::Movmatrix
            | Op::Tex(_)
            | Op::Tld4(_)
            | Op::Txq { .. }
            | Op::Suld(_)
            | Op::Sust(_)
            | Op::Sured { .. }
            | Op::Suq { .. }
            | Op::Bar { .. }
            | Op::BarWarpSync
            | Op::Membar { .. }
            | Op::Fence { .. }
            | Op::Nanosleep
            | Op::Vote { .. }
            | Op::Shfl { .. }
            | Op::Match { .. }
            | Op::Activemask
            | Op::Isspacep { .. }
            | Op::Redux { .. }
            | Op::Elect
            | Op::Bra { .. }
            | Op::Call { .. }
            | Op::Ret { .. }
            | Op::Exit
            | Op::Trap
            | Op::Unsupported { .. } => false,
        }
    }
}

/// What an `mbarrier` instruction does. The object (64 bits in shared memory) counts the
/// arrivals its current phase still expects; the last one completes the phase, which flips
/// its parity and expects the initial count again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierOp {
    /// `mbarrier.init.b64 [a], count`: phase 0 expecting `count` arrivals.
    Init,
    /// `mbarrier.inval.b64 [a]`.
    Inval,
    /// `mbarrier.arrive{_drop}.b64 state, [a]{, count}`: `count` (default 1) arrivals;
    /// `drop` also lowers the count the later phases expect. `state` (a `.b64`, or `_`)
    /// receives the object as it was, whose phase `test_wait` compares with.
    Arrive { drop: bool },
    /// `mbarrier.{test,try}_wait{.parity}.b64 p, [a], state|parity`: whether the phase of
    /// `state` (or of that parity) has completed. `try_wait` returns at once, as a time limit
    /// of zero allows. srcs: address, state or parity (, the suspend-time hint of `try_wait`).
    TestWait { parity: bool },
    /// `mbarrier.pending_count.b64 count, state`: the arrivals the phase of `state` was still
    /// expecting before that arrival.
    PendingCount,
    /// `cp.async.mbarrier.arrive{.noinc}.b64 [a]`: an arrival once the thread's earlier
    /// `cp.async` copies complete (they complete at issue here); without `.noinc` the count is
    /// raised by one first, so the pair changes nothing.
    CpAsyncArrive { noinc: bool },
}

/// The cache level (and eviction priority) a `prefetch` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchLevel {
    L1,
    L2,
    L2EvictLast,
    L2EvictNormal,
    /// `prefetch{.param,.const}.tensormap`: a tensor-map descriptor (sm_90).
    Tensormap,
}

impl PrefetchLevel {
    pub fn from_name(name: &str) -> Option<PrefetchLevel> {
        Some(match name {
            "L1" => PrefetchLevel::L1,
            "L2" => PrefetchLevel::L2,
            "L2::evict_last" => PrefetchLevel::L2EvictLast,
            "L2::evict_normal" => PrefetchLevel::L2EvictNormal,
            "tensormap" => PrefetchLevel::Tensormap,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PrefetchLevel::L1 => "L1",
            PrefetchLevel::L2 => "L2",
            PrefetchLevel::L2EvictLast => "L2::evict_last",
            PrefetchLevel::L2EvictNormal => "L2::evict_normal",
            PrefetchLevel::Tensormap => "tensormap",
        }
    }
}

/// The primary operation of a scalar video instruction (`vadd`, ..., `vset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoOp {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    /// `vshl`/`vshr`; `clamp` is `.clamp` (amounts above 32 are 32), else `.wrap` (mod 32).
    Shl {
        clamp: bool,
    },
    Shr {
        clamp: bool,
    },
    /// `vset.cmp` (eq, ne, lt, le, gt, ge): 1 or 0.
    Set(CmpOp),
    /// `vmad{.po}{.shr7,.shr15}`: `(±a·b) + ±c` (+1 with `po`, or to negate one of them),
    /// shifted right by `shift` (0, 7 or 15). `negate` is `-a`, `-b`, `-c` as written; the
    /// product is negated when exactly one of `a` and `b` is.
    Mad {
        po: bool,
        shift: u8,
        negate: [bool; 3],
    },
}

/// A byte or half-word of a 32-bit register: a video instruction's `.b0`..`.b3`, `.h0`, `.h1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    B0,
    B1,
    B2,
    B3,
    H0,
    H1,
}

impl Part {
    pub fn from_name(name: &str) -> Option<Part> {
        Some(match name {
            "b0" => Part::B0,
            "b1" => Part::B1,
            "b2" => Part::B2,
            "b3" => Part::B3,
            "h0" => Part::H0,
            "h1" => Part::H1,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Part::B0 => "b0",
            Part::B1 => "b1",
            Part::B2 => "b2",
            Part::B3 => "b3",
            Part::H0 => "h0",
            Part::H1 => "h1",
        }
    }

    /// The part's width in bits and its shift.
    pub fn bits_and_shift(self) -> (u32, u32) {
        match self {
            Part::B0 => (8, 0),
            Part::B1 => (8, 8),
            Part::B2 => (8, 16),
            Part::B3 => (8, 24),
            Part::H0 => (16, 0),
            Part::H1 => (16, 16),
        }
    }
}

/// A scalar video instruction: `op` on the parts `asel`/`bsel` of `a` and `b` (the whole word
/// without one), extended by their types; saturated to the destination type (or merged part)
/// with `sat`; then `then` with `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Video {
    pub op: VideoOp,
    pub dty: Type,
    pub aty: Type,
    pub bty: Type,
    pub sat: bool,
    pub asel: Option<Part>,
    pub bsel: Option<Part>,
    pub then: VideoThen,
}

/// The operation of a SIMD video instruction (`vadd2`, ..., `vset4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdVideoOp {
    Add,
    Sub,
    /// `vavrg`: the mean, rounded up when the sum is not negative (down otherwise).
    Avrg,
    Absdiff,
    Min,
    Max,
    /// `vset.cmp`: 1 or 0 per element.
    Set(CmpOp),
}

/// A SIMD video instruction: `op` on `lanes` (2 or 4) elements of 16 or 8 bits, each taken
/// from the 64-bit concatenation `{b, a}` (`a` low) at the index its selector gives
/// (`asel[i]`, `bsel[i]`: `.h10`/`.h32`, `.b3210`/`.b7654` by default) and extended by its
/// type; `.sat` clamps to the destination type's element range; then with `add`, `d = c` plus
/// the elements of `mask`, or else `d` takes the elements of `mask` and `c`'s others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimdVideo {
    pub op: SimdVideoOp,
    pub lanes: u8,
    pub dty: Type,
    pub aty: Type,
    pub bty: Type,
    pub sat: bool,
    pub add: bool,
    pub asel: [u8; 4],
    pub bsel: [u8; 4],
    /// Bit `i`: element `i` is written (merge) or accumulated (`add`).
    pub mask: u8,
}

impl SimdVideo {
    /// The default selectors of `lanes` elements: `a`'s and `b`'s own elements in order (the
    /// entries past `lanes` are 0).
    pub fn default_selectors(lanes: u8) -> ([u8; 4], [u8; 4]) {
        let pick = |first: u8| {
            std::array::from_fn(|i| {
                if (i as u8) < lanes {
                    first + i as u8
                } else {
                    0
                }
            })
        };
        (pick(0), pick(lanes))
    }
}

/// What a video instruction does with its third operand `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoThen {
    /// No `c`: the (saturated) result.
    Nothing,
    /// `.add`, `.min`, `.max`: a secondary operation with `c`.
    Add,
    Min,
    Max,
    /// `d.part`: the result's low bits merged into that part of `c`.
    Merge(Part),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub guard: Option<Guard>,
    pub op: Op,
    pub dsts: Vec<Operand>,
    pub srcs: Vec<Operand>,
    pub loc: SrcLoc,
}

impl Inst {
    /// Whether this instruction ends its basic block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.op,
            Op::Bra { .. } | Op::Ret { .. } | Op::Exit | Op::Trap
        )
    }

    /// Whether control can continue to the next instruction in layout order.
    pub fn can_fall_through(&self) -> bool {
        !self.is_terminator() || self.guard.is_some()
    }

    /// Registers read: sources, the guard, and registers inside address operands.
    pub fn uses(&self) -> impl Iterator<Item = VReg> + '_ {
        self.guard
            .map(|g| g.pred)
            .into_iter()
            .chain(self.srcs.iter().flat_map(Operand::regs))
    }

    /// Registers written.
    pub fn defs(&self) -> impl Iterator<Item = VReg> + '_ {
        self.dsts.iter().flat_map(Operand::regs)
    }
}
