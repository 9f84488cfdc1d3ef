//! Property tests on random functions: the analyses agree with brute-force definitions,
//! allocations pass the liveness checker, and nothing panics on malformed input.

use isa::builder::{FunctionBuilder, addr, imm, reg, vector};
use isa::liveness::transfer;
use isa::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

const PREDS: u32 = 3;
const R32: u32 = 6;
const R64: u32 = 3;

/// One body instruction over small register pools (indices are reduced modulo the pool).
#[derive(Clone, Debug)]
enum Body {
    Mov(u32, i8),
    Add(u32, u32, u32),
    Add64(u32, u32, u32),
    MulWide(u32, u32),
    Setp(u32, u32, u32),
    SetpPair(u32, u32, u32),
    GuardedMov(u32, bool, u32, i8),
    LoadV2(u32, u32, u32),
    Store(u32, u32),
    Pack(u32, u32, u32),
    Unpack(u32, u32, u32),
    Copy(u32, u32),
    Copy64(u32, u32),
}

/// How a block ends (targets are reduced modulo the block count).
#[derive(Clone, Debug)]
enum Term {
    None,
    Bra(u32),
    BraIf(u32, bool, u32),
    BraUni(u32, u32),
    Ret,
    RetIf(u32),
    Exit,
    Trap,
}

fn body() -> impl Strategy<Value = Body> {
    let r = || 0..R32;
    let d = || 0..R64;
    let p = || 0..PREDS;
    prop_oneof![
        (r(), any::<i8>()).prop_map(|(a, i)| Body::Mov(a, i)),
        (r(), r(), r()).prop_map(|(a, b, c)| Body::Add(a, b, c)),
        (d(), d(), d()).prop_map(|(a, b, c)| Body::Add64(a, b, c)),
        (d(), r()).prop_map(|(a, b)| Body::MulWide(a, b)),
        (p(), r(), r()).prop_map(|(a, b, c)| Body::Setp(a, b, c)),
        (p(), p(), r()).prop_map(|(a, b, c)| Body::SetpPair(a, b, c)),
        (p(), any::<bool>(), r(), any::<i8>())
            .prop_map(|(a, n, b, i)| Body::GuardedMov(a, n, b, i)),
        (r(), r(), d()).prop_map(|(a, b, c)| Body::LoadV2(a, b, c)),
        (d(), r()).prop_map(|(a, b)| Body::Store(a, b)),
        (d(), r(), r()).prop_map(|(a, b, c)| Body::Pack(a, b, c)),
        (r(), r(), d()).prop_map(|(a, b, c)| Body::Unpack(a, b, c)),
        (r(), r()).prop_map(|(a, b)| Body::Copy(a, b)),
        (d(), d()).prop_map(|(a, b)| Body::Copy64(a, b)),
    ]
}

fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        Just(Term::None),
        (0..16u32).prop_map(Term::Bra),
        (0..PREDS, any::<bool>(), 0..16u32).prop_map(|(p, n, t)| Term::BraIf(p, n, t)),
        (0..PREDS, 0..16u32).prop_map(|(p, t)| Term::BraUni(p, t)),
        Just(Term::Ret),
        (0..PREDS).prop_map(Term::RetIf),
        Just(Term::Exit),
        Just(Term::Trap),
    ]
}

fn blocks() -> impl Strategy<Value = Vec<(Vec<Body>, Term)>> {
    prop::collection::vec((prop::collection::vec(body(), 0..6), term()), 1..9)
}

