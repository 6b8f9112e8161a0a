//! A port's counters: totals, and by drop precedence (colour) the yellow and red ones,
//! allocated at the port's first packet that is not green. Green's are the totals less the
//! other two (`QueueCounters::colour`).

use crate::aqm::{NUM_COLOURS, NUM_REASONS};
use crate::packet::{Colour, Packet};
use crate::record::LogHistogram;
use crate::table::{Column, Table};
use crate::units::{Time, NS_PER_SEC};

/// Monotone counters; a copy taken at the end of the warm-up is subtracted for reporting,
/// while conservation is checked on the totals.
///
/// The counters every packet moves come last, in one 64-byte run that `OutputQueue`'s
/// layout puts next to the rest of what a packet touches (see there).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct QueueCounters {
    /// The same counts for yellow and red packets (`Colour as usize`; entry 0 stays zero:
    /// green is the rest, see `colour`), so a run without markers pays one predictable
    /// branch per update. Allocated at the port's first packet that is not green: inline,
    /// they were 360 of a port's 1 856 bytes, twice over with the warm-up copy, and most
    /// ports never see such a packet (at 10 000 flows, 29 MB of the 40 002 ports' 74 MB,
    /// all of it written when the simulator is built).
    /// Read and updated through `not_green` and `not_green_mut`, which keep that rule.
    pub(super) not_green: Option<Box<[ColourCounters; NUM_COLOURS]>>,
    /// Drops by reason, before and after enqueue together.
    pub dropped: [u64; NUM_REASONS],
    pub marked: [u64; NUM_REASONS],
    /// Of the drops, those of packets that had been enqueued (at dequeue).
    pub dropped_after_enqueue: u64,
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub enqueued: u64,
    pub ect_enqueued: u64,
    /// Sum over arrivals of the packets waiting when each arrived (before its own
    /// admission): / arrivals = the mean queue seen by arrivals (the BIO paper's delay
    /// measure; unlike the time average, not equal to it for TCP traffic).
    pub queue_at_arrivals: u64,
    /// Packets that left the buffer for the wire, and their bytes.
    pub dequeued: u64,
    pub dequeued_bytes: u64,
}

/// The counters of one drop precedence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColourCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub enqueued: u64,
    pub dropped: [u64; NUM_REASONS],
    pub dropped_after_enqueue: u64,
    pub marked: [u64; NUM_REASONS],
    pub dequeued: u64,
    pub dequeued_bytes: u64,
}

/// `r - o` for the counters both structs share: the scalar ones, then the per-reason arrays.
macro_rules! minus_common {
    ($r:ident, $o:ident) => {
        $r.arrivals -= $o.arrivals;
        $r.arrival_bytes -= $o.arrival_bytes;
        $r.enqueued -= $o.enqueued;
        $r.dropped_after_enqueue -= $o.dropped_after_enqueue;
        $r.dequeued -= $o.dequeued;
        $r.dequeued_bytes -= $o.dequeued_bytes;
        for i in 0..NUM_REASONS {
            $r.dropped[i] -= $o.dropped[i];
            $r.marked[i] -= $o.marked[i];
        }
    };
}

impl ColourCounters {
    pub fn minus(&self, o: &Self) -> Self {
        let mut r = *self;
        minus_common!(r, o);
        r
    }
}

#[cold]
#[inline(never)]
fn first_not_green() -> Box<[ColourCounters; NUM_COLOURS]> {
    Box::default()
}

impl QueueCounters {
    pub fn minus(&self, o: &Self) -> Self {
        let mut r = self.clone();
        minus_common!(r, o);
        r.ect_enqueued -= o.ect_enqueued;
        r.queue_at_arrivals -= o.queue_at_arrivals;
        if let Some(n) = &mut r.not_green {
            for (c, k) in n.iter_mut().enumerate() {
                *k = k.minus(&o.not_green(c));
            }
        }
        r
    }

    /// The counts of yellow (1) or red (2) packets: zero until the port saw one.
    #[inline]
    pub fn not_green(&self, c: usize) -> ColourCounters {
        self.not_green
            .as_ref()
            .map_or_else(Default::default, |n| n[c])
    }

