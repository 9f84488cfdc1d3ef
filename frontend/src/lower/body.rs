//! Function signatures and bodies: scopes, register declarations, labels and basic blocks.

use super::decode::{Decoded, decode};
use super::limits::{self, Area, Layout};
use super::mods::Mods;
use super::shape::{Slot, Slots};
use super::vars::{self, DeclType};
use super::{ModuleName, ModuleScope, Result};
use crate::ast::{self, Span, Statement};
use crate::diag::Diagnostic;
use isa::{
    Block, BlockId, FuncId, FuncKind, Function, Guard, Inst, LocalId, Op, Operand, RegInfo, SrcLoc,
    StateSpace, SymbolRef, Tuning, Type, VReg,
};
use rustc_hash::FxHashMap as HashMap;

/// What a name declared inside a function refers to.
#[derive(Clone, Copy, Debug)]
pub(super) enum LocalName {
    Reg(VReg),
    /// A `.reg .vN` vector register: `n` consecutive registers from `first`.
    VecReg {
        first: VReg,
        n: u8,
    },
    /// A `.reg .b128` register: its low and high 64 bits, two `.b64` registers from `lo`
    /// (the ISA's registers are at most 64 bits wide).
    B128 {
        lo: VReg,
    },
    Var(SymbolRef),
}

/// What each name of a register declaration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegShape {
    Scalar,
    /// A `.vN` vector register of N components.
    Vector(u8),
    /// A `.b128` register of two 64-bit halves.
    B128,
}

impl RegShape {
    fn of(dt: &DeclType) -> RegShape {
        match (dt.ty, dt.vec) {
            (Type::B128, _) => RegShape::B128,
            (_, 1) => RegShape::Scalar,
            (_, n) => RegShape::Vector(n),
        }
    }

    /// The ISA registers one name takes.
    fn regs(self) -> u32 {
        match self {
            RegShape::Scalar => 1,
            RegShape::Vector(n) => u32::from(n),
            RegShape::B128 => 2,
        }
    }

    /// The binding of a name whose registers start at `first`.
    fn binding(self, first: VReg) -> LocalName {
        match self {
            RegShape::Scalar => LocalName::Reg(first),
            RegShape::Vector(n) => LocalName::VecReg { first, n },
            RegShape::B128 => LocalName::B128 { lo: first },
        }
    }
}

/// One `{ }` scope: single names and `%r<N>` ranges.
#[derive(Default)]
struct Scope<'a> {
    names: HashMap<&'a str, LocalName>,
    /// Prefix → (first register, count, shape). A prefix has one range per scope, so a lookup
    /// costs the same however many ranges a scope declares. A range of `.vN` vector registers
    /// takes `N` consecutive registers per name, of `.b128` registers two.
    ranges: HashMap<&'a str, (VReg, u32, RegShape)>,
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> Option<LocalName> {
        if let Some(n) = self.names.get(name) {
            return Some(*n);
        }
        let prefix_len = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, digits) = name.split_at(prefix_len);
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        let index: u32 = digits.parse().ok()?;
        let &(first, count, shape) = self.ranges.get(prefix)?;
        (index < count).then(|| shape.binding(VReg(first.0 + index * shape.regs())))
    }
}

/// The signature of a function: everything but registers and blocks.
///
/// Refuses more than [`limits::MAX_PARAMS`] parameters or return values before building any,
/// and parameters beyond the kernel parameter space or a device function's local frame.
pub(crate) fn signature(scope: &ModuleScope, f: &ast::Function) -> Result<Function> {
    let param_list = |decls: &[ast::VarDecl]| -> Result<Vec<isa::Variable>> {
        // Each parameter declaration has exactly one name (the grammar builds them so).
        if let Some(extra) = decls.iter().flat_map(|d| &d.names).nth(limits::MAX_PARAMS) {
            return Err(Diagnostic::semantic(
                extra.name.span,
                format!(
                    "too many parameters: `{}` has more than {}",
                    f.name.value,
                    limits::MAX_PARAMS
                ),
            ));
        }
        let mut out = Vec::with_capacity(decls.len());
        for decl in decls {
            let mut dt = vars::decl_type(decl)?;
            if dt.space == StateSpace::Reg && f.kind == ast::FuncKind::Func {
                // A `.reg` parameter of a device function travels in the frame like a `.param`
                // one; the body reads it into its register (`lower_body`). A predicate takes a
                // byte there (0 or 1), a vector register its elements.
                dt.space = StateSpace::Param;
            } else if dt.space != StateSpace::Param {
                return Err(Diagnostic::unsupported(
                    decl.space.span,
                    format!("`.{}` parameters (only `.param`)", dt.space),
                ));
            }
            for name in &decl.names {
                out.push(vars::variable(
                    decl,
                    &dt,
                    name,
                    scope,
                    scope.loc(name.span),
                )?);
            }
        }
        Ok(out)
    };
    let params = param_list(&f.params)?;
    let rets = param_list(&f.rets)?;
    if f.kind == ast::FuncKind::Entry && !rets.is_empty() {
        return Err(Diagnostic::semantic(
            f.name.span,
            "a kernel cannot return values",
        ));
    }
    signature_layout(f, &params, &rets)?;
    let mut tuning = Tuning::default();
    for d in &f.directives {
        let dims = || -> Result<[u32; 3]> {
            let mut v = [1u32; 3];
            if d.numbers.is_empty() || d.numbers.len() > 3 {
                return Err(Diagnostic::semantic(
                    d.span,
                    format!("`.{}` takes 1 to 3 dimensions", d.name.value),
                ));
            }
            for (slot, n) in v.iter_mut().zip(&d.numbers) {
                *slot = u32::try_from(*n)
                    .map_err(|_| Diagnostic::semantic(d.span, "dimension out of range"))?;
            }
            Ok(v)
        };
        let single = || -> Result<u32> {
            match d.numbers.as_slice() {
                [n] => u32::try_from(*n)
                    .map_err(|_| Diagnostic::semantic(d.span, "value out of range")),
                _ => Err(Diagnostic::semantic(
                    d.span,
                    format!("`.{}` takes one value", d.name.value),
                )),
            }
        };
        match d.name.value {
            "maxntid" => tuning.maxntid = Some(dims()?),
            "reqntid" => tuning.reqntid = Some(dims()?),
            "minnctapersm" => tuning.minnctapersm = Some(single()?),
            "maxnreg" => tuning.maxnreg = Some(single()?),
            "pragma" => tuning
                .pragmas
                .extend(d.strings.iter().map(|s| s.to_string())),
            "noreturn" | "maxclusterrank" | "reqnctapercluster" | "explicitcluster"
            | "blocksareclusters" => {}
            other => {
                return Err(Diagnostic::semantic(
                    d.name.span,
                    format!("unknown function directive `.{other}`"),
                ));
            }
        }
    }
    Ok(Function {
        name: f.name.value.to_string(),
        kind: match f.kind {
            ast::FuncKind::Entry => FuncKind::Entry,
            ast::FuncKind::Func => FuncKind::Func,
        },
        linkage: vars::linkage(f.linkage),
        params,
        rets,
        regs: Vec::new(),
        locals: Vec::new(),
        blocks: Vec::new(),
        tuning,
        loc: scope.loc(f.name.span),
    })
}

/// Lays out the parameters of `f` (built from its declarations, in order) as the emulator does:
/// a kernel's in its parameter space, a device function's and its return values in its local
/// frame, which its `.local` and `.param` variables then extend. Returns that layout.
fn signature_layout(
    f: &ast::Function,
    params: &[isa::Variable],
    rets: &[isa::Variable],
) -> Result<Layout> {
    let spans = f.params.iter().chain(&f.rets).flat_map(|d| &d.names);
    let vars = params.iter().chain(rets);
    let mut frame = Layout::new(Area::LocalFrame);
    if f.kind == ast::FuncKind::Entry {
        let mut space = Layout::new(Area::KernelParams);
        for (v, name) in vars.zip(spans) {
            space.place(f.name.value, v, name.name.span)?;
        }
    } else {
        for (v, name) in vars.zip(spans) {
            frame.place(f.name.value, v, name.name.span)?;
        }
    }
    Ok(frame)
}

