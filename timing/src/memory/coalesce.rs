//! Coalescing: a warp's lane addresses become one transaction per line touched.

use super::Transaction;

/// Coalesces the addresses of a warp's active lanes (in lane order; each lane accesses
/// `bytes_per_lane` bytes, 1..=32, naturally aligned) into transactions of `line`-byte lines
/// with `sector`-byte sectors, in order of the first lane touching each line (deterministic).
/// Clears `out` first.
///
/// Out-of-range parameters are clamped rather than rejected (a width of 0 counts as 1 byte, a
/// zero line or sector size as 1); a lane whose bytes straddle a line boundary (only possible
/// when misaligned) touches both lines. Sector indices beyond 31 share bit 31.
pub fn coalesce(
    lane_addrs: &[u64],
    bytes_per_lane: u32,
    line: u32,
    sector: u32,
    out: &mut Vec<Transaction>,
) {
    out.clear();
    let line = u64::from(line.max(1));
    let sector = u64::from(sector.max(1));
    let size = u64::from(bytes_per_lane.clamp(1, 32));
    for &addr in lane_addrs {
        let last = addr.saturating_add(size - 1);
        let mut at = addr;
        // One step per line the lane's bytes touch: a single one for aligned accesses.
        loop {
            let base = at - at % line;
            let line_end = base.saturating_add(line - 1);
            let end = last.min(line_end);
            let first_sector = ((at - base) / sector).min(31);
            let last_sector = ((end - base) / sector).min(31);
            let mask = sector_range(first_sector as u32, last_sector as u32);
            // Lanes of one warp touch few lines; searching from the most recent line first
            // makes the common (consecutive) case one comparison.
            match out.iter_mut().rev().find(|t| t.line == base) {
                Some(t) => t.sectors |= mask,
                None => out.push(Transaction {
                    line: base,
                    sectors: mask,
                }),
            }
            if end >= last {
                break;
            }
            at = end + 1;
        }
    }
}

/// Coalesces the lanes of a global atomic as GPGPU-Sim does
/// (`warp_inst_t::memory_coalescing_arch_atomic`): one transaction per `sector`-byte segment,
/// and a lane whose bytes a transaction of its segment already updates starts another, so
/// lanes updating one address are as many requests (in lane order; `bytes_per_lane` as
/// [`coalesce`], a sector of at most 64 bytes tracked byte by byte). Clears `out` first.
pub fn coalesce_atomics(
    lane_addrs: &[u64],
    bytes_per_lane: u32,
    line: u32,
    sector: u32,
    out: &mut Vec<Transaction>,
) {
    out.clear();
    let line = u64::from(line.max(1));
    let sector = u64::from(sector.clamp(1, 64));
    let size = u64::from(bytes_per_lane.clamp(1, 32));
    // The bytes each transaction's lanes update, by its segment.
    let mut updated: Vec<(u64, u64)> = Vec::with_capacity(lane_addrs.len());
    for &addr in lane_addrs {
        let segment = addr - addr % sector;
        let offset = addr - segment;
        let width = size.min(sector - offset);
        let bytes = (u64::MAX >> (64 - width)) << offset;
        match updated
            .iter_mut()
            .find(|(s, used)| *s == segment && used & bytes == 0)
        {
            Some((_, used)) => *used |= bytes,
            None => {
                updated.push((segment, bytes));
                let base = segment - segment % line;
                out.push(Transaction {
                    line: base,
                    sectors: 1 << ((segment - base) / sector).min(31),
                });
            }
        }
    }
}

