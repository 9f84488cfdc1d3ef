//! The cooperative-groups corpus (`samples/corpus/coop_groups*.cu`, NVRTC's PTX of
//! cooperative_groups.h, reduce.h and scan.h for compute_80): every kernel's every output word
//! is compared exactly against a host model written from the CUDA programming guide's
//! description of each cooperative-groups call, under the JIT, the interpreter and the timing
//! model (a100).
//!
//! The inputs are chosen so that a warp-level instruction that combines the wrong lanes gives
//! a different answer: distinct values per lane, tiles of one warp whose predicates and keys
//! differ (all true next to all false, a key shared by the tiles of a warp next to distinct
//! keys), and branches that leave only some lanes of a warp, or only some tiles, active. On
//! compute_80, `cg::reduce` of 32-bit integers over a tile of 16 or 32 threads or a coalesced
//! group is `redux.sync` with the group's member mask, and votes and matches are `vote.sync` and
//! `match.sync` with it: those must combine exactly the lanes of the mask.
//!
//! Where the guide leaves a result unspecified (an exclusive scan's first rank for an operator
//! other than `plus`), that word is not compared. Where it is silent on an order (the meta
//! group ranks of a labeled or binary partition), the model numbers the groups as
//! cooperative_groups.h does: a labeled partition's by their lowest lane, a binary partition's
//! false (0) before true (1), and a partition that does not split its parent as group 0 of 1.

use runtime::{Arg, Device};

/// Threads per block of the tile kernels (four warps) and blocks per launch.
const BLOCK: usize = 128;
const BLOCKS: usize = 2;
/// Threads per launch.
const N: usize = BLOCK * BLOCKS;
/// What the host writes to every output word first: a thread that takes no part writes
/// nothing, so its words must still hold this.
const FILL: u32 = 0xa5a5_a5a5;
/// The tile sizes of the static partitions, in the order the kernels write them.
const SIZES: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// A small deterministic generator (xorshift64*), seeded per test.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 16
    }

    /// A value in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Integers in [-2^20, 2^20): mixed signs, so signed and unsigned minima differ, and
    /// (almost always) distinct.
    fn ints(&mut self, n: usize) -> Vec<i32> {
        (0..n)
            .map(|_| self.below(1 << 21) as i32 - (1 << 20))
            .collect()
    }

    /// Nonzero multiples of 1/4 in [-1024, 1024]: sums of up to 32 of them are exact in f32
    /// whatever the order, and no two are signed zeros.
    fn floats(&mut self, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| match self.below(8193) as i32 - 4096 {
                0 => 0.25,
                k => k as f32 * 0.25,
            })
            .collect()
    }
}

/// One output slot of a kernel: its name and each thread's expected word (`None`: not
/// specified, not compared).
struct Slot {
    name: String,
    want: Vec<Option<u32>>,
}

/// The slot `name` whose thread `t` must hold `f(t)` (threads where `f` gives `None` are not
/// compared).
fn slot(name: impl Into<String>, threads: usize, f: impl Fn(usize) -> Option<u32>) -> Slot {
    Slot {
        name: name.into(),
        want: (0..threads).map(f).collect(),
    }
}

/// The threads of the tile of `s` threads that thread `t` belongs to, in rank order (tiles
/// never straddle a block: `BLOCK` is a multiple of every size).
fn tile(t: usize, s: usize) -> std::ops::Range<usize> {
    let base = t - t % s;
    base..base + s
}

/// The bits of `v`, for slots of floats.
fn bits(v: f32) -> u32 {
    v.to_bits()
}

/// Bit `i` set for each position `i` of `members` (a group in rank order) where `f` holds.
fn mask_of(members: &[usize], f: impl Fn(usize) -> bool) -> u32 {
    members
        .iter()
        .enumerate()
        .filter(|&(_, &m)| f(m))
        .fold(0, |acc, (i, _)| acc | 1 << i)
}

/// The devices: JIT, interpreter, and the JIT under the a100 timing model (sm_80 PTX).
fn devices() -> Vec<(&'static str, Device)> {
    ["jit", "interpreter", "a100 timing"]
        .into_iter()
        .zip(crate::common::engine_devices("a100"))
        .collect()
}

/// An input buffer of a launch.
enum Input {
    I32(Vec<i32>),
    U32(Vec<u32>),
    F32(Vec<f32>),
    /// A 32-bit scalar parameter.
    Scalar(u32),
}

