//! GPU configurations: TOML presets in `timing/configs/`, any field overridable by a dotted key.
//!
//! Every field is required in a configuration file (presets spell every parameter out, so a
//! preset reads as the full description of its GPU) and unknown keys are errors; an override
//! (`sm.rf.banks=8`) must name a key that exists. After parsing, [`GpuConfig::validate`] rejects
//! impossible values, naming the key.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A configuration error, naming the key or preset at fault.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("unknown GPU configuration `{name}` (presets: {known})")]
    UnknownPreset { name: String, known: String },
    #[error("cannot read configuration file `{path}`: {message}")]
    Io { path: String, message: String },
    #[error("invalid configuration: {0}")]
    Parse(String),
    #[error("unknown configuration key `{0}`")]
    UnknownKey(String),
    #[error("override `{0}` is not of the form key=value")]
    BadOverride(String),
    #[error("configuration key `{key}`: {message}")]
    Invalid { key: String, message: String },
    /// An error of a configuration file's own value, with where the value is.
    #[error("{path}:{line}: {error}")]
    InFile {
        path: String,
        line: usize,
        error: Box<ConfigError>,
    },
}

/// Warp scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerPolicy {
    /// Loose round robin: the first ready warp after the one that issued last.
    Lrr,
    /// Greedy-then-oldest: keep issuing from the same warp until it stalls, then the oldest.
    Gto,
    /// Two-level: round robin over an active pool; a warp waiting on a long-latency result
    /// leaves the pool for the oldest pending warp.
    TwoLevel,
    /// LAS (seed 000, chapter 5): loose round robin, but a warp whose next instruction is a
    /// global load the register-file technique would serve from registers (LARF's table hit,
    /// checked when one of the warp's results is written back) goes first.
    Las,
}

/// How warp registers map to register-file banks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BankMapping {
    /// GPGPU-Sim's: bank = (register + warp) mod banks.
    Wshift,
    /// Every register of a warp in one bank: bank = warp mod banks.
    Wid,
}

/// The register-file technique: how registers are read, written, cached and placed
/// (`sm.rf.technique`). Each is a register-file policy of the timing model's seam.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Technique {
    /// Single-ported banks, one operand per bank access, writes through the bank arbiter.
    Baseline,
    /// CMRC (seed 003): byte-planar banks, even entries right-aligned and odd ones
    /// left-aligned by width, two narrow accesses to an even and an odd entry per bank per
    /// cycle, a collector port sliced in four.
    Cmrc,
    /// CMRC's limit study: no bank or collector port ever refuses a request.
    CmrcIdeal,
    /// Register packing (CORF's reference point, seed 000): narrow values share physical
    /// registers through a renaming table, allocated first-fit; two operands packed in one
    /// physical register are read with one bank access.
    Packing,
    /// CORF (seed 000): packing that places the compiler's exclusive common pairs in one
    /// physical register, so that one access reads both.
    Corf,
    /// CORF++ (seed 000): packing by the compiler's left/right alignments in byte-planar,
    /// dual-addressed banks holding all of a warp's registers; two operands of one bank with
    /// disjoint byte slices are read with one access.
    #[serde(rename = "corf++")]
    CorfPlusPlus,
    /// BOW (seed 000, ch. 3): one bypassing operand collector per warp holding the operands
    /// of its last `sm.rf.bow.window` instructions; a source found there is forwarded instead
    /// of read from a bank; results written through to the register file.
    Bow,
    /// BOW-WR: BOW writing back — a result reaches the register file only when it leaves the
    /// window, unless a younger instruction overwrote it or the compiler's hint says the
    /// window alone needs it (or the register file alone).
    BowWr,
    /// BOW-WR with half the collector storage (`sm.rf.bow.entries` / 2), FIFO eviction.
    BowHalf,
    /// The register-file cache (Gebhart et al., seed 004 §3.5): a small per-warp cache of
    /// recent results, FIFO, written back to the register file when evicted unless dead.
    Rfc,
    /// LARF (seed 000, chapter 5): a per-SM address mapping table of warp-wide global loads
    /// (`sm.rf.larf.entries`); a load of data a register holds already is served by renaming
    /// its destination to that register, without a memory access.
    Larf,
    /// LARF with an unbounded address mapping table (the paper's limit study).
    LarfInfinite,
    /// The register file of recent NVIDIA cores (Volta on; docs/modern-rf.md): banks per
    /// sub-core with one read and one write port each, no collector units (port-cycles
    /// reserved within a three-cycle read window at allocation, bubbles when they do not
    /// fit), and the operand cache the compiler's reuse bits fill. Needs `sm.sub_cores`.
    Modern,
}

/// How a CTA's registers are held while it is resident (`sm.rf.residency`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Residency {
    /// Every register of every warp allocated at CTA launch until the CTA retires.
    Static,
    /// An unbounded register file: registers never limit occupancy (an upper bound for
    /// register virtualisation; counts CTAs launched beyond the register limit and the times
    /// every warp of a CTA waited on memory).
    Unlimited,
    /// RegMutex (seed 000, chapter 4): each warp holds a base set of registers while resident
    /// and takes its extended set from a shared register pool only where its live registers
    /// exceed the base set; CTAs are admitted by the base set.
    #[serde(rename = "regmutex")]
    RegMutex,
    /// FineReg (seed 001): the register file split into an active-CTA part, which works like
    /// the baseline's, and a pending-CTA part holding only the live registers of CTAs whose
    /// warps all wait on memory; such a CTA moves out (or swaps with a ready pending one) so
    /// that another may run, beyond the static register limit.
    #[serde(rename = "finereg")]
    FineReg,
}

/// Static-power management of the register file (`sm.rf.power`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RfPower {
    /// Every allocated register is on and leaks fully (today's model).
    #[default]
    None,
    /// Slumber (seed 002, chapter 6): each warp register is on, in shallow or deep sleep, or
    /// off, chosen from the compiler's liveness and a run-time prediction of its idle period;
    /// an access to a sleeping register waits for its wake-up (`sm.rf.slumber`).
    Slumber,
}

/// Slumber's power states (`sm.rf.slumber`): wake-up latency and leakage of each, the seed's
/// Table 6.1 by default (45 nm, HSPICE, a 128-byte register behind a tri-modal switch).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlumberConfig {
    /// Cycles from shallow sleep (0.9 V) to on: 4.
    pub shallow_wake: u32,
    /// Cycles from deep sleep (0.3 V) to on: 13.
    pub deep_wake: u32,
    /// Cycles from off (power-gated, 0 V) to on: 16.
    pub off_wake: u32,
    /// Leakage in shallow sleep as a share of a register's leakage when on: 0.94.
    pub shallow_leakage: f64,
    /// Leakage in deep sleep: 0.42.
    pub deep_leakage: f64,
    /// Leakage when off: 0.
    pub off_leakage: f64,
    /// Largest idle period the per-register counter predicts, in cycles (the seed's 10-bit
    /// counters: 1023).
    pub max_idle: u32,
}

impl Default for SlumberConfig {
    fn default() -> SlumberConfig {
        SlumberConfig {
            shallow_wake: 4,
            deep_wake: 13,
            off_wake: 16,
            shallow_leakage: 0.94,
            deep_leakage: 0.42,
            off_leakage: 0.0,
            max_idle: 1023,
        }
    }
}

/// How often a register named by several source operands of one instruction is read
/// (`sm.rf.read_duplicates`): each read is a bank access, an operand-collector read and a
/// width record (`add r1, r2, r2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadDuplicates {
    /// Once: the collector unit fills every operand naming it from one bank access.
    Once,
    /// Once per operand naming it.
    Each,
}

/// The whole GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Name of the configuration (the preset it came from).
    pub name: String,
    pub gpu: GpuTop,
    pub sm: SmConfig,
    pub latency: Latencies,
    pub mem: MemConfig,
    /// Per-access energies of the register file (and coarse ALU and DRAM figures).
    pub energy: crate::energy::EnergyConfig,
}

/// GPU-wide parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuTop {
    /// The CUDA compute capability of the GPU the configuration describes, written
    /// `"MAJOR.MINOR"` (`compute_capability = "7.5"`: Turing, `sm_75`), as GPGPU-Sim's
    /// `-gpgpu_compute_capability_major`/`_minor` give it. Reported (`--dump-config`), never
    /// used by the timing model: what a configuration models is in its other keys. See
    /// [`ComputeCapability`].
    pub compute_capability: ComputeCapability,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Core clock in MHz (for reporting simulated time).
    pub clock_mhz: u32,
    /// The card's device memory in MiB: what the runtime lets a program allocate (capped by
    /// the host's physical memory, see `runtime::DeviceConfig::memory_bytes`).
    pub memory_mib: u64,
    /// Cycles with no instruction issued anywhere after which the run stops as deadlocked.
    pub watchdog_cycles: u64,
    /// Skip cycles in which nothing can change (the results are identical either way; turn it
    /// off only to check that).
    pub fast_forward: bool,
    /// Which SM each CTA goes to, and when (`round-robin` by default, `bcs`).
    #[serde(default)]
    pub cta_scheduler: crate::cta_scheduler::CtaSchedulerPolicy,
}

/// A CUDA compute capability (`gpu.compute_capability`): a major version from 1 to 99 and a
/// minor version from 0 to 9, the pair NVIDIA's `sm_XY` targets name (`sm_75` is 7.5, `sm_90`
/// 9.0, `sm_120` 12.0). In TOML it is the string `"MAJOR.MINOR"`; anything else (`"7"`,
/// `"7.10"`, `"sm_75"`) is an error naming the key. On the command line the quotes may be left
/// out: `--set gpu.compute_capability=8.6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ComputeCapability {
    /// The major version: the architecture generation (7 for Volta and Turing).
    pub major: u8,
    /// The minor version: the variant within it (5 for Turing).
    pub minor: u8,
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for ComputeCapability {
    type Err = String;

    fn from_str(text: &str) -> Result<ComputeCapability, String> {
        let bad = || {
            format!(
                "`{text}` is not a compute capability: expected \"MAJOR.MINOR\", major 1 to 99, minor 0 to 9 (e.g. \"7.5\")"
            )
        };
        let (major, minor) = text.split_once('.').ok_or_else(bad)?;
        let digits = |s: &str, max_len: usize| {
            (!s.is_empty() && s.len() <= max_len && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u8>().ok())
                .flatten()
        };
        match (digits(major, 2), digits(minor, 1)) {
            (Some(major), Some(minor)) if major >= 1 => Ok(ComputeCapability { major, minor }),
            _ => Err(bad()),
        }
    }
}

