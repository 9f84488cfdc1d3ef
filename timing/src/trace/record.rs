//! One SM's recorder: spans laid out on tracks so that no two on one track overlap.
//!
//! A warp has several instructions in flight at once (each in a collector unit, a pipeline or
//! the memory system), so the spans of one kind overlap in time. Each kind gets as many lanes
//! per warp as it needs: a span goes on the first lane free at its start. A trace viewer then
//! shows every track as a sequence of slices, ordered and disjoint.

use std::collections::HashMap;

/// What a span covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SpanKind {
    /// The cycle an instruction issued.
    Issue,
    /// From issue until the instruction leaves its collector unit (operands read, unit free).
    Collect,
    /// From dispatch until the result is written back (an execution pipeline).
    Execute,
    /// From dispatch to an LD/ST unit until the last of its data is back (memory outstanding).
    Memory,
    /// A CTA, from its launch on the SM until it retires (its track is the CTA slot).
    Cta,
}

impl SpanKind {
    pub const ALL: [SpanKind; 5] = [
        SpanKind::Issue,
        SpanKind::Collect,
        SpanKind::Execute,
        SpanKind::Memory,
        SpanKind::Cta,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SpanKind::Issue => "issue",
            SpanKind::Collect => "collect",
            SpanKind::Execute => "execute",
            SpanKind::Memory => "memory",
            SpanKind::Cta => "cta",
        }
    }
}

/// Lanes per warp and kind: more spans of one kind in flight at once are dropped (counted).
pub const MAX_LANES: u8 = 16;

/// A span of cycles on one track: `slot` is the warp slot (the CTA slot for
/// [`SpanKind::Cta`]), `lane` the lane of its kind, `name` an index into the trace's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub kind: SpanKind,
    pub lane: u8,
    pub slot: u16,
    pub name: u32,
    pub start: u64,
    pub end: u64,
}

/// What a span is of, before the GPU names it: an instruction, or a CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Label {
    Inst { func: u32, pc: u32 },
    Cta([u32; 3]),
}

/// One SM's spans of one launch.
pub(crate) struct SmTrace {
    window: std::ops::Range<u64>,
    cap: usize,
    /// Spans whose `name` indexes `labels`.
    pub(crate) spans: Vec<Span>,
    pub(crate) labels: Vec<Label>,
    label_index: HashMap<Label, u32>,
    /// The end of the last span on each lane, by warp slot and kind.
    lane_ends: Vec<Vec<u64>>,
    /// The cycle the SM reached its share of spans, after which it recorded nothing.
    pub(crate) truncated_at: Option<u64>,
    pub(crate) dropped: u64,
}

impl SmTrace {
    /// A recorder for an SM of `slots` warp slots keeping at most `cap` spans inside `window`.
    pub(crate) fn new(window: std::ops::Range<u64>, cap: usize, slots: usize) -> SmTrace {
        SmTrace {
            window,
            cap,
            spans: Vec::new(),
            labels: Vec::new(),
            label_index: HashMap::new(),
            lane_ends: vec![Vec::new(); slots * SpanKind::ALL.len()],
            truncated_at: None,
            dropped: 0,
        }
    }

    /// Records an instruction's span of `kind` on warp slot `slot`.
    pub(crate) fn inst(
        &mut self,
        kind: SpanKind,
        slot: usize,
        start: u64,
        end: u64,
        func: u32,
        pc: u32,
    ) {
        self.record(kind, slot, start, end, Label::Inst { func, pc });
    }

    /// Records a CTA's residency on CTA slot `slot`.
    pub(crate) fn cta(&mut self, slot: usize, start: u64, end: u64, cta: [u32; 3]) {
        self.record(SpanKind::Cta, slot, start, end, Label::Cta(cta));
    }

    fn record(&mut self, kind: SpanKind, slot: usize, start: u64, end: u64, label: Label) {
        let (start, end) = (start.max(self.window.start), end.min(self.window.end));
        if start >= end || self.truncated_at.is_some() {
            return;
        }
        if self.spans.len() >= self.cap {
            self.truncated_at = Some(start);
            return;
        }
        let ends = &mut self.lane_ends[slot * SpanKind::ALL.len() + kind as usize];
        let lane = match ends.iter().position(|&e| e <= start) {
            Some(l) => l,
            None if ends.len() < usize::from(MAX_LANES) => {
                ends.push(0);
                ends.len() - 1
            }
            None => {
                self.dropped += 1;
                return;
            }
        };
        ends[lane] = end;
        let next = self.labels.len() as u32;
        let name = *self.label_index.entry(label).or_insert_with(|| {
            self.labels.push(label);
            next
        });
        self.spans.push(Span {
            kind,
            lane: lane as u8,
            slot: slot as u16,
            name,
            start,
            end,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_spans_take_further_lanes_and_free_ones_are_reused() {
        let mut t = SmTrace::new(0..u64::MAX, 100, 2);
        t.inst(SpanKind::Execute, 1, 10, 20, 0, 1);
        t.inst(SpanKind::Execute, 1, 11, 15, 0, 2);
        t.inst(SpanKind::Execute, 1, 15, 30, 0, 3);
        // Another kind, another warp: lanes of their own.
        t.inst(SpanKind::Collect, 1, 10, 20, 0, 1);
        t.inst(SpanKind::Execute, 0, 10, 20, 0, 1);
        let lanes: Vec<u8> = t.spans.iter().map(|s| s.lane).collect();
        assert_eq!(lanes, [0, 1, 1, 0, 0]);
        // The same instruction is one label.
        assert_eq!(t.labels.len(), 3);
        assert_eq!(t.spans[3].name, t.spans[0].name);
    }

    #[test]
    fn the_window_clips_and_the_cap_truncates() {
        let mut t = SmTrace::new(100..200, 2, 1);
        t.inst(SpanKind::Issue, 0, 50, 60, 0, 0);
        t.inst(SpanKind::Execute, 0, 90, 110, 0, 0);
        t.inst(SpanKind::Execute, 0, 190, 250, 0, 0);
        assert_eq!(
            t.spans.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>(),
            [(100, 110), (190, 200)]
        );
        t.inst(SpanKind::Issue, 0, 150, 151, 0, 0);
        assert_eq!((t.spans.len(), t.truncated_at), (2, Some(150)));
    }

    #[test]
    fn spans_beyond_the_lanes_are_dropped_and_counted() {
        let mut t = SmTrace::new(0..u64::MAX, 1000, 1);
        for i in 0..u64::from(MAX_LANES) + 3 {
            t.inst(SpanKind::Memory, 0, i, 1000, 0, 0);
        }
        assert_eq!((t.spans.len(), t.dropped), (usize::from(MAX_LANES), 3));
    }
}
