//! Lowering the AST into an [`isa::Module`]: name resolution, instruction decoding, operand
//! checking and basic-block construction.
//!
//! Module-scope names (variables and functions) are collected first, so that functions and
//! initializers may refer to names declared later; each function body is then lowered on its
//! own ([`body`]), and every diagnostic found is reported, not only the first.

mod body;
mod decode;
mod header;
pub mod limits;
mod mods;
mod operand;
mod shape;
mod texture;
mod vars;

use crate::ast::{self, Item, Span};
use crate::diag::{Diagnostic, LineIndex, PtxError};
use isa::{FuncId, GlobalId, InitValue, SrcLoc, StateSpace, SymbolRef};
use rustc_hash::FxHashMap as HashMap;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Most diagnostics reported for one file; the rest are usually consequences of the first.
const MAX_DIAGNOSTICS: usize = 20;

/// Resolves module-scope names for initializers.
pub(crate) trait Names {
    /// The value of `name+offset` in an initializer.
    fn init_address(&self, name: &str, offset: i64, span: Span) -> Result<InitValue>;
}

/// A module-scope name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ModuleName {
    Global(GlobalId),
    Func(FuncId),
}

/// Module-scope names and the shared line index.
pub(crate) struct ModuleScope<'a> {
    pub names: HashMap<&'a str, ModuleName>,
    pub lines: LineIndex,
    /// The `.global` and `.const` variables declared in function bodies, by the byte offset of
    /// their declared name: module-scope storage whose name only the function (from its
    /// declaration's scope on) sees ([`function_globals`]).
    pub function_globals: HashMap<u32, GlobalId>,
}

impl ModuleScope<'_> {
    pub(crate) fn loc(&self, span: Span) -> SrcLoc {
        let (line, col) = self.lines.line_col(span.start);
        SrcLoc { line, col }
    }
}

impl Names for ModuleScope<'_> {
    fn init_address(&self, name: &str, offset: i64, span: Span) -> Result<InitValue> {
        match self.names.get(name) {
            Some(ModuleName::Global(g)) => Ok(InitValue::SymbolAddr {
                sym: SymbolRef::Global(*g),
                offset,
            }),
            Some(ModuleName::Func(f)) if offset == 0 => Ok(InitValue::FuncAddr(*f)),
            Some(ModuleName::Func(_)) => {
                Err(Diagnostic::semantic(span, "offset from a function address"))
            }
            None => Err(Diagnostic::semantic(
                span,
                format!("undefined symbol `{name}`"),
            )),
        }
    }
}

/// Lowers a parsed module. `file` and `text` are used for diagnostics.
pub fn lower(
    file: &str,
    text: &str,
    module: &ast::Module,
) -> std::result::Result<isa::Module, PtxError> {
    let mut diags = Vec::new();
    let mut scope = ModuleScope {
        names: HashMap::default(),
        lines: LineIndex::new(text),
        function_globals: HashMap::default(),
    };
    let mut out = isa::Module {
        version: (0, 0),
        target: Vec::new(),
        // "If the `.address_size` directive is omitted, the address size defaults to 32"
        // (PTX ISA, 11.1.3).
        address_size: 32,
        globals: Vec::new(),
        functions: Vec::new(),
    };
    header::check(&module.items, &mut diags);

    // Pass 1: header directives and module-scope names.
    let mut bodies: Vec<Option<&ast::Function>> = Vec::new();
    let mut globals: Vec<PendingGlobal> = Vec::new();
    for item in &module.items {
        match item {
            Item::Version { major, minor, .. } => {
                out.version = (*major, *minor);
            }
            Item::Target { names, .. } => {
                out.target.extend(names.iter().map(|n| n.value.to_string()))
            }
            Item::AddressSize { bits, span } => {
                if !matches!(*bits, 32 | 64) {
                    diags.push(Diagnostic::semantic(
                        *span,
                        format!("`.address_size {bits}`: the address size is 32 or 64"),
                    ));
                }
                out.address_size = *bits;
            }
            Item::Var(decl) => {
                declare_globals(decl, &mut scope, &mut out, &mut globals, &mut diags)
            }
            Item::Function(f) => declare_function(f, &mut scope, &mut out, &mut bodies, &mut diags),
            Item::Pragma { .. } | Item::Ignored { .. } => {}
        }
    }
    // A kernel is launched, never linked to: one that is only declared cannot run (and the IR
    // requires every kernel to have a body).
    for (i, f) in bodies.iter().enumerate() {
        if let Some(f) = f
            && f.body.is_none()
            && out.functions[i].kind == isa::FuncKind::Entry
        {
            diags.push(Diagnostic::semantic(
                f.name.span,
                format!(
                    "kernel `{}` is declared but never defined (an `.entry` needs a body)",
                    f.name.value
                ),
            ));
        }
    }

    // Function-scope `.global`/`.const` variables get their module-scope storage now, so that
    // the module's variables are complete before any body is lowered.
    for f in bodies.iter().flatten() {
        if let Some(stmts) = &f.body {
            function_globals(f.name.value, stmts, &mut scope, &mut out, &mut globals);
        }
    }

    // Pass 2: the variables themselves; initializers may name any module symbol.
    for (id, decl, name) in globals {
        match vars::decl_type(decl)
            .and_then(|dt| vars::variable(decl, &dt, name, &scope, scope.loc(name.span)))
        {
            // A function-scope variable keeps the placeholder's qualified name.
            Ok(v) => {
                let g = &mut out.globals[id.index()];
                *g = isa::Variable {
                    name: std::mem::take(&mut g.name),
                    ..v
                };
            }
            Err(d) => diags.push(d),
        }
    }

    // Pass 3: function bodies.
    let mut module_regs = 0;
    for (i, f) in bodies.iter().enumerate() {
        if let Some(f) = f
            && let Some(stmts) = &f.body
        {
            let id = FuncId(i as u32);
            match body::lower_body(&scope, &out, id, f, stmts, module_regs) {
                Ok(lowered) => {
                    module_regs += lowered.regs.len();
                    out.functions[i] = lowered;
                }
                Err(mut d) => diags.append(&mut d),
            }
        }
        if diags.len() >= MAX_DIAGNOSTICS {
            break;
        }
    }

    if diags.is_empty() {
        Ok(out)
    } else {
        diags.truncate(MAX_DIAGNOSTICS);
        Err(PtxError::new(file, text, diags))
    }
}

