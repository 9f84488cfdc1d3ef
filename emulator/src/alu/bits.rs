//! Bit manipulation: popc, clz, bfind, brev, bfe, bfi, prmt, shf, bmsk, shl, shr.
//!
//! Each function follows the pseudo-code of its section in the PTX ISA manual; the comments
//! quote the rules that are easy to get wrong.

use super::{ext, mask, trunc};
use isa::{PrmtMode, ShiftDir, ShiftMode, Type};

/// `popc.type` (b32/b64): the number of one bits, as u32.
pub fn popc(ty: Type, a: u64) -> u64 {
    u64::from(trunc(a, ty).count_ones())
}

/// `clz.type` (b32/b64): leading zeros counted within the type's width (0..=32 or 0..=64).
pub fn clz(ty: Type, a: u64) -> u64 {
    let n = ty.bits();
    u64::from(trunc(a, ty).leading_zeros() - (64 - n))
}

/// `bfind{.shiftamt}.type`: the position of the most significant non-sign bit (for signed
/// types, negative inputs are complemented first), `0xffffffff` when there is none; with
/// `.shiftamt`, the left shift that brings that bit to the msb instead.
pub fn bfind(ty: Type, shift_amount: bool, a: u64) -> u64 {
    let n = ty.bits();
    let msb = n - 1;
    let mut v = trunc(a, ty);
    if ty.is_signed() && v >> msb & 1 == 1 {
        v = !v & mask(n);
    }
    if v == 0 {
        return 0xffff_ffff;
    }
    let pos = 63 - v.leading_zeros();
    u64::from(if shift_amount { msb - pos } else { pos })
}

/// `brev.type` (b32/b64): bit reversal within the type's width.
pub fn brev(ty: Type, a: u64) -> u64 {
    if ty.bits() == 32 {
        u64::from((a as u32).reverse_bits())
    } else {
        a.reverse_bits()
    }
}

/// `bfe.type d, a, b, c`: extracts `len = c & 0xff` bits from `pos = b & 0xff`.
///
/// Bits past the msb read as the sign bit; for signed types the sign bit is
/// `a[min(pos + len - 1, msb)]` (so a field starting past the msb is all sign), for unsigned
/// types and `len == 0` it is 0.
pub fn bfe(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let n = ty.bits();
    let msb = n - 1;
    let a = trunc(a, ty);
    let (pos, len) = ((b & 0xff) as u32, (c & 0xff) as u32);
    let sbit = if !ty.is_signed() || len == 0 {
        0
    } else {
        a >> (pos + len - 1).min(msb) & 1
    };
    // Field bits that exist: i < len and pos + i <= msb.
    let avail = if pos > msb { 0 } else { len.min(n - pos) };
    let field = if avail == 0 {
        0
    } else {
        (a >> pos) & mask(avail)
    };
    let fill = if sbit == 1 { !mask(avail) } else { 0 };
    (field | fill) & mask(n)
}

/// `bfi.type f, a, b, c, d`: inserts the low `len = d & 0xff` bits of `a` into `b` at
/// `pos = c & 0xff`; bits that would land past the msb are dropped (`len == 0` or `pos` past the
/// msb leave `b` unchanged).
pub fn bfi(ty: Type, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let n = ty.bits();
    let b = trunc(b, ty);
    let (pos, len) = ((c & 0xff) as u32, (d & 0xff) as u32);
    if pos >= n || len == 0 {
        return b;
    }
    let field = mask(len.min(n - pos)) << pos;
    (b & !field) | ((a << pos) & field)
}

/// Byte selectors of `prmt`'s special modes, indexed by mode then by `c & 3`, listing the source
/// byte for result bytes 0, 1, 2, 3 (the manual's table lists them from byte 3 down).
fn mode_bytes(mode: PrmtMode, sel: u32) -> [u32; 4] {
    const F4E: [[u32; 4]; 4] = [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]];
    const B4E: [[u32; 4]; 4] = [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]];
    const RC8: [[u32; 4]; 4] = [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]];
    const ECL: [[u32; 4]; 4] = [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]];
    const ECR: [[u32; 4]; 4] = [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]];
    const RC16: [[u32; 4]; 4] = [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]];
    let table = match mode {
        PrmtMode::F4e => &F4E,
        PrmtMode::B4e => &B4E,
        PrmtMode::Rc8 => &RC8,
        PrmtMode::Ecl => &ECL,
        PrmtMode::Ecr => &ECR,
        PrmtMode::Rc16 => &RC16,
    };
    table[(sel & 3) as usize]
}

