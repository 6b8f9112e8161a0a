"""Latency under load: the RRUL test (Realtime Response Under Load) of Flent, on a simulated
home gateway, for each AQM named (``aqmlab rrul``; docs/rrul.md).

The mix follows Flent's ``rrul`` test: four TCP uploads and four TCP downloads, one per
DiffServ class (BE, BK, CS5, EF), and latency probes beside them (UDP echoes marked BE, BK
and EF, and an unmarked "ICMP" echo), one request every 200 ms each. The probes run for the
whole test; the TCP flows start ``delay`` seconds in and stop ``delay`` seconds before the
end, so that each probe series begins and ends on the idle path (Flent's ``DELAY``).

The bottleneck is the gateway's access link: 20 Mb/s down, 5 Mb/s up (``reverse_bandwidth``),
a base RTT of 40 ms by default, and the AQM under test on both of its queues. The summary
table (goodput each way, probe latency mean/median/p95/p99, probe loss) covers the loaded
part of the test only, as Flent's ``cutoff`` does for its CDF and combined box plots.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import buffers as bf
from aqmlab import scenario as sc

#: Flent's rrul TCP flows: (label, DiffServ class, precedence = DSCP >> 3).
CLASSES = [("BE", "CS0", 0), ("BK", "CS1", 1), ("CS5", "CS5", 5), ("EF", "EF", 5)]
#: The probes: (label, precedence, request size in bytes). Flent's UDP pings are netperf
#: UDP_RR transactions (1-byte payloads: 29 bytes of IP and UDP), its ICMP ping sends 84
#: bytes (56 of data, the ICMP and IP headers).
PROBES = [("UDP BE", 0, 29), ("UDP BK", 1, 29), ("UDP EF", 5, 29), ("ICMP", 0, 84)]
#: Flent's STEP_SIZE: the sampling step of its series, and ping's interval.
STEP_S = 0.2
PACKET = 1500
#: The gateway's buffer on each side of the access link, in packets, for every AQM: at
#: 5 Mb/s up, 256 full-size packets wait 614 ms; at 20 Mb/s down, 154 ms.
BUFFER_PKTS = 256
DOWN = "20Mbps"
UP = "5Mbps"
DOWN_BPS, UP_BPS = 20e6, 5e6

#: The AQMs by the names the CLI takes, in report order: label and queue table.
AQMS: dict[str, tuple[str, dict[str, Any]]] = {
    "droptail": ("DropTail", sc.droptail()),
    "codel": ("CoDel", sc.codel()),
    "fq_codel": ("FQ-CoDel", sc.fq_codel()),
    "pie": ("PIE", sc.pie()),
    # Thresholds in packets for both sides: 5 and 15 ms of queue at 20 Mb/s (8 and 25
    # full-size packets; 19 and 60 ms at 5 Mb/s), max_th = 3 min_th as Floyd advises,
    # gentle, max_p 0.1, w_q from the link rate ("auto").
    "red": ("RED", sc.red(8, 25, max_p=0.1, gentle=True, w_q="auto")),
    "dualpi2": ("DualPI2", bf.dualpi2()),
}


def aqm_key(name: str) -> str:
    """An AQM's key from the name given on the command line: a key ("fq_codel") or its label
    in any case ("FQ-CoDel"); ValueError listing the choices otherwise."""
    k = name.strip().lower().replace("-", "_")
    for key, (label, _) in AQMS.items():
        if k in (key, label.lower().replace("-", "_")):
            return key
    raise ValueError(f"unknown AQM {name!r}; choose from {', '.join(AQMS)}")


@dataclass
class Config:
    """One RRUL run's shape: the loaded length (Flent's ``-l``), the idle lead-in and
    tail (``DELAY``), the base RTT."""

    duration_s: float = 30.0
    delay_s: float = 5.0
    rtt_ms: float = 40.0
    seed: int = 1

    @property
    def total_s(self) -> float:
        return self.duration_s + 2 * self.delay_s

    @property
    def window(self) -> tuple[float, float]:
        """The loaded part, [start, stop) in seconds."""
        return self.delay_s, self.delay_s + self.duration_s


def validate_config(c: Config) -> None:
    """Rejects what the test cannot run, naming the option and what is allowed."""
    if not 20 <= c.rtt_ms <= 80:
        raise ValueError(f"--rtt-ms = {c.rtt_ms:g}: must be in [20, 80] (a home access path)")
    if not 1 <= c.duration_s <= 3600:
        raise ValueError(f"--duration = {c.duration_s:g}: must be in [1, 3600] seconds")
    # Whole steps, so that the loaded window starts and ends on a sample.
    if abs(c.duration_s / STEP_S - round(c.duration_s / STEP_S)) > 1e-9:
        raise ValueError(f"--duration = {c.duration_s:g}: must be a multiple of {STEP_S:g} s")


def _ms(x: float) -> str:
    return f"{x:g}ms"


def scenario(aqm: str, c: Config) -> dict[str, Any]:
    """The RRUL scenario under ``aqm`` (a key of ``AQMS``): client — gw —(access link)— isp
    — server, the access link's queues (gw→isp up, isp→gw down) running the AQM."""
    _, table = AQMS[aqm]
    lan = sc.queue(limit_pkts=1000)
    nodes = [sc.host("client"), sc.router("gw"), sc.router("isp"), sc.host("server")]
    links = [
        sc.link("client", "gw", bandwidth="1Gbps", delay="0ms", queue=lan, name="lan"),
        sc.link(
            "gw",
            "isp",
            bandwidth=UP,
            reverse_bandwidth=DOWN,
            delay=_ms(c.rtt_ms / 2),
            queue=sc.queue(limit_pkts=BUFFER_PKTS, aqm=table),
            name="access",
        ),
        sc.link("isp", "server", bandwidth="1Gbps", delay="0ms", queue=lan, name="wan"),
    ]
    start, stop = (f"{t:g}s" for t in c.window)
    flows = []
    for way, src, dst in (("up", "client", "server"), ("down", "server", "client")):
        for label, _, _ in CLASSES:
            flows.append(
                sc.tcp(
                    f"tcp_{way}_{label}",
                    src,
                    dst,
                    packet_size=PACKET,
                    congestion=sc.cubic(),
                    start=start,
                    stop=stop,
                    trace=True,
                )
            )
    for k, (label, prec, size) in enumerate(PROBES):
        # Staggered by 50 ms so that the four requests of a step do not leave together.
        flows.append(
            sc.probe(
                label.lower().replace(" ", "_"),
                "client",
                "server",
                packet_size=size,
                interval=_ms(STEP_S * 1000),
                precedence=prec,
                start=_ms(50 * k),
            )
        )
    return sc.scenario(
        duration=f"{c.total_s:g}s",
        seed=c.seed,
        sample_interval=_ms(STEP_S * 1000),
        nodes=nodes,
        links=links,
        flows=flows,
    )


