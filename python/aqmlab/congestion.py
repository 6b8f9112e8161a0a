"""Builders of a TCP flow's ``congestion`` table (docs/scenarios.md, "Congestion-control
tables"), one per controller of the engine's registry; ``aqmlab.scenario`` re-exports them
(``sc.cubic()``)."""

from __future__ import annotations

from typing import Any

from aqmlab._fields import opt as _opt


def reno() -> dict[str, Any]:
    """Reno's window growth and halving (RFC 5681), a TCP flow's default controller
    (docs/scenarios.md, `congestion`)."""
    return {"type": "reno"}


def cubic(
    *,
    c: float | None = None,
    beta: float | None = None,
    fast_convergence: bool | None = None,
    reno_friendly_alpha: str | None = None,
    hystart: bool = False,
) -> dict[str, Any]:
    """CUBIC (RFC 9438) as a TCP flow's controller. Defaults: c 0.4, beta 0.7,
    fast_convergence true, reno_friendly_alpha "rfc9438" ("rfc8312": Linux's and ns-3's
    alpha, kept for the whole epoch); ``hystart=True`` runs HyStart++ (RFC 9406) in the
    first slow start (docs/congestion/cubic.md)."""
    return _opt(
        {"type": "cubic"},
        c=c,
        beta=beta,
        fast_convergence=fast_convergence,
        reno_friendly_alpha=reno_friendly_alpha,
        hystart=True if hystart else None,
    )


def dctcp(*, g: float | None = None, initial_alpha: float | None = None) -> dict[str, Any]:
    """DCTCP (RFC 8257) as a TCP flow's controller; the flow needs ``ecn=True``, and its
    receiver then echoes CE per segment. Defaults: g 1/16, initial_alpha 1."""
    return _opt({"type": "dctcp"}, g=g, initial_alpha=initial_alpha)


def bbr(**fields: Any) -> dict[str, Any]:
    """BBR v1 as a TCP flow's controller (always paced); its fields and Linux's defaults are
    in docs/scenarios.md (`bbr`), e.g. ``bbr(probe_rtt_interval="5s")``."""
    return _opt({"type": "bbr"}, **fields)


def prague(
    *,
    g: float | None = None,
    alpha_mode: str | None = None,
    rtt_scaling: str | None = None,
    rtt_target: str | None = None,
    rtt_transition: int | None = None,
    pacing_ss_ratio: float | None = None,
    pacing_ca_ratio: float | None = None,
    classic_ecn_fallback: str | None = None,
) -> dict[str, Any]:
    """TCP Prague (draft-briscoe-iccrg-prague-congestion-control, Linux L4STeam
    ``tcp_prague.c``) as a TCP flow's controller; the flow needs ``ecn=True`` and
    ``ect="ect1"``, always paces and sends every packet ECT(1). Defaults (Linux's): g 1/16,
    alpha_mode "halve_at_first_mark", rtt_scaling "rate" below rtt_target "25ms" after
    rtt_transition 4 rounds, pacing ratios 2 and 1, classic_ecn_fallback "off"
    (docs/congestion/prague.md)."""
    return _opt(
        {"type": "prague"},
        g=g,
        alpha_mode=alpha_mode,
        rtt_scaling=rtt_scaling,
        rtt_target=rtt_target,
        rtt_transition=rtt_transition,
        pacing_ss_ratio=pacing_ss_ratio,
        pacing_ca_ratio=pacing_ca_ratio,
        classic_ecn_fallback=classic_ecn_fallback,
    )


__all__ = ["bbr", "cubic", "dctcp", "prague", "reno"]
