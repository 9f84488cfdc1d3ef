//! The register-file seam: where register-file techniques plug into the SM pipeline.
//!
//! Two policies, chosen by configuration, decide everything the pipeline used to hard-wire
//! about registers:
//!
//! - a [`RegisterFilePolicy`] (`sm.rf.technique`) organises the collector units, sees every
//!   issued instruction (an [`IssueView`]) and plans its bank reads, plans the bank writes of
//!   every write-back, decides which requests may share a bank in one cycle and what a
//!   collector unit's port accepts, and hears of dispatches and scheduler demotions;
//! - a [`ResidencyPolicy`] (`sm.rf.residency`) admits CTAs, may hold an instruction at issue
//!   until its registers are available, and may suspend and resume CTAs.
//!
//! The pipeline calls each policy through an enum ([`RfPolicy`], [`Residency`]): one match per
//! event, nothing per lane, and a technique is one more variant, never a branch in a stage.
//!
//! Event order of one instruction (ARCHITECTURE.md draws it):
//! 1. issue: [`ResidencyPolicy::may_issue`]; the instruction executes functionally;
//!    [`RegisterFilePolicy::plan_reads`] turns its source registers into bank requests for a
//!    collector unit (a forwarded operand is simply not planned);
//! 2. operand collection, each cycle: the bank arbiter grants write-backs first, then reads,
//!    asking [`RegisterFilePolicy::bank_accepts`] and [`RegisterFilePolicy::port_accepts`];
//! 3. dispatch: [`RegisterFilePolicy::on_dispatch`];
//! 4. write-back: [`RegisterFilePolicy::plan_writes`] turns the results into bank writes,
//!    granted by the same arbiter ahead of reads; [`RegisterFilePolicy::drain_writes`] adds
//!    the writes the technique deferred, on the write ports left.
//!
//! And once per warp, when its CTA retires: [`RegisterFilePolicy::on_warp_retire`].
//!
//! Policies keep deterministic state (no hash-map iteration), and report in
//! [`RegisterFilePolicy::next_wake`] when they next need a cycle, so skipping idle cycles stays
//! exact.

mod bank;
mod baseline;
mod bow;
mod cmrc;
mod corf;
mod deferred;
mod finereg;
mod larf;
mod modern;
mod power;
mod regmutex;
mod residency;
mod rfc;
mod slumber;

pub use bank::{BankMap, sub_cores};
pub use baseline::Baseline;
pub use bow::{Bow, WritePolicy};
pub use cmrc::Cmrc;
pub use corf::{Corf, Placement};
pub use finereg::{FineReg, LiveInfo};
pub use larf::Larf;
pub use modern::Modern;
pub use power::Power;
pub use regmutex::{Fallback, RegMutex, RegMutexPlan, RegSplit, SplitInput, choose_split};
pub use residency::{Residency, ResidencyPolicy, StaticResidency};
pub use rfc::Rfc;
pub use slumber::{PowerState, Slumber};

use crate::collector::{CollectorLayout, RfStats};
use crate::config::{GpuConfig, Technique};
use crate::decode::Decoded;
use crate::energy::RfComponentCounts;
use emulator::exec::Target;
use emulator::stepper::{FrameBase, RegWrite};
use isa::FuncId;
use isa::hints::FunctionHints;
use serde::Serialize;
use std::collections::BTreeMap;

/// Byte slices of a 32-bit register (bit k = byte k of every lane).
pub const ALL_SLICES: u8 = 0b1111;

/// One bank access a policy asks for: a read into a collector unit or a write-back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BankReq {
    pub bank: u32,
    /// Row of the bank (the technique's physical register; the baseline's architectural one).
    pub row: u32,
    /// Byte slices accessed ([`ALL_SLICES`] for a whole register).
    pub slices: u8,
    pub write: bool,
    /// Source operands this one access delivers (2 when a technique coalesces two reads).
    pub operands: u8,
    /// The operand is forwarded from the collector unit's own storage, not read from the
    /// bank: it costs no access and waits only while an older instruction of the same unit is
    /// still reading register (`bank`, `row`) (BOW's bypassing operand collectors).
    pub forwarded: bool,
    /// The first cycle the bank may grant the read: the register is asleep and wakes up
    /// until then (Slumber, `sm.rf.power`); 0 when it is awake.
    pub ready_at: u64,
}

/// One issued warp instruction, as a technique sees it (after functional execution).
pub struct IssueView<'a> {
    /// Issue order of the instruction on its SM.
    pub uid: u64,
    /// The cycle it issued.
    pub now: u64,
    /// Warp slot and CTA slot on the SM.
    pub warp: u32,
    pub cta: u32,
    pub func: FuncId,
    pub pc: u32,
    /// Lanes active on the SIMT stack, those whose guard held, and the warp's lanes alive
    /// before the instruction (a write to fewer than `live` leaves other lanes' values).
    pub active: u32,
    pub exec: u32,
    pub live: u32,
    /// What the pipeline knows of the static instruction: unit, class, the 32-bit registers
    /// read from the register file (in operand order, each once), the registers written.
    pub decoded: &'a Decoded,
    /// The compiler's hints for the instruction's function (computed once per program):
    /// live sets, last-use bits (`hints.last_uses(pc)`, aligned with `decoded.reads`),
    /// loop weights and the register affinity graph. They use the function's own register
    /// numbers; `decoded` and `writes` are in the warp's register window, `frame.gpr` higher.
    pub hints: &'a FunctionHints,
    /// Where the executing call frame's registers start in the warp's register window.
    pub frame: FrameBase,
    /// The 32-bit registers written, with the width classes of the new values.
    pub writes: &'a [RegWrite],
    /// Each lane's memory target ([`Target::None`] for lanes without one).
    pub targets: &'a [Target],
}