def probe_label(flow: str) -> str:
    return {lab.lower().replace(" ", "_"): lab for lab, _, _ in PROBES}[flow]


@dataclass
class Run:
    """One AQM's RRUL results, as Flent's data series: goodput per TCP flow (Mb/s, per
    200 ms step, at the step's end) and each probe's round trips (ms, at send time)."""

    aqm: str
    label: str
    goodput: pd.DataFrame  # time_s, flow ("up BE", ...), way, mbps
    probes: pd.DataFrame  # flow label, sent_s, rtt_ms (NaN when lost), lost
    window: tuple[float, float]
    summary: dict[str, float] = field(default_factory=dict)

    def totals(self) -> pd.DataFrame:
        """Per step: download and upload sums (Mb/s), and the mean of the probes' RTTs sent
        in the step (Flent's 'Ping (ms) avg')."""
        g = self.goodput.pivot_table(index="time_s", columns="way", values="mbps", aggfunc="sum")
        p = self.probes.dropna(subset=["rtt_ms"]).copy()
        p["step"] = (np.floor(p["sent_s"] / STEP_S + 1e-9) + 1) * STEP_S
        ping = p.groupby(p["step"].round(6))["rtt_ms"].mean()
        g.index = g.index.round(6)
        out = pd.DataFrame({"download": g.get("down"), "upload": g.get("up")})
        out["ping_ms"] = ping.reindex(out.index)
        return out.reset_index(names="time_s")

    def loaded(self, df: pd.DataFrame, col: str) -> pd.DataFrame:
        lo, hi = self.window
        return df[(df[col] >= lo - 1e-9) & (df[col] < hi - 1e-9)]


def collect(aqm: str, res, c: Config) -> Run:
    """A run's Flent series and its summary row."""
    ts = res.flow_timeseries
    rows = []
    for way in ("up", "down"):
        for label, _, _ in CLASSES:
            s = ts[ts["flow"] == f"tcp_{way}_{label}"].sort_values("time_s")
            t = s["time_s"].to_numpy()
            d = s["delivered_pkts"].fillna(0).to_numpy()
            # delivered_pkts at a sample counts segments delivered before it: the step
            # ending at t[i] delivered d[i] - d[i-1].
            mbps = np.diff(d, prepend=0.0) * PACKET * 8 / STEP_S / 1e6
            rows.append(
                pd.DataFrame({"time_s": t, "flow": f"{way} {label}", "way": way, "mbps": mbps})
            )
    goodput = pd.concat(rows, ignore_index=True)
    p = res.probes.copy()
    probes = pd.DataFrame(
        {
            "flow": p["flow"].map(probe_label),
            "sent_s": p["sent_s"],
            "rtt_ms": p["rtt_s"].astype(float) * 1e3,
            "lost": p["lost"].astype(bool),
        }
    )
    run = Run(aqm, AQMS[aqm][0], goodput, probes, c.window)
    lo, hi = c.window
    # Goodput over the loaded window, from the cumulative counts at its two ends.
    for way in ("up", "down"):
        sums = 0.0
        for label, _, _ in CLASSES:
            s = ts[ts["flow"] == f"tcp_{way}_{label}"].set_index("time_s")["delivered_pkts"]
            s.index = s.index.round(6)
            # hi < the run's end (the idle tail follows), so both ends are samples.
            sums += (float(s.loc[round(hi, 6)]) - float(s.loc[round(lo, 6)])) * PACKET * 8
        run.summary[f"{way}_mbps"] = sums / (hi - lo) / 1e6
    lp = run.loaded(probes, "sent_s")
    rtt = lp["rtt_ms"].dropna()
    run.summary.update(
        mean_ms=float(rtt.mean()) if len(rtt) else math.nan,
        median_ms=float(rtt.median()) if len(rtt) else math.nan,
        p95_ms=float(rtt.quantile(0.95)) if len(rtt) else math.nan,
        p99_ms=float(rtt.quantile(0.99)) if len(rtt) else math.nan,
        loss=float(lp["lost"].mean()) if len(lp) else math.nan,
        probes=float(len(lp)),
    )
    return run


