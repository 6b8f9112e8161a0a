//! Streamed statistics: time-weighted moments, fixed-size histograms, counters with a
//! warm-up snapshot. Nothing here allocates per packet.

use crate::units::Time;
use smallvec::SmallVec;

/// Time-weighted first and second moments of a piecewise-constant level (queue length in
/// packets and bytes), plus the time spent at each packet count.
///
/// Laid out for the idle port (issue 15): at 10 000 flows most packets cross an access
/// link that is idle when they arrive, and its level goes from 0 to 0. `touch` at level 0
/// reads and writes `last` and `idle_ns` alone, the first two fields, in one cache line
/// (the sums would add zeros, the maxima hold, and level 0's time lives here rather than
/// in `hist`, another allocation and another miss).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct TimeWeighted {
    pub last: Time,
    /// Nanoseconds spent with no packet waiting (the distribution's first entry).
    pub(crate) idle_ns: u64,
    pub max_bytes: u64,
    pub start: Time,
    pub sum_pkts: u128,
    /// ∫ packets dt (packet·ns) of the windows closed by `restart`, so that the area since
    /// time 0 survives a warm-up restart (per-period means in time series). Beside
    /// `sum_pkts`: a periodic sample reads both, in the line after `last`'s.
    pub sum_pkts_before: u128,
    pub sum_pkts2: u128,
    pub sum_bytes: u128,
    pub sum_bytes2: u128,
    /// Largest levels held for a positive time (and `max_bytes`). A packet that arrives at
    /// an idle link is enqueued and dequeued in the same instant (ns-2's order); that
    /// zero-length level is not a queue anyone waited in, so it does not count.
    pub max_pkts: u32,
    /// `hist[n - 1]` = nanoseconds spent with exactly n ≥ 1 packets waiting; the first four
    /// inside the struct (an access link's queue seldom holds more).
    hist: SmallVec<[u64; 4]>,
}

impl TimeWeighted {
    /// Accounts the level (`pkts`, `bytes`) held since the last call up to `now`.
    #[inline]
    pub fn touch(&mut self, now: Time, pkts: u32, bytes: u64) {
        let dt = now - self.last;
        if dt == 0 {
            return;
        }
        self.last = now;
        if pkts == 0 {
            self.idle_ns += dt;
            if bytes == 0 {
                return;
            }
        } else {
            let i = pkts as usize - 1;
            if i >= self.hist.len() {
                self.hist.resize(i + 1, 0);
            }
            self.hist[i] += dt;
        }
        let (p, b, d) = (pkts as u128, bytes as u128, dt as u128);
        self.sum_pkts += p * d;
        self.sum_pkts2 += p * p * d;
        self.sum_bytes += b * d;
        self.sum_bytes2 += b * b * d;
        self.max_pkts = self.max_pkts.max(pkts);
        self.max_bytes = self.max_bytes.max(bytes);
    }

    /// Starts a new measurement window at `now` (the level held from now on counts).
    pub fn restart(&mut self, now: Time) {
        *self = TimeWeighted {
            last: now,
            start: now,
            sum_pkts_before: self.sum_pkts_before + self.sum_pkts,
            ..Default::default()
        };
    }

    fn span(&self) -> f64 {
        (self.last - self.start) as f64
    }

    pub fn mean_pkts(&self) -> f64 {
        self.sum_pkts as f64 / self.span()
    }
    pub fn var_pkts(&self) -> f64 {
        (self.sum_pkts2 as f64 / self.span() - self.mean_pkts().powi(2)).max(0.0)
    }
    pub fn mean_bytes(&self) -> f64 {
        self.sum_bytes as f64 / self.span()
    }
    pub fn var_bytes(&self) -> f64 {
        (self.sum_bytes2 as f64 / self.span() - self.mean_bytes().powi(2)).max(0.0)
    }
    /// Fraction of time at each packet count.
    pub fn distribution(&self) -> Vec<f64> {
        if self.idle_ns == 0 && self.hist.is_empty() {
            // Never at any level for a positive time.
            return vec![];
        }
        let span = self.span();
        (std::iter::once(&self.idle_ns).chain(&self.hist))
            .map(|&t| t as f64 / span)
            .collect()
    }
}

