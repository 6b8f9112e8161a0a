//! TCP glue: the simulator's side of a TCP connection (start, ACK and data arrival,
//! retransmission and delayed-ACK timers, segments and ACKs onto the network).

use super::*;
use crate::scenario::TcpSpec;
use crate::tcp::congestion::CongestionSpec;
use crate::tcp::receiver::Echo;

impl Simulator<'_> {
    pub(super) fn tcp_start(&mut self, f: usize) {
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.sender.start(self.now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    pub(super) fn tcp_on_ack(&mut self, f: usize, ack: &Ack) {
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.sender.on_ack(ack, self.now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    pub(super) fn tcp_on_data(&mut self, f: usize, seq: u64, ce: bool, cwr: bool) {
        let now = self.now;
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        let ack = tcp.receiver.on_data(seq, ce, cwr, now);
        // DCTCP's echo may acknowledge the earlier segments first (RFC 8257 §3.2).
        if let Some(flush) = tcp.receiver.take_flush() {
            self.tcp_send_ack(f, flush);
        }
        if let Some(ack) = ack {
            self.tcp_send_ack(f, ack);
        }
        self.tcp_sync_timer(f, End::Receiver);
    }

    pub(super) fn on_rto_timer(&mut self, f: usize) {
        let now = self.now;
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.rto_timer = None;
            tcp.sender.on_timeout(now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    pub(super) fn on_pace_timer(&mut self, f: usize) {
        let now = self.now;
        let mut segs = std::mem::take(&mut self.segments);
        if let Some(tcp) = &mut self.flows[f].tcp {
            tcp.pace_timer = None;
            tcp.sender.on_pace_timer(now, &mut segs);
        }
        self.tcp_emit(f, &mut segs);
        self.segments = segs;
    }

    pub(super) fn on_delack_timer(&mut self, f: usize) {
        let now = self.now;
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        tcp.delack_timer = None;
        if let Some(ack) = tcp.receiver.on_delack_timer(now) {
            self.tcp_send_ack(f, ack);
        }
        self.tcp_sync_timer(f, End::Receiver);
    }

    /// Puts the sender's segments on the wire and re-arms its timer.
    pub(super) fn tcp_emit(&mut self, f: usize, segs: &mut Vec<Segment>) {
        let now = self.now;
        let st = &self.flows[f];
        let (src, dst, size, ends) = (st.src, st.dst, st.size, st.ends);
        let (ecn, ecn_rtx, ect) = st.tcp.as_ref().map_or((false, false, Ecn::NotEct), |t| {
            (t.ecn, t.ecn_retransmits, t.ect)
        });
        for seg in segs.drain(..) {
            let pkt = self.packets.alloc(Packet {
                flow: f as u32,
                src,
                dst,
                size,
                // RFC 3168 §6.1.5: retransmissions are not ECN-capable, unless
                // `ecn_retransmits` (ns-2's TcpAgent::output sets ECT on every data packet).
                ecn: if ecn && (!seg.retransmit || ecn_rtx) {
                    ect
                } else {
                    Ecn::NotEct
                },
                created: now,
                seq: seg.seq,
                cwr: seg.cwr,
                to: ends[1],
                ..Default::default()
            });
            let c = &mut self.flows[f].c;
            c.sent_pkts += 1;
            c.sent_bytes += size as u64;
            self.forward_from(src as usize, ends[0], pkt);
        }
        self.tcp_sync_timer(f, End::Sender);
    }

    pub(super) fn tcp_send_ack(&mut self, f: usize, ack: Ack) {
        let st = &mut self.flows[f];
        let Some(tcp) = &st.tcp else { return };
        let (size, ect) = (tcp.ack_size, tcp.ect_acks.then_some(tcp.ect));
        let (from, to, ends) = (st.dst, st.src, st.ends);
        st.acks.sent_pkts += 1;
        st.acks.sent_bytes += size as u64;
        let pkt = self.packets.alloc_ack(
            Packet {
                flow: f as u32,
                src: from,
                dst: to,
                size,
                created: self.now,
                to: ends[0],
                ecn: ect.unwrap_or(Ecn::NotEct),
                ..Default::default()
            },
            &ack,
        );
        self.forward_from(from as usize, ends[1], pkt);
    }

    /// Keeps one timer event per pending deadline: re-arming is needed only when a
    /// deadline moves earlier; a later one is honoured when the earlier event fires.
    /// Only the sender moves the retransmission deadline and only the receiver the
    /// delayed-ACK one, and each is synced after every change of its end's state, so an
    /// event at one end syncs that end's timer alone (the other's check would find nothing
    /// to do, after reading a line of the other end's state: cold at scale). Debug builds
    /// check that claim.
    #[inline(always)]
    pub(super) fn tcp_sync_timer(&mut self, f: usize, end: End) {
        let Some(tcp) = &mut self.flows[f].tcp else {
            return;
        };
        #[cfg(debug_assertions)]
        {
            let (other, other_slot) = match end {
                End::Sender => (tcp.receiver.delack_deadline, tcp.delack_timer),
                End::Receiver => (tcp.sender.rto_deadline, tcp.rto_timer),
            };
            debug_assert!(
                other.is_none_or(|d| other_slot.is_some_and(|(_, at)| at <= d)),
                "the other end's timer is out of sync"
            );
        }
        let (want, slot, owner) = match end {
            End::Sender => (
                tcp.sender.rto_deadline,
                &mut tcp.rto_timer,
                TimerOwner::TcpRto(f as u32),
            ),
            End::Receiver => (
                tcp.receiver.delack_deadline,
                &mut tcp.delack_timer,
                TimerOwner::TcpDelAck(f as u32),
            ),
        };
        sync_timer(&mut self.timers, &mut self.events, want, slot, owner);
        if let End::Sender = end {
            // A paced sender holding a segment back; None (never paced) costs one branch.
            if let Some(d) = tcp.sender.pace_deadline() {
                let owner = TimerOwner::TcpPace(f as u32);
                sync_timer(
                    &mut self.timers,
                    &mut self.events,
                    Some(d),
                    &mut tcp.pace_timer,
                    owner,
                );
            }
        }
    }
}

/// The end of a TCP connection whose state an event changed.
#[derive(Clone, Copy)]
pub(super) enum End {
    Sender,
    Receiver,
}

/// Arms a timer for deadline `want` unless the one in `slot` fires no later.
fn sync_timer(
    timers: &mut Timers,
    events: &mut EventQueue,
    want: Option<Time>,
    slot: &mut Option<(TimerHandle, Time)>,
    owner: TimerOwner,
) {
    let Some(d) = want else { return };
    match *slot {
        Some((_, at)) if at <= d => {}
        other => {
            if let Some((h, _)) = other {
                timers.cancel(h);
            }
            *slot = Some((timers.arm(events, d, owner), d));
        }
    }
}

pub(super) fn tcp_state(spec: &FlowSpec, f: &TcpSpec, seed: u64, run: u64) -> TcpState {
    use crate::scenario::tcp_defaults as d;
    let seg = spec.packet_size.0;
    let granularity = f.granularity.map_or(d::GRANULARITY, |x| x.0);
    let rtt_rule = f.rtt_estimator.unwrap_or(RttRule::Rfc6298);
    let congestion = f.congestion.clone().unwrap_or_default();
    let reno = matches!(congestion, CongestionSpec::Reno(_));
    let dctcp = matches!(congestion, CongestionSpec::Dctcp(_));
    let prague = matches!(congestion, CongestionSpec::Prague(_));
    // Per-segment CE feedback (RFC 8257 §3.2's echo; for Prague it stands in for AccECN)
    // and ECN-capable retransmissions and pure ACKs (Linux's DCTCP, Prague's ECN++).
    let ecn_everywhere = dctcp || prague;
    let echo = if ecn_everywhere {
        Echo::Dctcp
    } else {
        Echo::Rfc3168
    };
    let cfg = SenderConfig {
        variant: f.variant.unwrap_or(Variant::NewReno),
        ecn: spec.ecn,
        dupack_response: f.dupack_response.unwrap_or(DupackResponse::Halve),
        // ns-2's response is Reno's (a profile sets it on every TCP flow).
        ecn_backoff: spec.ecn && f.ecn_backoff == Some(true) && reno,
        recovery: f.recovery.unwrap_or(Recovery::Classic),
        partial_ack: f.partial_ack.unwrap_or(PartialAck::Rfc6582),
        halving: f.halving.unwrap_or(Halving::Rfc5681),
        fr_timer: f.fr_timer.unwrap_or(FrTimer::Keep),
        recover_guard: f.recover_guard.unwrap_or(RecoverGuard::Rfc6582),
        max_window: f.max_window.unwrap_or(d::MAX_WINDOW),
        initial_cwnd: f.initial_cwnd.unwrap_or(d::INITIAL_CWND),
        // ns-2 starts ssthresh at window_; any value >= the window cap means "no limit".
        initial_ssthresh: f.max_window.unwrap_or(d::MAX_WINDOW) as f64,
        dupthresh: 3,
        limited_transmit: f.limited_transmit.unwrap_or(true),
        min_rto: f.min_rto.map_or(d::MIN_RTO, |x| x.0),
        initial_rto: f.initial_rto.map_or(d::INITIAL_RTO, |x| x.0),
        max_rto: f.max_rto.map_or(d::MAX_RTO, |x| x.0),
        granularity,
        rtt_rule,
        // ns-2's `boot_time_`: each agent's clock has its own phase, drawn once.
        clock_phase: match rtt_rule {
            RttRule::Rfc6298 => 0,
            _ => {
                Rng::for_path_of(seed, run, &["flows/", &spec.name, "/clock"]).next_u64()
                    % granularity.max(1)
            }
        },
        segments: f.bytes.map(|b| b.0.div_ceil(seg)),
        // Prague always paces (its rate once there is an RTT sample).
        pacing: f.pacing == Some(true) || prague,
        segment_bytes: seg as u32,
        // The controller's own stream (BBR's ProbeBW phases), derived from the flow's name.
        congestion_seed: match &congestion {
            CongestionSpec::Bbr(_) => {
                Rng::for_path_of(seed, run, &["flows/", &spec.name, "/congestion"]).next_u64()
            }
            _ => 0,
        },
        congestion,
    };
    let delack =
        (f.delayed_ack == Some(true)).then(|| f.delack_timeout.map_or(d::DELACK_TIMEOUT, |x| x.0));
    TcpState {
        sender: Sender::new(cfg),
        receiver: Receiver::new(f.variant == Some(Variant::Sack), delack, echo),
        rto_timer: None,
        delack_timer: None,
        ecn: spec.ecn,
        ect: spec.codepoint(),
        // Linux sends every segment of a DCTCP socket ECT(0), retransmissions and pure
        // ACKs too (`tcp_ecn_send`: no `INET_ECN_dontxmit` when `tcp_ca_needs_ecn`), and
        // Prague's ECT(1) (RFC 9331 §4.1, ECN++).
        ecn_retransmits: spec.ecn && (f.ecn_retransmits == Some(true) || ecn_everywhere),
        ect_acks: ecn_everywhere,
        ack_size: f.ack_size.map_or(d::ACK_SIZE, |x| x.0) as u32,
        start: spec.start.0,
        stats_at_warmup: SenderStats::default(),
        delivered_at_warmup: 0,
        ce_at_warmup: 0,
        pace_timer: None,
    }
}
