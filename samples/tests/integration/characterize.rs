//! Characterization mode end to end: samples validate as in functional mode and execute the
//! same instructions, the counts do not depend on the number of host threads (observing every
//! CTA, or a sample of them), and `warpsim characterize` through the real binary prints the
//! table and writes JSON that agrees with it.

use runtime::{CharacterizationReport, Device, DeviceConfig};
use std::path::Path;
use std::process::Command;
use timing::characterize::Sampling;
use warpsim::registry;
use warpsim::sample::Size;

/// Samples with barriers (hotspot, nw), divergence and many launches (bfs), and several
/// kernels (backprop).
const SAMPLES: [&str; 4] = ["bfs", "hotspot", "nw", "backprop"];

/// Runs `name` at the small size in characterization mode; returns its report and the
/// warp instructions functional mode executes.
fn characterize(name: &str, threads: usize, sampling: Sampling) -> (CharacterizationReport, u64) {
    let s = registry::find(name).unwrap();
    let dev = Device::new(DeviceConfig {
        characterize: true,
        characterize_sampling: sampling,
        host_threads: threads,
        ..DeviceConfig::default()
    })
    .unwrap();
    let outcome = s.run(&dev, Size::Small).unwrap();
    assert!(
        outcome.validation.passed(),
        "{name}: {}",
        outcome.validation
    );
    (
        dev.take_characterization().unwrap(),
        outcome.stats.warp_insts,
    )
}

#[test]
fn every_instruction_is_observed_once_whatever_the_host_threads() {
    for name in SAMPLES {
        let functional = {
            let dev = Device::new(DeviceConfig::default()).unwrap();
            let s = registry::find(name).unwrap();
            s.run(&dev, Size::Small).unwrap().stats.warp_insts
        };
        let (one, executed) = characterize(name, 1, Sampling::FULL);
        assert_eq!(executed, functional, "{name}: instructions executed");
        assert_eq!(one.warp_insts, functional, "{name}");
        assert_eq!(
            one.total.warp_insts, functional,
            "{name}: instructions observed"
        );
        // Everything observed: the estimate is what was observed.
        assert_eq!(one.estimate(), one.total, "{name}");
        // Every value written ends exactly once.
        assert_eq!(
            one.total.values.written(),
            one.total.sources.writes,
            "{name}"
        );
        assert_eq!(one.total.bypass.writes, one.total.sources.writes, "{name}");
        for threads in [2, 3] {
            let (other, _) = characterize(name, threads, Sampling::FULL);
            assert_eq!(other.total, one.total, "{name}: {threads} threads");
            assert_eq!(other.launches, one.launches, "{name}: {threads} threads");
        }
    }
}

#[test]
fn a_sample_of_ctas_is_deterministic_and_bounded() {
    let sampling = Sampling {
        ctas_per_launch: 2,
        insts_per_kernel: 0,
    };
    for name in SAMPLES {
        let (one, executed) = characterize(name, 1, sampling);
        let (three, _) = characterize(name, 3, sampling);
        assert_eq!(three.total, one.total, "{name}");
        assert_eq!(one.warp_insts, executed, "{name}");
        assert!(one.total.warp_insts > 0, "{name}");
        assert!(one.total.warp_insts <= executed, "{name}");
        // The estimate scales what was observed up to what was executed (up to rounding).
        let estimated = one.estimate().warp_insts;
        assert!(
            estimated.abs_diff(executed) <= one.launches.len() as u64,
            "{name}: {estimated} estimated, {executed} executed"
        );
    }
    // hotspot's one launch has more than 2 CTAs: only part of it is observed.
    let (hotspot, executed) = characterize("hotspot", 2, sampling);
    assert!(hotspot.total.warp_insts < executed);
    // A kernel observed enough runs unobserved afterwards: bfs launches each kernel once per
    // level, and one instruction observed is enough.
    let (bfs, executed) = characterize(
        "bfs",
        2,
        Sampling {
            ctas_per_launch: 0,
            insts_per_kernel: 1,
        },
    );
    let observed: Vec<&str> = bfs
        .launches
        .iter()
        .filter(|l| l.counts.warp_insts > 0)
        .map(|l| l.kernel.as_str())
        .collect();
    assert_eq!(
        observed,
        ["Kernel", "Kernel2"],
        "one observed launch per kernel"
    );
    assert!(bfs.launches.len() > 2);
    assert_eq!(bfs.warp_insts, executed);
    assert_eq!(bfs.estimate().warp_insts, executed);
}

#[test]
fn the_command_prints_the_table_and_writes_json() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let json =
        std::env::temp_dir().join(format!("warpsim-characterize-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(&root)
        .args([
            "characterize",
            "saxpy",
            "nn",
            "--size",
            "small",
            "--full",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json).unwrap();
    let _ = std::fs::remove_file(&json);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let samples = doc["samples"].as_array().unwrap();
    let names: Vec<&str> = samples
        .iter()
        .map(|s| s["sample"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["saxpy", "rodinia/nn"]);
    for s in samples {
        assert_eq!(s["passed"], true);
        // Everything observed with --full.
        assert_eq!(s["observed"]["warp_insts"], s["warp_insts"]);
        assert_eq!(s["estimate"], s["observed"]);
    }
    // The average is the mean of the rows, and the table prints it beside the published row.
    let once = |s: &serde_json::Value| s["summary"]["values_read_once"].as_f64().unwrap();
    let mean = (once(&samples[0]) + once(&samples[1])) / 2.0;
    let average = doc["average"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c[0] == "read1")
        .unwrap()[1]
        .as_f64()
        .unwrap();
    assert_eq!(average, mean);
    let row = |name: &str| {
        stdout
            .lines()
            // Table rows, not the per-sample progress lines (`saxpy (small: ...): PASS`).
            .filter(|l| l.starts_with(name) && !l.contains("PASS"))
            .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    // Two tables, each with a row per sample, the average and the published figures.
    assert_eq!(row("saxpy ").len(), 2);
    assert_eq!(row("nn ").len(), 2);
    assert_eq!(row("average (2)").len(), 2);
    let published = row("published");
    assert_eq!(
        published[0][1..],
        [">33", "-", "65", "29", "-", "-", "~70", "-", "10"]
    );
    assert_eq!(
        published[1][1..],
        [
            "45", "35", "59", "52", ">70", "-", "~40", ">70", "~40", ">70", "69", "4"
        ]
    );
    // The read-once column of the first table shows the JSON's figure.
    assert_eq!(row("saxpy ")[0][8], format!("{:.1}", once(&samples[0])));
    // Unknown samples are refused by name.
    let bad = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(&root)
        .args(["characterize", "no-such-sample", "--size", "small"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown sample `no-such-sample`"));
}
