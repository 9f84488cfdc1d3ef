//! The GPU: SMs, the CTA scheduler, the shared memory system, and the cycle loop of a launch.
//!
//! A [`Gpu`] lives as long as the device: L2 contents persist from kernel to kernel, while the
//! SMs' caches are invalidated at each launch. Kernels run one after another; each launch
//! returns its statistics, and [`Gpu::total`] accumulates them.

use crate::config::GpuConfig;
use crate::cta_scheduler::{CtaDispatcher, CtaRoom, CtaSchedulerPolicy, CtaSlots};
use crate::decode::DecodedProgram;
use crate::energy::EnergyReport;
use crate::memory::{CachePowerReport, MemStats, MemorySystem, SmMemory};
use crate::occupancy::{CtaDemand, DoesNotFit, Occupancy, occupancy};
use crate::paver::PaverPlan;
use crate::paver::guru::LaunchShape;
use crate::rf::TechniqueReport;
use crate::sm::{CtaSource, Sm};
use crate::stats::{TimingStats, Untimed};
use crate::trace::{Recording, SmTrace, TimelineSample, TimelineSampler, Trace};
use emulator::{Fault, GlobalMemory, Program};
use isa::FuncId;
use std::time::Instant;

/// Why a timed launch stopped.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The kernel faulted (functional error: bad address, barrier deadlock, budget, ...).
    #[error("{0}")]
    Fault(Box<Fault>),
    #[error("{0}")]
    DoesNotFit(#[from] DoesNotFit),
    /// The launch ran past its wall-clock limit.
    #[error(
        "wall-clock limit of {} s exceeded at cycle {cycle} (raise it with --time-limit)",
        limit.as_secs_f64()
    )]
    TimeLimit {
        limit: std::time::Duration,
        cycle: u64,
    },
    /// No instruction issued anywhere for too long: a timing-model deadlock.
    #[error(
        "timing deadlock: no instruction issued for {idle} cycles (at cycle {cycle}; gpu.watchdog_cycles); warps: {detail}"
    )]
    Watchdog {
        cycle: u64,
        idle: u64,
        detail: String,
    },
}

/// A kernel launch for the timing model.
pub struct TimedLaunch<'a> {
    pub program: &'a Program,
    pub kernel: FuncId,
    pub mem: &'a GlobalMemory,
    pub params: &'a [u8],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u64,
    /// Most instructions one warp may execute (see `emulator::DEFAULT_WARP_BUDGET`).
    pub warp_budget: u64,
    /// The wall-clock limit and progress heartbeat.
    pub wall_clock: emulator::watch::WallClock,
    /// Registers per thread for occupancy, if not the register allocator's count (for example
    /// `ptxas`'s).
    pub regs_per_thread: Option<u32>,
    /// What executes each instruction at issue: the JIT (compiled one instruction at a time)
    /// or the interpreter. Every statistic is the same either way.
    pub engine: emulator::Engine,
    /// The CTAs simulated cycle by cycle; the others run functionally once those have drained.
    pub timed: TimedCtas,
    /// Host threads running the CTAs that are not timed (at least 1).
    pub host_threads: usize,
    /// Host threads running the SMs' cycles (at least 1; no more than the SMs are used). The
    /// statistics and results are the same for every count (docs/timing.md, "Parallel timing
    /// and memory semantics").
    pub sm_threads: usize,
}

/// Which CTAs of a launch the timing model simulates (sampling, for runs too long to time
/// whole). The CTAs not timed run functionally after the timed ones have drained, in a schedule
/// CUDA allows, so the launch's results are complete; their instructions are counted in
/// [`TimingStats::untimed`] and cost no cycles. Which CTAs are timed depends only on the
/// launch and the GPU's shape, never on timing, so every register-file technique times the
/// same ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimedCtas {
    /// Every CTA.
    #[default]
    All,
    /// The first waves, in CTA order: `n` × SMs × the kernel's CTAs per SM (at least 1).
    Waves(u32),
    /// None: the launch runs functionally.
    None,
}

impl TimedCtas {
    /// How many of `total` CTAs are timed, a wave being `per_wave` CTAs.
    fn count(self, total: u64, per_wave: u64) -> u64 {
        match self {
            TimedCtas::All => total,
            TimedCtas::Waves(n) => (u64::from(n.max(1)) * per_wave).min(total),
            TimedCtas::None => 0,
        }
    }
}

