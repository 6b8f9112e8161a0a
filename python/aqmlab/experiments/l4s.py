"""L4S coexistence (RFC 9330, RFC 9332): one classic CUBIC flow against one TCP Prague flow
over a shared bottleneck, for every pair of base RTTs, under DualPI2, FQ-CoDel in its L4S
mode, PIE in its L4S mode and DropTail: throughput balance, queueing delay of each kind of
flow, marking and drop rates, utilisation."""

from __future__ import annotations

import math

from aqmlab import buffers as bf
from aqmlab import scenario as sc
from aqmlab.claims import Claim, Declarations, Declared, at_least, at_most, fmt, judge, within
from aqmlab.reproduce import Context, Experiment

BOTTLENECK = "r1->r2"
#: The bottleneck's own one-way delay; the access links carry the rest of each base RTT.
CORE_DELAY_MS = 0.5
PACKET = 1500
LIMIT = 1000  # packets: 1.2 bandwidth-delay products at 100 Mb/s and 100 ms
WARMUP_S = 10.0
QUANTILES = [0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99]

AQMS = {
    "dualpi2": bf.dualpi2(),
    "fq_codel": sc.fq_codel(ce_threshold="1ms", ce_threshold_ecn="ect1"),
    "pie": sc.pie(ecn=True, l4s=True),
    "droptail": sc.droptail(),
}

RFC9330 = (
    'B. Briscoe (Ed.), K. De Schepper, M. Bagnulo, G. White, "Low Latency, Low Loss, and '
    'Scalable Throughput (L4S) Internet Service: Architecture", RFC 9330, January 2023'
)
RFC9332 = (
    'K. De Schepper, B. Briscoe (Ed.), G. White, "Dual-Queue Coupled Active Queue Management '
    '(AQM) for Low Latency, Low Loss, and Scalable Throughput (L4S)", RFC 9332, January 2023'
)


def _ratio_within(lo: float, hi: float):
    def check(v: float) -> tuple[bool, str]:
        ok = math.isfinite(float(v)) and lo <= float(v) <= hi
        return judge(
            ok,
            value=fmt(v),
            needs=f"in [{fmt(lo)}, {fmt(hi)}]",
            holds=f"{fmt(v)} in [{fmt(lo)}, {fmt(hi)}]",
        )

    return check


def _share_at_least(share: float):
    def check(v: float) -> tuple[bool, str]:
        return judge(
            float(v) >= share,
            value=f"{fmt(100 * float(v))}% of the pairs",
            needs=f"≥ {fmt(100 * share)}% of the pairs",
            holds=f"{fmt(100 * float(v))}% of the pairs ≥ {fmt(100 * share)}%",
        )

    return check


