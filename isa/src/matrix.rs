//! Warp-level matrix (tensor-core) operations: the shapes, element types and fragments of
//! `wmma`.
//!
//! A fragment is the part of a matrix one thread holds in registers. The manual leaves the
//! mapping of fragment elements to matrix elements unspecified for `wmma` (a program may only
//! load, store and multiply fragments, and apply the same operation to every element), so
//! warpsim chooses the simplest one: slot `s` of thread `t` holds element `(t × S + s) mod N`
//! of the matrix in row-major order, `S` being the slots per thread and `N` the matrix's
//! elements. Where the manual's fragments hold more slots than the matrix has elements per
//! thread (`.f16` A and B: eight registers on every shape, after Volta's layout), the
//! matrix repeats across the warp.
//!
//! `mma.sync` fragments follow the manual's layouts instead ([`Fragment::mma_element`]). Volta's
//! m8n8k4 with `.f16` multiplicands is four independent products, one per *quad pair* (lanes
//! `4q..4q+3` with `16+4q..16+4q+3`), each with matrices of its own; its fragments' elements
//! index the four matrices one after the other.

use crate::Type;
use std::fmt;

/// `.mMnNkK`: `D (M×N) = A (M×K) · B (K×N) + C (M×N)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixShape {
    pub m: u8,
    pub n: u8,
    pub k: u8,
}

impl MatrixShape {
    /// Parses `m16n16k16`.
    pub fn from_name(name: &str) -> Option<MatrixShape> {
        let rest = name.strip_prefix('m')?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        Some(MatrixShape {
            m: m.parse().ok()?,
            n: n.parse().ok()?,
            k: k.parse().ok()?,
        })
    }

    /// Multiply-adds of one product (`M × N × K`).
    pub fn macs(self) -> u32 {
        u32::from(self.m) * u32::from(self.n) * u32::from(self.k)
    }

    /// Whether an `mma.sync` of this shape whose fragments include one of type `ty` is Volta's
    /// m8n8k4 `.f16` form: four products, one per quad pair. m8n8k4's only other `mma.sync` is
    /// `.f64` throughout, so any of the fragments' types tells the two apart (`.f16`
    /// multiplicands, `.f16` or `.f32` accumulators).
    pub fn is_quad_pair(self, ty: Type) -> bool {
        (self.m, self.n, self.k) == (8, 8, 4) && ty != Type::F64
    }

    /// Independent products one warp's `mma.sync` of this shape computes, `ty` being the type of
    /// one of its fragments: four for the quad-pair form, else one.
    pub fn mma_computations(self, ty: Type) -> u32 {
        if self.is_quad_pair(ty) { 4 } else { 1 }
    }

    /// Multiply-adds of one warp's `mma.sync` of this shape with `.atype` `a`: every
    /// product's.
    pub fn mma_macs(self, a: Type) -> u32 {
        self.macs() * self.mma_computations(a)
    }
}

impl fmt::Display for MatrixShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m{}n{}k{}", self.m, self.n, self.k)
    }
}

/// Which matrix of `D = A · B + C` a fragment holds (`C` also for `D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixUse {
    A,
    B,
    C,
}

/// How a matrix lies in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    Row,
    Col,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Row => "row",
            Layout::Col => "col",
        }
    }
}

/// A fragment: its matrix, the instruction's shape and the element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub matrix: MatrixUse,
    pub shape: MatrixShape,
    pub ty: Type,
}

/// The `wmma` shapes of `.f16`, `.bf16`, `.s8` and `.u8`.
const HALF_SHAPES: [(u8, u8, u8); 3] = [(16, 16, 16), (32, 8, 16), (8, 32, 16)];

impl Fragment {
    /// Rows and columns of the matrix.
    pub fn dims(self) -> (u32, u32) {
        let MatrixShape { m, n, k } = self.shape;
        let (r, c) = match self.matrix {
            MatrixUse::A => (m, k),
            MatrixUse::B => (k, n),
            MatrixUse::C => (m, n),
        };
        (u32::from(r), u32::from(c))
    }

