//! `warpsim characterize`: the opportunity each register-file technique exploits, measured on
//! each sample's own instruction streams (functional stepping, no timing model), one row per
//! benchmark plus their average and the published figures; docs/characterization.md explains
//! every column.

use runtime::{Device, DeviceConfig};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use timing::characterize::{Characterization, Summary};
use warpsim::registry;
use warpsim::sample::Size;

/// Options of `warpsim characterize`.
pub(crate) struct CharacterizeOptions {
    /// Sample and suite names (as `registry::select` takes them); empty: every sample.
    pub samples: Vec<String>,
    pub size: Size,
    pub json: Option<PathBuf>,
    pub threads: Option<usize>,
    /// Print Markdown tables instead of aligned text.
    pub markdown: bool,
    pub sampling: timing::characterize::Sampling,
    /// Draw charts of the columns per sample into this directory.
    pub plots: Option<PathBuf>,
}

/// One sample's characterization.
#[derive(Serialize)]
struct Row {
    sample: &'static str,
    passed: bool,
    launches: u64,
    /// Warp instructions executed; `observed.warp_insts` of them were observed.
    warp_insts: u64,
    seconds: f64,
    /// The percentages of `estimate`.
    summary: Summary,
    /// The counts of the whole run estimated from the observed ones (each launch and kernel
    /// weighted by the instructions it executed; `runtime::CharacterizationReport::estimate`).
    estimate: Characterization,
    /// The counts observed.
    observed: Characterization,
    /// Per kernel (launches of one kernel merged), in order of first launch.
    kernels: Vec<KernelRow>,
}

#[derive(Serialize)]
struct KernelRow {
    kernel: String,
    launches: u64,
    warp_insts: u64,
    summary: Summary,
    estimate: Characterization,
    observed: Characterization,
}

/// A table column: its header, the published figure beside it, and how to read it.
struct Column {
    header: &'static str,
    published: &'static str,
    get: fn(&Summary) -> f64,
}

/// Narrow values and read counts.
const WIDTHS: &[Column] = &[
    Column {
        header: "<=1B",
        published: ">33",
        get: |s| s.narrow_all[0],
    },
    Column {
        header: "<=2B",
        published: "",
        get: |s| s.narrow_all[1],
    },
    Column {
        header: "<=3B",
        published: "65",
        get: |s| s.narrow_all[2],
    },
    Column {
        header: "4B",
        published: "29",
        get: |s| s.full_width,
    },
    Column {
        header: "<=3Bact",
        published: "",
        get: |s| s.narrow_active[2],
    },
    Column {
        header: "read0",
        published: "",
        get: |s| s.values_never_read,
    },
    Column {
        header: "read1",
        published: "~70",
        get: |s| s.values_read_once,
    },
    Column {
        header: "read2",
        published: "",
        get: |s| s.values_read_twice,
    },
    Column {
        header: "read>2",
        published: "10",
        get: |s| s.values_read_more,
    },
];

/// BOW windows and multi-source instructions.
const BYPASS: &[Column] = &[
    Column {
        header: "R-IW2",
        published: "45",
        get: |s| s.bypass[0].reads,
    },
    Column {
        header: "W-IW2",
        published: "35",
        get: |s| s.bypass[0].writes,
    },
    Column {
        header: "R-IW3",
        published: "59",
        get: |s| s.bypass[1].reads,
    },
    Column {
        header: "W-IW3",
        published: "52",
        get: |s| s.bypass[1].writes,
    },
    Column {
        header: "R-IW7",
        published: ">70",
        get: |s| s.bypass[2].reads,
    },
    Column {
        header: "W-IW7",
        published: "",
        get: |s| s.bypass[2].writes,
    },
    Column {
        header: ">=2src",
        published: "~40",
        get: |s| s.multi_source_insts,
    },
    Column {
        header: "theirR",
        published: ">70",
        get: |s| s.multi_source_reads,
    },
    Column {
        header: ">=2op",
        published: "~40",
        get: |s| s.multi_operand_insts,
    },
    Column {
        header: "opR",
        published: ">70",
        get: |s| s.multi_operand_reads,
    },
    Column {
        header: "pack",
        published: "69",
        get: |s| s.packable,
    },
    Column {
        header: "1stfit",
        published: "4",
        get: |s| s.first_fit_coalesced,
    },
];

