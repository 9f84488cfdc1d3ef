//! Where a global-memory address lives: its DRAM channel, the L2 slice in front of that
//! channel, and the bank and row inside the channel. The decoding is GPGPU-Sim's
//! (`addrdec.cc`), driven by the same mapping strings its configurations use, so a preset that
//! mirrors a GPGPU-Sim configuration sends every address to the same channel, slice, bank and
//! row.
//!
//! A mapping string reads `dramid@S;` followed by one letter per address bit, most significant
//! first (`.` and `|` are separators): `R` a row bit, `B` a bank bit, `C` and `S` column bits,
//! `0` unused. The channel is taken at bit `S`:
//!
//! - with a power-of-two channel count `n`, `log2 n` channel bits are *inserted* at bit `S`
//!   (every lettered bit at or above `S` moves up by `log2 n`);
//! - otherwise the channel is `(addr >> S) mod n`, and the rest of the address is the quotient
//!   shifted back into place with the low `S` bits kept, decoded by the letters.
//!
//! Each channel has `subs` L2 slices (GPGPU-Sim's sub-partitions, a power of two); the slice
//! within the channel is the lowest bank bits. The column does not affect timing (as in
//! GPGPU-Sim) and is not decoded.

use super::ipoly;
use crate::config::PartitionIndexing;

/// The DRAM and L2 location of an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// The DRAM channel.
    pub channel: usize,
    /// The L2 slice (over all channels: `channel * subs + sub-partition`).
    pub slice: usize,
    /// The line's index inside its slice (what picks the slice's set).
    pub local_line: u64,
    /// The bank inside the channel.
    pub bank: usize,
    /// The row inside the bank.
    pub row: u64,
}

/// A parsed mapping string with the channel and slice counts.
#[derive(Clone, Debug)]
pub struct AddressMap {
    /// Bit where the channel is taken.
    chip_shift: u32,
    channels: u64,
    /// Slices per channel (a power of two).
    subs: u64,
    /// Bank and row bits, in the coordinates of the decoded rest of the address.
    bank_mask: u64,
    row_mask: u64,
    /// The bank bits that pick the slice within the channel (the lowest `log2 subs`).
    sub_mask: u64,
    /// The channel bits of the address (a power-of-two channel count; 0 otherwise, where the
    /// rest of the address is the quotient and has none).
    chip_mask: u64,
    /// log2 of the L2 line size.
    line_shift: u32,
    indexing: PartitionIndexing,
}

/// Why a mapping string was refused.
pub type MapError = String;

impl AddressMap {
    /// Parses `text` for `channels` channels of `subs` slices each, with L2 lines of `line`
    /// bytes. `banks` must be what the bank bits can name.
    pub fn parse(
        text: &str,
        channels: u32,
        subs: u32,
        banks: u32,
        line: u32,
        indexing: PartitionIndexing,
    ) -> Result<AddressMap, MapError> {
        let (head, bits) = text
            .split_once(';')
            .ok_or("expected `dramid@BIT;` followed by the address bits")?;
        let chip_shift: u32 = head
            .trim()
            .strip_prefix("dramid@")
            .and_then(|s| s.parse().ok())
            .filter(|&s: &u32| s < 64)
            .ok_or_else(|| format!("`{head}`: expected `dramid@BIT` with BIT below 64"))?;
        let letters: Vec<char> = bits
            .chars()
            .filter(|c| !matches!(c, '.' | '|' | ' '))
            .collect();
        if letters.len() != 64 {
            return Err(format!(
                "expected 64 address-bit letters after `;`, found {}",
                letters.len()
            ));
        }
        let (mut bank_mask, mut row_mask) = (0u64, 0u64);
        for (i, c) in letters.iter().enumerate() {
            let bit = 1u64 << (63 - i);
            match c {
                'R' => row_mask |= bit,
                'B' => bank_mask |= bit,
                'C' | 'S' | '0' => {}
                'D' => {
                    return Err("unsupported: explicit channel bits (`D`); use `dramid@BIT`".into());
                }
                other => {
                    return Err(format!(
                        "unknown letter `{other}` (expected R, B, C, S or 0)"
                    ));
                }
            }
        }
        let channels = u64::from(channels.max(1));
        if channels.is_power_of_two() {
            let n = channels.trailing_zeros();
            let insert = |mask: u64| {
                let low = mask & ((1u64 << chip_shift) - 1);
                low | ((mask & !((1u64 << chip_shift) - 1)) << n)
            };
            bank_mask = insert(bank_mask);
            row_mask = insert(row_mask);
        }
        if 1u64 << bank_mask.count_ones() != u64::from(banks) {
            return Err(format!(
                "{} bank bits name {} banks; mem.dram.banks is {banks}",
                bank_mask.count_ones(),
                1u64 << bank_mask.count_ones()
            ));
        }
        let subs = u64::from(subs);
        if !subs.is_power_of_two() || subs > u64::from(banks) {
            return Err(format!(
                "{subs} L2 slices per channel: must be a power of two no larger than the banks"
            ));
        }
        let mut sub_mask = 0;
        let mut rest = bank_mask;
        for _ in 0..subs.trailing_zeros() {
            let low = rest & rest.wrapping_neg();
            sub_mask |= low;
            rest &= !low;
        }
        let chip_mask = if channels.is_power_of_two() {
            (channels - 1) << chip_shift
        } else {
            0
        };
        if indexing == PartitionIndexing::Ipoly
            && !ipoly::supports(channels.next_power_of_two() * subs)
        {
            return Err(format!(
                "ipoly partition indexing needs 16, 32 or 64 slices after rounding the \
                 channels up to a power of two; {channels} channels of {subs} slices give {}",
                channels.next_power_of_two() * subs
            ));
        }
        Ok(AddressMap {
            chip_shift,
            channels,
            subs,
            bank_mask,
            row_mask,
            sub_mask,
            chip_mask,
            line_shift: line.max(1).trailing_zeros(),
            indexing,
        })
    }

