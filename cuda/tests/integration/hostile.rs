//! Hostile callers: every implemented entry point called with NULL pointers, huge sizes, bogus
//! handles and ranges outside their allocations must return an error code, never abort the
//! process nor panic (a caught panic is `CUDA_ERROR_UNKNOWN` and "internal error" on stderr).
//!
//! An abort kills the process it happens in, so each walk runs in a child process (this test
//! binary again, one `child_*` test selected, `WARPSIM_CHILD` set): the parent asserts that it
//! passed and, if it died, names the entry point it died in (the child prints each name on
//! stderr before the call).

use crate::common::*;
use std::collections::BTreeSet;
use std::process::Command;
use warpsim_cuda::types::{CUlaunchConfig, CUuuid};

/// Runs test `name` of this binary in a child process and asserts that it passed, that it
/// reported no caught panic, and (if it died) which entry point it was calling.
fn survives(name: &str) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("WARPSIM_CHILD", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("hostile: "))
        .unwrap_or("(none)");
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the child died or failed ({:?}) in or after {last}\n{stdout}\n{}",
        out.status,
        tail(&stderr)
    );
    assert!(
        !stderr.contains("internal error"),
        "a panic was caught:\n{}",
        tail(&stderr)
    );
}

/// The last 40 lines of `text`.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

fn in_child() -> bool {
    std::env::var_os("WARPSIM_CHILD").is_some()
}

/// What a hostile call may return.
#[derive(Clone, Copy)]
enum Want {
    /// An error code: not success, not `CUDA_ERROR_UNKNOWN` (a caught panic).
    Fails,
    /// Exactly this code.
    Code(CUresult),
    /// Anything but `CUDA_ERROR_UNKNOWN`: arguments odd but allowed (a NULL optional
    /// out-pointer, a size that yields zero).
    Any,
}
use Want::*;

const UNKNOWN: CUresult = 999;

impl Want {
    #[track_caller]
    fn check(self, call: &str, r: CUresult) {
        let good = match self {
            Fails => r != SUCCESS && r != UNKNOWN,
            Code(c) => r == c,
            Any => r != UNKNOWN,
        };
        assert!(good, "{call} returned {}", name(r));
    }
}

/// Calls an entry point, recording its name and checking its result.
macro_rules! call {
    ($seen:ident, $want:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let label = stringify!($f);
        eprintln!("hostile: {label}");
        $seen.insert(label);
        // SAFETY: every non-NULL pointer passed is valid for what the call reads or writes
        // (the API contract); everything else about the arguments is hostile.
        let r = unsafe { $f($($a),*) };
        $want.check(label, r);
        r
    }};
}

/// A handle no table holds.
const BOGUS: Handle = 0x7fff_dead_0000usize as Handle;

/// A size no allocation reaches: 1 TiB.
const HUGE: usize = 1 << 40;

/// `cuMemcpyDtoD_v2(p, q, 1 << 40)` on two 4 KiB buffers once allocated a 1 TiB buffer
/// before checking the ranges, and the allocation failure aborted the process; so did
/// `cuMemcpy` and a patterned set (`cuMemsetD16`, `D32`) of that many elements.
#[test]
fn oversized_copies_and_sets_are_refused_not_aborted() {
    survives("hostile::child_oversized_copies_and_sets");
}

#[test]
fn child_oversized_copies_and_sets() {
    if !in_child() {
        return;
    }
    let _c = Ctx::new();
    let mut seen = BTreeSet::new();
    let data: Vec<u8> = (0..4096).map(|i| i as u8).collect();
    let p = upload(&data);
    let q = upload(&[0u8; 4096]);
    for n in [HUGE, usize::MAX, 4097] {
        call!(seen, Code(INVALID_VALUE), cuMemcpyDtoD_v2(q, p, n));
        call!(seen, Code(INVALID_VALUE), cuMemcpy(q, p, n));
        call!(
            seen,
            Code(INVALID_VALUE),
            cuMemcpyDtoDAsync_v2(q, p, n, null_mut())
        );
        call!(
            seen,
            Code(INVALID_VALUE),
            cuMemcpyAsync(q, p, n, null_mut())
        );
        call!(seen, Code(INVALID_VALUE), cuMemsetD8_v2(q, 1, n));
        call!(seen, Code(INVALID_VALUE), cuMemsetD16_v2(q, 0x1234, n));
        call!(seen, Code(INVALID_VALUE), cuMemsetD32_v2(q, 0x1234_5678, n));
    }
    // A pitched set whose span overflows, or whose rows overlap (pitch below a row).
    call!(
        seen,
        Code(INVALID_VALUE),
        cuMemsetD2D16_v2(q, usize::MAX, 1, 1, 3)
    );
    call!(
        seen,
        Code(INVALID_VALUE),
        cuMemsetD2D32_v2(q, 4, 1, 1, usize::MAX)
    );
    call!(seen, Code(INVALID_VALUE), cuMemsetD2D8_v2(q, 2, 1, 4, 2));
    // Nothing was written by the refused calls.
    assert_eq!(download::<u8>(q, 4096), vec![0u8; 4096]);
    // In range, the copies still copy, overlapping ones as `memmove` does.
    ok(unsafe { cuMemcpyDtoD_v2(q, p, 4096) });
    assert_eq!(download::<u8>(q, 4096), data);
    ok(unsafe { cuMemcpyDtoD_v2(q + 1, q, 4095) });
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&data[..4095]);
    assert_eq!(download::<u8>(q, 4096), shifted);
    ok(unsafe { cuMemsetD16_v2(q, 0xBEEF, 2048) });
    assert!(
        download::<u16>(q, 2048).iter().all(|&v| v == 0xBEEF),
        "a patterned set of a whole allocation"
    );
    ok(unsafe { cuMemFree_v2(p) });
    ok(unsafe { cuMemFree_v2(q) });
}