CLAIMS = Declarations(
    "Tolerances, fixed before the runs (the RFC's words → our rule → why):",
    {
        "balance": Declared(
            "RFC 9332 §2.1: 'The Coupled AQM achieves safe coexistence by making the Classic "
            "drop probability p_C proportional to the square of the coupled L4S probability "
            "p_CL. … This makes the Reno flow rate roughly equal the DCTCP flow rate'; §2.2: "
            "'each get equivalent throughput to DCTCP flows (all other factors, such as RTT, "
            "being equal)'",
            "DualPI2, equal base RTTs: Prague's throughput / CUBIC's in [0.5, 2]",
            "'roughly equal' with no stated band; App. C.2 derives k = 2 for equality at a "
            "25 ms base RTT (k_reno 1.97, k_creno 2.22) and warns that actual RTTs differ "
            "even when base RTTs are equal, so a factor of 2 either way; it still fails a "
            "coupling that starves one kind",
            lambda: _ratio_within(0.5, 2.0),
        ),
        "L delay": Declared(
            "RFC 9330 §1: 'Very low queuing latency means less than 1 millisecond (ms) on "
            "average and less than about 2 ms at the 99th percentile'; RFC 9332 §1.4: 'the "
            "AQM kept the average queuing delay below 1 ms …, with the 99th percentile being "
            "no worse than 2 ms'",
            "DualPI2: the L queue's p99 sojourn ≤ 2 ms in every RTT pair (the mean is shown "
            "in the table)",
            "the RFCs' own number; the rule written before the first run allowed 3 ms and "
            "was tightened to the RFC's 2 ms when its words were found, never loosened",
            lambda: at_most(0.002),
        ),
        "C delay": Declared(
            "RFC 9332 App. A.1: 'target = 15 ms % Queue delay target' and 'Note that p' "
            "solely depends on the queuing time in the Classic queue.'",
            "DualPI2: the C queue's mean sojourn within 15 ms ± 20% in every RTT pair",
            "the controller integrates the error to zero, but with one CUBIC flow the C queue "
            "is sometimes empty (its sawtooth), which pulls the mean below the target; "
            "± 20% allows that and fails a controller that does not steer",
            lambda: within(0.015, rel=0.2),
        ),
        "utilisation": Declared(
            "RFC 9330 §1: 'queuing delay under heavy load is roughly 1-2 ms at the 99th "
            "percentile without losing link utilization'",
            "DualPI2: bottleneck utilisation ≥ 0.95 in every RTT pair",
            "two greedy flows fill the link; a shallow L step and PI2 at 15 ms leave it idle "
            "only between sawtooth teeth",
            lambda: at_least(0.95),
        ),
        "better latency": Declared(
            "RFC 9330 Abstract: 'The aim is for L4S latency and throughput to be usually "
            "much better (and rarely worse) while typically not impacting Classic "
            "performance.'",
            "the Prague flow's p99 queueing delay (its sampled srtt less the base RTT) under "
            "DualPI2 is below that under DropTail in at least 90% of the RTT pairs",
            "'usually ... rarely worse': 90% of the pairs; DropTail (a 1000-packet buffer) "
            "is the single queue L4S is meant to improve on",
            lambda: _share_at_least(0.9),
        ),
        "classic unharmed": Declared(
            "RFC 9330 Abstract: '… while typically not impacting Classic performance.'; "
            "RFC 9332 §1: 'without compromising the performance of the Classic traffic, "
            "relative to a single queue'",
            "the CUBIC flow's throughput under DualPI2 ≥ 0.5 × its throughput under PIE "
            "(a single-queue AQM) in at least 90% of the RTT pairs",
            "'typically not impacting': 90% of the pairs; sharing with a scalable flow may "
            "move CUBIC's share, but not below half of what it gets in a single PIE queue "
            "beside the same Prague flow",
            lambda: _share_at_least(0.9),
        ),
    },
)


def base_rtt_s(rtt_ms: float, rate_bps: float) -> float:
    """Propagation RTT plus one data packet's serialisation at the bottleneck."""
    return rtt_ms / 1000 + PACKET * 8 / rate_bps


def network(aqm: dict, rate: str, rtt_prague_ms: float, rtt_cubic_ms: float, duration: str):
    nodes = [sc.router("r1"), sc.router("r2")]
    links = [
        sc.link(
            "r1",
            "r2",
            bandwidth=rate,
            delay=f"{CORE_DELAY_MS}ms",
            queue=sc.queue(limit_pkts=LIMIT, aqm=aqm),
        )
    ]
    flows = []
    for name, rtt, cc, kw in (
        ("prague", rtt_prague_ms, sc.prague(), {"ecn": True, "ect": "ect1"}),
        ("cubic", rtt_cubic_ms, sc.cubic(), {}),
    ):
        access = f"{(rtt / 2 - CORE_DELAY_MS) / 2}ms"
        nodes += [sc.host(f"s_{name}"), sc.host(f"d_{name}")]
        for a, b in ((f"s_{name}", "r1"), ("r2", f"d_{name}")):
            links.append(
                sc.link(a, b, bandwidth="1Gbps", delay=access, queue=sc.queue(limit_pkts=10000))
            )
        flows.append(
            sc.tcp(
                name, f"s_{name}", f"d_{name}", packet_size=PACKET, congestion=cc, trace=True, **kw
            )
        )
    return sc.scenario(
        duration=duration,
        warmup=f"{WARMUP_S:g}s",
        seed=1,
        sample_interval="10ms",
        nodes=nodes,
        links=links,
        flows=flows,
    )