impl TryFrom<String> for ComputeCapability {
    type Error = String;

    fn try_from(text: String) -> Result<ComputeCapability, String> {
        text.parse()
    }
}

impl From<ComputeCapability> for String {
    fn from(cc: ComputeCapability) -> String {
        cc.to_string()
    }
}

/// One streaming multiprocessor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmConfig {
    pub max_threads: u32,
    pub max_warps: u32,
    pub max_ctas: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Registers per thread are rounded up to a multiple of this for allocation.
    pub register_granularity: u32,
    /// Bytes of shared memory per SM.
    pub shared_memory: u32,
    /// Shared memory is allocated per CTA in units of this many bytes.
    pub shared_granularity: u32,
    pub schedulers: u32,
    /// Sub-cores (Volta on; GPGPU-Sim's `gpgpu_sub_core_model`): each scheduler owns a
    /// partition of the SM — the warps whose slot falls to it, an equal share of the register
    /// banks, of the collector units and of every kind of execution unit. `false`: the
    /// schedulers share all of them (Fermi to Pascal).
    pub sub_cores: bool,
    pub scheduler: SchedulerPolicy,
    /// Two-level scheduler: warps in each scheduler's active pool.
    pub two_level_active: u32,
    /// Instructions each scheduler may issue per cycle (from one warp).
    pub issue_width: u32,
    /// Instruction-buffer entries per warp.
    pub ibuffer_entries: u32,
    /// Instructions fetched at once into a warp's buffer.
    pub fetch_width: u32,
    /// Warps fetched for per cycle per SM (GPGPU-Sim's `gpgpu_inst_fetch_throughput`: its
    /// `shader_core_ctx::cycle` runs decode and fetch that many times); 1 if not given.
    #[serde(default = "one")]
    pub fetch_warps: u32,
    /// Pending register writes tracked per warp (a warp stalls when they are all in use).
    pub scoreboard_entries: u32,
    /// Results written back per cycle (register-file write ports shared by all units).
    pub writeback_ports: u32,
    /// Cycles an execution unit's result spends in pipeline latches beyond the operation's
    /// latency (GPGPU-Sim: the `OC_EX` register, the unit's dispatch register and the `EX_WB`
    /// register, 3): a dependent instruction issues `latency + execute_latches` cycles after
    /// its producer leaves its collector unit. Not the LD/ST unit, whose path has its own
    /// latencies. 0 if not given.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub execute_latches: u32,
    /// Memory instructions the latch between the collector units and the LD/ST units holds
    /// (GPGPU-Sim's `OC_EX_MEM` register, `gpgpu_pipeline_widths`; shared equally by the
    /// sub-cores): an instruction leaves its collector unit into it, and the LD/ST unit takes
    /// the oldest the cycle after, when free. 0: no latch (a memory instruction waits in its
    /// collector unit for a free LD/ST unit and enters it directly). 0 if not given.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ldst_latch: u32,
    pub icache: CacheConfig,
    pub rf: RegisterFileConfig,
    pub units: UnitsConfig,
}

/// Register file and operand collector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterFileConfig {
    /// Single-ported banks (one read or write per cycle each).
    pub banks: u32,
    /// Sub-banks each bank is sliced into; a 128-byte warp register spans all of them.
    pub sub_banks: u32,
    /// Bytes per sub-bank slice of a warp register.
    pub sub_bank_bytes: u32,
    pub mapping: BankMapping,
    /// Collector units by the unit class they serve; `general` ones serve any class.
    pub collectors: CollectorUnits,
    /// Collector units that may dispatch to execution units per cycle.
    pub dispatch_width: u32,
    /// Steps of the operand collector a cycle (GPGPU-Sim's `gpgpu_reg_file_port_throughput`:
    /// `shader_core_ctx::read_operands` runs `opndcoll_rfu_t::step` that many times). Each
    /// step dispatches the units whose operands are all read, then grants each bank one read
    /// (as far as the technique lets requests share it), then takes newly issued
    /// instructions into units; a write-back holds its bank in the cycle's first step. 1 if
    /// not given.
    #[serde(default = "one")]
    pub collector_steps: u32,
    /// Whether an issued instruction waits in the issue latch until the collector's next step
    /// before its unit takes it (GPGPU-Sim's `ID_OC` register: `opndcoll_rfu_t::step`
    /// allocates units after it grants reads, so a unit's first read is a step after the
    /// cycle of issue). `false`: it reads from the cycle after issue.
    #[serde(default, skip_serializing_if = "is_false")]
    pub issue_latch: bool,
    /// Whether a collector unit takes operands from any number of banks in one step (one a
    /// bank): GPGPU-Sim 4.x, whose arbiter no longer limits a unit to one grant
    /// (`arbiter_t::allocate_reads`, the `_outmatch` test commented out). `false`: a unit's
    /// port takes what the technique's port rule allows, one operand a step in the baseline
    /// (GPGPU-Sim 3.x, the seeds' baseline).
    #[serde(default, skip_serializing_if = "is_false")]
    pub multi_read_units: bool,
    /// The register-file technique.
    pub technique: Technique,
    /// The register residency policy (CTA admission, register acquisition, suspension).
    pub residency: Residency,
    /// Whether a register named twice by one instruction is read once or twice.
    pub read_duplicates: ReadDuplicates,
    /// BOW's bypassing operand collectors (the `bow`, `bow-wr` and `bow-half` techniques).
    #[serde(default)]
    pub bow: BowConfig,
    /// The register-file cache (the `rfc` technique).
    #[serde(default)]
    pub rfc: RfcConfig,
    /// RegMutex's register split (the `regmutex` residency).
    #[serde(default)]
    pub regmutex: RegMutexConfig,
    /// FineReg's split register file (the `finereg` residency).
    #[serde(default)]
    pub finereg: FineRegConfig,
    /// LARF's address mapping table (the `larf` technique).
    #[serde(default)]
    pub larf: LarfConfig,
    /// Static-power management of the registers (`none` in every preset).
    #[serde(default)]
    pub power: RfPower,
    /// Slumber's power states (the `slumber` power policy).
    #[serde(default)]
    pub slumber: SlumberConfig,
}

/// LARF's address mapping table (`sm.rf.larf`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LarfConfig {
    /// Entries per SM (the paper's 400: 1 KB of 83-bit entries). `larf-infinite` ignores it.
    pub entries: u32,
}

impl Default for LarfConfig {
    fn default() -> LarfConfig {
        LarfConfig { entries: 400 }
    }
}

/// FineReg's split register file (`sm.rf.finereg`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FineRegConfig {
    /// 32-bit registers of the pending-CTA register file (PCRF), taken from `sm.registers`;
    /// the rest is the active-CTA register file (ACRF). 0: half of `sm.registers`, the paper's
    /// 128 KB + 128 KB.
    pub pending_registers: u32,
    /// Cycles of one PCRF access (tag and register; the paper's "at least four"); a transfer
    /// of `n` warp registers is pipelined, one per cycle after the first.
    pub access_cycles: u32,
    /// Entries of the direct-mapped live-register information cache (the paper's 32).
    pub live_info_entries: u32,
    /// Cycles to fetch a missing live-register bit vector from off-chip memory (the default,
    /// 300, is an unloaded DRAM round trip of the gtx980 preset: L1 35, interconnect 2 × 20,
    /// L2 120, DRAM 100 cycles).
    pub live_info_miss_cycles: u32,
}

impl Default for FineRegConfig {
    fn default() -> FineRegConfig {
        FineRegConfig {
            pending_registers: 0,
            access_cycles: 4,
            live_info_entries: 32,
            live_info_miss_cycles: 300,
        }
    }
}

impl FineRegConfig {
    /// 32-bit registers of the PCRF on an SM with `registers` in all.
    pub fn pcrf_registers(&self, registers: u32) -> u32 {
        if self.pending_registers == 0 {
            registers / 2
        } else {
            self.pending_registers
        }
    }
}

/// RegMutex's register split (`sm.rf.regmutex`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegMutexConfig {
    /// Registers per thread in the extended set; 0 lets the compiler's heuristic choose (the
    /// seed's, §4.3.1), any other value forces that size (its Figure 4.10 sweeps 2 to 12).
    pub extended: u32,
}

/// BOW's bypassing operand collectors (`sm.rf.bow`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BowConfig {
    /// The instruction window IW: an operand accessed by one of the warp's instructions stays
    /// in its collector for the next IW − 1 instructions (each access extends it), and the
    /// collector holds up to IW instructions waiting for operands or an execution unit.
    pub window: u32,
    /// Operand entries (warp registers) per collector; 0 means 4 per instruction of the window,
    /// the paper's conservative size (12 at IW = 3). `bow-half` has half as many.
    pub entries: u32,
}

impl Default for BowConfig {
    fn default() -> BowConfig {
        BowConfig {
            window: 3,
            entries: 0,
        }
    }
}

impl BowConfig {
    /// Operand entries per collector of the full-size design.
    pub fn full_entries(&self) -> u32 {
        if self.entries == 0 {
            4 * self.window
        } else {
            self.entries
        }
    }
}

/// The register-file cache (`sm.rf.rfc`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RfcConfig {
    /// Entries (warp registers) per warp: Gebhart et al.'s 6 per thread.
    pub entries: u32,
    /// What a warp's entries do when the two-level scheduler moves it out of its active pool.
    pub on_demote: RfcDemotion,
}

impl Default for RfcConfig {
    fn default() -> RfcConfig {
        RfcConfig {
            entries: 6,
            on_demote: RfcDemotion::Flush,
        }
    }
}

/// What the register-file cache does with a demoted warp's entries (`sm.rf.rfc.on_demote`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RfcDemotion {
    /// Write the live dirty entries back and free them all (Gebhart et al.: the cache holds
    /// the active warps' values only).
    Flush,
    /// Keep them until the warp is active again.
    Retain,
}

/// Collector units per class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectorUnits {
    pub sp: u32,
    pub sfu: u32,
    pub int: u32,
    pub dp: u32,
    pub mem: u32,
    pub general: u32,
}

/// Execution units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitsConfig {
    pub sp: u32,
    pub sfu: u32,
    /// Integer units; 0 runs integer instructions on the SP units (Fermi).
    pub int: u32,
    /// Double-precision units; 0 runs them on the SP units.
    pub dp: u32,
    pub ldst: u32,
    /// Tensor-core pipelines; 0 runs tensor instructions on the SP units.
    #[serde(default)]
    pub tensor: u32,
}

