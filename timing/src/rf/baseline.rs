//! The baseline register file: single-ported banks holding whole warp registers at the rows
//! of their architectural numbers, one bank access per source operand and per register
//! written, collector units reading one operand per cycle (GPGPU-Sim's and the book's model).

use super::{BankMap, BankReq, IssueView, RegisterFilePolicy, TechniqueReport};
use crate::config::GpuConfig;

/// The baseline technique.
pub struct Baseline {
    map: BankMap,
}

impl Baseline {
    pub fn new(cfg: &GpuConfig) -> Baseline {
        Baseline {
            map: BankMap::new(cfg),
        }
    }
}

impl RegisterFilePolicy for Baseline {
    #[inline]
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        out.extend(
            i.decoded
                .reads
                .iter()
                .map(|&r| self.map.access(i.warp, r, false)),
        );
    }

    #[inline]
    fn plan_writes(&mut self, warp: u32, _uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        out.extend(regs.iter().map(|&r| self.map.access(warp, r, true)));
    }

    fn report(&self, _out: &mut TechniqueReport) {}
}
