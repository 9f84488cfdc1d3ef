//! Diagnostics: errors that name file, line and column, show the offending source line and say
//! what was expected.
//!
//! Rendered form (the first line is what tests compare against):
//!
//! ```text
//! saxpy.ptx:12:5: error: unknown opcode `ad`
//!    |
//! 12 |     ad.s32 %r1, %r2, %r3;
//!    |     ^^
//!    = help: ...
//! ```

use crate::ast::Span;
use std::fmt;

/// What kind of problem a diagnostic reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagKind {
    /// The text is not PTX (lexing and parsing).
    Syntax,
    /// The text parses but is not valid PTX (undefined names, bad types, ...).
    Semantic,
    /// Valid PTX that warpsim does not support; message starts with `unsupported:`.
    Unsupported,
}

/// One problem at one place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagKind,
    /// A lowercase fragment without a trailing period.
    pub message: String,
    pub span: Span,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn syntax(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::Syntax,
            message: message.into(),
            span,
            help: None,
        }
    }

    pub fn semantic(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::Semantic,
            message: message.into(),
            span,
            help: None,
        }
    }

    /// An `unsupported: <what>` diagnostic.
    pub fn unsupported(span: Span, what: impl fmt::Display) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::Unsupported,
            message: format!("unsupported: {what}"),
            span,
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { line_starts }
    }

    /// 1-based (line, column) of a byte offset; the column counts bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }

    /// Byte range of a 1-based line, without its newline.
    fn line_range(&self, line: u32, text_len: usize) -> (usize, usize) {
        let start = self.line_starts[line as usize - 1] as usize;
        let end = self
            .line_starts
            .get(line as usize)
            .map_or(text_len, |&s| s as usize - 1);
        (start, end)
    }
}

/// Errors from reading a PTX file: one or more diagnostics with the text they refer to.
#[derive(Clone, Debug)]
pub struct PtxError {
    pub file: String,
    pub source_text: std::sync::Arc<str>,
    pub diagnostics: Vec<Diagnostic>,
}

impl PtxError {
    pub fn new(
        file: impl Into<String>,
        source_text: impl Into<std::sync::Arc<str>>,
        diagnostics: Vec<Diagnostic>,
    ) -> PtxError {
        PtxError {
            file: file.into(),
            source_text: source_text.into(),
            diagnostics,
        }
    }

    /// The first line of each diagnostic: `file:line:col: error: message`.
    pub fn headlines(&self) -> Vec<String> {
        let index = LineIndex::new(&self.source_text);
        self.diagnostics
            .iter()
            .map(|d| self.headline(&index, d))
            .collect()
    }

    fn headline(&self, index: &LineIndex, d: &Diagnostic) -> String {
        let (line, col) = index.line_col(d.span.start);
        format!("{}:{line}:{col}: error: {}", self.file, d.message)
    }

    /// Whether every diagnostic is an `unsupported:` one.
    pub fn is_unsupported(&self) -> bool {
        self.diagnostics
            .iter()
            .all(|d| d.kind == DiagKind::Unsupported)
    }

    /// Full rendering with source snippets, one block per diagnostic.
    pub fn render(&self) -> String {
        let index = LineIndex::new(&self.source_text);
        let mut out = String::new();
        for d in &self.diagnostics {
            let (line, col) = index.line_col(d.span.start);
            let (ls, le) = index.line_range(line, self.source_text.len());
            let text = &self.source_text[ls..le];
            let gutter = line.to_string().len();
            let width = (d.span.end.saturating_sub(d.span.start) as usize)
                .clamp(1, (le - ls + 1).saturating_sub(col as usize - 1).max(1));
            out += &self.headline(&index, d);
            out += &format!(
                "\n{:gutter$} |\n{line} | {text}\n{:gutter$} | {}{}\n",
                "",
                "",
                " ".repeat(col as usize - 1),
                "^".repeat(width)
            );
            if let Some(help) = &d.help {
                out += &format!("{:gutter$} = help: {help}\n", "");
            }
        }
        out
    }
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for PtxError {}
