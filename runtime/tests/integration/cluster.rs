//! Clusters as warpsim has them before cluster launches exist: every launch is a grid of
//! implicit 1×1×1 clusters (the PTX manual's term for a launch that names no cluster shape).
//! The cluster special registers against the manual's definitions for such a cluster, and the
//! split-phase cluster barrier (`barrier.cluster.arrive` / `barrier.cluster.wait`, whose
//! threads are then the CTA's), under the interpreter, the JIT and the timing model.

use runtime::{Arg, Device};

/// Every cluster special register, one `.u32` each per thread, in this order (the predicate
/// `%is_explicit_cluster` as 0 or 1), at `out[16 * (linear CTA) * threads + 16 * tid + i]`.
const SPECIALS: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry specials(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    // The linear CTA and thread indices from the CTA registers alone.
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    mov.u32 %r3, %ctaid.z;
    mov.u32 %r4, %nctaid.x;
    mov.u32 %r5, %nctaid.y;
    mad.lo.u32 %r6, %r3, %r5, %r2;
    mad.lo.u32 %r6, %r6, %r4, %r1;
    mov.u32 %r7, %ntid.x;
    mov.u32 %r8, %ntid.y;
    mov.u32 %r9, %ntid.z;
    mul.lo.u32 %r10, %r7, %r8;
    mul.lo.u32 %r10, %r10, %r9;
    mov.u32 %r11, %tid.x;
    mov.u32 %r12, %tid.y;
    mad.lo.u32 %r11, %r12, %r7, %r11;
    mad.lo.u32 %r11, %r6, %r10, %r11;
    mul.wide.u32 %rd2, %r11, 64;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r20, %clusterid.x;
    mov.u32 %r21, %clusterid.y;
    mov.u32 %r22, %clusterid.z;
    mov.u32 %r23, %nclusterid.x;
    mov.u32 %r24, %nclusterid.y;
    mov.u32 %r25, %nclusterid.z;
    mov.u32 %r26, %cluster_ctaid.x;
    mov.u32 %r27, %cluster_ctaid.y;
    mov.u32 %r28, %cluster_ctaid.z;
    mov.u32 %r29, %cluster_nctaid.x;
    mov.u32 %r30, %cluster_nctaid.y;
    mov.u32 %r31, %cluster_nctaid.z;
    mov.u32 %r32, %cluster_ctarank;
    mov.u32 %r33, %cluster_nctarank;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r34, 1, 0, %p1;
    st.global.v4.u32 [%rd3], {%r20, %r21, %r22, %r23};
    st.global.v4.u32 [%rd3+16], {%r24, %r25, %r26, %r27};
    st.global.v4.u32 [%rd3+32], {%r28, %r29, %r30, %r31};
    mov.u32 %r35, 7;
    st.global.v4.u32 [%rd3+48], {%r32, %r33, %r34, %r35};
    ret;
}
"#;

#[test]
fn cluster_special_registers_of_an_implicit_cluster() {
    // The PTX ISA manual, "Special Registers": %clusterid is the cluster's identifier in the
    // grid and %nclusterid the number of clusters in each dimension; %cluster_ctaid and
    // %cluster_nctaid the CTA's identifier in its cluster and the cluster's shape;
    // %cluster_ctarank and %cluster_nctarank the CTA's linear rank and the cluster's CTA
    // count; %is_explicit_cluster whether the launch named a cluster shape. With implicit
    // 1x1x1 clusters each CTA is one cluster: clusterid = ctaid, nclusterid = nctaid, every
    // CTA is its cluster's CTA (0, 0, 0) of shape (1, 1, 1), rank 0 of 1, and not explicit.
    let grid = [3u32, 2, 2];
    let block = [2u32, 2, 1];
    let threads = 4;
    let mut want = Vec::new();
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                for _ in 0..threads {
                    want.extend([x, y, z, 3, 2, 2, 0, 0, 0, 1, 1, 1, 0, 1, 0, 7]);
                }
            }
        }
    }
    for (engine, dev) in crate::engines::three() {
        let k = dev
            .load_ptx("specials.ptx", SPECIALS)
            .unwrap()
            .kernel("specials")
            .unwrap();
        let out = dev.alloc::<u32>(want.len()).unwrap();
        dev.launch(&k, grid, block, 0, &[(&out).into()]).unwrap();
        assert_eq!(out.to_host().unwrap(), want, "{engine}");
    }
}