    /// The channel, slice, bank and row of byte address `addr`.
    pub fn locate(&self, addr: u64) -> Location {
        let s = self.chip_shift;
        let (mut channel, rest) = if self.channels.is_power_of_two() {
            ((addr >> s) & (self.channels - 1), addr)
        } else {
            let above = addr >> s;
            let low = addr & ((1u64 << s) - 1);
            (above % self.channels, ((above / self.channels) << s) | low)
        };
        let bank = gather(rest, self.bank_mask);
        let row = gather(rest, self.row_mask);
        let mut sub = bank & (self.subs - 1);
        // The address inside the slice (GPGPU-Sim's `partition_address`, which picks the L2
        // set): the rest without the channel bits and the slice bits, in lines.
        let local_line = remove_bits(rest, self.chip_mask | self.sub_mask) >> self.line_shift;
        let slices = self.channels * self.subs;
        let hashed = match self.indexing {
            PartitionIndexing::Consecutive => None,
            PartitionIndexing::Hashed => {
                // Spread strides that are multiples of the slice count: the slice is rotated
                // by a fold of the line number without its slice bits (an xor hash of
                // warpsim's own; the presets that use it were never compared with GPGPU-Sim).
                let slice = channel * self.subs + sub;
                let block = remove_bits(rest, self.sub_mask) >> self.line_shift;
                let fold = block ^ (block >> 5) ^ (block >> 10) ^ (block >> 15) ^ (block >> 20);
                Some((slice + fold % slices) % slices)
            }
            PartitionIndexing::Ipoly => {
                // GPGPU-Sim's `addrdec_tlx`, case IPOLY: the slice number hashed with the
                // address bits above the channel (and, with a power-of-two channel count, the
                // slice) bits, over the next power of two of the channels; taken modulo the
                // slices when the channel count is not a power of two.
                let higher = if self.channels.is_power_of_two() {
                    addr >> (s + self.channels.trailing_zeros() + self.subs.trailing_zeros())
                } else {
                    (addr >> s) / self.channels
                };
                let banks = self.channels.next_power_of_two() * self.subs;
                Some(ipoly::hash(higher, channel * self.subs + sub, banks) % slices)
            }
            PartitionIndexing::Random => {
                // GPGPU-Sim's RANDOM draws `rand()` for each 128-byte chunk (the slice bits'
                // chunk) at its first access, so its table depends on the order of accesses;
                // warpsim's table is a fixed hash of the chunk: the same uniform, independent
                // choice per chunk, not the same choices.
                let chunk = addr >> s.saturating_sub(self.subs.trailing_zeros());
                Some(splitmix64(chunk) % slices)
            }
        };
        if let Some(slice) = hashed {
            channel = slice / self.subs;
            sub = slice % self.subs;
        }
        Location {
            channel: channel as usize,
            slice: (channel * self.subs + sub) as usize,
            local_line,
            bank: bank as usize,
            row,
        }
    }
}