    /// Elements of the matrix.
    pub fn elements(self) -> u32 {
        let (r, c) = self.dims();
        r * c
    }

    /// Bytes of one element in memory (tf32 is stored as f32).
    pub fn element_bytes(self) -> u32 {
        match self.ty {
            Type::TF32 => 4,
            ty => ty.bits() / 8,
        }
    }

    /// Elements packed in one register of the fragment.
    pub fn per_register(self) -> u32 {
        match self.ty {
            Type::F16 | Type::BF16 => 2,
            Type::S8 | Type::U8 => 4,
            _ => 1,
        }
    }

    /// The registers of this fragment in `wmma` (the manual's "Matrix Fragments for WMMA"),
    /// or `None` when `wmma` has no such fragment.
    pub fn wmma_registers(self) -> Option<u32> {
        let MatrixShape { m, n, k } = self.shape;
        let half_shape = HALF_SHAPES.contains(&(m, n, k));
        let elements_per_thread = self.elements() / 32;
        let regs = match (self.ty, self.matrix) {
            // Volta's layout: eight registers whatever the shape (the matrix repeats).
            (Type::F16, MatrixUse::A | MatrixUse::B) if half_shape => 8,
            (Type::F16, MatrixUse::C) if half_shape => 4,
            (Type::BF16 | Type::S8 | Type::U8, MatrixUse::A | MatrixUse::B) if half_shape => {
                elements_per_thread / self.per_register()
            }
            (Type::F32, MatrixUse::C) if half_shape || (m, n, k) == (16, 16, 8) => 8,
            (Type::S32, MatrixUse::C) if half_shape => 8,
            (Type::TF32, MatrixUse::A | MatrixUse::B) if (m, n, k) == (16, 16, 8) => 4,
            (Type::F64, _) if (m, n, k) == (8, 8, 4) => elements_per_thread,
            _ => return None,
        };
        Some(regs)
    }

    /// The registers of this fragment in `mma.sync` (the m16n8kK and m8n8kK shapes), or `None`
    /// when it has no such fragment. The elements of the warp's products are spread over the
    /// warp without repetition.
    pub fn mma_registers(self) -> Option<u32> {
        let MatrixShape { m, n, k } = self.shape;
        let shape_ok = matches!((m, n, k), (16, 8, 4 | 8 | 16 | 32) | (8, 8, 4 | 16));
        let per_thread = self.elements() * self.mma_computations() / 32;
        (shape_ok && per_thread.is_multiple_of(self.per_register()))
            .then(|| per_thread / self.per_register())
            .filter(|&r| r > 0)
    }

    /// Independent products of the `mma.sync` this fragment takes part in (four for the
    /// quad-pair form, [`MatrixShape::is_quad_pair`]), each with a matrix of its own.
    pub fn mma_computations(self) -> u32 {
        self.shape.mma_computations(self.ty)
    }

    /// The matrix element held in slot `slot` of thread `lane` in an `mma.sync` fragment, as
    /// the manual lays them out: the row-major index into the fragment's matrices, one after
    /// the other (`computation × elements + row × columns + column`). `layout` is the
    /// fragment's `.row`/`.col`, which only the quad-pair form's A and B depend on.
    ///
    /// For the m16n8kK and m8n8kK shapes, with `g = lane / 4` and `t = lane % 4`: A's
    /// registers take rows `g` and `g + 8` in turn, each a run of elements from column
    /// `t × e` (e elements a register), the next registers 4e columns further; B's registers
    /// hold a run down column `g` from row `t × e`; and C's elements go in pairs along rows
    /// `g` (then `g + 8`) from column `2t`. For the quad-pair form see
    /// [`Fragment::quad_pair_element`].
    pub fn mma_element(self, layout: Layout, lane: u32, slot: u32) -> u32 {
        let (rows, cols) = self.dims();
        if self.shape.is_quad_pair(self.ty) {
            let (q, row, col) = self.quad_pair_element(layout, lane, slot);
            return q * rows * cols + row * cols + col;
        }
        let (g, t) = (lane / 4, lane % 4);
        let per = self.per_register();
        let (r, e) = (slot / per, slot % per);
        let (row, col) = match self.matrix {
            MatrixUse::A => {
                let blocks = rows / 8;
                (g + 8 * (r % blocks), t * per + (r / blocks) * 4 * per + e)
            }
            MatrixUse::B => (t * per + r * 4 * per + e, g),
            MatrixUse::C => (g + 8 * (slot / 2), 2 * t + slot % 2),
        };
        row * cols + col
    }