fn build(spec: &[(Vec<Body>, Term)]) -> Function {
    let mut b = FunctionBuilder::new("random", FuncKind::Entry);
    let p: Vec<VReg> = (0..PREDS)
        .map(|i| b.reg(&format!("%p{i}"), Type::Pred))
        .collect();
    let r: Vec<VReg> = (0..R32)
        .map(|i| b.reg(&format!("%r{i}"), Type::B32))
        .collect();
    let d: Vec<VReg> = (0..R64)
        .map(|i| b.reg(&format!("%rd{i}"), Type::B64))
        .collect();
    let _unused = b.reg("%unused", Type::B32);
    let n = spec.len() as u32;
    for _ in 1..n {
        b.block();
    }
    for (i, (insts, end)) in spec.iter().enumerate() {
        b.switch_to(BlockId(i as u32));
        for inst in insts {
            match *inst {
                Body::Mov(a, v) => b.mov(Type::B32, r[a as usize], imm(v.into())),
                Body::Add(x, y, z) => b.add(
                    Type::S32,
                    r[x as usize],
                    reg(r[y as usize]),
                    reg(r[z as usize]),
                ),
                Body::Add64(x, y, z) => b.add(
                    Type::S64,
                    d[x as usize],
                    reg(d[y as usize]),
                    reg(d[z as usize]),
                ),
                Body::MulWide(x, y) => {
                    b.mul_wide(Type::S32, d[x as usize], reg(r[y as usize]), imm(4))
                }
                Body::Setp(x, y, z) => b.setp(
                    CmpOp::Lt,
                    Type::S32,
                    p[x as usize],
                    reg(r[y as usize]),
                    reg(r[z as usize]),
                ),
                Body::SetpPair(x, y, z) => b.inst(
                    Op::Setp {
                        cmp: CmpOp::Gt,
                        ty: Type::S32,
                        combine: None,
                        ftz: false,
                    },
                    vec![reg(p[x as usize]), reg(p[y as usize])],
                    vec![reg(r[z as usize]), imm(0)],
                ),
                Body::GuardedMov(g, neg, x, v) => {
                    b.guarded(
                        p[g as usize],
                        neg,
                        Op::Mov { ty: Type::B32 },
                        vec![reg(r[x as usize])],
                        vec![imm(v.into())],
                    );
                }
                Body::LoadV2(x, y, z) => b.inst(
                    Op::Ld {
                        space: StateSpace::Global,
                        ty: Type::B32,
                        vec: 2,
                        order: MemOrder::Weak,
                        scope: None,
                        cache: None,
                        nc: false,
                    },
                    vec![vector(&[r[x as usize], r[y as usize]])],
                    vec![addr(d[z as usize], 8)],
                ),
                Body::Store(x, y) => b.st(
                    StateSpace::Global,
                    Type::B32,
                    addr(d[x as usize], 0),
                    reg(r[y as usize]),
                ),
                Body::Pack(x, y, z) => {
                    b.inst(
                        Op::Pack { ty: Type::B64 },
                        vec![reg(d[x as usize])],
                        vec![vector(&[r[y as usize], r[z as usize]])],
                    );
                }
                Body::Copy(x, y) => b.mov(Type::B32, r[x as usize], reg(r[y as usize])),
                Body::Copy64(x, y) => b.mov(Type::B64, d[x as usize], reg(d[y as usize])),
                Body::Unpack(x, y, z) => {
                    b.inst(
                        Op::Unpack { ty: Type::B64 },
                        vec![vector(&[r[x as usize], r[y as usize]])],
                        vec![reg(d[z as usize])],
                    );
                }
            }
        }
        let target = |t: u32| BlockId(t % n);
        match *end {
            Term::None => {}
            Term::Bra(t) => b.bra(target(t)),
            Term::BraIf(g, neg, t) => b.bra_if(p[g as usize], neg, target(t)),
            Term::BraUni(g, t) => b.guarded(
                p[g as usize],
                false,
                Op::Bra {
                    target: target(t),
                    uni: true,
                },
                vec![],
                vec![],
            ),
            Term::Ret => b.ret(),
            Term::RetIf(g) => {
                b.guarded(p[g as usize], false, Op::Ret { uni: false }, vec![], vec![])
            }
            Term::Exit => b.exit(),
            Term::Trap => b.inst(Op::Trap, vec![], vec![]),
        }
    }
    b.finish()
}