/// The simulated GPU.
pub struct Gpu {
    pub cfg: GpuConfig,
    l2: MemorySystem,
    /// Cycles simulated so far over every launch: the memory system's clock, which launches
    /// continue (its queues hold timestamps).
    cycle: u64,
    /// Statistics of every launch so far, in order.
    pub kernels: Vec<TimingStats>,
    /// All launches together.
    pub total: TimingStats,
    /// What is recorded besides the statistics, and what has been so far.
    recording: Recording,
    recorded: Option<Trace>,
}

/// `cfg` with the L1 its carve-out gives a launch whose CTAs need `shared_bytes` each
/// ([`crate::config::CarveoutConfig`]): the CTAs resident per SM are the occupancy's, or fewer
/// when the grid does not fill every SM (as GPGPU-Sim counts them).
fn carved<'c>(
    cfg: &'c GpuConfig,
    occ: &Occupancy,
    shared_bytes: u64,
    grid: [u32; 3],
) -> std::borrow::Cow<'c, GpuConfig> {
    let Some(carveout) = &cfg.mem.carveout else {
        return std::borrow::Cow::Borrowed(cfg);
    };
    let ctas = emulator::launch::grid_ctas(grid);
    let resident = u64::from(occ.ctas_per_sm).min(ctas.div_ceil(u64::from(cfg.gpu.sms)));
    let mut carved = cfg.clone();
    carved.mem.l1d.ways = carveout.l1_ways(&cfg.mem.l1d, shared_bytes * resident);
    std::borrow::Cow::Owned(carved)
}

impl Gpu {
    pub fn new(cfg: GpuConfig) -> Gpu {
        Gpu {
            l2: MemorySystem::new(&cfg),
            cycle: 0,
            cfg,
            kernels: Vec::new(),
            total: TimingStats::default(),
            recording: Recording::default(),
            recorded: None,
        }
    }

    /// Records a trace or a timeline of the launches from now on (see [`crate::trace`]); what
    /// was recorded so far is dropped.
    pub fn record(&mut self, recording: Recording) {
        self.recorded = recording
            .any()
            .then(|| Trace::new(recording.trace.clone().unwrap_or_default(), &self.cfg.name));
        self.recording = recording;
    }

    /// What was recorded since [`Gpu::record`] or the last call (`None` when nothing is).
    pub fn take_recording(&mut self) -> Option<Trace> {
        let recording = self.recording.clone();
        let taken = self.recorded.take();
        self.record(recording);
        taken
    }