    /// The computation, row and column of slot `slot` (element `i` of the manual's formulas)
    /// of thread `lane` in a fragment of Volta's m8n8k4 `.f16` `mma.sync`. Quad pair
    /// `q = (lane / 4) % 4` computes product `q`; with `l = lane % 4` and `h = 4` in the high
    /// group (`lane >= 16`, rows 4–7 of A and C, columns 4–7 of B), else 0:
    ///
    /// - A `.row`: row `l + h`, column `i`; A `.col`: row `i + h`, column `l`.
    /// - B `.row`: row `l`, column `i + h`; B `.col`: row `i`, column `l + h`.
    /// - C/D `.f16`: row `l + h`, column `i`.
    /// - C/D `.f32`: row `(lane & 1) + (i & 2) + h`, column `(i & 4) + (lane & 2) + (i & 1)`.
    pub fn quad_pair_element(self, layout: Layout, lane: u32, slot: u32) -> (u32, u32, u32) {
        let (q, l, i) = ((lane / 4) % 4, lane % 4, slot);
        let h = if lane >= 16 { 4 } else { 0 };
        let (row, col) = match (self.matrix, layout) {
            (MatrixUse::A, Layout::Row) => (l + h, i),
            (MatrixUse::A, Layout::Col) => (i + h, l),
            (MatrixUse::B, Layout::Row) => (l, i + h),
            (MatrixUse::B, Layout::Col) => (i, l + h),
            (MatrixUse::C, _) if self.ty == Type::F16 => (l + h, i),
            (MatrixUse::C, _) => ((lane & 1) + (i & 2) + h, (i & 4) + (lane & 2) + (i & 1)),
        };
        (q, row, col)
    }

    /// Slots per thread: registers × elements per register.
    pub fn slots(self, registers: u32) -> u32 {
        registers * self.per_register()
    }

    /// The matrix element (row-major index) held in slot `slot` of thread `lane`, in a
    /// fragment of `slots` slots per thread (module doc).
    pub fn element_of(self, lane: u32, slot: u32, slots: u32) -> u32 {
        (lane * slots + slot) % self.elements()
    }

    /// The default `stride` of `wmma.load`/`wmma.store`: the length of a row (row-major) or
    /// of a column (column-major).
    pub fn default_stride(self, layout: Layout) -> u32 {
        let (r, c) = self.dims();
        match layout {
            Layout::Row => c,
            Layout::Col => r,
        }
    }

    /// The memory a warp's `wmma.load`/`wmma.store` of this fragment touches, as the timing
    /// model sees it: each lane one segment of up to 32 bytes of a row (row-major) or column
    /// (column-major), the segments covering the matrix once (lanes past the last segment
    /// repeat the first ones). Returns the segment's bytes and, for `lane`, its offset in
    /// elements from the matrix's start.
    pub fn lane_segment(self, layout: Layout, stride: u64, lane: u32) -> (u32, u64) {
        let (rows, cols) = self.dims();
        let (lines, line) = match layout {
            Layout::Row => (rows, cols),
            Layout::Col => (cols, rows),
        };
        let bytes = self.element_bytes();
        let seg = line.min((32 / bytes).max(1));
        let per_line = line / seg;
        let s = lane % (lines * per_line);
        let at = u64::from(s / per_line) * stride + u64::from(s % per_line * seg);
        (seg * bytes, at)
    }