/// Launches `kernel` of `file` on `grid` blocks of `block` threads with `inputs` and an
/// output buffer of `slots.len()` words per thread (filled with [`FILL`]) as its last
/// parameter, on every device, and compares every output word against `slots`. Returns one
/// line per device and slot with a wrong word: how many threads, and the first one.
fn run(
    file: &str,
    kernel: &str,
    grid: usize,
    block: usize,
    inputs: &[Input],
    slots: &[Slot],
) -> Vec<String> {
    let threads = grid * block;
    let mut failures = Vec::new();
    for (what, dev) in devices() {
        let module = dev
            .load_ptx_file(&warpsim::samples_dir().join("corpus").join(file))
            .unwrap();
        let k = module.kernel(kernel).unwrap();
        let buffers: Vec<Option<runtime::DeviceBuffer<u32>>> = inputs
            .iter()
            .map(|i| match i {
                Input::I32(v) => Some(v.iter().map(|&x| x as u32).collect::<Vec<_>>()),
                Input::U32(v) => Some(v.clone()),
                Input::F32(v) => Some(v.iter().map(|x| x.to_bits()).collect()),
                Input::Scalar(_) => None,
            })
            .map(|words| words.map(|w| dev.alloc_from(&w).unwrap()))
            .collect();
        let out = dev.alloc_from(&vec![FILL; slots.len() * threads]).unwrap();
        let mut args: Vec<Arg> = inputs
            .iter()
            .zip(&buffers)
            .map(|(i, b)| match (i, b) {
                (Input::Scalar(x), _) => Arg::U32(*x),
                (_, Some(b)) => b.into(),
                (_, None) => unreachable!("every array has a buffer"),
            })
            .collect();
        args.push((&out).into());
        if let Err(e) = dev.launch(&k, grid as u32, block as u32, 0, &args) {
            failures.push(format!("{what}: {kernel}: launch failed: {e}"));
            continue;
        }
        let got = out.to_host().unwrap();
        for (k, s) in slots.iter().enumerate() {
            let words = &got[k * threads..(k + 1) * threads];
            let wrong: Vec<usize> = (0..threads)
                .filter(|&t| s.want[t].is_some_and(|w| w != words[t]))
                .collect();
            if let Some(&t) = wrong.first() {
                let want = s.want[t].unwrap();
                failures.push(format!(
                    "{what}: {kernel} {}: {} of {threads} threads wrong; first thread {t} \
                     (warp {}, lane {}): got {:#010x} ({}), want {want:#010x} ({})",
                    s.name,
                    wrong.len(),
                    t / 32,
                    t % 32,
                    words[t],
                    words[t] as i32,
                    want as i32,
                ));
            }
        }
    }
    failures
}

