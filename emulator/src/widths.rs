//! Width classes of register values: how many bytes each 32-bit register needs, over a
//! warp's lanes, and the shadow register file that remembers them per physical register.
//! The rules are in the [`crate::stepper`] module docs.

use crate::warp::WARP_SIZE;

/// Width class of a 32-bit value: the fewest bytes n ∈ {1, 2, 3, 4} such that the value is the
/// sign extension of its low 8·n bits.
pub fn width_class(v: u32) -> u8 {
    class_of_magnitude(magnitude(v))
}

/// The value with its sign folded away: a value is the sign extension of its low k bits
/// exactly when this is below 2^(k-1). Magnitudes of several values can be OR-ed: the class of
/// the OR is the largest class among them.
fn magnitude(v: u32) -> u32 {
    v ^ ((v as i32 >> 31) as u32)
}

fn class_of_magnitude(m: u32) -> u8 {
    match m {
        0..0x80 => 1,
        0x80..0x8000 => 2,
        0x8000..0x80_0000 => 3,
        _ => 4,
    }
}

/// What the width rules need of a physical register's 32 lanes: for each class boundary, the
/// lanes whose value needs more bytes (bit `l` of `wider[k]`: lane `l` needs more than
/// `k + 1` bytes). The class of a set of lanes is the largest class among them (the class of
/// their OR-ed magnitudes), so these 12 bytes stand for the register's 128: the shadow register
/// file stays small enough to stay in cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneWidths {
    wider: [u32; 3],
}

impl LaneWidths {
    /// The lanes' widths of the 32-bit values `words`.
    #[inline]
    fn of(words: &[u32; WARP_SIZE]) -> LaneWidths {
        #[cfg(target_arch = "x86_64")]
        return LaneWidths::of_sse2(words);
        #[cfg(not(target_arch = "x86_64"))]
        return LaneWidths::of_portable(words);
    }

    /// [`LaneWidths::of`], one lane at a time.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn of_portable(words: &[u32; WARP_SIZE]) -> LaneWidths {
        let mut wider = [0u32; 3];
        for (l, &w) in words.iter().enumerate() {
            let m = magnitude(w);
            wider[0] |= u32::from(m >= 0x80) << l;
            wider[1] |= u32::from(m >= 0x8000) << l;
            wider[2] |= u32::from(m >= 0x80_0000) << l;
        }
        LaneWidths { wider }
    }

    /// [`LaneWidths::of`], four lanes at a time: a magnitude is below 2^31, so adding
    /// 2^31 − t sets its sign bit exactly when it is at least t, and `movmskps` gathers
    /// four sign bits. (The timing model classifies every register each warp instruction
    /// writes; in isolation this is a quarter faster than the lane loop.)
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn of_sse2(words: &[u32; WARP_SIZE]) -> LaneWidths {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi32, _mm_castsi128_ps, _mm_loadu_si128, _mm_movemask_ps,
            _mm_set1_epi32, _mm_srai_epi32, _mm_xor_si128,
        };
        let mut wider = [0u32; 3];
        for (g, four) in words.chunks_exact(4).enumerate() {
            // SAFETY: SSE2 is part of every x86_64 target; the load reads the 16 bytes of
            // `four` (unaligned).
            unsafe {
                let v = _mm_loadu_si128(four.as_ptr().cast::<__m128i>());
                let m = _mm_xor_si128(v, _mm_srai_epi32(v, 31));
                for (k, w) in wider.iter_mut().enumerate() {
                    let bias = _mm_set1_epi32((0x8000_0000u32 - (0x80u32 << (8 * k))) as i32);
                    let signs = _mm_movemask_ps(_mm_castsi128_ps(_mm_add_epi32(m, bias)));
                    *w |= (signs as u32) << (4 * g);
                }
            }
        }
        LaneWidths { wider }
    }

    /// The width class over the lanes in `lanes`.
    #[inline]
    fn class(self, lanes: u32) -> u8 {
        1 + self
            .wider
            .iter()
            .map(|w| u8::from(w & lanes != 0))
            .sum::<u8>()
    }

    /// `self` with the lanes in `exec` replaced by those of `new`.
    #[inline]
    fn merge(self, new: LaneWidths, exec: u32) -> LaneWidths {
        LaneWidths {
            wider: std::array::from_fn(|k| (self.wider[k] & !exec) | (new.wider[k] & exec)),
        }
    }
}

