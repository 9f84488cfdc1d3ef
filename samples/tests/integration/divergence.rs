//! The divergence suite: hand-written PTX kernels with nested if/else, loops with per-thread
//! trip counts, early return, break and continue, and divergence inside loops. Every thread's
//! result must match a CPU reference, and the deepest SIMT stack must match the depth worked
//! out by hand from each kernel's control flow (comments above each kernel).
//!
//! The stack model (see `emulator/src/simt.rs`): a divergent branch turns the top entry into
//! the reconvergence entry and pushes one entry per side that does not start at the
//! reconvergence point; a branch reconverging where the top entry already does replaces the
//! top instead. So the depth is 1 + 2 per level of nested if/else.

use runtime::{Device, DeviceConfig};

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

// if (t & 1) { r = (t & 2) ? 1 : 2; } else { r = ((t & 4) ? 3 : 4) + 10; }  out[t] = 100 * r + t
// Depth: 1; the outer split → 3, with the taken (even) side on top. Its inner if/else rejoins
// at $EVEN_JOIN, before the outer join, while the odd side still waits below → 5. The odd side
// runs afterwards; its arms jump straight to $JOIN, where its entry already reconverges, so
// they replace that entry → 3.
.visible .entry nested_if_else(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $EVEN;
    and.b32 %r3, %r1, 2;
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra $ODD_B;
    mov.u32 %r4, 1;
    bra.uni $JOIN;
$ODD_B:
    mov.u32 %r4, 2;
    bra.uni $JOIN;
$EVEN:
    and.b32 %r3, %r1, 4;
    setp.eq.u32 %p3, %r3, 0;
    @%p3 bra $EVEN_B;
    mov.u32 %r4, 3;
    bra.uni $EVEN_JOIN;
$EVEN_B:
    mov.u32 %r4, 4;
$EVEN_JOIN:
    add.s32 %r4, %r4, 10;
$JOIN:
    mad.lo.s32 %r5, %r4, 100, %r1;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}

// acc = sum over i < t % 5 of i * t. Depth: the guard skipping the loop splits lanes (the
// skipping side starts at the reconvergence point, so one entry is pushed) → 2; the back edge
// reconverges where that entry does, so it replaces it → still 2.
.visible .entry loop_trip_counts(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 5;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $DONE;
$LOOP:
    mad.lo.s32 %r3, %r4, %r1, %r3;
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, %r2;
    @%p2 bra $LOOP;
$DONE:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

// if (t % 3 == 0) return;  r = (t & 8) ? t * 2 : t + 7;  out[t] = r
// Depth: the guarded ret removes lanes without pushing; the if/else → 3.
.visible .entry early_return(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 ret;
    and.b32 %r3, %r1, 8;
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra $ELSE;
    shl.b32 %r4, %r1, 1;
    bra.uni $JOIN;
$ELSE:
    add.s32 %r4, %r1, 7;
$JOIN:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}

// for (i = 0; i < 8; i++) { if (i == t % 8) continue; x = i * t; if (x > 60) break; acc += x; }
// Every branch reconverges at $DONE (the break leaves the loop). Depth: the first split
// (continue) → 3; every later split reconverges at $DONE too and replaces the top → 3.
.visible .entry break_continue(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 7;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
$LOOP:
    setp.eq.u32 %p1, %r4, %r2;
    @%p1 bra $CONT;
    mul.lo.s32 %r5, %r4, %r1;
    setp.gt.u32 %p2, %r5, 60;
    @%p2 bra $DONE;
    add.s32 %r3, %r3, %r5;
$CONT:
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p3, %r4, 8;
    @%p3 bra $LOOP;
$DONE:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

// for (i = 0; i < 4; i++) { if ((t + i) & 1) acc -= 1; else acc += i; }
// Depth: each iteration splits at the if and rejoins at $JOIN, inside the loop → 3.
.visible .entry divergence_in_loop(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
$LOOP:
    add.s32 %r5, %r1, %r4;
    and.b32 %r6, %r5, 1;
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra $ELSE;
    sub.s32 %r3, %r3, 1;
    bra.uni $JOIN;
$ELSE:
    add.s32 %r3, %r3, %r4;
$JOIN:
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 4;
    @%p2 bra $LOOP;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

/// Value left in `out` for threads that write nothing.
const UNTOUCHED: u32 = 0xAAAA_AAAA;

fn reference(kernel: &str, t: u32) -> u32 {
    match kernel {
        "nested_if_else" => {
            let r = if t & 1 != 0 {
                if t & 2 != 0 { 1 } else { 2 }
            } else if t & 4 != 0 {
                13
            } else {
                14
            };
            100 * r + t
        }
        "loop_trip_counts" => (0..t % 5).map(|i| i * t).sum(),
        "early_return" if t.is_multiple_of(3) => UNTOUCHED,
        "early_return" => {
            if t & 8 != 0 {
                t * 2
            } else {
                t + 7
            }
        }
        "break_continue" => {
            let mut acc = 0;
            for i in 0..8 {
                if i == t % 8 {
                    continue;
                }
                let x = i * t;
                if x > 60 {
                    break;
                }
                acc += x;
            }
            acc
        }
        "divergence_in_loop" => (0..4).fold(0i32, |acc, i| {
            if (t + i) & 1 != 0 {
                acc - 1
            } else {
                acc + i as i32
            }
        }) as u32,
        _ => unreachable!("kernel without reference"),
    }
}

#[test]
fn divergent_kernels_match_the_cpu_and_the_hand_computed_stack_depths() {
    let dev = Device::new(DeviceConfig {
        host_threads: 1,
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("divergence.ptx", PTX).unwrap();
    let threads = 96; // three warps
    for (kernel, depth) in [
        ("nested_if_else", 5),
        ("loop_trip_counts", 2),
        ("early_return", 3),
        ("break_continue", 3),
        ("divergence_in_loop", 3),
    ] {
        let out = dev.alloc_from(&vec![UNTOUCHED; threads]).unwrap();
        let stats = dev
            .launch(
                &module.kernel(kernel).unwrap(),
                1,
                threads as u32,
                0,
                &[(&out).into()],
            )
            .unwrap();
        let expected: Vec<u32> = (0..threads as u32).map(|t| reference(kernel, t)).collect();
        assert_eq!(
            out.to_host().unwrap(),
            expected,
            "{kernel}: per-thread results"
        );
        assert_eq!(stats.max_simt_depth, depth, "{kernel}: deepest SIMT stack");
        assert!(stats.divergent_branches > 0, "{kernel}: diverges");
    }
}
