//! Parsing PTX text into an [`ast::Module`](crate::ast::Module).
//!
//! The grammar (`grammar.lalrpop`, turned into a parser in `$OUT_DIR` by `build.rs`)
//! consumes the logos tokens of [`crate::lexer`]. This file holds [`parse`], the helpers the
//! grammar's actions call, and the translation of lalrpop errors into short diagnostics.
//!
//! Operand forms the AST has no dedicated variant for (lowering recognises them by shape):
//!
//! - `[tex, {%r1, %r2}]` (texture/surface instructions: an address with a vector inside) is an
//!   [`OperandKind::Vector`] whose elements are the bracket's comma-separated parts, e.g.
//!   `Vector([Name tex, Vector([%r1, %r2])])`. A plain `[%rd1+8]` is always an
//!   [`OperandKind::Address`], so a vector stands for a bracket only where an address belongs.
//! - `{%f1, %f2, %f3, %f4}|%p` (a texture result with its predicate) is a two-element
//!   [`OperandKind::Vector`]: the vector, then the predicate name.
//!
//! `%p|%q` is an [`OperandKind::Pair`] of two operands: names (with a vector component, as in
//! `%v.x|%p`) or `_`, a [`OperandKind::Sink`].
//!
//! Declarations: the dotted words after the state space are sorted by `build_decl`: `.vN` is
//! the vector width, the first type name is the type, `.align N` before any `.ptr` is the
//! alignment, and everything else goes to [`VarDecl::attrs`]. After `.ptr`, `.align N`
//! describes the pointee, not the parameter, so it is kept as the attribute `align N` (the
//! source slice from `align` through the number) instead of setting [`VarDecl::align`].
//!
//! [`OperandKind::Vector`]: crate::ast::OperandKind::Vector
//! [`OperandKind::Address`]: crate::ast::OperandKind::Address
//! [`OperandKind::Pair`]: crate::ast::OperandKind::Pair
//! [`OperandKind::Sink`]: crate::ast::OperandKind::Sink
//! [`VarDecl::attrs`]: crate::ast::VarDecl::attrs
//! [`VarDecl::align`]: crate::ast::VarDecl::align

use crate::ast::{DeclName, Init, Item, Linkage, Module, Span, Spanned, VarDecl};
use crate::diag::{Diagnostic, PtxError};
use crate::lexer::{Lexer, Token, shorten};
use lalrpop_util::ParseError;
use logos::Logos;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        clippy::pedantic,
        unused_imports,
        unused_qualifications,
        missing_docs
    )]
    grammar
);

/// What lalrpop reports: our locations, tokens and diagnostics.
type Error<'a> = ParseError<usize, Token<'a>, Box<Diagnostic>>;

/// Parses a whole PTX file. `file` is only used to name the file in diagnostics.
///
/// Never panics; the first syntax error is reported with file:line:col.
pub fn parse<'a>(file: &str, text: &'a str) -> Result<Module<'a>, PtxError> {
    if u32::try_from(text.len()).is_err() {
        let diag = Diagnostic::syntax(Span::default(), "file too large (4 GiB at most)");
        return Err(PtxError::new(file, "", vec![diag]));
    }
    let error = match grammar::ModuleParser::new().parse(text, Lexer::new(text)) {
        Ok(module) => return Ok(module),
        Err(error) => error,
    };
    Err(PtxError::new(file, text, vec![diagnostic(text, error)]))
}

/// One lalrpop error as a syntax diagnostic.
fn diagnostic(text: &str, error: Error<'_>) -> Diagnostic {
    match error {
        ParseError::User { error } => *error,
        ParseError::InvalidToken { location } => {
            Diagnostic::syntax(Span::new(location, location), "invalid token")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let message = match expected_words(&expected, true) {
                Some(words) => format!("unexpected end of file, expected {words}"),
                None => "unexpected end of file".to_string(),
            };
            Diagnostic::syntax(Span::new(location, location), message)
        }
        ParseError::UnrecognizedToken {
            token: (l, _, r),
            expected,
        } => {
            let found = shorten(text.get(l..r).unwrap_or(""));
            let message = match expected_words(&expected, false) {
                Some(words) => format!("unexpected `{found}`, expected {words}"),
                None => format!("unexpected `{found}`"),
            };
            Diagnostic::syntax(Span::new(l, r), message)
        }
        ParseError::ExtraToken { token: (l, _, r) } => Diagnostic::syntax(
            Span::new(l, r),
            format!("unexpected `{}`", shorten(text.get(l..r).unwrap_or(""))),
        ),
    }
}

