//! `warpsim sweep` through the real binary, without SLURM: results byte-identical on one and
//! two threads, point by point and batch by batch; resuming skips finished points; a changed
//! spec keeps the results of the points it still has; the merged table; errors naming the
//! spec's key; the sbatch script of `--slurm --dry-run` and a submission through a stand-in
//! `sbatch`. (.ci/slurm.sh submits a sweep to a real SLURM.)

use crate::common::TempDir;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// Runs `warpsim ARGS...` from the repository root, with `path` in front of `PATH` if given.
fn warpsim_with(args: &[&str], path: Option<&str>) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpsim"));
    cmd.current_dir(root).args(args);
    if let Some(dir) = path {
        cmd.env(
            "PATH",
            format!("{dir}:{}", std::env::var("PATH").unwrap_or_default()),
        );
    }
    cmd.output().unwrap()
}

fn warpsim(args: &[&str]) -> Output {
    warpsim_with(args, None)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `out`, which must have succeeded; its standard output and error together.
fn ok(out: Output) -> String {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "status {:?}\n{all}", out.status);
    all
}

/// Every file under `dir` (relative name → contents).
fn files(dir: &str) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(Path::new(dir), Path::new(dir), &mut out);
    out
}

/// Two samples × the baseline and BOW-WR, three points to a batch.
const SPEC: &str = r#"
[grid]
samples = ["rodinia/nn", "saxpy"]
techniques = ["baseline", "bow-wr"]

[slurm]
points_per_task = 3
"#;

