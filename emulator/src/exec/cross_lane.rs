//! The warp-level operations that read other lanes — `vote`, `shfl`, `match`, `redux`,
//! `activemask`, `bar.warp.sync` and `elect` — with the PTX ISA's member-mask rules.
//!
//! One rule for every `.sync` form (docs/ptx.md, "Warp-level operations and member masks"): a
//! lane `l` that executes the instruction with member mask `M(l)` computes over the lanes of
//! `M(l)` that execute the same instruction with it: active on the warp's current path and with
//! a true guard. Member lanes that have exited, are predicated off, or wait on another
//! divergent path contribute nothing (the manual: "all non-exited threads in membermask";
//! where a member lane is alive on another path, hardware since sm_70 would wait for it, and
//! warpsim's SIMT stack, which runs one path at a time, cannot). Lanes of one warp may name
//! different masks — a `tiled_partition<16>` gives each half-warp its own — and each lane's
//! result follows its own mask. A lane outside its own mask is undefined behaviour in the
//! manual and an `InvalidOperand` fault here. The legacy forms without `.sync` (`vote`,
//! `shfl`) compute over every executing lane.

use super::{CtaEnv, lanes, write};
use crate::alu;
use crate::error::FaultKind;
use crate::warp::{WARP_SIZE, Warp};
use isa::{Inst, MatchMode, Op, ShflMode, Type, VoteMode};

/// Each executing lane's participants: the lanes of its member mask that execute `inst`.
type Participants = [u32; WARP_SIZE];

/// The index in `inst.srcs` of the member-mask operand, if the form has one.
fn member_mask_source(inst: &Inst) -> Option<usize> {
    let (data_operands, always) = match inst.op {
        Op::Vote { .. } => (1, false),
        Op::Shfl { .. } => (3, false),
        Op::Match { .. } | Op::Redux { .. } => (1, true),
        Op::BarWarpSync | Op::Elect => (0, true),
        _ => return None,
    };
    // The legacy `vote` and `shfl` (deprecated in PTX ISA 6.0) are lowered without a mask.
    (always || inst.srcs.len() > data_operands).then_some(data_operands)
}

/// Every executing lane's participants, or the fault of the first lane whose member mask does
/// not include itself.
fn participants(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    exec: u32,
) -> Result<Participants, (FaultKind, u32)> {
    let mut out = [0; WARP_SIZE];
    let source = member_mask_source(inst);
    for l in lanes(exec) {
        let mask = source.map_or(u32::MAX, |i| env.read(w, &inst.srcs[i], l) as u32);
        if mask & (1 << l) == 0 {
            let detail = format!(
                "lane {l} executes `{}` with member mask {mask:#010x}, which does not include \
                 it (undefined in the PTX ISA)",
                inst.op
            );
            return Err((FaultKind::InvalidOperand { detail }, l as u32));
        }
        out[l] = mask & exec;
    }
    Ok(out)
}