/// Nodes reachable from `from` over `succs`, never entering `avoid`.
fn reach(
    n: usize,
    succs: &dyn Fn(usize) -> Vec<usize>,
    from: usize,
    avoid: Option<usize>,
) -> Vec<bool> {
    let mut seen = vec![false; n];
    if Some(from) == avoid {
        return seen;
    }
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(x) = stack.pop() {
        for s in succs(x) {
            if !seen[s] && Some(s) != avoid {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen
}

fn check_function(f: &Function) -> Result<(), TestCaseError> {
    // The builder sets fall-throughs; the only possible violation is the last block falling off.
    for v in verify_function(f, None) {
        prop_assert_eq!(v.kind, ViolationKind::FallsOffEnd);
    }
    let a = FunctionAnalysis::compute(f);
    prop_assert_eq!(
        &a,
        &FunctionAnalysis::compute(f),
        "analyses are deterministic"
    );
    let errors = regalloc::validate(f, &a.liveness, &a.alloc);
    prop_assert!(errors.is_empty(), "{:?}", errors);
    check_scalable_paths(f, &a)?;

    let n = f.blocks.len();
    let succs = |b: usize| {
        a.cfg
            .succs(BlockId(b as u32))
            .iter()
            .map(|s| s.index())
            .collect::<Vec<_>>()
    };
    let reachable = reach(n, &succs, 0, None);

    // Dominance: `x` dominates `y` iff `y` is unreachable from the entry without `x`.
    for x in 0..n {
        let without = reach(n, &succs, 0, Some(x));
        for y in 0..n {
            let expected = reachable[x] && reachable[y] && (x == y || !without[y]);
            prop_assert_eq!(
                a.dom.dominates(BlockId(x as u32), BlockId(y as u32)),
                expected,
                "dom {} {}",
                x,
                y
            );
        }
    }
    for (y, _) in reachable.iter().enumerate().skip(1).filter(|(_, r)| **r) {
        let bid = BlockId(y as u32);
        let idom = a.dom.idom(bid);
        prop_assert!(idom.is_some_and(|i| a.dom.dominates(i, bid) && i != bid));
    }

    // Post-dominance over the graph with the virtual exit (node `n`) and its roots.
    let roots: Vec<usize> = a
        .cfg
        .exits()
        .iter()
        .chain(a.postdom.non_exiting_roots())
        .map(|b| b.index())
        .collect();
    let esuccs = |b: usize| {
        let mut s = if b < n { succs(b) } else { Vec::new() };
        if roots.contains(&b) {
            s.push(n);
        }
        s
    };
    for y in 0..n {
        prop_assert!(
            reach(n + 1, &esuccs, y, None)[n],
            "bb{} reaches the virtual exit",
            y
        );
    }
    for x in 0..n {
        for y in 0..n {
            let expected = x == y || !reach(n + 1, &esuccs, y, Some(x))[n];
            prop_assert_eq!(
                a.postdom
                    .post_dominates(BlockId(x as u32), BlockId(y as u32)),
                expected,
                "pdom {} {}",
                x,
                y
            );
        }
    }
    for y in 0..n {
        let bid = BlockId(y as u32);
        let strict: Vec<usize> = (0..n)
            .filter(|&x| x != y && a.postdom.post_dominates(BlockId(x as u32), bid))
            .collect();
        match a.postdom.ipdom(bid) {
            Some(i) => {
                prop_assert!(strict.contains(&i.index()));
                for &x in &strict {
                    prop_assert!(
                        a.postdom.post_dominates(BlockId(x as u32), i),
                        "ipdom is the closest"
                    );
                }
            }
            None => prop_assert!(strict.is_empty()),
        }
        let last = f.blocks[y].insts.last();
        let divergent =
            last.is_some_and(|i| i.guard.is_some() && matches!(i.op, Op::Bra { uni: false, .. }));
        prop_assert_eq!(a.postdom.reconvergence_point(bid).is_some(), divergent);
    }

    // Liveness matches a naive round-robin solution over ordered sets, and is a fixed point of
    // the dataflow equations.
    let (naive_in, naive_out) = naive_liveness(f);
    for b in f.block_ids() {
        let as_set = |s: &BitSet| s.iter().collect::<BTreeSet<usize>>();
        prop_assert_eq!(
            &as_set(a.liveness.live_in(b)),
            &naive_in[b.index()],
            "live-in of {}",
            b
        );
        prop_assert_eq!(
            &as_set(a.liveness.live_out(b)),
            &naive_out[b.index()],
            "live-out of {}",
            b
        );
    }
    for b in f.block_ids() {
        let mut out = BitSet::new(f.regs.len());
        for s in a.cfg.succs(b) {
            out.union_with(a.liveness.live_in(*s));
        }
        prop_assert_eq!(&out, a.liveness.live_out(b));
        for inst in f.block(b).insts.iter().rev() {
            transfer(inst, &mut out);
        }
        prop_assert_eq!(&out, a.liveness.live_in(b));
    }

    // Loop depth counts the loops containing a block; headers dominate their loops.
    for b in f.block_ids() {
        let containing = a
            .loops
            .loops()
            .iter()
            .filter(|l| l.blocks.contains(&b))
            .count() as u32;
        prop_assert_eq!(a.loops.depth(b), containing);
    }
    for l in a.loops.loops() {
        for &b in &l.blocks {
            prop_assert!(a.dom.dominates(l.header, b));
        }
    }
    let linear = regalloc::Allocation::linear_scan(f, &a.liveness);
    for seed in 0..4 {
        if let Err(e) = Machine::new(f, &a.alloc, seed).run() {
            return Err(TestCaseError::fail(e));
        }
        if let Err(e) = Machine::new(f, &linear, seed).run() {
            return Err(TestCaseError::fail(format!("linear scan: {e}")));
        }
    }
    let _ = disassemble(&Module {
        version: (8, 8),
        target: vec![],
        address_size: 64,
        globals: vec![],
        functions: vec![f.clone()],
    });
    Ok(())
}

/// What keeps allocation near-linear on large functions agrees with the direct definitions:
/// the linear scan passes the checker, the edge bound bounds the graph, the forward walk and
/// the live-after index give the backward walk's sets, and the checker reports what a brute-force one does, on the real
/// allocation and on one that puts every register in the same place.
fn check_scalable_paths(f: &Function, a: &FunctionAnalysis) -> Result<(), TestCaseError> {
    let linear = regalloc::Allocation::linear_scan(f, &a.liveness);
    let errors = regalloc::validate(f, &a.liveness, &linear);
    prop_assert!(errors.is_empty(), "linear scan: {:?}", errors);

    let graph = regalloc::Interference::build(f, &a.liveness);
    let edges: usize = (0..f.regs.len())
        .map(|v| graph.neighbors(VReg(v as u32)).len())
        .sum::<usize>()
        / 2;
    prop_assert!(regalloc::Interference::edge_bound(f, &a.liveness) >= edges);

    let index = isa::LiveAfterIndex::new(f, a.liveness.clone());
    let mut pc = 0u32;
    for b in f.block_ids() {
        for set in a.liveness.live_after(f, b) {
            for v in 0..f.regs.len() + 2 {
                prop_assert_eq!(
                    index.live_after(pc, VReg(v as u32)),
                    v < set.capacity() && set.contains(v),
                    "index at PC {} for %{}",
                    pc,
                    v
                );
            }
            pc += 1;
        }
    }

    for b in f.block_ids() {
        let dense = a.liveness.live_after(f, b);
        let mut forward = Vec::new();
        a.liveness.walk_forward(f, b, |i, _, live| {
            forward.push((i, live.iter().map(|&v| v as usize).collect::<Vec<_>>()))
        });
        let expected: Vec<_> = dense
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.iter().collect::<Vec<_>>()))
            .collect();
        prop_assert_eq!(forward, expected, "forward walk of {}", b);
    }

    let mut collapsed = a.alloc.clone();
    for (v, p) in collapsed.phys.iter_mut().enumerate() {
        if p.is_some() {
            *p = Some(match f.regs[v].class() {
                RegClass::Pred => PhysReg::Pred(0),
                c => PhysReg::Gpr {
                    first: 0,
                    count: c.phys_regs(),
                },
            });
        }
    }
    for alloc in [&a.alloc, &linear, &collapsed] {
        prop_assert_eq!(
            conflicts(&regalloc::validate(f, &a.liveness, alloc)),
            naive_conflicts(f, &a.liveness, alloc)
        );
    }
    Ok(())
}

fn conflicts(errors: &[AllocError]) -> Vec<AllocError> {
    errors
        .iter()
        .filter(|e| matches!(e, AllocError::Conflict { .. }))
        .cloned()
        .collect()
}

/// The conflicts `regalloc::validate` must report, by definition: for each instruction (blocks
/// in order, instructions last to first), each destination against every register live after
/// it in increasing order, then against its later destinations, skipping a copy's source.
fn naive_conflicts(f: &Function, liveness: &Liveness, alloc: &Allocation) -> Vec<AllocError> {
    let mut errors = Vec::new();
    for b in f.block_ids() {
        liveness.walk_backward(f, b, |i, inst, live| {
            let copied = regalloc::copy_source(f, inst);
            let defs: Vec<VReg> = inst.defs().filter(|d| d.index() < f.regs.len()).collect();
            for (k, &d) in defs.iter().enumerate() {
                let Some(pd) = alloc.phys[d.index()] else {
                    continue;
                };
                let others = live
                    .iter()
                    .map(|x| VReg(x as u32))
                    .chain(defs[k + 1..].iter().copied());
                for x in others {
                    // A copy may share its source's physical register, but only whole.
                    let shared_copy = Some(x) == copied && alloc.phys[x.index()] == Some(pd);
                    if x != d
                        && !shared_copy
                        && alloc.phys[x.index()].is_some_and(|px| px.overlaps(pd))
                    {
                        errors.push(AllocError::Conflict {
                            block: b,
                            inst: i,
                            a: d,
                            b: x,
                        });
                    }
                }
            }
        });
    }
    errors
}

/// A value and whether it is defined (not derived from a register never written).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Val {
    bits: u64,
    ok: bool,
}

