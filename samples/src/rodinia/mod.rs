//! Ports of the Rodinia 3.1 benchmarks, written for warpsim: each keeps Rodinia's kernel names,
//! block sizes, launch sequence and host-side iteration, with its own CUDA sources under
//! `samples/rodinia/<name>/`, seeded inputs and a CPU reference in Rust.

pub mod backprop;
pub mod bfs;
pub mod bptree;
pub mod cfd;
pub mod dwt2d;
pub mod gaussian;
pub mod heartwall;
pub mod hotspot;
pub mod hotspot3d;
pub mod huffman;
pub mod hybridsort;
pub mod kmeans;
pub mod lavamd;
pub mod leukocyte;
pub mod lud;
pub mod myocyte;
pub mod nn;
pub mod nw;
pub mod particlefilter;
pub mod pathfinder;
pub mod sradv1;
pub mod sradv2;
pub mod streamcluster;
