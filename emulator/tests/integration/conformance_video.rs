//! Conformance of the scalar video instructions with the PTX manual's pseudo-code
//! (`partSelectSignExtend`, the primary operation, `optSaturate`, `optSecOp`, `optMerge`);
//! every expected value worked by hand from it.

use crate::eval_cases::check;
use Type::{S32, U32};
use isa::{CmpOp, Op, Part, Type, Video, VideoOp, VideoThen};

/// A video operation with its types; selectors, saturation and `then` as given.
#[allow(clippy::too_many_arguments)]
fn v(
    op: VideoOp,
    (dty, aty, bty): (Type, Type, Type),
    sat: bool,
    asel: Option<Part>,
    bsel: Option<Part>,
    then: VideoThen,
) -> Op {
    Op::Video(Video {
        op,
        dty,
        aty,
        bty,
        sat,
        asel,
        bsel,
        then,
    })
}

const NOTHING: VideoThen = VideoThen::Nothing;

#[test]
fn parts_extend_by_their_type_and_results_saturate() {
    let u = (U32, U32, U32);
    let s = (S32, S32, S32);
    check(&[
        // u8 255 + s16 -32768 = -32513, in range of s32.
        (
            v(
                VideoOp::Add,
                (S32, U32, S32),
                true,
                Some(Part::B0),
                Some(Part::H0),
                NOTHING,
            ),
            &[0xff, 0x8000],
            0xffff_80ff,
        ),
        // 5 - 7 clamps to 0 unsigned, wraps without .sat.
        (v(VideoOp::Sub, u, true, None, None, NOTHING), &[5, 7], 0),
        (
            v(VideoOp::Sub, u, false, None, None, NOTHING),
            &[5, 7],
            0xffff_fffe,
        ),
        // The 33-bit sum clamps to U32_MAX, or keeps its low 32 bits.
        (
            v(VideoOp::Add, u, true, None, None, NOTHING),
            &[0xffff_ffff, 1],
            0xffff_ffff,
        ),
        (
            v(VideoOp::Add, u, false, None, None, NOTHING),
            &[0xffff_ffff, 1],
            0,
        ),
        // s32 range: -2^31 - 1 clamps to S32_MIN.
        (
            v(VideoOp::Sub, s, true, None, None, NOTHING),
            &[0x8000_0000, 1],
            0x8000_0000,
        ),
        (
            v(VideoOp::Min, s, false, None, None, NOTHING),
            &[0xffff_fffb, 3],
            0xffff_fffb,
        ),
        (
            v(VideoOp::Max, u, false, None, None, NOTHING),
            &[0xffff_fffb, 3],
            0xffff_fffb,
        ),
        // The high half, signed: 0x8001 is -32767; |(-32767) - 1| = 32768.
        (
            v(VideoOp::Absdiff, s, false, Some(Part::H1), None, NOTHING),
            &[0x8001_0000, 1],
            32768,
        ),
    ]);
}

#[test]
fn secondary_operations_and_merges_use_c() {
    let s = (S32, S32, S32);
    let u = (U32, U32, U32);
    check(&[
        // min(-5, 3) + 10.
        (
            v(VideoOp::Min, s, true, None, None, VideoThen::Add),
            &[0xffff_fffb, 3, 10],
            5,
        ),
        // max(2, c) with c unsigned (4294967295).
        (
            v(VideoOp::Max, u, false, None, None, VideoThen::Max),
            &[1, 2, 0xffff_ffff],
            0xffff_ffff,
        ),
        // ... and with c signed (-1): max(2, -1) = 2.
        (
            v(VideoOp::Max, s, false, None, None, VideoThen::Max),
            &[1, 2, 0xffff_ffff],
            2,
        ),
        (
            v(VideoOp::Add, s, false, None, None, VideoThen::Min),
            &[1, 2, 0xffff_ffff],
            0xffff_ffff,
        ),
        // |(-128) - 127| = 255, saturated to s16 (fits), merged into h0 of c.
        (
            v(
                VideoOp::Absdiff,
                s,
                true,
                Some(Part::B0),
                Some(Part::B2),
                VideoThen::Merge(Part::H0),
            ),
            &[0x80, 0x007f_0000, 0xaaaa_aaaa],
            0xaaaa_00ff,
        ),
        // 100 + 100 = 200, saturated to s8 (127) for a byte merge into b1.
        (
            v(
                VideoOp::Add,
                s,
                true,
                None,
                None,
                VideoThen::Merge(Part::B1),
            ),
            &[100, 100, 0xffff_ffff],
            0xffff_7fff,
        ),
        // Without .sat the merge keeps the low byte: 200 = 0xc8.
        (
            v(
                VideoOp::Add,
                s,
                false,
                None,
                None,
                VideoThen::Merge(Part::B3),
            ),
            &[100, 100, 0],
            0xc800_0000,
        ),
    ]);
}

