//! Member masks of the warp-level operations, by the PTX ISA manual: `vote.sync`, `redux.sync`,
//! `match.sync`, `shfl.sync`, `bar.warp.sync`, `elect.sync` and `activemask`, under the
//! interpreter, the JIT and the timing model.
//!
//! Expected values come from a CPU model written here from the manual's text, not from
//! warpsim's ALU: lane `l`, executing with member mask `M(l)`, computes over the lanes of
//! `M(l)` that execute the instruction — active on the warp's path with a true guard; lanes that
//! exited, are predicated off, or wait on another divergent path contribute nothing. Masks of
//! 1, 2, 4, 8, 16 and 32 lanes, non-contiguous groups, divergent warps, partial warps, every
//! type (`.f32` with `.abs` and `.NaN` too) and operator; a few cases worked by hand besides; a lane outside its own mask is
//! refused with an error naming it. (Before the member mask was honoured, every `.sync`
//! operation here computed over all executing lanes: `redux.sync.add.u32 d, 1, tile16` gave 32
//! where the manual gives 16.)

use runtime::{Arg, Device, Module};

/// How a lane meets the instruction under test (the kernel's `run` input).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Run {
    /// Branches around it, and waits at the reconvergence point: alive on another path.
    Diverged = 0,
    /// Executes it.
    Executes = 1,
    /// Reaches it with a false guard.
    GuardedOff = 2,
    /// Exits before it.
    Exited = 3,
}

/// What the lanes of one launch are given: block size, and per lane its member mask, data
/// operand and [`Run`].
#[derive(Clone, Debug)]
struct Case {
    name: String,
    threads: usize,
    masks: Vec<u32>,
    a: Vec<u32>,
    run: Vec<Run>,
}

/// The word a lane that does not execute the instruction leaves in each of its outputs.
const UNTOUCHED: u32 = 0xdead_beef;