/// Latency and initiation interval (cycles) of one operation class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    pub latency: u32,
    pub initiation: u32,
}

/// Operation classes of one arithmetic family, as GPGPU-Sim groups them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyLatencies {
    pub add: Timing,
    pub max: Timing,
    pub mul: Timing,
    pub mad: Timing,
    pub div: Timing,
}

/// Latencies of every class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latencies {
    pub int: FamilyLatencies,
    pub fp: FamilyLatencies,
    pub dp: FamilyLatencies,
    /// Moves, selects, conversions, comparisons, logic, shifts and other bit operations
    /// (GPGPU-Sim's `ALU_OP` class, which its decoder times at one cycle in every
    /// configuration).
    pub alu: Timing,
    /// Reciprocals, square roots and transcendentals (`sin`, `ex2`, `rsqrt`, ...), on the SFU.
    pub sfu: Timing,
    /// Warp shuffles and other cross-lane operations.
    pub shfl: Timing,
    /// Branches, moves of special registers, and other control instructions.
    pub branch: Timing,
    /// An m16n16k16 tensor-core multiply-add (`wmma.mma`); other shapes' initiation interval
    /// scales with their multiply-adds. GPGPU-Sim's default (64, 64) when absent.
    #[serde(default = "Latencies::default_tensor")]
    pub tensor: Timing,
}

impl Latencies {
    fn default_tensor() -> Timing {
        Timing {
            latency: 64,
            initiation: 64,
        }
    }
}

/// A set-associative cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    pub sets: u32,
    pub ways: u32,
    /// Line size in bytes.
    pub line: u32,
    /// How a line picks its set.
    pub set_index: SetIndex,
    /// Hit latency in cycles; for the L1 data cache also the cycles before a miss (or a
    /// store) leaves for the L2 (GPGPU-Sim's L1 latency queue ends in the tag lookup).
    pub latency: u32,
    /// Outstanding misses (lines) tracked; 0 = unlimited (the constant cache's and the L2's
    /// are not modelled: the L2 applies `mshr_merge` only, per sector).
    pub mshrs: u32,
    /// Requests that may merge into one outstanding miss; 0 = unlimited.
    pub mshr_merge: u32,
    /// Instruction and constant caches: 0 = a miss reads the line from the L2 through the
    /// interconnect (GPGPU-Sim's path); otherwise a fixed latency beyond the hit latency
    /// instead. The L1 data cache always goes to the L2.
    pub miss_latency: u32,
    /// Instruction and constant caches: every access hits, in the hit latency, with no fill
    /// and no per-line serialisation (GPGPU-Sim's `gpgpu_perfect_inst_const_cache`, set by its
    /// SM6_TITANX, SM7_QV100, SM75_RTX2060 and SM86_RTX3070: `shader_core_ctx::fetch` takes
    /// every fetch as a hit, `ldst_unit::constant_cycle` completes a constant load's accesses
    /// at once). Not for the data caches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub perfect: bool,
    /// L1 data cache: whether a miss fetches only the sectors it needs (`S` in GPGPU-Sim's
    /// cache strings) or the whole line (`N`, Fermi's L1: `data_cache::rd_miss_base` sends one
    /// line-sized request). Default: sectored.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub sectored: bool,
    /// L1 data cache: a store that hits keeps the line, updated, and goes on to the L2
    /// (write-through: `T` in GPGPU-Sim's cache strings, `data_cache::wr_hit_wt`); otherwise
    /// it evicts the line (write-evict, GPGPU-Sim's `L` policy for global data,
    /// `wr_hit_global_we_local_wb`). Default: evict.
    #[serde(default)]
    pub write_through_keeps: bool,
}

/// How a cache line picks its set (`*.set_index`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SetIndex {
    /// The line number modulo the sets.
    Linear,
    /// GPGPU-Sim's Fermi hash (Nugteren et al., HPCA 2014; `H` in its cache strings): the low
    /// five line-number bits xored with address bits 13, 14, 15, 17 and 19, and with 64 sets
    /// address bit 12 as the sixth set bit. Needs 32 or 64 sets.
    FermiHash,
    /// GPGPU-Sim's IPOLY set index (`P` in its cache strings; Rau, ISCA 1991): the linear set
    /// xored with parities of the higher line-number bits, so power-of-two strides use every
    /// set. Needs 16, 32 or 64 sets. The L2 indexes a slice's lines without the channel and
    /// slice bits, as GPGPU-Sim's `l2_cache_config::set_index`.
    Ipoly,
}

/// Memory hierarchy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemConfig {
    /// Bytes of a global-memory sector (the unit of transfer below L1).
    pub sector: u32,
    /// Coalesced requests the L1 accepts per cycle.
    pub l1_requests_per_cycle: u32,
    /// Global accesses other than `ld.global.nc` bypass the L1 data cache and go straight to
    /// the L2 (GPGPU-Sim's `gpgpu_gmem_skip_L1D`); `.cg` accesses and atomics always do.
    #[serde(default)]
    pub global_skips_l1d: bool,
    pub l1d: CacheConfig,
    pub constant: CacheConfig,
    pub shared: SharedMemConfig,
    /// One-way latency of the interconnect between SMs and L2 slices.
    pub icnt_latency: u32,
    /// Reply packets an SM takes from the interconnect per cycle (0: no limit), a packet a
    /// sector of read data or a sector's store acknowledgement. In GPGPU-Sim each cluster
    /// ejects one reply packet a cycle (`simt_core_cluster::icnt_cycle`) and its LD/ST unit
    /// takes one a cycle; the L2 answers each sector request on its own.
    #[serde(default)]
    pub reply_sectors_per_cycle: u32,
    /// Interconnect flits an SM sends per cycle (0: no limit). In GPGPU-Sim an SM's L1 sends
    /// one request a cycle into the interconnect and a request is one 40-byte flit: a
    /// sector's read, or a sector's write with its data (`SmMemory`'s `inject` has the rule).
    #[serde(default)]
    pub request_flits_per_cycle: u32,
    /// Requests cross to the L2 slices through an input-queued crossbar: each slice's port
    /// takes one packet a cycle, and an SM's packets pass in the order they were sent, so one
    /// waiting for a busy slice holds back those behind it (head-of-line blocking). This is
    /// GPGPU-Sim's request network: `xbar_router::iSLIP_Advance` (`-network_mode 2`) and
    /// booksim with one virtual channel (`-network_mode 1`, `num_vcs = 1`) move only the
    /// packet at the head of each input buffer, one per output a cycle. Off: a slice's queue
    /// takes every request on arrival.
    #[serde(default)]
    pub request_crossbar: bool,
    pub l2: L2Config,
    pub dram: DramConfig,
    /// Snooze's power states of the L1 and L2 data arrays (`memory/power.rs`; off by default).
    #[serde(default)]
    pub snooze: crate::memory::SnoozeConfig,
    /// The L1 data cache and shared memory as one array split per kernel; `None`: the L1 is
    /// `l1d` for every kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carveout: Option<CarveoutConfig>,
}

/// An L1 data cache sharing its array with shared memory, split per kernel as GPGPU-Sim's
/// `gpgpu_adaptive_cache_config` splits it (`shader_core_config::max_cta`): the smallest
/// shared-memory size of `shared_kb` that holds the shared memory of the CTAs resident on an
/// SM (fewer when the grid does not fill the GPU), the rest L1. The L1 keeps `l1d`'s sets and
/// line and takes `round(max_ways × L1 share)` ways, `max_ways` being the ways of the whole
/// array. GPGPU-Sim counts a kernel's static shared memory only; warpsim counts dynamic too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarveoutConfig {
    /// KB of the unified array (`gpgpu_unified_l1d_size`).
    pub unified_kb: u32,
    /// The shared-memory sizes it can be split at, KB, ascending (`gpgpu_shmem_option`).
    pub shared_kb: Vec<u32>,
}

impl CarveoutConfig {
    /// The ways of an L1 of `l1`'s sets and line beside `shared_bytes` of resident shared
    /// memory.
    pub fn l1_ways(&self, l1: &CacheConfig, shared_bytes: u64) -> u32 {
        let option = self
            .shared_kb
            .iter()
            .copied()
            .find(|&kb| shared_bytes <= u64::from(kb) * 1024)
            .unwrap_or(self.unified_kb);
        let max_ways =
            u64::from(self.unified_kb) * 1024 / (u64::from(l1.sets) * u64::from(l1.line));
        let share = 1.0 - f64::from(option) / f64::from(self.unified_kb);
        // Rounded to the nearest, as GPGPU-Sim's `max_assoc * l1_ratio + 0.5f`; at least one
        // way where the shared memory takes the whole array (GPGPU-Sim would have none).
        ((max_ways as f64 * share + 0.5) as u32).max(1)
    }

    fn validate(&self, l1: &CacheConfig, shared_memory: u32) -> Result<(), ConfigError> {
        let key = "mem.carveout";
        if self.shared_kb.is_empty() || !self.shared_kb.is_sorted() {
            return Err(invalid(
                &format!("{key}.shared_kb"),
                "must list the shared-memory sizes in KB, ascending",
            ));
        }
        let largest = *self.shared_kb.last().expect("not empty");
        if largest > self.unified_kb {
            return Err(invalid(
                &format!("{key}.shared_kb"),
                "no size may exceed mem.carveout.unified_kb",
            ));
        }
        if u64::from(shared_memory) > u64::from(largest) * 1024 {
            return Err(invalid(
                "sm.shared_memory",
                "exceeds the largest mem.carveout.shared_kb",
            ));
        }
        let line_set = u64::from(l1.sets) * u64::from(l1.line);
        if line_set == 0 || !(u64::from(self.unified_kb) * 1024).is_multiple_of(line_set) {
            return Err(invalid(
                &format!("{key}.unified_kb"),
                "must be a whole number of ways of mem.l1d (sets x line bytes)",
            ));
        }
        Ok(())
    }
}

/// Shared memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedMemConfig {
    pub banks: u32,
    pub bank_bytes: u32,
    pub latency: u32,
}