/// Runs one thread of a generated function twice in lockstep: on virtual registers (the
/// reference) and on the physical registers of an allocation. Every read of a defined value
/// must find the same bits in the physical registers, whatever the allocation shares.
struct Machine<'a> {
    f: &'a Function,
    alloc: &'a Allocation,
    vregs: Vec<Val>,
    gprs: Vec<Val>,
    preds: Vec<Val>,
    seed: u64,
}

const UNDEF: Val = Val { bits: 0, ok: false };

impl<'a> Machine<'a> {
    fn new(f: &'a Function, alloc: &'a Allocation, seed: u64) -> Machine<'a> {
        let n = alloc.regs_per_thread as usize;
        let np = alloc.preds_per_thread as usize;
        Machine {
            f,
            alloc,
            vregs: vec![UNDEF; f.regs.len()],
            gprs: vec![UNDEF; n],
            preds: vec![UNDEF; np],
            seed,
        }
    }

    fn mask(&self, v: VReg, bits: u64) -> u64 {
        match self.f.regs[v.index()].class() {
            RegClass::Pred => bits & 1,
            RegClass::B64 => bits,
            _ => bits & 0xFFFF_FFFF,
        }
    }

    fn read_phys(&self, v: VReg) -> Val {
        match self.alloc.get(v) {
            Some(PhysReg::Pred(p)) => self.preds[p as usize],
            Some(PhysReg::Gpr { first, count }) => {
                let words = &self.gprs[first as usize..(first + count).min(first + 2) as usize];
                let bits = words.iter().rev().fold(0u64, |acc, w| (acc << 32) | w.bits);
                Val {
                    bits,
                    ok: words.iter().all(|w| w.ok),
                }
            }
            // An operand from the constant bank or the instruction: no register to go wrong.
            Some(PhysReg::Constant) => self.vregs[v.index()],
            None => UNDEF,
        }
    }

    fn read(&self, v: VReg) -> Result<Val, String> {
        let reference = self.vregs[v.index()];
        let phys = self.read_phys(v);
        // A 64-bit value in one register keeps its low half, all that its readers read.
        let kept = match (self.f.regs[v.index()].class(), self.alloc.get(v)) {
            (RegClass::B64, Some(PhysReg::Gpr { count: 1, .. })) => 0xFFFF_FFFF,
            _ => u64::MAX,
        };
        if reference.ok && phys.bits & kept != reference.bits & kept {
            let at = self
                .alloc
                .get(v)
                .map_or("nothing".to_string(), |p| p.to_string());
            return Err(format!(
                "{v} reads {:#x} from {at}, expected {:#x}",
                phys.bits, reference.bits
            ));
        }
        Ok(reference)
    }

    fn write(&mut self, v: VReg, val: Val) {
        let val = Val {
            bits: self.mask(v, val.bits),
            ok: val.ok,
        };
        self.vregs[v.index()] = val;
        match self.alloc.get(v) {
            Some(PhysReg::Pred(p)) => self.preds[p as usize] = val,
            Some(PhysReg::Gpr { first, count }) => {
                for k in 0..count {
                    let bits = if k < 2 {
                        (val.bits >> (32 * k)) & 0xFFFF_FFFF
                    } else {
                        0
                    };
                    self.gprs[(first + k) as usize] = Val { bits, ok: val.ok };
                }
            }
            Some(PhysReg::Constant) | None => {}
        }
    }

    fn operand(&self, op: &Operand) -> Result<Val, String> {
        match op {
            Operand::Reg(v) => self.read(*v),
            Operand::Imm(i) => Ok(Val { bits: *i, ok: true }),
            Operand::Address(Address {
                base: AddrBase::Reg(v),
                offset,
                ..
            }) => {
                let base = self.read(*v)?;
                Ok(Val {
                    bits: base.bits.wrapping_add(*offset as u64),
                    ok: base.ok,
                })
            }
            other => Err(format!("unexpected operand {other:?}")),
        }
    }

    fn elems(op: &Operand) -> Vec<VReg> {
        op.regs().collect()
    }

    /// Memory contents are a function of the address (and the seed), so loads are repeatable.
    fn load(&self, addr: Val) -> Val {
        Val {
            bits: addr
                .bits
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(self.seed as u32 * 7 + 5),
            ok: addr.ok,
        }
    }

    fn run(&mut self) -> Result<(), String> {
        // Registers may be read before any write: start every physical register defined, and
        // each virtual register with what its physical register holds (registers sharing one
        // see the same garbage, which is all an allocation promises).
        for (i, r) in self.gprs.iter_mut().enumerate() {
            *r = Val {
                bits: (i as u64 * 0x0123_4567 + self.seed) & 0xFFFF_FFFF,
                ok: true,
            };
        }
        for (i, p) in self.preds.iter_mut().enumerate() {
            *p = Val {
                bits: (i as u64 + self.seed) & 1,
                ok: true,
            };
        }
        for v in 0..self.f.regs.len() {
            let vreg = VReg(v as u32);
            if self.alloc.get(vreg).is_some() {
                self.vregs[v] = self.read_phys(vreg);
            }
        }
        let mut block = BlockId(0);
        for _ in 0..400 {
            let b = self.f.block(block);
            let mut next = b.fallthrough;
            for inst in &b.insts {
                let enabled = match inst.guard {
                    None => true,
                    Some(g) => {
                        let p = self.read(g.pred)?;
                        if !p.ok {
                            return Ok(()); // control flow on an undefined value: stop here
                        }
                        (p.bits & 1 == 1) != g.negated
                    }
                };
                if !enabled {
                    continue;
                }
                let src = |i: usize| self.operand(&inst.srcs[i]);
                let both = |a: Val, b: Val, bits: u64| Val {
                    bits,
                    ok: a.ok && b.ok,
                };
                match &inst.op {
                    Op::Mov { .. } => {
                        let v = src(0)?;
                        self.write(inst.dsts[0].reg().unwrap(), v);
                    }
                    Op::IAdd { .. } => {
                        let (a, b) = (src(0)?, src(1)?);
                        self.write(
                            inst.dsts[0].reg().unwrap(),
                            both(a, b, a.bits.wrapping_add(b.bits)),
                        );
                    }
                    Op::IMul { .. } => {
                        let (a, b) = (src(0)?, src(1)?);
                        let wide = (a.bits as u32 as i32 as i64).wrapping_mul(b.bits as i64) as u64;
                        self.write(inst.dsts[0].reg().unwrap(), both(a, b, wide));
                    }
                    Op::Setp { cmp, .. } => {
                        let (a, b) = (src(0)?, src(1)?);
                        let (x, y) = (a.bits as u32 as i32, b.bits as u32 as i32);
                        let t = if *cmp == CmpOp::Lt { x < y } else { x > y };
                        let dsts: Vec<VReg> = inst.dsts.iter().filter_map(Operand::reg).collect();
                        self.write(dsts[0], both(a, b, t.into()));
                        if let Some(&q) = dsts.get(1) {
                            self.write(q, both(a, b, (!t).into()));
                        }
                    }
                    Op::Ld { .. } => {
                        let addr = src(0)?;
                        for (k, v) in Self::elems(&inst.dsts[0]).into_iter().enumerate() {
                            let at = Val {
                                bits: addr.bits.wrapping_add(4 * k as u64),
                                ok: addr.ok,
                            };
                            let val = self.load(at);
                            self.write(v, val);
                        }
                    }
                    Op::St { .. } => {
                        src(0)?;
                        src(1)?;
                    }
                    Op::Pack { .. } => {
                        let e = Self::elems(&inst.srcs[0]);
                        let (lo, hi) = (self.read(e[0])?, self.read(e[1])?);
                        self.write(
                            inst.dsts[0].reg().unwrap(),
                            both(lo, hi, lo.bits | (hi.bits << 32)),
                        );
                    }
                    Op::Unpack { .. } => {
                        let s = src(0)?;
                        let e = Self::elems(&inst.dsts[0]);
                        self.write(
                            e[0],
                            Val {
                                bits: s.bits,
                                ok: s.ok,
                            },
                        );
                        self.write(
                            e[1],
                            Val {
                                bits: s.bits >> 32,
                                ok: s.ok,
                            },
                        );
                    }
                    Op::Bra { target, .. } => next = Some(*target),
                    Op::Ret { .. } | Op::Exit | Op::Trap => return Ok(()),
                    other => return Err(format!("unexpected {other:?}")),
                }
            }
            match next {
                Some(n) => block = n,
                None => return Ok(()),
            }
        }
        Ok(())
    }
}