def run_one(aqm: str, c: Config) -> Run:
    import aqmlab

    return collect(aqm, aqmlab.run(scenario(aqm, c)), c)


def run_all(aqms: list[str], c: Config, workers: int = 2) -> list[Run]:
    """Every AQM's run (the engine releases the GIL: threads use the cores)."""
    validate_config(c)
    with cf.ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        return list(ex.map(lambda a: run_one(a, c), aqms))


SUMMARY_COLUMNS = [
    ("aqm", "AQM"),
    ("down_mbps", "download (Mb/s)"),
    ("up_mbps", "upload (Mb/s)"),
    ("mean_ms", "mean RTT (ms)"),
    ("median_ms", "median RTT (ms)"),
    ("p95_ms", "p95 RTT (ms)"),
    ("p99_ms", "p99 RTT (ms)"),
    ("loss", "probe loss"),
]


def summary_table(runs: list[Run]) -> pd.DataFrame:
    rows = [{"aqm": r.label, **{k: r.summary[k] for k, _ in SUMMARY_COLUMNS[1:]}} for r in runs]
    return pd.DataFrame(rows, columns=[k for k, _ in SUMMARY_COLUMNS])


def _cell(k: str, v: Any) -> str:
    if k == "aqm":
        return str(v)
    if k == "loss":
        return f"{100 * v:.2f}%"
    return f"{v:.1f}" if k.endswith("_ms") else f"{v:.2f}"


def table_text(df: pd.DataFrame) -> str:
    heads = [h for _, h in SUMMARY_COLUMNS]
    cells = [[_cell(k, r[k]) for k, _ in SUMMARY_COLUMNS] for r in df.to_dict("records")]
    w = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    line = lambda xs: "  ".join(x.rjust(w[i]) if i else x.ljust(w[i]) for i, x in enumerate(xs))  # noqa: E731
    return "\n".join([line(heads), *(line(c) for c in cells)])


def table_markdown(df: pd.DataFrame) -> str:
    heads = [h for _, h in SUMMARY_COLUMNS]
    out = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for r in df.to_dict("records"):
        out.append("| " + " | ".join(_cell(k, r[k]) for k, _ in SUMMARY_COLUMNS) + " |")
    return "\n".join(out)


def rrul(
    aqms: list[str] | None = None,
    *,
    config: Config | None = None,
    out: str | Path = "results/rrul",
    workers: int = 2,
) -> tuple[list[Run], pd.DataFrame, Path]:
    """Runs RRUL for each AQM and writes the plots (PNG), ``summary.csv``, ``probes.csv``,
    ``goodput.csv``, ``report.md`` and ``report.html`` under ``out``."""
    from aqmlab.experiments import bufferbloat_plots as plots

    c = config or Config()
    keys = [aqm_key(a) for a in (aqms or list(AQMS))]
    runs = run_all(keys, c, workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = summary_table(runs)
    table.to_csv(out / "summary.csv", index=False)
    pd.concat([r.probes.assign(aqm=r.label) for r in runs]).to_csv(out / "probes.csv", index=False)
    pd.concat([r.goodput.assign(aqm=r.label) for r in runs]).to_csv(
        out / "goodput.csv", index=False
    )
    figures = plots.write_all(runs, c, out)
    lo, hi = c.window
    intro = (
        f"Flent's Realtime Response Under Load mix on a home gateway: 20 Mb/s down, 5 Mb/s "
        f"up, base RTT {c.rtt_ms:g} ms, a {BUFFER_PKTS}-packet buffer each way, the AQM on "
        f"both of the access link's queues. Four TCP CUBIC uploads and four downloads (BE, "
        f"BK, CS5, EF) run from {lo:g} s to {hi:g} s; four probes (UDP BE, UDP BK, UDP EF, "
        f"ICMP) send one echo request every 200 ms for all {c.total_s:g} s. The table covers "
        f"the loaded part [{lo:g} s, {hi:g} s); see docs/rrul.md."
    )
    plots.write_report(intro, table_markdown(table), figures, out)
    return runs, table, out
