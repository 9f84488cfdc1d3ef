//! Narrow values: the width class of every register read and write, per opcode class
//! (CORF, seed 000 §2.3: "65% of all register operations contain narrow-width values, with
//! over 33% of operations consuming no more than a single byte"; CMRC, seed 003: "only 29% of
//! RF accesses, reads and writes, require a full register width").
//!
//! Width class: the fewest bytes n ∈ {1, 2, 3, 4} whose sign extension gives the value;
//! a warp register's class is the largest over its 32 lanes (inactive lanes included, as
//! CORF's and CMRC's width detection sees the whole register), and, beside it, over the lanes
//! that executed. A value is *narrow* when its class is at most 3 bytes. A read's class is the
//! class of the value it reads; a write's, the class of the value it writes; reads and writes
//! count under the opcode class of the instruction that makes them.

use super::{InstRecord, RegAccess};
use crate::decode::OpClass;
use serde::Serialize;

/// Accesses by width class (index 0: 1 byte ... 3: 4 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Hist(pub [u64; 4]);

impl Hist {
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn add(&self, o: &Hist) -> Hist {
        Hist(std::array::from_fn(|i| self.0[i] + o.0[i]))
    }

    /// Shares (%) of accesses needing at most 1, 2 and 3 bytes.
    pub fn narrow_shares(&self) -> [f64; 3] {
        let t = self.total();
        let mut cum = 0;
        std::array::from_fn(|i| {
            cum += self.0[i];
            super::pct(cum, t)
        })
    }

    fn count(&mut self, class: u8) {
        self.0[usize::from(class.clamp(1, 4) - 1)] += 1;
    }
}

/// Reads and writes by width class, over all lanes and over executing lanes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClassWidths {
    /// The opcode class (`int`, `fp32`, ...), or `all`.
    pub class: &'static str,
    pub reads_all: Hist,
    pub reads_active: Hist,
    pub writes_all: Hist,
    pub writes_active: Hist,
}

impl ClassWidths {
    fn named(class: &'static str) -> ClassWidths {
        ClassWidths {
            class,
            ..ClassWidths::default()
        }
    }

    fn observe(&mut self, rec: &InstRecord) {
        for a in rec.reads {
            self.reads_all.count(a.class_all);
            self.reads_active.count(a.class_active);
        }
        for a in rec.writes {
            self.write(a);
        }
    }

    fn write(&mut self, a: &RegAccess) {
        self.writes_all.count(a.class_all);
        self.writes_active.count(a.class_active);
    }

    fn merge(&mut self, o: &ClassWidths) {
        self.reads_all = self.reads_all.add(&o.reads_all);
        self.reads_active = self.reads_active.add(&o.reads_active);
        self.writes_all = self.writes_all.add(&o.writes_all);
        self.writes_active = self.writes_active.add(&o.writes_active);
    }
}

/// Width classes over every instruction and per opcode class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WidthCounts {
    pub total: ClassWidths,
    /// One entry per [`OpClass::ALL`], in that order.
    pub by_class: Vec<ClassWidths>,
}

impl Default for WidthCounts {
    fn default() -> WidthCounts {
        WidthCounts {
            total: ClassWidths::named("all"),
            by_class: OpClass::ALL
                .iter()
                .map(|c| ClassWidths::named(c.name()))
                .collect(),
        }
    }
}

impl WidthCounts {
    pub fn observe(&mut self, rec: &InstRecord) {
        self.total.observe(rec);
        self.by_class[rec.class.index()].observe(rec);
    }

    /// One write counted apart from its instruction ([`super::Characterizer::late_write`]).
    pub fn write(&mut self, class: OpClass, a: &RegAccess) {
        self.total.write(a);
        self.by_class[class.index()].write(a);
    }

    pub fn merge(&mut self, o: &WidthCounts) {
        self.total.merge(&o.total);
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            a.merge(b);
        }
    }
}
