//! `warpsim run`'s command line: two runs of the same input write byte-identical
//! `--stats-json` files, a sample in a suite has the figures it has alone, host time and simulation speed appear only with `--host-times` in a
//! section of their own, and options that cannot apply are refused rather than ignored.

use std::process::{Command, Output};

use crate::common::TempDir;

fn warpsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs SAXPY at the small size under the timing model, writing its statistics to `path`.
fn run_saxpy(path: &str, extra: &[&str]) -> String {
    let mut args = vec!["run", "saxpy", "--size", "small", "--stats-json", path];
    args.extend_from_slice(extra);
    let out = warpsim(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn two_runs_write_byte_identical_statistics() {
    let dir = TempDir::new("identical");
    let first = run_saxpy(&dir.path("a.json"), &[]);
    assert_eq!(first, run_saxpy(&dir.path("b.json"), &[]));
    assert!(first.contains("\"gpu_sim_cycle\""));
    assert!(!first.contains("wall_seconds"), "host time left out");
}

/// `--threads` under the timing model runs the SMs on several host threads: the same
/// statistics, byte for byte (every sample is compared in `timing_parallel.rs`; this is the
/// command line's way there).
#[test]
fn timing_threads_write_byte_identical_statistics() {
    let dir = TempDir::new("threads");
    let one = run_saxpy(&dir.path("1.json"), &["--threads", "1"]);
    assert_eq!(one, run_saxpy(&dir.path("2.json"), &["--threads", "2"]));
    assert_eq!(one, run_saxpy(&dir.path("3.json"), &["--threads", "3"]));
}

/// A sample run in a suite has the figures it has alone: each starts on a fresh device (before,
/// Parboil's histo took 34,322 cycles after sgemm..mri-q had run on the same device, 34,103
/// alone: its allocations landed elsewhere).
#[test]
fn a_sample_in_a_suite_has_the_statistics_it_has_alone() {
    let dir = TempDir::new("suite");
    let stats = |args: &[&str], file: &str| -> serde_json::Value {
        let path = dir.path(file);
        let mut all = vec!["run", "--size", "small", "--stats-json", &path];
        all.extend_from_slice(args);
        let out = warpsim(&all);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let suite = stats(&["--suite", "parboil"], "suite.json");
    let alone = stats(&["parboil/histo"], "alone.json");
    let in_suite = suite
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sample"] == "parboil/histo")
        .expect("histo in the suite's statistics");
    assert!(
        suite[0]["sample"] != "parboil/histo",
        "histo runs after others"
    );
    assert_eq!(in_suite, &alone[0]);
}

#[test]
fn functional_runs_write_the_engine_statistics() {
    let dir = TempDir::new("functional");
    let first = run_saxpy(&dir.path("a.json"), &["--functional"]);
    assert_eq!(first, run_saxpy(&dir.path("b.json"), &["--functional"]));
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let saxpy = &v[0];
    assert_eq!(saxpy["sample"], "saxpy");
    assert_eq!(saxpy["mode"], "functional");
    assert_eq!(saxpy["engine"], "jit");
    assert_eq!(saxpy["passed"], true);
    assert_eq!(saxpy["launches"], 1);
    // 65,536 elements in CTAs of 256 threads; every warp runs the same short path.
    assert_eq!(saxpy["ctas"], 256);
    assert_eq!(saxpy["thread_insts"].as_u64().unwrap() % 65536, 0);
    assert_eq!(
        saxpy["warp_insts"].as_u64().unwrap() * 32,
        saxpy["thread_insts"].as_u64().unwrap()
    );
    assert_eq!(
        saxpy["max_warp_insts"].as_u64().unwrap() * 2048,
        saxpy["warp_insts"].as_u64().unwrap()
    );
    assert!(saxpy["jit"]["compiled"].as_u64().unwrap() > 0);
    assert!(saxpy.get("host").is_none(), "host time left out");
    let timed = run_saxpy(&dir.path("host.json"), &["--functional", "--host-times"]);
    let v: serde_json::Value = serde_json::from_str(&timed).unwrap();
    assert!(v[0]["host"]["kernel_seconds"].as_f64().unwrap() > 0.0);
    // The interpreter reports the same counts, and no JIT split.
    let interp = run_saxpy(
        &dir.path("interp.json"),
        &["--functional", "--engine", "interp"],
    );
    let w: serde_json::Value = serde_json::from_str(&interp).unwrap();
    assert_eq!(w[0]["engine"], "interpreter");
    assert_eq!(w[0]["warp_insts"], saxpy["warp_insts"]);
    assert!(w[0].get("jit").is_none());
}

#[test]
fn host_times_come_in_their_own_section_on_request() {
    let dir = TempDir::new("host");
    let text = run_saxpy(&dir.path("host.json"), &["--host-times"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let sample = &v[0];
    assert!(sample["host"]["wall_seconds"].as_f64().unwrap() > 0.0);
    assert!(sample["host"]["warp_insts_per_second"].as_f64().unwrap() > 0.0);
    assert!(sample["total"].get("wall_seconds").is_none());
    // Without a statistics file there is nothing to add them to.
    let out = warpsim(&["run", "saxpy", "--size", "small", "--host-times"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--stats-json"));
}

/// Under an address-space limit (`ulimit -v`) a device of the default size fits it: the
/// default is capped at a quarter of the limit (issue 49: a functional run-ptx reserved more
/// than 8 GiB of address space and failed under such a limit).
#[cfg(unix)]
#[test]
fn a_default_device_fits_an_address_space_limit() {
    let ptx = concat!(env!("CARGO_MANIFEST_DIR"), "/saxpy/saxpy.ptx");
    let run = format!(
        "ulimit -v 4000000 && exec {} run-ptx {ptx} --kernel saxpy --grid 2 --block 64 \
         --arg i32:128 --arg f32:2 --arg zeros:f32:128 --arg zeros:f32:128",
        env!("CARGO_BIN_EXE_warpsim")
    );
    let out = Command::new("sh").args(["-c", &run]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--dump-config` prints the configuration in effect and runs nothing (issue 49: it went on
/// to run the sample).
#[test]
fn dump_config_prints_the_configuration_and_stops() {
    let out = warpsim(&["run", "saxpy", "--set", "sm.rf.banks=8", "--dump-config"]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let table: toml::Table = stdout.parse().expect("the output is TOML and nothing else");
    assert_eq!(table["name"].as_str(), Some("gtx480"));
    assert_eq!(table["sm"]["rf"]["banks"].as_integer(), Some(8));
    assert!(!stdout.contains("PASS"), "{stdout}");
}

#[test]
fn options_that_cannot_apply_are_refused() {
    let refused = |args: &[&str], says: &str| {
        let out = warpsim(args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing ran");
    };
    refused(
        &["run", "saxpy", "--functional", "--threads", "0"],
        "invalid value '0' for '--threads <THREADS>': must be at least 1",
    );
    refused(
        &["run", "saxpy", "--functional", "--dump-config"],
        "'--functional' cannot be used with '--dump-config'",
    );
    refused(
        &["run", "saxpy", "--functional", "--set", "sm.rf.banks=8"],
        "'--functional' cannot be used with '--set <KEY=VALUE>'",
    );
    refused(
        &["run", "saxpy", "--set", "sm.rf.banks=-3"],
        "configuration key `sm.rf.banks`: `-3` is out of range (0 to 4294967295)",
    );
    refused(
        &["run", "saxpy", "--set", "gpu.memory_mib=0"],
        "configuration key `gpu.memory_mib`: must be at least 1",
    );
}

#[test]
fn sizes_beyond_the_device_are_errors_not_aborts() {
    let out = warpsim(&["run", "saxpy", "--n", "10000000000", "--functional"]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --n 10000000000: SAXPY's kernel takes n as a 32-bit int (at most 2147483647)\n"
    );
    // A failed run's first line, which names the allocation that did not fit.
    let allocation_error = |args: &[&str]| {
        let out = warpsim(args);
        assert!(!out.status.success(), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        stdout.lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        allocation_error(&["run", "saxpy", "--n", "2000000000", "--functional"]),
        "saxpy: ERROR: memory allocation: out of device memory: 8000000000 bytes requested, \
         4294967296 of 4294967296 bytes free"
    );
    // The timing preset's memory is the default: a GTX 480 has 1.5 GiB.
    assert_eq!(
        allocation_error(&["run", "saxpy", "--n", "300000000"]),
        "saxpy: ERROR: memory allocation: out of device memory: 1200000000 bytes requested, \
         410612736 of 1610612736 bytes free"
    );
    // --device-memory sets it in either mode, and is checked.
    assert_eq!(
        allocation_error(&[
            "run",
            "saxpy",
            "--n",
            "300000000",
            "--functional",
            "--device-memory",
            "1000",
        ]),
        "saxpy: ERROR: memory allocation: out of device memory: 1200000000 bytes requested, \
         1048576000 of 1048576000 bytes free"
    );
    let out = warpsim(&["run", "saxpy", "--device-memory", "0"]);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "error: invalid value '0' for '--device-memory <MIB>': must be from 1 to 1048576 MiB"
    ));
}
