"""The URIO paper's claims, declared before the first run of the reproduction (2026-11-25,
before any simulation of it; aqmlab.claims): per claim the paper's words, our rule, why
that strictness and the rule as code; the report prints them as its tolerance table.

Notation: T_i is aggregate i's mean throughput over the replications (Mb/s), c_i its 95%
t-interval half-width; aggregates are numbered 1-5 in the order of the varied parameter
(Section 5: flows 5 → 25, access delay 1 → 100 ms, packet size 500 → 1500 B)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from aqmlab.claims import Claim, Declarations, Declared, fmt, judge
from aqmlab.stats import trend

# Eq. (4): CIR + (C − Σ CIR)/5 = 0.5 + (10 − 2.5)/5 = 2 Mb/s for every aggregate.
FAIR_MBPS = 2.0
# ±10% of the fair share. Fig. 5's values are only in the figure, which the paper's text
# (all we have) lacks; its Table 2 puts every scheme within 0.03 Mb/s of the expected share
# where it calls them fair, and "an equal amount of bandwidth" states no precision.
# The same band bounds the bias claims from the other side (UDP above 2.2, TCP below 1.8),
# so one result cannot count as both fair and biased; tighter would judge the model's TCP
# details (no SYN, exact RTT samples; docs/profiles.md) rather than the scheme.
BAND_MBPS = 0.2
# A bias needs the five means ordered with the parameter (Spearman's ρ over aggregates 1-5)
# and the two ends apart beyond both intervals. ρ ≥ 0.9 allows one swap of neighbours (ρ =
# 0.9 exactly) among five points: the middle aggregates may tie within noise; the paper's
# words ("the aggregate with a larger number of microflows obtains a greater share") are
# about the trend, and the end-to-end gap makes the trend more than noise.
RHO_MIN = 0.9

FULL = (
    "the paper's 10 replications of 100 s; quick size runs 2 of 20 s, where the TSWTCM "
    "meters (1 s window) and the core's average (w_q 0.002) are still near their start"
)

# The main sweep; its configurations are "<MAIN_PHASE>: <experiment> <scheme>".
MAIN_PHASE = "Fig. 5 and Table 2"

# The rules, each shared by the claims below that the paper states in the same terms:
# our rule in words, why that strictness, the rule as code.
_BIAS = {
    "rule": f"Spearman's ρ(parameter, T_i) ≥ {RHO_MIN} in the claimed direction (≤ −{RHO_MIN} "
    "for the access delay) and the first and last aggregates' intervals apart: "
    "T_last − c_last > T_first + c_first (reversed for the delay)",
    "why": "ρ ≥ 0.9 allows one swap of neighbours among five; the end-to-end gap beyond both "
    "intervals makes the trend more than noise",
    "test": lambda row, direction: bias_check(row, direction),
    "needs_full_size": FULL,
}
_BAND = {
    "rule": f"every aggregate's mean T_i within {FAIR_MBPS:g} ± {BAND_MBPS:g} Mb/s (±10% of "
    "the Eq. (4) fair share)",
    "why": "the paper's fair rows in Table 2 sit within 0.03 Mb/s of the expected share; 10% "
    "allows the model's TCP details but not a bias of RIO's size",
    "test": lambda row: band_check(row),
    "needs_full_size": FULL,
}
_UDP = {
    "rule": f"both UDP aggregates (4, 5) above {FAIR_MBPS + BAND_MBPS:g} Mb/s and all three "
    f"TCP aggregates (1-3) below {FAIR_MBPS - BAND_MBPS:g} Mb/s (outside the band on "
    "the side the paper names)",
    "why": "the same band as the fairness claims, so 'biased' and 'fair' cannot both hold",
    "test": lambda row: udp_check(row),
    "needs_full_size": FULL,
}
_DRIO_BIAS = "§5.1: 'With both DRIO and URIO, each aggregate obtains an equal amount of bandwidth'"
_DRIO_RTT = "§5.2: 'With both DRIO and URIO, this bias is fully overcome'"
_SLIGHTLY = "§5.4: 'Under DRIO, this bias is only slightly mitigated'"


def _mitigated(d: float, r: float):
    return lambda _v: judge(
        d <= r,
        value=f"DRIO {fmt(d)} vs RIO {fmt(r)}",
        needs="DRIO ≤ RIO",
        holds=f"DRIO {fmt(d)} ≤ RIO {fmt(r)}",
    )


def _each_within(ours: Sequence[float], targets: Sequence[float], rel: float, abs_: float):
    """Every aggregate's mean within abs_ + rel·target of its target."""
    off = [
        i + 1
        for i, (m, e) in enumerate(zip(ours, targets, strict=True))
        if abs(m - e) > abs_ + rel * e
    ]
    shown = ", ".join(fmt(m) for m in ours)
    band = f"± {fmt(abs_)}" if rel == 0 else f"±{100 * rel:g}%"
    return lambda _v: judge(
        not off,
        value=f"{shown} (aggregates {', '.join(map(str, off))} outside)",
        needs=f"each within {band} of {', '.join(fmt(e) for e in targets)}",
        holds=f"{shown} each within {band} of " + ("the paper's" if rel == 0 else "Expected"),
    )