/// Executes a warp-level operation for the lanes of `exec`.
pub(super) fn execute(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
) -> Result<(), (FaultKind, u32)> {
    let members = participants(env, w, inst, exec)?;
    let code = &env.program.code[w.frame().func.index()];
    // Every lane's data operand, read before any lane writes (a destination may be a source).
    let has_data = matches!(
        inst.op,
        Op::Vote { .. } | Op::Shfl { .. } | Op::Match { .. } | Op::Redux { .. }
    );
    let values: [u64; WARP_SIZE] = std::array::from_fn(|l| {
        if has_data {
            env.read(w, &inst.srcs[0], l)
        } else {
            0
        }
    });
    match &inst.op {
        Op::Vote { mode } => {
            let votes = lanes(exec)
                .filter(|&l| values[l] & 1 != 0)
                .fold(0u32, |m, l| m | 1 << l);
            for l in lanes(exec) {
                let (members, yes) = (members[l], votes & members[l]);
                let (result, ty) = match mode {
                    VoteMode::Ballot => (u64::from(yes), Type::B32),
                    VoteMode::All => (u64::from(yes == members), Type::Pred),
                    VoteMode::Any => (u64::from(yes != 0), Type::Pred),
                    VoteMode::Uni => (u64::from(yes == members || yes == 0), Type::Pred),
                };
                write(w.frame_mut(), code, &inst.dsts[0], l, result, ty);
            }
        }
        Op::Shfl { mode } => {
            // The member mask selects no data: a source lane outside it, or not executing, is
            // undefined in the manual, and its register is read as it stands.
            for l in lanes(exec) {
                let b = env.read(w, &inst.srcs[1], l) as u32 & 0x1f;
                let c = env.read(w, &inst.srcs[2], l) as u32;
                let (j, ok) = shuffle_source(*mode, l as u32, b, c);
                let frame = w.frame_mut();
                write(frame, code, &inst.dsts[0], l, values[j as usize], Type::B32);
                if let Some(p) = inst.dsts.get(1) {
                    write(frame, code, p, l, u64::from(ok), Type::Pred);
                }
            }
        }
        Op::Match { mode, .. } => {
            for l in lanes(exec) {
                let same = lanes(members[l])
                    .filter(|&k| values[k] == values[l])
                    .fold(0u32, |m, k| m | 1 << k);
                let (d, p) = match mode {
                    MatchMode::Any => (same, false),
                    MatchMode::All if same == members[l] => (same, true),
                    MatchMode::All => (0, false),
                };
                let frame = w.frame_mut();
                write(frame, code, &inst.dsts[0], l, u64::from(d), Type::B32);
                if let Some(pd) = inst.dsts.get(1) {
                    write(frame, code, pd, l, u64::from(p), Type::Pred);
                }
            }
        }
        Op::Redux { op, ty, abs, nan } => {
            for l in lanes(exec) {
                let participants = lanes(members[l]).map(|k| values[k] as u32);
                let result = alu::redux(*op, *ty, *abs, *nan, participants);
                write(
                    w.frame_mut(),
                    code,
                    &inst.dsts[0],
                    l,
                    u64::from(result),
                    *ty,
                );
            }
        }
        // The manual: predicated-on active threads contribute 1; exited, inactive and
        // predicated-off threads 0.
        Op::Activemask => {
            for l in lanes(exec) {
                write(
                    w.frame_mut(),
                    code,
                    &inst.dsts[0],
                    l,
                    u64::from(exec),
                    Type::B32,
                );
            }
        }
        // A warp runs its executing lanes in lock step, so there is nothing left to wait for;
        // the member mask is still checked.
        Op::BarWarpSync => {}
        // The leader is the lowest executing member lane: the manual promises only a leader
        // that is the same for the same mask every time.
        Op::Elect => {
            for l in lanes(exec) {
                let leader = members[l].trailing_zeros();
                let frame = w.frame_mut();
                write(frame, code, &inst.dsts[0], l, u64::from(leader), Type::B32);
                write(
                    frame,
                    code,
                    &inst.dsts[1],
                    l,
                    u64::from(leader == l as u32),
                    Type::Pred,
                );
            }
        }
        op => unreachable!("`{op}` is not a cross-lane operation"),
    }
    Ok(())
}

/// The source lane of `shfl.sync` and whether it is in range (the manual's pseudo-code:
/// `c = ((32 - width) << 8) | clamp`, segment mask `c[12:8]`).
pub fn shuffle_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let seg = (c >> 8) & 0x1f;
    let clamp = c & 0x1f;
    let max_lane = (lane & seg) | (clamp & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + b) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ b) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (b & !seg)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as u32 & 31, true)
    } else {
        (lane, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `c` operand for a shuffle over segments of `width` lanes: `((32 - width) << 8) | clamp`.
    fn c(width: u32, clamp: u32) -> u32 {
        ((32 - width) << 8) | clamp
    }

    #[test]
    fn shuffle_sources_follow_the_manual() {
        // __shfl_up_sync(v, 1): c = 0; lane 0 has no source and keeps its own value.
        assert_eq!(shuffle_source(ShflMode::Up, 0, 1, c(32, 0)), (0, false));
        assert_eq!(shuffle_source(ShflMode::Up, 5, 1, c(32, 0)), (4, true));
        // __shfl_down_sync(v, 4): c = 0x1f; lanes past 31 - 4 keep their own value.
        assert_eq!(shuffle_source(ShflMode::Down, 27, 4, c(32, 31)), (31, true));
        assert_eq!(
            shuffle_source(ShflMode::Down, 28, 4, c(32, 31)),
            (28, false)
        );
        // __shfl_xor_sync(v, 16).
        assert_eq!(shuffle_source(ShflMode::Bfly, 3, 16, c(32, 31)), (19, true));
        // __shfl_sync(v, 5, 16): segments of 16 lanes; lane 20 reads lane 16 + 5.
        assert_eq!(shuffle_source(ShflMode::Idx, 20, 5, c(16, 15)), (21, true));
        assert_eq!(shuffle_source(ShflMode::Idx, 3, 5, c(16, 15)), (5, true));
        // Down within 8-lane segments: lane 6 + 2 leaves its segment.
        assert_eq!(shuffle_source(ShflMode::Down, 6, 2, c(8, 7)), (6, false));
        assert_eq!(shuffle_source(ShflMode::Down, 13, 2, c(8, 7)), (15, true));
        // Up within 8-lane segments: lane 9 - 2 leaves its segment (minimum lane 8).
        assert_eq!(shuffle_source(ShflMode::Up, 9, 2, c(8, 0)), (9, false));
    }
}
