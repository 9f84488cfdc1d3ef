//! Every workload `warpsim run` and `warpsim list` know, in the order they are listed.

use crate::sample::Sample;

/// All samples: SAXPY, then the Rodinia ports in the priority order of the port issue.
pub fn all() -> Vec<&'static dyn Sample> {
    vec![
        &crate::saxpy::Saxpy,
        &crate::rodinia::nn::Nn,
        &crate::rodinia::bfs::Bfs,
        &crate::rodinia::gaussian::Gaussian,
        &crate::rodinia::pathfinder::Pathfinder,
        &crate::rodinia::hotspot::Hotspot,
        &crate::rodinia::hotspot3d::Hotspot3d,
        &crate::rodinia::nw::Nw,
        &crate::rodinia::lud::Lud,
        &crate::rodinia::backprop::Backprop,
        &crate::rodinia::sradv2::SradV2,
        &crate::rodinia::sradv1::SradV1,
        &crate::rodinia::kmeans::Kmeans,
        &crate::rodinia::streamcluster::Streamcluster,
        &crate::rodinia::bptree::BPlusTree,
        &crate::rodinia::lavamd::LavaMd,
        &crate::rodinia::cfd::Cfd,
        &crate::rodinia::particlefilter::ParticlefilterNaive,
        &crate::rodinia::particlefilter::ParticlefilterFloat,
        &crate::rodinia::huffman::Huffman,
        &crate::rodinia::hybridsort::Hybridsort,
        &crate::rodinia::heartwall::Heartwall,
        &crate::rodinia::myocyte::Myocyte,
        &crate::rodinia::dwt2d::Dwt2d53,
        &crate::rodinia::dwt2d::Dwt2d97,
        &crate::rodinia::leukocyte::Leukocyte,
    ]
}

/// Looks a sample up by name (`saxpy`, `rodinia/nn`; `nn` alone also finds `rodinia/nn`).
pub fn find(name: &str) -> Option<&'static dyn Sample> {
    all()
        .into_iter()
        .find(|s| s.name() == name || s.name().strip_prefix("rodinia/") == Some(name))
}