/// Runs `warpsim characterize`.
pub(crate) fn run(opts: &CharacterizeOptions) -> Result<ExitCode, String> {
    let samples = if opts.samples.is_empty() {
        registry::all()
    } else {
        registry::select(&opts.samples)?
    };
    let mut config = DeviceConfig {
        characterize: true,
        characterize_sampling: opts.sampling,
        ..DeviceConfig::default()
    };
    if let Some(t) = opts.threads {
        config.host_threads = t.max(1);
    }
    let dev = Device::new(config).map_err(|e| format!("error: {e}"))?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    let bar = crate::progress::bar(
        samples.len() as u64,
        "samples",
        samples.len() == 1 && opts.size != Size::Large,
    );
    for (done, s) in samples.iter().enumerate() {
        bar.set_position(done as u64);
        bar.set_message(s.name());
        let start = std::time::Instant::now();
        let outcome = s.run(&dev, opts.size);
        let report = dev
            .take_characterization()
            .expect("a characterizing device reports");
        let seconds = start.elapsed().as_secs_f64();
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => {
                bar.suspend(|| println!("{}: ERROR: {e}", s.name()));
                failed.push(s.name());
                continue;
            }
        };
        let passed = outcome.validation.passed();
        bar.suspend(|| println!(
            "{} ({}: {}): {}: {}; {} launch(es), {} of {} warp instructions observed ({:.1}%), {seconds:.1} s",
            s.name(),
            opts.size.name(),
            s.size_description(opts.size),
            if passed { "PASS" } else { "FAIL" },
            outcome.validation,
            outcome.launches,
            report.total.warp_insts,
            report.warp_insts,
            timing::characterize::pct(report.total.warp_insts, report.warp_insts),
        ));
        if !passed {
            failed.push(s.name());
        }
        let kernels: Vec<KernelRow> = report
            .kernel_names()
            .into_iter()
            .map(|name| {
                let launches = report.launches.iter().filter(|l| l.kernel == name);
                let mut observed = Characterization::default();
                let (mut count, mut executed) = (0, 0);
                for l in launches {
                    observed.merge(&l.counts);
                    count += 1;
                    executed += l.executed;
                }
                let estimate = report.estimate_kernel(name);
                KernelRow {
                    kernel: name.to_string(),
                    launches: count,
                    warp_insts: executed,
                    summary: estimate.summary(),
                    estimate,
                    observed,
                }
            })
            .collect();
        let estimate = report.estimate();
        rows.push(Row {
            sample: s.name(),
            passed,
            launches: outcome.launches,
            warp_insts: report.warp_insts,
            seconds,
            summary: estimate.summary(),
            estimate,
            observed: report.total,
            kernels,
        });
        // Written after every sample, so a long run's finished samples survive an interruption.
        if let Some(path) = &opts.json {
            write_json(path, opts, &rows)?;
        }
    }
    bar.finish_and_clear();
    let average = average(&rows);
    print_table(
        "Narrow values (% of register reads and writes, all 32 lanes; act: executing lanes) and reads per value (% of values written)",
        WIDTHS,
        &rows,
        &average,
        opts.markdown,
    );
    print_table(
        "BOW bypassable reads (R, % of reads) and writes (W, % of writes) per instruction window; instructions with >= 2 register sources (32-bit registers; % of warp instructions) and their share of reads, the same for >= 2 register operands (a 64-bit register or vector counting once), and of the multi-source instructions the packable and the first-fit-coalesced (%)",
        BYPASS,
        &rows,
        &average,
        opts.markdown,
    );
    print_classes(&rows, opts.markdown);
    if let Some(path) = &opts.json {
        write_json(path, opts, &rows)?;
    }
    if let Some(dir) = &opts.plots {
        plot(dir, opts.size, &rows, &average)?;
        println!("plots: {}", dir.display());
    }
    if !failed.is_empty() {
        println!("failed: {}", failed.join(", "));
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Draws the narrow values, the reads per value and BOW's bypassable accesses per window, a
/// group of bars per sample and one for the average, into `dir`.
fn plot(
    dir: &std::path::Path,
    size: Size,
    rows: &[Row],
    average: &[(String, f64)],
) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
    let charts = [
        (
            "widths.svg",
            "register values by width, all lanes (% of reads and writes)",
            &["<=1B", "<=2B", "<=3B", "4B"][..],
        ),
        (
            "reads.svg",
            "values by times read (% of values written)",
            &["read0", "read1", "read2", "read>2"][..],
        ),
        (
            "bypass.svg",
            "bypassable reads (R) and writes (W) per instruction window (%)",
            &["R-IW2", "W-IW2", "R-IW3", "W-IW3", "R-IW7", "W-IW7"][..],
        ),
    ];
    let mut categories: Vec<String> = rows.iter().map(|r| r.sample.to_string()).collect();
    categories.push(format!("average ({})", rows.len()));
    for (file, y_label, headers) in charts {
        let series = headers
            .iter()
            .map(|&h| {
                let column = columns().find(|c| c.header == h).expect("a known column");
                let mean = average
                    .iter()
                    .find(|(n, _)| n == h)
                    .map_or(0.0, |(_, v)| *v);
                let values = rows
                    .iter()
                    .map(|r| (column.get)(&r.summary))
                    .chain([mean])
                    .collect();
                (h.to_string(), values)
            })
            .collect();
        crate::plots::bars(
            &dir.join(file),
            &crate::plots::Bars {
                title: &format!("warpsim characterize ({} size)", size.name()),
                y_label,
                categories: categories.clone(),
                series,
                stacked: false,
            },
        )?;
    }
    Ok(())
}

/// Writes the JSON document of `rows`.
fn write_json(
    path: &std::path::Path,
    opts: &CharacterizeOptions,
    rows: &[Row],
) -> Result<(), String> {
    let doc = Json {
        size: opts.size.name(),
        ctas_per_launch: opts.sampling.ctas_per_launch,
        insts_per_kernel: opts.sampling.insts_per_kernel,
        samples: rows,
        average: &average(rows),
        published: published(),
    };
    let text = serde_json::to_string_pretty(&doc).expect("characterization serializes");
    crate::output::write_text(path, &text).map_err(|e| format!("error: {e}"))
}