/// SplitMix64's finaliser (Steele et al., OOPSLA 2014): a fixed pseudo-random function.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bits of `value` under `mask`, packed: the lowest mask bit becomes bit 0.
fn gather(value: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    let mut i = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if value & low != 0 {
            out |= 1 << i;
        }
        i += 1;
        mask &= !low;
    }
    out
}

/// `value` with the bits under `mask` taken out (the bits above each move down).
fn remove_bits(value: u64, mask: u64) -> u64 {
    let mut out = value;
    let mut m = mask;
    while m != 0 {
        let high = 63 - m.leading_zeros();
        let below = out & ((1u64 << high) - 1);
        out = ((out >> (high + 1)) << high) | below;
        m &= !(1u64 << high);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GTX480: &str =
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS";
    const QV100: &str =
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS";

    fn gtx480() -> AddressMap {
        AddressMap::parse(GTX480, 6, 2, 16, 128, PartitionIndexing::Consecutive).unwrap()
    }

    /// GPGPU-Sim's decoding of the GTX480 string for 6 channels (the non-power-of-two path):
    /// q = (addr >> 8) / 6, r = q << 8 | addr & 0xff; bank = r8 | r13..r15 << 1,
    /// row = r16..r27, slice = 2 × channel + r8.
    #[test]
    fn gtx480_decodes_as_gpgpu_sim_does() {
        let m = gtx480();
        for addr in [
            0u64,
            0x80,
            0x100,
            0x5ff,
            0x600,
            0x1234_5678,
            0x00de_adbe_ef00,
            0x7000_0080_0000,
        ] {
            let channel = (addr >> 8) % 6;
            let r = (((addr >> 8) / 6) << 8) | (addr & 0xff);
            let bit = |i: u32| (r >> i) & 1;
            let bank = bit(8) | bit(13) << 1 | bit(14) << 2 | bit(15) << 3;
            let row = (r >> 16) & 0xfff;
            let l = m.locate(addr);
            assert_eq!(l.channel as u64, channel, "{addr:#x}");
            assert_eq!(l.bank as u64, bank, "{addr:#x}");
            assert_eq!(l.row, row, "{addr:#x}");
            assert_eq!(l.slice as u64, 2 * channel + bit(8), "{addr:#x}");
        }
        // 256-byte chunks rotate over the channels; both lines of a chunk share bank and row.
        let a = m.locate(0x1000);
        let b = m.locate(0x1080);
        assert_eq!(
            (a.channel, a.bank, a.row, a.slice),
            (b.channel, b.bank, b.row, b.slice)
        );
        assert_eq!(m.locate(0x1100).channel, (a.channel + 1) % 6);
    }

    #[test]
    fn power_of_two_channels_insert_their_bits() {
        let m = AddressMap::parse(QV100, 32, 2, 16, 128, PartitionIndexing::Consecutive).unwrap();
        for addr in [0u64, 0x100, 0x1f00, 0x2000, 0x12_3456_7890] {
            let bit = |i: u32| (addr >> i) & 1;
            let l = m.locate(addr);
            assert_eq!(l.channel as u64, (addr >> 8) & 31);
            assert_eq!(
                l.bank as u64,
                bit(13) | bit(17) << 1 | bit(18) << 2 | bit(19) << 3
            );
            assert_eq!(l.row, (addr >> 20) & 0x1fff);
        }
    }

    #[test]
    fn lines_of_a_slice_are_dense() {
        // Every slice's local line indices of the first 1 MB are distinct and dense: the L2 sets
        // of a slice are all used.
        let m = gtx480();
        let mut seen = vec![Vec::new(); 12];
        for line in 0..8192u64 {
            let l = m.locate(line * 128);
            seen[l.slice].push(l.local_line);
        }
        for s in &mut seen {
            s.sort_unstable();
            let n = s.len() as u64;
            assert!(n > 600, "{n} lines");
            s.dedup();
            assert_eq!(s.len() as u64, n, "distinct");
            assert!(*s.last().unwrap() < n + 64, "dense");
        }
    }

    /// With a power-of-two channel count the channel bits are inserted into the address, and
    /// GPGPU-Sim's `partition_address` takes them out again: a slice's lines are dense, so it
    /// uses every L2 set (with them left in, a 32-set slice of QV100 used 2 sets).
    #[test]
    fn power_of_two_channels_leave_dense_slice_lines() {
        let m = AddressMap::parse(QV100, 32, 2, 16, 128, PartitionIndexing::Consecutive).unwrap();
        let mut sets = vec![std::collections::BTreeSet::new(); 64];
        for line in 0..65536u64 {
            let l = m.locate(line * 128);
            sets[l.slice].insert(l.local_line % 32);
        }
        assert!(sets.iter().all(|s| s.len() == 32), "{sets:?}");
    }

    /// GPGPU-Sim's IPOLY indexing worked by hand on QV100 (32 channels at bit 8, 2 slices a
    /// channel by address bit 13, 64 slices): slice = IPOLY(64) of `2 × channel + bit 13`
    /// with the address bits from 14 up. 0x2100 is channel 1, bit 13 set: slice 3 with no
    /// higher bits. 0x4000 is channel 0, bit 13 clear, higher bits 1; bit 0 of the higher
    /// bits is in the groups of index bits 0 and 1 of IPOLY(67): slice 0b11 = 3 too.
    #[test]
    fn ipoly_indexing_as_gpgpu_sim_computes_it() {
        let m = AddressMap::parse(QV100, 32, 2, 16, 128, PartitionIndexing::Ipoly).unwrap();
        for addr in [0x2100u64, 0x4000] {
            let l = m.locate(addr);
            assert_eq!((l.slice, l.channel), (3, 1), "{addr:#x}");
        }
        assert_eq!(m.locate(0).slice, 0);
        // The bank and row are decoded as before the hash.
        let c = AddressMap::parse(QV100, 32, 2, 16, 128, PartitionIndexing::Consecutive).unwrap();
        let (a, b) = (m.locate(0x12_3456_7890), c.locate(0x12_3456_7890));
        assert_eq!((a.bank, a.row, a.local_line), (b.bank, b.row, b.local_line));
        // Six channels (not a power of two) round up to 8 × 2 = 16 for the hash, then modulo 12.
        let g = AddressMap::parse(GTX480, 6, 2, 16, 128, PartitionIndexing::Ipoly).unwrap();
        assert!((0..4096u64).all(|i| g.locate(i * 128).slice < 12));
        assert!(AddressMap::parse(GTX480, 3, 2, 16, 128, PartitionIndexing::Ipoly).is_err());
    }

    /// Random indexing: a fixed slice per 128-byte chunk, spread over every slice whatever
    /// the stride.
    #[test]
    fn random_indexing_is_fixed_per_chunk_and_spreads() {
        let m = AddressMap::parse(GTX480, 6, 2, 16, 128, PartitionIndexing::Random).unwrap();
        assert_eq!(m.locate(0x1234_5600), m.locate(0x1234_5600));
        assert_eq!(m.locate(0x1234_5600).slice, m.locate(0x1234_567f).slice);
        for stride in [1u64, 12, 64, 1024] {
            let mut hit = [0u32; 12];
            for i in 0..240 {
                hit[m.locate(i * stride * 128).slice] += 1;
            }
            assert!(hit.iter().all(|&c| c > 0), "stride {stride}: {hit:?}");
        }
    }

    #[test]
    fn hashed_indexing_spreads_strides() {
        let m = AddressMap::parse(GTX480, 6, 2, 16, 128, PartitionIndexing::Hashed).unwrap();
        for stride in [12u64, 16, 64, 96, 1024] {
            let mut hit = [0u32; 12];
            for i in 0..48 {
                hit[m.locate(i * stride * 128).slice] += 1;
            }
            let used = hit.iter().filter(|&&c| c > 0).count();
            assert!(used >= 6, "stride {stride} lines uses {used} slices");
        }
    }

    #[test]
    fn bad_strings_are_refused_precisely() {
        let p =
            |t: &str, banks| AddressMap::parse(t, 6, 2, banks, 128, PartitionIndexing::Consecutive);
        assert!(p("RRRR", 16).unwrap_err().contains("dramid@"));
        assert!(p("dramid@8;RRRR", 16).unwrap_err().contains("found 4"));
        assert!(p(GTX480, 8).unwrap_err().contains("mem.dram.banks is 8"));
        assert!(
            p(&GTX480.replace("BBBC", "BBBX"), 16)
                .unwrap_err()
                .contains("`X`")
        );
        assert!(
            p(&GTX480.replace("BBBC", "BBBD"), 16)
                .unwrap_err()
                .contains("unsupported")
        );
    }

    #[test]
    fn bit_helpers() {
        assert_eq!(gather(0b1011_0000, 0b1111_0000), 0b1011);
        assert_eq!(gather(0b1000_0100, 0b1000_0100), 0b11);
        assert_eq!(remove_bits(0b1_0110, 0b0_0100), 0b1010);
        assert_eq!(remove_bits(0b1111_1111, 0b1000_0001), 0b11_1111);
    }
}