/// A module-scope variable whose name is declared, to be built in pass 2.
type PendingGlobal<'d, 'a> = (GlobalId, &'d ast::VarDecl<'a>, &'d ast::DeclName<'a>);

/// Declares the names of a module-scope variable declaration; the variables are built in pass 2,
/// once every name an initializer may refer to is known.
fn declare_globals<'d, 'a>(
    decl: &'d ast::VarDecl<'a>,
    scope: &mut ModuleScope<'a>,
    out: &mut isa::Module,
    pending: &mut Vec<PendingGlobal<'d, 'a>>,
    diags: &mut Vec<Diagnostic>,
) {
    if matches!(decl.space.value, "reg" | "param") {
        return diags.push(Diagnostic::semantic(
            decl.space.span,
            format!(
                "`.{}` variables are not allowed at module scope",
                decl.space.value
            ),
        ));
    }
    for name in &decl.names {
        let id = GlobalId(out.globals.len() as u32);
        if scope
            .names
            .insert(name.name.value, ModuleName::Global(id))
            .is_some()
        {
            diags.push(Diagnostic::semantic(
                name.name.span,
                format!("duplicate declaration of `{}`", name.name.value),
            ));
        }
        out.globals.push(placeholder_var(name.name.value));
        pending.push((id, decl, name));
    }
}

/// Gives each `.global` or `.const` variable declared in the body `stmts` of function `func`
/// (nested blocks included) a module variable named `func.name`, which no PTX name can clash
/// with; the body's lowering binds `name` to it in the declaration's scope. The manual keeps
/// such variables' storage for the program's lifetime, as a module-scope variable's.
fn function_globals<'d, 'a>(
    func: &str,
    stmts: &'d [ast::Statement<'a>],
    scope: &mut ModuleScope<'a>,
    out: &mut isa::Module,
    pending: &mut Vec<PendingGlobal<'d, 'a>>,
) {
    for stmt in stmts {
        match stmt {
            ast::Statement::Var(decl) if is_module_storage(decl) => {
                for name in &decl.names {
                    let id = GlobalId(out.globals.len() as u32);
                    scope.function_globals.insert(name.name.span.start, id);
                    out.globals
                        .push(placeholder_var(&format!("{func}.{}", name.name.value)));
                    pending.push((id, decl, name));
                }
            }
            ast::Statement::Block { body, .. } => {
                function_globals(func, body, scope, out, pending);
            }
            _ => {}
        }
    }
}

/// Whether a declaration is of `.global` or `.const` storage (a malformed one is reported
/// where the body declares it).
fn is_module_storage(decl: &ast::VarDecl) -> bool {
    vars::decl_type(decl).is_ok_and(|dt| matches!(dt.space, StateSpace::Global | StateSpace::Const))
}

/// Stands for a variable until pass 2 builds it (or reports why it cannot).
fn placeholder_var(name: &str) -> isa::Variable {
    isa::Variable {
        name: name.to_string(),
        space: StateSpace::Global,
        ty: isa::Type::B8,
        vec: 1,
        count: None,
        align: 1,
        init: None,
        linkage: isa::Linkage::Internal,
        loc: SrcLoc::default(),
        opaque: None,
    }
}

fn declare_function<'a, 'f>(
    f: &'f ast::Function<'a>,
    scope: &mut ModuleScope<'a>,
    out: &mut isa::Module,
    bodies: &mut Vec<Option<&'f ast::Function<'a>>>,
    diags: &mut Vec<Diagnostic>,
) {
    let sig = match body::signature(scope, f) {
        Ok(sig) => sig,
        Err(d) => return diags.push(d),
    };
    match scope.names.get(f.name.value) {
        Some(ModuleName::Func(id)) => {
            // A prototype followed by its definition (or repeated prototypes).
            let i = id.index();
            let prev_has_body = bodies[i].is_some_and(|p| p.body.is_some());
            if prev_has_body && f.body.is_some() {
                return diags.push(Diagnostic::semantic(
                    f.name.span,
                    format!("duplicate definition of `{}`", f.name.value),
                ));
            }
            if out.functions[i].params.len() != sig.params.len()
                || out.functions[i].rets.len() != sig.rets.len()
            {
                return diags.push(Diagnostic::semantic(
                    f.name.span,
                    format!(
                        "declaration of `{}` does not match its prototype",
                        f.name.value
                    ),
                ));
            }
            if f.body.is_some() {
                out.functions[i] = sig;
                bodies[i] = Some(f);
            }
        }
        Some(ModuleName::Global(_)) => {
            diags.push(Diagnostic::semantic(
                f.name.span,
                format!("duplicate declaration of `{}`", f.name.value),
            ));
        }
        None => {
            let id = FuncId(out.functions.len() as u32);
            scope.names.insert(f.name.value, ModuleName::Func(id));
            out.functions.push(sig);
            bodies.push(Some(f));
        }
    }
}
