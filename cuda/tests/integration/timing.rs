//! What needs another environment runs in a child process: this test binary again, one test
//! selected, with `WARPSIM_*` set (the driver reads the environment once, at `cuInit`). The
//! `child_*` tests are those halves: they check only when `WARPSIM_CHILD` is set, and the test
//! that runs each asserts that it ran and passed.

use crate::common::*;
use std::process::Command;

/// Runs test `name` of this binary with `env` set, and asserts that it passed.
fn child(name: &str, env: &[(&str, &str)]) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("WARPSIM_CHILD", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn in_child() -> bool {
    std::env::var_os("WARPSIM_CHILD").is_some()
}

#[test]
fn timing_mode_events_report_simulated_time_and_statistics() {
    let dir = std::env::temp_dir().join(format!("warpsim-cuda-stats-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    child(
        "timing::child_timed_saxpy",
        &[
            ("WARPSIM_MODE", "v100"),
            ("WARPSIM_STATS", dir.to_str().unwrap()),
        ],
    );
    let launch: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("launch-00001.json")).unwrap())
            .unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(launch["kernel"], "saxpy");
    assert_eq!(launch["mode"], "v100");
    let cycles = launch["cycles"].as_u64().unwrap();
    assert!(cycles > 0);
    assert_eq!(launch["timing"][0]["gpu_sim_cycle"].as_u64(), Some(cycles));
    assert_eq!(summary["launches"], 1);
    assert_eq!(summary["cycles"].as_u64(), Some(cycles));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `WARPSIM_TIMING_THREADS` runs the SMs on several host threads, with the same statistics.
#[test]
fn timing_threads_give_the_same_statistics() {
    let timing = |threads: &str| -> serde_json::Value {
        let dir = std::env::temp_dir().join(format!(
            "warpsim-cuda-threads-{threads}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        child(
            "timing::child_timed_saxpy",
            &[
                ("WARPSIM_MODE", "v100"),
                ("WARPSIM_STATS", dir.to_str().unwrap()),
                ("WARPSIM_TIMING_THREADS", threads),
            ],
        );
        let text = std::fs::read_to_string(dir.join("launch-00001.json")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["timing"].clone()
    };
    let one = timing("1");
    assert!(one.is_array(), "{one}");
    assert_eq!(timing("3"), one);
}

/// In the child: one timed SAXPY; the elapsed time is the launch's cycles at 1447 MHz.
#[test]
fn child_timed_saxpy() {
    if !in_child() {
        return;
    }
    unsafe {
        ok(cuInit(0));
        let mut buf = [0 as c_char; 64];
        ok(cuDeviceGetName(buf.as_mut_ptr(), 64, 0));
        assert_eq!(
            CStr::from_ptr(buf.as_ptr()).to_str().unwrap(),
            "warpsim v100 (timing model)"
        );
        let mut major = 0;
        ok(cuDeviceGetAttribute(&mut major, 75, 0));
        assert_eq!(major, 7);
        let mut c = null_mut();
        ok(cuCtxCreate_v2(&mut c, 0, 0));
        let m = load(SAXPY);
        let f = function(m, "saxpy");
        let (mut x, mut y) = (upload(&[1.0f32; 1024]), upload(&[2.0f32; 1024]));
        let (mut n, mut a) = (1024i32, 3.0f32);
        let mut params = [
            (&mut n as *mut i32).cast::<c_void>(),
            (&mut a as *mut f32).cast(),
            (&mut x as *mut u64).cast(),
            (&mut y as *mut u64).cast(),
        ];
        let (mut start, mut stop) = (null_mut(), null_mut());
        ok(cuEventCreate(&mut start, 0));
        ok(cuEventCreate(&mut stop, 0));
        ok(cuEventRecord(start, null_mut()));
        ok(cuLaunchKernel(
            f,
            4,
            1,
            1,
            256,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        ));
        ok(cuEventRecord(stop, null_mut()));
        let mut ms = 0.0f32;
        ok(cuEventElapsedTime(&mut ms, start, stop));
        assert_eq!(download::<f32>(y, 1024), vec![5.0f32; 1024]);
        let dir = std::env::var("WARPSIM_STATS").unwrap();
        let launch: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(std::path::Path::new(&dir).join("launch-00001.json")).unwrap(),
        )
        .unwrap();
        let cycles = launch["cycles"].as_u64().unwrap() as f64;
        let want = (cycles / 1447e3) as f32;
        assert!((ms - want).abs() <= want * 1e-6, "{ms} ms, expected {want}");
        let mut back = 0.0f32;
        ok(cuEventElapsedTime(&mut back, stop, start));
        assert_eq!(back, -ms);
        ok(cuCtxDestroy_v2(c));
    }
}

#[test]
fn before_cu_init_everything_is_not_initialized() {
    child("timing::child_uninitialized", &[]);
}

/// In the child: calls before `cuInit`.
#[test]
fn child_uninitialized() {
    if !in_child() {
        return;
    }
    unsafe {
        let mut n = 0;
        expect(cuDeviceGetCount(&mut n), NOT_INITIALIZED);
        let mut p = 0;
        expect(cuMemAlloc_v2(&mut p, 4), NOT_INITIALIZED);
        let mut v = 0;
        ok(cuDriverGetVersion(&mut v));
        let mut name: *const c_char = null();
        ok(cuGetErrorName(3, &mut name));
        expect(cuInit(1), INVALID_VALUE);
        ok(cuInit(0));
        ok(cuDeviceGetCount(&mut n));
    }
}

#[test]
fn a_bad_environment_fails_cu_init_with_a_message() {
    child(
        "timing::child_bad_environment",
        &[("WARPSIM_MODE", "no-such-gpu")],
    );
}

/// In the child: `cuInit` refuses an unknown preset.
#[test]
fn child_bad_environment() {
    if !in_child() {
        return;
    }
    unsafe {
        expect(cuInit(0), INVALID_VALUE);
        let mut n = 0;
        expect(cuDeviceGetCount(&mut n), NOT_INITIALIZED);
    }
}