/// `prmt.b32{.mode} d, a, b, c`: picks bytes of `{b, a}` (bytes 0-3 from `a`, 4-7 from `b`).
///
/// Generic mode: nibble `i` of `c` selects result byte `i`; its low 3 bits pick the source byte
/// and its bit 3 replicates that byte's sign bit over the result byte. Special modes use only
/// `c & 3`, through the manual's tables (no sign replication).
pub fn prmt(mode: Option<PrmtMode>, a: u64, b: u64, c: u64) -> u64 {
    let src = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let byte = |i: u32| (src >> (8 * (i & 7))) & 0xff;
    let mut d = 0;
    for i in 0..4 {
        let v = match mode {
            None => {
                let sel = (c >> (4 * i)) as u32 & 0xf;
                let v = byte(sel);
                if sel & 8 == 0 {
                    v
                } else if v & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            }
            Some(m) => byte(mode_bytes(m, c as u32)[i as usize]),
        };
        d |= v << (8 * i);
    }
    d
}

/// `shf.{l,r}.mode.b32 d, a, b, c`: shifts the 64-bit `{b, a}` by `c` (clamped to 32, or
/// wrapped to `c & 31`) and keeps the high (`.l`) or low (`.r`) 32 bits.
pub fn shf(dir: ShiftDir, mode: ShiftMode, a: u64, b: u64, c: u64) -> u64 {
    let c = c as u32;
    let n = match mode {
        ShiftMode::Clamp => c.min(32),
        ShiftMode::Wrap => c & 31,
    };
    let v = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    match dir {
        ShiftDir::Left => (v << n) >> 32,
        ShiftDir::Right => (v >> n) & 0xffff_ffff,
    }
}

/// `lop3.b32 d, a, b, c, immLut`: bit i of `d` is bit (a_i·4 + b_i·2 + c_i) of `lut` (the
/// manual's `immLut = F(0xF0, 0xCC, 0xAA)` encodes F that way).
pub fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    (0..32).fold(0, |d, i| {
        let index = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        d | (lut >> index & 1) << i
    })
}

/// `fns.b32 d, mask, base, offset`, the manual's pseudo-code: from bit `base`, the `|offset|`-th
/// set bit towards higher bits (offset > 0) or lower bits (offset < 0); offset 0 asks whether
/// bit `base` itself is set. Not found: `0xffffffff`. A base above 31 is undefined in the
/// manual; here the search, starting outside the word, finds nothing.
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    const NOT_FOUND: u64 = 0xffff_ffff;
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    if base > 31 {
        return NOT_FOUND;
    }
    if offset == 0 {
        return if mask >> base & 1 != 0 {
            u64::from(base)
        } else {
            NOT_FOUND
        };
    }
    let set = |p: &u32| mask >> p & 1 != 0;
    let nth = offset.unsigned_abs() as usize - 1;
    let found = if offset > 0 {
        (base..32).filter(set).nth(nth)
    } else {
        (0..=base).rev().filter(set).nth(nth)
    };
    found.map_or(NOT_FOUND, u64::from)
}

/// `bmsk.mode.b32 d, a, b`: a mask of `b` ones starting at bit `a`, following the manual's
/// pseudo-code: the mask is 0 when `b` (wrapped, for `.wrap`) is 0 or when `.clamp` and
/// `a >= 32`; it is cut at bit 31 when `a + b` reaches 32, and with `.clamp` a width `b >= 32`
/// extends it to bit 31.
pub fn bmsk(mode: ShiftMode, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let (a1, b1) = (a & 0x1f, b & 0x1f);
    let mut mask0 = u32::MAX << a1;
    let sum = a1 + b1;
    let mut overflow = sum >= 32;
    if mode == ShiftMode::Clamp {
        if a >= 32 {
            overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        u32::MAX
    } else {
        u32::MAX << sum
    };
    u64::from(mask0 & !mask1)
}

/// `szext.mode.{u32,s32}`: the PTX manual's semantics. `b1 = b & 31`; with `.clamp` and
/// `b >= 32` the value is `a` unchanged; otherwise the bits of `a` from `b1` up are cleared,
/// or (`.s32`) set to bit `b1 - 1` of `a`; `b1 = 0` gives 0.
pub fn szext(mode: ShiftMode, signed: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 0x1f;
    let too_large = b >= 32 && mode == ShiftMode::Clamp;
    let mask = if too_large { 0 } else { u32::MAX << b1 };
    let sign = signed && b1 != 0 && !too_large && (a >> (b1 - 1)) & 1 != 0;
    u64::from((a & !mask) | if sign { mask } else { 0 })
}

/// `shl.type`: shift amounts at or past the width give 0.
pub fn shl(ty: Type, a: u64, b: u64) -> u64 {
    let (n, b) = (ty.bits(), b as u32);
    if b >= n { 0 } else { trunc(a << b, ty) }
}

/// `shr.type`: signed types shift arithmetically (amounts at or past the width fill with the
/// sign), unsigned and bit types logically (giving 0 past the width).
pub fn shr(ty: Type, a: u64, b: u64) -> u64 {
    let (n, b) = (ty.bits(), b as u32);
    if ty.is_signed() {
        // Shifting an i128 by 63 already gives pure sign for every width up to 64.
        trunc((ext(a, ty) >> b.min(63)) as u64, ty)
    } else if b >= n {
        0
    } else {
        trunc(a, ty) >> b
    }
}
