//! Running a sweep's points here: every point without a result, on a pool of host threads
//! (`warpsim sweep SPEC`), or the points of one array task (`--point N`, `--batch K`). Each
//! point is `warpsim rf`'s job — its own device, one host thread — and its result is written
//! whole to `points/` as soon as it ends, so an interrupted sweep loses only the points in
//! flight, and the next run skips every point that has its file.

use super::Figure;
use super::spec::{Params, Point, Spec};
use crate::rf::{JobResult, Status};
use runtime::DeviceConfig;
use serde::Serialize;
use std::ops::Range;
use std::process::ExitCode;
use timing::TimingStats;

/// A point's result file. Everything in it follows from the point's parameters (never the
/// output directory, the thread count or the host's time), so it is the same byte for byte
/// wherever and however the point ran.
#[derive(Serialize)]
struct PointJson<'a> {
    #[serde(flatten)]
    params: Params<'a>,
    regs: &'a str,
    kernel_minsts: u64,
    launch_waves: u32,
    /// The version of warpsim that ran it.
    warpsim: &'a str,
    status: Status,
    /// The validation verdict, or the error.
    message: &'a str,
    /// The figures the merged table compares ([`super::FIGURES`]); absent when the run did
    /// not complete.
    figures: Option<serde_json::Map<String, serde_json::Value>>,
    /// Every statistic of the run (every launch together, `warpsim run --stats-json`'s
    /// `total`).
    stats: Option<&'a TimingStats>,
}