#[test]
fn results_are_the_same_on_any_thread_count_point_by_point_and_resume_skips_finished_points() {
    let dir = TempDir::new("sweep-threads");
    let spec = dir.path("s.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let out = |name: &str| dir.path(name);

    // The default output: a directory named after the spec, beside it.
    let all = ok(warpsim(&["sweep", &spec, "--threads", "1", "--quiet"]));
    assert!(all.contains("4 point(s) to run, 0 already done"), "{all}");
    assert_eq!(all.matches(": PASS (").count(), 4, "{all}");
    let one = files(&out("s/points"));
    assert_eq!(one.len(), 4);
    ok(warpsim(&[
        "sweep",
        &spec,
        "--threads",
        "2",
        "--quiet",
        "--output",
        &out("two"),
    ]));
    assert_eq!(files(&out("two/points")), one, "two threads");
    // Each simulation on two host threads: the same results.
    let timed = dir.path("t.toml");
    std::fs::write(&timed, format!("{SPEC}\n[run]\ntiming_threads = 2\n")).unwrap();
    let two_each = ok(warpsim(&[
        "sweep",
        &timed,
        "--threads",
        "2",
        "--output",
        &out("timed"),
    ]));
    assert!(
        two_each.contains("1 at once on 2 host threads each"),
        "{two_each}"
    );
    assert_eq!(files(&out("timed/points")), one, "timing threads");
    for n in ["3", "1", "0", "2"] {
        ok(warpsim(&[
            "sweep",
            &spec,
            "--point",
            n,
            "--output",
            &out("points"),
        ]));
    }
    assert_eq!(files(&out("points/points")), one, "point by point");
    for k in ["1", "0"] {
        ok(warpsim(&[
            "sweep",
            &spec,
            "--batch",
            k,
            "--output",
            &out("batches"),
        ]));
    }
    assert_eq!(files(&out("batches/points")), one, "batch by batch");

    // A point's statistics are `warpsim run`'s.
    let (name, bytes) = one
        .iter()
        .find(|(name, _)| name.starts_with("saxpy--small--gtx480--bow-wr--"))
        .unwrap();
    let point: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    assert_eq!(point["status"], "pass", "{name}");
    assert_eq!(point["overrides"], serde_json::json!([]));
    let stats = out("run.json");
    ok(warpsim(&[
        "run",
        "saxpy",
        "--size",
        "small",
        "--set",
        "sm.rf.technique=bow-wr",
        "--stats-json",
        &stats,
    ]));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(point["stats"], run[0]["total"]);
    assert_eq!(point["figures"]["cycles"], run[0]["total"]["gpu_sim_cycle"]);

    // Resume: a finished point is never run again (its file keeps what it holds, here a
    // result of that point with another message), a missing one runs, and so does one whose
    // file is not a result of it (truncated).
    let points = out("s/points");
    let names: Vec<&String> = one.keys().collect();
    let kept = format!("{points}/{}", names[0]);
    let lost = format!("{points}/{}", names[1]);
    let truncated = format!("{points}/{}", names[2]);
    let mut doc: serde_json::Value = serde_json::from_slice(&one[names[0]]).unwrap();
    doc["message"] = "kept".into();
    let kept_text = doc.to_string();
    std::fs::write(&kept, &kept_text).unwrap();
    std::fs::remove_file(&lost).unwrap();
    std::fs::write(&truncated, &one[names[2]][..20]).unwrap();
    let again = ok(warpsim(&["sweep", &spec, "--quiet"]));
    assert!(
        again.contains("2 point(s) to run, 2 already done"),
        "{again}"
    );
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), kept_text);
    assert_eq!(std::fs::read(&lost).unwrap(), one[names[1]]);
    assert_eq!(std::fs::read(&truncated).unwrap(), one[names[2]]);
    let nothing = ok(warpsim(&["sweep", &spec]));
    assert!(
        nothing.contains("nothing to run: all 4 point(s) have results"),
        "{nothing}"
    );
    // A result file that is not one: collect says which.
    std::fs::write(&kept, "kept").unwrap();
    let bad = warpsim(&["sweep", "collect", &spec]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains(&format!("{kept}: not a point's result")),
        "{}",
        text(&bad.stderr)
    );
    std::fs::write(&kept, &one[names[0]]).unwrap();

    // The merged tables and charts: the same from both runs, byte for byte.
    ok(warpsim(&["sweep", "collect", &spec]));
    ok(warpsim(&[
        "sweep",
        "collect",
        &spec,
        "--output",
        &out("two"),
    ]));
    let merged = |d: &str| {
        let mut f = files(d);
        f.retain(|name, _| !name.starts_with("points/"));
        f
    };
    let tables = merged(&out("s"));
    assert_eq!(
        tables.keys().collect::<Vec<_>>(),
        ["plots/small--gtx480.svg", "results.csv", "results.json"]
    );
    assert_eq!(tables, merged(&out("two")));

    // The CSV: a row per point in grid order (samples as `warpsim list` orders them).
    let csv = text(&tables["results.csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(
        header[..12],
        [
            "point",
            "id",
            "sample",
            "size",
            "preset",
            "overrides",
            "technique",
            "status",
            "message",
            "cycles",
            "ipc",
            "bank_reads"
        ]
    );
    for k in [
        "warp_insts",
        "rf_energy_uj",
        "cycles_ratio",
        "rf_energy_uj_ratio",
    ] {
        assert!(header.contains(&k), "{k} missing from {header:?}");
    }
    let column = |row: &str, key: &str| -> String {
        let i = header.iter().position(|h| *h == key).unwrap();
        row.split(',').nth(i).unwrap().to_string()
    };
    let order: Vec<String> = lines[1..]
        .iter()
        .map(|l| format!("{} {}", column(l, "sample"), column(l, "technique")))
        .collect();
    assert_eq!(
        order,
        [
            "saxpy baseline",
            "saxpy bow-wr",
            "rodinia/nn baseline",
            "rodinia/nn bow-wr"
        ]
    );
    for row in &lines[1..] {
        assert_eq!(column(row, "status"), "pass");
        let bank_reads = column(row, "bank_reads_ratio").parse::<f64>().unwrap();
        if column(row, "technique") == "baseline" {
            assert_eq!(bank_reads, 1.0);
            assert_eq!(column(row, "cycles_ratio"), "1");
        } else {
            // BOW-WR bypasses most reads.
            assert!(bank_reads < 0.5, "{row}");
        }
    }
    let doc: serde_json::Value = serde_json::from_slice(&tables["results.json"]).unwrap();
    assert_eq!(doc["points"], 4);
    assert_eq!(doc["with_results"], 4);
    assert_eq!(doc["rows"][1]["technique"], "bow-wr");
    assert_eq!(
        doc["rows"][1]["figures"]["bank_reads"],
        point["figures"]["bank_reads"]
    );
    let geomean = doc["geomean"].as_array().unwrap();
    assert_eq!(geomean.len(), 2);
    assert_eq!(geomean[0]["relative"]["cycles"], 1);
    assert_eq!(geomean[1]["samples"]["cycles"], 2);
    let chart = text(&tables["plots/small--gtx480.svg"]);
    assert!(chart.contains("bow-wr") && chart.contains("geometric mean"));
}

