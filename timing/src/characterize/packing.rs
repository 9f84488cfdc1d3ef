//! First-fit register packing (CORF's baseline allocation policy, seed 000 §2.3–2.4, after
//! Wang and Zhang's GPU register packing), one warp at a time.
//!
//! Each physical register has four byte slices. A register is allocated at its first write:
//! its value's width class (all lanes) in bytes, in the first physical register, at the
//! lowest offset, where that many contiguous slices are free (a full-width value takes a
//! whole register). When a later value is wider than the slices held, the register moves to a
//! new first-fit place and its old slices are freed ("re-allocation when a value grows");
//! when it is narrower, the mapping is kept ("we keep the old mapping and adjust only the
//! size"). Slices are never released otherwise: no liveness information (register-file
//! virtualization) is modelled. The free map is per warp — CORF's renaming table is indexed by
//! (warp, register) and only a warp's own registers can coalesce with each other; a free map
//! shared by the warps of an SM would make the placement depend on how warps interleave.

/// Where a register's slices are: physical register, first slice, slices held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    phys: u32,
    offset: u8,
    bytes: u8,
}

/// What a write did to the packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The register's first write: allocated.
    Allocated,
    /// The value grew past its slices: moved.
    Moved,
    /// The value fits the slices held.
    Kept,
}

/// One warp's renaming table and free map.
#[derive(Clone, Debug, Default)]
pub struct FirstFit {
    /// Used slices of each physical register (bit k: byte k).
    used: Vec<u8>,
    /// Each architectural (warpsim physical) register's slot, once written.
    map: Vec<Option<Slot>>,
}

impl FirstFit {
    /// Register `reg` is written with a value of `class` bytes.
    pub fn write(&mut self, reg: u32, class: u8) -> Placement {
        let bytes = class.clamp(1, 4);
        let r = reg as usize;
        if r >= self.map.len() {
            self.map.resize(r + 1, None);
        }
        let placement = match self.map[r] {
            Some(s) if s.bytes >= bytes => return Placement::Kept,
            Some(s) => {
                self.used[s.phys as usize] &= !mask(s.offset, s.bytes);
                Placement::Moved
            }
            None => Placement::Allocated,
        };
        self.map[r] = Some(self.allocate(bytes));
        placement
    }

    /// Whether `a` and `b` are both allocated in the same physical register.
    pub fn shares_register(&self, a: u32, b: u32) -> bool {
        let slot = |r: u32| self.map.get(r as usize).copied().flatten();
        matches!((slot(a), slot(b)), (Some(x), Some(y)) if x.phys == y.phys)
    }

    /// The physical register and slice mask of `reg`, if allocated.
    pub fn placement(&self, reg: u32) -> Option<(u32, u8)> {
        let s = self.map.get(reg as usize).copied().flatten()?;
        Some((s.phys, mask(s.offset, s.bytes)))
    }

    fn allocate(&mut self, bytes: u8) -> Slot {
        for (phys, used) in self.used.iter_mut().enumerate() {
            if let Some(offset) = (0..=4 - bytes).find(|&o| *used & mask(o, bytes) == 0) {
                *used |= mask(offset, bytes);
                return Slot {
                    phys: phys as u32,
                    offset,
                    bytes,
                };
            }
        }
        self.used.push(mask(0, bytes));
        Slot {
            phys: self.used.len() as u32 - 1,
            offset: 0,
            bytes,
        }
    }
}

fn mask(offset: u8, bytes: u8) -> u8 {
    (((1u16 << bytes) - 1) << offset) as u8
}