def metrics(res) -> dict[str, float]:
    """Per run (the sweep's ``extra``, in the worker): each flow's throughput and queueing
    delay quantiles (srtt sampled every 10 ms less the base RTT), the bottleneck's
    utilisation, drop and mark rates, and its sub-queues' sojourns where it has them."""
    q = res.queues.set_index("name").loc[BOTTLENECK]
    f = res.flows.set_index("name")
    out = {
        "util": float(q["utilization"]),
        "drop_rate": float(q[[c for c in q.index if c.startswith("dropped_")]].sum())
        / max(float(q["arrivals"]), 1.0),
        "mark_rate": float(q[[c for c in q.index if c.startswith("marked_")]].sum())
        / max(float(q["arrivals"]), 1.0),
    }
    ts = res.flow_timeseries
    ts = ts[ts["time_s"] >= WARMUP_S]
    for name in ("prague", "cubic"):
        out[f"{name}_bps"] = float(f.loc[name, "throughput_bps"])
        srtt = ts[ts["flow"] == name]["srtt_s"].dropna()
        for p in QUANTILES:
            out[f"{name}_q{round(100 * p):02d}"] = (
                float(srtt.quantile(p)) if len(srtt) else math.nan
            )
    sub = res.tables.get("subqueues")
    if sub is not None:
        sub = sub[sub["queue"] == BOTTLENECK].set_index("subqueue")
        for k in ("L", "C"):
            if k in sub.index:
                out[f"{k}_p99_s"] = float(sub.loc[k, "sojourn_p99_s"])
                out[f"{k}_mean_s"] = float(sub.loc[k, "sojourn_mean_s"])
    return out


def _plan(quick: bool):
    if quick:
        return ["40Mbps"], [20.0, 50.0], "20s"
    return ["40Mbps", "100Mbps"], [5.0, 20.0, 50.0, 100.0], "40s"


def run(ctx: Context) -> list[Claim]:
    rates, rtts, duration = _plan(ctx.quick)
    pairs = [(rp, rc) for rp in rtts for rc in rtts]
    variants = {}
    for rate in rates:
        for aqm in AQMS:
            for rp, rc in pairs:
                variants[f"{aqm} {rate} P{rp:g} C{rc:g}"] = (aqm, rate, rp, rc)
    first = next(iter(variants.values()))
    res = ctx.sweep(
        network(AQMS[first[0]], first[1], first[2], first[3], duration),
        variants={lab: _assign(aqm, rate, rp, rc) for lab, (aqm, rate, rp, rc) in variants.items()},
        extra=metrics,
        summary=False,
        timeseries=False,
        phase=f"{len(variants)} configurations",
    )
    rows = {r["variant"]: r.to_dict() for _, r in res.runs.iterrows()}
    m = {v: rows[lab] for lab, v in variants.items() if lab in rows}
    if len(m) != len(variants):
        raise RuntimeError(f"{len(m)} of {len(variants)} runs finished:\n{res.failures}")
    for aqm, rate, rp, rc in variants.values():
        r = m[(aqm, rate, rp, rc)]
        r["base_prague"] = base_rtt_s(rp, _bps(rate))
        r["base_cubic"] = base_rtt_s(rc, _bps(rate))
    claims = _claims(m, rates, rtts, pairs)
    from aqmlab.experiments import l4s_plots

    l4s_plots.figures(ctx, m, rates, rtts, AQMS, QUANTILES)
    ctx.notes.append(
        f"One CUBIC (Not-ECT) and one TCP Prague (ECT(1), DCTCP-style feedback standing for "
        f"AccECN) flow, each on its own host pair, {duration} with a {WARMUP_S:g} s warm-up "
        f"(measured after it), packets of {PACKET} bytes, a {LIMIT}-packet shared buffer at "
        f"the bottleneck ({', '.join(rates)}; {CORE_DELAY_MS} ms of its one-way delay, the "
        "access links the rest of each base RTT). AQMs: DualPI2 with Linux's defaults, "
        "FQ-CoDel with ce_threshold 1 ms for ECT(1) (Linux's L4S setting), PIE with ns-3's "
        "L4S mode (ECT(1) step-marked at 1 ms, exempt from PIE's probability) and ECN for "
        "classic packets, DropTail. Queueing delay of a flow: its srtt sampled every 10 ms, "
        "less the base RTT (propagation plus one packet's serialisation at the bottleneck); "
        "srtt is smoothed (RFC 6298's 1/8), so its p99 understates the packets' own."
    )
    return claims


def _pair(p: tuple[float, float]) -> str:
    return f"Prague {p[0]:g} ms / CUBIC {p[1]:g} ms"


def _bps(rate: str) -> float:
    return float(rate.removesuffix("Mbps")) * 1e6


