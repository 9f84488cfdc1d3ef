//! Special (read-only, hardware-provided) registers such as `%tid.x` and `%clock64`.

use crate::types::{Dim, Type};
use std::fmt;

/// A special register readable with `mov` (or as a source operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    Clock,
    ClockHi,
    Clock64,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    DynamicSmemSize,
    TotalSmemSize,
    /// `%clusterid`: the cluster's position in the grid (sm_90).
    ClusterId(Dim),
    /// `%nclusterid`: the grid's extent in clusters.
    NClusterId(Dim),
    /// `%cluster_ctaid`: the CTA's position in its cluster.
    ClusterCtaid(Dim),
    /// `%cluster_nctaid`: the cluster's extent in CTAs.
    ClusterNctaid(Dim),
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster.
    ClusterCtarank,
    /// `%cluster_nctarank`: the CTAs in the cluster.
    ClusterNctarank,
    /// `%is_explicit_cluster` (a `.pred`): whether the launch named a cluster shape.
    IsExplicitCluster,
}

impl SpecialReg {
    /// Parses a special register from its base name (with `%`) and optional component
    /// (`"%tid"`, `Some("x")`). A dimensioned register without component is not accepted.
    pub fn from_name(base: &str, component: Option<&str>) -> Option<SpecialReg> {
        let dim = component.and_then(Dim::from_name);
        let plain = |r: SpecialReg| if component.is_none() { Some(r) } else { None };
        match base {
            "%tid" => dim.map(SpecialReg::Tid),
            "%ntid" => dim.map(SpecialReg::Ntid),
            "%ctaid" => dim.map(SpecialReg::Ctaid),
            "%nctaid" => dim.map(SpecialReg::Nctaid),
            "%laneid" => plain(SpecialReg::LaneId),
            "%warpid" => plain(SpecialReg::WarpId),
            "%nwarpid" => plain(SpecialReg::NWarpId),
            "%smid" => plain(SpecialReg::SmId),
            "%nsmid" => plain(SpecialReg::NSmId),
            "%gridid" => plain(SpecialReg::GridId),
            "%clock" => plain(SpecialReg::Clock),
            "%clock_hi" => plain(SpecialReg::ClockHi),
            "%clock64" => plain(SpecialReg::Clock64),
            "%globaltimer" => plain(SpecialReg::GlobalTimer),
            "%globaltimer_lo" => plain(SpecialReg::GlobalTimerLo),
            "%globaltimer_hi" => plain(SpecialReg::GlobalTimerHi),
            "%lanemask_eq" => plain(SpecialReg::LanemaskEq),
            "%lanemask_lt" => plain(SpecialReg::LanemaskLt),
            "%lanemask_le" => plain(SpecialReg::LanemaskLe),
            "%lanemask_gt" => plain(SpecialReg::LanemaskGt),
            "%lanemask_ge" => plain(SpecialReg::LanemaskGe),
            "%dynamic_smem_size" => plain(SpecialReg::DynamicSmemSize),
            "%total_smem_size" => plain(SpecialReg::TotalSmemSize),
            "%clusterid" => dim.map(SpecialReg::ClusterId),
            "%nclusterid" => dim.map(SpecialReg::NClusterId),
            "%cluster_ctaid" => dim.map(SpecialReg::ClusterCtaid),
            "%cluster_nctaid" => dim.map(SpecialReg::ClusterNctaid),
            "%cluster_ctarank" => plain(SpecialReg::ClusterCtarank),
            "%cluster_nctarank" => plain(SpecialReg::ClusterNctarank),
            "%is_explicit_cluster" => plain(SpecialReg::IsExplicitCluster),
            _ => None,
        }
    }

    /// Whether `name` (with `%`) is the base name of some special register.
    pub fn is_special_name(base: &str) -> bool {
        SpecialReg::from_name(base, None).is_some()
            || SpecialReg::from_name(base, Some("x")).is_some()
    }