/// The kernels' shared frame: loads the lane's mask (`%r2`), data (`%r3`) and run code (`%r4`);
/// exits (run 3) or branches to the end (run 0); `%p3` is the guard (run 1). `BODY` computes
/// `%r10`–`%r13`, which the executing lanes store as out[4 lane ..].
const FRAME: &str = r#"
.visible .entry NAME(.param .u64 p_mask, .param .u64 p_a, .param .u64 p_run, .param .u64 p_out)
{
    .reg .pred %p<10>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<24>;
    ld.param.u64 %rd1, [p_mask];
    ld.param.u64 %rd2, [p_a];
    ld.param.u64 %rd3, [p_run];
    ld.param.u64 %rd4, [p_out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.u32 %r2, [%rd6];
    add.s64 %rd7, %rd2, %rd5;
    ld.global.u32 %r3, [%rd7];
    add.s64 %rd8, %rd3, %rd5;
    ld.global.u32 %r4, [%rd8];
    mul.wide.u32 %rd9, %r1, 16;
    add.s64 %rd10, %rd4, %rd9;
    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    mov.u32 %r13, 0;
    setp.eq.u32 %p1, %r4, 3;
    @%p1 exit;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra DONE;
    setp.eq.u32 %p3, %r4, 1;
BODY
    @%p3 st.global.v4.u32 [%rd10], {%r10, %r11, %r12, %r13};
DONE:
    ret;
}
"#;

/// Each kernel's body (its guard `%p3`, mask `%r2`, data `%r3`; results in `%r10`–`%r13`).
const KERNELS: &[(&str, &str)] = &[
    (
        "vote",
        r#"
    setp.ne.u32 %p4, %r3, 0;
    @%p3 vote.sync.ballot.b32 %r10, %p4, %r2;
    @%p3 vote.sync.all.pred %p5, !%p4, %r2;
    selp.u32 %r11, 1, 0, %p5;
    @%p3 vote.sync.any.pred %p6, %p4, %r2;
    selp.u32 %r12, 1, 0, %p6;
    @%p3 vote.sync.uni.pred %p7, %p4, %r2;
    selp.u32 %r13, 1, 0, %p7;
"#,
    ),
    (
        "redux_add",
        r#"
    @%p3 redux.sync.add.u32 %r10, %r3, %r2;
    @%p3 redux.sync.add.s32 %r11, %r3, %r2;
"#,
    ),
    (
        "redux_min_max",
        r#"
    @%p3 redux.sync.min.u32 %r10, %r3, %r2;
    @%p3 redux.sync.min.s32 %r11, %r3, %r2;
    @%p3 redux.sync.max.u32 %r12, %r3, %r2;
    @%p3 redux.sync.max.s32 %r13, %r3, %r2;
"#,
    ),
    (
        "redux_bits",
        r#"
    @%p3 redux.sync.and.b32 %r10, %r3, %r2;
    @%p3 redux.sync.or.b32 %r11, %r3, %r2;
    @%p3 redux.sync.xor.b32 %r12, %r3, %r2;
"#,
    ),
    (
        "redux_f32",
        r#"
    @%p3 redux.sync.min.f32 %r10, %r3, %r2;
    @%p3 redux.sync.max.abs.f32 %r11, %r3, %r2;
    @%p3 redux.sync.min.NaN.f32 %r12, %r3, %r2;
    @%p3 redux.sync.max.abs.NaN.f32 %r13, %r3, %r2;
"#,
    ),
    (
        "match",
        r#"
    and.b32 %r5, %r3, 3;
    @%p3 match.any.sync.b32 %r10, %r5, %r2;
    @%p3 match.all.sync.b32 %r11|%p5, %r5, %r2;
    selp.u32 %r12, 1, 0, %p5;
    shr.u32 %r6, %r3, 2;
    and.b32 %r6, %r6, 1;
    mov.b64 %rd11, {%r6, %r5};
    @%p3 match.any.sync.b64 %r13, %rd11, %r2;
"#,
    ),
    (
        "match_all_b64",
        r#"
    and.b32 %r5, %r3, 1;
    shr.u32 %r6, %r3, 1;
    and.b32 %r6, %r6, 1;
    mov.b64 %rd11, {%r6, %r5};
    @%p3 match.all.sync.b64 %r10|%p5, %rd11, %r2;
    selp.u32 %r11, 1, 0, %p5;
"#,
    ),
    (
        "shfl",
        r#"
    mad.lo.u32 %r5, %r1, 7, 3;
    @%p3 shfl.sync.idx.b32 %r10|%p5, %r3, %r5, 0x1f, %r2;
    selp.u32 %r11, 1, 0, %p5;
    @%p3 shfl.sync.down.b32 %r12|%p6, %r3, 1, 0x1f, %r2;
    selp.u32 %r13, 1, 0, %p6;
"#,
    ),
    (
        "elect",
        r#"
    @%p3 elect.sync %r10|%p5, %r2;
    selp.u32 %r11, 1, 0, %p5;
    @%p3 elect.sync _|%p6, %r2;
    selp.u32 %r12, 1, 0, %p6;
"#,
    ),
    (
        "activemask",
        r#"
    @%p3 activemask.b32 %r10;
"#,
    ),
    (
        "bar_warp_sync",
        r#"
    @%p3 bar.warp.sync %r2;
    @%p3 mov.u32 %r10, 1;
"#,
    ),
];

fn module_text() -> String {
    let mut text = String::from(".version 8.8\n.target sm_90\n.address_size 64\n");
    for (name, body) in KERNELS {
        text += &FRAME.replace("NAME", name).replace("BODY", body);
    }
    text
}

// ---------------------------------------------------------------------------------------------
// The CPU model, from the manual's text.
// ---------------------------------------------------------------------------------------------

/// The lanes of the warp that execute the instruction.
fn executing(case: &Case) -> u32 {
    (0..case.threads)
        .filter(|&l| case.run[l] == Run::Executes)
        .fold(0, |m, l| m | 1 << l)
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask & (1 << l) != 0)
}

