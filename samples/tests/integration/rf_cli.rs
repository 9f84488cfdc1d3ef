//! `warpsim rf` through the real binary: the table, the JSON (every job, ratios of 1 for the
//! baseline), the SVG, identical results on one and two threads, an unknown technique refused
//! naming its configuration key, and a failing run reported in its row with a failing exit.

use std::path::Path;
use std::process::{Command, Output};

const SAMPLES: [&str; 3] = ["saxpy", "rodinia/nn", "rodinia/gaussian"];

use crate::common::TempDir;

/// Runs `warpsim rf ARGS...` from the repository root.
fn rf(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(root)
        .arg("rf")
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn baseline_table_json_and_svg_are_the_same_on_one_and_two_threads() {
    let dir = TempDir::new("threads");
    let samples = SAMPLES.join(",");
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let (json, svg) = (
            dir.path(&format!("{threads}.json")),
            dir.path(&format!("{threads}.svg")),
        );
        let out = rf(&[
            "--samples",
            &samples,
            "--size",
            "small",
            "--threads",
            threads,
            "--quiet",
            "--json",
            &json,
            "--svg",
            &svg,
        ]);
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "status {:?}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            text(&out.stderr)
        );
        outputs.push((stdout, json, svg));
    }
    let (table, json, svg) = &outputs[0];

    // The table: a header, a PASS row per sample, the baseline's geometric means of 1.
    assert!(table.contains("cycles") && table.contains("coll.res") && table.contains("dyn µJ"));
    for s in SAMPLES {
        let row = table
            .lines()
            .find(|l| l.starts_with(s) && l.contains("baseline"))
            .unwrap_or_else(|| panic!("no row for {s} in\n{table}"));
        assert!(row.trim_end().ends_with("PASS"), "{row}");
    }
    let mean = table
        .lines()
        .find(|l| l.starts_with("geometric mean"))
        .expect("a geometric-mean row");
    assert_eq!(mean.matches("1.000").count(), 9, "{mean}");

    // The JSON: every job, with figures, ratios of 1 and full statistics.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(doc["config"], "gtx480");
    assert_eq!(doc["techniques"], serde_json::json!(["baseline"]));
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), SAMPLES.len());
    for (job, s) in jobs.iter().zip(SAMPLES) {
        assert_eq!(job["sample"], s);
        assert_eq!(job["technique"], "baseline");
        assert_eq!(job["status"], "pass");
        let cycles = job["figures"]["cycles"].as_f64().unwrap();
        assert!(cycles > 0.0);
        assert_eq!(job["stats"]["gpu_sim_cycle"].as_f64(), Some(cycles));
        assert!(job["figures"]["rf_dynamic_uj"].as_f64().unwrap() > 0.0);
        for (key, r) in job["relative"].as_object().unwrap() {
            assert_eq!(r.as_f64(), Some(1.0), "{s} {key}");
        }
    }
    assert_eq!(doc["geomean"][0]["samples"]["cycles"], SAMPLES.len());

    // The SVG: a well-formed document naming every sample.
    let chart = std::fs::read_to_string(svg).unwrap();
    assert!(
        chart.starts_with("<svg") || chart.starts_with("<?xml"),
        "{}",
        &chart[..60]
    );
    assert!(chart.trim_end().ends_with("</svg>"));
    for s in SAMPLES {
        assert!(
            chart.contains(s.trim_start_matches("rodinia/")),
            "{s} not in the chart"
        );
    }

    // Two threads: the same table, the same figures, the same chart.
    let (table2, json2, svg2) = &outputs[1];
    assert_eq!(table, table2);
    // Byte for byte: the statistics leave host time out.
    let read = |p: &str| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(json), read(json2));
    assert_eq!(chart, std::fs::read_to_string(svg2).unwrap());
}

#[test]
fn an_unknown_technique_is_refused_naming_the_key() {
    let out = rf(&[
        "--techniques",
        "baseline,no-such-technique",
        "--samples",
        "saxpy",
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("sm.rf.technique"), "{stderr}");
    assert!(stderr.contains("no-such-technique"), "{stderr}");
    assert!(stderr.contains("known: baseline"), "{stderr}");
    // Refused before anything ran.
    assert!(text(&out.stdout).is_empty());
}

#[test]
fn a_failing_run_is_reported_in_its_row_and_fails_the_command() {
    // A watchdog of one idle cycle stops every run at its first I-cache miss.
    let out = rf(&[
        "--samples",
        "saxpy,nn",
        "--set",
        "gpu.watchdog_cycles=1",
        "--threads",
        "2",
        "--quiet",
    ]);
    assert!(!out.status.success());
    let stdout = text(&out.stdout);
    for s in ["saxpy", "rodinia/nn"] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(s))
            .unwrap_or_else(|| panic!("no row for {s} in\n{stdout}"));
        assert!(row.contains("ERROR") && row.contains("deadlock"), "{row}");
    }
    assert!(stdout.contains("2 of 2 simulation(s) failed"), "{stdout}");
}

#[test]
fn a_sampled_comparison_says_what_share_it_timed() {
    let dir = TempDir::new("sampled");
    let json = dir.path("rf.json");
    let out = rf(&[
        "--samples",
        "gaussian",
        "--techniques",
        "corf",
        "--launch-waves",
        "1",
        "--quiet",
        "--json",
        &json,
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("Sampled (--kernel-minsts 0, --launch-waves 1)")
            && stdout.contains("rodinia/gaussian 54.79%"),
        "{stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["launch_waves"], 1);
    // Both runs timed the same instructions and left the same ones untimed.
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["stats"]["untimed"], jobs[1]["stats"]["untimed"]);
    assert_eq!(
        jobs[0]["stats"]["warp_insts"],
        jobs[1]["stats"]["warp_insts"]
    );
    assert!(jobs[0]["stats"]["untimed"]["ctas"].as_u64().unwrap() > 0);
}
