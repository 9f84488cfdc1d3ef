//! Statistics of a timed kernel: names follow GPGPU-Sim's where one exists (`gpu_sim_cycle`,
//! `gpu_sim_insn` counting thread instructions, `gpu_ipc`), so numbers can be compared.

use crate::collector::RfStats;
use crate::decode::OpClass;
use crate::energy::{EnergyReport, RfComponentCounts};
use crate::memory::{CachePowerReport, MemStats};
use crate::occupancy::Occupancy;
use crate::rf::TechniqueReport;
use serde::Serialize;

/// Counts by width class: index 0 holds values that fit in 1 byte, ..., index 3 in 4 bytes.
pub type WidthHistogram = [u64; 4];

/// Register reads and writes by width class, over all lanes and over active lanes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WidthStats {
    pub reads_all_lanes: WidthHistogram,
    pub reads_active_lanes: WidthHistogram,
    pub writes_all_lanes: WidthHistogram,
    pub writes_active_lanes: WidthHistogram,
}

impl WidthStats {
    pub fn merge(&mut self, o: &WidthStats) {
        for (a, b) in [
            (&mut self.reads_all_lanes, &o.reads_all_lanes),
            (&mut self.reads_active_lanes, &o.reads_active_lanes),
            (&mut self.writes_all_lanes, &o.writes_all_lanes),
            (&mut self.writes_active_lanes, &o.writes_active_lanes),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }

    /// Reads and writes (all lanes) together.
    pub fn accesses_all_lanes(&self) -> WidthHistogram {
        let mut h = self.reads_all_lanes;
        for (x, y) in h.iter_mut().zip(&self.writes_all_lanes) {
            *x += y;
        }
        h
    }
}

/// Why a scheduler issued nothing in a cycle (the most advanced reason among its warps).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StallStats {
    /// Cycles × schedulers with an issue.
    pub issued: u64,
    /// No free collector unit (or, through full collectors, a busy execution or memory unit).
    pub structural: u64,
    /// Waiting on a register being written (scoreboard).
    pub data: u64,
    /// Instruction buffer empty: fetch, I-cache miss, or refetch after a branch.
    pub fetch: u64,
    /// Every warp with work waits at a barrier.
    pub barrier: u64,
    /// No warp to schedule.
    pub idle: u64,
    /// The residency policy held the instruction until its registers are available.
    pub registers: u64,
}

impl StallStats {
    pub fn merge(&mut self, o: &StallStats) {
        self.issued += o.issued;
        self.structural += o.structural;
        self.data += o.data;
        self.fetch += o.fetch;
        self.barrier += o.barrier;
        self.idle += o.idle;
        self.registers += o.registers;
    }

    /// Every outcome counted: one per scheduler per cycle.
    pub fn outcomes(&self) -> u64 {
        self.issued
            + self.structural
            + self.data
            + self.fetch
            + self.barrier
            + self.idle
            + self.registers
    }
}

/// Memory-pipeline counters of the SMs (the caches' own counters are in [`MemStats`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LdStStats {
    /// Global and local memory instructions, and the transactions (lines) and sectors their
    /// warps' accesses coalesced into.
    pub global_requests: u64,
    pub global_transactions: u64,
    pub global_sectors: u64,
    pub shared_requests: u64,
    /// Extra passes bank conflicts cost (0 when conflict-free).
    pub shared_replays: u64,
    pub constant_requests: u64,
}

impl LdStStats {
    pub fn merge(&mut self, o: &LdStStats) {
        self.global_requests += o.global_requests;
        self.global_transactions += o.global_transactions;
        self.global_sectors += o.global_sectors;
        self.shared_requests += o.shared_requests;
        self.shared_replays += o.shared_replays;
        self.constant_requests += o.constant_requests;
    }
}

/// Per-opcode-class counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassStats {
    pub class: &'static str,
    pub warp_insts: u64,
    pub widths: WidthStats,
}

/// Everything measured for one kernel (or, merged, for several).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TimingStats {
    pub kernel: String,
    pub config: String,
    pub gpu_sim_cycle: u64,
    /// Thread instructions (every active lane, predicated off or not).
    pub gpu_sim_insn: u64,
    /// Thread instructions per cycle.
    pub gpu_ipc: f64,
    pub warp_insts: u64,
    pub ctas: u64,
    pub occupancy: Option<Occupancy>,
    /// Resident warps averaged over cycles, as a fraction of the SM maximum, over all SMs.
    pub achieved_occupancy: f64,
    pub resident_warp_cycles: u64,
    pub divergent_branches: u64,
    pub reconvergences: u64,
    pub max_simt_depth: usize,
    /// Active lanes per issued warp instruction.
    pub avg_active_lanes: f64,
    pub stalls: StallStats,
    pub rf: RfStats,
    /// The register-file technique's own counters, under its name.
    pub technique: TechniqueReport,
    /// The residency policy's own counters, under its name.
    pub residency: TechniqueReport,
    /// The CTA scheduler's own counters (PAVER's analysis, graph and stealing), under its
    /// name; absent from the JSON for the schedulers that keep none.
    #[serde(skip_serializing_if = "TechniqueReport::is_empty")]
    pub cta_scheduler: TechniqueReport,
    /// The register power-management policy's counters (`sm.rf.power`), under its name;
    /// absent without one.
    #[serde(skip_serializing_if = "TechniqueReport::is_empty")]
    pub power: TechniqueReport,
    /// What the register file did per component (what the energy model multiplies).
    pub rf_counts: RfComponentCounts,
    /// Register-file energy (and coarse ALU and DRAM estimates), in pJ.
    pub energy: EnergyReport,
    pub widths: WidthStats,
    pub by_class: Vec<ClassStats>,
    /// Warp instructions by number of register-file source operands (0, 1, 2, 3, 4 or more).
    pub insts_by_sources: [u64; 5],
    pub ldst: LdStStats,
    pub mem: MemStats,
    /// Snooze's power states and leakage of the L1 and L2 data arrays; absent from the JSON
    /// when `mem.snooze.gating` is off.
    #[serde(skip_serializing_if = "CachePowerReport::is_empty")]
    pub cache_power: CachePowerReport,
    /// What ran functionally, not timed (sampling, [`crate::gpu::TimedCtas`]); absent from
    /// the JSON when everything was timed.
    #[serde(skip_serializing_if = "Untimed::is_empty")]
    pub untimed: Untimed,
    /// Host time and simulation speed: not serialized, so the statistics of two runs of the
    /// same input are byte-identical JSON (`warpsim run --host-times` writes them apart).
    #[serde(skip)]
    pub host: HostSpeed,
}