/// What each lane stores, `None` where the manual leaves the word undefined (a shuffle from a
/// lane that does not execute).
fn expected(kernel: &str, case: &Case) -> Vec<[Option<u32>; 4]> {
    let exec = executing(case);
    let a = &case.a;
    (0..case.threads)
        .map(|l| {
            if case.run[l] != Run::Executes {
                return [Some(UNTOUCHED); 4];
            }
            let members = case.masks[l] & exec;
            let vals = || lanes(members).map(|k| a[k]);
            let ints = || vals().map(|v| v as i32);
            let bit = |b: bool| Some(u32::from(b));
            match kernel {
                "vote" => {
                    let yes = lanes(members)
                        .filter(|&k| a[k] != 0)
                        .fold(0, |m, k| m | 1 << k);
                    [
                        Some(yes),
                        bit(yes == 0),
                        bit(yes != 0),
                        bit(yes == 0 || yes == members),
                    ]
                }
                "redux_add" => {
                    let sum = vals().fold(0u32, u32::wrapping_add);
                    [Some(sum), Some(sum), Some(0), Some(0)]
                }
                "redux_min_max" => [
                    vals().min(),
                    ints().min().map(|v| v as u32),
                    vals().max(),
                    ints().max().map(|v| v as u32),
                ],
                "redux_bits" => [
                    vals().reduce(|x, y| x & y),
                    vals().reduce(|x, y| x | y),
                    vals().reduce(|x, y| x ^ y),
                    Some(0),
                ],
                "redux_f32" => {
                    // The manual: +0.0 > -0.0 (f32::total_cmp's order on numbers); `.abs`
                    // clears each input's sign; a NaN input gives the canonical NaN with
                    // `.NaN` and is skipped without it (all NaN: the canonical NaN).
                    let reduce = |max: bool, abs: bool, nan: bool| {
                        let inputs: Vec<f32> = vals()
                            .map(|v| f32::from_bits(if abs { v & 0x7fff_ffff } else { v }))
                            .collect();
                        if nan && inputs.iter().any(|x| x.is_nan()) {
                            return Some(0x7fff_ffff);
                        }
                        let numbers = inputs.into_iter().filter(|x| !x.is_nan());
                        let best = if max {
                            numbers.max_by(f32::total_cmp)
                        } else {
                            numbers.min_by(f32::total_cmp)
                        };
                        Some(best.map_or(0x7fff_ffff, f32::to_bits))
                    };
                    [
                        reduce(false, false, false),
                        reduce(true, true, false),
                        reduce(false, false, true),
                        reduce(true, true, true),
                    ]
                }
                "match" => {
                    let key32 = |k: usize| a[k] & 3;
                    let key64 = |k: usize| (u64::from(a[k] & 3) << 32) | u64::from(a[k] >> 2 & 1);
                    let same32 = lanes(members)
                        .filter(|&k| key32(k) == key32(l))
                        .fold(0, |m, k| m | 1 << k);
                    let same64 = lanes(members)
                        .filter(|&k| key64(k) == key64(l))
                        .fold(0, |m, k| m | 1 << k);
                    let all = same32 == members;
                    [
                        Some(same32),
                        Some(if all { members } else { 0 }),
                        bit(all),
                        Some(same64),
                    ]
                }
                "match_all_b64" => {
                    let key = |k: usize| (u64::from(a[k] & 1) << 32) | u64::from(a[k] >> 1 & 1);
                    let all = lanes(members).all(|k| key(k) == key(l));
                    [
                        Some(if all { members } else { 0 }),
                        bit(all),
                        Some(0),
                        Some(0),
                    ]
                }
                "shfl" => {
                    // idx: source (7 l + 3) mod 32, always in range with c = 0x1f; down 1: lane
                    // l + 1 unless l = 31. A source that does not execute is undefined.
                    let from = |j: usize| (exec & (1 << j) != 0).then(|| a[j]);
                    let down_ok = l < 31;
                    [
                        from((7 * l + 3) % 32),
                        Some(1),
                        if down_ok { from(l + 1) } else { Some(a[l]) },
                        bit(down_ok),
                    ]
                }
                "elect" => {
                    let leader = members.trailing_zeros();
                    let me = bit(leader == l as u32);
                    [Some(leader), me, me, Some(0)]
                }
                "activemask" => [Some(exec), Some(0), Some(0), Some(0)],
                "bar_warp_sync" => [Some(1), Some(0), Some(0), Some(0)],
                other => unreachable!("no model for {other}"),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The cases.
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so the cases need no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

/// The member masks of a partition of the warp into groups: lane l's mask is its group.
fn partition(groups: &[u32]) -> Vec<u32> {
    (0..32)
        .map(|l| {
            (0..32)
                .filter(|&k| groups[k] == groups[l])
                .fold(0, |m, k| m | 1 << k)
        })
        .collect()
}

/// Tiles of `width` consecutive lanes, as `tiled_partition<width>` forms them.
fn tiles(width: u32) -> Vec<u32> {
    partition(&(0..32).map(|l| l / width).collect::<Vec<_>>())
}

/// Floats whose order and NaN rules matter: both zeros, NaNs of both signs and payloads,
/// infinities, values whose absolute values reorder them.
const FLOATS: [u32; 12] = [
    0x3fc0_0000, // 1.5
    0xc000_0000, // -2.0
    0x0000_0000, // +0.0
    0x8000_0000, // -0.0
    0x7fc0_0000, // NaN
    0xffc0_0001, // -NaN with a payload
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x4050_0000, // 3.25
    0xbf00_0000, // -0.5
    0x0000_0001, // the smallest subnormal
    0x8000_0001, // its negative
];

fn data(rng: &mut Rng, kind: u32) -> Vec<u32> {
    (0..32)
        .map(|_| match kind {
            // Few distinct values, so votes, matches and reductions differ between groups.
            0 => rng.below(8),
            // Full-range values: signed and unsigned orders differ; sums overflow.
            1 => rng.next(),
            // Floats; one lane in 12 a NaN of some kind.
            _ => FLOATS[rng.below(FLOATS.len() as u32) as usize],
        })
        .collect()
}

fn cases() -> Vec<Case> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    let mut masks: Vec<(String, Vec<u32>)> = [1, 2, 4, 8, 16, 32]
        .iter()
        .map(|&w| (format!("tiles of {w}"), tiles(w)))
        .collect();
    // Non-contiguous groups: even and odd lanes, lanes by residue mod 3, random labels.
    masks.push((
        "even/odd".into(),
        partition(&(0..32).map(|l| l % 2).collect::<Vec<_>>()),
    ));
    masks.push((
        "residues mod 3".into(),
        partition(&(0..32).map(|l| l % 3).collect::<Vec<_>>()),
    ));
    for i in 0..3 {
        let labels: Vec<u32> = (0..32).map(|_| rng.below(2 + i)).collect();
        masks.push((format!("random labels {i}"), partition(&labels)));
    }
    for (name, m) in &masks {
        for kind in 0..3 {
            out.push(Case {
                name: format!("{name}, data {kind}, converged"),
                threads: 32,
                masks: m.clone(),
                a: data(&mut rng, kind),
                run: vec![Run::Executes; 32],
            });
            // A divergent warp: lanes branched away, predicated off or exited.
            let run = (0..32)
                .map(|_| match rng.below(8) {
                    0 => Run::Diverged,
                    1 => Run::GuardedOff,
                    2 => Run::Exited,
                    _ => Run::Executes,
                })
                .collect();
            out.push(Case {
                name: format!("{name}, data {kind}, divergent"),
                threads: 32,
                masks: m.clone(),
                a: data(&mut rng, kind),
                run,
            });
        }
        // A partial warp: lanes 20.. do not exist, though the masks name them.
        out.push(Case {
            name: format!("{name}, partial warp of 20"),
            threads: 20,
            masks: m[..20].to_vec(),
            a: data(&mut rng, 0)[..20].to_vec(),
            run: vec![Run::Executes; 20],
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Running them.
// ---------------------------------------------------------------------------------------------

/// Launches `kernel` on one warp of `case.threads` threads; each lane's four output words.
fn run(dev: &Device, module: &Module, kernel: &str, case: &Case) -> runtime::Result<Vec<[u32; 4]>> {
    let k = module.kernel(kernel)?;
    let n = case.threads;
    let masks = dev.alloc::<u32>(n)?;
    let a = dev.alloc::<u32>(n)?;
    let run = dev.alloc::<u32>(n)?;
    let out = dev.alloc::<u32>(4 * n)?;
    masks.copy_from_host(&case.masks)?;
    a.copy_from_host(&case.a)?;
    run.copy_from_host(&case.run.iter().map(|&r| r as u32).collect::<Vec<_>>())?;
    out.copy_from_host(&vec![UNTOUCHED; 4 * n])?;
    let args: [Arg; 4] = [(&masks).into(), (&a).into(), (&run).into(), (&out).into()];
    dev.launch(&k, 1, n as u32, 0, &args)?;
    let words = out.to_host()?;
    Ok(words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}

#[test]
fn warp_operations_compute_over_their_member_masks() {
    let cases = cases();
    for (engine, dev) in crate::engines::three() {
        let module = dev.load_ptx("member_masks.ptx", &module_text()).unwrap();
        for (kernel, _) in KERNELS {
            for case in &cases {
                let got = run(&dev, &module, kernel, case)
                    .unwrap_or_else(|e| panic!("{engine}: {kernel}, {}: {e}", case.name));
                let want = expected(kernel, case);
                for (l, (g, w)) in got.iter().zip(&want).enumerate() {
                    for i in 0..4 {
                        if let Some(w) = w[i] {
                            assert_eq!(
                                g[i], w,
                                "{engine}: {kernel}, {}: lane {l} (mask {:#010x}, run {:?}), \
                                 word {i}: got {:#x}, the manual gives {w:#x}",
                                case.name, case.masks[l], case.run[l], g[i]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The issue's five-line kernel and a ballot, worked by hand.
#[test]
fn hand_worked_tiles_of_sixteen() {
    let case = Case {
        name: "tiles of 16, all ones".into(),
        threads: 32,
        masks: tiles(16),
        a: vec![1; 32],
        run: vec![Run::Executes; 32],
    };
    // Lanes 3, 17 and 30 vote yes: each half-warp's ballot holds only its own lanes.
    let mut votes = case.clone();
    votes.a = (0..32)
        .map(|l| u32::from([3, 17, 30].contains(&l)))
        .collect();
    for (engine, dev) in crate::engines::three() {
        let module = dev.load_ptx("member_masks.ptx", &module_text()).unwrap();
        let sums = run(&dev, &module, "redux_add", &case).unwrap();
        assert!(sums.iter().all(|w| w[0] == 16), "{engine}: {sums:?}");
        let ballots = run(&dev, &module, "vote", &votes).unwrap();
        for (l, w) in ballots.iter().enumerate() {
            let want = if l < 16 { 1 << 3 } else { 1 << 17 | 1 << 30 };
            assert_eq!(w[0], want, "{engine}: lane {l}");
            // .all of !p: false in both halves; .any: true; .uni: false.
            assert_eq!(w[1..], [0, 1, 0], "{engine}: lane {l}");
        }
        let leaders = run(&dev, &module, "elect", &case).unwrap();
        for (l, w) in leaders.iter().enumerate() {
            let leader = if l < 16 { 0 } else { 16 };
            assert_eq!(w[0], leader, "{engine}: lane {l}");
            assert_eq!(w[1], u32::from(l == 0 || l == 16), "{engine}: lane {l}");
        }
    }
}

/// A lane whose member mask leaves it out is undefined behaviour in the manual: refused with
/// an error naming the instruction, the lane and the mask, and the device stays usable.
#[test]
fn a_lane_outside_its_member_mask_is_refused() {
    for (engine, dev) in crate::engines::three() {
        let module = dev.load_ptx("member_masks.ptx", &module_text()).unwrap();
        for (kernel, _) in KERNELS.iter().filter(|(k, _)| *k != "activemask") {
            let mut case = Case {
                name: "lane 5 outside".into(),
                threads: 32,
                masks: vec![u32::MAX; 32],
                a: vec![1; 32],
                run: vec![Run::Executes; 32],
            };
            case.masks[5] = 0x0000_000d;
            let err = run(&dev, &module, kernel, &case).unwrap_err().to_string();
            assert!(
                err.contains("lane 5 executes")
                    && err.contains("member mask 0x0000000d, which does not include it"),
                "{engine}: {kernel}: {err}"
            );
            // The device still runs the same kernel with valid masks.
            case.masks[5] = u32::MAX;
            run(&dev, &module, kernel, &case)
                .unwrap_or_else(|e| panic!("{engine}: {kernel} after the fault: {e}"));
        }
    }
}