/// Each point runs in a process of its own: a point that aborts, one that panics and one that
/// hangs past `[run] time_limit` are recorded as those points' errors, every other point gets
/// its result, and the sweep ends (issue 49: an abort was never recorded, a panic ended the
/// sweep at two threads, a hang hung it). A truncated or empty result does not count as done.
#[test]
fn a_sweep_survives_points_that_abort_panic_or_hang() {
    let dir = TempDir::new("sweep-faults");
    let spec = dir.path("f.toml");
    std::fs::write(
        &spec,
        r#"
[grid]
samples = ["saxpy"]
techniques = ["baseline", "bow-wr", "corf++", "bow"]
[run]
time_limit = 10
"#,
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(&root)
        .args(["sweep", &spec, "--threads", "2", "--quiet"])
        .env("WARPSIM_SWEEP_FAULTS", "0=abort,1=panic,2=hang")
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "three points failed: {all}");
    assert!(all.contains("4 point(s) run"), "{all}");
    let results = files(&dir.path("f/points"));
    assert_eq!(results.len(), 4, "{all}");
    let by_status = |status: &str| {
        results
            .values()
            .filter(|v| text(v).contains(&format!("\"status\": \"{status}\"")))
            .count()
    };
    assert_eq!((by_status("pass"), by_status("error")), (1, 3), "{all}");
    let messages: Vec<String> = results.values().map(|v| text(v)).collect();
    let has = |s: &str| messages.iter().any(|m| m.contains(s));
    assert!(has("killed by signal 6"), "the abort: {messages:?}");
    assert!(has("point 1 panics"), "the panic: {messages:?}");
    assert!(
        has("stopped after [run] time_limit = 10 s"),
        "the hang: {messages:?}"
    );
    // A truncated result is not a result: the point runs again (and passes without faults).
    let (name, _) = results
        .iter()
        .find(|(_, v)| text(v).contains("point 1 panics"))
        .unwrap();
    std::fs::write(dir.path(&format!("f/points/{name}")), "{\"id\": ").unwrap();
    let again = ok(warpsim(&["sweep", &spec, "--point", "1", "--quiet"]));
    assert!(again.contains("1 point(s) to run"), "{again}");
    assert!(again.contains(": PASS ("), "{again}");
}

#[test]
fn a_changed_spec_keeps_the_results_of_its_points_and_collect_reports_the_missing() {
    let dir = TempDir::new("sweep-changed");
    let spec = dir.path("s.toml");
    std::fs::write(&spec, "[grid]\nsamples = [\"saxpy\"]\n").unwrap();
    ok(warpsim(&["sweep", &spec, "--quiet"]));
    let first = files(&dir.path("s/points"));
    // More samples, a technique, the override written as a one-value dimension of the grid:
    // saxpy's baseline is the same point, and still done.
    std::fs::write(
        &spec,
        "[grid]\nsamples = [\"saxpy\", \"rodinia/nn\"]\ntechniques = [\"baseline\", \"corf\"]\n",
    )
    .unwrap();
    let listing = ok(warpsim(&["sweep", &spec, "--dry-run"]));
    assert!(listing.contains("4 point(s) = 2 samples × 1 size × 1 preset × 1 override set × 2 techniques; 1 with results"), "{listing}");
    let done: Vec<&str> = listing.lines().filter(|l| l.contains(" done ")).collect();
    assert_eq!(done.len(), 1, "{listing}");
    assert!(done[0].contains("saxpy") && done[0].contains("baseline"));
    let id = first.keys().next().unwrap();
    assert!(id.ends_with(&format!(
        "{}.json",
        done[0].split_whitespace().nth(1).unwrap()
    )));

    let partial = warpsim(&["sweep", "collect", &spec]);
    assert!(!partial.status.success());
    assert!(
        text(&partial.stderr).contains("3 of 4 point(s) have no result yet"),
        "{}",
        text(&partial.stderr)
    );
    let csv = std::fs::read_to_string(dir.path("s/results.csv")).unwrap();
    assert_eq!(csv.matches(",missing,").count(), 3, "{csv}");
    // Dropping saxpy leaves its result alone; collect counts it apart.
    std::fs::write(&spec, "[grid]\nsamples = [\"rodinia/nn\"]\n").unwrap();
    ok(warpsim(&["sweep", &spec, "--quiet"]));
    let collected = ok(warpsim(&["sweep", "collect", &spec]));
    assert!(
        collected.contains("1 result file(s) in")
            && collected.contains("are not points of this spec"),
        "{collected}"
    );
    assert_eq!(files(&dir.path("s/points")).len(), 2);
}

