//! PTX tokens (logos) and the adapter that feeds them to the lalrpop grammar.
//!
//! Design choices that the grammar relies on:
//!
//! - Tokens borrow from the source; nothing is allocated per token. Dotted words are one token
//!   without their dot (`.shared::cta` → `DotIdent("shared::cta")`), except the directives that
//!   start a construct (`.version`, `.entry`, `.align`, ...) and the state spaces, which get their
//!   own tokens so the grammar stays LR(1).
//! - Identifiers come in two classes: [`Token::Word`] starts with a letter and can be an opcode,
//!   a label or a symbol; [`Token::Ident`] starts with `%`, `$` or `_` and can never be an opcode.
//!   The grammar decides by position. The split lets `$L__BB0_2 ret;` (a label without its colon)
//!   fail where the colon is missing instead of parsing as an instruction named `$L__BB0_2`.
//! - Every number-like run (`0x1F`, `017`, `0b101`, `42U`, `0f3F800000`, `0d...`, `1.5`, `1e-3`)
//!   is lexed greedily as one token and classified by [`classify_number`], so that a malformed
//!   literal such as `0fZZ` is reported as such rather than as two unrelated tokens.
//! - Debug-only directives are skipped here: `.loc` and `.file` up to the end of their line (they
//!   have no `;`, and newer NVCC appends `, function_name ..., inlined_at ...`), `.section` up to
//!   its matching `}`. They surface as [`Token::Ignored`].

use crate::ast::Span;
use crate::diag::Diagnostic;
use logos::Logos;

/// Why lexing failed; turned into a message by [`Lexer`].
///
/// `repr(u64)` is for speed: in `Result<Token, LexError>` a one-byte error would share offset 8
/// with the tokens' payloads, and LLVM then copies tokens in pieces that straddle the lexer's
/// stores (a store-forwarding stall on every token, about 15% of parse time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u64)]
pub enum LexError {
    /// No token matches here.
    #[default]
    Invalid,
    /// A number-like run that is no valid integer.
    BadInteger,
    /// An integer that does not fit in 64 bits.
    IntegerRange,
    /// `0f` not followed by exactly 8 hex digits.
    BadF32,
    /// `0d` not followed by exactly 16 hex digits.
    BadF64,
    /// A malformed decimal float.
    BadFloat,
    /// A decimal float too large for f64.
    FloatRange,
    /// `/*` without `*/`.
    UnterminatedComment,
    /// `.section` without its closing `}`.
    UnterminatedSection,
}

/// A numeric literal, already decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    /// An integer's 64-bit value (the sign is a separate `-` token).
    Int(u64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float: the bits of an f64.
    F64(u64),
}