/// A lowered `call`: the call, and the copies of register arguments into their slots before it
/// and of register results out of theirs after it.
struct Call {
    op: Op,
    /// The call's sources: an indirect call's target register.
    srcs: Vec<Operand>,
    before: Vec<Inst>,
    after: Vec<Inst>,
}

/// A `.callprototype` (or the signature of a `.calltargets` list's functions): the parameters
/// and results an indirect call passes.
#[derive(Clone)]
struct Prototype {
    params: Vec<isa::Variable>,
    rets: Vec<isa::Variable>,
}

/// State while lowering one function body.
pub(super) struct FnLowerer<'a, 'm> {
    pub(super) module: &'m ModuleScope<'a>,
    pub(super) isa_module: &'m isa::Module,
    pub(super) func: Function,
    scopes: Vec<Scope<'a>>,
    labels: HashMap<&'a str, BlockId>,
    /// Branches whose label is resolved at the end: (block, inst index, label, span).
    fixups: Vec<(usize, usize, &'a str, Span)>,
    /// Whether the current last block may still receive instructions.
    open: bool,
    diags: Vec<Diagnostic>,
    /// The local frame so far: a device function's parameters, then `.local` and `.param`
    /// variables as they are declared.
    frame: Layout,
    /// Registers declared by the functions lowered before this one.
    module_regs: usize,
    /// The `.reg` return values of a device function: each register and its return slot,
    /// stored to the slot before every `ret`.
    reg_rets: Vec<(Operand, u32, isa::Variable)>,
    /// The `.callprototype` and `.calltargets` labels declared so far, each with its signature
    /// or why it has none (reported only if a call names it: an unused list may be loose).
    prototypes: HashMap<&'a str, Result<Prototype>>,
}

/// Lowers the body of function `id` (whose signature is already in `isa_module`);
/// `module_regs` registers are declared by the functions lowered before it.
pub(crate) fn lower_body<'a>(
    module: &ModuleScope<'a>,
    isa_module: &isa::Module,
    id: FuncId,
    f: &ast::Function<'a>,
    stmts: &[Statement<'a>],
    module_regs: usize,
) -> std::result::Result<Function, Vec<Diagnostic>> {
    let mut func = isa_module.function(id).clone();
    // `signature` accepted this layout already; it is recomputed for the frame's end.
    let frame = signature_layout(f, &func.params, &func.rets).map_err(|d| vec![d])?;
    let mut params = Scope::default();
    // Parameter `i` of the signature is the `i`-th declared name, in order.
    let names = |decls: &[ast::VarDecl<'a>]| -> Vec<&'a str> {
        decls
            .iter()
            .flat_map(|d| d.names.iter().map(|n| n.name.value))
            .collect()
    };
    // `.reg` parameters and return values are registers of the body, copied from and to their
    // frame slots (`signature` made them `.param` variables there).
    let regs = |decls: &[ast::VarDecl<'a>]| -> Vec<bool> {
        decls
            .iter()
            .flat_map(|d| d.names.iter().map(|_| d.space.value == "reg"))
            .collect()
    };
    let (reg_params, reg_rets) = (regs(&f.params), regs(&f.rets));
    let mut copies = Vec::new();
    for (i, name) in names(&f.params).into_iter().enumerate() {
        let slot = SymbolRef::Param(i as u32);
        if reg_params[i] {
            let v = func.params[i].clone();
            let (local, value) = slot_registers(&mut func, name, &v);
            params.names.insert(name, local);
            copies.push(param_copy(false, slot, value, &v, func.loc));
        } else {
            params.names.insert(name, LocalName::Var(slot));
        }
    }
    let mut ret_regs = Vec::new();
    for (i, name) in names(&f.rets).into_iter().enumerate() {
        if reg_rets[i] {
            let v = func.rets[i].clone();
            let (local, value) = slot_registers(&mut func, name, &v);
            params.names.insert(name, local);
            ret_regs.push((value, i as u32, v));
        } else {
            params
                .names
                .insert(name, LocalName::Var(SymbolRef::Ret(i as u32)));
        }
    }
    func.blocks.clear();
    let mut l = FnLowerer {
        module,
        isa_module,
        func,
        scopes: vec![params],
        labels: HashMap::default(),
        fixups: Vec::new(),
        open: false,
        diags: Vec::new(),
        frame,
        module_regs,
        reg_rets: ret_regs,
        prototypes: HashMap::default(),
    };
    for copy in copies {
        l.push(copy);
    }
    l.collect_labels(stmts);
    l.statements(stmts);
    l.finish(f.span);
    if l.diags.is_empty() {
        Ok(l.func)
    } else {
        Err(l.diags)
    }
}

/// The registers of a `.reg` parameter or return value named `name` whose frame slot is `v`:
/// one register of its type, or for a vector one per element (`name.x`, `name.y`, ...), as a
/// `.reg .vN` declaration makes them. Returns the name's binding and the copy's operand.
fn slot_registers(func: &mut Function, name: &str, v: &isa::Variable) -> (LocalName, Operand) {
    let first = VReg(func.regs.len() as u32);
    if v.ty == Type::B128 {
        for half in ["lo", "hi"] {
            func.regs.push(RegInfo {
                name: format!("{name}.{half}"),
                ty: Type::B64,
            });
        }
        let halves = vec![Operand::Reg(first), Operand::Reg(VReg(first.0 + 1))];
        return (LocalName::B128 { lo: first }, Operand::Vector(halves));
    }
    if v.vec == 1 {
        func.regs.push(RegInfo {
            name: name.to_string(),
            ty: v.ty,
        });
        return (LocalName::Reg(first), Operand::Reg(first));
    }
    let mut elems = Vec::with_capacity(usize::from(v.vec));
    for c in ["x", "y", "z", "w"].iter().take(usize::from(v.vec)) {
        elems.push(Operand::Reg(VReg(func.regs.len() as u32)));
        func.regs.push(RegInfo {
            name: format!("{name}.{c}"),
            ty: v.ty,
        });
    }
    (
        LocalName::VecReg { first, n: v.vec },
        Operand::Vector(elems),
    )
}

/// The error for a `.b128` register where warpsim does not take one.
pub(super) fn b128_only(name: &str, span: Span) -> Diagnostic {
    Diagnostic::unsupported(
        span,
        format!(
            "`.b128` register `{name}` here: warpsim executes `.b128` registers in `ld`, `ldu`, \
             `st`, `mov` packing or unpacking, and `.reg` parameters"
        ),
    )
}

/// `ld.param` of frame slot `slot` into `value`, a register or a vector of them (`store`:
/// `st.param` of `value`, registers or immediates, into the slot): the copy a `.reg` parameter,
/// argument or return value makes, of the type and elements of `like`, the slot's variable. A
/// predicate moves as one byte (`ld.param.pred` of the ISA, 0 or 1), as no PTX type can say.
fn param_copy(
    store: bool,
    slot: SymbolRef,
    value: Operand,
    like: &isa::Variable,
    loc: SrcLoc,
) -> Inst {
    let addr = Operand::Address(isa::Address::new(isa::AddrBase::Symbol(slot), 0));
    let (ty, vec) = match like.ty {
        Type::B128 => (Type::B64, 2),
        ty => (ty, like.vec),
    };
    let (space, order, scope, cache) = (StateSpace::Param, isa::MemOrder::Weak, None, None);
    let (op, dsts, srcs) = if store {
        let op = Op::St {
            space,
            ty,
            vec,
            order,
            scope,
            cache,
        };
        (op, vec![], vec![addr, value])
    } else {
        let op = Op::Ld {
            space,
            ty,
            vec,
            order,
            scope,
            cache,
            nc: false,
        };
        (op, vec![value], vec![addr])
    };
    Inst {
        guard: None,
        op,
        dsts,
        srcs,
        loc,
    }
}

/// The span of a whole instruction, from its guard or opcode to its `;`.
pub(super) fn inst_span(inst: &ast::Instruction) -> Span {
    let start = inst.guard.map_or(inst.opcode.span, |g| g.span);
    Span {
        start: start.start,
        end: inst.span.end.max(start.end),
    }
}

impl<'a> FnLowerer<'a, '_> {
    fn error(&mut self, d: Diagnostic) {
        if self.diags.len() < super::MAX_DIAGNOSTICS {
            self.diags.push(d);
        }
    }

    /// Labels are function-wide; collect them first so duplicates are reported at the second one.
    fn collect_labels(&mut self, stmts: &[Statement<'a>]) {
        let mut seen: HashMap<&'a str, Span> = HashMap::default();
        fn walk<'a>(
            stmts: &[Statement<'a>],
            seen: &mut HashMap<&'a str, Span>,
            diags: &mut Vec<Diagnostic>,
        ) {
            for s in stmts {
                match s {
                    Statement::Label(l) if seen.insert(l.value, l.span).is_some() => {
                        diags.push(Diagnostic::semantic(
                            l.span,
                            format!("duplicate label `{}`", l.value),
                        ));
                    }
                    Statement::Block { body, .. } => walk(body, seen, diags),
                    _ => {}
                }
            }
        }
        let mut diags = Vec::new();
        walk(stmts, &mut seen, &mut diags);
        for d in diags {
            self.error(d);
        }
    }

    fn statements(&mut self, stmts: &[Statement<'a>]) {
        for s in stmts {
            match s {
                Statement::Label(l) => self.label(l.value),
                Statement::Instruction(inst) => {
                    if let Err(d) = self.instruction(inst) {
                        self.error(d);
                    }
                }
                Statement::Var(decl) => {
                    if let Err(d) = self.declare(decl) {
                        self.error(d);
                    }
                }
                Statement::Block { body, .. } => {
                    self.scopes.push(Scope::default());
                    self.statements(body);
                    self.scopes.pop();
                }
                Statement::Pragma { values, .. } => {
                    self.func
                        .tuning
                        .pragmas
                        .extend(values.iter().map(|v| v.to_string()));
                }
                Statement::CallPrototype {
                    label,
                    rets,
                    params,
                    ..
                } => {
                    let prototype = self.prototype(params, rets);
                    self.prototypes.insert(label.value, prototype);
                }
                Statement::CallTargets { label, targets, .. } => {
                    let prototype = self.call_targets(targets);
                    self.prototypes.insert(label.value, prototype);
                }
                Statement::Ignored { .. } => {}
            }
        }
    }

    fn label(&mut self, name: &'a str) {
        if self.labels.contains_key(name) {
            return; // Reported by collect_labels.
        }
        let reuse = self.open && self.func.blocks.last().is_some_and(|b| b.insts.is_empty());
        if !reuse {
            self.new_block();
        }
        let id = BlockId(self.func.blocks.len() as u32 - 1);
        let block = self
            .func
            .blocks
            .last_mut()
            .expect("a block was just ensured");
        block.label.get_or_insert_with(|| name.to_string());
        self.labels.insert(name, id);
    }

    fn new_block(&mut self) {
        self.func.blocks.push(Block {
            label: None,
            insts: Vec::new(),
            fallthrough: None,
        });
        self.open = true;
    }

    fn push(&mut self, inst: Inst) {
        if !self.open {
            self.new_block();
        }
        let terminator = inst.is_terminator();
        self.func
            .blocks
            .last_mut()
            .expect("a block is open")
            .insts
            .push(inst);
        if terminator {
            self.open = false;
        }
    }

    /// Resolves branch labels, adds an implicit `ret` when control can run off the end, and
    /// fills in fall-through edges.
    fn finish(&mut self, span: Span) {
        for (b, i, label, lspan) in std::mem::take(&mut self.fixups) {
            match self.labels.get(label) {
                Some(target) => {
                    if let Op::Bra { target: t, .. } = &mut self.func.blocks[b].insts[i].op {
                        *t = *target;
                    }
                }
                None => self.error(Diagnostic::semantic(
                    lspan,
                    format!("undefined label `{label}`"),
                )),
            }
        }
        let falls_off = self
            .func
            .blocks
            .last()
            .is_none_or(|b| b.insts.last().is_none_or(|i| i.can_fall_through()));
        if falls_off {
            let loc = self.module.loc(Span {
                start: span.end.saturating_sub(1),
                end: span.end,
            });
            if self
                .func
                .blocks
                .last()
                .is_some_and(|b| b.insts.last().is_some_and(|i| i.is_terminator()))
            {
                self.open = false;
            }
            self.store_reg_rets(None, loc);
            self.push(Inst {
                guard: None,
                op: Op::Ret { uni: false },
                dsts: vec![],
                srcs: vec![],
                loc,
            });
        }
        let n = self.func.blocks.len();
        for (i, b) in self.func.blocks.iter_mut().enumerate() {
            let falls = b.insts.last().is_none_or(|i| i.can_fall_through());
            b.fallthrough = (falls && i + 1 < n).then(|| BlockId(i as u32 + 1));
        }
    }

    /// The ISA registers of one declared name: one, a vector's components (`name.x`, ...), or
    /// a `.b128`'s halves (`name.lo`, `name.hi`, names PTX cannot write).
    fn add_components(&mut self, name: &str, dt: &DeclType) {
        match RegShape::of(dt) {
            RegShape::Scalar => {
                self.add_reg(name.to_string(), dt.ty);
            }
            RegShape::Vector(n) => {
                for c in ["x", "y", "z", "w"].iter().take(usize::from(n)) {
                    self.add_reg(format!("{name}.{c}"), dt.ty);
                }
            }
            RegShape::B128 => {
                for half in ["lo", "hi"] {
                    self.add_reg(format!("{name}.{half}"), Type::B64);
                }
            }
        }
    }

    fn add_reg(&mut self, name: String, ty: Type) -> VReg {
        let r = VReg(self.func.regs.len() as u32);
        self.func.regs.push(RegInfo { name, ty });
        r
    }

    fn insert_name(&mut self, name: ast::Spanned<&'a str>, value: LocalName) -> Result<()> {
        let scope = self
            .scopes
            .last_mut()
            .expect("at least the parameter scope");
        if scope.names.insert(name.value, value).is_some() {
            return Err(Diagnostic::semantic(
                name.span,
                format!("duplicate declaration of `{}`", name.value),
            ));
        }
        Ok(())
    }

    fn declare(&mut self, decl: &ast::VarDecl<'a>) -> Result<()> {
        let dt = vars::decl_type(decl)?;
        if dt.space == StateSpace::Reg {
            return self.declare_regs(decl, &dt);
        }
        if matches!(dt.space, StateSpace::Global | StateSpace::Const) {
            return self.declare_function_globals(decl);
        }
        for name in &decl.names {
            let v = vars::variable(decl, &dt, name, self.module, self.module.loc(name.span))?;
            // Shared variables live in the CTA's shared memory, everything else in the frame.
            if !matches!(v.space, StateSpace::Shared | StateSpace::SharedCluster) {
                self.frame.place(&self.func.name, &v, name.name.span)?;
            }
            let id = LocalId(self.func.locals.len() as u32);
            self.func.locals.push(v);
            self.insert_name(name.name, LocalName::Var(SymbolRef::Local(id)))?;
        }
        Ok(())
    }

    /// Binds the names of a `.global` or `.const` declaration in the function body to the
    /// module variables made for them before the bodies were lowered
    /// ([`super::function_globals`]).
    fn declare_function_globals(&mut self, decl: &ast::VarDecl<'a>) -> Result<()> {
        for name in &decl.names {
            // Every such declaration got its variable before the bodies were lowered.
            let Some(&id) = self.module.function_globals.get(&name.name.span.start) else {
                return Err(Diagnostic::semantic(
                    name.name.span,
                    format!("`{}` has no module storage", name.name.value),
                ));
            };
            self.insert_name(name.name, LocalName::Var(SymbolRef::Global(id)))?;
        }
        Ok(())
    }

    fn declare_regs(&mut self, decl: &ast::VarDecl<'a>, dt: &DeclType) -> Result<()> {
        if dt.ty == Type::B128 && dt.vec > 1 {
            return Err(Diagnostic::unsupported(
                decl.ty.span,
                "`.b128` vector registers",
            ));
        }
        let shape = RegShape::of(dt);
        for name in &decl.names {
            if !name.dims.is_empty() || name.init.is_some() {
                return Err(Diagnostic::unsupported(
                    name.span,
                    "register arrays and initialized registers",
                ));
            }
            if let Some(count) = name.range {
                if count.value > limits::MAX_REG_RANGE {
                    return Err(Diagnostic::semantic(
                        count.span,
                        format!(
                            "too many registers: `{}<{}>` declares {}, at most {} per declaration",
                            name.name.value,
                            count.value,
                            count.value,
                            limits::MAX_REG_RANGE
                        ),
                    ));
                }
                let scope = self.scopes.last().expect("at least the parameter scope");
                if scope.ranges.contains_key(name.name.value) {
                    return Err(Diagnostic::semantic(
                        name.name.span,
                        format!("duplicate declaration of `{}<>`", name.name.value),
                    ));
                }
                self.reserve_regs((count.value * shape.regs()) as usize, name.name.span)?;
                let first = VReg(self.func.regs.len() as u32);
                for i in 0..count.value {
                    self.add_components(&format!("{}{i}", name.name.value), dt);
                }
                self.scopes
                    .last_mut()
                    .expect("at least the parameter scope")
                    .ranges
                    .insert(name.name.value, (first, count.value, shape));
            } else {
                self.reserve_regs(shape.regs() as usize, name.name.span)?;
                let first = VReg(self.func.regs.len() as u32);
                self.add_components(name.name.value, dt);
                self.insert_name(name.name, shape.binding(first))?;
            }
        }
        Ok(())
    }

    /// Checks that `n` more registers, declared at `span`, keep the function within
    /// [`limits::MAX_FUNCTION_REGS`] and the module within [`limits::MAX_MODULE_REGS`].
    fn reserve_regs(&self, n: usize, span: Span) -> Result<()> {
        let func = self.func.regs.len() + n;
        if func > limits::MAX_FUNCTION_REGS {
            return Err(Diagnostic::semantic(
                span,
                format!(
                    "too many registers: `{}` declares more than {}",
                    self.func.name,
                    limits::MAX_FUNCTION_REGS
                ),
            ));
        }
        if self.module_regs + func > limits::MAX_MODULE_REGS {
            return Err(Diagnostic::semantic(
                span,
                format!(
                    "too many registers: the module declares more than {}",
                    limits::MAX_MODULE_REGS
                ),
            ));
        }
        Ok(())
    }

    /// Resolves a name declared in the function (innermost scope first).
    pub(super) fn lookup(&self, name: &str) -> Option<LocalName> {
        self.scopes.iter().rev().find_map(|s| s.lookup(name))
    }

    pub(super) fn module_name(&self, name: &str) -> Option<ModuleName> {
        self.module.names.get(name).copied()
    }

    fn loc(&self, span: Span) -> SrcLoc {
        self.module.loc(span)
    }

    /// The type of an address in this module: `.u32` under `.address_size 32`, else `.u64`
    /// (what an indirect call's function address is).
    fn address_type(&self) -> Type {
        if self.isa_module.address_size == 32 {
            Type::U32
        } else {
            Type::U64
        }
    }

    fn instruction(&mut self, inst: &ast::Instruction<'a>) -> Result<()> {
        let loc = self.loc(inst_span(inst));
        let guard = match inst.guard {
            None => None,
            Some(g) => Some(Guard {
                pred: self.pred_reg(g.pred, g.span)?,
                negated: g.negated,
            }),
        };
        let mut mods = Mods::new(inst.opcode, &inst.modifiers)?;
        let decoded = decode(inst.opcode.value, &mut mods)?.ok_or_else(|| {
            Diagnostic::semantic(
                inst.opcode.span,
                format!("unknown opcode `{}`", inst.opcode.value),
            )
        })?;
        let (op, dsts, srcs) = match decoded {
            Decoded::Unsupported => (
                Op::Unsupported {
                    text: mods.full_name(),
                },
                vec![],
                vec![],
            ),
            Decoded::Bra { uni } => {
                mods.finish()?;
                let label = match inst.operands.as_slice() {
                    [
                        ast::Operand {
                            kind:
                                ast::OperandKind::Name {
                                    name,
                                    component: None,
                                },
                            span,
                        },
                    ] => (*name, *span),
                    [o] => return Err(Diagnostic::semantic(o.span, "`bra` takes a label")),
                    _ => {
                        return Err(Diagnostic::semantic(
                            inst_span(inst),
                            format!("`bra` takes 1 operand, found {}", inst.operands.len()),
                        ));
                    }
                };
                self.push(Inst {
                    guard,
                    op: Op::Bra {
                        target: BlockId(u32::MAX),
                        uni,
                    },
                    dsts: vec![],
                    srcs: vec![],
                    loc,
                });
                let b = self.func.blocks.len() - 1;
                let i = self.func.blocks[b].insts.len() - 1;
                self.fixups.push((b, i, label.0, label.1));
                return Ok(());
            }
            Decoded::Call { uni } => {
                mods.finish()?;
                let call = self.call(inst, uni, loc)?;
                for copy in call.before {
                    self.push(Inst { guard, ..copy });
                }
                self.push(Inst {
                    guard,
                    op: call.op,
                    dsts: vec![],
                    srcs: call.srcs,
                    loc,
                });
                for copy in call.after {
                    self.push(Inst { guard, ..copy });
                }
                return Ok(());
            }
            Decoded::VectorMov { ty, vec } => {
                mods.finish()?;
                return self.vector_mov(inst, ty, vec, guard, loc);
            }
            Decoded::Mov128 => {
                mods.finish()?;
                return self.mov_b128(inst, guard, loc);
            }
            Decoded::Op(op, shape) => {
                mods.finish()?;
                match self.packing_vector_register(inst, &op) {
                    Some(spelled) => self.operands(&spelled, op, shape)?,
                    None => self.operands(inst, op, shape)?,
                }
            }
            Decoded::Texture(op) => {
                mods.finish()?;
                self.texture_operands(inst, op)?
            }
        };
        if matches!(op, Op::Ret { .. }) {
            self.store_reg_rets(guard, loc);
        }
        self.push(Inst {
            guard,
            op,
            dsts,
            srcs,
            loc,
        });
        Ok(())
    }

    /// `mov.b128 d, {a, b, ...}` and `mov.b128 {a, b, ...}, d`: 2, 4 or 8 elements (of 64, 32
    /// or 16 bits, first lowest) packed into the `.b128` register `d` or unpacked from it. The
    /// ISA's registers are at most 64 bits wide, so `d` is its two halves and the move is one
    /// ISA instruction per half: the first half of the elements to or from the low 64 bits, the
    /// rest to or from the high ones (a `mov.b64`, or a pack or unpack of the half's elements;
    /// a half of only `_` is left alone).
    fn mov_b128(
        &mut self,
        inst: &ast::Instruction<'a>,
        guard: Option<Guard>,
        loc: SrcLoc,
    ) -> Result<()> {
        let [d, a] = inst.operands.as_slice() else {
            return Err(Diagnostic::semantic(
                inst_span(inst),
                format!("`mov` takes 2 operands, found {}", inst.operands.len()),
            ));
        };
        let (items, list, wide, pack) = match (self.vector_items(d), self.vector_items(a)) {
            (Some(_), Some(_)) => {
                return Err(Diagnostic::semantic(
                    a.span,
                    "`mov.b128` moves between a `.b128` register and a `{...}` of elements",
                ));
            }
            (None, Some(items)) => (items, a, d, true),
            (Some(items), None) => (items, d, a, false),
            (None, None) => {
                return Err(Diagnostic::semantic(
                    inst_span(inst),
                    "`mov.b128` packs or unpacks: one operand must be a `{...}` of elements",
                ));
            }
        };
        let halves = self.b128(wide)?;
        let elems = match self.elems(&items, list.span, Type::B128, !pack)? {
            Operand::Vector(v) => v,
            other => vec![other],
        };
        let (low, high) = elems.split_at(elems.len() / 2);
        for (half, part) in [(halves[0], low), (halves[1], high)] {
            if part.iter().all(|e| matches!(e, Operand::Sink)) {
                continue;
            }
            let half = Operand::Reg(half);
            let ty = Type::B64;
            let (op, dsts, srcs) = match (part, pack) {
                ([one], true) => (Op::Mov { ty }, vec![half], vec![one.clone()]),
                ([one], false) => (Op::Mov { ty }, vec![one.clone()], vec![half]),
                (many, true) => (
                    Op::Pack { ty },
                    vec![half],
                    vec![Operand::Vector(many.to_vec())],
                ),
                (many, false) => (
                    Op::Unpack { ty },
                    vec![Operand::Vector(many.to_vec())],
                    vec![half],
                ),
            };
            self.push(Inst {
                guard,
                op,
                dsts,
                srcs,
                loc,
            });
        }
        Ok(())
    }

    /// The elements of a pack or unpack `mov`'s vector operand: a `{...}` list's, or a `.vN`
    /// vector register's components (the manual packs "vector register a" and unpacks into
    /// "vector register d"), spelled `%v.x`, `%v.y`, ... at the register's span.
    fn vector_items(&self, o: &ast::Operand<'a>) -> Option<Vec<ast::Operand<'a>>> {
        match &o.kind {
            ast::OperandKind::Vector(items) => Some(items.clone()),
            ast::OperandKind::Name {
                name,
                component: None,
            } => match self.lookup(name) {
                Some(LocalName::VecReg { n, .. }) => Some(
                    ["x", "y", "z", "w"]
                        .iter()
                        .take(usize::from(n))
                        .map(|c| ast::Operand {
                            kind: ast::OperandKind::Name {
                                name,
                                component: Some(c),
                            },
                            span: o.span,
                        })
                        .collect(),
                ),
                _ => None,
            },
            _ => None,
        }
    }

    /// A `mov` that packs into or unpacks from a `.vN` vector register named whole
    /// (`mov.b64 %rd, %v`), respelled with the register's components in `{...}`, as the pack
    /// and unpack forms are lowered; `None` for any other instruction.
    fn packing_vector_register(
        &self,
        inst: &ast::Instruction<'a>,
        op: &Op,
    ) -> Option<ast::Instruction<'a>> {
        if !matches!(op, Op::Mov { .. }) || inst.operands.len() != 2 {
            return None;
        }
        let is_list = |o: &ast::Operand| matches!(o.kind, ast::OperandKind::Vector(_));
        if inst.operands.iter().any(is_list) {
            return None;
        }
        // The destination first: with vectors on both sides, the source stays a register
        // named whole, which its slot then refuses.
        let at = (0..2).find(|&i| {
            matches!(
                &inst.operands[i].kind,
                ast::OperandKind::Name { component: None, name }
                    if matches!(self.lookup(name), Some(LocalName::VecReg { .. }))
            )
        })?;
        let items = self.vector_items(&inst.operands[at])?;
        let mut spelled = inst.clone();
        spelled.operands[at].kind = ast::OperandKind::Vector(items);
        Some(spelled)
    }

    /// `mov.vN.type d, a`: one scalar `mov` per element. When a destination element is also a
    /// later source (`{%a, %b}` from `{%b, %a}`), the sources are first copied to fresh
    /// registers, so every element reads its value from before the move.
    fn vector_mov(
        &mut self,
        inst: &ast::Instruction<'a>,
        ty: Type,
        vec: u8,
        guard: Option<Guard>,
        loc: SrcLoc,
    ) -> Result<()> {
        let [d, a] = inst.operands.as_slice() else {
            return Err(Diagnostic::semantic(
                inst_span(inst),
                format!("`mov` takes 2 operands, found {}", inst.operands.len()),
            ));
        };
        let slot = Slot::Data { ty, vec };
        let (Operand::Vector(dsts), Operand::Vector(mut srcs)) =
            (self.dst(d, slot)?, self.src(a, slot)?)
        else {
            return Err(Diagnostic::semantic(
                inst_span(inst),
                format!("`mov.v{vec}` moves between vectors of {vec} elements"),
            ));
        };
        let mov = |dst: Operand, src: Operand| Inst {
            guard,
            op: Op::Mov { ty },
            dsts: vec![dst],
            srcs: vec![src],
            loc,
        };
        let overlaps = dsts
            .iter()
            .enumerate()
            .any(|(i, d)| *d != Operand::Sink && srcs[i + 1..].contains(d));
        if overlaps {
            self.reserve_regs(srcs.len(), inst_span(inst))?;
            for src in &mut srcs {
                if let Operand::Reg(_) = src {
                    let tmp = self.add_reg(format!("%vmov{}", self.func.regs.len()), ty);
                    self.push(mov(Operand::Reg(tmp), src.clone()));
                    *src = Operand::Reg(tmp);
                }
            }
        }
        for (dst, src) in dsts.into_iter().zip(srcs) {
            if dst != Operand::Sink {
                self.push(mov(dst, src));
            }
        }
        Ok(())
    }

    /// Before a `ret` (guarded by `guard`): stores the `.reg` return values to their slots.
    fn store_reg_rets(&mut self, guard: Option<Guard>, loc: SrcLoc) {
        for (value, i, like) in self.reg_rets.clone() {
            let copy = param_copy(true, SymbolRef::Ret(i), value, &like, loc);
            self.push(Inst { guard, ..copy });
        }
    }

    /// Resolves a guard or predicate operand.
    pub(super) fn pred_reg(&self, name: &str, span: Span) -> Result<VReg> {
        let r = self.reg(name, None, span)?;
        if self.func.reg(r).ty != Type::Pred {
            return Err(Diagnostic::semantic(
                span,
                format!("`{name}` is not a predicate"),
            ));
        }
        Ok(r)
    }

    /// Resolves a register operand by name (with an optional vector component).
    pub(super) fn reg(&self, name: &str, component: Option<&str>, span: Span) -> Result<VReg> {
        match self.lookup(name) {
            Some(LocalName::Reg(r)) if component.is_none() => Ok(r),
            Some(LocalName::VecReg { first, n }) => {
                let index = match component {
                    Some("x") | Some("r") => 0,
                    Some("y") | Some("g") => 1,
                    Some("z") | Some("b") => 2,
                    Some("w") | Some("a") => 3,
                    _ => {
                        return Err(Diagnostic::semantic(
                            span,
                            format!("vector register `{name}` needs a component `.x`..`.w`"),
                        ));
                    }
                };
                if index >= n {
                    return Err(Diagnostic::semantic(
                        span,
                        format!("`{name}` has only {n} components"),
                    ));
                }
                Ok(VReg(first.0 + index as u32))
            }
            Some(LocalName::Reg(_)) => Err(Diagnostic::semantic(
                span,
                format!("`{name}` is not a vector register"),
            )),
            Some(LocalName::B128 { .. }) => Err(b128_only(name, span)),
            Some(LocalName::Var(_)) => Err(Diagnostic::semantic(
                span,
                format!("`{name}` is a variable, not a register"),
            )),
            None if name.starts_with('%') => Err(Diagnostic::semantic(
                span,
                format!("undefined register `{name}`"),
            )),
            None => Err(Diagnostic::semantic(
                span,
                format!("`{name}` is not a register"),
            )),
        }
    }

    /// Checks the remaining operands against the call target's signature. Arguments and
    /// return values given as registers (or immediate arguments) travel through temporary
    /// `.param` variables of the caller, copied before and after the call.
    fn call(&mut self, inst: &ast::Instruction<'a>, uni: bool, loc: SrcLoc) -> Result<Call> {
        use ast::OperandKind as K;
        let ops = &inst.operands;
        let (rets, rest) = match ops.first().map(|o| &o.kind) {
            Some(K::List(r)) => (r.as_slice(), &ops[1..]),
            _ => (&[][..], &ops[..]),
        };
        let (callee, rest) = match rest.split_first() {
            Some((c, rest)) => (c, rest),
            None => {
                return Err(Diagnostic::semantic(
                    inst_span(inst),
                    "`call` needs a target",
                ));
            }
        };
        let (args, rest) = match rest.first().map(|o| &o.kind) {
            Some(K::List(a)) => (a.as_slice(), &rest[1..]),
            _ => (&[][..], rest),
        };
        let callee_id = match &callee.kind {
            K::Name {
                name,
                component: None,
            } => match self.module_name(name) {
                Some(ModuleName::Func(f)) if self.lookup(name).is_none() => f,
                _ if self.lookup(name).is_some() => {
                    return self.indirect_call(inst, uni, callee, rets, args, rest, loc);
                }
                _ => {
                    return Err(Diagnostic::semantic(
                        callee.span,
                        format!("undefined function `{name}`"),
                    ));
                }
            },
            _ => {
                return Err(Diagnostic::semantic(
                    callee.span,
                    "expected a function name",
                ));
            }
        };
        if let Some(extra) = rest.first() {
            return Err(Diagnostic::semantic(
                extra.span,
                "unexpected operand after call arguments",
            ));
        }
        let target = self.isa_module.function(callee_id);
        if target.params.len() != args.len() || target.rets.len() != rets.len() {
            return Err(Diagnostic::semantic(
                inst_span(inst),
                format!(
                    "`{}` takes {} argument(s) and {} return value(s); call passes {} and {}",
                    target.name,
                    target.params.len(),
                    target.rets.len(),
                    args.len(),
                    rets.len()
                ),
            ));
        }
        let (params, results) = (target.params.clone(), target.rets.clone());
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let arg_slots = self.call_slots(args, &params, true, loc, &mut before)?;
        let ret_slots = self.call_slots(rets, &results, false, loc, &mut after)?;
        let op = Op::Call {
            callee: isa::Callee::Direct(callee_id),
            uni,
            args: arg_slots,
            rets: ret_slots,
        };
        Ok(Call {
            op,
            srcs: vec![],
            before,
            after,
        })
    }

    /// `call (rets), %rd, (args), prototype;`: a call through the function address in a
    /// register, its arguments and results typed by the `.callprototype` (or `.calltargets`)
    /// label that ends it.
    #[allow(clippy::too_many_arguments)]
    fn indirect_call(
        &mut self,
        inst: &ast::Instruction<'a>,
        uni: bool,
        target: &ast::Operand<'a>,
        rets: &[ast::Operand<'a>],
        args: &[ast::Operand<'a>],
        rest: &[ast::Operand<'a>],
        loc: SrcLoc,
    ) -> Result<Call> {
        use ast::OperandKind as K;
        let target = self.src(target, Slot::Val(self.address_type()))?;
        let prototype = match rest {
            [
                ast::Operand {
                    kind:
                        K::Name {
                            name,
                            component: None,
                        },
                    span,
                },
            ] => self.prototypes.get(name).cloned().ok_or_else(|| {
                Diagnostic::semantic(
                    *span,
                    format!("`{name}` is no `.callprototype` or `.calltargets` label declared before the call"),
                )
            })??,
            [extra, ..] => {
                return Err(Diagnostic::semantic(
                    extra.span,
                    "expected the call's `.callprototype` or `.calltargets` label",
                ));
            }
            [] => {
                return Err(Diagnostic::semantic(
                    inst_span(inst),
                    "an indirect call ends with its `.callprototype` or `.calltargets` label",
                ));
            }
        };
        if prototype.params.len() != args.len() || prototype.rets.len() != rets.len() {
            return Err(Diagnostic::semantic(
                inst_span(inst),
                format!(
                    "the prototype takes {} argument(s) and {} return value(s); call passes {} and {}",
                    prototype.params.len(),
                    prototype.rets.len(),
                    args.len(),
                    rets.len()
                ),
            ));
        }
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let arg_slots = self.call_slots(args, &prototype.params, true, loc, &mut before)?;
        let ret_slots = self.call_slots(rets, &prototype.rets, false, loc, &mut after)?;
        Ok(Call {
            op: Op::Call {
                callee: isa::Callee::Indirect,
                uni,
                args: arg_slots,
                rets: ret_slots,
            },
            srcs: vec![target],
            before,
            after,
        })
    }

    /// The parameters and results a `.callprototype` declares (`.param` only).
    fn prototype(
        &self,
        params: &[ast::VarDecl<'a>],
        rets: &[ast::VarDecl<'a>],
    ) -> Result<Prototype> {
        let list = |decls: &[ast::VarDecl<'a>]| -> Result<Vec<isa::Variable>> {
            let mut out = Vec::new();
            for decl in decls {
                let dt = vars::decl_type(decl)?;
                if dt.space != StateSpace::Param {
                    return Err(Diagnostic::unsupported(
                        decl.space.span,
                        format!(
                            "`.{}` parameters in a `.callprototype` (only `.param`)",
                            dt.space
                        ),
                    ));
                }
                for name in &decl.names {
                    out.push(vars::variable(
                        decl,
                        &dt,
                        name,
                        self.module,
                        self.loc(name.span),
                    )?);
                }
            }
            Ok(out)
        };
        Ok(Prototype {
            params: list(params)?,
            rets: list(rets)?,
        })
    }

    /// A `.calltargets` list: its functions' signature, which they must share.
    fn call_targets(&self, targets: &[ast::Spanned<&'a str>]) -> Result<Prototype> {
        let mut found: Option<(Prototype, &str)> = None;
        for t in targets {
            let Some(ModuleName::Func(f)) = self.module_name(t.value) else {
                return Err(Diagnostic::semantic(
                    t.span,
                    format!("undefined function `{}`", t.value),
                ));
            };
            let func = self.isa_module.function(f);
            let sizes = |v: &[isa::Variable]| v.iter().map(|p| p.size_bytes()).collect::<Vec<_>>();
            match &found {
                Some((p, first))
                    if sizes(&p.params) != sizes(&func.params)
                        || sizes(&p.rets) != sizes(&func.rets) =>
                {
                    return Err(Diagnostic::semantic(
                        t.span,
                        format!(
                            "`{}` and `{first}` of one `.calltargets` differ in their parameters",
                            t.value
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    found = Some((
                        Prototype {
                            params: func.params.clone(),
                            rets: func.rets.clone(),
                        },
                        t.value,
                    ))
                }
            }
        }
        found
            .map(|(p, _)| p)
            .ok_or_else(|| Diagnostic::semantic(targets[0].span, "an empty `.calltargets`"))
    }

    /// The frame slots of a call's arguments (`args`: copies stored before the call) or
    /// results (loaded after it) against the callee's `decls`: a `.param` variable is its own
    /// slot; a register or an immediate gets a new slot and a copy into `copies`.
    fn call_slots(
        &mut self,
        operands: &[ast::Operand],
        decls: &[isa::Variable],
        args: bool,
        loc: SrcLoc,
        copies: &mut Vec<Inst>,
    ) -> Result<Vec<SymbolRef>> {
        let mut slots = Vec::with_capacity(operands.len());
        for (o, decl) in operands.iter().zip(decls) {
            if let Some(var) = self.param_variable(o)? {
                slots.push(var);
                continue;
            }
            // A vector parameter takes a vector register named whole (or a `{...}` list).
            let want = match (decl.ty, decl.vec) {
                (Type::B128, _) => Slot::B128,
                (ty, 1) => Slot::Val(ty),
                (ty, vec) => Slot::Data { ty, vec },
            };
            let value = if args {
                self.src(o, want)?
            } else {
                self.dst(o, want)?
            };
            let slot = self.call_slot(decl, o.span)?;
            copies.push(param_copy(args, slot, value, decl, loc));
            slots.push(slot);
        }
        Ok(slots)
    }

    /// A call operand naming a `.param` variable, or `None` for a register or an immediate.
    fn param_variable(&self, o: &ast::Operand) -> Result<Option<SymbolRef>> {
        use ast::OperandKind as K;
        match &o.kind {
            K::Name {
                name,
                component: None,
            } => match self.lookup(name) {
                Some(LocalName::Var(s)) => Ok(Some(s)),
                Some(_) => Ok(None),
                None => Err(Diagnostic::semantic(
                    o.span,
                    format!("undefined parameter `{name}`"),
                )),
            },
            K::Name { .. } | K::Int { .. } | K::F32 { .. } | K::F64 { .. } => Ok(None),
            _ => Err(Diagnostic::semantic(
                o.span,
                "expected a `.param` variable, a register or an immediate",
            )),
        }
    }

    /// A new `.param` variable of the caller's frame for one register argument or return value
    /// of type `like`'s.
    fn call_slot(&mut self, like: &isa::Variable, span: Span) -> Result<SymbolRef> {
        let id = LocalId(self.func.locals.len() as u32);
        let v = isa::Variable {
            name: format!("__call_slot{}", id.0),
            space: StateSpace::Param,
            count: None,
            init: None,
            linkage: isa::Linkage::Internal,
            loc: self.loc(span),
            ..like.clone()
        };
        self.frame.place(&self.func.name, &v, span)?;
        self.func.locals.push(v);
        Ok(SymbolRef::Local(id))
    }

    /// Matches AST operands against the decoded shape and lowers them.
    fn operands(
        &mut self,
        inst: &ast::Instruction<'a>,
        op: Op,
        mut shape: super::shape::Shape,
    ) -> Result<(Op, Vec<Operand>, Vec<Operand>)> {
        use ast::OperandKind as K;
        let ops = &inst.operands;
        // `mov` with a `{...}` operand packs or unpacks.
        let mut op = op;
        if let Op::Mov { ty } = op {
            if ops.first().is_some_and(|o| matches!(o.kind, K::Vector(_))) {
                op = Op::Unpack { ty };
                shape.dsts = Slots::of(&[Slot::Elems(ty)]);
                shape.srcs = Slots::of(&[Slot::Val(ty)]);
            } else if ops.get(1).is_some_and(|o| matches!(o.kind, K::Vector(_))) {
                op = Op::Pack { ty };
                shape.srcs = Slots::of(&[Slot::Elems(ty)]);
            }
        }
        // `bar.red` with four operands has the optional thread count.
        if matches!(
            op,
            Op::Bar {
                kind: isa::BarrierKind::Red(_),
                ..
            }
        ) && ops.len() == 4
        {
            shape.srcs.insert(1, Slot::Val(Type::U32));
            shape.min_srcs += 1;
        }
        // `cp.async`'s fourth operand is src-size, or ignore-src when it names a predicate.
        if let Op::CpAsync { ignore_src, .. } = &mut op
            && let Some(K::Name { name, component }) = ops.get(3).map(|o| &o.kind)
            && self
                .reg(name, *component, ops[3].span)
                .is_ok_and(|r| self.func.regs[r.0 as usize].ty == Type::Pred)
        {
            *ignore_src = true;
            shape.srcs = Slots::of(&[
                Slot::Addr,
                Slot::Addr,
                Slot::Val(Type::U32),
                Slot::Pred { negatable: false },
                Slot::Val(Type::B64),
            ]);
        }
        // A video instruction's part selectors are written on its operands.
        let selected;
        let ops = match op {
            Op::Video(_) => {
                selected = video_selectors(&mut op, ops)?;
                &selected[..]
            }
            Op::VideoSimd(_) => {
                selected = simd_video_selectors(&mut op, ops)?;
                &selected[..]
            }
            _ => &ops[..],
        };
        let mut dsts = Vec::with_capacity(shape.dsts.len());
        let mut rest = ops;
        if shape.min_dsts > 0 {
            let Some((first, tail)) = ops.split_first() else {
                return Err(self.count_error(inst, &shape));
            };
            rest = tail;
            match &first.kind {
                K::Pair {
                    first: a,
                    second: b,
                } => {
                    if shape.dsts.len() < 2 {
                        return Err(Diagnostic::semantic(
                            first.span,
                            format!("`{}` has a single destination", inst.opcode.value),
                        ));
                    }
                    dsts.push(self.dst(a, shape.dsts[0])?);
                    dsts.push(self.dst(b, shape.dsts[1])?);
                }
                _ if shape.min_dsts > 1 => {
                    return Err(Diagnostic::semantic(
                        first.span,
                        format!("`{}` writes two destinations, `d|p`", inst.opcode.value),
                    ));
                }
                _ => dsts.push(self.dst(first, shape.dsts[0])?),
            }
        }
        if rest.len() < shape.min_srcs || rest.len() > shape.srcs.len() {
            return Err(self.count_error(inst, &shape));
        }
        let srcs = rest
            .iter()
            .zip(shape.srcs.iter())
            .map(|(o, slot)| self.src(o, *slot))
            .collect::<Result<Vec<_>>>()?;
        let op = immediate_counts(op, &srcs, rest)?;
        Ok((op, dsts, srcs))
    }

    fn count_error(&self, inst: &ast::Instruction, shape: &super::shape::Shape) -> Diagnostic {
        // Destinations are one operand, single or a pair (`d|p`).
        let dst_operands = shape.min_dsts.min(1);
        let min = dst_operands + shape.min_srcs;
        let max = dst_operands + shape.srcs.len();
        let expected = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        let mut name = inst.opcode.value.to_string();
        for m in &inst.modifiers {
            name.push('.');
            name.push_str(m.value);
        }
        Diagnostic::semantic(
            inst_span(inst),
            format!(
                "`{name}` takes {expected} operands, found {}",
                inst.operands.len()
            ),
        )
    }
}

/// The operands that must be immediates: `lop3`'s look-up table (8 bits), and the counts
/// `cp.async` and `cp.async.wait_group` take, moved into the operation (they stay operands
/// too, as written): the copy size (4, 8 or 16 bytes; `.cg` copies 16) and the number of
/// groups that may stay incomplete.
fn immediate_counts(op: Op, srcs: &[Operand], ops: &[ast::Operand]) -> Result<Op> {
    let immediate = |i: usize, what: &str| match srcs.get(i) {
        Some(Operand::Imm(v)) => Ok(*v),
        _ => Err(Diagnostic::semantic(
            ops[i].span,
            format!("{what} must be an immediate"),
        )),
    };
    Ok(match op {
        Op::CpAsync {
            bypass_l1,
            ignore_src,
            ..
        } => {
            let size = immediate(2, "the copy size of `cp.async`")?;
            let allowed: &[u64] = if bypass_l1 { &[16] } else { &[4, 8, 16] };
            if !allowed.contains(&size) {
                let sizes = if bypass_l1 {
                    "16 (`.cg`)"
                } else {
                    "4, 8 or 16"
                };
                return Err(Diagnostic::semantic(
                    ops[2].span,
                    format!("`cp.async` copies {sizes} bytes, not {size}"),
                ));
            }
            Op::CpAsync {
                size: size as u8,
                bypass_l1,
                ignore_src,
            }
        }
        Op::Lop3 { .. } => {
            let lut = immediate(3, "the look-up table of `lop3`")?;
            if lut > 0xff {
                return Err(Diagnostic::semantic(
                    ops[3].span,
                    format!("the look-up table of `lop3` is 8 bits, not {lut:#x}"),
                ));
            }
            op
        }
        Op::CpAsyncWait { all: false, .. } => {
            let n = immediate(0, "the group count of `cp.async.wait_group`")?;
            Op::CpAsyncWait {
                n: u32::try_from(n).unwrap_or(u32::MAX),
                all: false,
            }
        }
        op => op,
    })
}

/// Moves a video instruction's part selectors (`d.h0`, `a.b1`, `b.h1`) from its operands into
/// the operation, and checks that `c` is there exactly when a merge or a secondary operation
/// needs it. Returns the operands without their selectors.
/// A SIMD video instruction's selectors, written on its operands: the destination's mask
/// (`d.h1`, `d.b310`: the elements written, highest first) and the sources' element choices
/// (`a.h32`, `b.b7654`: one index into `{b, a}` per element, highest element first); the
/// operands come back without them.
fn simd_video_selectors<'a>(
    op: &mut Op,
    ops: &[ast::Operand<'a>],
) -> Result<Vec<ast::Operand<'a>>> {
    use ast::OperandKind as K;
    let Op::VideoSimd(v) = op else {
        unreachable!("a SIMD video instruction")
    };
    let (prefix, lanes) = (if v.lanes == 2 { 'h' } else { 'b' }, usize::from(v.lanes));
    let mut out = ops.to_vec();
    for (i, o) in out.iter_mut().enumerate().take(3) {
        let K::Name {
            component: Some(c), ..
        } = &o.kind
        else {
            continue;
        };
        let digits: Option<Vec<u8>> = c
            .strip_prefix(prefix)
            .filter(|d| !d.is_empty())
            .map(|d| d.bytes().map(|b| b.wrapping_sub(b'0')).collect());
        let bad = |what: &str| {
            Diagnostic::semantic(
                o.span,
                format!(
                    "invalid {what} `.{c}` for `{}{}`",
                    match v.op {
                        isa::SimdVideoOp::Add => "vadd",
                        isa::SimdVideoOp::Sub => "vsub",
                        isa::SimdVideoOp::Avrg => "vavrg",
                        isa::SimdVideoOp::Absdiff => "vabsdiff",
                        isa::SimdVideoOp::Min => "vmin",
                        isa::SimdVideoOp::Max => "vmax",
                        isa::SimdVideoOp::Set(_) => "vset",
                    },
                    v.lanes
                ),
            )
        };
        if i == 0 {
            // A mask: distinct element indices, highest first.
            let Some(d) = digits.filter(|d| {
                d.iter().all(|&x| usize::from(x) < lanes) && d.windows(2).all(|w| w[0] > w[1])
            }) else {
                return Err(bad("mask"));
            };
            v.mask = d.iter().fold(0, |m, &x| m | 1 << x);
        } else {
            // A selector: one index into the 2·lanes elements of {b, a} per element.
            let Some(d) = digits
                .filter(|d| d.len() == lanes && d.iter().all(|&x| usize::from(x) < 2 * lanes))
            else {
                return Err(bad("selector"));
            };
            let mut sel = [0u8; 4];
            for (k, x) in d.iter().rev().enumerate() {
                sel[k] = *x;
            }
            if i == 1 {
                v.asel = sel;
            } else {
                v.bsel = sel;
            }
        }
        if let K::Name { component, .. } = &mut o.kind {
            *component = None;
        }
    }
    Ok(out)
}

fn video_selectors<'a>(op: &mut Op, ops: &[ast::Operand<'a>]) -> Result<Vec<ast::Operand<'a>>> {
    use ast::OperandKind as K;
    let Op::Video(isa::Video {
        op: video_op,
        asel,
        bsel,
        then,
        ..
    }) = op
    else {
        unreachable!("a video instruction")
    };
    let mut out = ops.to_vec();
    // `vmad`'s negated sources (`-a`): flags of the operation, the operands plain names.
    for (i, o) in out.iter_mut().enumerate().skip(1) {
        if let K::NegName { name, component } = o.kind {
            let isa::VideoOp::Mad { po, negate, .. } = video_op else {
                return Err(Diagnostic::semantic(
                    o.span,
                    "`-` negates only the sources of `vmad`",
                ));
            };
            if *po {
                return Err(Diagnostic::semantic(
                    o.span,
                    "`vmad.po` takes no negated sources",
                ));
            }
            if let Some(n) = negate.get_mut(i - 1) {
                *n = true;
            }
            o.kind = K::Name { name, component };
        }
    }
    if let isa::VideoOp::Mad { negate, .. } = video_op
        && negate[0] != negate[1]
        && negate[2]
    {
        return Err(Diagnostic::semantic(
            ops[3].span,
            "`vmad` negates the product `a·b` or `c`, not both",
        ));
    }
    let mut parts = [None; 3];
    for (o, part) in out.iter_mut().zip(&mut parts) {
        if let K::Name {
            component: Some(c), ..
        } = &o.kind
            && let Some(p) = isa::Part::from_name(c)
        {
            *part = Some(p);
            if let K::Name { component, .. } = &mut o.kind {
                *component = None;
            }
        }
    }
    let [dsel, a, b] = parts;
    (*asel, *bsel) = (a, b);
    if let Some(p) = dsel {
        if matches!(video_op, isa::VideoOp::Mad { .. }) {
            return Err(Diagnostic::semantic(
                ops[0].span,
                "`vmad` writes the whole destination (no `d.part`)",
            ));
        }
        if *then != isa::VideoThen::Nothing {
            return Err(Diagnostic::semantic(
                ops[0].span,
                "a merge (`d.part`) and a secondary operation exclude each other",
            ));
        }
        *then = isa::VideoThen::Merge(p);
    }
    let needs_c = *then != isa::VideoThen::Nothing || matches!(video_op, isa::VideoOp::Mad { .. });
    if needs_c != (ops.len() == 4) {
        let span = ops.last().map_or(Span::new(0, 0), |o| o.span);
        return Err(Diagnostic::semantic(
            span,
            if matches!(video_op, isa::VideoOp::Mad { .. }) {
                "`vmad` takes 4 operands: d, a, b, c"
            } else if needs_c {
                "a merge or a secondary operation needs the operand `c`"
            } else {
                "`c` is used only by a merge (`d.part`) or a secondary operation"
            },
        ));
    }
    Ok(out)
}