/// Tokens that can start a statement in a function body.
const STATEMENT_START: &[&str] = &[
    "Word",
    "Ident",
    "Space",
    "Ignored",
    "\"@\"",
    "\"{\"",
    "\".pragma\"",
    "\".visible\"",
    "\".extern\"",
    "\".weak\"",
    "\".common\"",
];
/// Tokens that can start a module-scope directive.
const ITEM_START: &[&str] = &[
    "Space",
    "Ignored",
    "\".version\"",
    "\".target\"",
    "\".address_size\"",
    "\".entry\"",
    "\".func\"",
    "\".pragma\"",
    "\".visible\"",
    "\".extern\"",
    "\".weak\"",
    "\".common\"",
];
/// Tokens that can start an instruction operand.
const OPERAND_START: &[&str] = &[
    "Word", "Ident", "Int", "F32", "F64", "\"[\"", "\"{\"", "\"(\"", "\"!\"", "\"-\"", "\"_\"",
];
/// Tokens that can start a variable initializer.
const INIT_START: &[&str] = &["Word", "Ident", "Int", "F32", "F64", "\"{\"", "\"-\""];
/// Tokens that only continue something already complete (a component, an offset, array
/// dimensions, ...); they are left out of the list when a separator or closer is expected too.
const MINOR: &[&str] = &[
    "DotIdent",
    "Space",
    "\".weak\"",
    "\"+\"",
    "\"-\"",
    "\"|\"",
    "\"<\"",
    "\"[\"",
    "\"=\"",
    "\":\"",
    "\".align\"",
];
/// Separators and closers.
const MAJOR: &[&str] = &["\",\"", "\";\"", "\")\"", "\"]\"", "\"}\"", "\">\""];
/// Punctuation in the order it is listed.
const PUNCT_ORDER: &str = ",;:()[]{}<>=+-!@|_";

/// Turns lalrpop's expected-terminal list into a short phrase such as "`,` or `;`" or "an
/// operand". Deterministic: grouped, ranked, deduplicated, at most four entries.
fn expected_words(expected: &[String], at_eof: bool) -> Option<String> {
    let mut set: Vec<&str> = expected.iter().map(String::as_str).collect();
    let has = |set: &[&str], t: &str| set.contains(&t);
    let mut words: Vec<(u32, String)> = Vec::new();
    let mut group = |set: &mut Vec<&str>, members: &[&str], rank: u32, word: &str| {
        set.retain(|t| !members.contains(t));
        words.push((rank, word.to_string()));
    };
    if has(&set, "\"@\"") {
        group(&mut set, STATEMENT_START, 0, "a statement");
    }
    if has(&set, "\".version\"") {
        group(&mut set, ITEM_START, 1, "a directive");
    }
    if has(&set, "Int") && has(&set, "\"[\"") && has(&set, "Word") {
        group(&mut set, OPERAND_START, 2, "an operand");
    }
    if has(&set, "Int") && has(&set, "\"{\"") && has(&set, "Word") {
        group(&mut set, INIT_START, 3, "an initializer");
    }
    if has(&set, "\".align\"") && !set.iter().any(|t| MAJOR.contains(t)) {
        group(&mut set, &["DotIdent", "Space", "\".align\""], 3, "a type");
    }
    if set.iter().any(|t| MAJOR.contains(t)) {
        set.retain(|t| !MINOR.contains(t));
    }
    // At the end of the file the useful advice is what would close the open construct.
    if at_eof
        && set
            .iter()
            .any(|t| matches!(*t, "\"}\"" | "\")\"" | "\"]\""))
    {
        words.clear();
        set.retain(|t| matches!(*t, "\"}\"" | "\")\"" | "\"]\""));
    }
    for t in set {
        let (rank, word) = match t {
            "Word" | "Ident" => (4, "an identifier".to_string()),
            "Int" => (5, "an integer".to_string()),
            "F32" | "F64" => (6, "a float literal".to_string()),
            "Str" => (7, "a string".to_string()),
            "Space" => (8, "a state space".to_string()),
            "DotIdent" => (9, "a qualifier".to_string()),
            "Ignored" => continue,
            quoted => {
                let inner = quoted.trim_matches('"');
                let rank = match PUNCT_ORDER.find(inner) {
                    Some(i) if inner.len() == 1 => 10 + i as u32,
                    _ => 100,
                };
                (rank, format!("`{inner}`"))
            }
        };
        words.push((rank, word));
    }
    words.sort();
    words.dedup();
    let mut words: Vec<String> = words.into_iter().map(|(_, w)| w).collect();
    match words.len() {
        0 => None,
        1 => words.pop(),
        n if n <= 4 => {
            let last = words.pop().unwrap_or_default();
            Some(format!("{} or {last}", words.join(", ")))
        }
        _ => Some(format!("{} or ...", words[..4].join(", "))),
    }
}

