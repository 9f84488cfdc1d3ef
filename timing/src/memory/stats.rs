//! Counters of the memory hierarchy.

use serde::Serialize;

/// Declares the counters once, so `merge` can never miss one.
macro_rules! counters {
    ($(#[$doc:meta])* pub struct $name:ident { $($(#[$fdoc:meta])* $field:ident,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: u64,)*
        }

        impl $name {
            /// Adds every counter of `other` to this one (per-SM counters into a GPU total).
            pub fn merge(&mut self, other: &$name) {
                $(self.$field = self.$field.saturating_add(other.$field);)*
            }

            /// The counts accumulated since `earlier` (a snapshot of the same counters).
            pub fn since(&self, earlier: &$name) -> $name {
                $name { $($field: self.$field.saturating_sub(earlier.$field),)* }
            }
        }
    };
}

counters! {
    /// Counters of the memory hierarchy (names follow GPGPU-Sim's where one exists).
    ///
    /// Each [`SmMemory`](super::SmMemory) counts its caches and the
    /// [`MemorySystem`](super::MemorySystem) counts L2 and DRAM; [`MemStats::merge`] adds them
    /// up. Accesses are accepted requests: `*_accesses = *_hits + *_misses + *_mshr_merges`
    /// (or `*_pending_hits`), and a stalled L1 request counts only as a reservation fail.
    pub struct MemStats {
        /// Load transactions accepted by the L1 data cache.
        l1d_accesses,
        /// Loads whose sectors were all present.
        l1d_hits,
        /// Loads that went to L2 (line misses and sector misses).
        l1d_misses,
        /// Of `l1d_misses`: the line was present but some sectors were not.
        l1d_sector_misses,
        /// Loads that waited on a fill already in flight.
        l1d_mshr_merges,
        /// Requests refused (`Outcome::Stall`): MSHRs full, merge limit reached, every way of
        /// the set pending, or no request slot left this cycle.
        l1d_reservation_fails,
        /// Of `l1d_reservation_fails`: the L1's requests for the cycle were used up.
        l1d_port_stalls,
        /// Store transactions (written through to L2).
        l1d_stores,
        /// Atomic transactions (performed at L2).
        l1d_atomics,
        /// Lines dropped because a store or an atomic wrote them (write-evict).
        l1d_store_evictions,
        /// Transactions that skipped the L1 for the L2 (atomics, `.cg`, and with
        /// `mem.global_skips_l1d` global accesses); atomics and stores among them count in
        /// `l1d_atomics` and `l1d_stores` too.
        l1d_bypasses,
        /// Distinct addresses read through the constant cache.
        const_accesses,
        const_hits,
        const_misses,
        /// Reads of a constant line whose fill was still in flight.
        const_pending_hits,
        /// Instruction-cache fetches.
        icache_accesses,
        icache_hits,
        icache_misses,
        /// Fetches of a line whose fill was still in flight.
        icache_pending_hits,
        /// Fetches refused (retried later): a miss with every MSHR busy, or a fill already
        /// holding `mshr_merge` fetches.
        icache_reservation_fails,
        /// Requests reaching an L2 slice (a transaction spanning two L2 lines counts twice).
        l2_accesses,
        /// Requests whose sectors were all present.
        l2_hits,
        /// Requests that allocated a line, fetched sectors from DRAM, or (stores) wrote
        /// sectors the line lacked.
        l2_misses,
        /// Requests that waited on a fill already in flight.
        l2_mshr_merges,
        /// Requests to a fill already holding `mshr_merge` requests: the slice stopped taking
        /// requests until that fill arrived (GPGPU-Sim's reservation failure, which leaves the
        /// request at the head of the slice's queue), then served them as a hit.
        l2_merge_lockups,
        /// Sectors the requests named (GPGPU-Sim's L2 counts its accesses so).
        l2_sector_accesses,
        /// Sectors of `l2_misses` that were not present.
        l2_sector_misses,
        /// Of `l2_accesses`: atomics.
        l2_atomics,
        /// Of `l2_accesses`: stores.
        l2_stores,
        /// Evicted lines with dirty sectors written to DRAM.
        l2_writebacks,
        /// Cycles requests waited for a busy L2 slice (queueing, summed over requests).
        l2_queue_cycles,
        /// Bytes read from DRAM.
        dram_reads_bytes,
        /// Bytes written to DRAM.
        dram_writes_bytes,
        /// Read requests to DRAM (one per L2 sector missed).
        dram_reads,
        /// Write requests to DRAM (one per dirty line evicted from L2).
        dram_writes,
        /// Requests served from a row open or queued to open in their bank (no activate).
        dram_row_hits,
        /// Row activations (each row miss opens its row).
        dram_activates,
        /// Precharges (a row closed for another).
        dram_precharges,
        /// Column commands (bursts); a request needs one per atom of its bytes.
        dram_bursts,
        /// DRAM cycles the channels' data buses were busy, summed over channels.
        dram_bus_cycles,
        /// DRAM cycles elapsed times channels (set per launch: the denominator of the
        /// bandwidth utilisation).
        dram_channel_cycles,
        /// Core cycles from each read request leaving its L2 slice to its data being back
        /// there, summed.
        dram_read_latency,
        /// Packets the L1s sent below them that came back (GPGPU-Sim's memory fetches: a
        /// sector of a sectored L1's miss or store, a line of one that is not sectored, an
        /// atomic; a store's packets come back as acknowledgements).
        fetches,
        /// Core cycles from each of `fetches`' L1 access to its reply being back at the SM,
        /// summed (GPGPU-Sim's `averagemflatency` times its count: `memlatstat_done`).
        fetch_latency,
    }
}

