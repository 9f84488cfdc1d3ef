//! Recording a timing run for people to look at: the spans of each warp's instructions and
//! each CTA (a Perfetto / Chrome trace, [`Trace::write_json`]) and a timeline of counters
//! sampled as the run goes (IPC, resident warps, busy collector units, cache misses), which
//! the trace's counter tracks and the command line's plots draw.
//!
//! Recording observes; it never changes what is simulated. With nothing asked for, the SMs
//! hold no recorder and the cycle loop samples nothing: a timing run pays one branch per hook.
//!
//! Time is in cycles of the SM clock, continuing across launches as the timing model's clock
//! does. Each recorder is bounded: spans outside [`TraceOptions::window`] are not kept, and an
//! SM stops recording once it holds its share of [`TraceOptions::max_events`] (noted in the
//! trace); the timeline keeps at most [`TIMELINE_SAMPLES`] samples, merging neighbours as the
//! run grows.

mod json;
mod record;
mod timeline;

pub(crate) use record::SmTrace;
pub use record::{Span, SpanKind};
pub(crate) use timeline::TimelineSampler;
pub use timeline::{TIMELINE_SAMPLES, Timeline, TimelineSample};

use std::collections::HashMap;

/// What a trace records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    /// Cycles recorded: spans are clipped to `start..end` and those outside it dropped.
    pub window: std::ops::Range<u64>,
    /// Most spans kept over all SMs (each SM keeps at most its equal share).
    pub max_events: usize,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            window: 0..u64::MAX,
            max_events: 1_000_000,
        }
    }
}

/// What a timing run records besides its statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recording {
    /// Spans for a trace viewer.
    pub trace: Option<TraceOptions>,
    /// The timeline of counters (a trace implies it).
    pub timeline: bool,
}

impl Recording {
    /// Whether anything is recorded.
    pub fn any(&self) -> bool {
        self.trace.is_some() || self.timeline
    }
}

/// One SM's spans of one launch, as the GPU collects them.
#[derive(Clone, Debug, Default)]
pub struct SmSpans {
    pub sm: u32,
    pub spans: Vec<Span>,
}

/// Everything recorded over the launches of a run.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub options: TraceOptions,
    /// The GPU preset's name.
    pub config: String,
    /// Spans by SM and launch, in the order they were collected.
    pub spans: Vec<SmSpans>,
    /// Names the spans refer to (an instruction's mnemonic, `CTA (x, y, z)`), by index.
    pub names: Vec<String>,
    name_index: HashMap<String, u32>,
    /// Launches: kernel name, first cycle, last cycle.
    pub launches: Vec<(String, u64, u64)>,
    /// SMs that stopped recording when they reached their share of `max_events`: (launch,
    /// SM, cycle).
    pub truncated: Vec<(usize, u32, u64)>,
    /// Spans dropped because a warp had too many of one kind in flight to lay out.
    pub dropped: u64,
    /// Counters over time.
    pub timeline: Timeline,
}

impl Trace {
    /// An empty trace of a run on `config`.
    pub fn new(options: TraceOptions, config: &str) -> Trace {
        Trace {
            options,
            config: config.to_string(),
            ..Trace::default()
        }
    }

    /// The index of `name` among [`Trace::names`], added if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.name_index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_index.insert(name.to_string(), i);
        i
    }

    /// Spans kept, over every SM and launch.
    pub fn span_count(&self) -> usize {
        self.spans.iter().map(|s| s.spans.len()).sum()
    }
}

impl Trace {
    /// Takes the spans the SMs recorded in a launch of `kernel` from cycle `start` to `end`,
    /// naming them (an instruction by its mnemonic, a CTA by its coordinates).
    pub(crate) fn collect_spans(
        &mut self,
        program: &emulator::Program,
        sms: &mut [crate::sm::Sm<'_>],
        kernel: &str,
        start: u64,
        end: u64,
    ) {
        let launch = self.launches.len();
        self.launches.push((kernel.to_string(), start, end));
        for sm in sms {
            let Some(t) = sm.trace.take() else { continue };
            if let Some(cycle) = t.truncated_at {
                self.truncated.push((launch, sm.id, cycle));
            }
            self.dropped += t.dropped;
            if t.spans.is_empty() {
                continue;
            }
            let names: Vec<u32> = t
                .labels
                .iter()
                .map(|label| {
                    let text = match *label {
                        record::Label::Inst { func, pc } => program.code[func as usize].insts
                            [pc as usize]
                            .op
                            .to_string(),
                        record::Label::Cta([x, y, z]) => format!("CTA ({x}, {y}, {z})"),
                    };
                    self.intern(&text)
                })
                .collect();
            let spans = t
                .spans
                .into_iter()
                .map(|s| Span {
                    name: names[s.name as usize],
                    ..s
                })
                .collect();
            self.spans.push(SmSpans { sm: sm.id, spans });
        }
    }
}
