"""Results of one run as pandas DataFrames, a JSON summary, and files on disk."""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

# pandas and numpy load on first use: `aqmlab --help` and `validate` never need them.
if TYPE_CHECKING:
    import pandas as pd


SUMMARY_QUEUE_FIELDS = (
    "name",
    "link",
    "from",
    "to",
    "aqm",
    "arrivals",
    "enqueued",
    "dequeued",
    "lost_on_link",
    "mean_queue_pkts",
    "mean_queue_at_arrival_pkts",
    "var_queue_pkts",
    "mean_queue_bytes",
    "max_queue_pkts",
    "utilization",
    "throughput_bps",
    "mean_sojourn_s",
    "p99_sojourn_s",
)
SUMMARY_FLOW_FIELDS = (
    "name",
    "kind",
    "src",
    "dst",
    "sent_pkts",
    "received_pkts",
    "dropped_pkts",
    "lost_pkts",
    "goodput_bps",
    "throughput_bps",
    "loss_rate",
    "mean_delay_s",
    "retransmits",
    "timeouts",
    "fast_recoveries",
    "ecn_reactions",
    "completion_time_s",
)


def _json_value(v: Any) -> Any:
    """JSON has no NaN: undefined statistics (e.g. the delay of a flow that received
    nothing) are written as null."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class Results:
    """One run's results.

    Every table the engine returns is a DataFrame in ``tables`` (by name, in the engine's
    order) and an attribute of the same name; a table a component adds (an SFB queue's
    bins, for example) appears there too, with nothing to change here or in the binding.

    Attributes:
        queues: one row per output queue (link direction), statistics over the measurement
            window (after warm-up): counters, drops and marks by reason, time-weighted mean and
            variance of the queue in packets and bytes, utilisation, sojourn mean/percentiles.
        flows: one row per flow: sent, received, dropped, lost, goodput, loss rate, delay.
        timeseries: one row per (sample time, sampled queue: ``simulation.sample_queues``,
            every queue of a scenario of up to 128 links): queue length in packets and bytes,
            cumulative counters since time 0 (arrivals, dropped, dropped_overflow, marked,
            departed_bytes, area_pkt_s = ∫ queue dt: differences between two samples give
            exact per-period rates and time-weighted mean queues), and each AQM's metrics.
        flow_timeseries: one row per (sample time, traced TCP flow): cwnd and ssthresh in
            segments, smoothed RTT in seconds, cumulative delivered_pkts (unique segments
            delivered in order), cwnd_base (the window without Reno/NewReno fast recovery's
            inflation: ns-2's ``cwnd_``), then the controller's own metrics (CUBIC's
            w_max, k, w_est; BBR's bbr_state, pacing_gain, btl_bw_pps, min_rtt_s, ...; NaN
            for a flow whose controller has no such metric) (flows with ``trace = true``).
        queue_dist: fraction of time each queue held exactly ``n_pkts`` waiting packets.
        queue_colours (only when a marker coloured some packet): the queue counters by
            drop precedence, one row per (queue, colour seen): arrivals, enqueued,
            dequeued, throughput_bps, dropped_<reason>, marked_<reason>.
        probes (only with ``type = "probe"`` flows): one row per probe request sent after
            the warm-up whose fate is known: ``flow``, ``seq``, ``sent_s``, ``rtt_s`` (its
            round trip; missing when lost) and ``lost``.
        tables: every table above, then those components add (each SFB queue's bins at
            the end of the run, ...), by name.
        captures: the pcap file of each captured link direction (``capture = true`` on a
            link, or ``[[captures]]``), as bytes, by queue name "from->to" (docs/capture.md);
            empty when nothing is captured. ``write_captures`` writes them.
        timing: wall seconds of the run's phases in the engine's binding (``parse_s``,
            ``validate_s``, ``build_s``, ``run_s`` = the event loop and end-of-run
            summaries, ``tables_s``, ``convert_s`` = the tables into Python objects); not
            part of ``summary()``, which stays identical for identical runs.
    """

    # The standard tables (looked up in ``tables`` by ``__getattr__``).
    queues: pd.DataFrame
    flows: pd.DataFrame
    timeseries: pd.DataFrame
    flow_timeseries: pd.DataFrame
    queue_dist: pd.DataFrame

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw
        self.reasons: list[str] = list(raw["reasons"])
        self.tables: Mapping[str, pd.DataFrame] = _Tables(raw["tables"])
        self.events: int = raw["events"]
        self.packets: int = raw["packets"]
        self.measured_s: float = raw["measured_s"]
        self.warmup_s: float = raw["warmup_s"]
        self.engine_version: str = raw["engine_version"]
        # The canonical text is written by the engine on first use (``scenario_toml``).
        self._scenario = raw["scenario"]
        self.timing: dict[str, float] = dict(raw.get("timing", {}))
        self._captures: list[dict[str, Any]] = list(raw.get("captures", []))
        self.captures: dict[str, bytes] = {c["name"]: c["pcap"] for c in self._captures}

    def __getattr__(self, name: str) -> pd.DataFrame:
        # Only called when normal lookup fails; vars() avoids recursing before __init__.
        tables = vars(self).get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(vars(self).get("tables", {})))

    @property
    def timeseries_tables(self) -> dict[str, pd.DataFrame]:
        """The long time-series tables (``timeseries``, ``flow_timeseries``, ...), by name."""
        return {
            n: df for n, df in self.tables.items() if n == "timeseries" or n.endswith("_timeseries")
        }

    @property
    def scenario_toml(self) -> str:
        """The canonical scenario that ran, as TOML text."""
        if not isinstance(self._scenario, str):
            self._scenario = self._scenario.text()
        return self._scenario

    @property
    def scenario(self) -> dict[str, Any]:
        """The canonical scenario that ran."""
        return tomllib.loads(self.scenario_toml)

    def __repr__(self) -> str:
        return (
            f"<aqmlab.Results: {len(self.queues)} queues, {len(self.flows)} flows, "
            f"{self.events} events, {self.measured_s:g} s measured>"
        )

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary; identical bytes for identical scenario and seed."""
        queues = []
        for row in self.queues.to_dict("records"):
            q = {k: _json_value(row[k]) for k in SUMMARY_QUEUE_FIELDS}
            q["dropped"] = {r: _json_value(row[f"dropped_{r}"]) for r in self.reasons}
            q["dropped_total"] = sum(q["dropped"].values())
            marked = {r: _json_value(row[f"marked_{r}"]) for r in self.reasons}
            q["marked"] = sum(marked.values())
            q["marked_by_reason"] = marked
            queues.append(q)
        flows = [
            {k: _json_value(row[k]) for k in SUMMARY_FLOW_FIELDS}
            for row in self.flows.to_dict("records")
        ]
        sim = self.scenario["simulation"]
        extra: dict[str, Any] = {}
        if "queue_colours" in self.tables:
            # Per drop precedence at each queue ("queue/colour"): sweeps flatten these as
            # queue_colour:<queue>/<colour>:<column>.
            extra["queue_colours"] = [
                {
                    "name": f"{row['queue']}/{row['colour']}",
                    **{k: _json_value(v) for k, v in row.items() if k not in ("queue", "colour")},
                }
                for row in self.tables["queue_colours"].to_dict("records")
            ]
        if "aggregates" in self.tables:
            # One row per (edge conditioner, class), named "node/class" ("node[input]/class"
            # for a conditioner of one input): sweeps flatten these like queues and flows.
            extra["aggregates"] = [
                {
                    "name": (
                        f"{row['node']}/{row['class']}"
                        if row["input"] == "*"
                        else f"{row['node']}[{row['input']}]/{row['class']}"
                    ),
                    **{
                        k: _json_value(v)
                        for k, v in row.items()
                        if k not in ("node", "input", "class", "meter")
                    },
                }
                for row in self.tables["aggregates"].to_dict("records")
            ]
        return {
            "engine_version": self.engine_version,
            "seed": sim["seed"],
            "run": sim["run"],
            "duration": sim["duration"],
            "warmup": sim["warmup"],
            "measured_s": self.measured_s,
            "events": self.events,
            "packets": self.packets,
            "queues": queues,
            "flows": flows,
            **extra,
        }

    def capture_file_names(self) -> dict[str, str]:
        """Each capture's file name by queue name: ``<link>-<from>-<to>.pcap``, the link's
        name (or "a-b" label) then the direction's two nodes."""
        return {c["name"]: f"{c['link']}-{c['from']}-{c['to']}.pcap" for c in self._captures}

    def write_captures(self, out: str | Path) -> list[Path]:
        """Writes each capture as ``out/<link>-<from>-<to>.pcap`` (``capture_file_names``);
        returns the paths written (none when nothing is captured)."""
        out = Path(out)
        written = []
        for name, file in self.capture_file_names().items():
            out.mkdir(parents=True, exist_ok=True)
            p = out / file
            p.write_bytes(self.captures[name])
            written.append(p)
        return written

    def write(self, out: str | Path, *, plot: bool = True) -> list[Path]:
        """Writes summary.json, scenario.toml, each table that has rows as CSV and Parquet
        (``<name>.csv``, ``<name>.parquet``; an empty table, e.g. ``flow_timeseries`` when no
        flow is traced, is not written), (unless ``plot`` is False) queue_length.png, and
        the packet captures, if any, in ``captures/`` (``write_captures``). Returns the paths
        written."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        p = out / "summary.json"
        p.write_text(json.dumps(self.summary(), indent=2, sort_keys=True) + "\n", "utf-8")
        written.append(p)
        p = out / "scenario.toml"
        p.write_text(self.scenario_toml, "utf-8")
        written.append(p)
        for name, df in self.tables.items():
            if df.empty:
                continue
            for ext in ("csv", "parquet"):
                p = out / f"{name}.{ext}"
                if ext == "csv":
                    df.to_csv(p, index=False)
                else:
                    df.to_parquet(p, index=False)
                written.append(p)
        if plot:
            from aqmlab.plot import plot_queue_length

            written.append(plot_queue_length(self, out / "queue_length.png"))
        written += self.write_captures(out / "captures")
        return written


class _Tables(Mapping[str, "pd.DataFrame"]):
    """The engine's tables by name, in its order, each made a DataFrame when first read.

    Building every DataFrame up front cost more than a small run itself (eight frames of a
    few rows each, ~5 ms, against 24 ms of engine for 100 flows over 1.5 s), and most
    callers read two or three tables: the rest stay numpy columns until asked for."""

    def __init__(self, columns: dict[str, dict[str, Any]]):
        self._columns = columns
        self._frames: dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        df = self._frames.get(name)
        if df is None:
            df = self._frames[name] = _frame(self._columns[name])
        return df

    def __contains__(self, name: object) -> bool:
        return name in self._columns

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def __repr__(self) -> str:
        return f"<aqmlab tables: {', '.join(self._columns)}>"


def _frame(columns: dict[str, Any]) -> pd.DataFrame:
    """One engine table (numpy arrays, or lists of strings or optional floats) as a
    DataFrame, columns in the engine's order. An empty table keeps the dtype pandas gives
    empty lists (float64), as its columns had before tables crossed generically."""
    import pandas as pd

    if not any(len(v) for v in columns.values()):
        return pd.DataFrame({c: [] for c in columns})
    # The binding's arrays are fresh and only ``raw`` holds them besides: the frame takes
    # them as they are instead of copying every value once more (a large run's time series
    # are most of its memory).
    return pd.DataFrame(columns, copy=False)