/// Counters a policy reports, under its own name, into the statistics.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TechniqueReport {
    /// The policy's configuration name (`baseline`, `static`, ...).
    pub name: String,
    /// Its counters by name.
    pub counters: BTreeMap<String, u64>,
}

impl TechniqueReport {
    /// Whether it has neither a name nor a counter.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty() && self.counters.is_empty()
    }

    /// Adds `value` to counter `key`.
    pub fn add(&mut self, key: &str, value: u64) {
        *self.counters.entry(key.to_string()).or_default() += value;
    }

    /// Adds another SM's or kernel's counters.
    pub fn merge(&mut self, o: &TechniqueReport) {
        if self.name.is_empty() {
            self.name = o.name.clone();
        }
        for (k, v) in &o.counters {
            self.add(k, *v);
        }
    }
}

/// What a register-file technique decides. Every method but the planning ones has the
/// baseline's behaviour as its default.
pub trait RegisterFilePolicy {
    /// The bank reads the collector unit of an issued instruction must make, in the order it
    /// makes them. Operands the technique forwards without a bank access are left out.
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>);

    /// The bank writes of an instruction's write-back: `regs` are the 32-bit registers it
    /// writes (predicates excluded) in warp slot `warp`. A technique that defers or drops
    /// writes plans fewer.
    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>);

    /// How the SM's collector units are organised for this technique (asked once, when the SM
    /// is built): the configured pool by default.
    fn collector_layout(&self) -> CollectorLayout {
        CollectorLayout::Pooled
    }

    /// Whether `req` may access its bank this cycle alongside the requests already granted
    /// to that bank (write-backs first, then reads). The baseline's banks are single-ported.
    fn bank_accepts(&self, granted: &[BankReq], _req: &BankReq) -> bool {
        granted.is_empty()
    }

    /// Whether a collector unit's port takes `req` this cycle after `taken` (its grants so
    /// far this cycle). The baseline's collector units read one operand per cycle.
    fn port_accepts(&self, taken: &[BankReq], _req: &BankReq) -> bool {
        taken.is_empty()
    }

    /// Whether the technique serves the load `i` from registers (LARF): the LD/ST unit then
    /// makes no memory access for it. Asked for loads only, before [`Self::plan_reads`].
    fn serves_load(&mut self, _i: &IssueView) -> bool {
        false
    }

    /// Whether a load of `bytes` per lane at `targets` by lanes `exec` would be served from
    /// registers now ([`Self::serves_load`] without its effects, but counted): LAS's locality
    /// check.
    fn holds_load(&mut self, _targets: &[Target], _exec: u32, _bytes: u32) -> bool {
        false
    }

    /// Bank writes the technique makes on its own this cycle (deferred results, evictions),
    /// at most `ports` (the write ports write-backs left free); they go through the arbiter
    /// like write-backs.
    fn drain_writes(&mut self, _now: u64, _ports: u32, _out: &mut Vec<BankReq>) {}

    /// The instruction `uid` of warp slot `warp` left its collector unit for an execution unit.
    fn on_dispatch(&mut self, _warp: u32, _uid: u64) {}

    /// The two-level scheduler moved warp slot `warp` out of its active pool.
    fn on_demote(&mut self, _warp: u32) {}

    /// The warp in slot `warp` retired with its CTA at cycle `now` (every instruction of it
    /// written back): its registers are free.
    fn on_warp_retire(&mut self, _warp: u32, _now: u64) {}

    /// The first cycle after `now` at which the policy acts on its own, if any.
    fn next_wake(&self, _now: u64) -> Option<u64> {
        None
    }

    /// The technique's accesses per register-file component, for the energy model, given the
    /// arbiter's counters and the register-cycles the residency policy allocated. The
    /// baseline derives them from the bank accesses ([`RfComponentCounts::baseline`]).
    fn component_counts(
        &self,
        rf: &RfStats,
        sub_banks: u32,
        allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        RfComponentCounts::baseline(rf, sub_banks, allocated_register_cycles)
    }

    /// Adds the policy's counters to `out`.
    fn report(&self, out: &mut TechniqueReport);
}

/// The configured register-file technique (enum dispatch: one match per event).
pub enum RfPolicy {
    Baseline(Baseline),
    Cmrc(Cmrc),
    Corf(Corf),
    Bow(Bow),
    Rfc(Rfc),
    Larf(Larf),
    Modern(Modern),
}

