//! Golden tests of `warpsim dis`, run through the real binary: SAXPY, an `.address_size 32`
//! kernel, and a kernel with nested divergence inside loops whose reconvergence points were
//! checked by hand; `dis --hints` on
//! SAXPY (last uses checked by hand) and the loop weights of the nested kernel.
//!
//! Each whole listing is compared with its snapshot, `tests/snapshots/dis/<test>.txt`; an
//! intended change of the listing rewrites them with
//! `WARPSIM_BLESS_SNAPSHOTS=1 cargo test --release -p warpsim --test integration dis_golden`.

use std::path::PathBuf;
use std::process::Command;

fn dis(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .arg("dis")
        .args(args)
        .output()
        .expect("warpsim runs");
    assert!(
        out.status.success(),
        "warpsim dis failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 listing")
}

/// Compares `listing` with the snapshot `name` (with `WARPSIM_BLESS_SNAPSHOTS` set, writes it).
fn assert_snapshot(name: &str, listing: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/dis")
        .join(format!("{name}.txt"));
    if std::env::var_os("WARPSIM_BLESS_SNAPSHOTS").is_some() {
        std::fs::write(&path, listing).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (WARPSIM_BLESS_SNAPSHOTS=1 writes it)",
            path.display()
        )
    });
    if stored != listing {
        let (old, new): (Vec<_>, Vec<_>) = (stored.lines().collect(), listing.lines().collect());
        let at = (0..old.len().max(new.len()))
            .find(|&i| old.get(i) != new.get(i))
            .unwrap_or(0);
        panic!(
            "the listing differs from {} from line {}:\n  stored: {:?}\n  now:    {:?}\n\
             (an intended change: WARPSIM_BLESS_SNAPSHOTS=1 rewrites the snapshot)",
            path.display(),
            at + 1,
            old.get(at),
            new.get(at)
        );
    }
}

/// (pc, reconvergence point) of every conditional branch in a listing.
fn reconvergence_points(listing: &str) -> Vec<(u32, String)> {
    listing
        .lines()
        .filter_map(|line| {
            let (_, at) = line.split_once("| reconverge at ")?;
            let pc = line.split_whitespace().next()?.parse().ok()?;
            Some((pc, at.trim().to_string()))
        })
        .collect()
}

#[test]
fn saxpy() {
    let listing = dis(&["samples/saxpy/saxpy.ptx"]);
    // The bounds check `if (i < n)` branches over the body to the final `ret`.
    assert_eq!(reconvergence_points(&listing), vec![(9, "bb2".to_string())]);
    assert_snapshot("saxpy", &listing);
}

/// An `.address_size 32` module (`fixtures/run_ptx/addr32.ptx`): the listing keeps the
/// directive and the 32-bit address instructions as written.
#[test]
fn address_size_32() {
    let listing = dis(&["samples/tests/fixtures/run_ptx/addr32.ptx"]);
    assert!(
        listing.starts_with(".version 8.8\n.target sm_70\n.address_size 32\n"),
        "{listing}"
    );
    for inst in [
        "cvta.to.global.u32 %r9, %r2;",
        "cvta.shared.u32 %r14, %r13;",
        "isspacep.shared %p2, %r16;",
        "mov.u32 %r20, bias;",
        "ld.global.f32 %f2, [%rd2];",
        "atom.global.add.u32 %r34, [%r33], 1;",
    ] {
        assert!(listing.contains(inst), "{inst} missing from:\n{listing}");
    }
    assert_snapshot("address_size_32", &listing);
}

#[test]
fn nested_divergence() {
    let listing = dis(&[
        "samples/corpus/divergence.ptx",
        "--kernel",
        "nested_divergence",
    ]);
    // Checked by hand against the CFG in the listing:
    // - pc 14: the loop guard skips the loop (bb18) or enters it; both meet at bb18.
    // - pc 29, 37, 41: the if/else chain inside the loop body; every arm ends in the latch bb17.
    // - pc 47: skips the inner loop (bb10, bb11) to bb12, where the inner loop exits too (pc 66).
    // - pc 68, 72, 76: the remainder switch after the inner loop; each case jumps to bb17.
    // - pc 86: the outer loop's back edge to bb2 or the exit to bb18.
    let expected = [
        (14, "bb18"),
        (29, "bb17"),
        (37, "bb17"),
        (41, "bb17"),
        (47, "bb12"),
        (66, "bb12"),
        (68, "bb17"),
        (72, "bb17"),
        (76, "bb17"),
        (86, "bb18"),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(pc, b)| (*pc, b.to_string()))
        .collect();
    assert_eq!(reconvergence_points(&listing), expected);
    assert_snapshot("nested_divergence", &listing);
}