/// The lanes' widths of word `word` of a virtual register declared `bits` wide whose lanes
/// hold `lanes`.
pub(crate) fn lane_widths(lanes: &[u64], word: u32, bits: u32) -> LaneWidths {
    let mut words = [0u32; WARP_SIZE];
    words_of(lanes, word, bits, &mut words);
    LaneWidths::of(&words)
}

/// Each lane's 32-bit word `word` (0: low, 1: high) of a register declared `bits` wide holding
/// `value` (zero-extended to 64 bits, as frames hold it), as its width is judged: 8- and
/// 16-bit registers sign-extended from their declared width. Registers hold 64 bits in the
/// emulator (the frontend refuses `.b128` registers), so words 2 and 3 of a quad are zero.
/// Each case has constant shifts, so each loop vectorizes.
#[inline]
fn words_of(lanes: &[u64], word: u32, bits: u32, out: &mut [u32; WARP_SIZE]) {
    let lanes = lanes.iter();
    match (bits, word) {
        (..=8, _) => out
            .iter_mut()
            .zip(lanes)
            .for_each(|(o, &v)| *o = v as i8 as u32),
        (..=16, _) => out
            .iter_mut()
            .zip(lanes)
            .for_each(|(o, &v)| *o = v as i16 as u32),
        (_, 0) => out.iter_mut().zip(lanes).for_each(|(o, &v)| *o = v as u32),
        (_, 1) => out
            .iter_mut()
            .zip(lanes)
            .for_each(|(o, &v)| *o = (v >> 32) as u32),
        _ => *out = [0; WARP_SIZE],
    }
}

/// Width classes of a physical register, `held`, over all lanes and over `exec`.
pub(crate) fn held_classes(exec: u32, held: LaneWidths) -> (u8, u8) {
    (held.class(u32::MAX), held.class(exec))
}

/// Stores the lanes in `exec` of a value with widths `new` into its physical register `held`.
pub(crate) fn store(new: LaneWidths, exec: u32, held: &mut LaneWidths) {
    *held = held.merge(new, exec);
}

/// Register `reg` in the shadow register file `phys` (grown to hold it: a callee's window is
/// allocated when first written).
pub(crate) fn phys_lanes(phys: &mut Vec<LaneWidths>, reg: u32) -> &mut LaneWidths {
    let at = reg as usize;
    if phys.len() <= at {
        phys.resize(at + 1, LaneWidths::default());
    }
    &mut phys[at]
}