/// Liveness by the textbook equations, iterated over all blocks until nothing changes:
/// a guarded definition kills nothing, an unguarded one kills its destinations.
fn naive_liveness(f: &Function) -> (Vec<BTreeSet<usize>>, Vec<BTreeSet<usize>>) {
    let n = f.blocks.len();
    let (mut live_in, mut live_out) = (vec![BTreeSet::new(); n], vec![BTreeSet::new(); n]);
    let mut changed = true;
    while changed {
        changed = false;
        for (b, block) in f.blocks.iter().enumerate() {
            let out: BTreeSet<usize> = block
                .successors()
                .flat_map(|s| live_in[s.index()].clone())
                .collect();
            let mut live = out.clone();
            for inst in block.insts.iter().rev() {
                if inst.guard.is_none() {
                    for d in inst.defs() {
                        live.remove(&d.index());
                    }
                }
                live.extend(inst.uses().map(|u| u.index()));
            }
            changed |= live != live_in[b] || out != live_out[b];
            (live_in[b], live_out[b]) = (live, out);
        }
    }
    (live_in, live_out)
}

/// An arbitrary (usually malformed) instruction: any registers, targets, guards.
fn wild_inst(nregs: u32, nblocks: u32) -> impl Strategy<Value = Inst> {
    let r = move || (0..nregs + 3).prop_map(VReg);
    let operand = move || {
        prop_oneof![
            r().prop_map(Operand::Reg),
            r().prop_map(Operand::NotPred),
            any::<u64>().prop_map(Operand::Imm),
            Just(Operand::Sink),
            (r(), -4i64..4).prop_map(|(v, o)| addr(v, o)),
            prop::collection::vec(r().prop_map(Operand::Reg), 0..3).prop_map(Operand::Vector),
            (0..3u32).prop_map(|i| Operand::SymbolAddr {
                sym: SymbolRef::Param(i),
                offset: 0
            }),
        ]
    };
    let op = prop_oneof![
        Just(Op::IAdd {
            ty: Type::S32,
            sat: false
        }),
        Just(Op::Mov { ty: Type::B64 }),
        Just(Op::Ld {
            space: StateSpace::Global,
            ty: Type::F32,
            vec: 4,
            order: MemOrder::Weak,
            scope: None,
            cache: None,
            nc: true
        }),
        Just(Op::St {
            space: StateSpace::Shared,
            ty: Type::B32,
            vec: 2,
            order: MemOrder::Weak,
            scope: None,
            cache: None
        }),
        (0..nblocks + 3, any::<bool>()).prop_map(|(t, uni)| Op::Bra {
            target: BlockId(t),
            uni
        }),
        Just(Op::Ret { uni: false }),
        Just(Op::Exit),
        (0..4u32).prop_map(|c| Op::Call {
            callee: isa::Callee::Direct(FuncId(c)),
            uni: false,
            args: vec![SymbolRef::Param(c)],
            rets: vec![]
        }),
    ];
    let guard =
        prop::option::of((r(), any::<bool>()).prop_map(|(pred, negated)| Guard { pred, negated }));
    let operands = move || prop::collection::vec(operand(), 0..4);
    (guard, op, operands(), operands()).prop_map(|(guard, op, dsts, srcs)| Inst {
        guard,
        op,
        dsts,
        srcs,
        loc: SrcLoc::default(),
    })
}