    /// The register's natural type.
    pub fn ty(self) -> Type {
        match self {
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId => Type::U64,
            SpecialReg::IsExplicitCluster => Type::Pred,
            _ => Type::U32,
        }
    }
}

/// What a cluster register reads while every launch is a grid of implicit 1×1×1 clusters
/// (warpsim has no cluster launches yet; docs/ptx.md): each CTA is its cluster's only CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImplicitCluster {
    /// This CTA register's value: `%clusterid` is `%ctaid`, `%nclusterid` is `%nctaid`.
    Register(SpecialReg),
    /// A constant: `%cluster_ctaid` and `%cluster_ctarank` 0, `%cluster_nctaid` and
    /// `%cluster_nctarank` 1, `%is_explicit_cluster` false.
    Constant(u32),
}

impl SpecialReg {
    /// The value of a cluster register in an implicit 1×1×1 cluster; `None` for the others.
    /// The one place that says what the cluster registers read, for every evaluator.
    pub fn implicit_cluster(self) -> Option<ImplicitCluster> {
        use ImplicitCluster::{Constant, Register};
        Some(match self {
            SpecialReg::ClusterId(d) => Register(SpecialReg::Ctaid(d)),
            SpecialReg::NClusterId(d) => Register(SpecialReg::Nctaid(d)),
            SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::IsExplicitCluster => Constant(0),
            SpecialReg::ClusterNctaid(_) | SpecialReg::ClusterNctarank => Constant(1),
            _ => return None,
        })
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (base, dim) = match self {
            SpecialReg::Tid(d) => ("%tid", Some(d)),
            SpecialReg::Ntid(d) => ("%ntid", Some(d)),
            SpecialReg::Ctaid(d) => ("%ctaid", Some(d)),
            SpecialReg::Nctaid(d) => ("%nctaid", Some(d)),
            SpecialReg::LaneId => ("%laneid", None),
            SpecialReg::WarpId => ("%warpid", None),
            SpecialReg::NWarpId => ("%nwarpid", None),
            SpecialReg::SmId => ("%smid", None),
            SpecialReg::NSmId => ("%nsmid", None),
            SpecialReg::GridId => ("%gridid", None),
            SpecialReg::Clock => ("%clock", None),
            SpecialReg::ClockHi => ("%clock_hi", None),
            SpecialReg::Clock64 => ("%clock64", None),
            SpecialReg::GlobalTimer => ("%globaltimer", None),
            SpecialReg::GlobalTimerLo => ("%globaltimer_lo", None),
            SpecialReg::GlobalTimerHi => ("%globaltimer_hi", None),
            SpecialReg::LanemaskEq => ("%lanemask_eq", None),
            SpecialReg::LanemaskLt => ("%lanemask_lt", None),
            SpecialReg::LanemaskLe => ("%lanemask_le", None),
            SpecialReg::LanemaskGt => ("%lanemask_gt", None),
            SpecialReg::LanemaskGe => ("%lanemask_ge", None),
            SpecialReg::DynamicSmemSize => ("%dynamic_smem_size", None),
            SpecialReg::TotalSmemSize => ("%total_smem_size", None),
            SpecialReg::ClusterId(d) => ("%clusterid", Some(d)),
            SpecialReg::NClusterId(d) => ("%nclusterid", Some(d)),
            SpecialReg::ClusterCtaid(d) => ("%cluster_ctaid", Some(d)),
            SpecialReg::ClusterNctaid(d) => ("%cluster_nctaid", Some(d)),
            SpecialReg::ClusterCtarank => ("%cluster_ctarank", None),
            SpecialReg::ClusterNctarank => ("%cluster_nctarank", None),
            SpecialReg::IsExplicitCluster => ("%is_explicit_cluster", None),
        };
        f.write_str(base)?;
        if let Some(d) = dim {
            write!(f, ".{}", d.name())?;
        }
        Ok(())
    }
}