impl MemStats {
    /// L1 data hit rate over accepted loads (0 when there were none).
    pub fn l1d_hit_rate(&self) -> f64 {
        ratio(self.l1d_hits, self.l1d_accesses)
    }

    /// L2 hit rate over all requests (0 when there were none).
    pub fn l2_hit_rate(&self) -> f64 {
        ratio(self.l2_hits, self.l2_accesses)
    }

    /// Constant-cache hit rate (0 when there were no accesses).
    pub fn const_hit_rate(&self) -> f64 {
        ratio(self.const_hits, self.const_accesses)
    }

    /// Share of the channels' cycles their data buses were busy (GPGPU-Sim's `bw_util`).
    pub fn dram_bandwidth_utilisation(&self) -> f64 {
        ratio(self.dram_bus_cycles, self.dram_channel_cycles)
    }

    /// Share of DRAM requests that found their row open or queued to open.
    pub fn dram_row_hit_rate(&self) -> f64 {
        ratio(self.dram_row_hits, self.dram_reads + self.dram_writes)
    }

    /// Mean core cycles from a read request leaving its L2 slice to its data being back.
    pub fn dram_average_read_latency(&self) -> f64 {
        ratio(self.dram_read_latency, self.dram_reads)
    }

    /// Mean core cycles from an L1 access to the reply of a packet it sent below
    /// (GPGPU-Sim's `averagemflatency`).
    pub fn average_fetch_latency(&self) -> f64 {
        ratio(self.fetch_latency, self.fetches)
    }

    /// Instruction-cache hit rate (0 when there were no fetches).
    pub fn icache_hit_rate(&self) -> f64 {
        ratio(self.icache_hits, self.icache_accesses)
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_and_rates_are_nan_free() {
        let mut a = MemStats::default();
        assert_eq!(a.l1d_hit_rate(), 0.0);
        assert_eq!(a.l2_hit_rate(), 0.0);
        let b = MemStats {
            l1d_accesses: 4,
            l1d_hits: 3,
            dram_bus_cycles: 7,
            ..MemStats::default()
        };
        a.merge(&b);
        a.merge(&b);
        assert_eq!(a.l1d_accesses, 8);
        assert_eq!(a.dram_bus_cycles, 14);
        assert_eq!(a.l1d_hit_rate(), 0.75);
        assert!(
            serde_json::to_string(&a)
                .unwrap()
                .contains("\"l1d_hits\":6")
        );
    }
}
