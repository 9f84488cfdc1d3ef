//! IPOLY hashing (Rau, "Pseudo-randomly interleaved memory", ISCA 1991), as GPGPU-Sim uses it
//! for its L2 set index (`P` in a cache string) and its partition indexing 2
//! (`hashing.cc`, `ipoly_hash_function`): each bit of the new index is the old index bit xored
//! with the parity of a fixed group of the higher address bits. The groups are the H-matrix
//! rows of the irreducible polynomials GPGPU-Sim names (IPOLY(5) for 16 banks, IPOLY(37) for
//! 32, IPOLY(67) for 64; Khairy et al., IEEE TPDS 2017), so every power-of-two stride spreads
//! over all banks.

/// For 16, 32 and 64 banks: per index bit, the higher-address bits whose parity it takes.
const GROUPS_16: [&[u32]; 4] = [
    &[11, 10, 9, 8, 6, 4, 3, 0],
    &[12, 8, 7, 6, 5, 3, 1, 0],
    &[9, 8, 7, 6, 4, 2, 1],
    &[10, 9, 8, 7, 5, 3, 2],
];
const GROUPS_32: [&[u32]; 5] = [
    &[13, 12, 11, 10, 9, 6, 5, 3, 0],
    &[14, 13, 12, 11, 10, 7, 6, 4, 1],
    &[14, 10, 9, 8, 7, 6, 3, 2, 0],
    &[11, 10, 9, 8, 7, 4, 3, 1],
    &[12, 11, 10, 9, 8, 5, 4, 2],
];
const GROUPS_64: [&[u32]; 6] = [
    &[18, 17, 16, 15, 12, 10, 6, 5, 0],
    &[15, 13, 12, 11, 10, 7, 5, 1, 0],
    &[16, 14, 13, 12, 11, 8, 6, 2, 1],
    &[17, 15, 14, 13, 12, 9, 7, 3, 2],
    &[18, 16, 15, 14, 13, 10, 8, 4, 3],
    &[17, 16, 15, 14, 11, 9, 5, 4],
];

/// Whether IPOLY is defined for `banks` (16, 32 or 64).
pub fn supports(banks: u64) -> bool {
    matches!(banks, 16 | 32 | 64)
}

/// Each group as a mask of the higher-address bits.
const fn masks<const N: usize>(groups: [&[u32]; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        let mut j = 0;
        while j < groups[i].len() {
            out[i] |= 1 << groups[i][j];
            j += 1;
        }
        i += 1;
    }
    out
}

const MASKS_16: [u64; 4] = masks(GROUPS_16);
const MASKS_32: [u64; 5] = masks(GROUPS_32);
const MASKS_64: [u64; 6] = masks(GROUPS_64);

/// The hashed bank of `index` (below `banks`), given the address bits above the index bits.
///
/// # Panics
/// If `banks` is not 16, 32 or 64 (see [`supports`]; the configuration validates it).
pub fn hash(higher: u64, index: u64, banks: u64) -> u64 {
    let masks: &[u64] = match banks {
        16 => &MASKS_16,
        32 => &MASKS_32,
        64 => &MASKS_64,
        _ => panic!("IPOLY hashing is defined for 16, 32 or 64 banks, not {banks}"),
    };
    masks.iter().enumerate().fold(0, |out, (bit, &mask)| {
        let parity = u64::from((higher & mask).count_ones() & 1);
        out | ((parity ^ (index >> bit)) & 1) << bit
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no higher bits the index is kept; a single higher bit flips the index bits whose
    /// group holds it (bit 0 of the higher address is in groups 0 and 2 of IPOLY(37)).
    #[test]
    fn higher_bits_flip_their_groups() {
        for banks in [16, 32, 64] {
            for i in 0..banks {
                assert_eq!(hash(0, i, banks), i);
            }
        }
        assert_eq!(hash(1, 0, 32), 0b00101);
        assert_eq!(hash(1 << 14, 0, 32), 0b00110);
        assert_eq!(hash(1 << 18, 0, 64), 0b010001);
        assert_eq!(hash(1 << 12, 0, 16), 0b0010);
    }

    /// The property GPGPU-Sim chose it for: lines at a power-of-two stride spread evenly over
    /// the banks (where the plain modulo puts every line of a stride of `banks` or more in one
    /// bank), for strides whose lines differ in the bits the groups cover (up to bit 12, 14
    /// and 18 above the index).
    #[test]
    fn power_of_two_strides_use_every_bank() {
        for (banks, largest) in [(16u64, 10), (32, 12), (64, 16)] {
            let log2 = banks.trailing_zeros();
            for s in 0..=largest {
                let stride = 1u64 << s;
                let mut count = vec![0u32; banks as usize];
                for i in 0..banks * 4 {
                    let line = i * stride;
                    count[hash(line >> log2, line & (banks - 1), banks) as usize] += 1;
                }
                assert!(
                    count.iter().all(|&c| c == 4),
                    "{banks} banks, stride {stride}: {count:?}"
                );
            }
        }
    }
}