/// Log-linear histogram of nanosecond values: exact below 64 ns, then 64 buckets per
/// octave (relative resolution 1/64 ≈ 1.6%), 3 776 buckets in all.
///
/// Its counts are kept in one of two forms, which give the same quantiles:
///
/// - **sparse** while at most `SPARSE` buckets hold a value: the buckets with a count, in
///   bucket order, one `u32` each (`index << COUNT_BITS | count`; a count that would
///   overflow its 20 bits moves every count to the dense form). A queue of an access
///   link sees a few distinct sojourns (multiples of a serialisation time), and an idle one
///   (most access links of a large topology) none. The first `SPARSE_INLINE` entries live
///   in the struct: at 10 000 flows a flush into a heap block of its own cost a cold line
///   per 8 packets that waited at an access link (BENCHMARKS.md, 2026-11-27 night).
/// - **dense** past that (a busy queue's sojourns spread over thousands of buckets): 59
///   blocks of 64 buckets (the exact range, then one block per octave), a block's counts
///   allocated when a value first falls in it, so a few KB instead of the 30 KB of every
///   bucket.
///
/// At 10 000 flows, dense blocks for all 40 002 queues grew the heap by 136 MB during the
/// run and cost 10-18% of the run in page faults and misses (issue 15); sparse, the access
/// links' histograms take ~100 bytes each.
///
/// A record into the counts was also a cache miss per packet on each access link. So the
/// value 0 (a packet that found its link idle) is counted in the struct, and other values
/// wait in `pending`, in the struct, and go to the counts `PENDING` at a time: a quiet
/// queue's values are a few distinct sojourns, and the flush finds their line once.
/// `settle` empties `pending` (`quantile` of an unsettled histogram settles a copy).
///
/// `repr(C)`, what `record` touches first (104 bytes): two lines where a queue places it
/// on a line's start (`crate::queue::OutputQueue`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LogHistogram {
    pub sum: u128,
    pub n: u64,
    pub max: u64,
    n_pending: u8,
    pending: [u64; PENDING],
    zeros: u64,
    /// The sparse form (empty once `dense` is in use).
    sparse: SmallVec<[u32; SPARSE_INLINE]>,
    dense: Option<Box<Dense>>,
}

/// Every bucket, in blocks allocated on first use.
#[derive(Clone, Debug)]
struct Dense {
    /// `slot[b]` = 1 + the index in `blocks` of block b's counts; 0 while it has none.
    slot: [u8; BLOCKS],
    blocks: Vec<[u64; 1 << SUB]>,
}

const PENDING: usize = 8;
/// Sparse entries kept in the struct itself before they spill to the heap.
const SPARSE_INLINE: usize = 16;
const SUB: u32 = 6; // 2^6 = 64 sub-buckets per octave
const BLOCKS: usize = 64 - SUB as usize + 1;
/// Distinct buckets the sparse form holds (128 bytes, a quarter of a dense block): past
/// that, a lookup would scan more than it saves (64 measured no faster at 10 000 flows).
const SPARSE: usize = 32;
/// A sparse entry's count takes its low bits, the bucket index (< 3 776 < 2^12) the rest.
const COUNT_BITS: u32 = 20;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;

impl Dense {
    fn add(&mut self, i: usize, c: u64) {
        let b = i >> SUB;
        if self.slot[b] == 0 {
            self.blocks.push([0; 1 << SUB]);
            // At most BLOCKS = 59 blocks: the slot fits a u8.
            self.slot[b] = self.blocks.len() as u8;
        }
        self.blocks[self.slot[b] as usize - 1][i & ((1 << SUB) - 1)] += c;
    }
}

impl LogHistogram {
    /// Where the pending values and their count lie (offset, bytes), for layout tests.
    #[cfg(test)]
    pub(crate) const PENDING_SPAN: (usize, usize) = (
        std::mem::offset_of!(LogHistogram, n_pending),
        std::mem::offset_of!(LogHistogram, pending) + 8 * PENDING
            - std::mem::offset_of!(LogHistogram, n_pending),
    );

    #[inline]
    fn index(v: u64) -> usize {
        if v < (1 << SUB) {
            v as usize
        } else {
            let e = 63 - v.leading_zeros(); // >= SUB
            let m = (v >> (e - SUB)) & ((1 << SUB) - 1);
            (((e - SUB + 1) << SUB) as u64 + m) as usize
        }
    }