/// Bits `first..=last` (both below 32, `first <= last`).
fn sector_range(first: u32, last: u32) -> u32 {
    let upto = if last >= 31 {
        u32::MAX
    } else {
        (1u32 << (last + 1)) - 1
    };
    upto & !((1u32 << first) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPGPU-Sim's atomic coalescing: 32 lanes on one word are 32 requests; 32 lanes on
    /// consecutive words are 4 (one a 32-byte sector); two lanes on one word among distinct
    /// ones add one.
    #[test]
    fn atomics_on_one_address_are_separate_requests() {
        let atomics = |addrs: &[u64]| {
            let mut out = Vec::new();
            coalesce_atomics(addrs, 4, 128, 32, &mut out);
            out
        };
        let same = atomics(&[0x1000; 32]);
        assert_eq!(same.len(), 32);
        assert!(same.iter().all(|t| t.line == 0x1000 && t.sectors == 1));
        let spread: Vec<u64> = (0..32).map(|i| 0x1000 + 4 * i).collect();
        let t = atomics(&spread);
        assert_eq!(t.len(), 4);
        assert_eq!(
            t.iter().map(|t| t.sectors).collect::<Vec<_>>(),
            [1, 2, 4, 8]
        );
        assert_eq!(atomics(&[0x1000, 0x1004, 0x1000, 0x1008]).len(), 2);
    }

    fn run(addrs: &[u64], bytes: u32) -> Vec<Transaction> {
        let mut out = vec![Transaction {
            line: 1,
            sectors: 1,
        }];
        coalesce(addrs, bytes, 128, 32, &mut out);
        out
    }

    fn lanes(base: u64, stride: u64) -> Vec<u64> {
        (0..32).map(|i| base + i * stride).collect()
    }

    #[test]
    fn consecutive_words_are_one_transaction_of_four_sectors() {
        assert_eq!(
            run(&lanes(0x1000, 4), 4),
            vec![Transaction {
                line: 0x1000,
                sectors: 0b1111
            }]
        );
    }

    #[test]
    fn stride_of_a_line_is_one_transaction_per_lane() {
        let out = run(&lanes(0x2000, 128), 4);
        assert_eq!(out.len(), 32);
        for (i, t) in out.iter().enumerate() {
            assert_eq!(t.line, 0x2000 + 128 * i as u64);
            assert_eq!(t.sectors, 1);
        }
    }

    #[test]
    fn stride_of_eight_bytes_is_two_lines() {
        let out = run(&lanes(0, 8), 4);
        assert_eq!(
            out,
            vec![
                Transaction {
                    line: 0,
                    sectors: 0b1111
                },
                Transaction {
                    line: 128,
                    sectors: 0b1111
                }
            ]
        );
    }

    #[test]
    fn consecutive_eight_byte_lanes_are_two_lines() {
        let out = run(&lanes(256, 8), 8);
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].line, out[0].sectors), (256, 0b1111));
        assert_eq!((out[1].line, out[1].sectors), (384, 0b1111));
    }

    #[test]
    fn unaligned_start_spans_two_lines() {
        // 32 words from byte 64: the second half of one line, the first half of the next.
        let out = run(&lanes(64, 4), 4);
        assert_eq!(
            out,
            vec![
                Transaction {
                    line: 0,
                    sectors: 0b1100
                },
                Transaction {
                    line: 128,
                    sectors: 0b0011
                }
            ]
        );
    }

    #[test]
    fn order_is_that_of_the_first_lane_touching_each_line() {
        let out = run(&[512, 0, 516, 4, 1024], 4);
        let lines: Vec<u64> = out.iter().map(|t| t.line).collect();
        assert_eq!(lines, vec![512, 0, 1024]);
    }

    #[test]
    fn a_misaligned_lane_touches_both_lines_and_odd_inputs_do_not_panic() {
        let out = run(&[126], 4);
        assert_eq!(
            out,
            vec![
                Transaction {
                    line: 0,
                    sectors: 0b1000
                },
                Transaction {
                    line: 128,
                    sectors: 0b0001
                }
            ]
        );
        let mut out = Vec::new();
        coalesce(&[u64::MAX, 0], 0, 0, 0, &mut out);
        assert_eq!(out.len(), 2);
        coalesce(&[u64::MAX - 3], 32, 4096, 1, &mut out);
        assert_eq!(out.len(), 1);
        coalesce(&[], 4, 128, 32, &mut out);
        assert!(out.is_empty());
    }
}