CLAIMS = Declarations(
    "Tolerances, fixed before the first run (paper's words → our rule → why):",
    {
        "fig5a RIO biased by microflows": Declared(
            "§5.1: 'Under RIO, the aggregate with a larger number of microflows obtains a "
            "greater share of the bandwidth' (5 → 25 flows)",
            **_BIAS,
        ),
        "fig5b RIO biased by RTT": Declared(
            "§5.2: 'Under RIO, aggregates cannot achieve its proportional share of bandwidth' "
            "(access delay 1 → 100 ms; the shorter RTT gets more)",
            **_BIAS,
        ),
        "fig5c RIO biased by packet size": Declared(
            "§5.3: 'Through RIO, the aggregate that is sending larger packets consumes more "
            "of the available bandwidth' (500 → 1500 B)",
            **_BIAS,
        ),
        "fig5d RIO: UDP above, TCP below": Declared(
            "§5.4: 'With RIO, UDP traffic consumes more than its available throughput "
            "impacting TCP traffic negatively'",
            **_UDP,
        ),
        "fig5a DRIO fair despite microflows": Declared(_DRIO_BIAS, **_BAND),
        "fig5b DRIO fair despite RTT": Declared(_DRIO_RTT, **_BAND),
        "fig5c DRIO biased by packet size": Declared(
            "§5.3: 'DRIO cannot correct this bias either since it does not take into account "
            "that packets may have different sizes'",
            **_BIAS,
        ),
        "fig5d DRIO: UDP above, TCP below": Declared(_SLIGHTLY, **_UDP),
        "fig5d DRIO mitigates UDP": Declared(
            _SLIGHTLY,
            "DRIO's mean UDP aggregate throughput ≤ RIO's (the two UDP aggregates averaged)",
            "'mitigated' is a direction only; 'slightly' is covered by the udp rule above",
            _mitigated,
            FULL,
        ),
        "fig5a URIO fair despite microflows": Declared(_DRIO_BIAS, **_BAND),
        "fig5b URIO fair despite RTT": Declared(_DRIO_RTT, **_BAND),
        "fig5c URIO fair despite packet size": Declared(
            "§5.3: 'Only URIO can make the sharing of bandwidth insensitive to the packet "
            "sizes of the aggregates'",
            **_BAND,
        ),
        "fig5d URIO fair despite UDP": Declared(
            "§5.4: 'only URIO can completely isolate UDP traffic and share the extra "
            "bandwidth in a TCP-friendly manner'",
            **_BAND,
        ),
        "table 2 interval": Declared(
            "Table 2: each scheme's mean per aggregate with its 95% interval (± 0.01 Mb/s)",
            "our mean within the paper's interval: |T_i − paper_i| ≤ the paper's half-width "
            "(0.01 Mb/s)",
            "the issue asks for the paper's intervals as printed; where the model's TCP or "
            "header accounting moves a mean by more, the report says so",
            # 1e-9: a difference of 0.01 that floating point makes 0.01000...01 is inside.
            lambda ours, paper: _each_within(ours, paper, 0.0, 0.01 + 1e-9),
            FULL,
        ),
        "table 2 profile": Declared(
            "'RIO, DRIO and URIO schemes distribute bandwidth according to the subscribed "
            "profiles' (§5.5; Expected = CIR + (10 − 5)/5 = CIR + 1 Mb/s)",
            "every aggregate's mean within ±5% of its Expected share, for each scheme",
            "the paper's own rows are within 1.2% of Expected; 5% keeps the five Expected "
            "values (0.25 Mb/s apart, 10-17%) distinguishable",
            lambda ours, expected: _each_within(ours, expected, 0.05, 0.0),
            FULL,
        ),
    },
)


# (mean, ci95) per aggregate, aggregates 1..5 in order.
Row = Sequence[tuple[float, float]]


def bias_check(row: Row, direction: int) -> Callable[[object], tuple[bool, str]]:
    """direction +1: throughput grows with the parameter; −1: it falls."""
    means = [m for m, _ in row]
    rho = trend(means)  # Spearman's ρ of the aggregates' order against the means
    (m0, c0), (m1, c1) = row[0], row[-1]
    gap = direction * (m1 - m0) - (c0 + c1)

    def check(_v: object) -> tuple[bool, str]:
        # 1e-12: scipy's ρ of one swap among five is 0.8999999999999998, not 0.9.
        ok = direction * rho >= RHO_MIN - 1e-12 and gap > 0
        shown = f"ρ {fmt(rho)}, ends {fmt(m0)} ± {fmt(c0)} → {fmt(m1)} ± {fmt(c1)}"
        want = "≥" if direction > 0 else "≤ −"
        return judge(
            ok,
            value=shown,
            needs=f"ρ {want}{RHO_MIN} and the end intervals apart in that direction",
            holds=shown,
        )

    return check