/// The part of a run that sampling left untimed: executed functionally (its results are in
/// memory), but in no cycle and no other statistic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Untimed {
    /// Launches of which no CTA was timed.
    pub launches: u64,
    pub ctas: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
}

impl Untimed {
    pub fn is_empty(&self) -> bool {
        *self == Untimed::default()
    }

    pub fn merge(&mut self, o: &Untimed) {
        self.launches += o.launches;
        self.ctas += o.ctas;
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
    }
}

/// How long the host took to simulate, and how fast that was: the only figures that differ
/// between two runs of the same input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct HostSpeed {
    pub wall_seconds: f64,
    pub warp_insts_per_second: f64,
    pub cycles_per_second: f64,
}

impl TimingStats {
    /// Per-class counters, one entry per [`OpClass`].
    pub fn empty_classes() -> Vec<ClassStats> {
        OpClass::ALL
            .iter()
            .map(|c| ClassStats {
                class: c.name(),
                ..ClassStats::default()
            })
            .collect()
    }

    /// The share of the executed warp instructions that was timed (1 unless sampled).
    pub fn timed_share(&self) -> f64 {
        let all = self.warp_insts + self.untimed.warp_insts;
        self.warp_insts as f64 / all.max(1) as f64
    }

    /// Derived ratios (IPC, speeds) from the counters.
    pub fn finish(&mut self, sm_count: u32, max_warps: u32) {
        let cycles = self.gpu_sim_cycle.max(1) as f64;
        self.gpu_ipc = self.gpu_sim_insn as f64 / cycles;
        self.avg_active_lanes = self.gpu_sim_insn as f64 / self.warp_insts.max(1) as f64;
        self.achieved_occupancy =
            self.resident_warp_cycles as f64 / (cycles * f64::from(sm_count * max_warps));
        let host = &mut self.host;
        if host.wall_seconds > 0.0 {
            host.warp_insts_per_second = self.warp_insts as f64 / host.wall_seconds;
            host.cycles_per_second = self.gpu_sim_cycle as f64 / host.wall_seconds;
        }
    }

    /// Adds a later kernel's statistics (cycles add up: kernels run one after another).
    pub fn merge(&mut self, o: &TimingStats, sm_count: u32, max_warps: u32) {
        if self.kernel.is_empty() {
            self.kernel = o.kernel.clone();
        } else if self.kernel != o.kernel && !self.kernel.ends_with("(all kernels)") {
            self.kernel = "(all kernels)".into();
        }
        self.config = o.config.clone();
        self.gpu_sim_cycle += o.gpu_sim_cycle;
        self.ctas += o.ctas;
        if self.occupancy.is_none() {
            self.occupancy = o.occupancy;
        }
        self.divergent_branches += o.divergent_branches;
        self.reconvergences += o.reconvergences;
        self.max_simt_depth = self.max_simt_depth.max(o.max_simt_depth);
        self.add_pipeline_counters(o);
        self.mem.merge(&o.mem);
        self.energy.merge(&o.energy);
        self.untimed.merge(&o.untimed);
        self.host.wall_seconds += o.host.wall_seconds;
        self.finish(sm_count, max_warps);
    }
}

impl TimingStats {
    /// Adds the counters an SM's pipeline keeps (instructions, stalls, register file, widths,
    /// per-class counts, sources, LD/ST): how SMs sum into a kernel and kernels into a total.
    pub fn add_pipeline_counters(&mut self, o: &TimingStats) {
        self.warp_insts += o.warp_insts;
        self.gpu_sim_insn += o.gpu_sim_insn;
        self.resident_warp_cycles += o.resident_warp_cycles;
        self.stalls.merge(&o.stalls);
        self.rf.merge(&o.rf);
        self.technique.merge(&o.technique);
        self.residency.merge(&o.residency);
        self.cta_scheduler.merge(&o.cta_scheduler);
        self.power.merge(&o.power);
        self.cache_power.merge(&o.cache_power);
        self.rf_counts.merge(&o.rf_counts);
        self.widths.merge(&o.widths);
        if self.by_class.is_empty() {
            self.by_class = TimingStats::empty_classes();
        }
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            a.warp_insts += b.warp_insts;
            a.widths.merge(&b.widths);
        }
        for (a, b) in self.insts_by_sources.iter_mut().zip(&o.insts_by_sources) {
            *a += b;
        }
        self.ldst.merge(&o.ldst);
    }
}

/// Percentages of a histogram.
pub fn shares(h: &WidthHistogram) -> [f64; 4] {
    let total: u64 = h.iter().sum();
    let mut out = [0.0; 4];
    if total > 0 {
        for (o, v) in out.iter_mut().zip(h) {
            *o = 100.0 * *v as f64 / total as f64;
        }
    }
    out
}
