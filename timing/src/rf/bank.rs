//! Where a warp register lives: the bank mapping of `sm.rf.mapping`, within the banks of the
//! warp's sub-core (`sm.sub_cores`: each scheduler owns `banks / schedulers` consecutive banks,
//! and a warp's registers stay in its scheduler's; without sub-cores every bank is every
//! warp's).

use super::{ALL_SLICES, BankReq};
use crate::config::{BankMapping, GpuConfig};

/// Maps (warp slot, register) to a bank.
#[derive(Clone, Copy, Debug)]
pub struct BankMap {
    /// Banks a warp's registers spread over (its sub-core's), and the sub-cores.
    banks: u32,
    sub_cores: u32,
    mapping: BankMapping,
}

impl BankMap {
    pub fn new(cfg: &GpuConfig) -> BankMap {
        BankMap::with_mapping(cfg, cfg.sm.rf.mapping)
    }

    /// `cfg`'s banks under `mapping` (a technique that brings its own mapping).
    pub fn with_mapping(cfg: &GpuConfig, mapping: BankMapping) -> BankMap {
        let sub_cores = sub_cores(cfg);
        BankMap {
            banks: cfg.sm.rf.banks / sub_cores,
            sub_cores,
            mapping,
        }
    }

    /// The banks one warp's registers spread over: all of them, or its sub-core's.
    pub fn banks_per_warp(&self) -> u32 {
        self.banks
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

    /// Bank of register `reg` of the warp in slot `warp`: GPGPU-Sim's mapping within the
    /// banks of the warp's sub-core (its scheduler's, `warp mod schedulers`).
    #[inline]
    pub fn bank(&self, warp: u32, reg: u32) -> u32 {
        let within = match self.mapping {
            BankMapping::Wshift => (reg + warp) % self.banks,
            BankMapping::Wid => warp % self.banks,
        };
        (warp % self.sub_cores) * self.banks + within
    }
}

/// The SM's sub-cores: its schedulers with `sm.sub_cores`, one otherwise.
pub fn sub_cores(cfg: &GpuConfig) -> u32 {
    if cfg.sm.sub_cores {
        cfg.sm.schedulers
    } else {
        1
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

    #[test]
    fn sub_cores_keep_a_warps_registers_in_its_schedulers_banks() {
        // 16 banks, 4 schedulers: banks 4s..4s+3 are scheduler s's; warp w is scheduler
        // w mod 4's, and its register r is in bank (r + w) mod 4 of those.
        let mut cfg = GpuConfig::preset("v100");
        cfg.sm.sub_cores = true;
        let map = BankMap::new(&cfg);
        assert_eq!(map.banks_per_warp(), 4);
        assert_eq!(map.bank(0, 0), 0);
        assert_eq!(map.bank(0, 5), 1);
        assert_eq!(map.bank(1, 0), 5);
        assert_eq!(map.bank(6, 3), 8 + 1);
        assert_eq!(map.bank(7, 9), 12);
        cfg.sm.rf.mapping = BankMapping::Wid;
        let map = BankMap::new(&cfg);
        assert_eq!(map.bank(6, 3), 8 + 2);
        assert_eq!(map.bank(6, 4), 8 + 2);
    }
}
