//! `warpsim rf`: register-file techniques side by side.
//!
//! One timing simulation per (technique, sample), run concurrently on a pool of host threads.
//! Each job has its own device (one host thread, its technique's configuration), so its
//! figures are those of `warpsim run SAMPLE --set sm.rf.technique=T`, whatever the thread
//! count and whatever runs beside it; results are gathered by job index, so the output order
//! is fixed too. Every figure is then compared with the baseline on the same sample.

use crate::suite_arg;
use clap::Args;
use runtime::{Device, DeviceConfig};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::{Sample, Size};

/// `warpsim rf` options.
#[derive(Args)]
pub(crate) struct RfArgs {
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "baseline",
        value_name = "T,T...",
        help = technique_help()
    )]
    techniques: Vec<String>,
    /// Samples to run (`saxpy`, `<suite>/<name>` or just `<name>`; `warpsim list`), suites
    /// (rodinia, parboil, polybench, sdk, dnn), or `all` (the default without --suite).
    #[arg(long, value_delimiter = ',', value_name = "S,S...")]
    samples: Vec<String>,
    /// Run every sample of these suites too: rodinia, parboil, polybench, sdk, dnn, all.
    #[arg(long, value_delimiter = ',', value_name = "SUITE,...", value_parser = suite_arg)]
    suite: Vec<String>,
    /// Problem size of every run.
    #[arg(long, value_enum, default_value_t = Size::Small)]
    size: Size,
    /// The GPU: a preset (gtx480, gtx480-4bank, gtx480-cmrc, titanx, titanx-bow, gtx980, v100,
    /// rtx2060, rtx3070, a100, h100) or a TOML file.
    #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
    config: String,
    /// Override a configuration field for every technique, e.g. `--set sm.rf.banks=8`
    /// (`sm.rf.technique` is set per technique).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Registers per thread for occupancy: `warpsim` (its allocation), `ptxas` (ptxas's
    /// count) or a count for every kernel.
    #[arg(long, value_name = "warpsim|ptxas|N", default_value = "warpsim", value_parser = crate::RegsArg::parse)]
    regs: crate::RegsArg,
    #[command(flatten)]
    sampling: crate::TimingSamplingArgs,
    /// Simulations run at once (default: every host core). Each is deterministic and runs on
    /// one thread, so the results do not depend on this.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Write every job's figures, ratios and full statistics, and the geometric means, as
    /// JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw cycles and register-file energy relative to the baseline, per sample and
    /// technique, as an SVG bar chart.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Draw the same chart into this directory (made if missing), as techniques.svg, as
    /// `run --plots` draws its charts.
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// No progress bar (it is also hidden when standard error is not a terminal).
    #[arg(long)]
    quiet: bool,
}

/// The help of `--techniques`, naming every technique the configuration accepts.
fn technique_help() -> String {
    format!(
        "Register-file techniques to compare, each run as `--set sm.rf.technique=T`, or \
         `--set sm.rf.residency=T` for a residency policy (known: {}). The baseline always \
         runs too: it is the reference of every ratio",
        technique_names().join(", ")
    )
}

/// The names `--techniques` accepts: every `sm.rf.technique`, then every `sm.rf.residency`
/// but the baseline's `static`.
pub(crate) fn technique_names() -> Vec<&'static str> {
    let mut names = variant_names::<timing::config::Technique>();
    names.extend(residency_names());
    names
}

/// The residency policies `--techniques` accepts (every `sm.rf.residency` but `static`).
fn residency_names() -> Vec<&'static str> {
    let mut names = variant_names::<timing::config::Residency>();
    names.retain(|&n| n != "static");
    names
}

/// The configuration override that runs technique `t`.
pub(crate) fn technique_override(t: &str) -> String {
    if residency_names().contains(&t) {
        format!("sm.rf.residency={t}")
    } else {
        format!("sm.rf.technique={t}")
    }
}

/// The variant names of a unit-variant enum as its serde derive spells them: the derive hands
/// a deserializer the list of names, which this one keeps.
fn variant_names<'de, T: serde::Deserialize<'de>>() -> Vec<&'static str> {
    use serde::de::{self, Visitor};

    struct VariantNames<'a>(&'a mut &'static [&'static str]);

    impl<'de> de::Deserializer<'de> for VariantNames<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not an enum"))
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _name: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = variants;
            Err(de::Error::custom("variant names read"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
            identifier ignored_any
        }
    }

    let mut names: &'static [&'static str] = &[];
    // The probe always fails: it only reads the names.
    let _ = T::deserialize(VariantNames(&mut names));
    names.to_vec()
}