    /// Runs one kernel launch to completion, cycle by cycle.
    pub fn launch(&mut self, l: &TimedLaunch) -> Result<TimingStats, SimError> {
        let started = Instant::now();
        let cfg = &self.cfg;
        let program = l.program;
        let launch = emulator::launch::LaunchEnv::new(
            program,
            l.kernel,
            l.mem,
            l.params,
            l.grid,
            l.block,
            l.dynamic_shared,
        );
        let threads = l.block.iter().product::<u32>();
        let allocated = program.kernel_registers(l.kernel);
        let demand = CtaDemand {
            threads,
            regs_per_thread: l.regs_per_thread.unwrap_or(allocated),
            shared_bytes: launch.shared_bytes(),
        };
        let occ: Occupancy = occupancy(cfg, demand)?;
        let jit = emulator::launch::compiled(
            program,
            l.kernel,
            l.mem,
            l.engine,
            emulator::jit::Granularity::Instructions,
        )
        .map_err(SimError::Fault)?;
        let code = DecodedProgram::new(program, cfg);
        let residency = crate::rf::Residency::for_launch(cfg, &occ, program, l.kernel);
        let source = CtaSource {
            launch,
            warp_budget: l.warp_budget,
            jit,
            warps_per_cta: occ.warps_per_cta,
        };
        let mut sms: Vec<Sm> = (0..cfg.gpu.sms)
            .map(|i| {
                let r = if i == 0 {
                    residency.clone()
                } else {
                    residency.for_another_sm()
                };
                let mut sm = Sm::new(i, cfg, &code, program, r);
                sm.set_source(&source);
                sm
            })
            .collect();
        if let Some(opts) = &self.recording.trace {
            let cap = (opts.max_events / sms.len().max(1)).max(1);
            let tracks = cfg.sm.max_warps.max(cfg.sm.max_ctas) as usize;
            for sm in &mut sms {
                sm.trace = Some(Box::new(SmTrace::new(opts.window.clone(), cap, tracks)));
            }
        }
        let memory_cfg = carved(cfg, &occ, demand.shared_bytes, l.grid);
        let mut sm_mem: Vec<SmMemory> = (0..cfg.gpu.sms)
            .map(|_| SmMemory::starting_at(&memory_cfg, self.cycle))
            .collect();
        let l2_before = self.l2.stats().clone();
        // Snooze: the L2's power states before this launch (`None` when off).
        let l2_power_before = self.l2.power_totals(self.cycle);
        let timed_ctas = l.timed.count(
            emulator::launch::grid_ctas(l.grid),
            u64::from(cfg.gpu.sms) * u64::from(occ.ctas_per_sm),
        );
        let mut scheduler_report = TechniqueReport::default();
        let mut dispatcher = match cfg.gpu.cta_scheduler {
            CtaSchedulerPolicy::Paver => {
                let shape = LaunchShape {
                    program,
                    kernel: l.kernel,
                    params: l.params,
                    constants: Some(l.mem),
                    grid: l.grid,
                    block: l.block,
                    dynamic_shared: l.dynamic_shared,
                };
                let plan = PaverPlan::new(
                    &shape,
                    timed_ctas,
                    occ.ctas_per_sm,
                    u64::from(cfg.mem.l1d.line),
                );
                scheduler_report = plan.report;
                CtaDispatcher::paver(plan.groups, cfg.gpu.sms as usize)
            }
            policy => CtaDispatcher::new(policy, timed_ctas),
        };
        let mut all_launched = false;
        let mut pools: Vec<(Vec<emulator::warp::Warp>, Vec<u8>)> = Vec::new();
        let mut stats = TimingStats {
            kernel: program.code[l.kernel.index()].name.clone(),
            config: cfg.name.clone(),
            occupancy: Some(occ),
            by_class: TimingStats::empty_classes(),
            ..TimingStats::default()
        };
        let start = self.cycle;
        let mut now = start;
        let mut last_issue = start;
        let watch = emulator::watch::LaunchWatch::new(
            l.wall_clock,
            &l.program.code[l.kernel.index()].name,
            timed_ctas,
        );
        let mut iterations = 0u64;
        let mut sampler = self.recorded.as_mut().map(|r| {
            r.timeline.warp_slots = u64::from(cfg.gpu.sms) * u64::from(cfg.sm.max_warps);
            r.timeline.collector_units = sms.iter().map(Sm::collector_units).sum();
            TimelineSampler::start(&mut r.timeline, start)
        });
        let l2_misses_before = self.l2.stats().l2_misses;
        let timeline_counts = |now: u64, sms: &[Sm], sm_mem: &[SmMemory], l2: &MemorySystem| {
            let mut c = TimelineSample {
                cycle: now,
                l2_misses: l2.stats().l2_misses - l2_misses_before,
                ..TimelineSample::default()
            };
            for (sm, mem) in sms.iter().zip(sm_mem) {
                let s = sm.timeline_counts(mem);
                c.thread_insts += s.thread_insts;
                c.warp_insts += s.warp_insts;
                c.resident_warp_cycles += s.resident_warp_cycles;
                c.busy_collector_cycles += s.busy_collector_cycles;
                c.l1d_misses += s.l1d_misses;
            }
            c
        };
        // The SMs' cycles run on up to `sm_threads` host threads (no more than there are SMs);
        // nothing observable depends on how many.
        let l2 = &mut self.l2;
        let recorded = &mut self.recorded;
        crate::parallel::with_crew(l.sm_threads, sms.len(), |crew| -> Result<(), SimError> {
            // Until every CTA was dispatched and has drained (at once when none is timed).
            while !dispatcher.all_launched() || !sms.iter().all(|s| s.is_idle() && s.drained()) {
                // The wall clock, every few thousand simulated cycles (reading it costs more).
                iterations += 1;
                if iterations.is_multiple_of(4096) {
                    watch.set_ctas_done(stats.ctas);
                    if let Some(limit) = watch.poll(|| format!("cycle {}", now - start)) {
                        return Err(SimError::TimeLimit {
                            limit,
                            cycle: now - start,
                        });
                    }
                }
                // CTA scheduler (`gpu.cta_scheduler`).
                dispatcher.cycle(&mut LaunchSlots {
                    sms: &mut sms,
                    pools: &mut pools,
                    demand: &demand,
                    now,
                });
                if dispatcher.all_launched() && !all_launched {
                    all_launched = true;
                    sms.iter_mut().for_each(Sm::last_cta_launched);
                }
                // Every SM's cycle (on the crew's threads), then their commits in SM order:
                // the L2 requests and global-memory writes of the cycle, and its faults, the
                // lowest SM's first.
                crew.cycle(now, &mut sms, &mut sm_mem, |sm, mem| {
                    sm.commit_memory(now, mem, l2)
                });
                let mut any_issue = false;
                for (sm, mem) in sms.iter_mut().zip(sm_mem.iter_mut()) {
                    any_issue |= sm.issued;
                    if sm.has_leftovers() {
                        if let Some(fault) = sm.take_fault() {
                            return Err(SimError::Fault(fault));
                        }
                        sm.commit(now).map_err(SimError::Fault)?;
                        for stepper in sm.take_done() {
                            let (counters, shared, warps) = stepper.finish();
                            stats.ctas += 1;
                            stats.divergent_branches += counters.divergent_branches;
                            stats.reconvergences += counters.reconvergences;
                            stats.max_simt_depth =
                                stats.max_simt_depth.max(counters.max_simt_depth);
                            pools.push((warps, shared));
                        }
                    }
                    // Snooze: an SM whose CTAs have all finished, with none to come, switches
                    // its L1 off (a no-op without Snooze, and after the first time).
                    if l2_power_before.is_some() && all_launched && sm.is_idle() && sm.drained() {
                        mem.switch_off_from(now + 1);
                    }
                }
                now += 1;
                if any_issue {
                    last_issue = now;
                }
                // A cycle in which no SM did anything repeats until something is due: skip
                // ahead (the per-cycle counters of the skipped cycles are accounted as repeats).
                let may_launch = dispatcher.may_launch(&Room {
                    sms: &sms,
                    demand: &demand,
                });
                if cfg.gpu.fast_forward && !may_launch && sms.iter().all(|s| !s.was_active()) {
                    let wake = sms
                        .iter()
                        .filter_map(|s| s.next_wake(now - 1))
                        .min()
                        .unwrap_or(last_issue + cfg.gpu.watchdog_cycles + 1)
                        .max(now);
                    for sm in &mut sms {
                        sm.skip(wake - now);
                    }
                    now = wake;
                }
                if let (Some(s), Some(r)) = (&mut sampler, &mut *recorded)
                    && s.due(now)
                {
                    s.sample(&mut r.timeline, timeline_counts(now, &sms, &sm_mem, l2));
                }
                // Quiet cycles count from the last issue, or from the end of the latest
                // `nanosleep` (looked up only once issues alone have been quiet that long).
                if now - last_issue > cfg.gpu.watchdog_cycles {
                    let asleep = sms.iter().map(|s| s.sleeps_until).max().unwrap_or(0);
                    let idle = now - last_issue.max(asleep).min(now);
                    if idle > cfg.gpu.watchdog_cycles {
                        let mut detail = Vec::new();
                        for sm in &sms {
                            sm.describe_warps(&mut detail);
                        }
                        return Err(SimError::Watchdog {
                            cycle: now,
                            idle,
                            detail: detail.join("; "),
                        });
                    }
                }
            }
            Ok(())
        })?;
        if let (Some(s), Some(r)) = (&mut sampler, &mut self.recorded) {
            s.sample(
                &mut r.timeline,
                timeline_counts(now, &sms, &sm_mem, &self.l2),
            );
            r.collect_spans(program, &mut sms, &stats.kernel, start, now);
        }
        stats.untimed = self.run_untimed(l, timed_ctas)?;
        stats.gpu_sim_cycle = now - start;
        self.cycle = now;
        let mut mem = MemStats::default();
        // The SMs of a launch with no timed CTA did nothing; leaving them out keeps the
        // per-launch figures of a register-file technique (its plan for the launch) to the
        // launches it timed.
        if timed_ctas > 0 {
            for (sm, m) in sms.iter_mut().zip(&sm_mem) {
                stats.add_pipeline_counters(&sm.take_stats(occ.regs_per_thread));
                mem.merge(m.stats());
            }
            if !scheduler_report.name.is_empty() {
                let (steals, stolen) = dispatcher.steals();
                scheduler_report.add("steals", steals);
                scheduler_report.add("stolen_ctas", stolen);
                stats.cta_scheduler = scheduler_report;
            }
        }
        mem.merge(&self.l2.stats().since(&l2_before));
        mem.dram_channel_cycles = self
            .l2
            .dram_cycles(stats.gpu_sim_cycle)
            .saturating_mul(u64::from(cfg.mem.dram.channels));
        stats.mem = mem;
        if let (Some(before), Some(mut l2)) = (l2_power_before, self.l2.power_totals(now)) {
            let l1: Vec<_> = sm_mem
                .iter_mut()
                .filter_map(|m| m.power_totals(now))
                .collect();
            l2.cycles = l2.cycles.since(&before.cycles);
            stats.cache_power = CachePowerReport::new(cfg, now - start, &l1, &l2);
        }
        stats.energy = EnergyReport::compute(cfg, &stats);
        stats.host.wall_seconds = started.elapsed().as_secs_f64();
        stats.finish(cfg.gpu.sms, cfg.sm.max_warps);
        self.total.merge(&stats, cfg.gpu.sms, cfg.sm.max_warps);
        self.kernels.push(stats.clone());
        Ok(stats)
    }

