//! `--trace` and `--plots`: the trace of a timing run is valid Chrome trace JSON whose every
//! track holds ordered, disjoint slices and accounts for every instruction and CTA of the
//! run; its window and event cap hold; the plots are SVG documents with their series; and
//! what cannot be drawn is refused.

use std::collections::BTreeMap;
use std::process::{Command, Output};

use crate::common::TempDir;
use serde_json::Value;

fn warpsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// SAXPY at the small size with a trace and its statistics; the trace and the totals.
fn traced(dir: &TempDir, extra: &[&str]) -> (Value, Value) {
    let (trace, stats) = (dir.path("t.json"), dir.path("stats.json"));
    let mut args = vec![
        "run",
        "saxpy",
        "--size",
        "small",
        "--trace",
        &trace,
        "--stats-json",
        &stats,
    ];
    args.extend_from_slice(extra);
    ok(warpsim(&args));
    (json(&trace), json(&stats)[0]["total"].clone())
}

/// The complete ("X") events of each track, (pid, tid), in file order.
fn tracks(trace: &Value) -> BTreeMap<(u64, u64), Vec<&Value>> {
    let mut tracks: BTreeMap<(u64, u64), Vec<&Value>> = BTreeMap::new();
    for e in trace["traceEvents"].as_array().unwrap() {
        if e["ph"] == "X" {
            let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            tracks.entry(key).or_default().push(e);
        }
    }
    tracks
}

fn count(trace: &Value, cat: &str) -> u64 {
    let events = trace["traceEvents"].as_array().unwrap();
    events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == cat)
        .count() as u64
}

#[test]
fn a_trace_is_chrome_trace_json_with_ordered_disjoint_tracks_covering_the_run() {
    let dir = TempDir::new("trace");
    let (trace, total) = traced(&dir, &[]);
    assert_eq!(trace["displayTimeUnit"], "ns");
    assert_eq!(trace["otherData"]["config"], "gtx480");
    assert_eq!(trace["otherData"]["truncated"], serde_json::json!([]));
    assert_eq!(trace["otherData"]["dropped"], 0);
    let events = trace["traceEvents"].as_array().unwrap();
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        assert!(e["pid"].is_u64() && e["name"].is_string(), "{e}");
        match ph {
            "X" => assert!(
                e["tid"].is_u64() && e["ts"].is_u64() && e["dur"].as_u64() > Some(0),
                "{e}"
            ),
            "C" => assert!(e["ts"].is_u64() && e["args"]["value"].is_number(), "{e}"),
            "M" => assert!(e["args"].is_object(), "{e}"),
            _ => panic!("unexpected event {e}"),
        }
    }
    // Every track (each warp slot's issue track above all) is ordered and disjoint.
    let tracks = tracks(&trace);
    for ((pid, tid), slices) in &tracks {
        for pair in slices.windows(2) {
            let end = pair[0]["ts"].as_u64().unwrap() + pair[0]["dur"].as_u64().unwrap();
            assert!(
                end <= pair[1]["ts"].as_u64().unwrap(),
                "SM process {pid} track {tid}: {} then {}",
                pair[0],
                pair[1]
            );
        }
    }
    // Every track is named.
    let named: Vec<(u64, u64)> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
        .collect();
    assert!(tracks.keys().all(|k| named.contains(k)));
    // Each warp instruction issued once, waited in a collector unit once, and executed or
    // went to memory once; each CTA has its residency; the launch spans the run's cycles.
    let warp_insts = total["warp_insts"].as_u64().unwrap();
    assert_eq!(count(&trace, "issue"), warp_insts);
    assert_eq!(count(&trace, "collect"), warp_insts);
    assert_eq!(
        count(&trace, "execute") + count(&trace, "memory"),
        warp_insts
    );
    assert!(count(&trace, "memory") > 0);
    assert_eq!(count(&trace, "cta"), total["ctas"].as_u64().unwrap());
    let launch = tracks[&(0, 0)][0];
    assert_eq!(launch["name"], "saxpy");
    assert_eq!(launch["dur"].as_u64(), total["gpu_sim_cycle"].as_u64());
    // The counters cover the run, IPC averaging the run's.
    let ipc: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "IPC")
        .collect();
    assert!(ipc.len() > 2);
    assert!(ipc.iter().any(|e| e["args"]["value"].as_f64() > Some(0.0)));
}