/// One compared figure: its JSON key, its column header, and its value in a run.
pub(crate) struct Metric {
    pub(crate) key: &'static str,
    pub(crate) header: &'static str,
    pub(crate) value: fn(&TimingStats) -> f64,
}

/// How many figures are compared.
const FIGURES: usize = 9;

/// The figures compared, in table order.
pub(crate) const METRICS: [Metric; FIGURES] = [
    Metric {
        key: "cycles",
        header: "cycles",
        value: |t| t.gpu_sim_cycle as f64,
    },
    Metric {
        key: "ipc",
        header: "IPC",
        value: |t| t.gpu_ipc,
    },
    Metric {
        key: "bank_reads",
        header: "bank rd",
        value: |t| t.rf_counts.bank_reads as f64,
    },
    Metric {
        key: "bank_writes",
        header: "bank wr",
        value: |t| t.rf_counts.bank_writes as f64,
    },
    Metric {
        key: "bank_conflicts",
        header: "conflicts",
        value: |t| t.rf.bank_conflicts as f64,
    },
    Metric {
        key: "collector_residency",
        header: "coll.res",
        value: |t| t.rf.collector_wait_cycles as f64 / t.warp_insts.max(1) as f64,
    },
    Metric {
        key: "rf_dynamic_uj",
        header: "dyn µJ",
        value: |t| t.energy.rf_dynamic_pj / 1e6,
    },
    Metric {
        key: "rf_leakage_uj",
        header: "leak µJ",
        value: |t| t.energy.rf_leakage_pj / 1e6,
    },
    Metric {
        key: "occupancy",
        header: "occup.",
        value: |t| t.achieved_occupancy,
    },
];

/// How one (technique, sample) simulation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Status {
    /// Ran and matched the CPU reference.
    Pass,
    /// Ran, but the results differ from the CPU reference (its figures are still reported).
    Fail,
    /// Did not complete (a fault, a timing deadlock, a panic).
    Error,
}

/// One simulation's outcome.
pub(crate) struct JobResult {
    pub(crate) status: Status,
    /// The validation verdict, or the error.
    pub(crate) message: String,
    /// Every launch together; `None` when the job did not complete.
    pub(crate) total: Option<TimingStats>,
}

/// One (technique, sample) entry of the JSON file.
#[derive(Serialize)]
struct JobJson<'a> {
    technique: &'a str,
    sample: &'a str,
    status: Status,
    message: &'a str,
    /// The compared figures, by key.
    figures: Option<serde_json::Map<String, serde_json::Value>>,
    /// Each figure divided by the baseline's on the same sample (absent when either run
    /// failed to complete; null where the baseline's figure is 0 and this one is not).
    relative: Option<serde_json::Map<String, serde_json::Value>>,
    /// Every statistic of the run (`warpsim run --stats-json`'s `total`).
    stats: Option<&'a TimingStats>,
}

/// Geometric means of one technique's ratios over the samples.
#[derive(Serialize)]
struct GeomeanJson<'a> {
    technique: &'a str,
    /// Per figure: the geometric mean, or null when no sample had a finite positive ratio.
    relative: serde_json::Map<String, serde_json::Value>,
    /// Per figure: samples that entered the mean.
    samples: serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
struct RfJson<'a> {
    config: &'a str,
    overrides: &'a [String],
    size: &'a str,
    /// `--kernel-minsts` and `--launch-waves` (0: everything timed).
    kernel_minsts: u64,
    launch_waves: u32,
    techniques: &'a [String],
    samples: Vec<&'a str>,
    /// The compared figures: what each key of `figures` means is in docs/rf.md.
    figures: Vec<&'a str>,
    jobs: Vec<JobJson<'a>>,
    geomean: Vec<GeomeanJson<'a>>,
}

