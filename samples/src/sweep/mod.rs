//! `warpsim sweep`: a grid of timing simulations (samples × sizes × presets × configuration
//! overrides × register-file techniques) described by a TOML file (docs/sweeps.md), run here on
//! every core or as a SLURM job array, resumed point by point, and merged into one table.
//!
//! ```text
//! SPEC.toml ──spec──► points (grid order, each with an id from its parameters)
//!   warpsim sweep SPEC            ──local──► OUTPUT/points/<point>.json  (those missing)
//!   warpsim sweep SPEC --slurm    ──slurm──► OUTPUT/slurm/NAME.sbatch → sbatch: each array
//!                                            task runs `warpsim sweep SPEC --point N`
//!   warpsim sweep collect SPEC    ──collect► OUTPUT/results.csv, results.json, plots/*.svg
//! ```

mod collect;
mod local;
mod slurm;
mod spec;

use crate::rf::Metric;
use clap::{Args, Subcommand};
use local::Selection;
use spec::Spec;
use std::path::PathBuf;
use std::process::ExitCode;

/// `warpsim sweep` options.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct SweepArgs {
    #[command(subcommand)]
    action: Option<SweepAction>,
    /// The sweep's specification (docs/sweeps.md; an example: sweeps/example.toml).
    #[arg(value_name = "SPEC.toml", required = true)]
    spec: Option<PathBuf>,
    /// Where the results are: a JSON file per point in OUTPUT/points (default: the spec's
    /// `output`, else a directory named after the spec, beside it).
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// List the points, numbered, and whether each has its result; run nothing. With --slurm:
    /// write the sbatch script and print it, without submitting it.
    #[arg(long)]
    dry_run: bool,
    /// Submit the points without results to SLURM as a job array (sbatch), with the spec's
    /// [slurm] resource requests, instead of running them here.
    #[arg(long, conflicts_with_all = ["point", "batch", "threads"])]
    slurm: bool,
    /// Run only point N (`--dry-run` numbers them), if it has no result yet.
    #[arg(long, value_name = "N", conflicts_with = "batch")]
    point: Option<usize>,
    /// Run only batch K: points K·B to K·B + B − 1, B being the spec's slurm.points_per_task.
    #[arg(long, value_name = "K")]
    batch: Option<usize>,
    /// Host threads to use (default: every host core): that many simulations at once, or
    /// this over the spec's `[run] timing_threads` when each takes several. Simulations are
    /// deterministic, so the results depend on neither.
    #[arg(long, value_parser = crate::host_threads)]
    threads: Option<usize>,
    /// Refuse to run unless the spec's points are still those this digest names: the sbatch
    /// script passes it, so that an array task never runs a point a changed spec renumbered.
    #[arg(long, value_name = "HEX")]
    grid_digest: Option<String>,
    /// No progress bar (it is also hidden when standard error is not a terminal).
    #[arg(long)]
    quiet: bool,
    /// Run the points in this process (each point otherwise runs in a process of its own, so
    /// that one that aborts, panics or hangs is recorded as that point's error). What the
    /// sweep's own child processes are started with.
    #[arg(long, hide = true)]
    in_process: bool,
}

#[derive(Subcommand)]
enum SweepAction {
    /// Merge a sweep's results into one table, OUTPUT/results.csv and results.json (a row per
    /// point: parameters, status, figures, ratios to the baseline), and chart the register-file
    /// comparison of each (size, preset, overrides) as OUTPUT/plots/*.svg. The exit status is 1
    /// if a point has no result yet.
    Collect {
        /// The sweep's specification.
        #[arg(value_name = "SPEC.toml")]
        spec: PathBuf,
        /// Where the results are (default: the spec's `output`).
        #[arg(long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
}

/// `warpsim sweep`.
pub(crate) fn run(args: SweepArgs) -> Result<ExitCode, String> {
    if let Some(SweepAction::Collect { spec, output }) = &args.action {
        return collect::collect(&Spec::load(spec, output.as_deref())?);
    }
    let path = args.spec.as_ref().expect("clap requires SPEC");
    let spec = Spec::load(path, args.output.as_deref())?;
    if let Some(expected) = &args.grid_digest {
        let digest = spec.digest();
        if *expected != digest {
            return Err(format!(
                "error: {}: the grid changed since this job was written (digest {expected}, now {digest}): its point numbers no longer name the same points; submit it again",
                path.display()
            ));
        }
    }
    let selection = match (args.point, args.batch) {
        (Some(n), _) => Selection::Point(n),
        (None, Some(k)) => Selection::Batch(k),
        (None, None) => Selection::All,
    };
    match (args.slurm, args.dry_run) {
        (true, dry_run) => slurm::submit(&spec, dry_run),
        (false, true) => local::list(&spec, &selection),
        (false, false) => local::run(&spec, &selection, args.threads, args.quiet, args.in_process),
    }
}

/// A figure of the merged table: `warpsim rf`'s, and these.
type Figure = Metric;

/// What a sweep adds to `warpsim rf`'s figures.
static EXTRA: [Figure; 2] = [
    Metric {
        key: "warp_insts",
        header: "warp insts",
        value: |t| t.warp_insts as f64,
    },
    Metric {
        key: "rf_energy_uj",
        header: "RF µJ",
        value: |t| t.energy.rf_total_pj / 1e6,
    },
];

/// The figures of a point's result and of the table, in column order: `warpsim rf`'s
/// (docs/rf.md), then warp instructions and register-file energy (dynamic and leakage).
fn figures() -> impl Iterator<Item = &'static Figure> {
    let rf: &'static [Metric] = &crate::rf::METRICS;
    rf.iter().chain(EXTRA.iter())
}

/// A figure as JSON: counts as integers, the rest as numbers (null if not finite).
fn figure_json(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        serde_json::Value::from(x as i64)
    } else {
        crate::rf::json_number(Some(x))
    }
}