/// L2, split in slices by address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2Config {
    pub slices: u32,
    /// Geometry and latency of each slice.
    pub slice: CacheConfig,
    /// Latency of an atomic operation performed at the slice, beyond the access itself; the
    /// slice takes nothing else meanwhile (at least a cycle, as any access).
    pub atomic_latency: u32,
    /// Whether a slice sends its replies into the interconnect one at a time, a reply packet
    /// a cycle, a packet a sector (GPGPU-Sim's `gpgpu_sim::cycle` pops one reply a memory
    /// sub-partition a cycle, and the L2 answers each sector request on its own). `false`:
    /// replies leave as soon as they are ready, any number a cycle.
    #[serde(default, skip_serializing_if = "is_false")]
    pub reply_port: bool,
    /// With `reply_port`: the interconnect's flit in bytes, a reply packet (a sector of data
    /// and an 8-byte header; a store's acknowledgement of a sector the header alone; an
    /// atomic's data and the header) holding the port a cycle a flit (booksim's injection,
    /// `-icnt_flit_size`); 0: a packet is one flit whatever its size (GPGPU-Sim's local
    /// crossbar, `network_mode 2`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reply_flit_bytes: u32,
}

/// DRAM: channels of banks with row buffers, scheduled FR-FCFS under GDDR5 command timing
/// (`memory/dram.rs`), with GPGPU-Sim's parameters and address mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    pub channels: u32,
    /// Command clock in MHz (GPGPU-Sim's fourth clock domain); the timing parameters count
    /// its cycles.
    pub clock_mhz: u32,
    /// Fixed latency in core cycles from an L2 slice to the DRAM scheduler (GPGPU-Sim's
    /// `dram_latency`: the controller's queues and pins, on the request path only).
    pub latency: u32,
    /// Width of a channel's data bus in bytes (GPGPU-Sim: `dram_buswidth` ×
    /// `n_mem_per_ctrlr`).
    pub bus_bytes: u32,
    /// Burst length: data transfers per column command.
    pub burst: u32,
    /// Data transfers per command-clock cycle (GDDR5: 4; GPGPU-Sim's
    /// `dram_data_command_freq_ratio`). A column command moves `burst × bus_bytes` bytes and
    /// holds the data bus `burst / data_rate` cycles.
    pub data_rate: u32,
    /// Banks per channel (a power of two).
    pub banks: u32,
    /// Bank groups per channel (a power of two dividing `banks`); a bank's group is its lowest
    /// bank bits (GPGPU-Sim's `dram_bnkgrp_indexing_policy` 1).
    pub bank_groups: u32,
    /// GPGPU-Sim's `gpgpu_mem_addr_mapping` string: `dramid@BIT;` and 64 letters (R row,
    /// B bank, C/S column, 0 unused), most significant bit first (`memory/addrmap.rs`).
    pub address_map: String,
    /// How an address picks its channel and L2 slice.
    pub partition_indexing: PartitionIndexing,
    /// Writebacks a channel holds before scheduling them together (a write drain): nothing
    /// waits for a writeback, and batching them turns the bus around once per batch.
    pub write_batch: u32,
    /// Command timing, in DRAM command-clock cycles.
    pub timing: DramTiming,
}

/// How addresses pick their DRAM channel and L2 slice (`mem.dram.partition_indexing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionIndexing {
    /// As the mapping string says (GPGPU-Sim's indexing 0).
    Consecutive,
    /// The slice rotated by an xor fold of the higher address bits, so strides that are
    /// multiples of the slice count still spread (warpsim's own hash).
    Hashed,
    /// GPGPU-Sim's IPOLY indexing (2): the slice number hashed with the higher address bits
    /// (`addrdec_tlx`). Needs 16, 32 or 64 slices once the channels are rounded up to a power
    /// of two.
    Ipoly,
    /// GPGPU-Sim's RANDOM indexing (4): a pseudo-random slice per 128-byte chunk (the slice
    /// bits' chunk). GPGPU-Sim draws `rand()` at a chunk's first access; warpsim takes a
    /// fixed hash of the chunk, the same distribution but not the same draws.
    Random,
}

/// DRAM command timing in command-clock cycles (GPGPU-Sim's `gpgpu_dram_timing_opt`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramTiming {
    /// Column to column, any banks.
    pub ccd: u32,
    /// Column to column in one bank group.
    pub ccdl: u32,
    /// Activate to activate, any banks.
    pub rrd: u32,
    /// Activate to read.
    pub rcd: u32,
    /// Activate to precharge.
    pub ras: u32,
    /// Precharge to activate.
    pub rp: u32,
    /// Activate to activate in one bank.
    pub rc: u32,
    /// Read column command to data (CAS latency).
    pub cl: u32,
    /// Write column command to data.
    pub wl: u32,
    /// End of write data to a read command.
    pub cdlr: u32,
    /// End of write data to precharge (write recovery).
    pub wr: u32,
    /// Read to precharge in one bank group.
    pub rtpl: u32,
}

/// Names of the presets, in the order `--help` lists them.
pub const PRESETS: [&str; 11] = [
    "gtx480",
    "gtx480-4bank",
    "gtx480-cmrc",
    "titanx",
    "titanx-bow",
    "gtx980",
    "v100",
    "rtx2060",
    "rtx3070",
    "a100",
    "h100",
];

fn preset_text(name: &str) -> Option<&'static str> {
    Some(match name {
        "gtx480" => include_str!("../configs/gtx480.toml"),
        "gtx480-4bank" => include_str!("../configs/gtx480-4bank.toml"),
        "gtx480-cmrc" => include_str!("../configs/gtx480-cmrc.toml"),
        "titanx" => include_str!("../configs/titanx.toml"),
        "titanx-bow" => include_str!("../configs/titanx-bow.toml"),
        "gtx980" => include_str!("../configs/gtx980.toml"),
        "v100" => include_str!("../configs/v100.toml"),
        "rtx2060" => include_str!("../configs/rtx2060.toml"),
        "rtx3070" => include_str!("../configs/rtx3070.toml"),
        "a100" => include_str!("../configs/a100.toml"),
        "h100" => include_str!("../configs/h100.toml"),
        _ => return None,
    })
}

impl GpuConfig {
    /// A preset by name, or a TOML file by path (anything containing `/` or ending in
    /// `.toml`), with `overrides` (`key=value`) applied, validated.
    pub fn load(name_or_path: &str, overrides: &[String]) -> Result<GpuConfig, ConfigError> {
        let text = if name_or_path.contains('/') || name_or_path.ends_with(".toml") {
            std::fs::read_to_string(name_or_path).map_err(|e| ConfigError::Io {
                path: name_or_path.to_string(),
                message: e.to_string(),
            })?
        } else {
            preset_text(name_or_path)
                .ok_or_else(|| ConfigError::UnknownPreset {
                    name: name_or_path.to_string(),
                    known: PRESETS.join(", "),
                })?
                .to_string()
        };
        let is_file = name_or_path.contains('/') || name_or_path.ends_with(".toml");
        GpuConfig::from_toml(&text, overrides).map_err(|e| match is_file {
            true => locate_in_file(e, &text, name_or_path, overrides),
            false => e,
        })
    }

    /// Puts GPGPU-Sim 3.x's operand collector in place of the configured one: one step a
    /// cycle, no issue latch, one operand a unit a step, no execute or LD/ST latches (the seeds'
    /// baseline; what hand-worked cycle counts of the register-file techniques assume).
    pub fn use_single_step_collector(&mut self) {
        self.sm.rf.collector_steps = 1;
        self.sm.rf.issue_latch = false;
        self.sm.rf.multi_read_units = false;
        self.sm.execute_latches = 0;
        self.sm.ldst_latch = 0;
    }

    /// A preset by name, without overrides (panics on an unknown name: for tests and defaults).
    pub fn preset(name: &str) -> GpuConfig {
        GpuConfig::load(name, &[]).expect("a built-in preset")
    }

    /// Parses TOML text, applies overrides, validates.
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<GpuConfig, ConfigError> {
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ConfigError::Parse(e.to_string()))?;
        insert_optional_defaults(&mut table);
        let base = table.clone();
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        check_compute_capability(&table)?;
        let cfg: GpuConfig = match toml::Value::Table(table).try_into() {
            Ok(cfg) => cfg,
            Err(e) => return Err(blame_override(base, overrides, &e)),
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// The configuration as TOML (what `--dump-config` prints).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a configuration serializes")
    }

    /// With sub-cores, every resource a scheduler owns a share of divides evenly.
    fn validate_sub_cores(&self) -> Result<(), ConfigError> {
        let n = self.sm.schedulers;
        if n > 8 {
            return Err(invalid("sm.schedulers", "at most 8 sub-cores are modelled"));
        }
        let u = &self.sm.units;
        let c = &self.sm.rf.collectors;
        let shared = [
            ("sm.max_warps", self.sm.max_warps),
            ("sm.rf.banks", self.sm.rf.banks),
            ("sm.rf.collectors.sp", c.sp),
            ("sm.rf.collectors.sfu", c.sfu),
            ("sm.rf.collectors.int", c.int),
            ("sm.rf.collectors.dp", c.dp),
            ("sm.rf.collectors.mem", c.mem),
            ("sm.rf.collectors.general", c.general),
            ("sm.units.sp", u.sp),
            ("sm.units.sfu", u.sfu),
            ("sm.units.int", u.int),
            ("sm.units.dp", u.dp),
            ("sm.units.tensor", u.tensor),
        ];
        for (key, v) in shared {
            if v % n != 0 {
                return Err(invalid(
                    key,
                    &format!("{v} does not divide among sm.schedulers = {n} sub-cores"),
                ));
            }
        }
        Ok(())
    }

