//! The timing summary `warpsim run` prints, and the JSON it writes with `--stats-json` (timing
//! or functional statistics).

use runtime::TimingReport;
use timing::TimingStats;
use timing::stats::shares;

/// Prints the summary of one sample's timed launches.
pub(crate) fn print_summary(r: &TimingReport) {
    print_summary_as(r, &format!("timing ({})", r.total.config));
}

/// [`print_summary`] with its first line headed `heading` instead of `timing (CONFIG)` (the
/// per-launch summaries of a chain: scripts that read `timing (CONFIG): N cycles` find the
/// total alone).
pub(crate) fn print_summary_as(r: &TimingReport, heading: &str) {
    let t = &r.total;
    println!(
        "  {heading}: {} cycles, IPC {:.1} thread-instructions/cycle ({:.2} warp-instructions/cycle), {} kernel launch(es)",
        t.gpu_sim_cycle,
        t.gpu_ipc,
        t.warp_insts as f64 / t.gpu_sim_cycle.max(1) as f64,
        r.kernels.len()
    );
    let u = &t.untimed;
    if !u.is_empty() {
        println!(
            "  sampled: {:.2}% of the warp instructions timed; {} CTAs ran functionally, untimed ({} warp instructions; {} launch(es) wholly)",
            100.0 * t.timed_share(),
            u.ctas,
            u.warp_insts,
            u.launches
        );
    }
    if let Some(o) = t.occupancy {
        println!(
            "  occupancy: {} CTAs/SM of {} warps ({} registers/thread, {} allocated), limited by {}; achieved {:.1}% of the SM's warps",
            o.ctas_per_sm,
            o.warps_per_cta,
            o.regs_needed,
            o.regs_per_thread,
            o.limiter,
            100.0 * t.achieved_occupancy
        );
    }
    let st = &t.stalls;
    let total = st.outcomes().max(1) as f64;
    let pct = |x: u64| 100.0 * x as f64 / total;
    // Only a residency policy that holds instructions (RegMutex) has the last outcome.
    let registers = if st.registers > 0 {
        format!(", registers {:.1}%", pct(st.registers))
    } else {
        String::new()
    };
    println!(
        "  scheduler cycles: issued {:.1}%, data {:.1}%, structural {:.1}%, fetch {:.1}%, barrier {:.1}%, idle {:.1}%{registers}",
        pct(st.issued),
        pct(st.data),
        pct(st.structural),
        pct(st.fetch),
        pct(st.barrier),
        pct(st.idle)
    );
    for (kind, report) in [
        ("technique", &t.technique),
        ("residency", &t.residency),
        ("power", &t.power),
    ] {
        if report.counters.is_empty() {
            continue;
        }
        let counters: Vec<String> = report
            .counters
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("  {kind} ({}): {}", report.name, counters.join(", "));
    }
    let rf = &t.rf;
    println!(
        "  register file: {} reads, {} writes, {} bank conflicts ({:.3} per read), {:.2} cycles in collectors per instruction",
        rf.reads,
        rf.writes,
        rf.bank_conflicts,
        rf.bank_conflicts as f64 / rf.reads.max(1) as f64,
        rf.collector_wait_cycles as f64 / t.warp_insts.max(1) as f64
    );
    let e = &t.energy;
    // Bank accesses and their slice activations make one share here (a baseline access is
    // the seed's whole per-access figure); the JSON keeps them apart.
    let banks = e.bank_pj + e.slice_pj;
    let parts: Vec<String> = [
        ("banks", banks),
        ("collectors", e.collector_pj),
        ("renaming", e.rename_pj),
        ("crossbar", e.crossbar_pj),
    ]
    .iter()
    .filter(|(_, pj)| *pj > 0.0)
    .map(|(name, pj)| format!("{name} {:.1}%", 100.0 * pj / e.rf_dynamic_pj))
    .collect();
    println!(
        "  register-file energy: dynamic {} ({}), leakage {}, total {}; {:.1} pJ per warp instruction (coarse, outside the RF: ALU {}, DRAM {})",
        energy(e.rf_dynamic_pj),
        parts.join(", "),
        energy(e.rf_leakage_pj),
        energy(e.rf_total_pj),
        e.rf_total_pj / t.warp_insts.max(1) as f64,
        energy(e.alu_estimate_pj),
        energy(e.dram_estimate_pj)
    );
    let w = &t.widths;
    let fmt = |h: &[u64; 4]| {
        let s = shares(h);
        format!(
            "1 B {:.1}%, 2 B {:.1}%, 3 B {:.1}%, 4 B {:.1}%",
            s[0], s[1], s[2], s[3]
        )
    };
    println!(
        "  operand widths (reads and writes, all lanes): {}",
        fmt(&w.accesses_all_lanes())
    );
    println!(
        "  operand widths (reads, active lanes): {}",
        fmt(&w.reads_active_lanes)
    );
    let m = &t.mem;
    let ld = &t.ldst;
    println!(
        "  memory: L1D hit rate {:.1}%, L2 hit rate {:.1}%, DRAM {:.2} MB read, {:.2} MB written; {:.2} sectors per global request; {} shared-memory replays; {:.0} cycles from an L1 access to its reply from below",
        100.0 * m.l1d_hit_rate(),
        100.0 * m.l2_hit_rate(),
        m.dram_reads_bytes as f64 / 1e6,
        m.dram_writes_bytes as f64 / 1e6,
        ld.global_sectors as f64 / ld.global_requests.max(1) as f64,
        ld.shared_replays,
        m.average_fetch_latency()
    );
    println!(
        "  DRAM: bandwidth utilisation {:.1}%, row-buffer hit rate {:.1}% ({} activates), average read latency {:.0} cycles",
        100.0 * m.dram_bandwidth_utilisation(),
        100.0 * m.dram_row_hit_rate(),
        m.dram_activates,
        m.dram_average_read_latency()
    );
    let p = &t.cache_power;
    if !p.is_empty() {
        // Snooze (mem.snooze): each level's leakage left, of every unit ON, and its states.
        let level = |l: &timing::memory::power::LevelPower| {
            let c = &l.cycles;
            let all = c.unit_cycles().max(1) as f64;
            format!(
                "{:.1}% leakage left (ON {:.1}%, Sleep {:.1}%, OFF {:.1}%; {} wake-up stall cycles)",
                100.0 * l.leakage_remaining(),
                100.0 * c.on as f64 / all,
                100.0 * c.sleep as f64 / all,
                100.0 * c.off as f64 / all,
                c.wake_stall_cycles
            )
        };
        println!(
            "  Snooze ({} gating): L1 {}; L2 {}",
            p.gating,
            level(&p.l1),
            level(&p.l2)
        );
    }
    println!(
        "  simulation: {:.3} s, {:.2} M warp-instructions/s, {:.2} M cycles/s",
        t.host.wall_seconds,
        t.host.warp_insts_per_second / 1e6,
        t.host.cycles_per_second / 1e6
    );
}