/// A user error for the grammar's fallible actions.
fn user<'a>(span: Span, message: impl Into<String>) -> Error<'a> {
    ParseError::User {
        error: Box::new(Diagnostic::syntax(span, message)),
    }
}

/// A number that must fit in 32 bits (`.address_size`, `%r<N>`, `.align N`).
pub(crate) fn small<'a>(n: u64, span: Span) -> Result<u32, Error<'a>> {
    u32::try_from(n).map_err(|_| user(span, "integer literal out of range"))
}

/// `.version X.Y`, from the source text of the number (`8.8` lexes as a float).
pub(crate) fn version<'a>(
    number: &str,
    number_span: Span,
    span: Span,
) -> Result<Item<'a>, Error<'a>> {
    let parsed = number
        .split_once('.')
        .and_then(|(major, minor)| Some((major.parse().ok()?, minor.parse().ok()?)));
    match parsed {
        Some((major, minor)) => Ok(Item::Version { major, minor, span }),
        None => Err(user(
            number_span,
            format!(
                "invalid version `{}`, expected `major.minor`",
                shorten(number)
            ),
        )),
    }
}

/// `generic(sym)+off` in an initializer; any other word before `(` is an error.
pub(crate) fn generic_init<'a>(
    word: &'a str,
    word_span: Span,
    name: &'a str,
    offset: i64,
    span: Span,
) -> Result<Init<'a>, Error<'a>> {
    if word == "generic" {
        Ok(Init::Generic { name, offset, span })
    } else {
        Err(user(
            word_span,
            format!("unexpected `{}`, expected `generic`", shorten(word)),
        ))
    }
}

/// Whether a dotted word names a PTX fundamental or opaque type.
fn is_type(name: &str) -> bool {
    matches!(
        name,
        "b8" | "b16"
            | "b32"
            | "b64"
            | "b128"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f16x2"
            | "bf16"
            | "bf16x2"
            | "tf32"
            | "f32"
            | "f64"
            | "e4m3"
            | "e5m2"
            | "e4m3x2"
            | "e5m2x2"
            | "pred"
            | "texref"
            | "samplerref"
            | "surfref"
    )
}

/// `.vN` → N.
fn vector_width(name: &str) -> Option<u32> {
    name.strip_prefix('v').and_then(|n| n.parse().ok())
}

/// Builds a [`VarDecl`], sorting the attributes in `text[attrs.0..attrs.1]` (see the module
/// docs). The grammar only lets dotted words and `.align N` into that range.
pub(crate) fn build_decl<'a>(
    text: &'a str,
    linkage: Option<Spanned<Linkage>>,
    space: Spanned<&'a str>,
    attrs: (usize, usize),
    names: Vec<DeclName<'a>>,
    span: Span,
) -> Result<VarDecl<'a>, Error<'a>> {
    let mut decl = VarDecl {
        linkage,
        space,
        align: None,
        vec: None,
        ty: Spanned::new("", span),
        attrs: Vec::new(),
        names,
        span,
    };
    let mut has_type = false;
    let mut pointer = false;
    let base = attrs.0;
    let mut tokens = Token::lexer(text.get(attrs.0..attrs.1).unwrap_or(""));
    while let Some(token) = tokens.next() {
        let at = tokens.span();
        match token {
            Ok(Token::DotIdent(value) | Token::Space(value)) => {
                let name = Spanned::new(value, Span::new(base + at.start + 1, base + at.end));
                match vector_width(value) {
                    Some(width) if !has_type && decl.vec.is_none() => {
                        decl.vec = Some(Spanned::new(width, name.span))
                    }
                    _ if !has_type && is_type(value) => {
                        decl.ty = name;
                        has_type = true;
                    }
                    _ => {
                        pointer |= value == "ptr";
                        decl.attrs.push(name);
                    }
                }
            }
            Ok(Token::Align) => {
                let Some(Ok(Token::Int(value))) = tokens.next() else {
                    continue;
                };
                let number = tokens.span();
                let value_span = Span::new(base + number.start, base + number.end);
                if pointer {
                    // `.align` after `.ptr` describes the pointee: keep it as `align N`.
                    let (start, end) = (base + at.start + 1, base + number.end);
                    decl.attrs
                        .push(Spanned::new(&text[start..end], Span::new(start, end)));
                } else {
                    decl.align = Some(Spanned::new(small(value, value_span)?, value_span));
                }
            }
            _ => {}
        }
    }
    if !has_type {
        let at = decl.names.first().map_or(span, |n| n.name.span);
        return Err(user(
            at,
            format!("missing type in `.{}` declaration", decl.space.value),
        ));
    }
    Ok(decl)
}