    /// Rejects values no GPU can have, naming the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = [
            ("gpu.sms", self.gpu.sms),
            ("gpu.clock_mhz", self.gpu.clock_mhz),
            ("sm.max_threads", self.sm.max_threads),
            ("sm.max_warps", self.sm.max_warps),
            ("sm.max_ctas", self.sm.max_ctas),
            ("sm.registers", self.sm.registers),
            ("sm.register_granularity", self.sm.register_granularity),
            ("sm.shared_granularity", self.sm.shared_granularity),
            ("sm.schedulers", self.sm.schedulers),
            ("sm.two_level_active", self.sm.two_level_active),
            ("sm.issue_width", self.sm.issue_width),
            ("sm.ibuffer_entries", self.sm.ibuffer_entries),
            ("sm.fetch_width", self.sm.fetch_width),
            ("sm.fetch_warps", self.sm.fetch_warps),
            ("sm.scoreboard_entries", self.sm.scoreboard_entries),
            ("sm.writeback_ports", self.sm.writeback_ports),
            ("sm.rf.banks", self.sm.rf.banks),
            ("sm.rf.sub_banks", self.sm.rf.sub_banks),
            ("sm.rf.sub_bank_bytes", self.sm.rf.sub_bank_bytes),
            ("sm.rf.dispatch_width", self.sm.rf.dispatch_width),
            ("sm.rf.collector_steps", self.sm.rf.collector_steps),
            ("sm.units.sp", self.sm.units.sp),
            ("sm.units.sfu", self.sm.units.sfu),
            ("sm.units.ldst", self.sm.units.ldst),
            ("mem.sector", self.mem.sector),
            ("mem.l1_requests_per_cycle", self.mem.l1_requests_per_cycle),
            ("mem.shared.banks", self.mem.shared.banks),
            ("mem.shared.bank_bytes", self.mem.shared.bank_bytes),
            ("mem.l2.slices", self.mem.l2.slices),
            ("mem.dram.channels", self.mem.dram.channels),
            ("mem.dram.clock_mhz", self.mem.dram.clock_mhz),
            ("mem.dram.bus_bytes", self.mem.dram.bus_bytes),
            ("mem.dram.burst", self.mem.dram.burst),
            ("mem.dram.data_rate", self.mem.dram.data_rate),
            ("mem.dram.timing.ccd", self.mem.dram.timing.ccd),
            ("mem.dram.write_batch", self.mem.dram.write_batch),
        ];
        for (key, v) in positive {
            if v == 0 {
                return Err(invalid(key, "must be at least 1"));
            }
        }
        if self.gpu.watchdog_cycles == 0 {
            return Err(invalid("gpu.watchdog_cycles", "must be at least 1"));
        }
        if self.gpu.memory_mib == 0 {
            return Err(invalid("gpu.memory_mib", "must be at least 1"));
        }
        if self.gpu.memory_mib > MAX_MEMORY_MIB {
            return Err(invalid(
                "gpu.memory_mib",
                &format!("must be at most {MAX_MEMORY_MIB} (1 TiB)"),
            ));
        }
        if self.gpu.sms > MAX_SMS {
            return Err(invalid(
                "gpu.sms",
                &format!(
                    "must be at most {MAX_SMS}: every SM's state is allocated at launch (GPUs \
                     have up to 144)"
                ),
            ));
        }
        // Per-SM structures sized by these are allocated when the GPU is built; the ceilings
        // are far above any GPU's and keep that allocation small.
        for (key, v, max) in [
            ("sm.ibuffer_entries", self.sm.ibuffer_entries, 64),
            ("sm.scoreboard_entries", self.sm.scoreboard_entries, 256),
            ("sm.units.sp", self.sm.units.sp, MAX_UNITS),
            ("sm.units.sfu", self.sm.units.sfu, MAX_UNITS),
            ("sm.units.int", self.sm.units.int, MAX_UNITS),
            ("sm.units.dp", self.sm.units.dp, MAX_UNITS),
            ("sm.units.ldst", self.sm.units.ldst, MAX_UNITS),
        ] {
            if v > max {
                return Err(invalid(
                    key,
                    &format!("must be at most {max} (each is allocated on every SM)"),
                ));
            }
        }
        // A CTA and a scheduler each hold at least one of the SM's warp slots.
        for (key, v) in [
            ("sm.max_ctas", self.sm.max_ctas),
            ("sm.schedulers", self.sm.schedulers),
        ] {
            if v > self.sm.max_warps {
                return Err(invalid(
                    key,
                    &format!(
                        "must not exceed sm.max_warps ({}): each holds at least one warp",
                        self.sm.max_warps
                    ),
                ));
            }
        }
        if self.sm.fetch_warps > self.sm.max_warps {
            return Err(invalid("sm.fetch_warps", "must not exceed sm.max_warps"));
        }
        if self.sm.max_warps > 64 {
            return Err(invalid(
                "sm.max_warps",
                "at most 64 warps per SM are modelled",
            ));
        }
        if self.sm.max_warps * 32 < self.sm.max_threads {
            return Err(invalid(
                "sm.max_threads",
                &format!(
                    "{} threads need more than sm.max_warps = {} warps",
                    self.sm.max_threads, self.sm.max_warps
                ),
            ));
        }
        if self.sm.sub_cores {
            self.validate_sub_cores()?;
        }
        let warp_register_bytes = self.sm.rf.sub_banks * self.sm.rf.sub_bank_bytes;
        if warp_register_bytes != 128 {
            return Err(invalid(
                "sm.rf.sub_banks",
                &format!(
                    "sub_banks × sub_bank_bytes must be 128 (one 32-lane warp register), not {warp_register_bytes}"
                ),
            ));
        }
        let bow = &self.sm.rf.bow;
        if bow.window == 0 || bow.window > 16 {
            return Err(invalid("sm.rf.bow.window", "must be 1 to 16 instructions"));
        }
        if bow.entries > 64 {
            return Err(invalid(
                "sm.rf.bow.entries",
                "at most 64 operand entries per collector are modelled (0: 4 per instruction of the window)",
            ));
        }
        let finereg = &self.sm.rf.finereg;
        if finereg.pending_registers >= self.sm.registers {
            return Err(invalid(
                "sm.rf.finereg.pending_registers",
                &format!(
                    "must leave registers for active CTAs: less than sm.registers = {} (0: half)",
                    self.sm.registers
                ),
            ));
        }
        if finereg.access_cycles == 0 {
            return Err(invalid("sm.rf.finereg.access_cycles", "must be at least 1"));
        }
        if finereg.live_info_entries == 0 {
            return Err(invalid(
                "sm.rf.finereg.live_info_entries",
                "must be at least 1",
            ));
        }
        if self.sm.rf.larf.entries == 0 {
            return Err(invalid(
                "sm.rf.larf.entries",
                "must be at least 1 (the technique larf-infinite has no limit)",
            ));
        }
        self.validate_power()?;
        if self.sm.rf.rfc.entries == 0 || self.sm.rf.rfc.entries > 64 {
            return Err(invalid("sm.rf.rfc.entries", "must be 1 to 64 per warp"));
        }
        let c = &self.sm.rf.collectors;
        if c.sp + c.sfu + c.int + c.dp + c.mem + c.general > 64 {
            return Err(invalid(
                "sm.rf.collectors",
                "at most 64 collector units per SM are modelled",
            ));
        }
        if self.sm.rf.collector_steps > 8 {
            return Err(invalid(
                "sm.rf.collector_steps",
                "at most 8 operand-collector steps a cycle are modelled",
            ));
        }
        if self.sm.ldst_latch > 64 {
            return Err(invalid(
                "sm.ldst_latch",
                "at most 64 memory instructions in the LD/ST latch are modelled",
            ));
        }
        if self.sm.execute_latches > 64 {
            return Err(invalid(
                "sm.execute_latches",
                "at most 64 cycles of pipeline latches are modelled",
            ));
        }
        if self.sm.rf.banks > 64 {
            return Err(invalid("sm.rf.banks", "at most 64 banks are modelled"));
        }
        if c.general == 0 && (c.sp == 0 || c.sfu == 0 || c.mem == 0) {
            return Err(invalid(
                "sm.rf.collectors",
                "without general collector units, sp, sfu and mem need at least one each",
            ));
        }
        for (key, cache) in [
            ("sm.icache", &self.sm.icache),
            ("mem.l1d", &self.mem.l1d),
            ("mem.constant", &self.mem.constant),
            ("mem.l2.slice", &self.mem.l2.slice),
        ] {
            cache.validate(key)?;
        }
        // Every cache's tags are allocated when the GPU is built: an SM's three caches on
        // every SM, and the L2's slices.
        let per_sm = [&self.sm.icache, &self.mem.l1d, &self.mem.constant]
            .iter()
            .map(|c| c.lines())
            .sum::<u64>();
        let lines = per_sm * u64::from(self.gpu.sms)
            + self.mem.l2.slice.lines() * u64::from(self.mem.l2.slices);
        if lines > MAX_CACHE_LINES_TOTAL {
            return Err(invalid(
                "gpu.sms",
                &format!(
                    "the caches of {} SMs and {} L2 slices hold {lines} lines, more than the \
                     {MAX_CACHE_LINES_TOTAL} the model allocates (about 80 bytes a line)",
                    self.gpu.sms, self.mem.l2.slices
                ),
            ));
        }
        for (key, cache) in [
            ("sm.icache", &self.sm.icache),
            ("mem.constant", &self.mem.constant),
            ("mem.l2.slice", &self.mem.l2.slice),
        ] {
            if !cache.sectored {
                return Err(invalid(
                    &format!("{key}.sectored"),
                    "unsupported: only the L1 data cache can fetch whole lines",
                ));
            }
        }
        for (key, cache) in [
            ("mem.l1d", &self.mem.l1d),
            ("mem.l2.slice", &self.mem.l2.slice),
        ] {
            if cache.perfect {
                return Err(invalid(
                    &format!("{key}.perfect"),
                    "unsupported: only the instruction and constant caches can be perfect",
                ));
            }
        }
        if !self.mem.sector.is_power_of_two() || !self.mem.l1d.line.is_multiple_of(self.mem.sector)
        {
            return Err(invalid(
                "mem.sector",
                "must be a power of two dividing the L1 line",
            ));
        }
        if let Some(c) = &self.mem.carveout {
            c.validate(&self.mem.l1d, self.sm.shared_memory)?;
        }
        self.mem.dram.validate(&self.mem.l2)?;
        self.energy.validate()?;
        self.mem
            .snooze
            .validate(self.mem.sector, self.mem.l1d.line, self.mem.l2.slice.line)?;
        Ok(())
    }

    /// Slumber's states must be ordered (a deeper state wakes no faster and leaks no more),
    /// and Slumber models the baseline register file with static residency: it follows each
    /// warp register by its architectural number, which other techniques move, cache or
    /// share, and leaks over the registers static residency allocates.
    fn validate_power(&self) -> Result<(), ConfigError> {
        let s = &self.sm.rf.slumber;
        for (key, share) in [
            ("shallow_leakage", s.shallow_leakage),
            ("deep_leakage", s.deep_leakage),
            ("off_leakage", s.off_leakage),
        ] {
            if !share.is_finite() || !(0.0..=1.0).contains(&share) {
                return Err(invalid(
                    &format!("sm.rf.slumber.{key}"),
                    &format!("is a share of the leakage when on: 0 to 1, not {share}"),
                ));
            }
        }
        if s.shallow_wake == 0 || s.shallow_wake > s.deep_wake || s.deep_wake > s.off_wake {
            return Err(invalid(
                "sm.rf.slumber.shallow_wake",
                &format!(
                    "wake-up latencies must satisfy 1 <= shallow_wake <= deep_wake <= off_wake, not {} / {} / {}",
                    s.shallow_wake, s.deep_wake, s.off_wake
                ),
            ));
        }
        if !(s.deep_leakage <= s.shallow_leakage && s.off_leakage <= s.deep_leakage) {
            return Err(invalid(
                "sm.rf.slumber.deep_leakage",
                "a deeper state must leak no more: off_leakage <= deep_leakage <= shallow_leakage",
            ));
        }
        if s.max_idle == 0 {
            return Err(invalid(
                "sm.rf.slumber.max_idle",
                "must be at least 1 cycle",
            ));
        }
        if self.sm.rf.technique == Technique::Modern && !self.sm.sub_cores {
            return Err(invalid(
                "sm.rf.technique",
                "modern models the register file of sub-cores: it needs sm.sub_cores = true",
            ));
        }
        if self.sm.rf.power == RfPower::Slumber {
            if self.sm.rf.technique != Technique::Baseline {
                return Err(invalid(
                    "sm.rf.power",
                    "slumber models the baseline register file (sm.rf.technique = \"baseline\"): other techniques move, cache or share registers",
                ));
            }
            if self.sm.rf.residency != Residency::Static {
                return Err(invalid(
                    "sm.rf.power",
                    "slumber needs sm.rf.residency = \"static\" (its leakage is over the registers static residency allocates)",
                ));
            }
        }
        Ok(())
    }
}

