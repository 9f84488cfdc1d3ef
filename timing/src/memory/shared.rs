//! Shared-memory bank conflicts.

/// Words examined without allocating: 32 lanes of up to 32 bytes over 4-byte banks.
const STACK_WORDS: usize = 256;

/// Whether every lane touches one word and no bank must deliver two distinct words (the
/// common case, decided without sorting). `banks` is at most 64.
fn conflict_free(lane_addrs: &[u64], size: u64, banks: u64, bank_bytes: u64) -> bool {
    let mut seen = 0u64;
    let mut word_of = [0u64; 64];
    for &addr in lane_addrs {
        let word = addr / bank_bytes;
        if addr.saturating_add(size - 1) / bank_bytes != word {
            return false;
        }
        let bank = (word % banks) as usize;
        if seen & (1 << bank) == 0 {
            seen |= 1 << bank;
            word_of[bank] = word;
        } else if word_of[bank] != word {
            return false;
        }
    }
    true
}

/// Serialized passes a shared-memory access needs: with `banks` banks of `bank_bytes`, the most
/// distinct words (`bank_bytes`-sized) any one bank must deliver (lanes reading the same word
/// are served by one broadcast). 1 = conflict-free; 0 when no lane. A lane accessing 8 or 16
/// bytes touches 2 or 4 consecutive words.
///
/// `bytes_per_lane` is clamped to 1..=32 and zero bank parameters count as 1.
pub fn shared_passes(lane_addrs: &[u64], bytes_per_lane: u32, banks: u32, bank_bytes: u32) -> u32 {
    if lane_addrs.is_empty() {
        return 0;
    }
    let banks = u64::from(banks.max(1));
    let bank_bytes = u64::from(bank_bytes.max(1));
    let size = u64::from(bytes_per_lane.clamp(1, 32));
    if banks <= 64 && conflict_free(lane_addrs, size, banks, bank_bytes) {
        return 1;
    }
    passes_sorted(lane_addrs, size, banks, bank_bytes)
}

/// [`shared_passes`] in general: every (bank, word) pair touched, sorted, and the longest run of
/// distinct words in one bank.
fn passes_sorted(lane_addrs: &[u64], size: u64, banks: u64, bank_bytes: u64) -> u32 {
    let words_per_lane = size.div_ceil(bank_bytes) + 1; // +1: a misaligned lane may straddle
    let needed = lane_addrs.len().saturating_mul(words_per_lane as usize);
    let mut stack = [(0u64, 0u64); STACK_WORDS];
    let mut heap;
    // The common shapes fit on the stack; only odd ones (more than 32 lanes, 1-byte banks)
    // pay for an allocation.
    let buf: &mut [(u64, u64)] = if needed <= STACK_WORDS {
        &mut stack
    } else {
        heap = vec![(0u64, 0u64); needed];
        &mut heap
    };
    let mut n = 0;
    for &addr in lane_addrs {
        let first = addr / bank_bytes;
        let last = addr.saturating_add(size - 1) / bank_bytes;
        for word in first..=last {
            buf[n] = (word % banks, word);
            n += 1;
        }
    }
    let pairs = &mut buf[..n];
    pairs.sort_unstable();
    // Sorted by (bank, word): count the distinct words of each bank's run.
    let mut best = 0;
    let mut run = 0;
    let mut prev: Option<(u64, u64)> = None;
    for &(bank, word) in pairs.iter() {
        match prev {
            Some((b, w)) if b == bank => {
                if w != word {
                    run += 1;
                }
            }
            _ => run = 1,
        }
        best = best.max(run);
        prev = Some((bank, word));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(base: u64, stride: u64) -> Vec<u64> {
        (0..32).map(|i| base + i * stride).collect()
    }

    #[test]
    fn the_conflict_free_shortcut_agrees_with_the_general_count() {
        let mut x = 88172645463325252u64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let n = (rand() % 33) as usize;
            let stride = [0, 1, 2, 4, 8, 12, 16, 128][(rand() % 8) as usize];
            let base = rand() % 4096;
            let addrs: Vec<u64> = (0..n as u64)
                .map(|i| {
                    if rand() % 8 == 0 {
                        rand() % 4096
                    } else {
                        base + i * stride
                    }
                })
                .collect();
            let bytes = [1, 2, 4, 8, 16][(rand() % 5) as usize];
            let (banks, bank_bytes) =
                [(32, 4), (16, 8), (32, 8), (7, 4), (64, 4)][(rand() % 5) as usize];
            let general = if n == 0 {
                0
            } else {
                passes_sorted(&addrs, u64::from(bytes), banks, bank_bytes)
            };
            assert_eq!(
                shared_passes(&addrs, bytes, banks as u32, bank_bytes as u32),
                general,
                "{addrs:?} {bytes} {banks} {bank_bytes}"
            );
        }
    }

    #[test]
    fn word_strides() {
        assert_eq!(shared_passes(&lanes(0, 4), 4, 32, 4), 1);
        assert_eq!(shared_passes(&lanes(0, 8), 4, 32, 4), 2);
        assert_eq!(shared_passes(&lanes(0, 16), 4, 32, 4), 4);
        assert_eq!(shared_passes(&lanes(0, 128), 4, 32, 4), 32);
        // An odd stride is conflict-free.
        assert_eq!(shared_passes(&lanes(0, 12), 4, 32, 4), 1);
    }

    #[test]
    fn same_word_is_a_broadcast() {
        assert_eq!(shared_passes(&[256; 32], 4, 32, 4), 1);
        // Two words in one bank, each read by many lanes: two passes.
        let mut a = vec![0u64; 16];
        a.extend([128u64; 16]);
        assert_eq!(shared_passes(&a, 4, 32, 4), 2);
    }

    #[test]
    fn wide_lanes_touch_several_words() {
        assert_eq!(shared_passes(&lanes(0, 8), 8, 32, 4), 2);
        assert_eq!(shared_passes(&lanes(0, 16), 16, 32, 4), 4);
        assert_eq!(shared_passes(&lanes(0, 8), 8, 16, 8), 2);
    }

    #[test]
    fn no_lane_is_zero_passes_and_odd_inputs_do_not_panic() {
        assert_eq!(shared_passes(&[], 4, 32, 4), 0);
        assert_eq!(shared_passes(&lanes(0, 1), 32, 32, 1), 2);
        assert_eq!(shared_passes(&[u64::MAX; 40], 0, 0, 0), 1);
        assert_eq!(shared_passes(&lanes(0, 4), 4, 7, 4), 5);
    }
}