/// Register `reg` in `phys` (a register never written holds zero).
pub(crate) fn phys_lanes_ro(phys: &[LaneWidths], reg: u32) -> LaneWidths {
    phys.get(reg as usize).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{LaneWidths, WARP_SIZE, held_classes, lane_widths, store, width_class, words_of};

    /// One lane's word as `words_of` judges it.
    fn word_of(value: u64, word: u32, bits: u32) -> u32 {
        let mut out = [0; WARP_SIZE];
        words_of(&[value; WARP_SIZE], word, bits, &mut out);
        out[0]
    }

    #[test]
    fn the_class_of_or_ed_magnitudes_is_the_largest_class() {
        let values = [
            0u32,
            5,
            0xffff_ff80,
            0x1234,
            0xfff0_0000,
            0x7f_ffff,
            0x80_0000,
            1 << 31,
        ];
        for &a in &values {
            for &b in &values {
                let joint = super::class_of_magnitude(super::magnitude(a) | super::magnitude(b));
                assert_eq!(joint, width_class(a).max(width_class(b)), "{a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn width_classes_follow_sign_extension() {
        assert_eq!(width_class(0), 1);
        assert_eq!(width_class(127), 1);
        assert_eq!(width_class(128), 2);
        assert_eq!(width_class(-128i32 as u32), 1);
        assert_eq!(width_class(-129i32 as u32), 2);
        assert_eq!(width_class(0xffff_ffff), 1);
        assert_eq!(width_class(0x7fff), 2);
        assert_eq!(width_class(0x8000), 3);
        assert_eq!(width_class(0x7f_ffff), 3);
        assert_eq!(width_class(0x80_0000), 4);
        assert_eq!(width_class(0x3f80_0000), 4); // 1.0f32
    }

    #[test]
    fn narrow_registers_are_judged_within_their_declared_width() {
        // A 16-bit register holds its value zero-extended; its class is that of the value
        // sign-extended from 16 bits.
        assert_eq!(width_class(word_of(0xffff, 0, 16)), 1); // .s16 -1
        assert_eq!(width_class(word_of(0xff80, 0, 16)), 1); // -128
        assert_eq!(width_class(word_of(0xff7f, 0, 16)), 2); // -129
        assert_eq!(width_class(word_of(0x8000, 0, 16)), 2);
        assert_eq!(width_class(word_of(0x7fff, 0, 16)), 2);
        assert_eq!(width_class(word_of(0x007f, 0, 16)), 1);
        assert_eq!(width_class(word_of(0x0080, 0, 16)), 2); // 128 needs its second byte
        // Only the declared bits count: a wider frame value cannot widen the class.
        assert_eq!(width_class(word_of(0x1234_ffff, 0, 16)), 1);
        assert_eq!(width_class(word_of(0x80, 0, 8)), 1); // an 8-bit register: 1 byte
        // 32-bit registers as they are; 64-bit ones as two 32-bit halves.
        assert_eq!(word_of(0xffff, 0, 32), 0xffff);
        assert_eq!(word_of(0x1_0000_0080, 0, 64), 0x80);
        assert_eq!(word_of(0x1_0000_0080, 1, 64), 1);
        // Words beyond the 64 bits a frame holds read as zero.
        assert_eq!(word_of(u64::MAX, 2, 128), 0);
    }

    #[test]
    fn all_lanes_include_what_lanes_that_did_not_execute_still_hold() {
        let mut words = [0u32; 32];
        words[2] = 0x8000; // another value in lane 2's physical register: 3 bytes
        let mut held = LaneWidths::of(&words);
        // Read by lane 1: 1 byte there; all lanes: lane 2's 3 bytes.
        assert_eq!(held_classes(0b10, held), (3, 1));
        // No lane executes: all lanes are what the register holds; the executing ones, none.
        assert_eq!(held_classes(0, held), (3, 1));
        // A write by lanes 0 and 1 stores their values; lane 2 keeps what it held.
        let mut lanes = [0u64; 32];
        lanes[0] = 0x1234_5678; // 4 bytes in lane 0
        lanes[1] = 5;
        lanes[2] = 7; // not written: lane 2 did not execute
        store(lane_widths(&lanes, 0, 32), 0b11, &mut held);
        let mut expected = [0u32; 32];
        expected[0] = 0x1234_5678;
        expected[1] = 5;
        expected[2] = 0x8000;
        assert_eq!(held, LaneWidths::of(&expected));
        assert_eq!(held_classes(0b10, held), (4, 1));
        assert_eq!(held_classes(0b100, held), (4, 3));
    }

    #[test]
    fn the_four_lane_pass_agrees_with_the_lane_loop() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let words: [u32; WARP_SIZE] = std::array::from_fn(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                // Values of every width and sign, and the class boundaries' neighbours.
                let v = ((x >> 32) as u32) >> ((x >> 27) & 31);
                if x & 1 == 0 { v } else { v.wrapping_neg() }
            });
            assert_eq!(LaneWidths::of(&words), LaneWidths::of_portable(&words));
        }
        for edge in [
            0x7fu32,
            0x80,
            0x7fff,
            0x8000,
            0x7f_ffff,
            0x80_0000,
            0x7fff_ffff,
        ] {
            for v in [edge, edge.wrapping_neg(), !edge] {
                let words = [v; WARP_SIZE];
                assert_eq!(
                    LaneWidths::of(&words),
                    LaneWidths::of_portable(&words),
                    "{v:#x}"
                );
            }
        }
    }
}