    /// The range [lo, hi) of values that fall in bucket `i`.
    fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < (1 << SUB) {
            (i, i + 1)
        } else {
            let e = (i >> SUB) + SUB as u64 - 1;
            let m = i & ((1 << SUB) - 1);
            let w = 1u64 << (e - SUB as u64);
            let lo = (1u64 << e) + m * w;
            (lo, lo.saturating_add(w))
        }
    }

    /// Records the value 0 `k` times (a queue counts its zero sojourns apart, see
    /// `crate::queue::OutputQueue::finish`).
    pub fn record_zeros(&mut self, k: u64) {
        self.n += k;
        self.zeros += k;
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
        if v == 0 {
            self.zeros += 1;
            return;
        }
        self.pending[self.n_pending as usize] = v;
        self.n_pending += 1;
        if self.n_pending as usize == PENDING {
            self.settle();
        }
    }

    /// Moves the pending values into the counts.
    pub fn settle(&mut self) {
        for k in 0..self.n_pending as usize {
            let i = Self::index(self.pending[k]);
            match self.dense.as_mut() {
                Some(d) => d.add(i, 1),
                None => self.add_sparse(i),
            }
        }
        self.n_pending = 0;
    }

    fn add_sparse(&mut self, i: usize) {
        let key = (i as u32) << COUNT_BITS;
        let at = self.sparse.partition_point(|&e| e < key);
        let same = self
            .sparse
            .get(at)
            .is_some_and(|&e| e >> COUNT_BITS == i as u32);
        if same && self.sparse[at] & COUNT_MASK < COUNT_MASK {
            self.sparse[at] += 1;
        } else if !same && self.sparse.len() < SPARSE {
            self.sparse.insert(at, key | 1);
        } else {
            self.go_dense().add(i, 1);
        }
    }

    /// Moves the sparse counts into blocks, for good.
    #[cold]
    fn go_dense(&mut self) -> &mut Dense {
        let mut d = Dense {
            slot: [0; BLOCKS],
            blocks: Vec::new(),
        };
        for e in std::mem::take(&mut self.sparse) {
            d.add((e >> COUNT_BITS) as usize, (e & COUNT_MASK) as u64);
        }
        self.dense.insert(Box::new(d))
    }

    /// The counts of the buckets that may hold a value, in bucket order: bucket 0 (the value
    /// 0) first with the zeros, then the sparse entries or the allocated blocks' buckets
    /// (bucket 0's place in block 0 stays 0).
    fn counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let sparse =
            (self.sparse.iter()).map(|&e| ((e >> COUNT_BITS) as usize, (e & COUNT_MASK) as u64));
        let dense = self.dense.iter().flat_map(|d| {
            (d.slot.iter().enumerate())
                .filter(|&(_, &s)| s != 0)
                .flat_map(move |(b, &s)| {
                    let block = &d.blocks[s as usize - 1];
                    (block.iter().enumerate()).map(move |(j, &c)| ((b << SUB) + j, c))
                })
        });
        std::iter::once((0, self.zeros)).chain(sparse).chain(dense)
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// The q-quantile (0 < q ≤ 1), as the midpoint of its bucket, capped at the maximum.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n_pending != 0 {
            // Not taken in a run (queues settle theirs when it ends).
            let mut h = self.clone();
            h.settle();
            return h.quantile(q);
        }
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, c) in self.counts() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = Self::bounds(i);
                let mid = if hi - lo == 1 {
                    lo as f64
                } else {
                    (lo as f64 + hi as f64) / 2.0
                };
                return mid.min(self.max as f64);
            }
        }
        self.max as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_and_variance_of_a_square_wave() {
        let mut tw = TimeWeighted::default();
        tw.restart(0);
        tw.touch(10, 0, 0); // 0 for 10 ns
        tw.touch(10, 9, 900); // 9 for 0 ns: not a level anyone waited at
        tw.touch(30, 4, 400); // 4 for 20 ns
        assert_eq!((tw.max_pkts, tw.max_bytes), (4, 400));
        assert_eq!(tw.mean_pkts(), 80.0 / 30.0);
        assert!((tw.var_pkts() - (320.0 / 30.0 - (80.0f64 / 30.0).powi(2))).abs() < 1e-12);
        assert_eq!(tw.distribution()[0], 10.0 / 30.0);
        assert_eq!(tw.distribution()[4], 20.0 / 30.0);
        assert_eq!(tw.mean_bytes(), 8000.0 / 30.0);
    }

    #[test]
    fn log_histogram_buckets_tile_the_line() {
        let mut prev_hi = 0;
        for i in 0..((64 - SUB as usize + 1) << SUB) - 1 {
            let (lo, hi) = LogHistogram::bounds(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert_eq!(LogHistogram::index(lo), i);
            assert_eq!(LogHistogram::index(hi - 1), i);
            prev_hi = hi;
        }
    }

    /// The q-quantile of a plain array of every bucket's count (the histogram before blocks
    /// and sparse entries), by the same rule as `quantile`.
    fn reference_quantile(h: &LogHistogram, every: &[u64], q: f64) -> f64 {
        let rank = ((q * h.n as f64).ceil() as u64).clamp(1, h.n);
        let mut seen = 0;
        let i = every.iter().position(|&c| {
            seen += c;
            seen >= rank
        });
        let (lo, hi) = LogHistogram::bounds(i.unwrap());
        let mid = if hi - lo == 1 {
            lo as f64
        } else {
            (lo as f64 + hi as f64) / 2.0
        };
        mid.min(h.max as f64)
    }

    const QS: [f64; 10] = [1e-9, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0];

    /// The dense blocks give the quantiles of the array of every bucket they stand for, at
    /// every q, for values over the whole u64 range.
    #[test]
    fn log_histogram_blocks_give_the_dense_quantiles() {
        let mut rng = crate::rng::Rng::for_component(7, 0, "test");
        let mut h = LogHistogram::default();
        let mut every = vec![0u64; BLOCKS << SUB];
        for k in 0..20_000u32 {
            // Clusters a few octaves wide far apart (blocks between them stay absent),
            // plus exact zeros and the top of the range.
            let v = match k % 100 {
                0 => 0,
                1 => u64::MAX,
                _ => {
                    let octave = [5.0, 20.0, 33.0, 50.0][k as usize % 4];
                    (2f64.powf(octave + 3.0 * rng.uniform())) as u64
                }
            };
            h.record(v);
            every[LogHistogram::index(v)] += 1;
        }
        let blocks = h.dense.as_ref().map_or(0, |d| d.blocks.len());
        assert!(blocks > 0 && blocks < BLOCKS / 2, "{blocks} blocks");
        for q in QS {
            assert_eq!(h.quantile(q), reference_quantile(&h, &every, q), "q={q}");
        }
        h.settle();
        let total: u64 = h.counts().map(|(_, c)| c).sum();
        assert_eq!(total, h.n);
    }

    /// Sojourns in a few distinct buckets (an access link's) stay sparse, and give the same
    /// quantiles on either side of the switch to blocks: for k distinct buckets, k = 1 to
    /// SPARSE + 8, each value seen 1 to 7 times in a shuffled order.
    #[test]
    fn sparse_counts_give_the_dense_quantiles_on_both_sides_of_the_switch() {
        let mut rng = crate::rng::Rng::for_component(11, 0, "test");
        for k in 1..=SPARSE + 8 {
            let mut h = LogHistogram::default();
            let mut every = vec![0u64; BLOCKS << SUB];
            // Multiples of a 1 Gb/s serialisation of 1000 bytes, and a few ACK-sized ones.
            let values: Vec<u64> = (1..=k as u64)
                .map(|j| if j % 5 == 0 { 320 * j } else { 8_000 * j })
                .collect();
            let mut seq: Vec<u64> = (values.iter())
                .flat_map(|&v| std::iter::repeat_n(v, 1 + (v % 7) as usize))
                .collect();
            for j in (1..seq.len()).rev() {
                seq.swap(j, (rng.uniform() * (j + 1) as f64) as usize % (j + 1));
            }
            for &v in &seq {
                h.record(v);
                every[LogHistogram::index(v)] += 1;
            }
            h.record(0);
            every[0] += 1;
            h.settle();
            let buckets = every[1..].iter().filter(|&&c| c > 0).count();
            assert_eq!(h.dense.is_some(), buckets > SPARSE, "k={k}");
            assert!(h
                .sparse
                .windows(2)
                .all(|w| w[0] >> COUNT_BITS < w[1] >> COUNT_BITS));
            for q in QS {
                assert_eq!(
                    h.quantile(q),
                    reference_quantile(&h, &every, q),
                    "k={k} q={q}"
                );
            }
        }
    }

    /// A sparse count that would overflow its bits moves to the blocks, whole.
    #[test]
    fn a_full_sparse_count_moves_to_the_blocks() {
        let mut h = LogHistogram::default();
        let i = LogHistogram::index(8_000);
        h.sparse = smallvec::smallvec![((i as u32) << COUNT_BITS) | (COUNT_MASK - 1)];
        h.n = (COUNT_MASK - 1) as u64;
        for _ in 0..2 {
            h.record(8_000);
            h.settle();
        }
        assert!(h.sparse.is_empty() && h.dense.is_some());
        assert_eq!(
            h.counts().map(|(_, c)| c).sum::<u64>(),
            COUNT_MASK as u64 + 1
        );
        assert_eq!(
            h.counts().find(|&(j, _)| j == i),
            Some((i, COUNT_MASK as u64 + 1))
        );
    }

    /// An access link's queue: every packet found the link idle.
    #[test]
    fn zeros_alone_allocate_no_block() {
        let mut h = LogHistogram::default();
        for _ in 0..1000 {
            h.record(0);
        }
        assert!(!h.sparse.spilled() && h.dense.is_none());
        assert_eq!(
            (h.n, h.quantile(0.5), h.quantile(1.0), h.mean()),
            (1000, 0.0, 0.0, 0.0)
        );
        h.record(3);
        assert_eq!((h.quantile(0.999), h.quantile(1.0)), (0.0, 3.0));
    }

    #[test]
    fn zeros_recorded_in_bulk_are_zeros_recorded_one_by_one() {
        let (mut a, mut b) = (LogHistogram::default(), LogHistogram::default());
        for v in [5, 0, 1 << 20, 0, 0, 7] {
            a.record(v);
            if v != 0 {
                b.record(v);
            }
        }
        b.record_zeros(3);
        for q in [0.1, 0.5, 0.51, 0.9, 1.0] {
            assert_eq!(a.quantile(q), b.quantile(q), "q={q}");
        }
        assert_eq!((a.n, a.mean(), a.max), (b.n, b.mean(), b.max));
    }

    /// Level 0's time is kept apart from the other levels': the distribution and moments
    /// are those of one array of every level, including a level in bytes alone (a caller
    /// other than a queue) and a window that never saw level 0.
    #[test]
    fn time_at_level_zero_counts_as_the_first_level() {
        let mut tw = TimeWeighted::default();
        assert!(tw.distribution().is_empty());
        tw.touch(5, 0, 0);
        assert_eq!(tw.distribution(), vec![1.0]);
        tw.touch(8, 2, 0); // 2 packets (no bytes) for 3 ns
        tw.touch(10, 0, 50); // 50 bytes (no packets) for 2 ns
        assert_eq!(tw.distribution(), vec![7.0 / 10.0, 0.0, 3.0 / 10.0]);
        assert_eq!((tw.max_pkts, tw.max_bytes), (2, 50));
        assert_eq!((tw.sum_pkts, tw.sum_bytes, tw.sum_bytes2), (6, 100, 5000));
        let mut busy = TimeWeighted::default();
        busy.touch(4, 1, 1000);
        assert_eq!(busy.distribution(), vec![0.0, 1.0]);
    }

    /// An access link's few distinct sojourns stay in the struct; one bucket more than
    /// `SPARSE_INLINE` spills the entries to the heap, with the same counts.
    #[test]
    fn a_few_distinct_sojourns_stay_inline() {
        let mut h = LogHistogram::default();
        for k in 1..=SPARSE_INLINE as u64 {
            for _ in 0..k {
                h.record(8_000 * k);
            }
        }
        h.settle();
        assert!(!h.sparse.spilled() && h.sparse.len() == SPARSE_INLINE);
        let before: Vec<_> = h.counts().collect();
        h.record(8_000 * (SPARSE_INLINE as u64 + 1));
        h.settle();
        assert!(h.sparse.spilled() && h.dense.is_none());
        let after: Vec<_> = h.counts().collect();
        assert_eq!(&after[..before.len()], &before[..]);
        assert_eq!(after.last().map(|&(_, c)| c), Some(1));
    }

    #[test]
    fn an_empty_log_histogram_allocates_nothing() {
        let h = LogHistogram::default();
        assert!(!h.sparse.spilled() && h.dense.is_none() && h.quantile(0.5).is_nan());
    }

    #[test]
    fn log_histogram_quantiles_within_resolution() {
        let mut h = LogHistogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = q * 100_000_000.0;
            let got = h.quantile(q);
            assert!((got / exact - 1.0).abs() < 1.0 / 64.0, "q={q} got={got}");
        }
        assert_eq!(h.quantile(1.0), 100_000_000.0);
        assert_eq!(h.mean(), 50_000_500.0);
    }
}