    /// Runs the CTAs from `timed` on functionally ([`TimedCtas`]); what they executed.
    fn run_untimed(&self, l: &TimedLaunch, timed: u64) -> Result<Untimed, SimError> {
        let total = emulator::launch::grid_ctas(l.grid);
        if timed >= total {
            return Ok(Untimed::default());
        }
        let cfg = emulator::LaunchConfig {
            engine: l.engine,
            grid: l.grid,
            block: l.block,
            dynamic_shared: l.dynamic_shared,
            host_threads: l.host_threads,
            warp_budget: l.warp_budget,
            wall_clock: l.wall_clock,
        };
        let s =
            emulator::launch::launch_ctas(l.program, l.kernel, l.mem, l.params, &cfg, timed..total)
                .map_err(SimError::Fault)?;
        Ok(Untimed {
            launches: u64::from(timed == 0),
            ctas: total - timed,
            warp_insts: s.warp_insts,
            thread_insts: s.thread_insts,
        })
    }
}

/// Whether an SM has room for more CTAs: below the residency policy's limit, and admitted by
/// it (for the second of a pair, the policy's admission of one stands for both).
fn has_room(sm: &Sm, n: u32, demand: &CtaDemand) -> bool {
    sm.resident_ctas() + n as usize <= sm.cta_limit() && sm.admits(demand)
}

