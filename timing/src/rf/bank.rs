//! Where a warp register lives: the bank mapping of `sm.rf.mapping`.

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