impl DramConfig {
    fn validate(&self, l2: &L2Config) -> Result<(), ConfigError> {
        let t = &self.timing;
        for (name, v) in [
            ("ccd", t.ccd),
            ("ccdl", t.ccdl),
            ("rrd", t.rrd),
            ("rcd", t.rcd),
            ("ras", t.ras),
            ("rp", t.rp),
            ("rc", t.rc),
            ("cl", t.cl),
            ("wl", t.wl),
            ("cdlr", t.cdlr),
            ("wr", t.wr),
            ("rtpl", t.rtpl),
            ("burst", self.burst),
        ] {
            if v > MAX_DRAM_CYCLES {
                let key = if name == "burst" {
                    "mem.dram.burst".to_string()
                } else {
                    format!("mem.dram.timing.{name}")
                };
                return Err(invalid(
                    &key,
                    &format!(
                        "must be at most {MAX_DRAM_CYCLES} DRAM cycles: a channel keeps the \
                         distances between its commands within a window of 2,048 cycles \
                         (GDDR5, GDDR6 and HBM2 need under 100)"
                    ),
                ));
            }
        }
        if !self.burst.is_multiple_of(self.data_rate) {
            return Err(invalid(
                "mem.dram.burst",
                &format!(
                    "must be a multiple of mem.dram.data_rate ({}): a burst holds the bus whole cycles",
                    self.data_rate
                ),
            ));
        }
        if !self.banks.is_power_of_two() || self.banks > 64 {
            return Err(invalid(
                "mem.dram.banks",
                "must be a power of two, at most 64",
            ));
        }
        if !self.bank_groups.is_power_of_two() || self.bank_groups > self.banks {
            return Err(invalid(
                "mem.dram.bank_groups",
                "must be a power of two no larger than mem.dram.banks",
            ));
        }
        if !l2.slices.is_multiple_of(self.channels) {
            return Err(invalid(
                "mem.l2.slices",
                &format!(
                    "must be a multiple of mem.dram.channels ({}): each channel has the same slices",
                    self.channels
                ),
            ));
        }
        self.address_map(l2)
            .map(|_| ())
            .map_err(|e| invalid("mem.dram.address_map", &e))
    }

    /// The parsed address mapping for these channels and `l2`'s slices.
    pub fn address_map(&self, l2: &L2Config) -> Result<crate::memory::AddressMap, String> {
        crate::memory::AddressMap::parse(
            &self.address_map,
            self.channels,
            l2.slices / self.channels.max(1),
            self.banks,
            l2.slice.line,
            self.partition_indexing,
        )
    }

    /// Bytes one column command moves.
    pub fn atom_bytes(&self) -> u32 {
        self.burst * self.bus_bytes
    }

    /// Command-clock cycles a column command holds the data bus.
    pub fn burst_cycles(&self) -> u32 {
        self.burst / self.data_rate.max(1)
    }
}

impl CacheConfig {
    fn validate(&self, key: &str) -> Result<(), ConfigError> {
        for (field, v) in [("sets", self.sets), ("ways", self.ways)] {
            if v == 0 {
                return Err(invalid(&format!("{key}.{field}"), "must be at least 1"));
            }
        }
        if self.ways > MAX_CACHE_WAYS {
            return Err(invalid(
                &format!("{key}.ways"),
                &format!("must be at most {MAX_CACHE_WAYS}: every lookup searches every way"),
            ));
        }
        if self.lines() > MAX_CACHE_LINES {
            return Err(invalid(
                &format!("{key}.sets"),
                &format!(
                    "sets × ways must be at most {MAX_CACHE_LINES} lines: the tags are \
                     allocated up front (about 80 bytes a line)"
                ),
            ));
        }
        if !self.line.is_power_of_two() {
            return Err(invalid(&format!("{key}.line"), "must be a power of two"));
        }
        if self.set_index == SetIndex::FermiHash && !matches!(self.sets, 32 | 64) {
            return Err(invalid(
                &format!("{key}.set_index"),
                "fermi-hash needs 32 or 64 sets",
            ));
        }
        if self.set_index == SetIndex::Ipoly && !matches!(self.sets, 16 | 32 | 64) {
            return Err(invalid(
                &format!("{key}.set_index"),
                "ipoly needs 16, 32 or 64 sets",
            ));
        }
        if self.mshrs > 0 && self.mshr_merge == 0 {
            return Err(invalid(
                &format!("{key}.mshr_merge"),
                "must be at least 1 when the cache has MSHRs",
            ));
        }
        Ok(())
    }

    /// Lines (sets × ways).
    pub fn lines(&self) -> u64 {
        u64::from(self.sets) * u64::from(self.ways)
    }

    /// Capacity in bytes.
    pub fn bytes(&self) -> u64 {
        self.lines() * u64::from(self.line)
    }
}

/// serde's default for switches that are on unless a configuration says otherwise.
fn yes() -> bool {
    true
}

/// Whether a switch is on (`skip_serializing_if` for switches on by default).
fn is_true(on: &bool) -> bool {
    *on
}

/// Whether a switch is off (`skip_serializing_if` for switches off by default).
fn is_false(on: &bool) -> bool {
    !*on
}

/// Whether a count is 0 (`skip_serializing_if` for counts 0 by default).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// serde's default for counts that are 1 unless a configuration says otherwise.
fn one() -> u32 {
    1
}

/// The largest device memory a configuration may ask for: 1 TiB (the runtime reserves twice
/// the capacity in address space, for guard gaps).
pub const MAX_MEMORY_MIB: u64 = 1 << 20;

/// The most execution units of one kind an SM may have (`sm.units.*`).
pub const MAX_UNITS: u32 = 64;

/// The most lines one cache may have (sets × ways).
pub const MAX_CACHE_LINES: u64 = 1 << 20;
/// The most ways a cache may have.
pub const MAX_CACHE_WAYS: u32 = 1024;
/// The most cache lines of the whole GPU: every SM's instruction, L1 data and constant
/// caches and the L2's slices (H100's come to about 0.7 M).
pub const MAX_CACHE_LINES_TOTAL: u64 = 1 << 25;

/// The most SMs a configuration may have (`gpu.sms`).
pub const MAX_SMS: u32 = 4096;

/// The longest DRAM timing parameter or burst, in DRAM cycles: the distances derived from
/// them (a read-to-write turnaround is CL + burst + 2 − WL, a write-to-read WL + burst +
/// CDLR) stay below the 2,048 cycles a channel's command calendar searches
/// (`memory/dram.rs`, `HORIZON`); with 2^31 a single command's search walked billions of
/// cycles (issue 49).
pub const MAX_DRAM_CYCLES: u32 = 512;

fn invalid(key: &str, message: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.to_string(),
    }
}

/// `gpu.compute_capability`, if the table has it, is a string naming a compute capability: an
/// error naming the key otherwise (deserialization alone would not name it).
fn check_compute_capability(table: &toml::Table) -> Result<(), ConfigError> {
    const KEY: &str = "gpu.compute_capability";
    let Some(value) = table
        .get("gpu")
        .and_then(|gpu| gpu.get("compute_capability"))
    else {
        return Ok(());
    };
    match value {
        toml::Value::String(text) => text
            .parse::<ComputeCapability>()
            .map(|_| ())
            .map_err(|message| invalid(KEY, &message)),
        other => Err(invalid(
            KEY,
            &format!(
                "expected a quoted \"MAJOR.MINOR\" (e.g. \"7.5\"), got the {} `{other}`",
                other.type_str()
            ),
        )),
    }
}

/// Fills the keys and sections a configuration may leave out (`gpu.cta_scheduler`,
/// `mem.request_crossbar`, `mem.l1d.write_through_keeps`; the techniques' sections `sm.rf.bow`, `sm.rf.rfc`, ..., `mem.snooze`: most presets model none
/// of them) and their missing fields with the defaults, so that an override such as
/// `sm.rf.bow.window=2` works on every configuration.
fn insert_optional_defaults(table: &mut toml::Table) {
    if let Some(toml::Value::Table(gpu)) = table.get_mut("gpu") {
        let policy = crate::cta_scheduler::CtaSchedulerPolicy::default();
        gpu.entry("cta_scheduler")
            .or_insert_with(|| toml::Value::try_from(policy).expect("defaults serialize"));
    }
    if let Some(toml::Value::Table(mem)) = table.get_mut("mem") {
        // Switches most presets leave off.
        mem.entry("request_crossbar")
            .or_insert(toml::Value::Boolean(false));
        if let Some(toml::Value::Table(l1d)) = mem.get_mut("l1d") {
            l1d.entry("write_through_keeps")
                .or_insert(toml::Value::Boolean(false));
        }
        let default = toml::Table::try_from(crate::memory::SnoozeConfig::default());
        let section = mem
            .entry("snooze")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(section) = section {
            for (field, value) in default.expect("defaults serialize") {
                section.entry(field).or_insert(value);
            }
        }
    }
    let Some(toml::Value::Table(sm)) = table.get_mut("sm") else {
        return;
    };
    let Some(toml::Value::Table(rf)) = sm.get_mut("rf") else {
        return;
    };
    let defaults = [
        ("bow", toml::Table::try_from(BowConfig::default())),
        ("rfc", toml::Table::try_from(RfcConfig::default())),
        ("regmutex", toml::Table::try_from(RegMutexConfig::default())),
        ("finereg", toml::Table::try_from(FineRegConfig::default())),
        ("larf", toml::Table::try_from(LarfConfig::default())),
        ("slumber", toml::Table::try_from(SlumberConfig::default())),
    ];
    rf.entry("power")
        .or_insert_with(|| toml::Value::try_from(RfPower::default()).expect("defaults serialize"));
    for (key, default) in defaults {
        let default = default.expect("defaults serialize");
        let section = rf
            .entry(key)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let toml::Value::Table(section) = section {
            for (field, value) in default {
                section.entry(field).or_insert(value);
            }
        }
    }
}

