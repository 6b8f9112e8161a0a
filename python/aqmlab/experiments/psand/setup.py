"""PSAND reproduction: the setting every part of it shares (Alemu, Jean-Marie 2004, Table I):
the bottleneck, the target, the schemes and their parameters, the base scenario and the
measures read from a run. The experiment is `aqmlab.experiments.psand`; Fig. 3 over
replications is `psand.fig3`; both import from here, so the package has no import circle."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from aqmlab import scenario as sc
from aqmlab.experiments.ns2_era import HEADER, PROFILE, TCP_NS226
from aqmlab.reproduce import Context

Q = "R1->R2"
K_T = 10.0
BUFFER = 35
# Figs. 5-6 statistics: summary column -> header of the report's table.
STATS = {
    "var": "var",
    "mean": "mean",
    "loss": "loss",
    "p_empty": "P(0)",
    "p_full": "P(25<X≤35)",
    "p_target": "P(8≤X≤12)",
    "util": "utilisation",
    "use0": "1 − P(0)",
}

# ns-2.26 as aqmlab can express it: profile "ns2-2001" (ns-2.1b8a) plus the defaults that
# changed before 2.26. (field, value, source) — printed in the report.

# The paper's w_q = 1 − exp(−1/C), C in packets/s of the configured 1000-byte packets.
W_Q = float(1.0 - np.exp(-1.0 / (1.5e6 / 8 / 1000)))
# All four schemes are ns-2's Queue/RED (ARED_Floyd: adaptive_ 1; ARED_Feng: feng_adaptive_
# 1; PSAND: the authors' extension of it), so each has Queue/RED's 2.26 defaults.
RED_NS226 = {"gentle": True, "ns2_qlen_guard": True, "mean_pktsize": 500, "w_q": W_Q}
# Every ns-2.26 choice as (field, value, source), printed in the report.
NS226 = [
    ("profile", f'"{PROFILE}"', "ns-2.1b8a defaults (docs/profiles.md) as the base"),
    (
        "TCP initial_cwnd",
        "1 (from the profile)",
        "ns-2.26: syn_ true, windowInit_ 2 after the SYN; aqmlab has no SYN, and a window of "
        "1 sends what ns-2 sends in its first two rounds",
    ),
    (
        "TCP granularity",
        "10 ms",
        "ns-2.26 tcpTick_ 0.01 (changed from 0.1 on 2002-03-07)",
    ),
    (
        "TCP limited_transmit",
        "true",
        "ns-2.26 singledup_ 1 (changed from 0 on 2001-11-28)",
    ),
    (
        "TCP min_rto / initial_rto / max_rto",
        "1 s / 6 s / 100000 s (from the profile)",
        "ns-2.26 minrto_ 1, rtxcur_init_ 6, maxrto_ 100000: unchanged since 2.1b8a",
    ),
    (
        "TCP halving / fr_timer",
        '"ns2-2001" / "restart" (from the profile)',
        "ns-2.26 slowdown() halves the integer window (precisionReduce_ came in 2006) and "
        "dupack_action restarts the timer (docs/profiles.md, 'Measured against ns-2.35')",
    ),
    (
        "TCP delayed_ack",
        "false (from the profile)",
        "Agent/TCPSink/Sack1: one ACK per packet",
    ),
    (
        "TCP packet_size",
        f"1600 + {HEADER} and 1000 + {HEADER} B on the wire",
        "ns-2.26 useHeaders_ true adds 40 B of TCP/IP header to packetSize_ (the paper's "
        "1600 and 1000 bytes, read as packetSize_)",
    ),
    (
        "TCP variant",
        "sack (RFC 6675)",
        "ns-2's Agent/TCP/Sack1 pipe algorithm is not modelled (docs/profiles.md)",
    ),
    (
        "RED gentle, all four schemes",
        "true",
        "ns-2 Queue/RED gentle_ true since 2001-04-23; the variants are Queue/RED too. Before "
        "this change plain RED was not gentle while its variants were",
    ),
    (
        "RED ns2_qlen_guard, all four",
        "true",
        "REDQueue::enque: no early or average-forced drop unless more than one packet is "
        "queued (in ns-2 since 1997); matters for PSAND's min_th = 0",
    ),
    (
        "RED mean_pktsize, all four",
        "500 B",
        "ns-2 mean_pktsize_ 500: the packet time of the idle decay; byte_mode false "
        "(queue_in_bytes_ false until 2004-10-11)",
    ),
    (
        "RED w_q, all four",
        f"{W_Q:.6g} = 1 − exp(−1/187.5)",
        "set by the paper's formula, C in 1000-byte packets/s (given explicitly, so "
        "mean_pktsize does not change it)",
    ),
    (
        "RED count_rule",
        "ns2_wait",
        "ns-2 wait_ true; already aqmlab's default",
    ),
]

SCHEMES = {
    "RED": {"type": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, **RED_NS226},
    "ARED_Feng": {
        "type": "feng_red",
        "min_th": 5,
        "max_th": 15,
        "max_p": 0.02,
        "alpha": 3.0,
        "beta": 2.0,
        **RED_NS226,
    },
    "ARED_Floyd": {
        "type": "ared",
        "min_th": 5,
        "max_th": 15,
        "max_p": 0.1,
        "alpha": 0.01,
        "beta": 0.9,
        "top": 0.5,
        "interval": "500ms",
        **RED_NS226,
    },
    "PSAND": {
        "type": "psand",
        "target": K_T,
        "max_p": 0.1,
        "coef": 1.75,
        "gamma": 1.5,
        "interval": "500ms",
        "lower": 0.01,
        "upper": 0.75,
        **RED_NS226,
    },
}


def base(
    extra: int,
    first: float,
    duration: str,
    warmup: str,
    sample: str,
    bottleneck: str = "1.5Mbps",
) -> dict:
    # The access links stay well above the bottleneck (10 Mb/s in the paper's setting, 100
    # Mb/s in the 15 Mb/s sensitivity run), so that R1→R2 stays the bottleneck.
    access = "10Mbps" if bottleneck == "1.5Mbps" else "100Mbps"
    nodes = [
        sc.router("R1"),
        sc.router("R2"),
        sc.host("S1"),
        sc.host("S2"),
        sc.host("S3"),
    ]
    links = [
        sc.link(
            "R1",
            "R2",
            bandwidth=bottleneck,
            delay="20ms",
            queue=sc.queue(limit_pkts=BUFFER),
        ),
        sc.link("S1", "R1", bandwidth=access, delay="2ms", queue=sc.queue(limit_pkts=1000)),
        sc.link("S2", "R1", bandwidth=access, delay="3ms", queue=sc.queue(limit_pkts=1000)),
        sc.link("R2", "S3", bandwidth=access, delay="4ms", queue=sc.queue(limit_pkts=1000)),
    ]
    long = {
        "variant": "sack",
        "packet_size": 1600 + HEADER,
        "max_window": 15,
        **TCP_NS226,
    }
    flows = [
        sc.tcp("ftp1", "S1", "S3", start="0s", **long),
        sc.tcp("ftp2", "S3", "S1", start="1s", **long),
        sc.tcp("ftp3", "S2", "S3", start="3s", **long),
    ]
    for i in range(extra):
        ms = round(1000 * first) + 100 * i
        flows.append(
            sc.tcp(
                f"x{i}",
                "S1",
                "S3",
                variant="sack",
                packet_size=1000 + HEADER,
                max_window=20,
                **TCP_NS226,
                start=f"{ms}ms",
            )
        )
    return sc.scenario(
        profile=PROFILE,
        duration=duration,
        warmup=warmup,
        seed=1,
        sample_interval=sample,
        nodes=nodes,
        links=links,
        flows=flows,
    )


def variants(w_q: float = W_Q) -> dict:
    """One variant per scheme; ``w_q`` from the paper's formula at the bottleneck's rate."""
    return {name: {"links[0].queue.aqm": {**aqm, "w_q": w_q}} for name, aqm in SCHEMES.items()}


# max_p bounds of each adaptive scheme (lower, upper): PSAND's lower/upper, ARED_Floyd's
# bottom/top (checked before a step, so max_p may pass them by one step: counted as at the
# bound), ARED_Feng's [0, 1] (ns-2 has none; RED caps p at 1).
BOUNDS = {"ARED_Feng": (0.0, 1.0), "ARED_Floyd": (0.01, 0.5), "PSAND": (0.01, 0.75)}


def at_bounds(max_p: pd.Series, lo: float, hi: float) -> tuple[float, float]:
    """Shares of the samples with max_p at or beyond its lower and its upper bound."""
    eps = 1e-9
    return float((max_p <= lo + eps).mean()), float((max_p >= hi - eps).mean())


def occupancy(res) -> dict[str, float]:
    """P(X = 0), P(25 < X ≤ 35) and P(|X − K_T| ≤ 2) at the bottleneck (Fig. 6), from the
    exact time-at-level distribution of the measurement window."""
    d = res.queue_dist
    d = d[d["queue"] == Q]
    n, f = d["n_pkts"].to_numpy(), d["fraction"].to_numpy()
    return {
        "p_empty": float(f[n == 0].sum()),
        "p_full": float(f[(n > 25) & (n <= 35)].sum()),
        "p_target": float(f[np.abs(n - K_T) <= 2].sum()),
    }


def _dynamics(
    ctx: Context, extra: int, bottleneck: str = "1.5Mbps", w_q: float = W_Q
) -> dict[str, pd.DataFrame]:
    """Figs. 3-4: one 100 s run per scheme, ``extra`` flows from 50 s."""
    fig = {20: "Fig. 3", 70: "Fig. 4", 100: "Figs. 3-4"}.get(extra, "dynamics")
    if bottleneck != "1.5Mbps":
        fig = f"sensitivity {bottleneck}"
    res = ctx.sweep(
        base(extra, 50.0, "100s", "0s", "100ms", bottleneck),
        variants=variants(w_q),
        runs=1,
        phase=f"{fig}: {extra} flows at 50 s",
    )
    out = {}
    for name, key in zip(res.runs["variant"], res.keys, strict=True):
        ts = ctx.timeseries(key)
        # RED has no max_p series: NaN.
        out[name] = (
            ts[ts["queue"] == Q].set_index("time_s").reindex(columns=["qlen_pkts", "avg", "max_p"])
        )
    return out


def _recovery(df: pd.DataFrame, t0: float = 50.0) -> float:
    """Seconds from t0 until the average queue, having risen after t0, is back at or below
    1.1·K_T (the paper: "bring the average queue size back down to its target")."""
    after = df[df.index > t0]["avg"]
    if after.isna().all():  # a scheme the ns-2.35 pass cannot run: no series
        return math.nan
    peak_t = after.idxmax()
    back = after[(after.index > peak_t) & (after <= 1.1 * K_T)]
    return float(back.index[0] - t0) if len(back) else float("inf")