#[test]
fn shifts_clamp_or_wrap_their_amount() {
    let u = (U32, U32, U32);
    let shl = |clamp| VideoOp::Shl { clamp };
    let shr = |clamp| VideoOp::Shr { clamp };
    check(&[
        // 40 clamps to 32: 1 << 32 keeps no low bits, or saturates.
        (v(shl(true), u, false, None, None, NOTHING), &[1, 40], 0),
        (
            v(shl(true), u, true, None, None, NOTHING),
            &[1, 40],
            0xffff_ffff,
        ),
        // 33 wraps to 1.
        (v(shl(false), u, false, None, None, NOTHING), &[1, 33], 2),
        // Signed right shifts fill with the sign.
        (
            v(shr(false), (S32, S32, U32), false, None, None, NOTHING),
            &[0xffff_fff0, 2],
            0xffff_fffc,
        ),
        (
            v(shr(false), u, false, None, None, NOTHING),
            &[0xffff_fff0, 2],
            0x3fff_fffc,
        ),
        // The amount is b's byte b1 (8).
        (
            v(shl(false), u, false, None, Some(Part::B1), NOTHING),
            &[3, 0x0800],
            0x300,
        ),
    ]);
}

#[test]
fn vset_compares_the_extended_parts() {
    let set = |cmp| VideoOp::Set(cmp);
    check(&[
        // -1 (s32) < 0 (u32); 4294967295 (u32) is not.
        (
            v(set(CmpOp::Lt), (U32, S32, U32), false, None, None, NOTHING),
            &[0xffff_ffff, 0],
            1,
        ),
        (
            v(set(CmpOp::Lt), (U32, U32, U32), false, None, None, NOTHING),
            &[0xffff_ffff, 0],
            0,
        ),
        (
            v(
                set(CmpOp::Ne),
                (U32, U32, U32),
                false,
                None,
                None,
                VideoThen::Add,
            ),
            &[1, 2, 10],
            11,
        ),
        (
            v(
                set(CmpOp::Eq),
                (U32, U32, U32),
                false,
                Some(Part::B0),
                Some(Part::B1),
                VideoThen::Merge(Part::B3),
            ),
            &[0x7, 0x700, 0],
            0x0100_0000,
        ),
        (
            v(
                set(CmpOp::Ge),
                (U32, S32, S32),
                false,
                Some(Part::H1),
                None,
                NOTHING,
            ),
            &[0xffff_0000, 0],
            0,
        ),
    ]);
}

fn mad(po: bool, shift: u8, negate: [bool; 3]) -> VideoOp {
    VideoOp::Mad { po, shift, negate }
}

/// `vmad`, every case worked from the manual's pseudo-code: the product complemented and
/// incremented when negated (one of `a`, `b`), likewise `c`; plus one with `.po`; the shift;
/// the 32-bit clamp of the final signedness.
#[test]
fn vmad_follows_the_pseudo_code() {
    let u = (U32, U32, U32);
    let s = (S32, S32, S32);
    let plain = mad(false, 0, [false; 3]);
    check(&[
        (v(plain, u, false, None, None, NOTHING), &[3, 5, 7], 22),
        // 0xffffffff · 2 = 0x1_ffff_fffe: its low bits, or the unsigned maximum with .sat.
        (
            v(plain, u, false, None, None, NOTHING),
            &[0xffff_ffff, 2, 0],
            0xffff_fffe,
        ),
        (
            v(plain, u, true, None, None, NOTHING),
            &[0xffff_ffff, 2, 0],
            0xffff_ffff,
        ),
        // .po: 3 · 4 + 5 + 1.
        (
            v(mad(true, 0, [false; 3]), u, false, None, None, NOTHING),
            &[3, 4, 5],
            18,
        ),
        // 256 · 256 = 65536; >> 7 = 512, >> 15 = 2.
        (
            v(mad(false, 7, [false; 3]), u, false, None, None, NOTHING),
            &[256, 256, 0],
            512,
        ),
        (
            v(mad(false, 15, [false; 3]), u, false, None, None, NOTHING),
            &[256, 256, 0],
            2,
        ),
        // -(3 · 4) + 20: ~12 + 1 + 20 = 8 (signed, from the negation).
        (
            v(
                mad(false, 0, [true, false, false]),
                (S32, U32, U32),
                false,
                None,
                None,
                NOTHING,
            ),
            &[3, 4, 20],
            8,
        ),
        // 3 · 4 - 20: 12 + ~20 + 1 = -8.
        (
            v(
                mad(false, 0, [false, false, true]),
                (S32, U32, U32),
                false,
                None,
                None,
                NOTHING,
            ),
            &[3, 4, 20],
            0xffff_fff8,
        ),
        // -a · -b: the product is not negated, and stays unsigned.
        (
            v(
                mad(false, 0, [true, true, false]),
                u,
                false,
                None,
                None,
                NOTHING,
            ),
            &[3, 4, 5],
            17,
        ),
        // Signed saturation: 0x7fffffff · 2 and -2^31 · 2.
        (
            v(plain, s, true, None, None, NOTHING),
            &[0x7fff_ffff, 2, 0],
            0x7fff_ffff,
        ),
        (
            v(plain, s, true, None, None, NOTHING),
            &[0x8000_0000, 2, 0],
            0x8000_0000,
        ),
        // a.b1 (u8 255) · b.h1 (s16 -1) = -255, signed by b's type.
        (
            v(
                plain,
                (U32, U32, S32),
                false,
                Some(Part::B1),
                Some(Part::H1),
                NOTHING,
            ),
            &[0x0000_ff00, 0xffff_0000, 0],
            0xffff_ff01,
        ),
        // -256 >> 7 sign-extends: -2.
        (
            v(mad(false, 7, [false; 3]), s, false, None, None, NOTHING),
            &[0xffff_ff00, 1, 0],
            0xffff_fffe,
        ),
    ]);
}

