"""The CIOQ-RED paper's claims and their tolerances, written before the first full run of
the reproduction (2026-11-26) and printed in its report. Each entry: the paper's words, our
rule, and why that strictness. The paper's figures are not in the text we have, so every
rule is about the relations the text states, never about its values.

Notation, per switch size: O_a(s), I_a(s) the mean output queue and the mean input queue
per port (packets) of AQM a ∈ {D (DropTail), R (RED), C (CIOQ-RED)} at speedup s, over the
replications, c the 95% t-interval half-width; U_a(N), L_a(N) utilisation and loss rate at
N sessions (Figs. 3 and 5)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from aqmlab.claims import Claim, Declarations, Declared, fmt, judge
from aqmlab.stats import trend

# Claim 1: "significantly lower", "tremendously reduced" at low speedup (s ≤ 1.5, the
# paper's "low speedup (1 to 1.5)"): at most half of RED's and the intervals apart.
LOW_S = 1.5
LOW_FRACTION = 0.5
# Claim 2: "approach each other when s ≥ 2": within 15% of RED's.
CONVERGE_REL = 0.15
# Claim 3: "very low" input queue at "about 2 or higher": at the first speedup ≥ 2, each
# AQM's mean input queue per port at most 10% of its value at s = 1.1.
VANISH_FRACTION = 0.10
# Claim 4: "roughly the same": the largest of the three input means within 25% of the
# smallest, at every speedup where the largest is at least 0.5 packet per port (below that
# the ratio of near-zero means is noise, and the queues have vanished anyway).
EQUAL_RATIO = 1.25
EQUAL_FLOOR = 0.5
# Claim 6: "almost the same ... in terms of utilization", "does not compromise in any way":
# |U_C − U_R| ≤ 0.02 and U_R, U_C ≥ U_D − 0.02 at every load (2 points of utilisation:
# finer than a figure's eye can read, coarser than the replication noise we expect).
UTIL_ABS = 0.02
# Claim 7: "for a loss rate ... slightly larger than that in RED" (abstract) and "almost
# the same" (Sec. V-B): at every load where RED loses ≥ 1%, L_R − (c_R + c_C) ≤ L_C ≤
# 1.3·L_R + (c_R + c_C): not below RED's beyond noise, at most 30% above it.
LOSS_FLOOR = 0.01
LOSS_REL = 0.3
# ν sweep (beyond the paper; its Sec. V-A: too low ν and the input queues are not felt,
# too high and too many drops): Spearman ρ(ν, O_C) ≤ −0.9 and ρ(ν, L_C) ≥ 0.9 (one swap of
# neighbours allowed among six points) at s = 1.1.
RHO_MIN = 0.9

FULL = (
    "5 (4×4) and 3 (16×16) replications per point; quick size runs 1 replication of a few "
    "points, which gives no interval"
)

Row = Mapping[str, tuple[float, float]]


def _ci(c: float) -> float:
    """A missing interval (one replication) counts as zero width."""
    return 0.0 if c != c else c


def _m(r: Row, k: str) -> float:
    return r[k][0]


def _c(r: Row, k: str) -> float:
    return _ci(r[k][1])


def _low_output(speedups, by_s):
    bad, shown = [], []
    for i, s in enumerate(speedups):
        if s > LOW_S + 1e-9:
            continue
        rr, cc = by_s["RED"][i], by_s["CIOQ-RED"][i]
        o_r, o_c = _m(rr, "out_q"), _m(cc, "out_q")
        ok = o_c <= LOW_FRACTION * o_r and o_c + _c(cc, "out_q") < o_r - _c(rr, "out_q")
        shown.append(f"s {fmt(s)}: C {fmt(o_c)} vs R {fmt(o_r)}")
        if not ok:
            bad.append(fmt(s))
    return bad, "; ".join(shown)


def _converge(speedups, by_s):
    bad, shown = [], []
    for i, s in enumerate(speedups):
        if s < 2.0:
            continue
        o_r, o_c = _m(by_s["RED"][i], "out_q"), _m(by_s["CIOQ-RED"][i], "out_q")
        rel = abs(o_c - o_r) / o_r if o_r > 0 else float("inf")
        shown.append(f"s {fmt(s)}: C {fmt(o_c)} vs R {fmt(o_r)} ({fmt(100 * rel)}%)")
        if not rel <= CONVERGE_REL:
            bad.append(fmt(s))
    return bad, "; ".join(shown)


def _vanish(speedups, by_s):
    i2 = next(i for i, s in enumerate(speedups) if s >= 2.0)
    bad, shown = [], []
    for a, rows in by_s.items():
        base, at2 = _m(rows[0], "in_q"), _m(rows[i2], "in_q")
        shown.append(f"{a} {fmt(at2)} of {fmt(base)}")
        if not at2 <= VANISH_FRACTION * base:
            bad.append(a)
    return bad, f"at s {fmt(speedups[i2])} vs s {fmt(speedups[0])}: " + "; ".join(shown)


def _equal_inputs(speedups, by_s):
    bad, shown = [], []
    for i, s in enumerate(speedups):
        vals = [_m(by_s[a][i], "in_q") for a in by_s]
        hi, lo = max(vals), min(vals)
        if hi < EQUAL_FLOOR:
            continue
        ratio = hi / lo if lo > 0 else float("inf")
        shown.append(f"s {fmt(s)}: {fmt(ratio)}")
        if not ratio <= EQUAL_RATIO:
            bad.append(fmt(s))
    return bad, "max/min " + "; ".join(shown)


def _droptail_longest(speedups, by_s):
    bad, shown = [], []
    for i, s in enumerate(speedups):
        d = _m(by_s["DropTail"][i], "out_q")
        o = max(_m(by_s["RED"][i], "out_q"), _m(by_s["CIOQ-RED"][i], "out_q"))
        shown.append(f"s {fmt(s)}: D {fmt(d)} vs {fmt(o)}")
        if not d > o:
            bad.append(fmt(s))
    return bad, "; ".join(shown)


def _util(loads, by_k):
    bad, gaps = [], []
    for i, k in enumerate(loads):
        u = {a: _m(by_k[a][i], "util") for a in by_k}
        gap = abs(u["CIOQ-RED"] - u["RED"])
        below = u["DropTail"] - min(u["RED"], u["CIOQ-RED"])
        gaps.append((gap, below))
        if not (gap <= UTIL_ABS and below <= UTIL_ABS):
            bad.append(str(k))
    g = max(x for x, _ in gaps)
    b = max(y for _, y in gaps)
    return bad, f"largest |U_C − U_R| {fmt(g)}, largest U_D − min(U_R, U_C) {fmt(b)}"


def _loss(loads, by_k):
    bad, shown = [], []
    for i, k in enumerate(loads):
        rr, cc = by_k["RED"][i], by_k["CIOQ-RED"][i]
        l_r, l_c = _m(rr, "loss"), _m(cc, "loss")
        if l_r < LOSS_FLOOR:
            continue
        w = _c(rr, "loss") + _c(cc, "loss")
        shown.append(f"N {k}: C {fmt(l_c)} vs R {fmt(l_r)}")
        if not (l_r - w <= l_c <= (1 + LOSS_REL) * l_r + w):
            bad.append(str(k))
    return bad, "; ".join(shown) if shown else f"no load with L_R ≥ {LOSS_FLOOR}"


def _verdict(bad: list[str], shown: str, what: str):
    return lambda _v: judge(
        not bad,
        value=f"{shown} (fails at {', '.join(bad)})",
        needs=what,
        holds=shown,
    )


@dataclass(frozen=True)
class _Pointwise(Declared):
    """A claim judged at every point (speedup or load) of a figure: ``fn(points, rows)``
    gives the failing points and what is shown; ``over`` 0: speedups, 1: loads."""

    fn: Callable[..., tuple[list[str], str]] | None = None
    over: int = 0


def _pointwise(says: str, rule: str, why: str, fn, over: int) -> _Pointwise:
    """Its test fails naming the points and the declared rule."""
    test = lambda bad, shown: _verdict(bad, shown, rule)  # noqa: E731
    return _Pointwise(says, rule, why, test, FULL, fn=fn, over=over)


def _trade_off(nus: Sequence[float], o: Sequence[float], loss: Sequence[float]):
    """(holds, shown) of the ν trade-off: O_C falls and L_C rises with ν."""
    if any(b <= a for a, b in itertools.pairwise(nus)):
        raise ValueError(f"the ν sweep must be in increasing order: {list(nus)}")
    # ν increasing: the rank correlation with ν is the trend over the points' order.
    rho_o, rho_l = trend(o), trend(loss)
    shown = (
        f"ρ(ν, O_C) {fmt(rho_o)}, ρ(ν, L_C) {fmt(rho_l)}; O_C {', '.join(fmt(x) for x in o)}; "
        f"L_C {', '.join(fmt(x) for x in loss)}"
    )
    # 1e-12: scipy's ρ of one swap among six is not exactly 0.9 in floating point.
    return rho_o <= -RHO_MIN + 1e-12 and rho_l >= RHO_MIN - 1e-12, shown


def _as_ruled(says: str, rule: str, why: str) -> Declared:
    """A claim whose failure shows the measured text and the declared rule."""
    test = lambda ok, shown: lambda _v: judge(ok, value=shown, needs=rule, holds=shown)  # noqa: E731
    return Declared(says, rule, why, test, FULL)


CLAIMS = Declarations(
    "Tolerances, fixed before the first full run (paper's words → our rule → why):",
    {
        "1 low-speedup output queue": _pointwise(
            "'when the speedup is low, the output queue length for modified RED is "
            "significantly lower than that for original RED' (Sec. V-B.1)",
            f"at every s ≤ {LOW_S}: O_C ≤ {LOW_FRACTION}·O_R and O_C + c_C < O_R − c_R",
            "'significantly', 'tremendously reduced': a factor, not a few percent; the intervals "
            "apart make it more than noise",
            _low_output,
            0,
        ),
        "2 converge at s ≥ 2": _pointwise(
            "'their two output queue length curves approach each other when speedup s ≥ 2'",
            f"at every s ≥ 2: |O_C − O_R| ≤ {CONVERGE_REL}·O_R",
            "at s ≥ 2 the input backlog that separates the two is small; 15% allows what is left",
            _converge,
            0,
        ),
        "3 input queues vanish": _pointwise(
            "'When the speedup is about 2 or higher, the average length of the input queue is "
            "very low'",
            f"for each AQM at the first s ≥ 2: I_a ≤ {VANISH_FRACTION}·I_a(1.1)",
            "'very low' relative to the low-speedup backlog; 10% is an order of magnitude",
            _vanish,
            0,
        ),
        "4 input queues equal": _pointwise(
            "'the input queue lengths for the three algorithms are roughly the same'",
            f"at every s with max_a I_a ≥ {EQUAL_FLOOR}: max_a I_a ≤ {EQUAL_RATIO}·min_a I_a",
            "'roughly': 25%; below half a packet per port the ratio is noise",
            _equal_inputs,
            0,
        ),
        "5 DropTail longest output": _pointwise(
            "'the Droptail queue has the longest average output queue length'",
            "at every s: O_D > max(O_R, O_C)",
            "a strict order of means, as the figure shows it",
            _droptail_longest,
            0,
        ),
        "6 utilisation equal": _pointwise(
            "'the performance of original RED and modified RED are almost the same in terms of "
            "utilization'; 'does not compromise in any way the utilization ... as compared to "
            "RED and Droptail'",
            f"at every load: |U_C − U_R| ≤ {UTIL_ABS} and U_R, U_C ≥ U_D − {UTIL_ABS}",
            "2 points of utilisation: below what a figure shows as a difference",
            _util,
            1,
        ),
        "7 loss slightly larger": _pointwise(
            "'for a loss rate in the modified RED slightly larger than that in RED' (abstract); "
            "'almost the same ... loss rate' (Sec. V-B.2)",
            f"at every load with L_R ≥ {LOSS_FLOOR}: L_R − (c_R + c_C) ≤ L_C ≤ "
            f"(1 + {LOSS_REL})·L_R + (c_R + c_C)",
            "'slightly larger': not smaller beyond the noise, at most 30% larger",
            _loss,
            1,
        ),
        "ν trade-off": _as_ruled(
            "Sec. V-A: ν 'too low, the effect of input queues will not be felt ...; too high, "
            "too many packets getting dropped'",
            f"4×4, s = 1.1, ν ∈ the sweep: ρ(ν, O_C) ≤ −{RHO_MIN} and ρ(ν, L_C) ≥ {RHO_MIN}",
            "a monotone trade-off; one swap of neighbours among six points is allowed",
        ),
    },
)


def claims(
    figs: Mapping[str, tuple],
    nus: Sequence[float],
    nu_rows: Mapping[float, Sequence[Row]],
) -> list[Claim]:
    """figs[name] = (speedups, by_s, loads, by_k), name a claim prefix ("fig4x4",
    "crossbar 4x4"), by_s[aqm][i] and by_k[aqm][i] the metric rows (mean, ci) at
    speedups[i] and loads[i]."""
    out: list[Claim] = []
    for name, (speedups, by_s, loads, by_k) in figs.items():
        for key, d in CLAIMS.items():
            if isinstance(d, _Pointwise):
                bad, shown = d.fn(*((speedups, by_s) if d.over == 0 else (loads, by_k)))
                out.append(d.claim(f"{name} {key}", shown, bad, shown))
    row = nu_rows[min(nu_rows)]
    o = [r["out_q"][0] for r in row]
    loss = [r["loss"][0] for r in row]
    ok, shown = _trade_off(nus, o, loss)
    out.append(CLAIMS["ν trade-off"].claim("nu 4x4 ν trade-off at s = 1.1", shown, ok, shown))
    return out