/// Panics listing every failure, if any.
fn assert_none(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} wrong slot(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cg_tile_reduce_int() {
    let mut rng = Rng::new(1);
    let v = rng.ints(N);
    // One bit clear per thread: a tile's bitwise and (and the or of the complements) names
    // exactly the bits its threads cleared.
    let and_in: Vec<u32> = (0..N).map(|_| !(1u32 << rng.below(32))).collect();
    let (vr, ar) = (&v, &and_in);
    let mut slots = Vec::new();
    for s in SIZES {
        let vs = move |t: usize| tile(t, s).map(move |m| vr[m]);
        let us = move |t: usize| tile(t, s).map(move |m| vr[m] as u32);
        let ands = move |t: usize| tile(t, s).map(move |m| ar[m]);
        type Op<'a> = (&'a str, Box<dyn Fn(usize) -> u32 + 'a>);
        let ops: Vec<Op> = vec![
            (
                "plus s32",
                Box::new(|t| vs(t).fold(0i32, i32::wrapping_add) as u32),
            ),
            ("less s32", Box::new(|t| vs(t).min().unwrap() as u32)),
            ("greater s32", Box::new(|t| vs(t).max().unwrap() as u32)),
            ("bit_and s32", Box::new(|t| ands(t).fold(!0, |a, x| a & x))),
            ("bit_or s32", Box::new(|t| ands(t).fold(0, |a, x| a | !x))),
            (
                "bit_xor s32",
                Box::new(|t| vs(t).fold(0, |a, x| a ^ x) as u32),
            ),
            (
                "plus u32",
                Box::new(|t| us(t).fold(0u32, u32::wrapping_add)),
            ),
            ("less u32", Box::new(|t| us(t).min().unwrap())),
            ("greater u32", Box::new(|t| us(t).max().unwrap())),
            ("bit_and u32", Box::new(|t| ands(t).fold(!0, |a, x| a & x))),
            ("bit_or u32", Box::new(|t| ands(t).fold(0, |a, x| a | !x))),
            ("bit_xor u32", Box::new(|t| us(t).fold(0, |a, x| a ^ x))),
        ];
        for (name, f) in ops {
            slots.push(slot(format!("reduce<{s}> {name}"), N, |t| Some(f(t))));
        }
    }
    let inputs = [Input::I32(v.clone()), Input::U32(and_in.clone())];
    assert_none(run(
        "coop_groups.ptx",
        "tile_reduce_int",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

#[test]
fn cg_tile_reduce_float() {
    let mut rng = Rng::new(2);
    let f = rng.floats(N);
    let mut slots = Vec::new();
    for s in SIZES {
        let fs = |t: usize| tile(t, s).map(|m| f[m]);
        slots.push(slot(format!("reduce<{s}> plus f32"), N, |t| {
            Some(bits(fs(t).sum()))
        }));
        slots.push(slot(format!("reduce<{s}> less f32"), N, |t| {
            Some(bits(fs(t).fold(f32::INFINITY, f32::min)))
        }));
        slots.push(slot(format!("reduce<{s}> greater f32"), N, |t| {
            Some(bits(fs(t).fold(f32::NEG_INFINITY, f32::max)))
        }));
        let sum64 = |t: usize| fs(t).map(f64::from).sum::<f64>().to_bits();
        slots.push(slot(format!("reduce<{s}> plus f64 (low word)"), N, |t| {
            Some(sum64(t) as u32)
        }));
        slots.push(slot(format!("reduce<{s}> plus f64 (high word)"), N, |t| {
            Some((sum64(t) >> 32) as u32)
        }));
    }
    assert_none(run(
        "coop_groups.ptx",
        "tile_reduce_float",
        BLOCKS,
        BLOCK,
        &[Input::F32(f)],
        &slots,
    ));
}

#[test]
fn cg_tile_scan() {
    let mut rng = Rng::new(3);
    let v = rng.ints(N);
    let one_bit: Vec<u32> = (0..N).map(|_| 1u32 << rng.below(32)).collect();
    let f = rng.floats(N);
    let mut slots = Vec::new();
    for s in SIZES {
        // The threads of t's tile up to t, and those before it.
        let upto = |t: usize| tile(t, s).start..=t;
        let before = |t: usize| tile(t, s).start..t;
        let rank = |t: usize| t % s;
        slots.push(slot(format!("inclusive_scan<{s}> plus s32"), N, |t| {
            Some(upto(t).map(|m| v[m]).fold(0i32, i32::wrapping_add) as u32)
        }));
        // The guide's exclusive plus scan starts from 0 (a stream compaction's offsets).
        slots.push(slot(format!("exclusive_scan<{s}> plus s32"), N, |t| {
            Some(before(t).map(|m| v[m]).fold(0i32, i32::wrapping_add) as u32)
        }));
        slots.push(slot(format!("inclusive_scan<{s}> greater s32"), N, |t| {
            Some(upto(t).map(|m| v[m]).max().unwrap() as u32)
        }));
        slots.push(slot(format!("exclusive_scan<{s}> bit_or u32"), N, |t| {
            (rank(t) > 0).then(|| before(t).fold(0, |a, m| a | one_bit[m]))
        }));
        slots.push(slot(format!("inclusive_scan<{s}> (plus) u32"), N, |t| {
            Some(upto(t).map(|m| v[m] as u32).fold(0, u32::wrapping_add))
        }));
        slots.push(slot(format!("inclusive_scan<{s}> plus f32"), N, |t| {
            Some(bits(upto(t).map(|m| f[m]).sum()))
        }));
        slots.push(slot(format!("exclusive_scan<{s}> less f32"), N, |t| {
            (rank(t) > 0).then(|| bits(before(t).map(|m| f[m]).fold(f32::INFINITY, f32::min)))
        }));
    }
    let inputs = [Input::I32(v), Input::U32(one_bit), Input::F32(f)];
    assert_none(run(
        "coop_groups.ptx",
        "tile_scan",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

/// Per tile of `s` threads, one of five predicate patterns: all true, all false, one true,
/// all but one true, random.
fn tile_preds(rng: &mut Rng, s: usize) -> Vec<i32> {
    let mut p = Vec::with_capacity(N);
    for _ in 0..N / s {
        let odd = rng.below(s as u64) as usize;
        let pattern = rng.below(5);
        for r in 0..s {
            p.push(match pattern {
                0 => 1,
                1 => 0,
                2 => i32::from(r == odd),
                3 => i32::from(r != odd),
                // Any nonzero integer is true.
                _ => (rng.below(2) * rng.below(100)) as i32,
            });
        }
    }
    p
}

/// Per tile of `s` threads, one of four key patterns: all 7 (the same key as every other such
/// tile of the warp), keys from {0, 1, 2, 3}, distinct keys, one random key for the tile.
fn tile_keys(rng: &mut Rng, s: usize) -> Vec<i32> {
    let mut k = Vec::with_capacity(N);
    for tile in 0..N / s {
        let pattern = rng.below(4);
        let uniform = rng.below(1 << 30) as i32 - (1 << 29);
        for r in 0..s {
            k.push(match pattern {
                0 => 7,
                1 => rng.below(4) as i32,
                2 => (tile * 100 + r) as i32 - 3000,
                _ => uniform,
            });
        }
    }
    k
}

#[test]
fn cg_tile_vote() {
    let mut rng = Rng::new(4);
    let mut preds = Vec::new();
    let mut keys = Vec::new();
    for s in SIZES {
        preds.extend(tile_preds(&mut rng, s));
        keys.extend(tile_keys(&mut rng, s));
    }
    let mut slots = Vec::new();
    for (k, s) in SIZES.into_iter().enumerate() {
        let p = |t: usize| preds[k * N + t] != 0;
        let key = |t: usize| keys[k * N + t];
        let members = |t: usize| tile(t, s).collect::<Vec<_>>();
        let every = if s == 32 { !0 } else { (1u32 << s) - 1 };
        let uniform = |t: usize| tile(t, s).all(|m| key(m) == key(t));
        slots.push(slot(format!("tile<{s}>.any"), N, |t| {
            Some(u32::from(tile(t, s).any(p)))
        }));
        slots.push(slot(format!("tile<{s}>.all"), N, |t| {
            Some(u32::from(tile(t, s).all(p)))
        }));
        slots.push(slot(format!("tile<{s}>.ballot"), N, |t| {
            Some(mask_of(&members(t), p))
        }));
        slots.push(slot(format!("tile<{s}>.match_any"), N, |t| {
            Some(mask_of(&members(t), |m| key(m) == key(t)))
        }));
        slots.push(slot(format!("tile<{s}>.match_all"), N, |t| {
            Some(if uniform(t) { every } else { 0 })
        }));
        slots.push(slot(format!("tile<{s}>.match_all predicate"), N, |t| {
            Some(u32::from(uniform(t)))
        }));
        // The 64-bit key splits the 32-bit one between its words: equal exactly when the
        // 32-bit keys are.
        slots.push(slot(format!("tile<{s}>.match_any 64-bit"), N, |t| {
            Some(mask_of(&members(t), |m| key(m) == key(t)))
        }));
    }
    let inputs = [Input::I32(preds), Input::I32(keys)];
    assert_none(run(
        "coop_groups.ptx",
        "tile_vote",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

#[test]
fn cg_tile_shfl() {
    let mut rng = Rng::new(5);
    let v = rng.ints(N);
    let mut src = Vec::new();
    for s in SIZES {
        src.extend((0..N).map(|_| rng.below(s as u64) as i32));
    }
    let mut slots = Vec::new();
    for (k, s) in SIZES.into_iter().enumerate() {
        let base = |t: usize| t - t % s;
        let rank = |t: usize| t % s;
        // The guide: shfl_up and shfl_down leave a thread's own value when the source rank
        // is outside the tile.
        let up = |t: usize, d: usize| if rank(t) >= d { v[t - d] } else { v[t] };
        let down = |t: usize, d: usize| if rank(t) + d < s { v[t + d] } else { v[t] };
        let one = usize::from(s > 1);
        slots.push(slot(format!("tile<{s}>.shfl(src)"), N, |t| {
            Some(v[base(t) + src[k * N + t] as usize] as u32)
        }));
        for d in [1, 3] {
            slots.push(slot(format!("tile<{s}>.shfl_up({d})"), N, |t| {
                Some(up(t, d) as u32)
            }));
        }
        for d in [1, 3] {
            slots.push(slot(format!("tile<{s}>.shfl_down({d})"), N, |t| {
                Some(down(t, d) as u32)
            }));
        }
        for m in [one, s - 1] {
            slots.push(slot(format!("tile<{s}>.shfl_xor({m})"), N, |t| {
                Some(v[base(t) + (rank(t) ^ m)] as u32)
            }));
        }
        slots.push(slot(format!("tile<{s}>.shfl_xor({}) f32", s / 2), N, |t| {
            Some(bits(v[base(t) + (rank(t) ^ (s / 2))] as f32 * 0.5))
        }));
        let wide = |t: usize| {
            let x = down(t, 2);
            (u64::from(x as u32) << 32) | u64::from(!x as u32)
        };
        slots.push(slot(
            format!("tile<{s}>.shfl_down(2) u64 (low word)"),
            N,
            |t| Some(wide(t) as u32),
        ));
        slots.push(slot(
            format!("tile<{s}>.shfl_down(2) u64 (high word)"),
            N,
            |t| Some((wide(t) >> 32) as u32),
        ));
    }
    let inputs = [Input::I32(v), Input::I32(src)];
    assert_none(run(
        "coop_groups.ptx",
        "tile_shfl",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

#[test]
fn cg_tile_sync() {
    let mut rng = Rng::new(6);
    // Signs in runs of four, so that a tile of 4 is sometimes all negative.
    let v: Vec<i32> = rng
        .ints(N)
        .into_iter()
        .enumerate()
        .map(|(t, x)| if (t / 4) % 3 == 0 { -x.abs() - 1 } else { x })
        .collect();
    let mut slots = Vec::new();
    for s in SIZES {
        slots.push(slot(format!("tile<{s}>.thread_rank"), N, |t| {
            Some((t % s) as u32)
        }));
        slots.push(slot(format!("tile<{s}>.size"), N, |_| Some(s as u32)));
        slots.push(slot(format!("tile<{s}>.meta_group_rank"), N, |t| {
            Some((t % BLOCK / s) as u32)
        }));
        slots.push(slot(format!("tile<{s}>.meta_group_size"), N, |_| {
            Some((BLOCK / s) as u32)
        }));
        slots.push(slot(format!("tile<{s}>.sync exchange"), N, |t| {
            Some(v[t - t % s + (t % s + 1) % s] as u32)
        }));
    }
    // A tile of 4 of a tile of 16: ranks within the 16.
    slots.push(slot("tile<4> of tile<16>.thread_rank", N, |t| {
        Some((t % 4) as u32)
    }));
    slots.push(slot("tile<4> of tile<16>.meta_group_rank", N, |t| {
        Some((t % 16 / 4) as u32)
    }));
    slots.push(slot("tile<4> of tile<16>.meta_group_size", N, |_| Some(4)));
    slots.push(slot("tile<4> of tile<16> reduce plus s32", N, |t| {
        Some(tile(t, 4).map(|m| v[m]).fold(0i32, i32::wrapping_add) as u32)
    }));
    slots.push(slot("tile<4> of tile<16>.ballot", N, |t| {
        Some(mask_of(&tile(t, 4).collect::<Vec<_>>(), |m| v[m] < 0))
    }));
    slots.push(slot("tile<4> of tile<16>.shfl_down(1)", N, |t| {
        Some(if t % 4 < 3 { v[t + 1] } else { v[t] } as u32)
    }));
    assert_none(run(
        "coop_groups.ptx",
        "tile_sync",
        BLOCKS,
        BLOCK,
        &[Input::I32(v)],
        &slots,
    ));
}

#[test]
fn cg_tile_divergent() {
    let mut rng = Rng::new(7);
    // Per run of four threads: all negative, all positive or mixed.
    let v: Vec<i32> = rng
        .ints(N)
        .into_iter()
        .enumerate()
        .map(|(t, x)| match (t / 4) % 3 {
            0 => -x.abs() - 1,
            1 => x.abs(),
            _ => x,
        })
        .collect();
    // Tile k takes part when bit k % 32 of this word is set (tiles 0, 3, 5, 6, 9, ...): in
    // every warp some tiles of 4 and of 8 run while others of the same warp do not; of the
    // tiles of 16, one runs alone in warps 0 to 4, both in warp 6, neither in warps 5 and 7.
    let active: u32 = 0x9a5c_3269;
    let mut slots = Vec::new();
    for s in [4, 8, 16] {
        let on = |t: usize| active >> ((t / s) % 32) & 1 != 0;
        let members = |t: usize| tile(t, s).collect::<Vec<_>>();
        let when = |t: usize, f: &dyn Fn(usize) -> u32| Some(if on(t) { f(t) } else { FILL });
        slots.push(slot(format!("some tiles<{s}> reduce plus s32"), N, |t| {
            when(t, &|t| {
                tile(t, s).map(|m| v[m]).fold(0i32, i32::wrapping_add) as u32
            })
        }));
        slots.push(slot(format!("some tiles<{s}>.ballot"), N, |t| {
            when(t, &|t| mask_of(&members(t), |m| v[m] < 0))
        }));
        slots.push(slot(format!("some tiles<{s}>.all"), N, |t| {
            when(t, &|t| u32::from(tile(t, s).all(|m| v[m] < 0)))
        }));
        slots.push(slot(format!("some tiles<{s}>.match_any"), N, |t| {
            when(t, &|t| mask_of(&members(t), |m| v[m] & 3 == v[t] & 3))
        }));
    }
    let inputs = [Input::I32(v), Input::Scalar(active)];
    assert_none(run(
        "coop_groups.ptx",
        "tile_divergent",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

#[test]
fn cg_dynamic_tiles() {
    // Blocks of 40 threads: a warp and a warp of 8, so tiles of 16 and 32 at the block's end
    // are short.
    const BLOCK: usize = 40;
    const GRID: usize = 3;
    let mut rng = Rng::new(8);
    let v = rng.ints(GRID * BLOCK);
    let mut failures = Vec::new();
    for n in SIZES {
        let r = |t: usize| t % BLOCK;
        let base = |t: usize| r(t) - r(t) % n;
        let size = |t: usize| n.min(BLOCK - base(t));
        let rank = |t: usize| r(t) - base(t);
        let slots = [
            slot(
                format!("tiled_partition(block, {n}).thread_rank"),
                GRID * BLOCK,
                |t| Some(rank(t) as u32),
            ),
            slot(
                format!("tiled_partition(block, {n}).size"),
                GRID * BLOCK,
                |t| Some(size(t) as u32),
            ),
            slot(
                format!("tiled_partition(block, {n}).sync exchange"),
                GRID * BLOCK,
                |t| Some(v[t - rank(t) + (rank(t) + 1) % size(t)] as u32),
            ),
        ];
        let inputs = [Input::I32(v.clone()), Input::Scalar(n as u32)];
        failures.extend(run(
            "coop_groups.ptx",
            "dynamic_tiles",
            GRID,
            BLOCK,
            &inputs,
            &slots,
        ));
    }
    assert_none(failures);
}

/// Which threads of each of the 8 warps take the branch: all, the even lanes, lanes 5 to 20, one
/// lane, about half at random, the upper half, about a quarter at random, none.
fn branch_lanes(rng: &mut Rng) -> Vec<i32> {
    let single = rng.below(32) as usize;
    (0..N)
        .map(|t| {
            let lane = t % 32;
            i32::from(match t / 32 % 8 {
                0 => true,
                1 => lane % 2 == 0,
                2 => (5..=20).contains(&lane),
                3 => lane == single,
                4 => rng.below(2) == 0,
                5 => lane >= 16,
                6 => rng.below(4) == 0,
                _ => false,
            })
        })
        .collect()
}

/// The threads of `t`'s warp that took the branch, in lane order (a coalesced group's ranks).
fn branch_group(sel: &[i32], t: usize) -> Vec<usize> {
    tile(t, 32).filter(|&m| sel[m] != 0).collect()
}

#[test]
fn cg_coalesced() {
    let mut rng = Rng::new(9);
    let sel = branch_lanes(&mut rng);
    let v = rng.ints(N);
    // Predicates: true in every third warp, true exactly on the branch's threads in the next,
    // random in the others.
    let p: Vec<i32> = (0..N)
        .map(|t| match t / 32 % 3 {
            0 => 1,
            1 => sel[t],
            _ => rng.below(2) as i32,
        })
        .collect();
    // Keys: one key for the warp in every other warp, keys from {0, 1, 2} in the others.
    let key: Vec<i32> = (0..N)
        .map(|t| {
            if t / 32 % 2 == 0 {
                -5
            } else {
                rng.below(3) as i32
            }
        })
        .collect();
    let f = rng.floats(N);
    let group = |t: usize| branch_group(&sel, t);
    let rank = |t: usize| group(t).iter().position(|&m| m == t).unwrap();
    // A branch thread's expected word; others keep the fill.
    let inside = |name: &str, f: &dyn Fn(usize) -> u32| {
        slot(name, N, |t| Some(if sel[t] != 0 { f(t) } else { FILL }))
    };
    let sum = |ms: &[usize]| ms.iter().map(|&m| v[m]).fold(0i32, i32::wrapping_add) as u32;
    let uniform = |t: usize| group(t).iter().all(|&m| key[m] == key[t]);
    // The dynamic tile of 4 of the group: ranks 4j .. 4j + 3 of the group.
    let quad = |t: usize| {
        let g = group(t);
        let j = rank(t) / 4;
        g[4 * j..g.len().min(4 * j + 4)].to_vec()
    };
    let slots = vec![
        inside("size", &|t| group(t).len() as u32),
        inside("thread_rank", &|t| rank(t) as u32),
        inside("meta_group_rank", &|_| 0),
        inside("meta_group_size", &|_| 1),
        inside("ballot", &|t| mask_of(&group(t), |m| p[m] != 0)),
        inside("any", &|t| u32::from(group(t).iter().any(|&m| p[m] != 0))),
        inside("all", &|t| u32::from(group(t).iter().all(|&m| p[m] != 0))),
        inside("match_any", &|t| mask_of(&group(t), |m| key[m] == key[t])),
        inside("match_all", &|t| {
            if uniform(t) {
                mask_of(&group(t), |_| true)
            } else {
                0
            }
        }),
        inside("match_all predicate", &|t| u32::from(uniform(t))),
        inside("reduce plus s32", &|t| sum(&group(t))),
        inside("reduce greater s32", &|t| {
            group(t).iter().map(|&m| v[m]).max().unwrap() as u32
        }),
        inside("reduce bit_xor s32", &|t| {
            group(t).iter().fold(0, |a, &m| a ^ v[m]) as u32
        }),
        inside("reduce plus f32", &|t| {
            bits(group(t).iter().map(|&m| f[m]).sum())
        }),
        inside("inclusive_scan plus s32", &|t| sum(&group(t)[..=rank(t)])),
        inside("exclusive_scan plus s32", &|t| sum(&group(t)[..rank(t)])),
        inside("inclusive_scan plus f32", &|t| {
            bits(group(t)[..=rank(t)].iter().map(|&m| f[m]).sum())
        }),
        inside("shfl(0)", &|t| v[group(t)[0]] as u32),
        inside("sync exchange", &|t| {
            let g = group(t);
            v[g[(rank(t) + 1) % g.len()]] as u32
        }),
        inside("tiled_partition(g, 4).size", &|t| quad(t).len() as u32),
        inside("tiled_partition(g, 4).thread_rank", &|t| {
            (rank(t) % 4) as u32
        }),
        inside("tiled_partition(g, 4).meta_group_rank", &|t| {
            (rank(t) / 4) as u32
        }),
        inside("tiled_partition(g, 4).meta_group_size", &|t| {
            group(t).len().div_ceil(4) as u32
        }),
        inside("tiled_partition(g, 4) reduce plus s32", &|t| sum(&quad(t))),
        inside("tiled_partition(g, 4).ballot", &|t| {
            mask_of(&quad(t), |m| p[m] != 0)
        }),
    ];
    let inputs = [
        Input::I32(v.clone()),
        Input::I32(sel.clone()),
        Input::I32(p.clone()),
        Input::I32(key.clone()),
        Input::F32(f.clone()),
    ];
    assert_none(run(
        "coop_groups_coalesced.ptx",
        "coalesced",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

/// A thread's group of a partition: its threads in rank order, and the group's rank among the
/// parent's groups and their number.
struct Part {
    members: Vec<usize>,
    meta_rank: usize,
    meta_size: usize,
}

/// The five slots of a partition (size, thread_rank, meta_group_rank, meta_group_size, reduce
/// plus over `v`), for threads where `parent` gives the parent group's threads in rank order
/// (`None`: the thread does not take part), partitioned by `label`. The meta group ranks count
/// the groups by their first thread.
fn partition_slots(
    what: &str,
    v: &[i32],
    parent: &dyn Fn(usize) -> Option<Vec<usize>>,
    label: &dyn Fn(usize) -> i64,
) -> Vec<Slot> {
    let group = |t: usize| {
        parent(t).map(|ms| {
            // The labels of the parent's groups, in the order of their first threads.
            let mut leaders: Vec<i64> = Vec::new();
            for &m in &ms {
                if !leaders.contains(&label(m)) {
                    leaders.push(label(m));
                }
            }
            Part {
                members: ms
                    .iter()
                    .copied()
                    .filter(|&m| label(m) == label(t))
                    .collect(),
                meta_rank: leaders.iter().position(|&l| l == label(t)).unwrap(),
                meta_size: leaders.len(),
            }
        })
    };
    let field = |name: String, f: &dyn Fn(usize, &Part) -> u32| {
        slot(name, N, |t| Some(group(t).map_or(FILL, |g| f(t, &g))))
    };
    vec![
        field(format!("{what}.size"), &|_, g| g.members.len() as u32),
        field(format!("{what}.thread_rank"), &|t, g| {
            g.members.iter().position(|&m| m == t).unwrap() as u32
        }),
        field(format!("{what}.meta_group_rank"), &|_, g| {
            g.meta_rank as u32
        }),
        field(format!("{what}.meta_group_size"), &|_, g| {
            g.meta_size as u32
        }),
        field(format!("{what} reduce plus s32"), &|_, g| {
            g.members
                .iter()
                .map(|&m| v[m])
                .fold(0i32, i32::wrapping_add) as u32
        }),
    ]
}

#[test]
fn cg_labeled_partition() {
    let mut rng = Rng::new(10);
    let v = rng.ints(N);
    // Labels from {0, 1, 2, 3}: the same labels occur in both tiles of 16 of a warp.
    let label: Vec<i32> = (0..N).map(|_| rng.below(4) as i32).collect();
    // Predicates: in runs of 8 threads all true, all false or random, so binary partitions
    // are sometimes the whole tile.
    let p: Vec<i32> = (0..N)
        .map(|t| match (t / 8) % 3 {
            0 => 1,
            1 => 0,
            _ => rng.below(2) as i32,
        })
        .collect();
    let sel = branch_lanes(&mut rng);
    let f = rng.floats(N);
    let tile_of = |s: usize| move |t: usize| Some(tile(t, s).collect::<Vec<_>>());
    let by_label = |t: usize| i64::from(label[t]);
    // A binary partition numbers its groups false (0) then true (1), and a partition whose
    // threads all agree is one group (0 of 1).
    let by_pred = |t: usize| i64::from(p[t] != 0);
    let binary = |s: usize, t: usize| {
        let ms: Vec<usize> = tile(t, s).collect();
        let agree = ms.iter().all(|&m| by_pred(m) == by_pred(ms[0]));
        if agree { 0 } else { by_pred(t) as u32 }
    };
    let mut slots = Vec::new();
    slots.extend(partition_slots(
        "labeled_partition(tile<16>, label)",
        &v,
        &tile_of(16),
        &by_label,
    ));
    slots.extend(partition_slots(
        "labeled_partition(tile<32>, label)",
        &v,
        &tile_of(32),
        &by_label,
    ));
    let mut bin8 = partition_slots("binary_partition(tile<8>, p)", &v, &tile_of(8), &by_pred);
    bin8[2] = slot("binary_partition(tile<8>, p).meta_group_rank", N, |t| {
        Some(binary(8, t))
    });
    slots.extend(bin8);
    let mut bin16 = partition_slots(
        "labeled_partition(tile<16>, bool p)",
        &v,
        &tile_of(16),
        &by_pred,
    );
    bin16[2] = slot(
        "labeled_partition(tile<16>, bool p).meta_group_rank",
        N,
        |t| Some(binary(16, t)),
    );
    slots.extend(bin16);
    let branch = |t: usize| (sel[t] != 0).then(|| branch_group(&sel, t));
    slots.extend(partition_slots(
        "labeled_partition(coalesced_threads(), label)",
        &v,
        &branch,
        &by_label,
    ));
    slots.push(slot(
        "labeled_partition(coalesced_threads(), label) inclusive_scan plus f32",
        N,
        |t| {
            Some(branch(t).map_or(FILL, |ms| {
                bits(
                    ms.iter()
                        .filter(|&&m| m <= t && label[m] == label[t])
                        .map(|&m| f[m])
                        .sum(),
                )
            }))
        },
    ));
    let inputs = [
        Input::I32(v.clone()),
        Input::I32(label.clone()),
        Input::I32(p),
        Input::I32(sel.clone()),
        Input::F32(f.clone()),
    ];
    assert_none(run(
        "coop_groups_coalesced.ptx",
        "labeled",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}

#[test]
fn cg_coalesced_shfl() {
    let mut rng = Rng::new(11);
    let sel = branch_lanes(&mut rng);
    let v = rng.ints(N);
    let src: Vec<i32> = (0..N).map(|_| rng.below(1000) as i32).collect();
    let group = |t: usize| branch_group(&sel, t);
    let rank = |t: usize| group(t).iter().position(|&m| m == t).unwrap();
    let inside = |name: &str, f: &dyn Fn(usize) -> u32| {
        slot(name, N, |t| Some(if sel[t] != 0 { f(t) } else { FILL }))
    };
    // Ranks outside the group leave a thread's own value.
    let by = |t: usize, d: isize| {
        let g = group(t);
        let r = rank(t) as isize + d;
        if (0..g.len() as isize).contains(&r) {
            v[g[r as usize]] as u32
        } else {
            v[t] as u32
        }
    };
    let slots = vec![
        inside("shfl(src % size)", &|t| {
            let g = group(t);
            v[g[src[t] as usize % g.len()]] as u32
        }),
        inside("shfl_up(1)", &|t| by(t, -1)),
        inside("shfl_up(2)", &|t| by(t, -2)),
        inside("shfl_down(1)", &|t| by(t, 1)),
        inside("shfl_down(3)", &|t| by(t, 3)),
    ];
    let inputs = [
        Input::I32(v.clone()),
        Input::I32(sel.clone()),
        Input::I32(src.clone()),
    ];
    assert_none(run(
        "coop_groups_coalesced.ptx",
        "coalesced_shfl",
        BLOCKS,
        BLOCK,
        &inputs,
        &slots,
    ));
}
