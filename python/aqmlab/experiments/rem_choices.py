"""The REM reproduction's report text: the choices the paper leaves open and the ns-2
profile it runs (experiments/rem.py prints both), kept apart from the code that runs it."""

# Each user starts at its stage's instant plus a uniform draw in [0, START_WINDOW) seconds,
# drawn per replication (CHOICES says why 1 s).
START_WINDOW = 1.0
CHOICES = [
    "Choices the paper leaves open (docs/aqm/rem.md):",
    "- Topology: one sender and one receiver host on 1 Gb/s access links of 1 ms, the link "
    "under test 38 ms, so every user has an 80 ms round-trip propagation delay.",
    f"- **Start times, drawn per replication**: each of a stage's 20 users starts at the "
    f"stage's instant plus a uniform draw in [0, {START_WINDOW:g}) s (§4.2: '20 users are "
    "initially active at time 0 and every 50s thereafter, 20 more users activate'; the "
    "paper gives no spread). Without a draw a DropTail run has no randomness and its "
    "replications would be one run repeated, with a zero interval. 1 s: the common ns-2 idiom "
    "of FTP starts from a `RandomVariable/Uniform` with min 0, max 1; 2% of a 50 s period "
    "(5% of quick size's 20 s); the span the former fixed 50 ms spacing covered. The "
    "draws come from numpy's PCG64 seeded with (seed, run): every configuration of a "
    "replication sees the same starts (the schemes are compared on one arrival pattern), "
    "and a rerun draws the same ones.",
    "- 382-bit packets are rounded to 48 bytes (384 bits): packet sizes are whole bytes.",
    "- The wireless link drops 1% of packets in each direction (data and ACKs).",
    "- ns-2.1b6 as the `ns2-2001` profile with overrides (the list below).",
    "- RED as ns-2.1b6 ran it: packet mode, gentle off, ns-2's count rule with `wait`.",
    "- REM with ns-2's defaults for what the paper does not state: 2 ms updates, eq. (2), "
    "marks applied to departing packets; mean_pktsize = the packet size.",
    "- §5's RED with ECN marks above max_th as well (`mark_above_max_th`): 'packets are "
    "dropped only when they arrive at a full buffer'; Fig. 4's claims count all congestion "
    "losses.",
    "- 'Modified NewReno' halves its window on a mark or a timeout and only retransmits on "
    'three duplicate ACKs (`dupack_response = "retransmit_only"`), as §5 describes.',
]

PROFILE_CHOICES = [
    "Profile `ns2-2001` (ns-2.1b8a defaults, docs/profiles.md); the paper ran ns-2.1b6. "
    "Each value, and where 2.1b6 differs:",
    "- TCP initial window 1: ns-2.1b6's `windowInit_` (no SYN), which the profile already "
    "uses (docs/profiles.md, 'The initial window').",
    "- TCP clock 100 ms (`tcpTick_`), with ns-2's estimator on it (RTT samples in whole "
    "ticks, the RTO in whole ticks: `rtt_estimator`), no limited transmit, no delayed ACKs, "
    "initial RTO 6 s, RTO cap 100000 s: the profile's values, unchanged since before 2.1b6.",
    "- Minimum RTO **200 ms, not the profile's 1 s**: `minrto_` is new in ns-2.1b8; before "
    "it `rtt_timeout()` floored the RTO only at two ticks, 2 × 100 ms.",
    "- Receiver window **10000 segments, not ns-2's `window_` = 20**: the paper's "
    "windows reach 32 packets (Fig. 2, 20 users) and 22 (Fig. 3), so `window_` must have "
    "been raised; the paper does not say to what.",
    "- ECN on retransmissions (`ecn_retransmits`): on, as in every ns-2 (the profile's "
    "value for ECN flows).",
    "- NewReno's recovery as ns-2 of 2001 ran it (the profile's values, docs/profiles.md, "
    "'Measured against ns-2.35'): a partial ACK takes the window back to ssthresh and "
    "restarts the timer (`partial_ack`), a loss halves the integer window (`halving`), a "
    "fast retransmit restarts the timer (`fr_timer`).",
    "- RED: **gentle off** (explicit: `gentle_` became true only in ns-2.1b8, 2001-04-23); "
    "ns-2's `qlen > 1` guard on (in every ns-2 since 1997, the profile's value); count "
    "rule `ns2_wait`, packet mode (the profile's); max_p, w_q and thresholds as the paper "
    "states; mean_pktsize = the packet size (explicit).",
]