/// `dis --hints` on SAXPY: registers read with last-use marks, live sets after each
/// instruction, and the affinity graph.
#[test]
fn saxpy_hints() {
    let listing = dis(&["samples/saxpy/saxpy.ptx", "--hints"]);
    let line = |pc: &str| {
        listing
            .lines()
            .find(|l| l.split_whitespace().next() == Some(pc))
            .unwrap_or_else(|| panic!("no pc {pc} in:\n{listing}"))
            .to_string()
    };
    // `fma %f4, %f2, %f1, %f3` is the last read of the two loaded inputs (`%f1`, the kernel
    // parameter `a`, is a constant-bank operand: no register); the store then reads the
    // address pair and the result for the last time, and nothing is live after it.
    assert!(line("17").contains("reads: R2* R3* |"), "{}", line("17"));
    assert!(line("18").ends_with("| live: -"), "{}", line("18"));
    // `%rd7` is read by the load at pc 16 and again by the store, so not last-used there.
    assert!(line("16").contains("reads: R0 R1 |"), "{}", line("16"));
    // The bounds check reads %r1 (needed in the body); %r2, the parameter n, is an operand.
    assert!(line("8").contains("reads: R0 |"), "{}", line("8"));
    assert_snapshot("saxpy_hints", &listing);
}

/// Loop weights: the kernel's outer loop counts 10 per instruction, its inner loop 100.
#[test]
fn nested_divergence_hint_weights() {
    let listing = dis(&[
        "samples/corpus/divergence.ptx",
        "--kernel",
        "nested_divergence",
        "--hints",
    ]);
    for depth in 0..3 {
        let expected = format!("loop depth {depth}, weight {}", 10u64.pow(depth));
        assert!(
            listing.contains(&expected),
            "no block with `{expected}` in:\n{listing}"
        );
    }
    assert!(!listing.contains("loop depth 1, weight 1\n"));
}

/// `--no-live` leaves out the `live:` lists and nothing else: each line is the full listing's
/// without its `live: ...` annotation, and an instruction left with no annotation has no
/// comment (200,000 values live at once would print 200,000 names a line, issue 49).
#[test]
fn no_live_leaves_out_the_live_lists_only() {
    let full = dis(&["samples/saxpy/saxpy.ptx"]);
    let short = dis(&["samples/saxpy/saxpy.ptx", "--no-live"]);
    let expected: Vec<String> = full
        .lines()
        .map(|line| match line.split_once("  // ") {
            Some((code, comment)) if comment.contains("live:") => {
                let kept: Vec<&str> = comment
                    .split(" | ")
                    .filter(|a| !a.starts_with("live:"))
                    .collect();
                if kept.is_empty() {
                    code.trim_end().to_string()
                } else {
                    format!("{code}  // {}", kept.join(" | "))
                }
            }
            _ => line.to_string(),
        })
        .collect();
    assert!(!short.contains("live:"), "{short}");
    assert_eq!(short.lines().collect::<Vec<_>>(), expected);
    assert!(short.contains("    19  ret;\n"), "{short}");
}

#[test]
fn unknown_kernel_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["dis", "samples/saxpy/saxpy.ptx", "--kernel", "nope"])
        .output()
        .expect("warpsim runs");
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: no kernel or function `nope` in samples/saxpy/saxpy.ptx; it has: saxpy"
    );
}

#[test]
fn locality_of_the_neighbours_kernel() {
    // LocalityGuru's test kernel (timing/src/paver/testdata/neighbours.ptx) with 8 CTAs of
    // 16 threads and m = 2, checked by hand: CTA b reads a[16b, 16b + 32) (128-byte lines
    // b/2 and, for odd b, b/2 + 1), b_[16b, 16b + 16) (line b/2 of its buffer) and a[1000 +
    // b] (line 31, every CTA): 10 lines, 9 shared, all 28 pairs sharing line 31, pairs
    // (2k, 2k + 1) 3 lines, weight 42.
    let listing = dis(&[
        "timing/src/paver/testdata/neighbours.ptx",
        "--locality",
        "--grid",
        "8",
        "--block",
        "16",
        "--param",
        "pm=2",
        "--ctas-per-sm",
        "2",
    ]);
    assert!(
        listing.contains("8 CTAs, 10 lines, 9 shared") && listing.contains("28 edges, weight 42"),
        "{listing}"
    );
    assert!(
        listing.contains("from data (PC 23): not analysed"),
        "{listing}"
    );
    assert_snapshot("locality_neighbours", &listing);
}