/// Calls `$call` on whichever policy `$self` holds.
macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            RfPolicy::Baseline($p) => $call,
            RfPolicy::Cmrc($p) => $call,
            RfPolicy::Corf($p) => $call,
            RfPolicy::Bow($p) => $call,
            RfPolicy::Rfc($p) => $call,
            RfPolicy::Larf($p) => $call,
            RfPolicy::Modern($p) => $call,
        }
    };
}

impl RfPolicy {
    /// The technique `cfg.sm.rf.technique` for one SM.
    pub fn new(cfg: &GpuConfig) -> RfPolicy {
        match cfg.sm.rf.technique {
            Technique::Baseline => RfPolicy::Baseline(Baseline::new(cfg)),
            Technique::Cmrc => RfPolicy::Cmrc(Cmrc::new(cfg, false)),
            Technique::CmrcIdeal => RfPolicy::Cmrc(Cmrc::new(cfg, true)),
            Technique::Packing => RfPolicy::Corf(Corf::new(cfg, Placement::FirstFit)),
            Technique::Corf => RfPolicy::Corf(Corf::new(cfg, Placement::Pairs)),
            Technique::CorfPlusPlus => RfPolicy::Corf(Corf::new(cfg, Placement::Aligned)),
            Technique::Bow => RfPolicy::Bow(Bow::new(cfg, WritePolicy::Through, false)),
            Technique::BowWr => RfPolicy::Bow(Bow::new(cfg, WritePolicy::Back, false)),
            Technique::BowHalf => RfPolicy::Bow(Bow::new(cfg, WritePolicy::Back, true)),
            Technique::Rfc => RfPolicy::Rfc(Rfc::new(cfg)),
            Technique::Larf => RfPolicy::Larf(Larf::new(cfg, false)),
            Technique::LarfInfinite => RfPolicy::Larf(Larf::new(cfg, true)),
            Technique::Modern => RfPolicy::Modern(Modern::new(cfg)),
        }
    }

    /// The configuration name of the technique.
    pub fn name(&self) -> &'static str {
        match self {
            RfPolicy::Baseline(_) => "baseline",
            RfPolicy::Cmrc(c) if c.is_ideal() => "cmrc-ideal",
            RfPolicy::Cmrc(_) => "cmrc",
            RfPolicy::Corf(c) => match c.placement() {
                Placement::FirstFit => "packing",
                Placement::Pairs => "corf",
                Placement::Aligned => "corf++",
            },
            RfPolicy::Bow(b) => b.name(),
            RfPolicy::Rfc(_) => "rfc",
            RfPolicy::Larf(l) if l.is_infinite() => "larf-infinite",
            RfPolicy::Larf(_) => "larf",
            RfPolicy::Modern(_) => "modern",
        }
    }
}

impl RegisterFilePolicy for RfPolicy {
    #[inline]
    fn plan_reads(&mut self, i: &IssueView, out: &mut Vec<BankReq>) {
        dispatch!(self, p => p.plan_reads(i, out))
    }
    #[inline]
    fn plan_writes(&mut self, warp: u32, uid: u64, regs: &[u32], out: &mut Vec<BankReq>) {
        dispatch!(self, p => p.plan_writes(warp, uid, regs, out))
    }
    fn collector_layout(&self) -> CollectorLayout {
        dispatch!(self, p => p.collector_layout())
    }
    #[inline]
    fn bank_accepts(&self, granted: &[BankReq], req: &BankReq) -> bool {
        dispatch!(self, p => p.bank_accepts(granted, req))
    }
    #[inline]
    fn port_accepts(&self, taken: &[BankReq], req: &BankReq) -> bool {
        dispatch!(self, p => p.port_accepts(taken, req))
    }
    fn component_counts(
        &self,
        rf: &RfStats,
        sub_banks: u32,
        allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        dispatch!(self, p => p.component_counts(rf, sub_banks, allocated_register_cycles))
    }
    #[inline]
    fn serves_load(&mut self, i: &IssueView) -> bool {
        dispatch!(self, p => p.serves_load(i))
    }
    fn holds_load(&mut self, targets: &[Target], exec: u32, bytes: u32) -> bool {
        dispatch!(self, p => p.holds_load(targets, exec, bytes))
    }
    #[inline]
    fn drain_writes(&mut self, now: u64, ports: u32, out: &mut Vec<BankReq>) {
        dispatch!(self, p => p.drain_writes(now, ports, out))
    }
    #[inline]
    fn on_dispatch(&mut self, warp: u32, uid: u64) {
        dispatch!(self, p => p.on_dispatch(warp, uid))
    }
    #[inline]
    fn on_demote(&mut self, warp: u32) {
        dispatch!(self, p => p.on_demote(warp))
    }
    #[inline]
    fn on_warp_retire(&mut self, warp: u32, now: u64) {
        dispatch!(self, p => p.on_warp_retire(warp, now))
    }
    #[inline]
    fn next_wake(&self, now: u64) -> Option<u64> {
        dispatch!(self, p => p.next_wake(now))
    }
    fn report(&self, out: &mut TechniqueReport) {
        out.name = self.name().to_string();
        dispatch!(self, p => p.report(out))
    }
}
