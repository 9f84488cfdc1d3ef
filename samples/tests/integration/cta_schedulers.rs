//! CTA schedulers (`gpu.cta_scheduler`) on whole samples: each validates, executes the same
//! instructions as round robin, and is deterministic and exact without fast-forward.

/// Runs sample `name` at the small size on gtx480 with `overrides` on `host_threads`
/// threads; it must validate. Its total statistics.
fn run(name: &str, overrides: &[&str], host_threads: usize) -> serde_json::Value {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    crate::common::small_run_on_gtx480(name, &overrides, host_threads)
}

#[test]
fn bcs_runs_the_same_work_in_pairs_deterministically() {
    // Hotspot's 2D grid of 16 × 16-thread tiles: neighbouring CTAs share halo rows.
    let name = "rodinia/hotspot";
    let bcs = ["gpu.cta_scheduler=bcs"];
    let rr = run(name, &["gpu.cta_scheduler=round-robin"], 1);
    assert_eq!(rr, run(name, &[], 1), "round robin is the default");
    let paired = run(name, &bcs, 1);
    for key in ["warp_insts", "gpu_sim_insn", "ctas"] {
        assert_eq!(paired[key], rr[key], "{key}");
    }
    assert_ne!(paired["gpu_sim_cycle"], rr["gpu_sim_cycle"]);
    assert!(run(name, &bcs, 2) == paired, "2 host threads");
    let stepped = run(
        name,
        &["gpu.cta_scheduler=bcs", "gpu.fast_forward=false"],
        1,
    );
    assert!(stepped == paired, "cycle by cycle");
}

#[test]
fn paver_runs_the_same_work_deterministically_and_reports_its_graph() {
    // Hotspot's tiles share halos with their neighbours; b+tree's addresses come partly from
    // loaded data (LocalityGuru leaves those out).
    for name in ["rodinia/hotspot", "rodinia/b+tree"] {
        let paver = ["gpu.cta_scheduler=paver"];
        let rr = run(name, &[], 1);
        let grouped = run(name, &paver, 1);
        for key in ["warp_insts", "gpu_sim_insn", "ctas"] {
            assert_eq!(grouped[key], rr[key], "{name}: {key}");
        }
        let report = &grouped["cta_scheduler"];
        assert_eq!(report["name"], "paver", "{name}");
        let counters = &report["counters"];
        assert_eq!(counters["analysed_ctas"], rr["ctas"], "{name}");
        assert!(counters["edges"].as_u64().unwrap() > 0, "{name}: {counters}");
        assert!(rr.get("cta_scheduler").is_none(), "round robin reports nothing");
        assert!(run(name, &paver, 2) == grouped, "{name}: 2 host threads");
        let stepped = run(
            name,
            &["gpu.cta_scheduler=paver", "gpu.fast_forward=false"],
            1,
        );
        assert!(stepped == grouped, "{name}: cycle by cycle");
    }
}
