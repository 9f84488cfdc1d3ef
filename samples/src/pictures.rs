//! `--trace` and `--plots` of `warpsim run` and `run-ptx`: what a timing run records besides
//! its statistics, and writing it out (a Perfetto trace, SVG charts).

use runtime::{Device, TimingReport};
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use timing::trace::{Recording, TraceOptions};

/// The trace and plot options.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct PicturesArgs {
    /// Write a trace of the timing run to this JSON file, for ui.perfetto.dev (or
    /// chrome://tracing): per SM a track per warp slot with the cycle each instruction issued,
    /// and tracks with the cycles it waited in its collector unit, executed, or had memory
    /// outstanding; each CTA's residency per CTA slot; the launches; and counters over time
    /// (IPC, resident warps, busy collector units, L1 and L2 misses). One cycle shows as 1 µs.
    /// Needs the timing model and a single sample.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// With --trace: record only cycles START to END, END excluded (`1000:5000`; either may be
    /// left out: `1000:` or `:5000`). Counters cover the whole run.
    #[arg(long, value_name = "START:END", value_parser = parse_window, requires = "trace")]
    pub trace_window: Option<Range<u64>>,
    /// With --trace: the most spans recorded, over all SMs; each SM stops at its equal share
    /// and the trace notes where.
    #[arg(long, value_name = "N", default_value_t = TraceOptions::default().max_events, requires = "trace")]
    pub trace_max_events: usize,
    /// Draw SVG charts of the timing run into this directory (made if missing): scheduler
    /// outcomes per kernel (stalls.svg), register operand widths per opcode class
    /// (widths.svg), reads and writes per register bank (banks.svg), cache hit rates per
    /// kernel (caches.svg), and IPC and collector occupancy over time (ipc.svg,
    /// collectors.svg). With several samples, a subdirectory per sample.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// Parses `START:END`, either side optional.
fn parse_window(text: &str) -> Result<Range<u64>, String> {
    let (start, end) = text
        .split_once(':')
        .ok_or("expected START:END in cycles (either may be left out)")?;
    let number = |s: &str, default: u64| {
        if s.is_empty() {
            Ok(default)
        } else {
            s.parse::<u64>().map_err(|e| format!("`{s}`: {e}"))
        }
    };
    let window = number(start, 0)?..number(end, u64::MAX)?;
    if window.is_empty() {
        return Err(format!("the window {text} holds no cycle"));
    }
    Ok(window)
}

impl PicturesArgs {
    /// Whether anything is asked for.
    pub(crate) fn any(&self) -> bool {
        self.trace.is_some() || self.plots.is_some()
    }

    /// What the timing model must record; an error when pictures are asked of a functional
    /// run (`timing` false) or a trace of several samples, or when the trace file or a chart
    /// could not be written (found now, not after the simulation).
    pub(crate) fn recording(&self, timing: bool, samples: usize) -> Result<Recording, String> {
        if self.any() && !timing {
            return Err("error: --trace and --plots draw a timing run: they need the timing model (not --functional)".into());
        }
        if self.trace.is_some() && samples > 1 {
            return Err(format!(
                "error: --trace records one run: name a single sample (this selection has {samples})"
            ));
        }
        self.check_outputs()
            .map_err(|e| format!("error: {e} (checked before the run)"))?;
        Ok(Recording {
            trace: self.trace.as_ref().map(|_| TraceOptions {
                window: self.trace_window.clone().unwrap_or(0..u64::MAX),
                max_events: self.trace_max_events.max(1),
            }),
            timeline: self.plots.is_some(),
        })
    }

    /// Checks that the trace and the charts can be written: the plot directory is made, and
    /// each chart's path (with one sample; several write into subdirectories made later) and
    /// the trace's must be writable.
    fn check_outputs(&self) -> Result<(), String> {
        if let Some(path) = &self.trace {
            crate::output::check_writable(path)?;
        }
        if let Some(dir) = &self.plots {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            for file in crate::plots::run::FILES {
                crate::output::check_writable(&dir.join(file))?;
            }
        }
        Ok(())
    }

    /// Writes what `dev` recorded for the run whose statistics are `report`: the trace, and
    /// the plots (into `subdir` of the plot directory, when given). Prints where.
    pub(crate) fn write(
        &self,
        dev: &Device,
        report: &TimingReport,
        title: &str,
        subdir: Option<&str>,
    ) -> Result<(), String> {
        if !self.any() {
            return Ok(());
        }
        let recorded = dev
            .take_recording()
            .ok_or("error: the timing model recorded nothing")?;
        if let Some(path) = &self.trace {
            crate::output::write_whole(path, |temp| {
                let file = std::fs::File::create(temp)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                let mut out = std::io::BufWriter::new(file);
                recorded
                    .write_json(&mut out)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))
            })
            .map_err(|e| format!("error: {e}"))?;
            let truncated = if recorded.truncated.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} SM(s) reached their share of --trace-max-events and stopped recording",
                    recorded.truncated.len()
                )
            };
            println!(
                "  trace: {} ({} spans{truncated})",
                path.display(),
                recorded.span_count()
            );
        }
        if let Some(dir) = &self.plots {
            let dir = subdir.map_or_else(|| dir.clone(), |s| dir.join(s));
            crate::plots::run::write(
                &dir,
                title,
                &report.kernels,
                &report.total,
                &recorded.timeline,
            )?;
            println!("  plots: {}", dir.display());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_with_either_end_left_out() {
        assert_eq!(parse_window("10:20"), Ok(10..20));
        assert_eq!(parse_window("10:"), Ok(10..u64::MAX));
        assert_eq!(parse_window(":20"), Ok(0..20));
        assert!(
            parse_window("20:10")
                .unwrap_err()
                .contains("holds no cycle")
        );
        assert!(parse_window("20").unwrap_err().contains("START:END"));
        assert!(parse_window("x:10").unwrap_err().contains("`x`"));
    }
}