/// Applies `a.b.c=value` to the table: the key must exist; the value is TOML (a number, a
/// boolean, a quoted string) or, failing that, a bare string (`sm.scheduler=lrr`). A key that
/// holds a string takes an unquoted value as written (`gpu.compute_capability=8.6`).
fn apply_override(table: &mut toml::Table, text: &str) -> Result<(), ConfigError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| ConfigError::BadOverride(text.to_string()))?;
    let (key, value) = (key.trim(), value.trim());
    let path: Vec<&str> = key.split('.').collect();
    let (last, parents) = path.split_last().expect("split yields one part");
    let mut at = table;
    for part in parents {
        at = match at.get_mut(*part) {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(ConfigError::UnknownKey(key.to_string())),
        };
    }
    let slot = at
        .get_mut(*last)
        .ok_or_else(|| ConfigError::UnknownKey(key.to_string()))?;
    if slot.is_table() {
        return Err(ConfigError::Invalid {
            key: key.to_string(),
            message: "is a section; set one of its fields".into(),
        });
    }
    let parsed = format!("v = {value}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .filter(|parsed| parsed.is_str() || !slot.is_str())
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    if std::mem::discriminant(&parsed) != std::mem::discriminant(slot) {
        let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
        let message = if slot.is_integer() && digits.bytes().all(|b| b.is_ascii_digit()) {
            format!("`{value}` is out of range for an integer (a signed 64-bit number)")
        } else {
            let ty = slot.type_str();
            let article = if ty.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            format!("expected {article} {ty}, got `{value}`")
        };
        return Err(ConfigError::Invalid {
            key: key.to_string(),
            message,
        });
    }
    *slot = parsed;
    Ok(())
}

/// The error of a configuration that does not deserialize after `overrides` were applied to
/// `base`: naming the first override that makes it fail (with the range an integer field
/// takes), or the configuration itself if none does.
/// `error`, of the configuration file `path` holding `text` loaded with `overrides`, with the
/// line of the value it is about: a key's value the file sets (and no override replaced), or
/// the value a type error points at (its key found from where it lies). Otherwise unchanged.
fn locate_in_file(error: ConfigError, text: &str, path: &str, overrides: &[String]) -> ConfigError {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return error;
    };
    let overridden = |key: &str| {
        overrides
            .iter()
            .any(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == key))
    };
    let (key, message, span) = match &error {
        ConfigError::Invalid { key, message } if !overridden(key) => {
            let Some(span) = span_of(doc.get_ref(), key) else {
                return error;
            };
            (key.clone(), message.clone(), span)
        }
        // A value of the wrong type or out of range: the file's own deserialization points
        // at it.
        ConfigError::Parse(_) => {
            let Err(e) = toml::from_str::<GpuConfig>(text) else {
                return error;
            };
            let (Some(span), Some(key)) = (
                e.span(),
                e.span().and_then(|sp| key_at(doc.get_ref(), sp.start, "")),
            ) else {
                return error;
            };
            if overridden(&key) {
                return error;
            }
            (key, with_range(e.message()), span)
        }
        _ => return error,
    };
    ConfigError::InFile {
        path: path.to_string(),
        line: text[..span.start.min(text.len())].matches('\n').count() + 1,
        error: Box::new(ConfigError::Invalid { key, message }),
    }
}

/// Where the value of the dotted `key` lies in a parsed file.
fn span_of(table: &toml::de::DeTable<'_>, key: &str) -> Option<std::ops::Range<usize>> {
    let (head, rest) = match key.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (key, None),
    };
    let value = table.iter().find(|(k, _)| k.get_ref().as_ref() == head)?.1;
    match (rest, value.get_ref()) {
        (None, _) => Some(value.span()),
        (Some(rest), toml::de::DeValue::Table(t)) => span_of(t, rest),
        (Some(_), _) => None,
    }
}

/// The dotted key whose value holds byte `offset` of the file (the innermost), under `prefix`.
fn key_at(table: &toml::de::DeTable<'_>, offset: usize, prefix: &str) -> Option<String> {
    for (k, v) in table.iter() {
        let key = match prefix {
            "" => k.get_ref().to_string(),
            p => format!("{p}.{}", k.get_ref()),
        };
        if let toml::de::DeValue::Table(t) = v.get_ref()
            && let Some(inner) = key_at(t, offset, &key)
        {
            return Some(inner);
        }
        if v.span().contains(&offset) {
            return Some(key);
        }
    }
    None
}

fn blame_override(
    mut base: toml::Table,
    overrides: &[String],
    err: &toml::de::Error,
) -> ConfigError {
    for o in overrides {
        if apply_override(&mut base, o).is_err() {
            break;
        }
        if let Err(e) = toml::Value::Table(base.clone()).try_into::<GpuConfig>() {
            let key = o.split_once('=').map_or(o.as_str(), |(k, _)| k.trim());
            return ConfigError::Invalid {
                key: key.to_string(),
                message: with_range(e.message()),
            };
        }
    }
    ConfigError::Parse(with_range(err.message()))
}