/// The JSON document `--json` writes.
#[derive(Serialize)]
struct Json<'a> {
    size: &'static str,
    /// CTAs observed per launch and warp instructions observed per kernel (0: all).
    ctas_per_launch: u64,
    insts_per_kernel: u64,
    samples: &'a [Row],
    /// Each column's mean over the samples (every benchmark weighs the same).
    average: &'a [(String, f64)],
    /// The published figures, by column.
    published: Vec<(String, String)>,
}

fn columns() -> impl Iterator<Item = &'static Column> {
    WIDTHS.iter().chain(BYPASS)
}

fn published() -> Vec<(String, String)> {
    columns()
        .map(|c| (c.header.to_string(), c.published.to_string()))
        .collect()
}

/// Each column's mean over the rows: the papers average per benchmark, so each benchmark
/// weighs the same whatever its instruction count.
fn average(rows: &[Row]) -> Vec<(String, f64)> {
    columns()
        .map(|c| {
            let sum: f64 = rows.iter().map(|r| (c.get)(&r.summary)).sum();
            (c.header.to_string(), sum / rows.len().max(1) as f64)
        })
        .collect()
}

fn print_table(
    title: &str,
    cols: &[Column],
    rows: &[Row],
    average: &[(String, f64)],
    markdown: bool,
) {
    let avg = |h: &str| {
        average
            .iter()
            .find(|(n, _)| n == h)
            .map_or(0.0, |(_, v)| *v)
    };
    let line = |name: &str, insts: String, cells: Vec<String>| {
        if markdown {
            println!("| {name} | {insts} | {} |", cells.join(" | "));
        } else {
            let cells: Vec<_> = cells.iter().map(|c| format!("{c:>7}")).collect();
            println!("{name:<24}{insts:>10} {}", cells.join(""));
        }
    };
    println!();
    println!("{title}");
    println!();
    line(
        "benchmark",
        "Minsts".into(),
        cols.iter().map(|c| c.header.to_string()).collect(),
    );
    if markdown {
        println!("|---|---:|{}", "---:|".repeat(cols.len()));
    }
    for r in rows {
        line(
            r.sample.strip_prefix("rodinia/").unwrap_or(r.sample),
            format!("{:.1}", r.summary.warp_insts as f64 / 1e6),
            cols.iter()
                .map(|c| format!("{:.1}", (c.get)(&r.summary)))
                .collect(),
        );
    }
    line(
        &format!("average ({})", rows.len()),
        String::new(),
        cols.iter()
            .map(|c| format!("{:.1}", avg(c.header)))
            .collect(),
    );
    line(
        "published",
        String::new(),
        cols.iter()
            .map(|c| {
                if c.published.is_empty() {
                    "-".into()
                } else {
                    c.published.to_string()
                }
            })
            .collect(),
    );
}

/// Narrow values per opcode class: each class's figures averaged over the samples that execute
/// it.
fn print_classes(rows: &[Row], markdown: bool) {
    println!();
    println!(
        "Narrow values per opcode class (% of the class's register reads and writes, mean over the samples executing it)"
    );
    println!();
    let header = [
        "class", "samples", "share", "<=1B", "<=2B", "<=3B", "<=3Bact",
    ];
    if markdown {
        println!("| {} |", header.join(" | "));
        println!("|---|---:|---:|---:|---:|---:|---:|");
    } else {
        println!(
            "{:<10}{}",
            header[0],
            header[1..]
                .iter()
                .map(|h| format!("{h:>9}"))
                .collect::<String>()
        );
    }
    for (i, class) in timing::decode::OpClass::ALL.iter().enumerate() {
        let mut n = 0usize;
        let mut sums = [0.0f64; 5];
        for r in rows {
            let c = &r.estimate.widths.by_class[i];
            let all = c.reads_all.add(&c.writes_all);
            let active = c.reads_active.add(&c.writes_active);
            let t = &r.estimate.widths.total;
            let total = t.reads_all.add(&t.writes_all).total();
            if all.total() == 0 {
                continue;
            }
            n += 1;
            let shares = all.narrow_shares();
            let v = [
                timing::characterize::pct(all.total(), total),
                shares[0],
                shares[1],
                shares[2],
                active.narrow_shares()[2],
            ];
            for (s, x) in sums.iter_mut().zip(v) {
                *s += x;
            }
        }
        // A class no sample executes has no figures (not zeros).
        let cells: Vec<String> = sums
            .iter()
            .map(|s| match n {
                0 => "-".to_string(),
                n => format!("{:.1}", s / n as f64),
            })
            .collect();
        if markdown {
            println!("| {} | {n} | {} |", class.name(), cells.join(" | "));
        } else {
            let cells: Vec<_> = cells.iter().map(|c| format!("{c:>9}")).collect();
            println!("{:<10}{n:>9}{}", class.name(), cells.join(""));
        }
    }
}