#[test]
fn errors_name_the_spec_and_its_key() {
    let dir = TempDir::new("sweep-errors");
    let spec = dir.path("bad.toml");
    for (body, expected) in [
        (
            "[grid]\nsamples = [\"saxpy\", \"nope\"]\n",
            "grid.samples: unknown sample `nope`",
        ),
        (
            "[grid]\nsamples = [\"saxpy\"]\npresets = [\"gtx480\", \"gtx9000\"]\n",
            "grid.presets: unknown GPU configuration `gtx9000`",
        ),
        (
            "[grid]\nsamples = [\"saxpy\"]\n[grid.vary]\nsm.rf.banks = [4, 0]\n",
            "grid.vary.sm.rf.banks: `sm.rf.banks=0`: configuration key `sm.rf.banks`",
        ),
        (
            // 2 × 1,000 × 1,000 points: refused before any of it is built.
            &format!(
                "[grid]\nsamples = [\"saxpy\", \"rodinia/nn\"]\n[grid.vary]\nsm.rf.banks = [{}]\n\
                 gpu.watchdog_cycles = [{}]\n",
                (1..=1000)
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                (1..=1000)
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "grid: 2000000 points (2 × 1000 × 1000: samples × sizes × presets × techniques, then \
             each grid.vary key); at most 100000",
        ),
        (
            "[grid]\nsamples = [\"saxpy\"]\n[run]\ntime_limit = 0\n",
            "run.time_limit: 0: must be a number of seconds above 0",
        ),
    ] {
        std::fs::write(&spec, body).unwrap();
        let out = warpsim(&["sweep", &spec, "--dry-run"]);
        assert!(!out.status.success());
        let err = text(&out.stderr);
        assert!(
            err.starts_with(&format!("error: {spec}: {expected}")),
            "{err}"
        );
    }
    let out = warpsim(&["sweep", &dir.path("none.toml")]);
    assert!(text(&out.stderr).starts_with("error: cannot read"));
    std::fs::write(&spec, "[grid]\nsamples = [\"saxpy\"]\n").unwrap();
    let out = warpsim(&["sweep", &spec, "--point", "1"]);
    assert!(
        text(&out.stderr).contains("--point 1: the sweep has 1 point(s) (0 to 0)"),
        "{}",
        text(&out.stderr)
    );
}

/// Five points, three to a task, with every resource request.
const SLURM_SPEC: &str = r#"
name = "study"
output = "out"

[grid]
samples = ["saxpy", "rodinia/nn", "rodinia/bfs", "rodinia/pathfinder", "rodinia/hotspot"]

[slurm]
partition = "gpu-sim"
account = "arch"
time = "1:30:00"
mem = "2G"
cpus_per_task = 2
points_per_task = 3
max_running = 4
extra = ["--qos=low", "--constraint=avx2"]
setup = ["module load rust"]
"#;

#[test]
fn slurm_dry_run_writes_the_sbatch_script_with_the_spec_requests() {
    let dir = TempDir::new("sweep-slurm");
    let spec = dir.path("study.toml");
    std::fs::write(&spec, SLURM_SPEC).unwrap();
    let out = warpsim(&["sweep", &spec, "--slurm", "--dry-run"]);
    ok(out.clone());
    let script = std::fs::read_to_string(dir.path("out/slurm/study.sbatch")).unwrap();
    assert_eq!(text(&out.stdout), script);
    let root = std::fs::canonicalize(dir.path("")).unwrap();
    let root = root.display();
    let digest = script
        .split("--grid-digest ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_string();
    assert_eq!(digest.len(), 16);
    let expected = format!(
        "#!/bin/bash
# warpsim sweep study: 5 of 5 point(s), 3 per array task; written by `warpsim sweep --slurm`.
#SBATCH --job-name=warpsim-sweep-study
#SBATCH --array=0-1%4
#SBATCH --output={root}/out/slurm/logs/%A_%a.out
#SBATCH --cpus-per-task=2
#SBATCH --partition=gpu-sim
#SBATCH --account=arch
#SBATCH --time=1:30:00
#SBATCH --mem=2G
#SBATCH --qos=low
#SBATCH --constraint=avx2
set -euo pipefail
module load rust
exec {} sweep {root}/study.toml --output {root}/out --batch \"$SLURM_ARRAY_TASK_ID\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\" --grid-digest {digest} --quiet
",
        std::fs::canonicalize(env!("CARGO_BIN_EXE_warpsim"))
            .unwrap()
            .display()
    );
    assert_eq!(script, expected);
    // The logs' directory exists (sbatch would not make it).
    assert!(Path::new(&dir.path("out/slurm/logs")).is_dir());

    // What a task runs: batch 1 is points 3 and 4 (with the script's digest); a changed
    // grid makes the task refuse.
    let task = ok(warpsim(&[
        "sweep",
        &spec,
        "--batch",
        "1",
        "--grid-digest",
        &digest,
        "--threads",
        "2",
    ]));
    assert!(
        task.contains("point 3 rodinia/pathfinder") && task.contains("point 4 rodinia/hotspot"),
        "{task}"
    );
    // The script now asks only for the batch with points left, and says so.
    ok(warpsim(&["sweep", &spec, "--slurm", "--dry-run"]));
    let again = std::fs::read_to_string(dir.path("out/slurm/study.sbatch")).unwrap();
    assert!(
        again.contains("# warpsim sweep study: 3 of 5 point(s)"),
        "{again}"
    );
    assert!(again.contains("#SBATCH --array=0%4\n"), "{again}");
    std::fs::write(&spec, SLURM_SPEC.replace("\"rodinia/bfs\", ", "")).unwrap();
    let refused = warpsim(&["sweep", &spec, "--batch", "1", "--grid-digest", &digest]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("the grid changed since this job was written"),
        "{}",
        text(&refused.stderr)
    );

    // An #SBATCH line cannot hold a path with a space.
    let spaced = dir.path("with space");
    std::fs::create_dir_all(&spaced).unwrap();
    let refused = warpsim(&["sweep", &spec, "--slurm", "--dry-run", "--output", &spaced]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("has white space in its path"),
        "{}",
        text(&refused.stderr)
    );

    // One point to a task: `--point`.
    std::fs::write(
        &spec,
        SLURM_SPEC.replace("points_per_task = 3", "points_per_task = 1"),
    )
    .unwrap();
    let one = text(&warpsim(&["sweep", &spec, "--slurm", "--dry-run"]).stdout);
    assert!(one.contains("#SBATCH --array=0-2%4\n"), "{one}");
    assert!(one.contains(" --point \"$SLURM_ARRAY_TASK_ID\" "), "{one}");
}

#[test]
fn slurm_submits_through_sbatch_and_reports_its_refusal() {
    let dir = TempDir::new("sweep-sbatch");
    let spec = dir.path("s.toml");
    std::fs::write(&spec, "[grid]\nsamples = [\"saxpy\", \"rodinia/nn\"]\n").unwrap();
    // A stand-in for sbatch: records its arguments and the script, answers a job id.
    let bin = dir.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = format!("{bin}/sbatch");
    let write_sbatch = |body: &str| {
        std::fs::write(&sbatch, format!("#!/bin/sh\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write_sbatch(&format!(
        "echo \"$@\" > {bin}/args\ncp \"$2\" {bin}/script\necho '4242;cluster'"
    ));
    let out = ok(warpsim_with(&["sweep", &spec, "--slurm"], Some(&bin)));
    assert!(
        out.contains("submitted job array 4242: 2 task(s) for 2 point(s)"),
        "{out}"
    );
    let script = dir.path("s/slurm/s.sbatch");
    assert_eq!(
        std::fs::read_to_string(format!("{bin}/args"))
            .unwrap()
            .trim(),
        format!("--parsable {script}")
    );
    assert_eq!(
        std::fs::read(format!("{bin}/script")).unwrap(),
        std::fs::read(&script).unwrap()
    );
    write_sbatch("echo 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1");
    let refused = warpsim_with(&["sweep", &spec, "--slurm"], Some(&bin));
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("sbatch: error: invalid partition specified: gpu"),
        "{}",
        text(&refused.stderr)
    );
    // Nothing left to run: nothing submitted.
    ok(warpsim(&["sweep", &spec, "--quiet"]));
    let done = ok(warpsim_with(&["sweep", &spec, "--slurm"], Some(&bin)));
    assert!(done.contains("nothing to submit"), "{done}");
}
