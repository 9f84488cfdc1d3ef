//! Every workload `warpsim run` and `warpsim list` know, in the order they are listed, grouped
//! into suites by the prefix of their names (`rodinia/nn` is in `rodinia`).

use crate::sample::Sample;

/// The suites, in listing order. SAXPY belongs to none (only to `all`).
pub const SUITES: [&str; 5] = ["rodinia", "parboil", "polybench", "sdk", "dnn"];

/// All samples: SAXPY, the Rodinia ports in the priority order of the port issue, then the
/// other suites.
pub fn all() -> Vec<&'static dyn Sample> {
    let mut samples: Vec<&'static dyn Sample> = vec![
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
        &crate::rodinia::kmeans::Kmeans {
            texture_references: false,
        },
        &crate::rodinia::streamcluster::Streamcluster,
        &crate::rodinia::bptree::BPlusTree,
        &crate::rodinia::lavamd::LavaMd,
        &crate::rodinia::cfd::Cfd,
        &crate::rodinia::particlefilter::ParticlefilterNaive,
        &crate::rodinia::particlefilter::ParticlefilterFloat,
        &crate::rodinia::huffman::Huffman,
        &crate::rodinia::hybridsort::Hybridsort {
            texture_references: false,
        },
        &crate::rodinia::heartwall::Heartwall,
        &crate::rodinia::myocyte::Myocyte,
        &crate::rodinia::dwt2d::Dwt2d53,
        &crate::rodinia::dwt2d::Dwt2d97,
        &crate::rodinia::leukocyte::Leukocyte {
            texture_references: false,
        },
    ];
    samples.extend(crate::parboil::samples());
    samples.extend(crate::polybench::samples());
    samples.extend(crate::sdk::samples());
    samples.extend(crate::dnn::samples());
    samples
}

/// The samples that read through Rodinia's texture references (`rodinia/kmeans-textures`, ...):
/// CUDA 12 has none, so their PTX comes from NVRTC 11.8. Selected by name only: neither `all`
/// nor a suite holds them, and the frozen baseline covers the plain ports they match.
pub fn texture_variants() -> Vec<&'static dyn Sample> {
    vec![
        &crate::rodinia::kmeans::Kmeans {
            texture_references: true,
        },
        &crate::rodinia::hybridsort::Hybridsort {
            texture_references: true,
        },
        &crate::rodinia::leukocyte::Leukocyte {
            texture_references: true,
        },
    ]
}

/// The suite of a sample name (`rodinia/nn` → `rodinia`), or `None` (SAXPY).
pub fn suite_of(name: &str) -> Option<&'static str> {
    let prefix = name.split_once('/')?.0;
    SUITES.iter().copied().find(|s| *s == prefix)
}

/// Looks a sample up by name: `saxpy`, `rodinia/nn`, or a bare `nn`. A bare name shared by
/// several suites (`bfs` is in Rodinia and Parboil) finds the Rodinia sample, then the first in
/// [`SUITES`] order; the full name always finds the one it names.
pub fn find(name: &str) -> Option<&'static dyn Sample> {
    if let Some(v) = texture_variants().into_iter().find(|s| s.name() == name) {
        return Some(v);
    }
    let all = all();
    if let Some(s) = all.iter().find(|s| s.name() == name) {
        return Some(*s);
    }
    SUITES.iter().find_map(|suite| {
        all.iter()
            .find(|s| {
                s.name()
                    .strip_prefix(suite)
                    .and_then(|r| r.strip_prefix('/'))
                    == Some(name)
            })
            .copied()
    })
}

/// The samples that `names` select, in registry order and each once: sample names (as
/// [`find`] takes them), suite names, or `all`.
pub fn select(names: &[String]) -> Result<Vec<&'static dyn Sample>, String> {
    // The texture variants come last, picked by name only.
    let mut all = all();
    let plain = all.len();
    all.extend(texture_variants());
    let mut keep = vec![false; all.len()];
    for name in names {
        if name == "all" {
            keep[..plain].iter_mut().for_each(|k| *k = true);
        } else if SUITES.contains(&name.as_str()) {
            let members = all
                .iter()
                .enumerate()
                .map(|(i, s)| i < plain && suite_of(s.name()) == Some(name.as_str()));
            if !members.clone().any(|m| m) {
                return Err(format!("error: the suite `{name}` has no samples yet"));
            }
            for (k, m) in keep.iter_mut().zip(members) {
                *k |= m;
            }
        } else {
            let found = find(name).ok_or_else(|| {
                format!(
                    "error: unknown sample `{name}` (`warpsim list` shows the samples; a suite \
                     — {} — or `all` selects several)",
                    SUITES.join(", ")
                )
            })?;
            let i = all
                .iter()
                .position(|s| s.name() == found.name())
                .expect("found in the registry");
            keep[i] = true;
        }
    }
    Ok(all
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect())
}