fn wild_function() -> impl Strategy<Value = Function> {
    (1..5u32, 0..6u32).prop_flat_map(|(nblocks, nregs)| {
        let block = (
            prop::collection::vec(wild_inst(nregs, nblocks), 0..5),
            prop::option::of(0..nblocks + 2),
        )
            .prop_map(|(insts, ft)| Block {
                label: None,
                insts,
                fallthrough: ft.map(BlockId),
            });
        let regs = prop::collection::vec(
            prop_oneof![
                Just(Type::Pred),
                Just(Type::B32),
                Just(Type::B64),
                Just(Type::B128)
            ],
            nregs as usize,
        );
        (prop::collection::vec(block, 0..=nblocks as usize), regs).prop_map(|(blocks, tys)| {
            let mut f = FunctionBuilder::new("wild", FuncKind::Entry).finish();
            f.regs = tys
                .into_iter()
                .enumerate()
                .map(|(i, ty)| RegInfo {
                    name: format!("%v{i}"),
                    ty,
                })
                .collect();
            f.blocks = blocks;
            f
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn analyses_match_their_definitions(spec in blocks()) {
        check_function(&build(&spec))?;
    }

    #[test]
    fn malformed_functions_never_panic(f in wild_function()) {
        let _ = verify_function(&f, None);
        let m = Module { version: (8, 8), target: vec![], address_size: 64, globals: vec![], functions: vec![f] };
        let _ = verify_module(&m);
        let analysis = ModuleAnalysis::compute(&m);
        let fa = &analysis.functions[0];
        let _ = regalloc::validate(&m.functions[0], &fa.liveness, &fa.alloc);
        let _ = regalloc::Allocation::linear_scan(&m.functions[0], &fa.liveness);
        let _ = regalloc::Interference::edge_bound(&m.functions[0], &fa.liveness);
        let _ = isa::print::disassemble_with(&m, &analysis);
    }
}