/// `warpsim rf`.
pub(crate) fn run(args: RfArgs) -> Result<ExitCode, String> {
    let mut techniques = vec!["baseline".to_string()];
    for t in &args.techniques {
        if !techniques.contains(t) {
            techniques.push(t.clone());
        }
    }
    let mut names = args.samples.clone();
    names.extend(args.suite.iter().cloned());
    if names.is_empty() {
        names.push("all".into());
    }
    let samples = registry::select(&names)?;
    // Every technique's configuration is checked before anything runs: a misspelt name is a
    // usage error, not a row of failures an hour later.
    let mut configs = Vec::new();
    for t in &techniques {
        let mut overrides = args.overrides.clone();
        overrides.push(technique_override(t));
        configs.push(GpuConfig::load(&args.config, &overrides).map_err(|e| match e {
            timing::ConfigError::Invalid { key, .. } if key == "sm.rf.technique" => format!(
                "error: configuration key `sm.rf.technique`: unknown technique `{t}` (known: {})",
                technique_names().join(", ")
            ),
            e => format!("error: {e}"),
        })?);
    }
    // What every run's device shares: the registers occupancy assumes, the sampling.
    let mut common = DeviceConfig {
        timing_sampling: args.sampling.sampling(),
        ..DeviceConfig::default()
    };
    args.regs.configure(&mut common)?;
    let jobs: Vec<(usize, &dyn Sample)> = samples
        .iter()
        .flat_map(|&s| (0..techniques.len()).map(move |t| (t, s)))
        .collect();
    let threads = args
        .threads
        .map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |n| n as usize,
        )
        .min(jobs.len())
        .max(1);
    eprintln!(
        "warpsim rf: {} technique(s) × {} sample(s) on {} ({} size), {threads} simulation(s) at once",
        techniques.len(),
        samples.len(),
        configs[0].name,
        args.size.name()
    );
    let results = run_jobs(&jobs, &configs, &techniques, &common, &args, threads);
    // results[s * techniques + t] is technique t on sample s.
    let nt = techniques.len();
    let at = |s: usize, t: usize| &results[s * nt + t];
    let figures = |r: &JobResult| r.total.as_ref().map(|t| METRICS.map(|m| (m.value)(t)));
    let relative = |s: usize, t: usize| -> Option<[Option<f64>; FIGURES]> {
        let (v, b) = (figures(at(s, t))?, figures(at(s, 0))?);
        Some(std::array::from_fn(|k| ratio(v[k], b[k])))
    };

    println!(
        "Register-file techniques on {} ({} size{}); the baseline is the reference of every ratio.",
        configs[0].name,
        args.size.name(),
        if args.overrides.is_empty() {
            String::new()
        } else {
            format!(", {}", args.overrides.join(" "))
        }
    );
    println!();
    let name_width = samples
        .iter()
        .map(|s| s.name().len())
        .chain(["geometric mean".len()])
        .max()
        .unwrap_or(0);
    let tech_width = techniques.iter().map(String::len).max().unwrap_or(0).max(9);
    let header = |first: &str| {
        let mut h = format!("{first:<name_width$}  {:<tech_width$}", "technique");
        for m in &METRICS {
            h.push_str(&format!(" {:>10}", m.header));
        }
        h
    };
    println!("{}  result", header("sample"));
    for (s, sample) in samples.iter().enumerate() {
        for (t, tech) in techniques.iter().enumerate() {
            let r = at(s, t);
            let mut line = format!("{:<name_width$}  {tech:<tech_width$}", sample.name());
            match figures(r) {
                Some(v) => {
                    for (k, x) in v.iter().enumerate() {
                        line.push_str(&format!(" {:>10}", absolute(k, *x)));
                    }
                    line.push_str(&format!(
                        "  {}",
                        if r.status == Status::Pass {
                            "PASS".to_string()
                        } else {
                            format!("FAIL: {}", brief(&r.message))
                        }
                    ));
                }
                None => line.push_str(&format!("  ERROR: {}", brief(&r.message))),
            }
            println!("{}", line.trim_end());
        }
    }
    if !common.timing_sampling.is_full() {
        println!();
        println!(
            "Sampled (--kernel-minsts {}, --launch-waves {}): share of each sample's warp instructions timed, the same for every technique (the rest ran functionally):",
            args.sampling.kernel_minsts, args.sampling.launch_waves
        );
        let shares: Vec<String> = samples
            .iter()
            .enumerate()
            .map(|(s, sample)| {
                let share = at(s, 0).total.as_ref().map_or_else(
                    || "n/a".to_string(),
                    |t| format!("{:.2}%", 100.0 * t.timed_share()),
                );
                format!("{} {share}", sample.name())
            })
            .collect();
        println!("{}", shares.join(", "));
    }
    println!();
    println!("Relative to the baseline (technique / baseline on the same sample):");
    println!("{}", header("sample"));
    for (s, sample) in samples.iter().enumerate() {
        for (t, tech) in techniques.iter().enumerate().skip(1) {
            let mut line = format!("{:<name_width$}  {tech:<tech_width$}", sample.name());
            match relative(s, t) {
                Some(v) => {
                    for x in v {
                        line.push_str(&format!(" {:>10}", ratio_text(x)));
                    }
                }
                None => line.push_str("  (no figures: a run did not complete)"),
            }
            println!("{line}");
        }
    }
    let geomeans: Vec<[(Option<f64>, usize); FIGURES]> = (0..nt)
        .map(|t| {
            std::array::from_fn(|k| {
                geomean((0..samples.len()).filter_map(|s| relative(s, t).and_then(|v| v[k])))
            })
        })
        .collect();
    for (t, tech) in techniques.iter().enumerate() {
        let mut line = format!("{:<name_width$}  {tech:<tech_width$}", "geometric mean");
        for (g, _) in geomeans[t] {
            line.push_str(&format!(" {:>10}", ratio_text(g)));
        }
        println!("{line}");
    }
    println!();
    for line in [
        "cycles: simulated cycles; IPC: thread instructions per cycle; bank rd/wr: register-bank",
        "reads and writes; conflicts: operand reads that lost bank arbitration, per cycle waited;",
        "coll.res: collector residency, cycles from collector allocation to dispatch per warp",
        "instruction; dyn/leak µJ: register-file dynamic and leakage energy; occup.: achieved",
        "occupancy. docs/rf.md has the details and the energy model.",
    ] {
        println!("{line}");
    }

    if let Some(path) = &args.json {
        let keys = |v: [Option<f64>; FIGURES]| {
            METRICS
                .iter()
                .zip(v)
                .map(|(m, x)| (m.key.to_string(), json_number(x)))
                .collect::<serde_json::Map<_, _>>()
        };
        let jobs_json = (0..samples.len())
            .flat_map(|s| (0..nt).map(move |t| (s, t)))
            .map(|(s, t)| {
                let r = at(s, t);
                JobJson {
                    technique: &techniques[t],
                    sample: samples[s].name(),
                    status: r.status,
                    message: &r.message,
                    figures: figures(r).map(|v| keys(v.map(Some))),
                    relative: relative(s, t).map(keys),
                    stats: r.total.as_ref(),
                }
            })
            .collect();
        let doc = RfJson {
            config: &configs[0].name,
            overrides: &args.overrides,
            size: args.size.name(),
            kernel_minsts: args.sampling.kernel_minsts,
            launch_waves: args.sampling.launch_waves,
            techniques: &techniques,
            samples: samples.iter().map(|s| s.name()).collect(),
            figures: METRICS.iter().map(|m| m.key).collect(),
            jobs: jobs_json,
            geomean: techniques
                .iter()
                .zip(&geomeans)
                .map(|(tech, g)| GeomeanJson {
                    technique: tech,
                    relative: keys(g.map(|(x, _)| x)),
                    samples: METRICS
                        .iter()
                        .zip(g)
                        .map(|(m, (_, n))| (m.key.to_string(), (*n).into()))
                        .collect(),
                })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&doc).expect("figures serialize");
        crate::output::write_text(path, &text).map_err(|e| format!("error: {e}"))?;
    }
    let mut charts: Vec<PathBuf> = args.svg.iter().cloned().collect();
    if let Some(dir) = &args.plots {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
        charts.push(dir.join("techniques.svg"));
    }
    if !charts.is_empty() {
        let names: Vec<&str> = samples.iter().map(|s| s.name()).collect();
        // Per panel, per technique: the ratio on each sample, then the geometric mean.
        let series = |k: usize| -> Vec<Vec<Option<f64>>> {
            (0..nt)
                .map(|t| {
                    (0..samples.len())
                        .map(|s| relative(s, t).and_then(|v| v[k]))
                        .chain([geomeans[t][k].0])
                        .collect()
                })
                .collect()
        };
        let energy: Vec<Vec<Option<f64>>> = (0..nt)
            .map(|t| {
                let mut per_sample: Vec<Option<f64>> = (0..samples.len())
                    .map(|s| total_energy_ratio(at(s, t), at(s, 0)))
                    .collect();
                let (g, _) = geomean(per_sample.iter().flatten().copied());
                per_sample.push(g);
                per_sample
            })
            .collect();
        let title = format!(
            "warpsim rf: {} ({} size), relative to the baseline",
            configs[0].name,
            args.size.name()
        );
        let panels = [
            ("cycles / baseline", series(0)),
            ("RF energy (dynamic + leakage) / baseline", energy),
        ];
        for path in &charts {
            crate::plots::panels::write(path, &title, &techniques, &names, &panels)?;
        }
    }
    let failed = results.iter().filter(|r| r.status != Status::Pass).count();
    if failed > 0 {
        println!("{failed} of {} simulation(s) failed", results.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs every job on `threads` workers ([`crate::pool`]) under a progress bar; the results
/// come back in job order, whatever order the jobs finished in.
fn run_jobs(
    jobs: &[(usize, &dyn Sample)],
    configs: &[GpuConfig],
    techniques: &[String],
    common: &DeviceConfig,
    args: &RfArgs,
    threads: usize,
) -> Vec<JobResult> {
    let bar = crate::progress::bar(jobs.len() as u64, "simulations", args.quiet);
    let started = std::time::Instant::now();
    let results = crate::pool::map(jobs, threads, |&(t, sample)| {
        let r = run_job(sample, &configs[t], common, args.size);
        bar.set_message(format!("{} {}", techniques[t], sample.name()));
        bar.inc(1);
        r
    });
    bar.finish_and_clear();
    eprintln!(
        "warpsim rf: {} simulation(s) in {:.1} s",
        jobs.len(),
        started.elapsed().as_secs_f64()
    );
    results
}

/// Runs one sample on a device of its own (one host thread, the technique's GPU).
pub(crate) fn run_job(
    sample: &dyn Sample,
    cfg: &GpuConfig,
    common: &DeviceConfig,
    size: Size,
) -> JobResult {
    let error = |message: String| JobResult {
        status: Status::Error,
        message,
        total: None,
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // The job owns `timing_threads` host threads (one unless a sweep's spec says more),
        // for its SMs and for the CTAs it runs functionally.
        let dev = Device::new(DeviceConfig {
            host_threads: common.timing_threads,
            timing_threads: common.timing_threads,
            timing: Some(cfg.clone()),
            kernel_registers: common.kernel_registers.clone(),
            registers_per_thread: common.registers_per_thread,
            timing_sampling: common.timing_sampling,
            ..DeviceConfig::default()
        })?;
        let outcome = sample.run(&dev, size)?;
        Ok::<_, runtime::Error>((outcome.validation, dev.take_timing()))
    }));
    match outcome {
        Ok(Ok((validation, Some(report)))) => JobResult {
            status: if validation.passed() {
                Status::Pass
            } else {
                Status::Fail
            },
            message: validation.to_string(),
            total: Some(report.total),
        },
        Ok(Ok((_, None))) => error("no timing statistics".into()),
        Ok(Err(e)) => error(e.to_string()),
        Err(panic) => error(format!(
            "panicked: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

/// `value / baseline`: 1 when both are 0 (nothing to compare, nothing changed), `None` when
/// only the baseline's is 0.
pub(crate) fn ratio(value: f64, baseline: f64) -> Option<f64> {
    if baseline == 0.0 {
        (value == 0.0).then_some(1.0)
    } else {
        Some(value / baseline)
    }
}

/// Register-file energy, dynamic and leakage together, relative to the baseline's.
fn total_energy_ratio(r: &JobResult, baseline: &JobResult) -> Option<f64> {
    let (v, b) = (r.total.as_ref()?, baseline.total.as_ref()?);
    ratio(v.energy.rf_total_pj, b.energy.rf_total_pj)
}

/// Geometric mean of the finite positive values, and how many there were.
pub(crate) fn geomean(values: impl Iterator<Item = f64>) -> (Option<f64>, usize) {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        sum += v.ln();
        n += 1;
    }
    ((n > 0).then(|| (sum / n as f64).exp()), n)
}

/// An absolute figure as the table prints it (metric `k` of [`METRICS`]).
fn absolute(k: usize, v: f64) -> String {
    match METRICS[k].key {
        "ipc" | "collector_residency" => format!("{v:.2}"),
        "rf_dynamic_uj" | "rf_leakage_uj" => format!("{v:.2}"),
        "occupancy" => format!("{:.1}%", 100.0 * v),
        _ => format!("{v:.0}"),
    }
}

/// The first line of a message, cut to fit a table row (the JSON has it whole).
fn brief(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".to_string(), |r| format!("{r:.3}"))
}

pub(crate) fn json_number(x: Option<f64>) -> serde_json::Value {
    x.and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}