/// The SMs of a launch as the CTA scheduler sees them when it asks for room only.
struct Room<'s, 'a> {
    sms: &'s [Sm<'a>],
    demand: &'s CtaDemand,
}

impl CtaRoom for Room<'_, '_> {
    fn sm_count(&self) -> usize {
        self.sms.len()
    }
    fn has_room(&self, sm: usize, n: u32) -> bool {
        has_room(&self.sms[sm], n, self.demand)
    }
}

/// The SMs of a launch as the CTA scheduler sees them, with what launching a CTA takes.
struct LaunchSlots<'s, 'a> {
    sms: &'s mut [Sm<'a>],
    /// Warps and shared memory of retired CTAs, for reuse.
    pools: &'s mut Vec<(Vec<emulator::warp::Warp>, Vec<u8>)>,
    demand: &'s CtaDemand,
    now: u64,
}

impl CtaRoom for LaunchSlots<'_, '_> {
    fn sm_count(&self) -> usize {
        self.sms.len()
    }
    fn has_room(&self, sm: usize, n: u32) -> bool {
        has_room(&self.sms[sm], n, self.demand)
    }
}

impl CtaSlots for LaunchSlots<'_, '_> {
    fn launch(&mut self, sm: usize, cta: u64) {
        let pool = self.pools.pop().unwrap_or_default();
        self.sms[sm].place(cta, pool, self.now);
    }
}