/// Serde's "invalid value: integer `-3`, expected u32" as "`-3` is out of range (0 to
/// 4294967295)"; any other message as it is.
fn with_range(message: &str) -> String {
    let range = |ty: &str| -> Option<(i128, i128)> {
        Some(match ty {
            "u8" => (0, u8::MAX.into()),
            "u16" => (0, u16::MAX.into()),
            "u32" => (0, u32::MAX.into()),
            "u64" | "usize" => (0, u64::MAX.into()),
            "i32" => (i32::MIN.into(), i32::MAX.into()),
            "i64" => (i64::MIN.into(), i64::MAX.into()),
            _ => return None,
        })
    };
    let parsed = message
        .strip_prefix("invalid value: integer `")
        .and_then(|rest| rest.split_once("`, expected "))
        .and_then(|(value, ty)| Some((value, range(ty.trim())?)));
    match parsed {
        Some((value, (lo, hi))) => format!("`{value}` is out of range ({lo} to {hi})"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_validates() {
        for name in PRESETS {
            let c = GpuConfig::preset(name);
            assert_eq!(c.name, name);
        }
    }

    /// GPGPU-Sim's split worked by hand (`shader_core_config::max_cta`): L1 ways =
    /// round(max_assoc × (1 − carve-out / unified)), max_assoc = the dl1 string's ways ×
    /// unified / the dl1 string's size.
    #[test]
    fn the_carveout_gives_gpgpusims_l1() {
        let ways = |preset: &str, shared_kb: u64| {
            let c = GpuConfig::preset(preset);
            let l1 = &c.mem.l1d;
            let ways = c.mem.carveout.unwrap().l1_ways(l1, shared_kb * 1024);
            u64::from(ways) * u64::from(l1.sets) * u64::from(l1.line) / 1024
        };
        // SM75_RTX2060: 96 KB array, options 32 and 64 KB; dl1 S:4:128:64 (32 KB): max 192 ways.
        assert_eq!(ways("rtx2060", 0), 64); // 32 KB carve-out: 128 ways
        assert_eq!(ways("rtx2060", 33), 32); // 64 KB carve-out: 64 ways
        // SM7_QV100: 128 KB, options 0, 8, 16, 32, 64, 96; dl1 S:4:128:64: max 256 ways.
        assert_eq!(ways("v100", 0), 128);
        assert_eq!(ways("v100", 9), 112); // 16 KB carve-out: 224 ways
        assert_eq!(ways("v100", 96), 32); // 64 ways
        // SM80_A100: 192 KB, the largest option 164 KB: 384 x 28/192 = 56 ways, 28 KB.
        assert_eq!(ways("a100", 100), 28);
    }

    #[test]
    fn overrides_change_one_field() {
        let c = GpuConfig::load(
            "gtx480",
            &["sm.rf.banks=8".into(), "sm.scheduler=lrr".into()],
        )
        .unwrap();
        assert_eq!(c.sm.rf.banks, 8);
        assert_eq!(c.sm.scheduler, SchedulerPolicy::Lrr);
        let base = GpuConfig::preset("gtx480");
        assert_eq!(c.mem, base.mem);
    }

    #[test]
    fn out_of_range_integers_name_the_key_and_the_range() {
        let err = |o: &str| {
            GpuConfig::load("gtx480", &[o.to_string()])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("sm.rf.banks=-3"),
            "configuration key `sm.rf.banks`: `-3` is out of range (0 to 4294967295)"
        );
        assert_eq!(
            err("sm.rf.banks=4294967296"),
            "configuration key `sm.rf.banks`: `4294967296` is out of range (0 to 4294967295)"
        );
        assert_eq!(
            err("sm.rf.banks=99999999999999999999"),
            "configuration key `sm.rf.banks`: `99999999999999999999` is out of range for an \
             integer (a signed 64-bit number)"
        );
        assert_eq!(
            err("sm.rf.banks=many"),
            "configuration key `sm.rf.banks`: expected an integer, got `many`"
        );
    }

    #[test]
    fn impossible_dram_settings_name_the_key() {
        let err = |o: &[&str]| {
            let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
            GpuConfig::load("gtx480", &o).unwrap_err().to_string()
        };
        assert!(err(&["mem.dram.burst=6"]).starts_with("configuration key `mem.dram.burst`"));
        assert!(err(&["mem.dram.banks=12"]).starts_with("configuration key `mem.dram.banks`"));
        assert!(
            err(&["mem.dram.bank_groups=32"])
                .starts_with("configuration key `mem.dram.bank_groups`")
        );
        assert!(err(&["mem.l2.slices=8"]).starts_with("configuration key `mem.l2.slices`"));
        assert_eq!(
            err(&["mem.dram.banks=32"]),
            "configuration key `mem.dram.address_map`: 4 bank bits name 16 banks; mem.dram.banks is 32"
        );
        assert!(err(&["mem.dram.address_map=RRRR"]).contains("dramid@"));
        assert!(err(&["mem.dram.timing.ccd=0"]).contains("mem.dram.timing.ccd"));
        assert!(err(&["mem.dram.write_batch=0"]).contains("mem.dram.write_batch"));
        // A DRAM timing parameter can be overridden like any other key.
        let c = GpuConfig::load("gtx480", &["mem.dram.timing.rcd=14".to_string()]).unwrap();
        assert_eq!(c.mem.dram.timing.rcd, 14);
    }

    #[test]
    fn bad_overrides_name_the_key() {
        let err = |o: &str| GpuConfig::load("gtx480", &[o.to_string()]).unwrap_err();
        assert_eq!(
            err("sm.rf.bankz=8"),
            ConfigError::UnknownKey("sm.rf.bankz".into())
        );
        assert_eq!(
            err("sm.nothing.banks=8"),
            ConfigError::UnknownKey("sm.nothing.banks".into())
        );
        assert_eq!(
            err("sm.rf.banks"),
            ConfigError::BadOverride("sm.rf.banks".into())
        );
        assert!(
            matches!(err("sm.rf.banks=0"), ConfigError::Invalid { key, .. } if key == "sm.rf.banks")
        );
        assert!(
            matches!(err("sm.rf.banks=many"), ConfigError::Invalid { key, .. } if key == "sm.rf.banks")
        );
        assert!(
            matches!(err("mem.l1d.line=48"), ConfigError::Invalid { key, .. } if key == "mem.l1d.line")
        );
        assert!(matches!(
            err("sm.scheduler=fifo"),
            ConfigError::Invalid { key, message } if key == "sm.scheduler" && message.contains("fifo")
        ));
        assert!(matches!(err("sm.rf=3"), ConfigError::Invalid { key, .. } if key == "sm.rf"));
    }

    /// A configuration file's bad value is reported with its line as well as its key: a
    /// value validation refuses, and one out of its type's range (which deserialization
    /// reports without a key). A value an override replaced is the override's error.
    #[test]
    fn a_files_bad_value_names_its_line() {
        let dir = std::env::temp_dir().join(format!("warpsim-config-line-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let preset = preset_text("gtx480").unwrap();
        let line = preset
            .lines()
            .position(|l| l.starts_with("sms = "))
            .unwrap()
            + 1;
        let load = |value: &str, overrides: &[&str]| {
            let path = dir.join("gpu.toml");
            let text = preset.replacen("sms = 15", &format!("sms = {value}"), 1);
            std::fs::write(&path, text).unwrap();
            let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
            GpuConfig::load(path.to_str().unwrap(), &overrides)
                .unwrap_err()
                .to_string()
        };
        let path = dir.join("gpu.toml").display().to_string();
        assert_eq!(
            load("0", &[]),
            format!("{path}:{line}: configuration key `gpu.sms`: must be at least 1")
        );
        assert_eq!(
            load("-3", &[]),
            format!(
                "{path}:{line}: configuration key `gpu.sms`: `-3` is out of range (0 to \
                 4294967295)"
            )
        );
        assert_eq!(
            load("15", &["gpu.sms=0"]),
            "configuration key `gpu.sms`: must be at least 1"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Values the model cannot simulate are refused at load with the key: SMs beyond what
    /// is allocated at launch (65,537 panicked after 3.4 GB), CTAs or schedulers beyond the
    /// warp slots, DRAM distances beyond the calendar's window (`wl = 2147483647` hung),
    /// per-SM structures and caches whose allocation aborted (`sm.units.sp = 2147483647`).
    #[test]
    fn values_the_model_cannot_simulate_are_refused_with_their_key() {
        let refused = |set: &str| -> String {
            let e = GpuConfig::load("gtx480", &[set.to_string()])
                .expect_err(set)
                .to_string();
            let key = set.split('=').next().unwrap();
            assert!(e.contains(key), "{set}: {e}");
            e
        };
        let e = refused("gpu.sms=65537");
        assert!(e.contains("at most 4096"), "{e}");
        GpuConfig::load("gtx480", &["gpu.sms=4096".to_string()]).unwrap();
        // gtx480 has 48 warp slots.
        for key in ["sm.max_ctas", "sm.schedulers"] {
            let e = refused(&format!("{key}=49"));
            assert!(e.contains("sm.max_warps (48)"), "{e}");
        }
        for name in [
            "ccd", "ccdl", "rrd", "rcd", "ras", "rp", "rc", "cl", "wl", "cdlr", "wr", "rtpl",
        ] {
            let e = refused(&format!("mem.dram.timing.{name}=2147483647"));
            assert!(e.contains("at most 512 DRAM cycles"), "{e}");
            refused(&format!("mem.dram.timing.{name}=513"));
        }
        refused("mem.dram.burst=1024");
        for key in [
            "sm.ibuffer_entries",
            "sm.scoreboard_entries",
            "sm.units.sp",
            "sm.units.sfu",
            "sm.units.int",
            "sm.units.dp",
            "sm.units.ldst",
            "sm.icache.ways",
            "mem.l1d.ways",
            "mem.constant.ways",
            "mem.l2.slice.ways",
        ] {
            refused(&format!("{key}=2147483647"));
        }
        for cache in ["sm.icache", "mem.constant", "mem.l2.slice"] {
            let e = refused(&format!("{cache}.sets=2147483647"));
            assert!(e.contains("sets × ways"), "{e}");
        }
        // Each within its own bound, together too many: 4,096 SMs of 64 K-line L1s.
        let e = GpuConfig::load(
            "gtx480",
            &[
                "gpu.sms=4096".to_string(),
                "mem.l1d.sets=64".to_string(),
                "mem.l1d.ways=1024".to_string(),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("gpu.sms") && e.contains("lines"), "{e}");
    }

    #[test]
    fn unknown_presets_and_fields_are_errors() {
        assert!(matches!(
            GpuConfig::load("gtx9000", &[]),
            Err(ConfigError::UnknownPreset { .. })
        ));
        let text = format!("{}\nextra = 1\n", preset_text("gtx480").unwrap());
        assert!(matches!(
            GpuConfig::from_toml(&text, &[]),
            Err(ConfigError::Parse(m)) if m.contains("extra")
        ));
    }

    #[test]
    fn every_preset_has_its_compute_capability() {
        let expected = [
            ("gtx480", "2.0"),
            ("gtx480-4bank", "2.0"),
            ("gtx480-cmrc", "2.0"),
            ("titanx", "6.1"),
            ("titanx-bow", "6.1"),
            ("gtx980", "5.2"),
            ("v100", "7.0"),
            ("rtx2060", "7.5"),
            ("rtx3070", "8.6"),
            ("a100", "8.0"),
            ("h100", "9.0"),
        ];
        assert_eq!(expected.len(), PRESETS.len());
        for (name, cc) in expected {
            let c = GpuConfig::preset(name);
            assert_eq!(c.gpu.compute_capability.to_string(), cc, "{name}");
            let dumped = format!("compute_capability = \"{cc}\"");
            assert!(c.to_toml().contains(&dumped), "{name}");
        }
    }

    /// The modern presets split the SM into four sub-cores and fix GPGPU-Sim's adaptive
    /// L1/shared split at the largest shared carve-out and the L1 of the 64 KB one
    /// (docs/timing.md, "Modern presets").
    #[test]
    fn modern_presets_have_sub_cores_and_a_fixed_carve_out() {
        for (name, l1_kb, shared_kb) in [
            ("rtx2060", 32, 64),
            ("rtx3070", 64, 100),
            ("a100", 128, 164),
            ("h100", 192, 228),
        ] {
            let c = GpuConfig::preset(name);
            assert!(c.sm.sub_cores && c.sm.schedulers == 4, "{name}");
            assert_eq!(c.sm.rf.technique, Technique::Baseline, "{name}");
            assert_eq!(c.mem.l1d.bytes(), l1_kb * 1024, "{name}");
            assert_eq!(u64::from(c.sm.shared_memory), shared_kb * 1024, "{name}");
        }
    }

    #[test]
    fn compute_capabilities_are_checked() {
        let cc = |o: &str| {
            GpuConfig::load("gtx480", &[format!("gpu.compute_capability={o}")])
                .map(|c| c.gpu.compute_capability)
        };
        // Quoted or not on the command line.
        let sm86 = ComputeCapability { major: 8, minor: 6 };
        assert_eq!(cc("8.6"), Ok(sm86));
        assert_eq!(cc("\"8.6\""), Ok(sm86));
        assert_eq!(cc("12.0").unwrap().to_string(), "12.0");
        for bad in [
            "7", "7.10", "0.5", "100.0", "sm_75", "7.5.1", "-7.5", "7.", ".5", "x",
        ] {
            assert!(
                matches!(cc(bad), Err(ConfigError::Invalid { key, message })
                    if key == "gpu.compute_capability" && message.contains("MAJOR.MINOR")),
                "{bad}: {:?}",
                cc(bad)
            );
        }
        // In a file it is a quoted string, and required.
        let gtx480 = preset_text("gtx480").unwrap();
        let line = gtx480
            .lines()
            .find(|l| l.starts_with("compute_capability"))
            .unwrap();
        for (replacement, expected) in [
            (
                "compute_capability = \"sm_20\"",
                "key `gpu.compute_capability`: `sm_20` is not a compute capability",
            ),
            (
                "compute_capability = 2.0",
                "key `gpu.compute_capability`: expected a quoted \"MAJOR.MINOR\"",
            ),
            ("", "missing field `compute_capability`"),
        ] {
            let text = gtx480.replace(line, replacement);
            let err = GpuConfig::from_toml(&text, &[]).unwrap_err().to_string();
            assert!(err.contains(expected), "{replacement}: {err}");
        }
    }

    #[test]
    fn a_dumped_config_reads_back() {
        let c = GpuConfig::preset("titanx");
        assert_eq!(GpuConfig::from_toml(&c.to_toml(), &[]).unwrap(), c);
    }
}
