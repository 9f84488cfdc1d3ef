//! `mbarrier` objects (sm_80's arrive/wait barriers in shared memory) and
//! `cp.async.mbarrier.arrive`, lane by lane: the CTA's warps run one instruction at a time on
//! one host thread, so each lane's read-modify-write of the object is atomic.
//!
//! PTX leaves the 64-bit object opaque; warpsim's layout: bits 0..=20 the arrivals the current
//! phase still expects, bits 21..=41 the arrivals every phase expects, bit 63 the current
//! phase's parity. `mbarrier.arrive` returns the object as it was, so `test_wait` compares
//! its bit 63 and `pending_count` reads its low bits.

use super::{CtaEnv, Target, at, lanes, write};
use crate::error::FaultKind;
use crate::warp::Warp;
use isa::{Inst, MbarrierOp, Operand, StateSpace, Type};

const COUNT_BITS: u32 = 21;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// The largest arrival count PTX allows (2^20 - 1).
const MAX_COUNT: u64 = (1 << 20) - 1;

fn pending(object: u64) -> u64 {
    object & COUNT_MASK
}

fn expected(object: u64) -> u64 {
    (object >> COUNT_BITS) & COUNT_MASK
}

fn phase(object: u64) -> u64 {
    object >> 63
}

fn object(pending: u64, expected: u64, phase: u64) -> u64 {
    pending | expected << COUNT_BITS | phase << 63
}

fn invalid(detail: String) -> FaultKind {
    FaultKind::InvalidOperand { detail }
}

/// Executes an `mbarrier` instruction for the lanes of `exec`.
pub(super) fn execute(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    (op, space): (MbarrierOp, StateSpace),
) -> Result<(), (FaultKind, u32)> {
    let code = &env.program.code[w.frame().func.index()];
    for l in lanes(exec) {
        if op == MbarrierOp::PendingCount {
            let state = env.read(w, &inst.srcs[0], l);
            write(
                w.frame_mut(),
                code,
                &inst.dsts[0],
                l,
                pending(state),
                Type::U32,
            );
            continue;
        }
        let Operand::Address(addr) = &inst.srcs[0] else {
            unreachable!("verified mbarrier shape")
        };
        let t = env.target(w, space, addr, l).map_err(at(l))?;
        if !matches!(t, Target::Shared(_)) {
            let what = "an mbarrier object outside shared memory".to_string();
            return Err((FaultKind::Unsupported { what }, l as u32));
        }
        let old = env.load(w, t, l, 8).map_err(at(l))?;
        let arrive = |n: u64, drop: bool| -> Result<u64, FaultKind> {
            let (p, e) = (pending(old), expected(old));
            if e == 0 {
                return Err(invalid(
                    "arrival on an mbarrier object that is not initialized".into(),
                ));
            }
            if n == 0 || n > p {
                return Err(invalid(format!(
                    "{n} arrival(s) on an mbarrier object whose phase expects {p} more"
                )));
            }
            let e = if drop { e - n.min(e) } else { e };
            Ok(if p == n {
                object(e, e, phase(old) ^ 1)
            } else {
                object(p - n, e, phase(old))
            })
        };
        let new = match op {
            MbarrierOp::Init => {
                let n = env.read(w, &inst.srcs[1], l) & 0xffff_ffff;
                if n == 0 || n > MAX_COUNT {
                    let detail = format!("mbarrier.init with a count of {n} (1 to {MAX_COUNT})");
                    return Err((invalid(detail), l as u32));
                }
                Some(object(n, n, 0))
            }
            MbarrierOp::Inval => Some(0),
            MbarrierOp::Arrive { drop } => {
                let n = inst
                    .srcs
                    .get(1)
                    .map_or(1, |c| env.read(w, c, l) & 0xffff_ffff);
                let new = arrive(n, drop).map_err(at(l))?;
                write(w.frame_mut(), code, &inst.dsts[0], l, old, Type::B64);
                Some(new)
            }
            MbarrierOp::TestWait { parity } => {
                let s = env.read(w, &inst.srcs[1], l);
                let waited = if parity { s & 1 } else { phase(s) };
                let done = u64::from(phase(old) != waited);
                write(w.frame_mut(), code, &inst.dsts[0], l, done, Type::Pred);
                None
            }
            // The copies are complete: the arrival happens now (after the increment that
            // cancels it, without `.noinc`).
            MbarrierOp::CpAsyncArrive { noinc: true } => Some(arrive(1, false).map_err(at(l))?),
            MbarrierOp::CpAsyncArrive { noinc: false } => None,
            MbarrierOp::PendingCount => unreachable!("handled above"),
        };
        if let Some(new) = new {
            env.store(w, t, l, 8, new).map_err(at(l))?;
        }
    }
    Ok(())
}
