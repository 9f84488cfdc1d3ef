//! The trace in the Chrome trace event format's JSON object form, which ui.perfetto.dev and
//! chrome://tracing open: a process per SM, a thread (track) per warp slot and kind of span
//! and lane (and per CTA slot), complete events for the spans, counter events for the
//! timeline, and a "GPU" process with the launches.
//!
//! Timestamps are cycles written as microseconds (the format's unit): the viewer's 1 µs is
//! one SM cycle. Written as a stream: a trace of a million spans never exists as a JSON value.

use super::{SpanKind, Trace};
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

impl Trace {
    /// Writes the trace as Chrome trace event JSON.
    pub fn write_json(&self, out: &mut impl Write) -> io::Result<()> {
        let mut first = true;
        let mut event = |out: &mut dyn Write, text: std::fmt::Arguments<'_>| -> io::Result<()> {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            first = false;
            out.write_fmt(text)
        };
        let (window_start, window_end) = (self.options.window.start, self.options.window.end);
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
             \"window\":[{window_start},{}],\"max_events\":{},\"spans\":{},\
             \"truncated\":[{}],\"dropped\":{}}},\"traceEvents\":[",
            quoted(&self.config),
            if window_end == u64::MAX {
                "null".to_string()
            } else {
                window_end.to_string()
            },
            self.options.max_events,
            self.span_count(),
            truncated.join(","),
            self.dropped,
        )?;
        let meta = |pid: u32, tid: Option<u32>, what: &str, arg: String| {
            let tid = tid.map(|t| format!(",\"tid\":{t}")).unwrap_or_default();
            format!("{{\"ph\":\"M\",\"pid\":{pid}{tid},\"name\":\"{what}\",\"args\":{arg}}}")
        };
        event(
            out,
            format_args!(
                "{}",
                meta(GPU_PID, None, "process_name", "{\"name\":\"GPU\"}".into())
            ),
        )?;
        event(
            out,
            format_args!(
                "{}",
                meta(
                    GPU_PID,
                    Some(0),
                    "thread_name",
                    "{\"name\":\"launches\"}".into()
                )
            ),
        )?;
        for (i, (kernel, start, end)) in self.launches.iter().enumerate() {
            event(
                out,
                format_args!(
                    "{{\"ph\":\"X\",\"pid\":{GPU_PID},\"tid\":0,\"cat\":\"launch\",\"name\":{},\
                     \"ts\":{start},\"dur\":{},\"args\":{{\"launch\":{i}}}}}",
                    quoted(kernel),
                    end - start
                ),
            )?;
        }
        // Tracks are named once per SM, wherever they first appear.
        let mut sms: Vec<u32> = self.spans.iter().map(|s| s.sm).collect();
        sms.sort_unstable();
        sms.dedup();
        for &sm in &sms {
            let pid = sm + 1;
            event(
                out,
                format_args!(
                    "{}",
                    meta(
                        pid,
                        None,
                        "process_name",
                        format!("{{\"name\":\"SM {sm}\"}}")
                    )
                ),
            )?;
            event(
                out,
                format_args!(
                    "{}",
                    meta(
                        pid,
                        None,
                        "process_sort_index",
                        format!("{{\"sort_index\":{pid}}}")
                    )
                ),
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
                event(
                    out,
                    format_args!(
                        "{}",
                        meta(
                            pid,
                            Some(t),
                            "thread_name",
                            format!("{{\"name\":{}}}", quoted(&track_name(k, s, l)))
                        )
                    ),
                )?;
                event(
                    out,
                    format_args!(
                        "{}",
                        meta(
                            pid,
                            Some(t),
                            "thread_sort_index",
                            format!("{{\"sort_index\":{t}}}")
                        )
                    ),
                )?;
            }
        }
        for part in &self.spans {
            let pid = part.sm + 1;
            for s in &part.spans {
                event(
                    out,
                    format_args!(
                        "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{},\"cat\":\"{}\",\"name\":{},\
                         \"ts\":{},\"dur\":{}}}",
                        tid(s.kind, s.slot, s.lane),
                        s.kind.name(),
                        quoted(&self.names[s.name as usize]),
                        s.start,
                        s.end - s.start
                    ),
                )?;
            }
        }
        let t = &self.timeline;
        let counters = |s: &super::TimelineSample| {
            let per = |x: u64| x as f64 / s.cycles.max(1) as f64;
            [
                ("IPC", s.ipc()),
                ("resident warps", per(s.resident_warp_cycles)),
                ("collector units busy", per(s.busy_collector_cycles)),
                ("L1D misses per 1000 cycles", 1000.0 * per(s.l1d_misses)),
                ("L2 misses per 1000 cycles", 1000.0 * per(s.l2_misses)),
            ]
        };
        for s in &t.samples {
            for (name, value) in counters(s) {
                event(
                    out,
                    format_args!(
                        "{{\"ph\":\"C\",\"pid\":{GPU_PID},\"name\":\"{name}\",\"ts\":{},\
                         \"args\":{{\"value\":{value:.4}}}}}",
                        s.cycle
                    ),
                )?;
            }
        }
        // Counters hold their value until the next event: close them at the end.
        if let Some(last) = t.samples.last() {
            for (name, _) in counters(last) {
                event(
                    out,
                    format_args!(
                        "{{\"ph\":\"C\",\"pid\":{GPU_PID},\"name\":\"{name}\",\"ts\":{},\
                         \"args\":{{\"value\":0}}}}",
                        last.cycle + last.cycles
                    ),
                )?;
            }
        }
        out.write_all(b"\n]}\n")
    }
}
