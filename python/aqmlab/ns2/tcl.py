"""An aqmlab scenario as an ns-2.35 Tcl script, for the subset ns-2.35 can run exactly.

The input is the canonical scenario (validated, `[[repeat]]` expanded with its draws, a
profile's values written out), so both simulators run one set of start times. Every ns-2
parameter that bears on the run is written in the script, also where it equals the
ns-2.35 default, so that a script reads the same under any `ns-default.tcl`; what aqmlab
models and ns-2.35 cannot run is refused with the whole list (``Unsupported``), never
approximated. docs/ns2.md lists each mapping and the differences left.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aqmlab.ns2 import diffserv
from aqmlab.ns2.units import bps, nbytes, ns, seconds

# aqmlab's value of every TCP field a canonical flow may leave out (docs/scenarios.md,
# `tcp`); tests/test_ns2.py runs the engine with these written out and unset, and asks for
# identical results, so a change of an engine default cannot pass unnoticed.
TCP_DEFAULTS: dict[str, Any] = {
    "variant": "newreno",
    "ack_size": "40B",
    "max_window": 10000,
    "initial_cwnd": 2.0,
    "delayed_ack": False,
    "delack_timeout": "100ms",
    "min_rto": "200ms",
    "initial_rto": "3s",
    "max_rto": "60s",
    "granularity": "10ms",
    "dupack_response": "halve",
    "recovery": "classic",
    "partial_ack": "rfc6582",
    "halving": "rfc5681",
    "fr_timer": "keep",
    "recover_guard": "rfc6582",
    "rtt_estimator": "rfc6298",
    "limited_transmit": True,
    "ecn_retransmits": False,
    "ecn_backoff": False,
    "trace": False,
}

AGENT = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno", "sack": "Agent/TCP/Sack1"}
SINK = {False: "Agent/TCPSink", True: "Agent/TCPSink/Sack1"}
COUNT_RULE_WAIT = {"ns2_wait": "true", "ns2": "false"}

# ns-2.35's TCP behaviour that aqmlab's fields do not choose, written explicitly at its
# ns-2.35 value (docs/ns2.md, "What differs"): the script does not depend on the defaults
# file, and a reader sees what ns-2 ran.
TCP_FIXED = [
    ("syn_", "false"),  # aqmlab has no SYN: the first window leaves at the start time
    ("delay_growth_", "false"),
    ("useHeaders_", "false"),  # packetSize_ is the size on the wire, as aqmlab's packet_size
    ("timestamps_", "false"),
    ("windowOption_", "1"),
    ("maxburst_", "0"),
    ("maxcwnd_", "0"),
    ("max_ssthresh_", "0"),
    ("overhead_", "0"),
    ("numdupacks_", "3"),
    ("bugFix_", "true"),
    ("slow_start_restart_", "true"),
    ("restart_bugfix_", "true"),
    ("control_increase_", "0"),
    ("old_ecn_", "0"),
    ("timerfix_", "true"),
]
# aqmlab's rtt_estimator as ns-2's rfc2988_ (min_rto before or after the backoff). ns-2's
# estimator is always its tick-counting one: "rfc6298" runs with ns-2.35's (docs/ns2.md,
# "What differs").
RFC2988 = {"rfc6298": "true", "ns2.35": "true", "ns2-2001": "false"}
NEWRENO_FIXED = [("newreno_changes_", "0"), ("exitFastRetrans_", "true")]
# aqmlab's partial_ack as ns-2's three NewReno switches (newreno_changes1_: the timer is
# reset on the first partial ACK only; partial_window_deflation_; exit_recovery_fix_: the
# window leaving recovery is min(ssthresh, FlightSize + 1)). ns-2.35's defaults are 1 1 0,
# ns-2's before 2003-05-05 were 0 0 0. RFC 6582's rules are ns-2's 1 1 1 but for one step:
# ns-2 opens cwnd_ on the ACK that ends recovery, aqmlab does not (docs/ns2.md).
# Every ns-2 agent restarts the timer at a fast retransmit (dupack_action's
# reset_rtx_timer(1, 0)), with no switch: aqmlab's fr_timer = "keep" (RFC 6298) runs with
# ns-2's restart (docs/ns2.md, "What differs").
# aqmlab's halving as ns-2's precisionReduce_ (slowdown halves the window as a double, or as
# an integer). ns-2 cannot halve FlightSize (RFC 5681 eq. 4): "rfc5681" runs ns-2.35's rule
# (docs/ns2.md, "What differs").
PRECISION_REDUCE = {"rfc5681": "true", "ns2.35": "true", "ns2-2001": "false"}
PARTIAL_ACK = {
    "rfc6582": ("1", "1", "1"),
    "ns2.35": ("1", "1", "0"),
    "ns2-2001": ("0", "0", "0"),
}


# aqmlab's AQMs that ns-2.35 runs, and its queue class for each.
QUEUE_CLASS = {"droptail": "DropTail", "red": "RED", "ared": "RED", "rem": "REM", "pi": "PI"}

# The flow fields the translation reads; a field added to the schema later is refused
# until the translation learns it, never dropped silently.
FLOW_FIELDS = {"name", "type", "src", "dst", "packet_size", "start", "stop", "ecn", "ect"}
KIND_FIELDS = {
    "tcp": {*TCP_DEFAULTS, "bytes", "congestion", "pacing"},
    "cbr": {"rate"},
    "poisson": {"rate", "pkt_rate", "size_dist"},
    "onoff": {"rate", "on_time", "off_time", "period_dist", "shape"},
    # Refused as a whole (``flows_``), but its fields are the schema's like any type's.
    "probe": {"interval", "precedence"},
}


SIMULATOR = "ns-2.35"


class Unsupported(ValueError):
    """The scenario uses what ns-2.35 cannot run exactly; ``problems`` lists each
    (path, what is not translated)."""

    simulator = SIMULATOR

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        lines = "\n".join(f"  {p}: {m}" for p, m in problems)
        super().__init__(
            f"{len(problems)} part(s) of the scenario cannot run in {self.simulator}:\n{lines}"
        )


@dataclass
class Script:
    """A translated scenario: the Tcl text and what reading its output needs."""

    tcl: str
    measured_s: float
    warmup_s: float
    queues: list[dict[str, Any]] = field(default_factory=list)
    flows: list[dict[str, Any]] = field(default_factory=list)
    #: The time series' sampling period (0: not sampled).
    sample_s: float = 0.0
    #: DiffServ aggregates: name (as aqmlab's `aggregates` rows), the flows, the CIR.
    aggregates: list[dict[str, Any]] = field(default_factory=list)
    node_id: dict[str, int] = field(default_factory=dict)


def _tcl_num(x: float | int) -> str:
    return repr(float(x)) if isinstance(x, float) else str(x)


class _Writer:
    def __init__(self, c: dict[str, Any]):
        self.c = c
        self.problems: list[tuple[str, str]] = []
        self.lines: list[str] = []
        self.node_id: dict[str, int] = {}
        self.hosts: set[str] = set()
        self.adj: dict[str, list[str]] = {}
        self.queues: list[dict[str, Any]] = []
        self.flows: list[dict[str, Any]] = []
        # DiffServ (aqmlab.ns2.diffserv): each conditioner, the edge queues they become,
        # the aggregates they meter; the last links of TCP flows (per-flow monitors).
        self.conditioners: list[tuple[str, int, dict[str, Any]]] = []
        self.edges: dict[tuple[str, str], Any] = {}
        self.aggregates: list[dict[str, Any]] = []
        self.last_hops: set[tuple[str, str]] = set()

    def refuse(self, path: str, what: str) -> None:
        self.problems.append((path, what))

    def emit(self, line: str) -> None:
        self.lines.append(line)

    # -- topology -------------------------------------------------------------------
    def nodes(self) -> None:
        for i, n in enumerate(self.c["nodes"]):
            path = f"nodes[{i}]"
            if n["type"] == "switch":
                self.refuse(path, "a CIOQ switch (ns-2.35 has none)")
            for k, cond in enumerate(n.get("conditioners") or []):
                self.conditioners.append((n["name"], k, cond))
            if n["type"] == "host":
                self.hosts.add(n["name"])
            self.node_id[n["name"]] = i
            self.adj[n["name"]] = []
            self.emit(f"set n({i}) [$ns node]")

    def adjacency(self) -> None:
        """Each node's neighbours in link order (routing.rs reads them so)."""
        for link in self.c["links"]:
            self.adj[link["a"]].append(link["b"])
            self.adj[link["b"]].append(link["a"])

    def links(self) -> None:
        for i, link in enumerate(self.c["links"]):
            a, b = link["a"], link["b"]
            label = link.get("name", f"{a}-{b}")
            delay = seconds(link["delay"])
            # ns-2 joins two simplex links, so each direction takes its own rate.
            rates = (link["bandwidth"], link.get("reverse_bandwidth", link["bandwidth"]))
            for (fr, to, key), rate in zip(
                ((a, b, "queue"), (b, a, "reverse_queue")), rates, strict=True
            ):
                bw = bps(rate)
                q = link.get(key, link["queue"])
                qpath = f"links[{i}].{key if key in link else 'queue'}"
                self.direction(label, fr, to, bw, delay, q, qpath)
                loss = link.get("loss")
                if loss is not None:
                    self.loss(f"links[{i}].loss", fr, to, loss)

    def direction(self, label, fr, to, bw, delay, q, qpath) -> None:
        k = len(self.queues)
        aqm = q["aqm"]
        if (fr, to) in self.edges or aqm["type"] == "rio":
            return self.dsred(label, fr, to, bw, delay, q, qpath)
        qtype = QUEUE_CLASS.get(aqm["type"])
        if qtype is None:
            runs = ", ".join([*QUEUE_CLASS, "rio"])
            self.refuse(f"{qpath}.aqm", f"AQM {aqm['type']!r} (ns-2.35 runs {runs})")
            qtype = "DropTail"
        a, b = f"$n({self.node_id[fr]})", f"$n({self.node_id[to]})"
        self.emit(f"$ns simplex-link {a} {b} {bw} {_tcl_num(delay)} {qtype}")
        self.emit(f"set q({k}) [[$ns link {a} {b}] queue]")
        if "limit_pkts" in q:
            # aqmlab's limit counts waiting packets. ns-2's DropTail and REM drop an arrival
            # that would make limit_ waiting (drop-tail.cc, rem.cc: at most limit_ - 1
            # wait), RED and PI one that finds limit_ waiting (red.cc, pi.cc).
            extra = 1 if aqm["type"] in ("droptail", "rem") else 0
            self.emit(f"$ns queue-limit {a} {b} {q['limit_pkts'] + extra}")
            limit_bytes = None
        else:
            limit_bytes = nbytes(q["limit_bytes"])
        params = getattr(self, f"aqm_{aqm['type']}", self.aqm_droptail)(
            dict(aqm), qpath, limit_bytes
        )
        for key, value in params:
            self.emit(f"$q({k}) set {key} {value}")
        self.monitor(k, fr, to)
        self.queues.append(
            {
                "name": f"{fr}->{to}",
                "link": label,
                "from": fr,
                "to": to,
                "aqm": aqm["type"],
                "bps": bw,
            }
        )

    def monitor(self, k: int, fr: str, to: str) -> None:
        a, b = f"$n({self.node_id[fr]})", f"$n({self.node_id[to]})"
        per_flow = "1" if (fr, to) in self.last_hops else "0"
        self.emit(f"set qm({k}) [monitor {a} {b} $q({k}) {per_flow}]")

    def dsred(self, label, fr, to, bw, delay, q, qpath) -> None:
        """A queue of ns-2's DiffServ module: the edge queue a conditioner marks into, or a
        core queue running aqmlab's `rio` (aqmlab.ns2.diffserv)."""
        k = len(self.queues)
        edge = self.edges.get((fr, to))
        aqm = q["aqm"]
        if aqm["type"] not in ("rio", "droptail"):
            self.refuse(
                f"{qpath}.aqm",
                f"AQM {aqm['type']!r} at an edge queue (ns-2's dsRED edge runs rio or droptail)",
            )
        if "limit_pkts" not in q:
            self.refuse(f"{qpath}.limit_bytes", "a byte limit (ns-2's dsRED counts packets)")
        a, b = f"$n({self.node_id[fr]})", f"$n({self.node_id[to]})"
        qtype = "dsRED/edge" if edge is not None else "dsRED/core"
        self.emit(f"$ns simplex-link {a} {b} {bw} {_tcl_num(delay)} {qtype}")
        self.emit(f"set q({k}) [[$ns link {a} {b}] queue]")
        # dsredq.cc refuses an arrival that finds limit_ waiting: aqmlab's limit.
        self.emit(f"$ns queue-limit {a} {b} {q.get('limit_pkts', 0)}")
        if aqm["type"] in ("rio", "droptail"):
            lines = diffserv.queue_lines(self, k, q, qpath, edge, f"[$ns link {a} {b}]")
            for line in lines:
                self.emit(line)
        self.monitor(k, fr, to)
        self.queues.append(
            {"name": f"{fr}->{to}", "link": label, "from": fr, "to": to, "aqm": aqm["type"]}
            | {"bps": bw}
        )

    def aqm_droptail(self, aqm, path, limit_bytes):
        if limit_bytes is None:
            return [
                ("drop_front_", "false"),
                ("queue_in_bytes_", "false"),
                ("summarystats_", "false"),
            ]
        # ns-2's byte limit is limit_ x mean_pktsize_, and DropTail drops an arrival that
        # would reach it; aqmlab admits one that fits exactly: one byte more.
        return [
            ("drop_front_", "false"),
            ("queue_in_bytes_", "true"),
            ("limit_", "1"),
            ("mean_pktsize_", str(limit_bytes + 1)),
            ("summarystats_", "false"),
        ]

    def _no_byte_limit(self, path, limit_bytes):
        if limit_bytes is not None:
            self.refuse(
                f"{path}.limit_bytes", "a byte limit with an AQM (translated for droptail only)"
            )

    def aqm_red(self, aqm, path, limit_bytes, adaptive=()):
        """Queue/RED; ``adaptive``: ARED's switches, which replace `adaptive_ 0`."""
        self._no_byte_limit(path, limit_bytes)
        p = f"{path}.aqm"
        rule = aqm.pop("count_rule")
        if rule not in COUNT_RULE_WAIT:
            self.refuse(f"{p}.count_rule", f"{rule!r} (ns-2 has ns2 and ns2_wait)")
        if aqm.pop("mark_above_max_th"):
            self.refuse(f"{p}.mark_above_max_th", "true (ns-2 drops above max_th)")
        if not aqm.pop("ns2_qlen_guard"):
            self.refuse(
                f"{p}.ns2_qlen_guard",
                "false (ns-2's REDQueue::enque always has the guard: set it true)",
            )
        w_q = aqm.pop("w_q")
        byte_mode = aqm.pop("byte_mode")
        if byte_mode:
            self.refuse(
                f"{p}.byte_mode",
                "true (ns-2's queue_in_bytes_ also counts the buffer in bytes of mean_pktsize_)",
            )
        out = [
            # 0: ns-2's automatic thresholds (ARED: max(5, target_delay C / 2), 3 min_th).
            ("thresh_", _tcl_num(aqm.pop("min_th", 0))),
            ("maxthresh_", _tcl_num(aqm.pop("max_th", 0))),
            ("linterm_", _tcl_num(1.0 / aqm.pop("max_p"))),
            # ns-2's 0 is aqmlab's "auto": 1 - exp(-1/C), C the link's packets per second.
            ("q_weight_", "0" if w_q == "auto" else _tcl_num(w_q)),
            ("gentle_", "true" if aqm.pop("gentle") else "false"),
            ("wait_", COUNT_RULE_WAIT.get(rule, "true")),
            ("bytes_", "true" if byte_mode else "false"),
            ("queue_in_bytes_", "true" if byte_mode else "false"),
            ("mean_pktsize_", str(nbytes(aqm.pop("mean_pktsize")))),
            ("setbit_", "true" if aqm.pop("ecn") else "false"),
            # No mark_p_ ceiling (aqmlab has none): marks in the whole unforced region,
            # forced drops above max_th (2 max_th when gentle), as aqmlab decides.
            ("use_mark_p_", "false"),
            *(adaptive or [("adaptive_", "0")]),
            ("feng_adaptive_", "0"),
            ("cautious_", "0"),
            ("drop_tail_", "true"),
            ("drop_front_", "false"),
            ("drop_rand_", "false"),
            ("ns1_compat_", "false"),
            ("summarystats_", "false"),
        ]
        self._leftover(aqm, p)
        return out

    def aqm_ared(self, aqm, path, limit_bytes):
        """Queue/RED with adaptive_ 1 (`updateMaxP`); docs/ns2.md lists where ns-2's ARED
        and aqmlab's differ."""
        adaptive = [
            ("adaptive_", "1"),
            ("targetdelay_", _tcl_num(seconds(aqm.pop("target_delay")))),
            ("interval_", _tcl_num(seconds(aqm.pop("interval")))),
            ("alpha_", _tcl_num(aqm.pop("alpha"))),
            ("beta_", _tcl_num(aqm.pop("beta"))),
            ("top_", _tcl_num(aqm.pop("top"))),
            ("bottom_", _tcl_num(aqm.pop("bottom"))),
        ]
        return self.aqm_red(aqm, path, limit_bytes, adaptive)

    def aqm_rem(self, aqm, path, limit_bytes):
        self._no_byte_limit(path, limit_bytes)
        p = f"{path}.aqm"
        if aqm.pop("alpha") != 0.1:
            self.refuse(f"{p}.alpha", "other than 0.1 (ns-2's rem.cc uses a literal 0.1)")
        if aqm.pop("update") != "rate":
            self.refuse(f"{p}.update", "'queue' (ns-2 implements eq. 2, 'rate')")
        if aqm.pop("mark_at", "departure") != "departure":
            self.refuse(f"{p}.mark_at", "'arrival' (ns-2 marks departing packets)")
        if aqm.pop("byte_mode"):
            self.refuse(f"{p}.byte_mode", "true (ns-2's qib_ also counts the buffer in bytes)")
        out = [
            ("gamma_", _tcl_num(aqm.pop("gamma"))),
            ("phi_", _tcl_num(aqm.pop("phi"))),
            ("inw_", _tcl_num(float(aqm.pop("w_x", 1.0)))),
            ("pbo_", _tcl_num(aqm.pop("b_star"))),
            ("pupdtime_", _tcl_num(seconds(aqm.pop("interval")))),
            ("mean_pktsize_", str(nbytes(aqm.pop("mean_pktsize")))),
            ("qib_", "false"),
            ("markpkts_", "true" if aqm.pop("ecn") else "false"),
        ]
        self._leftover(aqm, p)
        return out

    def aqm_pi(self, aqm, path, limit_bytes):
        self._no_byte_limit(path, limit_bytes)
        p = f"{path}.aqm"
        if aqm.pop("byte_mode"):
            self.refuse(f"{p}.byte_mode", "true (ns-2's PI runs in packets)")
        out = [
            ("a_", _tcl_num(aqm.pop("a"))),
            ("b_", _tcl_num(aqm.pop("b"))),
            ("w_", _tcl_num(aqm.pop("w"))),
            ("qref_", _tcl_num(aqm.pop("q_ref"))),
            ("mean_pktsize_", str(nbytes(aqm.pop("mean_pktsize")))),
            ("setbit_", "true" if aqm.pop("ecn") else "false"),
        ]
        self._leftover(aqm, p)
        return out

    def _leftover(self, aqm: dict[str, Any], path: str) -> None:
        aqm.pop("type", None)
        for key in aqm:
            self.refuse(f"{path}.{key}", "a field the ns-2 translation does not know")

    def loss(self, path, fr, to, loss) -> None:
        if loss["type"] != "bernoulli":
            self.refuse(path, f"loss model {loss['type']!r} (translated: bernoulli)")
            return
        a, b = f"$n({self.node_id[fr]})", f"$n({self.node_id[to]})"
        # After the queue (aqmlab decides loss as a packet starts on the wire); every
        # packet, ACKs included, as aqmlab's model.
        self.emit(f"lossy {a} {b} {_tcl_num(float(loss['p']))} {len(self.queues) - 1}")

    # -- routing: aqmlab's forwarding table, installed as ns-2 manual routes ------------
    def next_hops(self, dst: str) -> dict[str, str]:
        """routing.rs: a BFS backwards from dst over each node's links in file order;
        hosts do not forward; a node keeps the neighbour it was first reached from."""
        nxt: dict[str, str] = {}
        seen = {dst}
        todo = deque([dst])
        while todo:
            u = todo.popleft()
            if u != dst and u in self.hosts:
                continue
            for v in self.adj[u]:
                if v not in seen:
                    seen.add(v)
                    nxt[v] = u
                    todo.append(v)
        return nxt

    def routes(self) -> None:
        pairs = []
        for f in self.c.get("flows", []):
            pairs += [(f["src"], f["dst"]), (f["dst"], f["src"])]
        installed: set[tuple[str, str]] = set()
        tables: dict[str, dict[str, str]] = {}
        for src, dst in pairs:
            nxt = tables.setdefault(dst, self.next_hops(dst))
            u = src
            while u != dst and (u, dst) not in installed:
                installed.add((u, dst))
                v = nxt[u]
                a, b = f"$n({self.node_id[u]})", f"$n({self.node_id[v]})"
                head = f"[[$ns link {a} {b}] head]"
                self.emit(f"[{a} get-module Manual] add-route {self.node_id[dst]} {head}")
                u = v

    # -- flows --------------------------------------------------------------------------
    def flows_(self) -> None:
        for i, f in enumerate(self.c.get("flows", [])):
            path = f"flows[{i}]"
            if f["type"] == "probe":
                # An echo answered by the receiving host: ns-2.35's Agent/Ping is ICMP-like
                # but has no DiffServ precedence or aqmlab's per-probe table; not mapped.
                self.refuse(
                    path, "a probe flow (the ns-2 translation runs tcp, cbr, poisson, onoff)"
                )
                continue
            for key in sorted(set(f) - FLOW_FIELDS - KIND_FIELDS[f["type"]]):
                self.refuse(f"{path}.{key}", "a field the ns-2 translation does not know")
            if f.get("ect", "ect0") != "ect0":
                # ns-2.35's packets carry one ECN-capable bit (hdr_flags::ect_): ECT(0).
                self.refuse(f"{path}.ect", f"{f['ect']!r}: ns-2.35 has no ECT(1)")
            cc = f.get("congestion", {"type": "reno"})["type"]
            if cc != "reno":
                # ns-2.35's Agent/TCP grows and halves its window as Reno only (CUBIC in
                # ns-2 needs the out-of-tree TCP-Linux patch).
                self.refuse(f"{path}.congestion", f"{cc!r}: ns-2.35's TCP agents are Reno only")
            src, dst = f"$n({self.node_id[f['src']]})", f"$n({self.node_id[f['dst']]})"
            row = {"name": f["name"], "kind": f["type"], "src": f["src"], "dst": f["dst"]}
            row["packet_size"] = nbytes(f["packet_size"])
            row["start_s"] = seconds(f["start"])
            row["trace"] = f["type"] == "tcp" and bool(f.get("trace", False))
            getattr(self, f"flow_{f['type']}")(i, path, f, src, dst, row)
            self.flows.append(row)

    def flow_tcp(self, i, path, f, src, dst, row) -> None:
        t = {**TCP_DEFAULTS, **f}
        problems = [
            ("recovery", t["recovery"] != "classic", "PRR (ns-2.35 has classic recovery only)"),
            (
                "dupack_response",
                t["dupack_response"] != "halve",
                "'retransmit_only' (the REM paper's modified NewReno is not in ns-2.35)",
            ),
            ("initial_cwnd", t["initial_cwnd"] != int(t["initial_cwnd"]), "not whole"),
            ("stop", "stop" in f, "a TCP stop time (not translated yet)"),
            (
                "pacing",
                bool(f.get("pacing", False)),
                "true (ns-2.35's TCP agents send as the ACKs clock them; no pacing)",
            ),
            (
                "recover_guard",
                t["recover_guard"] != "rfc6582",
                "'ns3.44' (ns-2's guard is highest_ack_ > recover_)",
            ),
            (
                "ecn_backoff",
                f["ecn"] and not t["ecn_backoff"],
                "false with ecn (ns-2 reacts to a mark with its own halving: set it true)",
            ),
            (
                "ecn_retransmits",
                f["ecn"] and not t["ecn_retransmits"],
                "false with ecn (ns-2 sends retransmissions ECN-capable: set it true)",
            ),
        ]
        for key, bad, what in problems:
            if bad:
                self.refuse(f"{path}.{key}", what)
        sack = t["variant"] == "sack"
        row["tick_s"] = seconds(t["granularity"])
        sink = SINK[sack] + ("/DelAck" if t["delayed_ack"] else "")
        self.emit(f"set tcp({i}) [new {AGENT[t['variant']]}]")
        params = [
            ("fid_", str(i)),
            ("packetSize_", str(row["packet_size"])),
            ("window_", str(t["max_window"])),
            ("windowInit_", str(int(t["initial_cwnd"]))),
            ("tcpTick_", _tcl_num(seconds(t["granularity"]))),
            ("minrto_", _tcl_num(seconds(t["min_rto"]))),
            ("maxrto_", _tcl_num(seconds(t["max_rto"]))),
            ("rtxcur_init_", _tcl_num(seconds(t["initial_rto"]))),
            ("singledup_", "1" if t["limited_transmit"] else "0"),
            ("ecn_", "1" if f["ecn"] else "0"),
            ("precisionReduce_", PRECISION_REDUCE[t["halving"]]),
            ("rfc2988_", RFC2988[t["rtt_estimator"]]),
            *TCP_FIXED,
        ]
        if t["variant"] == "newreno":
            switches = ("newreno_changes1_", "partial_window_deflation_", "exit_recovery_fix_")
            params += [*NEWRENO_FIXED, *zip(switches, PARTIAL_ACK[t["partial_ack"]], strict=True)]
        for key, value in params:
            self.emit(f"$tcp({i}) set {key} {value}")
        self.emit(f"set sink({i}) [new {sink}]")
        self.emit(f"$sink({i}) set packetSize_ {nbytes(t['ack_size'])}")
        if t["delayed_ack"]:
            self.emit(f"$sink({i}) set interval_ {_tcl_num(seconds(t['delack_timeout']))}")
        self.emit(f"$ns attach-agent {src} $tcp({i}); $ns attach-agent {dst} $sink({i})")
        self.emit(f"$ns connect $tcp({i}) $sink({i})")
        self.emit(f"$tcp({i}) proc done {{}} {{ finished {i} }}")
        if "bytes" in f:
            segments = -(-nbytes(f["bytes"]) // row["packet_size"])
            row["segments"] = segments
            self.emit(f'$ns at {_tcl_num(row["start_s"])} "$tcp({i}) advance {segments}"')
        else:
            self.emit(f"set app({i}) [$tcp({i}) attach-app FTP]")
            self.emit(f'$ns at {_tcl_num(row["start_s"])} "$app({i}) start"')

    def _udp(self, i, f, src, dst, row, app: str, params: list[tuple[str, str]]) -> None:
        size = row["packet_size"]
        self.emit(f"set udp({i}) [new Agent/UDP]; $udp({i}) set fid_ {i}")
        self.emit(f"$udp({i}) set packetSize_ {size}")
        self.emit(f"set sink({i}) [new Agent/LossMonitor]")
        self.emit(f"$ns attach-agent {src} $udp({i}); $ns attach-agent {dst} $sink({i})")
        self.emit(f"$ns connect $udp({i}) $sink({i})")
        self.emit(f"set app({i}) [new Application/Traffic/{app}]; $app({i}) attach-agent $udp({i})")
        for key, value in [("packetSize_", str(size)), *params]:
            self.emit(f"$app({i}) set {key} {value}")
        self.emit(f'$ns at {_tcl_num(row["start_s"])} "$app({i}) start"')
        if "stop" in f:
            self.emit(f'$ns at {_tcl_num(seconds(f["stop"]))} "$app({i}) stop"')

    def flow_cbr(self, i, path, f, src, dst, row) -> None:
        self._udp(i, f, src, dst, row, "CBR", [("rate_", str(bps(f["rate"]))), ("random_", "0")])

    def flow_poisson(self, i, path, f, src, dst, row) -> None:
        if f.get("size_dist", "fixed") != "fixed":
            self.refuse(f"{path}.size_dist", "exponential sizes (ns-2's sources send one size)")
        size = row["packet_size"]
        pps = f["pkt_rate"] if "pkt_rate" in f else bps(f["rate"]) / (8 * size)
        # ns-2's recipe for Poisson arrivals: exponential on/off with no on time, so each
        # burst is one packet and the gaps are exponential with the mean idle time.
        params = [("burst_time_", "0"), ("idle_time_", _tcl_num(1.0 / pps)), ("rate_", "1e15")]
        self._udp(i, f, src, dst, row, "Exponential", params)

    def flow_onoff(self, i, path, f, src, dst, row) -> None:
        dist = f.get("period_dist", "exponential")
        params = [
            ("rate_", str(bps(f["rate"]))),
            ("burst_time_", _tcl_num(seconds(f["on_time"]))),
            ("idle_time_", _tcl_num(seconds(f["off_time"]))),
        ]
        if dist == "pareto":
            params.append(("shape_", _tcl_num(float(f["shape"]))))
        self._udp(i, f, src, dst, row, "Pareto" if dist == "pareto" else "Exponential", params)


PRELUDE = """\
# ns-2.35 script written by aqmlab (aqmlab.ns2): {what}
set ns [new Simulator]
$ns rtproto Manual
global defaultRNG
$defaultRNG seed {rng_seed}
proc monitor {{a b q per_flow}} {{
    global ns
    set link [$ns link $a $b]
    # A flow monitor (per-flow counters besides the queue's) where a TCP flow's data
    # reaches its destination: the data packets it received, duplicates included.
    if {{$per_flow}} {{ set m [$ns makeflowmon Fid] }} else {{ set m [new QueueMonitor/ED] }}
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $m
    # Only RED and dsRED hand their early drops to a target of their own; REM's and PI's
    # go with the overflows.
    if {{[$q info class] == "Queue/RED" || [string match "Queue/dsRED/*" [$q info class]]}} {{
        set e [new SnoopQueue/EDrop]
        $e set-monitor $m
        $q early-drop-target $e
        $e target [$ns set nullAgent_]
    }}
    $m set-bytes-integrator [new Integrator]
    $m set-pkts-integrator [new Integrator]
    return $m
}}
proc lossy {{a b p k}} {{
    global ns lm
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $p
    $em ranvar [new RandomVariable/Uniform]
    set lm($k) [new Agent/LossMonitor]
    $ns attach-agent $a $lm($k)
    $ns link-lossmodel $em $a $b
    # After link-lossmodel, which points the losses at the link's drop trace, where the
    # queue monitor would count them as drops from the queue.
    $em drop-target $lm($k)
}}
proc finished {{i}} {{
    global ns
    puts "D $i [$ns now]"
}}
"""

SNAPSHOT = """\
# ns-2's byte counters (QueueMonitor barrivals_/bdepartures_, LossMonitor bytes_) are
# 32-bit ints: 400 s at 64 Mb/s wraps them. Every `tick` seconds, fewer than 2^31 bytes
# can pass, so each counter's advance, taken modulo 2^32, is exact; Tcl adds them up.
proc counters {} {
    global qm sink nq udps traced
    set c {}
    for {set k 0} {$k < $nq} {incr k} {
        lappend c "q$k,a" [$qm($k) set barrivals_] "q$k,d" [$qm($k) set bdepartures_]
    }
    foreach i $udps { lappend c "u$i" [$sink($i) set bytes_] }
    foreach i $traced { lappend c "s$i" [$sink($i) set bytes_] }
    return $c
}
proc accumulate {} {
    global bacc bprev
    foreach {key now} [counters] {
        if {![info exists bprev($key)]} { set bprev($key) 0; set bacc($key) 0 }
        set bacc($key) [expr {$bacc($key) + (($now - $bprev($key)) & 0xFFFFFFFF)}]
        set bprev($key) $now
    }
}
proc tick {dt} {
    global ns
    accumulate
    $ns at [expr {[$ns now] + $dt}] "tick $dt"
}
proc snapshot {tag} {
    global ns qm q tcp sink lm nq tcps udps bacc fqs
    set now [$ns now]
    accumulate
    puts "S $tag $now"
    for {set k 0} {$k < $nq} {incr k} {
        set m $qm($k)
        set pi [$m get-pkts-integrator]
        set bi [$m get-bytes-integrator]
        $pi newpoint $now [$pi set lasty_]
        $bi newpoint $now [$bi set lasty_]
        set lost 0
        if {[info exists lm($k)]} { set lost [$lm($k) set npkts_] }
        puts "Q $tag $k [$m set parrivals_] [$m set pdepartures_] [$m set pdrops_]\
 [$m set epdrops_] [$m set pmarks_] $bacc(q$k,a) $bacc(q$k,d)\
 [$pi set sum_] [$bi set sum_] $lost"
    }
    foreach i $tcps {
        set t $tcp($i)
        puts "T $tag $i [$t set ndatapack_] [$t set nrexmitpack_] [$t set nrexmit_]\
 [$t set ack_] [$t set ncwndcuts_]"
    }
    foreach i $udps {
        puts "U $tag $i [$sink($i) set npkts_] $bacc(u$i) [$sink($i) set nlost_]"
    }
    foreach k $fqs {
        foreach fl [$qm($k) flows] {
            puts "R $tag $k [$fl set flowid_] [$fl set src_] [$fl set pdepartures_]"
        }
    }
}
"""

# aqmlab's time series: every `dt` from 0 while < duration, each queue's length and
# cumulative counters since time 0 (as aqmlab's columns), the AQM's state variable, and
# each traced TCP flow's cwnd, ssthresh, srtt (srtt_ is in ticks, scaled by 2^3) and
# in-order bytes at its sink. Sample k prints k, not ns-2's clock: both simulators' rows
# then carry the same exact times.
SAMPLE = """\
proc sample {k dt end} {
    global ns qm q tcp sink nq traced bacc qvar
    set now [$ns now]
    accumulate
    for {set j 0} {$j < $nq} {incr j} {
        set m $qm($j)
        set pi [$m get-pkts-integrator]
        $pi newpoint $now [$pi set lasty_]
        set v {}
        foreach var $qvar($j) { lappend v [$q($j) set $var] }
        puts "P $k $j [$m set pkts_] [$m set size_] [$m set parrivals_] [$m set pdrops_]\
 [$m set epdrops_] [$m set pmarks_] $bacc(q$j,d) [$pi set sum_] $v"
    }
    foreach i $traced {
        set t $tcp($i)
        puts "F $k $i [$t set cwnd_] [$t set ssthresh_] [$t set srtt_] $bacc(s$i)"
    }
    incr k
    if {$k * $dt < $end} { $ns at [expr {$k * $dt}] "sample $k $dt $end" }
}
"""

# The AQM state each queue's series shows: aqmlab's columns and ns-2's variables.
SERIES_VAR = {
    "red": [("avg", "ave_")],
    "ared": [("avg", "ave_"), ("max_p", "cur_max_p_")],
    "rem": [("prob", "prob_")],
    "pi": [("prob", "prob_")],
}


def _sample_interval(sim: dict[str, Any], duration: int) -> int:
    """aqmlab's sampling period in ns: `sample_interval`, else duration / 1000 (≥ 1 ns)."""
    if "sample_interval" in sim:
        return ns(sim["sample_interval"])
    return max(1, duration // 1000)


def translate(
    canonical: dict[str, Any], *, rng_seed: int = 1, what: str = "", series: bool = False
) -> Script:
    """The canonical scenario (``aqmlab.canonical``) as an ns-2.35 script; raises
    ``Unsupported`` listing every part that ns-2.35 cannot run exactly. ``series``: sample
    aqmlab's time series too (every queue, every flow with `trace = true`)."""
    w = _Writer(canonical)
    sim = canonical["simulation"]
    w.emit(PRELUDE.format(what=what or "a scenario", rng_seed=rng_seed))
    w.nodes()
    w.adjacency()
    w.edges, w.aggregates = diffserv.plan(w)
    w.last_hops = diffserv.last_hops(w)
    w.links()
    w.routes()
    w.flows_()
    if w.problems:
        # A link's one queue table serves both directions: each problem once.
        raise Unsupported(list(dict.fromkeys(w.problems)))
    duration, warmup = ns(sim["duration"]), ns(sim.get("warmup", "0ns"))
    tcps = [str(i) for i, f in enumerate(w.flows) if f["kind"] == "tcp"]
    udps = [str(i) for i, f in enumerate(w.flows) if f["kind"] != "tcp"]
    w.emit(f"set nq {len(w.queues)}")
    w.emit(f"set tcps {{{' '.join(tcps)}}}")
    w.emit(f"set udps {{{' '.join(udps)}}}")
    traced = [str(i) for i, f in enumerate(w.flows) if f.get("trace")] if series else []
    w.emit(f"set traced {{{' '.join(traced)}}}")
    fqs = [str(k) for k, q in enumerate(w.queues) if (q["from"], q["to"]) in w.last_hops]
    qk = {(q["from"], q["to"]): k for k, q in enumerate(w.queues)}
    for f, hop in zip(w.flows, diffserv.flow_last_hops(w), strict=True):
        f["last_queue"] = qk.get(hop, -1)
    w.emit(f"set fqs {{{' '.join(fqs)}}}")
    w.emit(SNAPSHOT)
    # Under 2^31 bytes per tick on the fastest link (2^30 B: a margin of two).
    fastest = max([q["bps"] for q in w.queues], default=1)
    w.emit(f'$ns at 0.0 "tick {_tcl_num(min(1.0, 2**30 * 8 / fastest))}"')
    if series:
        dt = _sample_interval(sim, duration)
        for k, qd in enumerate(w.queues):
            names = " ".join(var for _, var in SERIES_VAR.get(qd["aqm"], []))
            w.emit(f"set qvar({k}) {{{names}}}")
        w.emit(SAMPLE)
        w.emit(f'$ns at 0.0 "sample 0 {_tcl_num(dt / 1e9)} {_tcl_num(duration / 1e9)}"')
    w.emit(f'$ns at {_tcl_num(warmup / 1e9)} "snapshot W"')
    w.emit(f'$ns at {_tcl_num(duration / 1e9)} "snapshot E; exit 0"')
    w.emit("$ns run")
    return Script(
        tcl="\n".join(w.lines) + "\n",
        measured_s=(duration - warmup) / 1e9,
        warmup_s=warmup / 1e9,
        queues=w.queues,
        flows=w.flows,
        sample_s=_sample_interval(sim, duration) / 1e9 if series else 0.0,
        aggregates=w.aggregates,
        node_id=dict(w.node_id),
    )