/// Rounds of: each thread stores to shared memory, `barrier.cluster.arrive`, works, then
/// `barrier.cluster.wait` and reads its partner's store (`out[tid]` sums what it read), then
/// a second arrive/wait pair before the next round overwrites the stores.
///
/// Parameters: `exit_warp` exits at once (no warp when out of range); warps whose bit is set
/// in `slow_before` spin `spin` iterations before each store (the others arrive long before
/// them), those in `slow_between` between the arrival and the wait (the phase they arrived in
/// completes long before they wait, and the other warps are then arriving in the next one).
/// The partner of thread `t` is `(t + 32) % n`, or `(t + 64) % n` when that one's warp exited.
const SPLIT_PHASE: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry split_phase(.param .u64 out, .param .u32 exit_warp, .param .u32 slow_before,
    .param .u32 slow_between, .param .u32 spin)
{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 s[512];
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [exit_warp];
    ld.param.u32 %r2, [slow_before];
    ld.param.u32 %r3, [slow_between];
    ld.param.u32 %r4, [spin];
    mov.u32 %r5, %tid.x;
    mov.u32 %r6, %ntid.x;
    shr.u32 %r7, %r5, 5;
    setp.eq.u32 %p1, %r7, %r1;
    @%p1 exit;
    shr.u32 %r8, %r2, %r7;
    and.b32 %r8, %r8, 1;
    setp.ne.u32 %p2, %r8, 0;
    shr.u32 %r9, %r3, %r7;
    and.b32 %r9, %r9, 1;
    setp.ne.u32 %p3, %r9, 0;
    // The partner.
    add.u32 %r10, %r5, 32;
    rem.u32 %r10, %r10, %r6;
    shr.u32 %r11, %r10, 5;
    setp.eq.u32 %p4, %r11, %r1;
    @%p4 add.u32 %r10, %r10, 32;
    @%p4 rem.u32 %r10, %r10, %r6;
    mov.u32 %r12, s;
    mad.lo.u32 %r13, %r5, 4, %r12;
    mad.lo.u32 %r14, %r10, 4, %r12;
    mov.u32 %r15, 0;
    mov.u32 %r16, 0;
ROUND:
    @!%p2 bra STORE;
    mov.u32 %r17, 0;
SPIN1:
    add.u32 %r17, %r17, 1;
    setp.lt.u32 %p5, %r17, %r4;
    @%p5 bra SPIN1;
STORE:
    mad.lo.u32 %r18, %r16, 1000, %r5;
    mad.lo.u32 %r18, %r5, 2, %r18;
    st.shared.u32 [%r13], %r18;
    barrier.cluster.arrive.release.aligned;
    @!%p3 bra WAIT;
    mov.u32 %r17, 0;
SPIN2:
    add.u32 %r17, %r17, 1;
    setp.lt.u32 %p5, %r17, %r4;
    @%p5 bra SPIN2;
WAIT:
    barrier.cluster.wait.acquire.aligned;
    ld.shared.u32 %r19, [%r14];
    add.u32 %r15, %r15, %r19;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    add.u32 %r16, %r16, 1;
    setp.lt.u32 %p6, %r16, 3;
    @%p6 bra ROUND;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r15;
    ret;
}
"#;

/// What `split_phase` leaves in `out` (`u32::MAX` where a thread exited), from its
/// description: round `r`'s store of thread `t` is `3t + 1000r`.
fn split_phase_expected(n: u32, exit_warp: u32) -> Vec<u32> {
    (0..n)
        .map(|t| {
            if t / 32 == exit_warp {
                return u32::MAX;
            }
            let mut partner = (t + 32) % n;
            if partner / 32 == exit_warp {
                partner = (partner + 32) % n;
            }
            (0..3).map(|r| 3 * partner + 1000 * r).sum()
        })
        .collect()
}

fn run_split_phase(dev: &Device, n: u32, exit_warp: u32, before: u32, between: u32) -> Vec<u32> {
    let k = dev
        .load_ptx("split_phase.ptx", SPLIT_PHASE)
        .unwrap()
        .kernel("split_phase")
        .unwrap();
    let out = dev.alloc_from(&vec![u32::MAX; n as usize]).unwrap();
    let args = [
        (&out).into(),
        Arg::U32(exit_warp),
        Arg::U32(before),
        Arg::U32(between),
        Arg::U32(300),
    ];
    dev.launch(&k, 1, n, 0, &args).unwrap();
    out.to_host().unwrap()
}

#[test]
fn cluster_barrier_split_phase() {
    // (threads, exiting warp, slow before the store, slow between arrive and wait)
    let cases = [
        // Warp 0 arrives long before the others, which arrive and wait in turn.
        (128, 9, 0b1110, 0),
        // Warp 0 waits long after its phase completed, while the others already arrive in the
        // next phase; warp 2 has exited and is not waited for.
        (128, 2, 0, 0b0001),
        // A partial last warp (24 threads), warp 1 exited, warp 3 late to arrive and warp 0
        // late to wait.
        (120, 1, 0b1000, 0b0001),
        // Every warp slow in turn, the first exited.
        (96, 0, 0b010, 0b100),
    ];
    for (engine, dev) in crate::engines::three() {
        for &(n, exit_warp, before, between) in &cases {
            let got = run_split_phase(&dev, n, exit_warp, before, between);
            assert_eq!(
                got,
                split_phase_expected(n, exit_warp),
                "{engine}: {n} threads, warp {exit_warp} exited, slow {before:#b} / {between:#b}"
            );
        }
    }
}