/// Picojoules in the largest unit that keeps the figure at least 1 (pJ, nJ, µJ, mJ, J).
pub(crate) fn energy(pj: f64) -> String {
    let mut v = pj;
    for unit in ["pJ", "nJ", "µJ", "mJ"] {
        if v.abs() < 1000.0 {
            return format!("{v:.2} {unit}");
        }
        v /= 1000.0;
    }
    format!("{v:.2} J")
}

/// One sample's statistics in the `--stats-json` file.
#[derive(serde::Serialize)]
pub(crate) struct SampleStats<'a> {
    pub sample: &'a str,
    /// The PTX set the sample's PTX came from (`warpsim run --ptx-set`); absent for the
    /// committed PTX, so files of committed runs stay as they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptx_set: Option<&'a str>,
    pub total: &'a TimingStats,
    pub kernels: &'a [TimingStats],
    /// The host's time and speed for the whole sample, with `--host-times` only (the rest of
    /// the file is identical from run to run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<timing::stats::HostSpeed>,
}

/// One sample's statistics in the `--stats-json` file of a functional run: the engine's
/// counters summed over the sample's launches.
#[derive(serde::Serialize)]
pub(crate) struct FunctionalSampleStats<'a> {
    pub sample: &'a str,
    /// As [`SampleStats::ptx_set`] (set after [`FunctionalSampleStats::new`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptx_set: Option<&'a str>,
    pub mode: &'static str,
    pub engine: &'static str,
    pub passed: bool,
    pub launches: u64,
    pub ctas: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub divergent_branches: u64,
    pub reconvergences: u64,
    pub max_simt_depth: usize,
    /// The most instructions any one warp executed, to compare with the warp budget.
    pub max_warp_insts: u64,
    /// How the JIT executed the warp instructions (JIT engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jit: Option<JitSplit>,
    /// Wall-clock figures, with `--host-times` only (the rest of the file is identical from
    /// run to run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<FunctionalHostTimes>,
}

/// The JIT's split of warp instructions (see `emulator::LaunchStats`).
#[derive(serde::Serialize)]
pub(crate) struct JitSplit {
    pub compiled: u64,
    pub inline: u64,
    pub alu_helper: u64,
    pub warp_helper: u64,
    pub engine: u64,
    pub fallback: u64,
}

/// A functional run's host time.
#[derive(serde::Serialize)]
pub(crate) struct FunctionalHostTimes {
    pub kernel_seconds: f64,
    pub compile_seconds: f64,
    pub thread_insts_per_second: f64,
}

impl<'a> FunctionalSampleStats<'a> {
    pub fn new(
        sample: &'a str,
        engine: emulator::Engine,
        outcome: &warpsim::sample::Outcome,
        host_times: bool,
    ) -> Self {
        let st = &outcome.stats;
        let jit = engine == emulator::Engine::Jit;
        FunctionalSampleStats {
            sample,
            ptx_set: None,
            mode: "functional",
            engine: if jit { "jit" } else { "interpreter" },
            passed: outcome.validation.passed(),
            launches: outcome.launches,
            ctas: st.ctas,
            warp_insts: st.warp_insts,
            thread_insts: st.thread_insts,
            divergent_branches: st.divergent_branches,
            reconvergences: st.reconvergences,
            max_simt_depth: st.max_simt_depth,
            max_warp_insts: st.max_warp_insts,
            jit: jit.then_some(JitSplit {
                compiled: st.jit_insts,
                inline: st.jit_inline,
                alu_helper: st.jit_alu_helper,
                warp_helper: st.jit_warp_helper,
                engine: st.engine_insts,
                fallback: st.fallback_insts,
            }),
            host: host_times.then(|| FunctionalHostTimes {
                kernel_seconds: outcome.kernel_seconds,
                compile_seconds: outcome.compile_seconds,
                thread_insts_per_second: st.thread_insts as f64 / outcome.kernel_seconds.max(1e-9),
            }),
        }
    }
}