/// A SIMD video operation with the default selectors and a full mask.
fn simd(
    op: isa::SimdVideoOp,
    lanes: u8,
    (dty, aty, bty): (Type, Type, Type),
    sat: bool,
) -> isa::SimdVideo {
    let (asel, bsel) = isa::SimdVideo::default_selectors(lanes);
    isa::SimdVideo {
        op,
        lanes,
        dty,
        aty,
        bty,
        sat,
        add: false,
        asel,
        bsel,
        mask: (1 << lanes) - 1,
    }
}

/// The SIMD video instructions, every case worked from the manual's pseudo-code.
#[test]
fn simd_video_follows_the_pseudo_code() {
    use isa::SimdVideoOp as S;
    let u = (U32, U32, U32);
    let s = (S32, S32, S32);
    let op = Op::VideoSimd;
    let with = |mut v: isa::SimdVideo, f: &dyn Fn(&mut isa::SimdVideo)| {
        f(&mut v);
        Op::VideoSimd(v)
    };
    check(&[
        // a's halves (1, 3) plus b's (2, 5): b is selected as `.h32` by default.
        (
            op(simd(S::Add, 2, u, false)),
            &[0x0003_0001, 0x0005_0002, 0],
            0x0008_0003,
        ),
        // 0xffff + 1 saturates to 0xffff, or wraps to 0 in its 16 bits.
        (
            op(simd(S::Add, 2, u, true)),
            &[0xffff_0001, 0x0001_0001, 0],
            0xffff_0002,
        ),
        (
            op(simd(S::Add, 2, u, false)),
            &[0xffff_0001, 0x0001_0001, 0],
            0x0000_0002,
        ),
        // -32768 - 1 saturates to -32768.
        (
            op(simd(S::Sub, 2, s, true)),
            &[0x8000_0000, 0x0001_0000, 0],
            0x8000_0000,
        ),
        // The mean rounds a non-negative sum up: (4 + 5 + 1) / 2, (3 + 4 + 1) / 2...
        (
            op(simd(S::Avrg, 2, u, false)),
            &[0x0003_0004, 0x0004_0005, 0],
            0x0004_0005,
        ),
        // ... and a negative one down: (-3 - 4) >> 1 = -4.
        (
            op(simd(S::Avrg, 2, s, false)),
            &[0x0000_fffd, 0x0000_fffc, 0],
            0x0000_fffc,
        ),
        // .add: c plus each element's sum, 100 + 4 + 6; with the mask .h1, 100 + 6.
        (
            with(simd(S::Add, 2, s, false), &|v| v.add = true),
            &[0x0002_0001, 0x0004_0003, 100],
            110,
        ),
        (
            with(simd(S::Add, 2, s, false), &|v| {
                v.add = true;
                v.mask = 0b10;
            }),
            &[0x0002_0001, 0x0004_0003, 100],
            106,
        ),
        // The merge .h0: element 0 from min(2, 7), element 1 from c.
        (
            with(simd(S::Min, 2, u, false), &|v| v.mask = 0b01),
            &[0x0009_0002, 0x0001_0007, 0xabcd_ef01],
            0xabcd_0002,
        ),
        // a.h01 swaps a's halves (3, 8); b.h22 takes b's low half twice (5, 5).
        (
            with(simd(S::Max, 2, u, false), &|v| {
                v.asel = [1, 0, 0, 0];
                v.bsel = [2, 2, 0, 0];
            }),
            &[0x0003_0008, 0x0000_0005, 0],
            0x0008_0005,
        ),
        // vset4.lt of bytes (4, 3, 2, 1) and (1, 2, 3, 4): 0, 0, 1, 1.
        (
            op(simd(S::Set(CmpOp::Lt), 4, u, false)),
            &[0x0102_0304, 0x0403_0201, 0],
            0x0101_0000,
        ),
        // |-128 - 127| and |127 + 128| saturate to 127 as s8.
        (
            op(simd(S::Absdiff, 4, s, true)),
            &[0x0500_7f80, 0x0500_807f, 0],
            0x0000_7f7f,
        ),
        // .add with the mask .b31: 1000 + 5 + 3.
        (
            with(simd(S::Add, 4, u, false), &|v| {
                v.add = true;
                v.mask = 0b1010;
            }),
            &[0x0403_0201, 0x0101_0101, 1000],
            1008,
        ),
    ]);
}