#[test]
fn a_trace_keeps_to_its_window_and_its_event_cap() {
    let dir = TempDir::new("trace-bounds");
    let (trace, _) = traced(&dir, &["--trace-window", "1000:2000"]);
    let slices: Vec<&Value> = tracks(&trace)
        .into_iter()
        .filter(|(k, _)| k.0 > 0)
        .flat_map(|(_, v)| v)
        .collect();
    assert!(!slices.is_empty());
    for s in slices {
        let (ts, dur) = (s["ts"].as_u64().unwrap(), s["dur"].as_u64().unwrap());
        assert!(ts >= 1000 && ts + dur <= 2000, "{s}");
    }
    let (trace, _) = traced(&dir, &["--trace-max-events", "300"]);
    assert!(trace["otherData"]["spans"].as_u64().unwrap() <= 300);
    assert!(
        !trace["otherData"]["truncated"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn plots_are_svg_documents_with_their_series() {
    let dir = TempDir::new("plots");
    let plots = dir.path("plots");
    let out = ok(warpsim(&[
        "run", "saxpy", "--size", "small", "--plots", &plots,
    ]));
    assert!(out.contains("plots: "), "{out}");
    let expect: [(&str, &[&str]); 6] = [
        (
            "stalls.svg",
            &["issued", "data (scoreboard)", "idle (no warp)", "saxpy"],
        ),
        (
            "widths.svg",
            &["1 byte", "4 bytes", "fp32 reads", "all writes"],
        ),
        ("banks.svg", &["reads", "writes", "bank 0"]),
        ("caches.svg", &["L1 data", "L2", "saxpy"]),
        ("ipc.svg", &["IPC", "cycle"]),
        ("collectors.svg", &["collector occupancy", "cycle"]),
    ];
    for (file, series) in expect {
        let text = std::fs::read_to_string(format!("{plots}/{file}")).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg", "{file}");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        for s in series {
            assert!(
                texts.iter().any(|t| t.contains(s)),
                "{file}: no `{s}` in {texts:?}"
            );
        }
    }
}

#[test]
fn pictures_of_what_has_no_timing_or_several_samples_are_refused() {
    let dir = TempDir::new("pictures-refused");
    let trace = dir.path("t.json");
    let out = warpsim(&[
        "run",
        "saxpy",
        "--size",
        "small",
        "--functional",
        "--trace",
        &trace,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("need the timing model"));
    let out = warpsim(&[
        "run", "--suite", "parboil", "--size", "small", "--trace", &trace,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name a single sample"));
    assert!(!std::path::Path::new(&trace).exists());
    let out = warpsim(&["run", "saxpy", "--trace", &trace, "--trace-window", "9:3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no cycle"));
}

/// A trace or chart that cannot be written is an error before the simulation, not after it,
/// and no chart is written (issue 49: the errors came after the whole run, with part of the
/// charts written).
#[test]
fn unwritable_pictures_are_refused_before_the_run() {
    let dir = TempDir::new("pictures-unwritable");
    let trace = dir.path("trace-dir");
    std::fs::create_dir_all(&trace).unwrap();
    let out = warpsim(&["run", "saxpy", "--size", "small", "--trace", &trace]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success());
    assert!(stderr.contains("it is a directory"), "{stderr}");
    assert!(stderr.contains("checked before the run"), "{stderr}");
    assert!(!stdout.contains("PASS"), "nothing ran: {stdout}");

    // One chart's name taken by a directory: refused before the run, no chart written.
    let plots = dir.path("plots");
    std::fs::create_dir_all(format!("{plots}/ipc.svg")).unwrap();
    let out = warpsim(&["run", "saxpy", "--size", "small", "--plots", &plots]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("ipc.svg"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("PASS"));
    let written: Vec<_> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, ["ipc.svg"], "no chart written");
}