/// The cluster barrier and the 16 named barriers are apart: `bar.sync 0` and `bar.sync 15`
/// between an arrival and its wait complete on their own, and the cluster phase with them.
const NAMED_BETWEEN: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry named_between(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 s[256];
    .shared .align 4 .b8 t[256];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, s;
    mov.u32 %r3, t;
    mad.lo.u32 %r4, %r1, 4, %r2;
    mad.lo.u32 %r5, %r1, 4, %r3;
    xor.b32 %r6, %r1, 32;
    mad.lo.u32 %r7, %r6, 4, %r2;
    mad.lo.u32 %r8, %r6, 4, %r3;
    add.u32 %r9, %r1, 100;
    st.shared.u32 [%r4], %r9;
    barrier.cluster.arrive;
    bar.sync 0;
    add.u32 %r9, %r1, 200;
    st.shared.u32 [%r5], %r9;
    barrier.sync 15;
    barrier.cluster.wait;
    ld.shared.u32 %r10, [%r7];
    ld.shared.u32 %r11, [%r8];
    mad.lo.u32 %r10, %r11, 1000, %r10;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
}
"#;

#[test]
fn cluster_barrier_is_apart_from_the_named_barriers() {
    let want: Vec<u32> = (0..64u32)
        .map(|t| {
            let p = t ^ 32;
            (p + 200) * 1000 + p + 100
        })
        .collect();
    for (engine, dev) in crate::engines::three() {
        let k = dev
            .load_ptx("named.ptx", NAMED_BETWEEN)
            .unwrap()
            .kernel("named_between")
            .unwrap();
        let out = dev.alloc::<u32>(64).unwrap();
        dev.launch(&k, 2, 64, 0, &[(&out).into()]).unwrap();
        assert_eq!(out.to_host().unwrap(), want, "{engine}");
    }
}

/// Misuses, by warp 0 of two: `mode` 0, it waits without having arrived; 1, it arrives twice in
/// one phase (warp 1 arrives only after `bar.sync 2, 64`, which warp 0 would reach after its
/// second arrival); 2, it waits at the cluster barrier for warp 1, which waits at `bar.sync 1`
/// for it (a deadlock).
const MISUSE: &str = r#"
.version 8.0
.target sm_90
.address_size 64

.visible .entry misuse(.param .u32 mode)
{
    .reg .pred %p<10>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [mode];
    mov.u32 %r2, %tid.x;
    setp.lt.u32 %p1, %r2, 32;
    setp.ge.u32 %p2, %r2, 32;
    setp.eq.u32 %p3, %r1, 0;
    and.pred %p4, %p3, %p1;
    @%p4 bra WAIT;
    setp.eq.u32 %p5, %r1, 2;
    and.pred %p6, %p5, %p2;
    @%p6 bar.sync 1;
    setp.eq.u32 %p7, %r1, 1;
    and.pred %p8, %p7, %p2;
    @%p8 bar.sync 2, 64;
    barrier.cluster.arrive;
    and.pred %p9, %p7, %p1;
    @%p9 barrier.cluster.arrive;
    @%p9 bar.arrive 2, 64;
WAIT:
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn cluster_barrier_misuse_is_reported() {
    for (engine, dev) in crate::engines::three() {
        let k = dev
            .load_ptx("misuse.ptx", MISUSE)
            .unwrap()
            .kernel("misuse")
            .unwrap();
        let err = |mode| {
            dev.launch(&k, 1, 64, 0, &[Arg::U32(mode)])
                .unwrap_err()
                .to_string()
        };
        let never = err(0);
        assert!(
            never.contains(
                "barrier deadlock: lanes 0xffffffff of warp 0 wait at the cluster barrier \
                 without having arrived at it, so it waits for their own arrival"
            ) && never.contains("barrier.cluster.wait"),
            "{engine}: {never}"
        );
        let twice = err(1);
        assert!(
            twice.contains(
                "lanes 0xffffffff of warp 0 arrive at the cluster barrier again before its \
                 phase 0 completed (each thread arrives once a phase)"
            ) && twice.contains("barrier.cluster.arrive"),
            "{engine}: {twice}"
        );
        let stuck = err(2);
        assert!(
            stuck.contains("barrier deadlock")
                && stuck.contains("the cluster barrier's phase 0 has 32 of 64 threads")
                && stuck.contains("warp 0 waits at the cluster barrier")
                && stuck.contains("warp 1 waits at barrier 1"),
            "{engine}: {stuck}"
        );
    }
}
