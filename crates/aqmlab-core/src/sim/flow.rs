//! A flow's state: its counters and, for TCP, its connection's two ends and timers, laid
//! out by hand for the packets that visit its ends (issue 15).

use super::*;

/// One direction's packets (a flow's data, or a TCP flow's ACKs), as reported: the
/// warm-up copy, and what the summaries and conservation checks read (`FlowState::counters`
/// puts the two parts `FlowState` keeps apart together).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FlowCounters {
    pub(super) passed: Passed,
    pub(super) missing: Missing,
}

impl FlowCounters {
    pub(super) fn minus(&self, o: &Self) -> Self {
        FlowCounters {
            passed: self.passed.minus(&o.passed),
            missing: self.missing.minus(&o.missing),
        }
    }
}

/// The counts every sent and delivered packet of one direction moves (48 bytes).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct Passed {
    pub(super) delay_sum_ns: u128,
    pub(super) sent_pkts: u64,
    pub(super) sent_bytes: u64,
    pub(super) recv_pkts: u64,
    pub(super) recv_bytes: u64,
}

impl Passed {
    fn minus(&self, o: &Self) -> Self {
        Passed {
            delay_sum_ns: self.delay_sum_ns - o.delay_sum_ns,
            sent_pkts: self.sent_pkts - o.sent_pkts,
            sent_bytes: self.sent_bytes - o.sent_bytes,
            recv_pkts: self.recv_pkts - o.recv_pkts,
            recv_bytes: self.recv_bytes - o.recv_bytes,
        }
    }
}

/// `Passed` of a flow's ACKs, whose delay no one measures (32 bytes: the 16 a sum of
/// delays would take hold the flow's ends, in the line an end's visit reads).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckPassed {
    pub(super) sent_pkts: u64,
    pub(super) sent_bytes: u64,
    pub(super) recv_pkts: u64,
    pub(super) recv_bytes: u64,
}

impl From<AckPassed> for Passed {
    fn from(a: AckPassed) -> Passed {
        Passed {
            delay_sum_ns: 0,
            sent_pkts: a.sent_pkts,
            sent_bytes: a.sent_bytes,
            recv_pkts: a.recv_pkts,
            recv_bytes: a.recv_bytes,
        }
    }
}

/// The counts only a drop or a loss moves.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Missing {
    pub(super) dropped_pkts: u64,
    pub(super) lost_pkts: u64,
    /// Dropped or lost packets that were sent at or after the warm-up: the numerator of
    /// loss_rate, so that it counts only packets of its own denominator.
    pub(super) window_losses: u64,
}

impl Missing {
    fn minus(&self, o: &Self) -> Self {
        Missing {
            dropped_pkts: self.dropped_pkts - o.dropped_pkts,
            lost_pkts: self.lost_pkts - o.lost_pkts,
            window_losses: self.window_losses - o.window_losses,
        }
    }
}

/// A TCP connection's two ends and their timers.
pub(super) struct TcpState {
    pub(super) sender: Sender,
    pub(super) receiver: Receiver,
    /// The scheduled timer event and its time (at most one of each kind is pending).
    pub(super) rto_timer: Option<(TimerHandle, Time)>,
    pub(super) delack_timer: Option<(TimerHandle, Time)>,
    pub(super) ecn: bool,
    /// Retransmissions are ECT too (ns-2), not Not-ECT (RFC 3168 §6.1.5).
    pub(super) ecn_retransmits: bool,
    /// Pure ACKs are ECN-capable with the flow's codepoint (Linux for a controller that
    /// needs ECN, DCTCP: the socket's `INET_ECN_xmit`), so a step marker marks them rather
    /// than dropping them.
    pub(super) ect_acks: bool,
    /// The codepoint of its ECN-capable packets (`FlowSpec::codepoint`).
    pub(super) ect: Ecn,
    pub(super) ack_size: u32,
    pub(super) start: Time,
    pub(super) stats_at_warmup: SenderStats,
    pub(super) delivered_at_warmup: u64,
    pub(super) ce_at_warmup: u64,
    /// The pacing timer (`tcp::pacing`), as `rto_timer`.
    pub(super) pace_timer: Option<(TimerHandle, Time)>,
}