/// A PTX token.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
#[logos(skip(r"/\*", block_comment))]
pub enum Token<'a> {
    /// `.version`
    #[token(".version", priority = 20)]
    Version,
    /// `.target`
    #[token(".target", priority = 20)]
    Target,
    /// `.address_size`
    #[token(".address_size", priority = 20)]
    AddressSize,
    /// `.visible`
    #[token(".visible", priority = 20)]
    Visible,
    /// `.extern`
    #[token(".extern", priority = 20)]
    Extern,
    /// `.weak` (also a memory-order qualifier of `ld`/`st`)
    #[token(".weak", priority = 20)]
    Weak,
    /// `.common`
    #[token(".common", priority = 20)]
    Common,
    /// `.entry`
    #[token(".entry", priority = 20)]
    Entry,
    /// `.func`
    #[token(".func", priority = 20)]
    Func,
    /// `.align`
    #[token(".align", priority = 20)]
    Align,
    /// `.pragma`
    #[token(".pragma", priority = 20)]
    Pragma,
    /// `.callprototype`
    #[token(".callprototype", priority = 20)]
    CallPrototype,
    /// `.calltargets`
    #[token(".calltargets", priority = 20)]
    CallTargets,
    /// A state space without its dot, with any `::` sub-qualifier: `shared`, `param::entry`, ...
    #[regex(r"\.(reg|sreg|const|global|local|param|shared|tex)(::[a-zA-Z0-9_$]+)*", |lex| &lex.slice()[1..], priority = 10)]
    Space(&'a str),
    /// Any other dotted word without its dot: a modifier (`rn`, `shared::cta`, `1d`), a type, a
    /// vector width, a component (`x` of `%tid.x`) or a tuning directive (`maxntid`).
    #[regex(r"\.[a-zA-Z0-9_$]+(::[a-zA-Z0-9_$]+)*", |lex| &lex.slice()[1..])]
    DotIdent(&'a str),
    /// A skipped debug directive (`loc`, `file`, `section`); its span covers what was skipped.
    #[regex(r"\.(loc|file)", line_directive, priority = 20)]
    #[token(".section", section, priority = 20)]
    Ignored(&'a str),
    /// A letter-initial identifier: opcode, label, symbol or target name.
    #[regex(r"[a-zA-Z][a-zA-Z0-9_$]*")]
    Word(&'a str),
    /// An identifier starting with `%`, `$` or `_`: register, label or symbol.
    #[regex(r"[_$%][a-zA-Z0-9_$]+")]
    Ident(&'a str),
    /// An integer literal's 64-bit value (the sign is a separate `-` token).
    Int(u64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float: the bits of an f64.
    F64(u64),
    /// Never produced: its patterns' callback classifies the literal into [`Token::Int`],
    /// [`Token::F32`] or [`Token::F64`].
    #[regex(r"[0-9][0-9a-zA-Z_$]*", number)]
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?", number)]
    #[regex(r"[0-9]+[eE][+-][0-9]+", number)]
    #[doc(hidden)]
    NumberLiteral,
    /// A string literal, without its quotes (escapes are kept as written).
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |lex| { let s = lex.slice(); &s[1..s.len() - 1] })]
    Str(&'a str),
    /// `_`
    #[token("_")]
    Sink,
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `!`
    #[token("!")]
    Bang,
    /// `@`
    #[token("@")]
    At,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `=`
    #[token("=")]
    Eq,
    /// `|`
    #[token("|")]
    Pipe,
}

/// Classifies a number-like run into a token.
fn number<'a>(lex: &mut logos::Lexer<'a, Token<'a>>) -> Result<Token<'a>, LexError> {
    Ok(match classify_number(lex.slice())? {
        Number::Int(v) => Token::Int(v),
        Number::F32(v) => Token::F32(v),
        Number::F64(v) => Token::F64(v),
    })
}

/// Skips a `/* ... */` comment (PTX comments do not nest).
fn block_comment<'a>(lex: &mut logos::Lexer<'a, Token<'a>>) -> Result<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            Ok(())
        }
        None => {
            lex.bump(lex.remainder().len());
            Err(LexError::UnterminatedComment)
        }
    }
}

/// Skips the rest of a `.loc` / `.file` line.
fn line_directive<'a>(lex: &mut logos::Lexer<'a, Token<'a>>) -> &'a str {
    let name = &lex.slice()[1..];
    let rest = lex.remainder();
    lex.bump(rest.find('\n').unwrap_or(rest.len()));
    name
}

/// Skips `.section name { ... }`, counting braces outside strings and comments.
fn section<'a>(lex: &mut logos::Lexer<'a, Token<'a>>) -> Result<&'a str, LexError> {
    let rest = lex.remainder().as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'{' => depth += 1,
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    lex.bump(i + 1);
                    return Ok("section");
                }
            }
            b'"' => {
                i += 1;
                while i < rest.len() && rest[i] != b'"' && rest[i] != b'\n' {
                    i += if rest[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if rest.get(i + 1) == Some(&b'/') => {
                while i < rest.len() && rest[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if rest.get(i + 1) == Some(&b'*') => match lex.remainder()[i + 2..].find("*/") {
                Some(end) => i += end + 3,
                None => break,
            },
            // A `;` or `}` before the opening brace means there is no block to skip.
            b';' | b'}' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    lex.bump(rest.len().min(i));
    Err(LexError::UnterminatedSection)
}

/// Decodes a number-like run: integers (decimal, `0x` hex, leading-`0` octal, `0b` binary, each
/// with an optional `U` suffix), `0f`/`0d` float bit patterns and decimal floats.
pub fn classify_number(s: &str) -> Result<Number, LexError> {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return int_radix(&s[2..], 16).map(Number::Int),
            b'b' | b'B' => return int_radix(&s[2..], 2).map(Number::Int),
            b'f' | b'F' => {
                return hex_bits(&s[2..], 8)
                    .map(|v| Number::F32(v as u32))
                    .ok_or(LexError::BadF32);
            }
            b'd' | b'D' => {
                return hex_bits(&s[2..], 16)
                    .map(Number::F64)
                    .ok_or(LexError::BadF64);
            }
            _ => {}
        }
    }
    if b.iter().any(|&c| matches!(c, b'.' | b'e' | b'E')) {
        let v: f64 = s.parse().map_err(|_| LexError::BadFloat)?;
        return if v.is_finite() {
            Ok(Number::F64(v.to_bits()))
        } else {
            Err(LexError::FloatRange)
        };
    }
    if b.len() >= 2 && b[0] == b'0' {
        return int_radix(&s[1..], 8).map(Number::Int);
    }
    int_radix(s, 10).map(Number::Int)
}

/// Parses digits in `radix` with an optional `U` suffix; all digits are checked before overflow
/// so that `99999999999999999999x` is an invalid literal, not an out-of-range one.
fn int_radix(digits: &str, radix: u32) -> Result<u64, LexError> {
    let digits = digits.strip_suffix(['U', 'u']).unwrap_or(digits);
    if digits.is_empty() || !digits.bytes().all(|c| (c as char).is_digit(radix)) {
        return Err(LexError::BadInteger);
    }
    digits.bytes().try_fold(0u64, |acc, c| {
        let d = (c as char).to_digit(radix).unwrap_or(0) as u64;
        acc.checked_mul(radix as u64)
            .and_then(|v| v.checked_add(d))
            .ok_or(LexError::IntegerRange)
    })
}

/// Exactly `len` hex digits.
fn hex_bits(digits: &str, len: usize) -> Option<u64> {
    if digits.len() != len || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// Deepest nesting of `{`/`(`/`[` accepted. Real PTX nests a handful of levels (call-sequence
/// scopes, `[tex, {coords}]`, initializers of multi-dimensional arrays). The bound keeps the
/// recursive AST shallow for dropping, comparing and lowering, whose recursion uses the stack.
pub const MAX_NESTING: u32 = 32;

/// The token stream in the form lalrpop's external-lexer interface expects: `(start, token,
/// end)` triples, or a syntax [`Diagnostic`]. The parser stops at the first error.
///
/// The diagnostic is boxed to keep the item small: with an inline `Diagnostic` every token is
/// copied through a 64-byte niche-packed layout, which measurably slows parsing (~20%).
pub struct Lexer<'a> {
    inner: logos::Lexer<'a, Token<'a>>,
    depth: u32,
}

impl<'a> Lexer<'a> {
    /// A lexer over the whole of `text`.
    pub fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            inner: Token::lexer(text),
            depth: 0,
        }
    }

    #[cold]
    fn error(&self, error: LexError, span: std::ops::Range<usize>) -> Diagnostic {
        let text = self.inner.source();
        let start = span.start.min(text.len());
        let slice = text.get(start..span.end).unwrap_or("");
        let message = match error {
            LexError::Invalid => match text.get(start..).and_then(|t| t.chars().next()) {
                Some('"') => {
                    return Diagnostic::syntax(
                        Span::new(start, start + 1),
                        "unterminated string literal",
                    );
                }
                Some(c) => {
                    return Diagnostic::syntax(
                        Span::new(start, start + c.len_utf8()),
                        format!("invalid token `{}`", c.escape_debug()),
                    );
                }
                None => "unexpected end of file".to_string(),
            },
            LexError::BadInteger => format!("invalid integer literal `{}`", shorten(slice)),
            LexError::IntegerRange => "integer literal out of range".to_string(),
            LexError::BadF32 => format!("invalid f32 literal `{}`", shorten(slice)),
            LexError::BadF64 => format!("invalid f64 literal `{}`", shorten(slice)),
            LexError::BadFloat => format!("invalid float literal `{}`", shorten(slice)),
            LexError::FloatRange => "float literal out of range".to_string(),
            LexError::UnterminatedComment => {
                return Diagnostic::syntax(
                    Span::new(start, start + 2),
                    "unterminated block comment",
                );
            }
            LexError::UnterminatedSection => {
                return Diagnostic::syntax(
                    Span::new(start, start + ".section".len()),
                    "unterminated `.section` block",
                );
            }
        };
        Diagnostic::syntax(Span::new(start, span.end.max(start)), message)
    }
}

/// The first line of a token's text, cut to a readable length.
pub fn shorten(s: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 24;
    let line = s.lines().next().unwrap_or("").trim_end();
    if line.len() <= MAX && line.len() == s.len() {
        return line.into();
    }
    let mut cut = line.len().min(MAX);
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &line[..cut]).into()
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<(usize, Token<'a>, usize), Box<Diagnostic>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let token = self.inner.next()?;
        let span = self.inner.span();
        match token {
            Ok(token @ (Token::LBrace | Token::LParen | Token::LBracket)) => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Some(Err(Box::new(Diagnostic::syntax(
                        Span::new(span.start, span.end),
                        "nesting too deep",
                    ))));
                }
                Some(Ok((span.start, token, span.end)))
            }
            Ok(token @ (Token::RBrace | Token::RParen | Token::RBracket)) => {
                self.depth = self.depth.saturating_sub(1);
                Some(Ok((span.start, token, span.end)))
            }
            Ok(token) => Some(Ok((span.start, token, span.end))),
            Err(error) => Some(Err(Box::new(self.error(error, span)))),
        }
    }
}
