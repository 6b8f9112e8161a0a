//! Memory bounds: what a run may hold, and allocation failure as an error, not an abort;
//! and `prefetch`, a cache hint for the event loop.
//!
//! Rust aborts the process when an allocation fails, and from Python that kills the
//! interpreter with it. The structures that grow with a run (the packet arena) grow with
//! `try_reserve` and stop at a bound; both end the run by unwinding with a
//! `ResourceExhausted` payload, which the binding turns into `aqmlab.ResourceError` (a
//! `MemoryError`). Unwinding, not a `Result` through every event handler: the event loop's
//! hot path stays as it is, and nothing of a run that ran out of memory is kept anyway.

/// Packets alive at once (queued, on the wire or in a host): at ~150 bytes each, about
/// 1.5 GB. A real study's buffers hold far fewer (a 10 Gb/s link's BDP at 1 s RTT of
/// 1500-byte packets is under 10^6); more means a buffer fed faster than it drains.
pub const MAX_LIVE_PACKETS: usize = 10_000_000;

/// Bytes of packet capture a run may hold, all captures together (records and their
/// 16-byte headers): 1 GiB, as much as the packet arena's bound. At the default snaplen of
/// 96 bytes that is about 9.5 million packets; the run stops with `ResourceExhausted`
/// beyond it (`crate::capture`).
pub const MAX_CAPTURE_BYTES: u64 = 1 << 30;

/// The payload a run unwinds with when it would exceed a bound or an allocation fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceExhausted(pub String);

/// Ends the run with `ResourceExhausted(message)`.
#[cold]
pub fn exhausted(message: String) -> ! {
    std::panic::panic_any(ResourceExhausted(message))
}

/// `v.push(x)`, but a failed allocation ends the run with `ResourceExhausted` instead of
/// aborting the process.
#[inline]
pub fn push<T>(v: &mut Vec<T>, x: T, what: &str) {
    if v.len() == v.capacity() {
        grow(v, what);
    }
    v.push(x);
}

#[cold]
fn grow<T>(v: &mut Vec<T>, what: &str) {
    let more = v.capacity().max(16);
    if let Err(e) = v.try_reserve(more) {
        exhausted(format!(
            "out of memory growing {what} from {} to {} entries ({e})",
            v.len(),
            v.len() + more
        ));
    }
}

/// Asks the CPU to start loading the cache line of `r` while it works on something else: a
/// hint, with no effect on results. A large topology's packets, queues and flows live far
/// apart in memory, and the next event's are usually out of cache (issue 15).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it never faults and changes no architectural state, and
    // `r` is a valid reference anyway. SSE is part of the x86_64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// The cache lines (byte offset / 64) that fields given as (offset, size) span: for the
/// layout tests of the structs a packet's passage reads (`Packet`, `Channel`,
/// `OutputQueue`).
#[cfg(test)]
pub(crate) fn lines_of(fields: &[(usize, usize)]) -> std::collections::BTreeSet<usize> {
    (fields.iter())
        .flat_map(|&(o, n)| o / 64..=(o + n.max(1) - 1) / 64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_allocation_unwinds_with_resource_exhausted() {
        let got = std::panic::catch_unwind(|| {
            let mut v: Vec<u64> = Vec::new();
            // Beyond isize::MAX bytes: fails in every allocator (a large but possible size
            // may be granted lazily by an overcommitting kernel, or elided by the compiler).
            if let Err(e) = v.try_reserve(usize::MAX) {
                exhausted(format!("test ({e})"));
            }
        });
        let payload = got.expect_err("the reservation must fail");
        let r = payload
            .downcast_ref::<ResourceExhausted>()
            .expect("a ResourceExhausted");
        assert!(r.0.starts_with("test ("), "{r:?}");
    }

    /// The bound's memory figure in the docs (about 1.5 GB at 10^7) holds.
    #[test]
    fn a_live_packet_costs_about_150_bytes() {
        let per = std::mem::size_of::<crate::packet::Packet>() + std::mem::size_of::<bool>();
        assert!(per <= 160, "{per} bytes per live packet");
    }

    #[test]
    fn push_grows_like_vec_push() {
        let mut v = Vec::new();
        for i in 0..1000 {
            push(&mut v, i, "test");
        }
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }
}