def _assign(aqm: str, rate: str, rp: float, rc: float) -> dict:
    return {
        "links[0].queue.aqm": AQMS[aqm],
        "links[0].bandwidth": rate,
        "links[1].delay": f"{(rp / 2 - CORE_DELAY_MS) / 2}ms",
        "links[2].delay": f"{(rp / 2 - CORE_DELAY_MS) / 2}ms",
        "links[3].delay": f"{(rc / 2 - CORE_DELAY_MS) / 2}ms",
        "links[4].delay": f"{(rc / 2 - CORE_DELAY_MS) / 2}ms",
    }


def _claims(m, rates, rtts, pairs) -> list[Claim]:
    claims = []
    for rate in rates:
        for rtt in rtts:
            r = m[("dualpi2", rate, rtt, rtt)]
            ratio = r["prague_bps"] / r["cubic_bps"]
            claims.append(
                CLAIMS["balance"].claim(
                    f"balance {rate} RTT {rtt:g} ms",
                    ratio,
                    detail=f"Prague {fmt(r['prague_bps'] / 1e6)} Mb/s, "
                    f"CUBIC {fmt(r['cubic_bps'] / 1e6)} Mb/s",
                )
            )
        dp = [m[("dualpi2", rate, rp, rc)] for rp, rc in pairs]
        at = {pair: m[("dualpi2", rate, *pair)] for pair in pairs}
        lp, lr = max(at.items(), key=lambda kv: kv[1]["L_p99_s"])
        claims.append(
            CLAIMS["L delay"].claim(
                f"L p99 {rate}",
                lr["L_p99_s"],
                unit="s",
                detail=f"the largest over the RTT pairs, at {_pair(lp)} (mean there "
                f"{fmt(1e3 * lr['L_mean_s'])} ms)",
            )
        )
        cp, cr = max(at.items(), key=lambda kv: abs(kv[1]["C_mean_s"] - 0.015))
        claims.append(
            CLAIMS["C delay"].claim(
                f"C mean {rate}",
                cr["C_mean_s"],
                unit="s",
                detail=f"the RTT pair farthest from 15 ms, {_pair(cp)}; over all pairs "
                f"{fmt(1e3 * min(r['C_mean_s'] for r in dp))}-"
                f"{fmt(1e3 * max(r['C_mean_s'] for r in dp))} ms",
            )
        )
        up, ur = min(at.items(), key=lambda kv: kv[1]["util"])
        claims.append(
            CLAIMS["utilisation"].claim(
                f"utilisation {rate}",
                ur["util"],
                detail=f"the lowest over the RTT pairs, at {_pair(up)}",
            )
        )
        better = [
            m[("dualpi2", rate, rp, rc)]["prague_q99"] - m[("dualpi2", rate, rp, rc)]["base_prague"]
            < m[("droptail", rate, rp, rc)]["prague_q99"]
            - m[("droptail", rate, rp, rc)]["base_prague"]
            for rp, rc in pairs
        ]
        claims.append(
            CLAIMS["better latency"].claim(
                f"Prague p99 delay, DualPI2 vs DropTail, {rate}",
                sum(better) / len(better),
                detail=f"{sum(better)} of {len(better)} pairs",
            )
        )
        kept = [
            m[("dualpi2", rate, rp, rc)]["cubic_bps"] >= 0.5 * m[("pie", rate, rp, rc)]["cubic_bps"]
            for rp, rc in pairs
        ]
        pie_prague = max(m[("pie", rate, rp, rc)]["prague_bps"] for rp, rc in pairs)
        claims.append(
            CLAIMS["classic unharmed"].claim(
                f"CUBIC throughput, DualPI2 vs PIE, {rate}",
                sum(kept) / len(kept),
                detail=f"{sum(kept)} of {len(kept)} pairs; under PIE's L4S mode Prague gets at "
                f"most {fmt(pie_prague / 1e6)} Mb/s of {rate} in any pair (ECT(1) step-marked "
                "above 1 ms in a queue PIE holds at 15 ms), so CUBIC's PIE baseline is nearly "
                "the whole link",
            )
        )
    return claims


EXPERIMENT = Experiment(
    name="l4s",
    title="L4S: classic CUBIC and TCP Prague sharing DualPI2, FQ-CoDel, PIE and DropTail",
    source=f"{RFC9332}; {RFC9330}",
    run=run,
    declared=CLAIMS,
    description="One CUBIC and one Prague flow over a 40 (and 100) Mb/s bottleneck, base RTTs "
    "of 5, 20, 50 and 100 ms in every pairing (20 and 50 ms at quick size).",
)
