//! `warpsim run-cu` through the real binary where NVRTC cannot be found: the message says how
//! to get it, and nothing runs. (With NVRTC, clients/run_cu.sh runs a `.cu` file in CI.)

use std::path::Path;
use std::process::Command;

#[test]
fn without_nvrtc_run_cu_says_how_to_get_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(root)
        .args([
            "run-cu",
            "samples/saxpy/saxpy.cu",
            "--kernel",
            "saxpy",
            "--grid",
            "1",
        ])
        .args(["--block", "32", "--arg", "i32:32", "--arg", "f32:1"])
        .args(["--arg", "zeros:f32:32", "--arg", "zeros:f32:32"])
        // No python3 to ask for the wheel, and a library path that does not exist.
        .env("PATH", "/nonexistent")
        .env("WARPSIM_NVRTC", "/nonexistent/libnvrtc.so.12")
        .env("LD_LIBRARY_PATH", "/nonexistent")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran without NVRTC: {stderr}");
    assert!(
        stderr.starts_with(
            "error: NVRTC not found (tried /nonexistent/libnvrtc.so.12, libnvrtc.so.12, libnvrtc.so): pip install nvidia-cuda-nvrtc-cu12"
        ),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
