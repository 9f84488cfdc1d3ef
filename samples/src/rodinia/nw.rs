//! Rodinia nw (Needleman-Wunsch): global sequence alignment by dynamic programming over an
//! (n + 1) × (n + 1) integer score matrix in 16 × 16 tiles. The host launches
//! `needle_cuda_shared_1` once per tile anti-diagonal of the upper-left triangle (1, 2, …,
//! n/16 CTAs of 16 threads) and `needle_cuda_shared_2` for the lower-right one (n/16 − 1, …, 1
//! CTAs); each CTA sweeps its tile's anti-diagonals in shared memory.
//!
//! Validation: the whole score matrix, exactly, against the row-by-row CPU recurrence
//! (integer arithmetic).

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};

/// Tile side and threads per CTA (Rodinia's `BLOCK_SIZE`).
const BLOCK: usize = 16;

/// BLOSUM62 substitution scores in the order A R N D C Q E G H I L K M F P S T W Y V B Z X *,
/// the table Rodinia uses (the generated residues index it with 1..=10).
const BLOSUM62: [[i32; 24]; 24] = [
    [
        4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4,
    ],
    [
        -1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4,
    ],
    [
        -2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4,
    ],
    [
        -2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4,
    ],
    [
        0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2,
        -4,
    ],
    [
        -1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4,
    ],
    [
        -1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4,
    ],
    [
        0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4,
    ],
    [
        -2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4,
    ],
    [
        -1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4,
    ],
    [
        -1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4,
    ],
    [
        -1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4,
    ],
    [
        -1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4,
    ],
    [
        -2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4,
    ],
    [
        -1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2,
        -4,
    ],
    [
        1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4,
    ],
    [
        0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4,
    ],
    [
        -3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2,
        -4,
    ],
    [
        -2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4,
    ],
    [
        0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4,
    ],
    [
        -2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4,
    ],
    [
        -1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4,
    ],
    [
        0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4,
    ],
    [
        -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4,
        1,
    ],
];

/// One problem: two sequences of `n` residues (a multiple of 16), gap `penalty`.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub n: usize,
    pub penalty: i32,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let n = match size {
            // 8 × 8 tiles: 15 launches.
            Size::Small => 128,
            // Rodinia's run script: `nw 2048 10`.
            Size::Default => 2048,
            Size::Large => 4096,
        };
        Problem { n, penalty: 10 }
    }
}

/// Deterministic inputs, built as Rodinia's host builds them: (reference scores, initial
/// score matrix), both (n + 1) × (n + 1) row-major. Residues are 1..=10; `reference[i][j]` is
/// the BLOSUM62 score of residue i of the first sequence against residue j of the second;
/// the first row and column of the matrix hold the gap penalties, the rest zero.
pub fn inputs(p: &Problem) -> (Vec<i32>, Vec<i32>) {
    let cols = p.n + 1;
    let mut rng = Rng::new(0x4E57_0000_0007);
    let mut residue = || (rng.next_u64() % 10 + 1) as usize;
    let seq_a: Vec<usize> = (0..p.n).map(|_| residue()).collect();
    let seq_b: Vec<usize> = (0..p.n).map(|_| residue()).collect();
    let mut reference = vec![0i32; cols * cols];
    for i in 1..cols {
        for j in 1..cols {
            reference[i * cols + j] = BLOSUM62[seq_a[i - 1]][seq_b[j - 1]];
        }
    }
    let mut matrix = vec![0i32; cols * cols];
    for i in 1..cols {
        matrix[i * cols] = -(i as i32) * p.penalty;
        matrix[i] = -(i as i32) * p.penalty;
    }
    (reference, matrix)
}

/// The CPU reference: the recurrence filled row by row.
pub fn reference(reference: &[i32], matrix: &[i32], p: &Problem) -> Vec<i32> {
    let cols = p.n + 1;
    let mut m = matrix.to_vec();
    for i in 1..cols {
        for j in 1..cols {
            let diag = m[(i - 1) * cols + j - 1] + reference[i * cols + j];
            let west = m[i * cols + j - 1] - p.penalty;
            let north = m[(i - 1) * cols + j] - p.penalty;
            m[i * cols + j] = diag.max(west).max(north);
        }
    }
    m
}

/// Rodinia nw as a registered sample.
pub struct Nw;

impl Sample for Nw {
    fn name(&self) -> &'static str {
        "rodinia/nw"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["needle_cuda_shared_1", "needle_cuda_shared_2"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        let tiles = p.n / BLOCK;
        format!(
            "two sequences of {} residues, penalty {} ({} launches)",
            p.n,
            p.penalty,
            2 * tiles - 1
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let cols = p.n + 1;
        let (refs, matrix) = inputs(&p);

        let mut session = Session::new(dev);
        let module = session.load("rodinia/nw/nw.ptx")?;
        let upper_left = module.kernel("needle_cuda_shared_1")?;
        let lower_right = module.kernel("needle_cuda_shared_2")?;

        let d_reference = dev.alloc_from(&refs)?;
        let d_matrix = dev.alloc_from(&matrix)?;
        let block_width = (cols - 1) / BLOCK;
        let args = |i: usize| {
            [
                (&d_reference).into(),
                (&d_matrix).into(),
                Arg::I32(cols as i32),
                Arg::I32(p.penalty),
                Arg::I32(i as i32),
                Arg::I32(block_width as i32),
            ]
        };
        for i in 1..=block_width {
            session.launch(&upper_left, i as u32, BLOCK as u32, 0, &args(i))?;
        }
        for i in (1..block_width).rev() {
            session.launch(&lower_right, i as u32, BLOCK as u32, 0, &args(i))?;
        }

        let got = d_matrix.to_host()?;
        let expected = reference(&refs, &matrix, &p);
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