/// A flow's counters and TCP state.
///
/// Laid out by hand (issue 15): at 10 000 flows a flow's state is out of cache when its
/// next packet reaches either end, and an end's visit (a delivered packet or ACK, and
/// the ACK or data it sends back) reads and writes two lines, both loaded ahead by
/// `prefetch_hop`: the data's counts, the TCP state's address and the delay's maximum in
/// line 0, the ACKs' counts and the ends in line 1 (test `an_end_touches_two_lines`).
/// The compiler's order spread them over three or four lines of a 352-byte struct at any
/// offset. Then what drops and losses move, and the warm-up copies.
#[derive(Default)]
#[repr(C, align(64))]
pub(super) struct FlowState {
    /// Data packets (source → destination) and TCP ACKs (destination → source).
    pub(super) c: Passed,
    pub(super) tcp: Option<Box<TcpState>>,
    pub(super) delay_max_ns: u64,
    pub(super) acks: AckPassed,
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) size: u32,
    /// The routing entries of `src` and `dst`: where a packet sent from either end goes
    /// first, and the `Packet::to` it carries, without reading the table (two random
    /// lines of it per packet an end sends, at scale).
    pub(super) ends: [At; 2],
    /// Drops and losses of data (0) and of ACKs (1).
    pub(super) missing: [Missing; 2],
    /// `counters` of data and of ACKs at the end of the warm-up.
    pub(super) at_warmup: [FlowCounters; 2],
}

impl FlowState {
    /// The counts of data (`acks` false) or of ACKs.
    pub(super) fn counters(&self, acks: bool) -> FlowCounters {
        FlowCounters {
            passed: if acks { self.acks.into() } else { self.c },
            missing: self.missing[usize::from(acks)],
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    /// What a visit to either end of a flow reads and writes (the delivered packet's or
    /// ACK's counts, the answer's, the delay's maximum, the TCP state's address, the ends)
    /// lies in two lines, both of which `prefetch_hop` asks for. A field moved out of them
    /// fails here.
    #[test]
    fn an_end_touches_two_lines() {
        use std::mem::{align_of, offset_of, size_of};
        let passed = |at: usize| {
            [
                (at + offset_of!(Passed, delay_sum_ns), 16),
                (at + offset_of!(Passed, sent_pkts), 8),
                (at + offset_of!(Passed, sent_bytes), 8),
                (at + offset_of!(Passed, recv_pkts), 8),
                (at + offset_of!(Passed, recv_bytes), 8),
            ]
        };
        let mut touched = vec![
            (offset_of!(FlowState, tcp), 8),
            (offset_of!(FlowState, delay_max_ns), 8),
            (offset_of!(FlowState, src), 4),
            (offset_of!(FlowState, dst), 4),
            (offset_of!(FlowState, size), 4),
        ];
        touched.extend(passed(offset_of!(FlowState, c)));
        touched.push((offset_of!(FlowState, acks), size_of::<AckPassed>()));
        touched.push((offset_of!(FlowState, ends), size_of::<[At; 2]>()));
        assert_eq!(align_of::<FlowState>(), 64);
        assert_eq!(size_of::<Option<Box<TcpState>>>(), 8);
        let lines = crate::mem::lines_of(&touched);
        assert_eq!(lines, [0, 1].into(), "lines {lines:?} of {touched:?}");
        // `prefetch_hop` asks for the lines that hold `c` and `acks`.
        assert_eq!(offset_of!(FlowState, c) / 64, 0);
        assert_eq!(offset_of!(FlowState, acks) / 64, 1);
    }
}