    /// Offset in elements of matrix element (`row`, `col`) in memory, with `stride` elements
    /// between the starts of consecutive rows (row-major) or columns (column-major).
    pub fn offset(layout: Layout, stride: u64, row: u32, col: u32) -> u64 {
        match layout {
            Layout::Row => u64::from(row) * stride + u64::from(col),
            Layout::Col => u64::from(col) * stride + u64::from(row),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(matrix: MatrixUse, (m, n, k): (u8, u8, u8), ty: Type) -> Fragment {
        Fragment {
            matrix,
            shape: MatrixShape { m, n, k },
            ty,
        }
    }

    /// The manual's fragment table, and every fragment covering its matrix whole.
    #[test]
    fn wmma_fragments_follow_the_manual_and_cover_their_matrix() {
        use MatrixUse::{A, B, C};
        let cases = [
            (A, (16, 16, 16), Type::F16, 8),
            (B, (8, 32, 16), Type::F16, 8),
            (C, (32, 8, 16), Type::F16, 4),
            (C, (16, 16, 16), Type::F32, 8),
            (A, (16, 16, 16), Type::S8, 2),
            (A, (8, 32, 16), Type::U8, 1),
            (B, (8, 32, 16), Type::U8, 4),
            (A, (32, 8, 16), Type::S8, 4),
            (B, (32, 8, 16), Type::S8, 1),
            (C, (8, 32, 16), Type::S32, 8),
            (A, (16, 16, 16), Type::BF16, 4),
            (A, (8, 32, 16), Type::BF16, 2),
            (B, (8, 32, 16), Type::BF16, 8),
            (A, (16, 16, 8), Type::TF32, 4),
            (B, (16, 16, 8), Type::TF32, 4),
            (C, (16, 16, 8), Type::F32, 8),
            (A, (8, 8, 4), Type::F64, 1),
            (C, (8, 8, 4), Type::F64, 2),
        ];
        for (matrix, shape, ty, regs) in cases {
            let f = frag(matrix, shape, ty);
            assert_eq!(f.wmma_registers(), Some(regs), "{f:?}");
            let slots = f.slots(regs);
            let mut seen = vec![false; f.elements() as usize];
            for lane in 0..32 {
                for s in 0..slots {
                    seen[f.element_of(lane, s, slots) as usize] = true;
                }
            }
            assert!(seen.iter().all(|&s| s), "{f:?} covers its matrix");
            assert_eq!((32 * slots) % f.elements(), 0, "{f:?} repeats whole");
        }
        assert_eq!(frag(A, (16, 16, 8), Type::F16).wmma_registers(), None);
        assert_eq!(frag(C, (16, 16, 16), Type::F64).wmma_registers(), None);
    }

    /// The manual's m16n8k16 `.f16` layouts, element by element for a few lanes, and every
    /// `mma.sync` fragment covering its matrix exactly once.
    #[test]
    fn mma_fragments_follow_the_manual() {
        use MatrixUse::{A, B, C};
        let a = frag(A, (16, 8, 16), Type::F16);
        let b = frag(B, (16, 8, 16), Type::F16);
        let c = frag(C, (16, 8, 16), Type::F32);
        assert_eq!(
            (a.mma_registers(), b.mma_registers(), c.mma_registers()),
            (Some(4), Some(2), Some(4))
        );
        // Lane 6: groupID 1, threadID_in_group 2. A: a0..a7 at (1,4) (1,5) (9,4) (9,5) (1,12)
        // (1,13) (9,12) (9,13); B: b0..b3 at (4,1) (5,1) (12,1) (13,1); C: (1,4) (1,5) (9,4) (9,5).
        // The manual's layouts: A `.row`, B `.col` (C's layout does not apply).
        let layout = |f: Fragment| match f.matrix {
            B => Layout::Col,
            _ => Layout::Row,
        };
        let at = |f: Fragment, s| {
            let i = f.mma_element(layout(f), 6, s);
            (i / f.dims().1, i % f.dims().1)
        };
        let a_want = [
            (1, 4),
            (1, 5),
            (9, 4),
            (9, 5),
            (1, 12),
            (1, 13),
            (9, 12),
            (9, 13),
        ];
        assert_eq!((0..8).map(|s| at(a, s)).collect::<Vec<_>>(), a_want);
        assert_eq!(
            (0..4).map(|s| at(b, s)).collect::<Vec<_>>(),
            [(4, 1), (5, 1), (12, 1), (13, 1)]
        );
        assert_eq!(
            (0..4).map(|s| at(c, s)).collect::<Vec<_>>(),
            [(1, 4), (1, 5), (9, 4), (9, 5)]
        );
        // tf32 m16n8k8 (a0..a3 at (g,t) (g+8,t) (g,t+4) (g+8,t+4)) and m16n8k4's B (t, g).
        let t8 = frag(A, (16, 8, 8), Type::TF32);
        assert_eq!(
            (0..4).map(|s| at(t8, s)).collect::<Vec<_>>(),
            [(1, 2), (9, 2), (1, 6), (9, 6)]
        );
        assert_eq!(at(frag(B, (16, 8, 4), Type::TF32), 0), (2, 1));
        for (matrix, shape, ty) in [
            (A, (16, 8, 16), Type::BF16),
            (B, (16, 8, 8), Type::F16),
            (C, (16, 8, 8), Type::F16),
            (A, (16, 8, 32), Type::S8),
            (B, (16, 8, 32), Type::U8),
            (A, (8, 8, 16), Type::S8),
            (C, (8, 8, 16), Type::S32),
            (A, (8, 8, 4), Type::F64),
            (C, (8, 8, 4), Type::F64),
        ] {
            let f = frag(matrix, shape, ty);
            let slots = f.slots(f.mma_registers().unwrap());
            let mut seen = vec![0; f.elements() as usize];
            for lane in 0..32 {
                for s in 0..slots {
                    seen[f.mma_element(layout(f), lane, s) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{f:?}: {seen:?}");
        }
    }

    /// Volta's m8n8k4 `.f16` (quad pairs): every lane and slot against the manual's formulas
    /// as it writes them, a few positions worked by hand, each quad pair on its own
    /// computation, and every computation's matrices covered once.
    #[test]
    fn quad_pair_fragments_follow_the_manual() {
        use Layout::{Col, Row};
        use MatrixUse::{A, B, C};
        let shape = (8, 8, 4);
        // The manual's "row = ... if %laneid < 16, ... otherwise; col = ..." for element i.
        let manual = |f: Fragment, layout, lane: u32, i: u32| -> (u32, u32) {
            let low = lane < 16;
            match (f.matrix, layout) {
                (A, Row) => (if low { lane % 4 } else { (lane % 4) + 4 }, i),
                (A, Col) => (if low { i % 4 } else { (i % 4) + 4 }, lane % 4),
                (B, Row) => (lane % 4, if low { i } else { i + 4 }),
                (B, Col) => (i, if low { lane % 4 } else { (lane % 4) + 4 }),
                (C, _) if f.ty == Type::F16 => (if low { lane % 4 } else { (lane % 4) + 4 }, i),
                (C, _) => {
                    let x = (lane & 0b1) + (i & 0b10);
                    (
                        if low { x } else { x + 4 },
                        (i & 0b100) + (lane & 0b10) + (i & 0b1),
                    )
                }
            }
        };
        // The manual's table: computation 1 is lanes 0-3 and 16-19, 2 is 4-7 and 20-23, ...
        let computation = |lane: u32| {
            [(0, 16), (4, 20), (8, 24), (12, 28)]
                .iter()
                .position(|&(lo, hi)| (lo..lo + 4).contains(&lane) || (hi..hi + 4).contains(&lane))
                .unwrap() as u32
        };
        let fragments = [
            (frag(A, shape, Type::F16), Row, 2),
            (frag(A, shape, Type::F16), Col, 2),
            (frag(B, shape, Type::F16), Row, 2),
            (frag(B, shape, Type::F16), Col, 2),
            (frag(C, shape, Type::F16), Row, 4),
            (frag(C, shape, Type::F32), Row, 8),
        ];
        for (f, layout, regs) in fragments {
            assert_eq!(f.mma_registers(), Some(regs), "{f:?}");
            assert_eq!(f.mma_computations(), 4);
            let (rows, cols) = f.dims();
            let mut seen = vec![0; (4 * rows * cols) as usize];
            for lane in 0..32 {
                for i in 0..f.slots(regs) {
                    let (row, col) = manual(f, layout, lane, i);
                    let want = (computation(lane), row, col);
                    assert_eq!(
                        f.quad_pair_element(layout, lane, i),
                        want,
                        "{f:?} {layout:?} lane {lane} element {i}"
                    );
                    let at = f.mma_element(layout, lane, i);
                    assert_eq!(at, want.0 * rows * cols + row * cols + col);
                    seen[at as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{f:?} {layout:?}: {seen:?}");
        }
        // Lane 22 (computation 2's high group, lane % 4 = 2), worked from the figures.
        let lane22 = |f: Fragment, layout, n: u32| {
            (0..n)
                .map(|i| {
                    let (q, r, c) = f.quad_pair_element(layout, 22, i);
                    assert_eq!(q, 1);
                    (r, c)
                })
                .collect::<Vec<_>>()
        };
        let (a, b) = (frag(A, shape, Type::F16), frag(B, shape, Type::F16));
        assert_eq!(lane22(a, Row, 4), [(6, 0), (6, 1), (6, 2), (6, 3)]);
        assert_eq!(lane22(a, Col, 4), [(4, 2), (5, 2), (6, 2), (7, 2)]);
        assert_eq!(lane22(b, Row, 4), [(2, 4), (2, 5), (2, 6), (2, 7)]);
        assert_eq!(lane22(b, Col, 4), [(0, 6), (1, 6), (2, 6), (3, 6)]);
        assert_eq!(
            lane22(frag(C, shape, Type::F16), Row, 8),
            (0..8).map(|c| (6, c)).collect::<Vec<_>>()
        );
        assert_eq!(
            lane22(frag(C, shape, Type::F32), Row, 8),
            [
                (4, 2),
                (4, 3),
                (6, 2),
                (6, 3),
                (4, 6),
                (4, 7),
                (6, 6),
                (6, 7)
            ]
        );
        // The `.f64` m8n8k4 is one product; the quad-pair form's warp does four.
        let s = MatrixShape::from_name("m8n8k4").unwrap();
        assert_eq!((s.mma_macs(Type::F16), s.mma_macs(Type::F64)), (1024, 256));
        assert_eq!(frag(A, shape, Type::F64).mma_computations(), 1);
    }

    /// The timing model's segments cover every element exactly once per repetition.
    #[test]
    fn lane_segments_cover_the_matrix() {
        for (matrix, shape, ty, layout) in [
            (MatrixUse::A, (16, 16, 16), Type::F16, Layout::Row),
            (MatrixUse::B, (32, 8, 16), Type::F16, Layout::Row),
            (MatrixUse::C, (16, 16, 16), Type::F32, Layout::Col),
            (MatrixUse::C, (8, 8, 4), Type::F64, Layout::Row),
            (MatrixUse::A, (8, 32, 16), Type::U8, Layout::Col),
        ] {
            let f = frag(matrix, shape, ty);
            let stride = u64::from(f.default_stride(layout));
            let mut hits = vec![0u32; f.elements() as usize];
            for lane in 0..32 {
                let (bytes, at) = f.lane_segment(layout, stride, lane);
                for e in 0..u64::from(bytes / f.element_bytes()) {
                    hits[(at + e) as usize] += 1;
                }
            }
            let first = hits[0];
            assert!(
                first >= 1 && hits.iter().all(|&h| h == first),
                "{f:?}: {hits:?}"
            );
        }
    }

    #[test]
    fn shapes_parse_and_print() {
        let s = MatrixShape::from_name("m16n8k16").unwrap();
        assert_eq!((s.m, s.n, s.k, s.macs()), (16, 8, 16, 2048));
        assert_eq!(s.to_string(), "m16n8k16");
        assert_eq!(MatrixShape::from_name("m16n8"), None);
    }
}
