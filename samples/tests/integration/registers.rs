//! The registers bar of issue 13, through the real binary: on every kernel of `samples/` that
//! ptxas compiled (`samples/ptxas-registers.tsv`), warpsim's register count is at most 10%
//! above ptxas's, but for the kernels of [`KNOWN_ABOVE`], each with its reason. docs/registers.md
//! has the table and the reasons.

/// Kernels known to need more than 10% above ptxas, with why; each must still be above (when
/// warpsim catches up, its entry goes).
///
/// Parboil's `BFS_in_GPU_kernel` keeps six shared-memory addresses live across its loop,
/// `symbol + tid·4` and `symbol + (bin·4)` for three per-bin arrays: ptxas folds each symbol into
/// the load's `[reg + immediate]` address and keeps only the two offsets (27 registers);
/// warpsim gives each address a register of its own (32). Folding launch-constant symbol
/// offsets into addresses is a storage rule warpsim does not have yet (docs/registers.md).
///
/// The texture-reference `mergeSortPass` of hybridsort peaks at 31 live registers (its float4
/// lookups write four each, all read) and warpsim's greedy colouring needs 36 for it, where
/// ptxas needs 32: allocation quality, not storage (the `__ldg` port's needs 34).
const KNOWN_ABOVE: [(&str, &str); 2] = [
    ("samples/parboil/bfs/bfs.ptx", "BFS_in_GPU_kernel"),
    (
        "samples/rodinia/hybridsort/hybridsort_tex.ptx",
        "mergeSortPass",
    ),
];

use std::process::Command;

#[test]
fn no_kernel_needs_more_than_ten_percent_above_ptxas() {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("regs")
        .output()
        .expect("warpsim runs");
    assert!(
        out.status.success(),
        "warpsim regs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).expect("UTF-8 table");
    let mut compared = 0;
    let mut above = Vec::new();
    let mut known_above = Vec::new();
    for line in table.lines().skip(1) {
        // file, kernel, warpsim, ptxas, diff; kernels ptxas did not compile show `-`.
        let cols: Vec<&str> = line.split_whitespace().collect();
        let [file, kernel, warpsim, ptxas, _] = cols[..] else {
            continue;
        };
        let (Ok(warpsim), Ok(ptxas)) = (warpsim.parse::<u32>(), ptxas.parse::<u32>()) else {
            continue;
        };
        compared += 1;
        if KNOWN_ABOVE.contains(&(file, kernel)) {
            known_above.push((file, kernel, warpsim * 10 > ptxas * 11));
        } else if warpsim * 10 > ptxas * 11 {
            above.push(format!(
                "{file} {kernel}: {warpsim} against ptxas's {ptxas}"
            ));
        }
    }
    assert!(
        compared >= 140,
        "only {compared} kernels compared:\n{table}"
    );
    assert!(
        above.is_empty(),
        "more than 10% above ptxas:\n{}",
        above.join("\n")
    );
    for (file, kernel) in KNOWN_ABOVE {
        assert!(
            known_above.contains(&(file, kernel, true)),
            "{file} {kernel} is listed as known to be more than 10% above ptxas, and is not \
             (or was not compared): take it off KNOWN_ABOVE"
        );
    }
}
