//! Progress bars of long commands (`run` and `characterize` over several samples or at the
//! large size, `rf`), on standard error and only where a person watches them.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// What a command prints while it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Results {
    /// Results appear on standard output as the work goes (a line per sample): a bar on the
    /// same terminal would tear them, so it is drawn only when standard output goes elsewhere
    /// (a file, a pipe), and there the bar is the only sign of progress.
    AsTheyCome,
    /// Results appear at the end.
    AtTheEnd,
}

/// A bar over `len` steps of `what`, drawn on standard error when it is a terminal (and
/// standard output is not, for [`Results::AsTheyCome`]), hidden otherwise or when `quiet`. It
/// ticks on its own, so its clock moves during a long step.
pub(crate) fn bar(len: u64, what: &str, results: Results, quiet: bool) -> ProgressBar {
    let watched = std::io::stderr().is_terminal()
        && (results == Results::AtTheEnd || !std::io::stdout().is_terminal());
    let bar = ProgressBar::with_draw_target(
        Some(len),
        if quiet || !watched {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}, {{elapsed}} {{wide_msg}}"
        ))
        .expect("a valid template"),
    );
    if !bar.is_hidden() {
        bar.enable_steady_tick(std::time::Duration::from_secs(1));
    }
    bar
}
