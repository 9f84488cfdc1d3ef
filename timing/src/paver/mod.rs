//! PAVER (seed 002, chapter 3): locality-aware CTA scheduling from a CTA data-sharing graph.
//!
//! At launch, before the first cycle (the seed's JIT time), [`guru`] derives from the
//! kernel's code and the launch's constants which global lines each CTA reads; [`graph`]
//! turns that into the locality graph; [`partition`] cuts the graph recursively in two
//! (RB-TS, the seed's best policy) into groups of CTAs that fit on one SM at once. The CTA
//! scheduler (`gpu.cta_scheduler = "paver"`, crate::cta_scheduler) then gives each SM a
//! group at a time, in order, and lets an SM whose group ran out steal from the SM with the
//! most waiting CTAs when no group is left.

pub mod graph;
pub mod guru;
pub mod partition;

use crate::rf::TechniqueReport;
use graph::LocalityGraph;
use guru::LaunchShape;

/// PAVER's plan for one launch: the CTA groups in scheduling order, and what the analysis
/// found.
#[derive(Clone, Debug)]
pub struct PaverPlan {
    pub groups: Vec<Vec<u64>>,
    /// The analysis and the graph, as counters of the statistics' `cta_scheduler` report.
    pub report: TechniqueReport,
}

impl PaverPlan {
    /// Plans the CTAs `0..ctas` of `launch` for SMs that hold `capacity` CTAs each, caches
    /// having `line_bytes`-byte lines.
    pub fn new(launch: &LaunchShape, ctas: u64, capacity: u32, line_bytes: u64) -> PaverPlan {
        let footprints = guru::footprints(launch, ctas, line_bytes);
        let graph = LocalityGraph::build(&footprints);
        let groups = partition::recursive_bisection(&graph, capacity as usize);
        let s = &graph.summary;
        let a = &footprints.report;
        let mut report = TechniqueReport {
            name: "paver".into(),
            ..TechniqueReport::default()
        };
        for (key, value) in [
            ("launches", 1),
            ("analysed_ctas", s.ctas),
            ("lines", s.lines),
            ("shared_lines", s.shared_lines),
            ("widely_shared_lines", s.widely_shared_lines),
            ("sharing_ctas", s.sharing_ctas),
            ("edges", s.edges),
            ("edge_weight", s.weight),
            ("edge_weight_in_groups", graph.weight_within(&groups)),
            ("groups", groups.len() as u64),
            ("static_loads", a.static_loads),
            (
                "data_dependent_loads",
                a.data_dependent_loads.iter().map(|l| l.1).sum(),
            ),
            ("cut_threads", a.cut_threads.iter().map(|c| c.2).sum()),
            ("calls_skipped", a.calls_skipped),
            ("analysis_steps", a.steps),
            ("unanalysed_ctas", a.unanalysed_ctas),
        ] {
            report.add(key, value);
        }
        PaverPlan {
            groups: groups
                .into_iter()
                .map(|g| g.into_iter().map(u64::from).collect())
                .collect(),
            report,
        }
    }
}
