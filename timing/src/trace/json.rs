//! The trace in the Chrome trace event format's JSON object form, which ui.perfetto.dev and
//! chrome://tracing open: a process per SM, a thread (track) per warp slot and kind of span
//! and lane (and per CTA slot), complete events for the spans, counter events for the
//! timeline, and a "GPU" process with the launches.
//!
//! Timestamps are cycles written as microseconds (the format's unit): the viewer's 1 µs is
//! one SM cycle. Written as a stream: a trace of a million spans never exists as a JSON value.

use super::{SpanKind, TimelineSample, Trace};
use std::fmt::Display;
use std::io::{self, Write};

/// The GPU process (launches and counters); SM `i` is process `i + 1`.
const GPU_PID: u32 = 0;

/// The track of a span: CTA slots first, then per warp slot its issue, collect, execute and
/// memory lanes. The track's number is also its place in the viewer.
fn tid(kind: SpanKind, slot: u16, lane: u8) -> u32 {
    match kind {
        SpanKind::Cta => u32::from(slot),
        k => 100 + u32::from(slot) * 100 + k as u32 * 16 + u32::from(lane),
    }
}

fn track_name(kind: SpanKind, slot: u16, lane: u8) -> String {
    match kind {
        SpanKind::Cta => format!("CTA slot {slot}"),
        SpanKind::Issue if lane == 0 => format!("warp {slot} issue"),
        k => format!("warp {slot} {} {}", k.name(), lane + 1),
    }
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// The `traceEvents` array, written an event at a time.
struct Events<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<W: Write> Events<'_, W> {
    fn event(&mut self, text: impl Display) -> io::Result<()> {
        let separator = if self.first { "\n" } else { ",\n" };
        self.first = false;
        write!(self.out, "{separator}{text}")
    }

    /// A metadata event (`name` of a process, or of its thread `tid`) with its `args`.
    fn meta(
        &mut self,
        pid: u32,
        tid: Option<u32>,
        name: &str,
        args: impl Display,
    ) -> io::Result<()> {
        let tid = tid.map(|t| format!(",\"tid\":{t}")).unwrap_or_default();
        self.event(format_args!(
            "{{\"ph\":\"M\",\"pid\":{pid}{tid},\"name\":\"{name}\",\"args\":{args}}}"
        ))
    }

    /// A complete event: `name` from `ts` for `dur` cycles on track (`pid`, `tid`).
    fn slice(
        &mut self,
        pid: u32,
        tid: u32,
        cat: &str,
        name: &str,
        ts: u64,
        dur: u64,
    ) -> io::Result<()> {
        self.event(format_args!(
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"cat\":\"{cat}\",\"name\":{},\"ts\":{ts},\"dur\":{dur}}}",
            quoted(name)
        ))
    }

    /// A counter's value from `ts` on.
    fn counter(&mut self, name: &str, ts: u64, value: f64) -> io::Result<()> {
        self.event(format_args!(
            "{{\"ph\":\"C\",\"pid\":{GPU_PID},\"name\":\"{name}\",\"ts\":{ts},\"args\":{{\"value\":{value:.4}}}}}"
        ))
    }
}

/// The counter tracks drawn from a timeline sample, with their values over it.
fn counters(s: &TimelineSample) -> [(&'static str, f64); 5] {
    let per_cycle = |x: u64| x as f64 / s.cycles.max(1) as f64;
    [
        ("IPC", s.ipc()),
        ("resident warps", per_cycle(s.resident_warp_cycles)),
        ("collector units busy", per_cycle(s.busy_collector_cycles)),
        (
            "L1D misses per 1000 cycles",
            1000.0 * per_cycle(s.l1d_misses),
        ),
        ("L2 misses per 1000 cycles", 1000.0 * per_cycle(s.l2_misses)),
    ]
}

impl Trace {
    /// Writes the trace as Chrome trace event JSON.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        let end = self.options.window.end;
        let truncated: Vec<String> = self
            .truncated
            .iter()
            .map(|(launch, sm, cycle)| {
                format!("{{\"launch\":{launch},\"sm\":{sm},\"cycle\":{cycle}}}")
            })
            .collect();
        write!(
            out,
            "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"generator\":\"warpsim timing trace\",\
             \"config\":{},\"time_unit\":\"1 us in the viewer is 1 SM cycle\",\
             \"window\":[{},{}],\"max_events\":{},\"spans\":{},\"truncated\":[{}],\
             \"dropped\":{}}},\"traceEvents\":[",
            quoted(&self.config),
            self.options.window.start,
            if end == u64::MAX {
                "null".to_string()
            } else {
                end.to_string()
            },
            self.options.max_events,
            self.span_count(),
            truncated.join(","),
            self.dropped,
        )?;
        let mut events = Events { out, first: true };
        events.meta(GPU_PID, None, "process_name", "{\"name\":\"GPU\"}")?;
        events.meta(GPU_PID, Some(0), "thread_name", "{\"name\":\"launches\"}")?;
        for (kernel, start, end) in &self.launches {
            events.slice(GPU_PID, 0, "launch", kernel, *start, end - start)?;
        }
        // Each SM's process and tracks are named once, whichever launches they appear in.
        let mut sms: Vec<u32> = self.spans.iter().map(|s| s.sm).collect();
        sms.sort_unstable();
        sms.dedup();
        for &sm in &sms {
            let pid = sm + 1;
            events.meta(
                pid,
                None,
                "process_name",
                format_args!("{{\"name\":\"SM {sm}\"}}"),
            )?;
            events.meta(
                pid,
                None,
                "process_sort_index",
                format_args!("{{\"sort_index\":{pid}}}"),
            )?;
            let mut tracks: Vec<(SpanKind, u16, u8)> = self
                .spans
                .iter()
                .filter(|s| s.sm == sm)
                .flat_map(|s| s.spans.iter().map(|x| (x.kind, x.slot, x.lane)))
                .collect();
            tracks.sort_unstable_by_key(|&(k, s, l)| tid(k, s, l));
            tracks.dedup();
            for (k, s, l) in tracks {
                let t = tid(k, s, l);
                let name = quoted(&track_name(k, s, l));
                events.meta(
                    pid,
                    Some(t),
                    "thread_name",
                    format_args!("{{\"name\":{name}}}"),
                )?;
                events.meta(
                    pid,
                    Some(t),
                    "thread_sort_index",
                    format_args!("{{\"sort_index\":{t}}}"),
                )?;
            }
        }
        for part in &self.spans {
            for s in &part.spans {
                let name = &self.names[s.name as usize];
                let track = tid(s.kind, s.slot, s.lane);
                events.slice(
                    part.sm + 1,
                    track,
                    s.kind.name(),
                    name,
                    s.start,
                    s.end - s.start,
                )?;
            }
        }
        let samples = &self.timeline.samples;
        for s in samples {
            for (name, value) in counters(s) {
                events.counter(name, s.cycle, value)?;
            }
        }
        // Counters hold their value until the next event: close them at the end.
        if let Some(last) = samples.last() {
            for (name, _) in counters(last) {
                events.counter(name, last.cycle + last.cycles, 0.0)?;
            }
        }
        events.out.write_all(b"\n]}\n")
    }
}