    /// Those counts to update, allocated at the first packet that is not green.
    #[inline]
    pub fn not_green_mut(&mut self, c: usize) -> &mut ColourCounters {
        &mut self.not_green.get_or_insert_with(first_not_green)[c]
    }

    /// The counts of one drop precedence; green's are the totals less yellow's and red's.
    pub fn colour(&self, c: Colour) -> ColourCounters {
        if c != Colour::Green {
            return self.not_green(c as usize);
        }
        let [y, r] = [1, 2].map(|c| self.not_green(c));
        let mut g = ColourCounters {
            arrivals: self.arrivals - y.arrivals - r.arrivals,
            arrival_bytes: self.arrival_bytes - y.arrival_bytes - r.arrival_bytes,
            enqueued: self.enqueued - y.enqueued - r.enqueued,
            dropped: self.dropped,
            dropped_after_enqueue: self.dropped_after_enqueue
                - y.dropped_after_enqueue
                - r.dropped_after_enqueue,
            marked: self.marked,
            dequeued: self.dequeued - y.dequeued - r.dequeued,
            dequeued_bytes: self.dequeued_bytes - y.dequeued_bytes - r.dequeued_bytes,
        };
        for k in 0..NUM_REASONS {
            g.dropped[k] -= y.dropped[k] + r.dropped[k];
            g.marked[k] -= y.marked[k] + r.marked[k];
        }
        g
    }

    /// The counts of every drop precedence, in `Colour::ALL` order.
    pub fn by_colour(&self) -> [ColourCounters; NUM_COLOURS] {
        Colour::ALL.map(|c| self.colour(c))
    }

    pub fn total_dropped(&self) -> u64 {
        self.dropped.iter().sum()
    }
    pub fn total_marked(&self) -> u64 {
        self.marked.iter().sum()
    }
}

/// One sub-queue's counts over the measurement window.
#[derive(Clone, Debug, Default)]
pub struct SubCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub enqueued: u64,
    /// Dropped on arrival or at the head (AQM or limit).
    pub dropped: u64,
    pub marked: u64,
    pub dequeued: u64,
    pub dequeued_bytes: u64,
    /// The sojourns of the packets sent.
    pub sojourn: LogHistogram,
}

impl SubCounters {
    #[inline]
    pub fn arrive(&mut self, size: u32) {
        self.arrivals += 1;
        self.arrival_bytes += size as u64;
    }

    /// `p` leaves for the wire at `now` (`marked`: CE set as it left).
    #[inline]
    pub fn depart(&mut self, p: &Packet, now: Time, marked: bool) {
        self.dequeued += 1;
        self.dequeued_bytes += p.size as u64;
        self.marked += marked as u64;
        match now - p.enqueued {
            0 => self.sojourn.record_zeros(1),
            s => self.sojourn.record(s),
        }
    }
}

/// The `subqueues` table: one row per (name, AQM kind, counts).
pub fn subqueue_table(rows: &[(&str, &str, &SubCounters)]) -> Table {
    let s = |x: f64| x / NS_PER_SEC as f64;
    let quantile = |k: &SubCounters, q: f64| {
        if k.dequeued == 0 {
            f64::NAN
        } else {
            s(k.sojourn.quantile(q))
        }
    };
    let mut t = Table::new("subqueues");
    t.column_of("subqueue", rows, |r| r.0.to_string());
    t.push("index", Column::U64((0..rows.len() as u64).collect()));
    t.column_of("aqm", rows, |r| r.1.to_string())
        .column_of("arrivals", rows, |r| r.2.arrivals)
        .column_of("arrival_bytes", rows, |r| r.2.arrival_bytes)
        .column_of("enqueued", rows, |r| r.2.enqueued)
        .column_of("dropped", rows, |r| r.2.dropped)
        .column_of("marked", rows, |r| r.2.marked)
        .column_of("dequeued", rows, |r| r.2.dequeued)
        .column_of("dequeued_bytes", rows, |r| r.2.dequeued_bytes)
        .column_of("sojourn_mean_s", rows, |r| {
            if r.2.dequeued == 0 {
                f64::NAN
            } else {
                s(r.2.sojourn.mean())
            }
        })
        .column_of("sojourn_p50_s", rows, |r| quantile(r.2, 0.5))
        .column_of("sojourn_p99_s", rows, |r| quantile(r.2, 0.99));
    t
}
