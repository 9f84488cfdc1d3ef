//! Where a warp register lives: the bank mapping of `sm.rf.mapping`.

use super::{ALL_SLICES, BankReq};
use crate::config::{BankMapping, GpuConfig};

/// Maps (warp slot, register) to a bank.
#[derive(Clone, Copy, Debug)]
pub struct BankMap {
    banks: u32,
    mapping: BankMapping,
}

impl BankMap {
    pub fn new(cfg: &GpuConfig) -> BankMap {
        BankMap::with_mapping(cfg, cfg.sm.rf.mapping)
    }

    /// `cfg`'s banks under `mapping` (a technique that brings its own mapping).
    pub fn with_mapping(cfg: &GpuConfig, mapping: BankMapping) -> BankMap {
        BankMap {
            banks: cfg.sm.rf.banks,
            mapping,
        }
    }

    /// A whole-register access to register `reg` of warp slot `warp`, at the row of its
    /// number in its bank (the baseline's placement).
    #[inline]
    pub fn access(&self, warp: u32, reg: u32, write: bool) -> BankReq {
        BankReq {
            bank: self.bank(warp, reg),
            row: reg,
            slices: ALL_SLICES,
            write,
            operands: u8::from(!write),
            forwarded: false,
            ready_at: 0,
        }
    }

    /// Bank of register `reg` of the warp in slot `warp`.
    #[inline]
    pub fn bank(&self, warp: u32, reg: u32) -> u32 {
        match self.mapping {
            BankMapping::Wshift => (reg + warp) % self.banks,
            BankMapping::Wid => warp % self.banks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wshift_spreads_one_register_of_consecutive_warps() {
        let map = BankMap::new(&GpuConfig::preset("gtx480"));
        assert_eq!(map.bank(0, 5), 5);
        assert_eq!(map.bank(1, 5), 6);
        assert_eq!(map.bank(3, 15), 2);
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.rf.mapping = BankMapping::Wid;
        let map = BankMap::new(&cfg);
        assert_eq!(map.bank(3, 15), 3);
        assert_eq!(map.bank(3, 0), 3);
    }
}