/// The JSON text of a point's result.
fn result_json(spec: &Spec, p: &Point, r: &JobResult) -> String {
    let doc = PointJson {
        params: spec.params(p),
        regs: &spec.regs_name,
        kernel_minsts: spec.sampling.kernel_minsts,
        launch_waves: spec.sampling.launch_waves,
        warpsim: env!("CARGO_PKG_VERSION"),
        status: r.status,
        message: &r.message,
        figures: r.total.as_ref().map(|t| {
            super::figures()
                .map(|f: &Figure| (f.key.to_string(), super::figure_json((f.value)(t))))
                .collect()
        }),
        stats: r.total.as_ref(),
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("a result serializes");
    text.push('\n');
    text
}

/// Which points a run covers.
pub(crate) enum Selection {
    /// Every point.
    All,
    /// Point N (`--point N`).
    Point(usize),
    /// Batch K (`--batch K`).
    Batch(usize),
}

impl Selection {
    fn range(&self, spec: &Spec) -> Result<Range<usize>, String> {
        match *self {
            Selection::All => Ok(0..spec.points.len()),
            Selection::Point(n) if n < spec.points.len() => Ok(n..n + 1),
            Selection::Point(n) => Err(format!(
                "error: --point {n}: the sweep has {} point(s) (0 to {})",
                spec.points.len(),
                spec.points.len().saturating_sub(1)
            )),
            Selection::Batch(k) => spec.batch(k),
        }
    }
}

/// `--dry-run`: the points of `selection`, numbered, with whether each has its result.
pub(crate) fn list(spec: &Spec, selection: &Selection) -> Result<ExitCode, String> {
    let range = selection.range(spec)?;
    let done = spec.points.iter().filter(|p| has_result(spec, p)).count();
    println!(
        "sweep {}: {} point(s) = {}; {done} with results in {}",
        spec.name,
        spec.points.len(),
        spec.shape(),
        spec.points_dir().display()
    );
    let points = &spec.points[range];
    let params: Vec<Params> = points.iter().map(|p| spec.params(p)).collect();
    let width =
        |f: &dyn Fn(&Params) -> usize, min: usize| params.iter().map(f).max().unwrap_or(0).max(min);
    let (ws, wp, wt) = (
        width(&|p| p.sample.len(), 6),
        width(&|p| p.preset.len(), 6),
        width(&|p| p.technique.len(), 9),
    );
    println!(
        "{:>5}  {:<16}  {:<6}  {:<ws$}  {:<7}  {:<wp$}  {:<wt$}  overrides",
        "#", "id", "state", "sample", "size", "preset", "technique"
    );
    for (p, q) in points.iter().zip(&params) {
        let line = format!(
            "{:>5}  {:<16}  {:<6}  {:<ws$}  {:<7}  {:<wp$}  {:<wt$}  {}",
            p.index,
            q.id,
            if has_result(spec, p) {
                "done"
            } else {
                "to run"
            },
            q.sample,
            q.size,
            q.preset,
            q.technique,
            if q.overrides.is_empty() {
                "-".to_string()
            } else {
                q.overrides.join(" ")
            }
        );
        println!("{}", line.trim_end());
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether a point has its result: a file that is a point result of this point (its id and a
/// status), whatever the status (a failed validation or an error is a result too; delete the
/// file to run it again). An empty, truncated or foreign file is not: the point runs again.
pub(crate) fn has_result(spec: &Spec, p: &Point) -> bool {
    stored_result(spec, p).is_some()
}

/// The status and message of a point's result file, if it holds a valid result of this point.
fn stored_result(spec: &Spec, p: &Point) -> Option<(String, String)> {
    let text = std::fs::read_to_string(spec.result_path(p)).ok()?;
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    (doc.get("id")?.as_str()? == spec.params(p).id).then_some(())?;
    let field = |k: &str| Some(doc.get(k)?.as_str()?.to_string());
    Some((field("status")?, field("message")?))
}

/// Runs the points of `selection` that have no result yet on `threads` host threads (default:
/// every core), each point's simulation on the spec's `timing_threads` of them, writing each
/// result as it ends. The exit status is 1 if any point run now
/// failed validation or did not complete, or its result could not be written.
pub(crate) fn run(
    spec: &Spec,
    selection: &Selection,
    threads: Option<usize>,
    quiet: bool,
    in_process: bool,
) -> Result<ExitCode, String> {
    let range = selection.range(spec)?;
    let selected = range.len();
    let todo: Vec<&Point> = spec.points[range]
        .iter()
        .filter(|p| !has_result(spec, p))
        .collect();
    let dir = spec.points_dir();
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
    let what = match selection {
        Selection::All => String::new(),
        Selection::Point(n) => format!(" (point {n})"),
        Selection::Batch(k) => format!(" (batch {k})"),
    };
    if todo.is_empty() {
        eprintln!(
            "warpsim sweep {}{what}: nothing to run: all {selected} point(s) have results in {}",
            spec.name,
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let at_once = (threads / spec.timing_threads).clamp(1, todo.len());
    let each = match spec.timing_threads {
        1 => String::new(),
        t => format!(" on {t} host threads each"),
    };
    eprintln!(
        "warpsim sweep {}{what}: {} point(s) to run, {} already done, {at_once} at once{each}; results in {}",
        spec.name,
        todo.len(),
        selected - todo.len(),
        dir.display()
    );
    let mut common = DeviceConfig {
        timing_sampling: spec.sampling.sampling(),
        timing_threads: spec.timing_threads,
        ..DeviceConfig::default()
    };
    spec.regs.configure(&mut common)?;
    let bar = crate::progress::bar(todo.len() as u64, "points", quiet);
    let started = std::time::Instant::now();
    // What each point's process checks the grid against (computed once: it hashes every
    // point's id).
    let digest = spec.digest();
    let outcomes = crate::pool::map(&todo, at_once, |&p| {
        let point_started = std::time::Instant::now();
        let r = match in_process {
            true => {
                injected_fault(p);
                crate::rf::run_job(p.sample, spec.config(p), &common, p.size)
            }
            false => run_isolated(spec, p, &digest),
        };
        // A point's own process writes its result; one it could not leave gets one here.
        let written = match !in_process && has_result(spec, p) {
            true => Ok(()),
            false => crate::output::write_text(&spec.result_path(p), &result_json(spec, p, &r)),
        };
        let verdict = match (&written, r.status) {
            (Err(e), _) => format!("ERROR: {e}"),
            (Ok(()), Status::Pass) => "PASS".to_string(),
            (Ok(()), Status::Fail) => format!("FAIL: {}", first_line(&r.message)),
            (Ok(()), Status::Error) => format!("ERROR: {}", first_line(&r.message)),
        };
        let line = format!(
            "point {} {}: {verdict} ({:.1} s)",
            p.index,
            spec.params(p).label(),
            point_started.elapsed().as_secs_f64()
        );
        // A line per point: in a log (a SLURM task's) as it ends; above the bar where one is
        // drawn.
        if bar.is_hidden() {
            println!("{line}");
        } else {
            bar.println(line);
        }
        bar.set_message(format!(
            "{} {}",
            spec.techniques[p.technique],
            p.sample.name()
        ));
        bar.inc(1);
        written.is_ok() && r.status == Status::Pass
    });
    bar.finish_and_clear();
    let failed = outcomes.iter().filter(|ok| !**ok).count();
    eprintln!(
        "warpsim sweep {}{what}: {} point(s) run in {:.1} s, {failed} failed",
        spec.name,
        todo.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs point `p` in a process of its own (`warpsim sweep SPEC --point N --in-process`), so
/// that an abort, a panic or a hang ends that point, not the sweep: a child that dies, exits
/// without a valid result or outlives `[run] time_limit` (it is killed) is the point's error,
/// with what it printed last. The child writes its own result; the returned status says how
/// the point ended (a child's error result is written again here, with the same content).
fn run_isolated(spec: &Spec, p: &Point, digest: &str) -> JobResult {
    let error = |message: String| JobResult {
        status: Status::Error,
        message,
        total: None,
    };
    let log = spec
        .points_dir()
        .join(format!(".{}.log", p.file_name(spec)));
    let spawned = std::fs::File::create(&log).and_then(|out| {
        let err = out.try_clone()?;
        std::process::Command::new(std::env::current_exe()?)
            .arg("sweep")
            .arg(&spec.path)
            .arg("--output")
            .arg(&spec.output)
            .args(["--point", &p.index.to_string(), "--in-process", "--quiet"])
            .args(["--threads", &spec.timing_threads.to_string()])
            .args(["--grid-digest", digest])
            // What it prints is kept for its last words, not for a backtrace.
            .env("RUST_BACKTRACE", "0")
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
    });
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return error(format!("cannot start the point's process: {e}")),
    };
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(format!("cannot wait for the point's process: {e}")),
        }
        if let Some(limit) = spec.time_limit
            && started.elapsed() > limit
        {
            let _ = child.kill();
            let _ = child.wait();
            break Err(format!(
                "stopped after [run] time_limit = {} s",
                limit.as_secs_f64()
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let printed = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    // Its last words: a panic's message (the line after "panicked at"), else its last line.
    let lines: Vec<&str> = printed.lines().map(str::trim).collect();
    let last = match lines.iter().position(|l| l.contains("panicked at")) {
        Some(i) => lines.get(i + 1).copied().unwrap_or(lines[i]),
        None => lines
            .iter()
            .rev()
            .find(|l| !l.is_empty() && !l.starts_with("note: "))
            .copied()
            .unwrap_or(""),
    };
    let status = match status {
        Ok(status) => status,
        Err(message) => return error(message),
    };
    match stored_result(spec, p) {
        Some((s, message)) if s == "pass" && status.success() => JobResult {
            status: Status::Pass,
            message,
            total: None,
        },
        Some((s, message)) if s == "fail" => JobResult {
            status: Status::Fail,
            message,
            total: None,
        },
        // The child recorded an error it caught itself (a fault, a deadlock).
        Some((s, message)) if s == "error" => error(message),
        _ => {
            let how = match (status.code(), signal(&status)) {
                (_, Some(sig)) => format!("the point's process was killed by signal {sig}"),
                (Some(code), _) => format!("the point's process exited with status {code}"),
                (None, None) => "the point's process ended abnormally".to_string(),
            };
            error(match last {
                "" => how,
                last => format!("{how}: {last}"),
            })
        }
    }
}

/// The environment variable naming points whose process fails on purpose, for the tests of
/// the sweep's isolation: `N=abort,M=panic,K=hang` (point numbers as `--dry-run` lists them).
const FAULTS_VARIABLE: &str = "WARPSIM_SWEEP_FAULTS";

/// Fails as [`FAULTS_VARIABLE`] asks for point `p`, if it names it.
fn injected_fault(p: &Point) {
    let Ok(faults) = std::env::var(FAULTS_VARIABLE) else {
        return;
    };
    let index = p.index.to_string();
    let fault = faults
        .split(',')
        .filter_map(|f| f.split_once('='))
        .find(|(n, _)| n.trim() == index)
        .map(|(_, how)| how.trim().to_string());
    match fault.as_deref() {
        Some("abort") => std::process::abort(),
        Some("panic") => panic!("{FAULTS_VARIABLE}: point {index} panics"),
        Some("hang") => loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        },
        _ => {}
    }
}

#[cfg(unix)]
fn signal(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("")
}