def band_check(row: Row) -> Callable[[object], tuple[bool, str]]:
    means = [m for m, _ in row]
    out = [i + 1 for i, m in enumerate(means) if not abs(m - FAIR_MBPS) <= BAND_MBPS]

    def check(_v: object) -> tuple[bool, str]:
        shown = ", ".join(fmt(m) for m in means)
        return judge(
            not out,
            value=shown + f" (aggregates {', '.join(map(str, out))} outside)",
            needs=f"each in [{fmt(FAIR_MBPS - BAND_MBPS)}, {fmt(FAIR_MBPS + BAND_MBPS)}]",
            holds=f"{shown} each in {fmt(FAIR_MBPS)} ± {fmt(BAND_MBPS)}",
        )

    return check


def udp_check(row: Row) -> Callable[[object], tuple[bool, str]]:
    means = [m for m, _ in row]
    tcp, udp = means[:3], means[3:]
    ok = all(m > FAIR_MBPS + BAND_MBPS for m in udp) and all(m < FAIR_MBPS - BAND_MBPS for m in tcp)

    def check(_v: object) -> tuple[bool, str]:
        shown = f"TCP {', '.join(fmt(m) for m in tcp)}; UDP {', '.join(fmt(m) for m in udp)}"
        return judge(
            ok,
            value=shown,
            needs=f"UDP each > {fmt(FAIR_MBPS + BAND_MBPS)}, TCP each < "
            f"{fmt(FAIR_MBPS - BAND_MBPS)}",
            holds=shown,
        )

    return check


def _uses(cid: str, scheme: str) -> tuple[str, ...]:
    """What a claim reads: its scheme's (and, for the UDP comparison, RIO's) runs of the
    experiment its id names (5a-5d; Table 2 is experiment e)."""
    x = "e" if cid.startswith("t2") else cid[4]
    schemes = (scheme, "RIO") if cid == "fig5d DRIO mitigates UDP" else (scheme,)
    return tuple(f"{MAIN_PHASE}: {x} {s}" for s in schemes)


def claims(
    t: Mapping[str, Mapping[str, Row]],
    table2: Mapping[str, Row],
    paper_table2: Mapping[str, Sequence[float]],
    expected: Sequence[float],
) -> list[Claim]:
    """t[scheme][experiment] = the five (mean, ci) of experiments a-d; table2[scheme] the
    same for experiment e; paper_table2[scheme] the paper's five means."""

    def fig5(cid: str, scheme: str, *refs) -> Claim:
        x = cid[4]  # "fig5a ..." -> experiment a
        means = ", ".join(fmt(m) for m, _ in t[scheme][x])
        return CLAIMS[cid].claim(
            cid, means, t[scheme][x], *refs, unit="Mb/s per aggregate", uses=_uses(cid, scheme)
        )

    out = [
        fig5("fig5a RIO biased by microflows", "RIO", 1),
        fig5("fig5b RIO biased by RTT", "RIO", -1),
        fig5("fig5c RIO biased by packet size", "RIO", 1),
        fig5("fig5d RIO: UDP above, TCP below", "RIO"),
        fig5("fig5a DRIO fair despite microflows", "DRIO"),
        fig5("fig5b DRIO fair despite RTT", "DRIO"),
        fig5("fig5c DRIO biased by packet size", "DRIO", 1),
        fig5("fig5d DRIO: UDP above, TCP below", "DRIO"),
    ]
    d_udp = sum(m for m, _ in t["DRIO"]["d"][3:]) / 2
    r_udp = sum(m for m, _ in t["RIO"]["d"][3:]) / 2
    cid = "fig5d DRIO mitigates UDP"
    out.append(
        CLAIMS[cid].claim(cid, d_udp, d_udp, r_udp, unit="Mb/s (UDP mean)", uses=_uses(cid, "DRIO"))
    )
    for x, what in [("a", "microflows"), ("b", "RTT"), ("c", "packet size"), ("d", "UDP")]:
        out.append(fig5(f"fig5{x} URIO fair despite {what}", "URIO"))
    for s, paper in paper_table2.items():
        ours = [m for m, _ in table2[s]]
        shown = ", ".join(fmt(m) for m in ours)
        for key, cid, target in [
            ("table 2 interval", f"t2 {s} within the paper's intervals", paper),
            ("table 2 profile", f"t2 {s} by subscribed profile", expected),
        ]:
            out.append(
                CLAIMS[key].claim(
                    cid, shown, ours, target, unit="Mb/s per aggregate", uses=_uses(cid, s)
                )
            )
    return out
