"""An aqmlab scenario as a spec the ns-3.44 driver builds (docs/ns3.md).

The spec names every ns-3 attribute the scenario fixes, with its value: nothing is left
to an ns-3 default that differs from aqmlab's field. What ns-3.44 cannot run as aqmlab
does is refused, all of it at once, with the field's path (``Unsupported``).

The subset: hosts and routers joined by point-to-point links (bandwidth, delay, a queue
per direction), queues DropTail, RED, CoDel, PIE and FQ-CoDel counted in packets, and
TCP bulk or finite transfers (with or without SACK; classic recovery or ns-3's PRR; Reno
as NewReno, CUBIC, DCTCP or BBR as ns-3's TcpCubic, TcpDctcp, TcpBbr) with their sinks.
A queue of aqmlab's `limit_pkts` = L becomes an ns-3 queue disc of L - 1 packets over the
device's 1-packet queue: ns-3's device stops its queue disc while that packet waits, so L
packets wait in both, as in aqmlab's port.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from aqmlab.ns2.tcl import Unsupported as _Unsupported
from aqmlab.ns2.units import bps, nbytes, ns

SIMULATOR = "ns-3.44"

# aqmlab's TCP fields and the values ns-3.44's TcpSocketBase behaves as (docs/ns3.md); a
# field missing here is refused until the translation learns it.
TCP_FIXED = {
    "ack_size": ("40B", "ns-3's ACK is 20 bytes of IP and 20 of TCP (+ SACK blocks)"),
    "max_rto": ("1min", "ns-3 caps the doubled RTO at 60 s, hard-coded"),
    "dupack_response": ("halve", "ns-3 halves at a fast retransmit"),
    "partial_ack": ("rfc6582", "ns-3's NewReno follows RFC 6582"),
    "halving": ("rfc5681", "ns-3 halves BytesInFlight (RFC 5681)"),
    "fr_timer": ("keep", "ns-3 keeps the retransmission timer at a fast retransmit"),
    "rtt_estimator": ("rfc6298", "ns-3's RttMeanDeviation is RFC 6298's"),
    "ecn_retransmits": (False, "ns-3 sends retransmissions not ECN-capable"),
    "ecn_backoff": (False, "ns-3 reacts to ECE as RFC 3168"),
}
TCP_FIELDS = {
    "name",
    "type",
    "src",
    "dst",
    "packet_size",
    "start",
    "stop",
    "ecn",
    "ect",
    "bytes",
    "trace",
    "variant",
    "max_window",
    "initial_cwnd",
    "delayed_ack",
    "delack_timeout",
    "min_rto",
    "initial_rto",
    "granularity",
    "recovery",
    "limited_transmit",
    "congestion",
    "pacing",
    "recover_guard",  # ns-3 admits at its m_recover ("ns3.44"); both values run (docs/ns3.md)
    *TCP_FIXED,
}
# The controllers the translation runs, with the fields of each (docs/tcp.md).
CC = {
    "reno": ("ns3::TcpNewReno", ()),
    "cubic": (
        "ns3::TcpCubic",
        ("c", "beta", "fast_convergence", "reno_friendly_alpha", "hystart"),
    ),
    "dctcp": ("ns3::TcpDctcp", ("g", "initial_alpha")),
    "bbr": (
        "ns3::TcpBbr",
        ("high_gain", "cwnd_gain", "probe_rtt_interval", "probe_rtt_duration", "bw_filter_rounds"),
    ),
}
# prr_ns3.44 is ns-3.44's TcpPrrRecovery exactly; prr_safe_ack its bound with RFC 6937's
# DeliveredData and RecoverFS (docs/tcp.md): both run as ns-3's one PRR.
RECOVERY = {
    "classic": "ns3::TcpClassicRecovery",
    "prr_safe_ack": "ns3::TcpPrrRecovery",
    "prr_ns3.44": "ns3::TcpPrrRecovery",
}
COUNT_RULE_WAIT = {"ns2_wait": True, "ns2": False}


class Unsupported(_Unsupported):
    """The scenario uses what ns-3.44 cannot run exactly."""

    simulator = SIMULATOR


def _t(text: str) -> list[Any]:
    return ["time_ns", ns(text)]


class _Spec:
    def __init__(self, c: dict[str, Any]):
        self.c = c
        self.problems: list[tuple[str, str]] = []
        self.index = {n["name"]: i for i, n in enumerate(c["nodes"])}
        self.defaults: dict[str, list[Any]] = {}
        self.queues: list[dict[str, Any]] = []

    def refuse(self, path: str, what: str) -> None:
        self.problems.append((path, what))

    def default(self, name: str, v: list[Any], path: str, what: str) -> None:
        """A Config::SetDefault, global in ns-3: every use must agree."""
        if name in self.defaults and self.defaults[name] != v:
            self.refuse(path, f"{what} differs between flows or queues (ns-3's {name} is global)")
        self.defaults[name] = v

    # -- topology --------------------------------------------------------------------
    def nodes(self) -> None:
        degree = {n: 0 for n in self.index}
        for link in self.c["links"]:
            degree[link["a"]] += 1
            degree[link["b"]] += 1
        for i, n in enumerate(self.c["nodes"]):
            if n["type"] == "switch":
                self.refuse(f"nodes[{i}]", "a CIOQ switch (ns-3.44 has none)")
            if n.get("conditioners"):
                self.refuse(f"nodes[{i}].conditioners", "DiffServ (not translated to ns-3)")
            if n["type"] == "host" and degree[n["name"]] > 1:
                # ns-3's global routing would forward through a host; aqmlab's does not.
                self.refuse(
                    f"nodes[{i}]", "a host with several links (ns-3 would route through it)"
                )

    def links(self) -> list[dict[str, Any]]:
        out = []
        for i, link in enumerate(self.c["links"]):
            if link.get("loss") is not None:
                self.refuse(f"links[{i}].loss", "link loss (not translated to ns-3)")
            if link.get("reverse_bandwidth", link["bandwidth"]) != link["bandwidth"]:
                # The driver builds each link as one PointToPointChannel at one DataRate.
                self.refuse(
                    f"links[{i}].reverse_bandwidth",
                    "an asymmetric link (the ns-3 translation gives both directions one rate)",
                )
            queues = []
            for fr, to, key in (
                (link["a"], link["b"], "queue"),
                (link["b"], link["a"], "reverse_queue"),
            ):
                q = link.get(key, link["queue"])
                qpath = f"links[{i}].{key if key in link else 'queue'}"
                queues.append({"qdisc": self.qdisc(q, qpath, link)})
                self.queues.append(
                    {
                        "name": f"{fr}->{to}",
                        "link": link.get("name", f"{link['a']}-{link['b']}"),
                        "from": fr,
                        "to": to,
                        "aqm": q["aqm"]["type"],
                        "bps": bps(link["bandwidth"]),
                    }
                )
            out.append(
                {
                    "a": self.index[link["a"]],
                    "b": self.index[link["b"]],
                    "bps": bps(link["bandwidth"]),
                    "delay_ns": ns(link["delay"]),
                    "queues": queues,
                }
            )
        return out

    def qdisc(self, q: dict[str, Any], path: str, link: dict[str, Any]) -> dict[str, Any]:
        aqm = dict(q["aqm"])
        kind = aqm.pop("type")
        size = q.get("limit_pkts", 0) - 1
        if "limit_pkts" not in q:
            self.refuse(f"{path}.limit_bytes", "a byte limit (translated: limit_pkts)")
        elif size < 1:
            self.refuse(f"{path}.limit_pkts", "below 2 (ns-3 keeps one in the device)")
        make = getattr(self, f"aqm_{kind}", None)
        if make is None:
            runs = "droptail, red, codel, pie, fq_codel"
            self.refuse(f"{path}.aqm", f"AQM {kind!r} (the ns-3 translation runs {runs})")
            return {}
        out = make(aqm, f"{path}.aqm", link)
        for key in aqm:
            self.refuse(f"{path}.aqm.{key}", "a field the ns-3 translation does not know")
        out["attrs"]["MaxSize"] = ["queuesize", f"{size}p"]
        return out

    def aqm_droptail(self, aqm, p, link):
        return {"type": "ns3::FifoQueueDisc", "attrs": {}}

    def aqm_red(self, aqm, p, link):
        rule = aqm.pop("count_rule")
        if rule not in COUNT_RULE_WAIT:
            self.refuse(f"{p}.count_rule", f"{rule!r} (ns-3's RED has Wait true or false)")
        if not aqm.pop("ns2_qlen_guard"):
            self.refuse(f"{p}.ns2_qlen_guard", "false (ns-3's RedQueueDisc has the guard)")
        if aqm.pop("byte_mode"):
            self.refuse(f"{p}.byte_mode", "true (translated in packets only)")
        w_q = aqm.pop("w_q")
        if w_q == "auto":
            self.refuse(f"{p}.w_q", "'auto' (give a number)")
        return {
            "type": "ns3::RedQueueDisc",
            "attrs": {
                "MinTh": ["double", aqm.pop("min_th")],
                "MaxTh": ["double", aqm.pop("max_th")],
                "LInterm": ["double", 1.0 / aqm.pop("max_p")],
                "QW": ["double", w_q if w_q != "auto" else 0.0],  # refused above
                "Gentle": ["bool", aqm.pop("gentle")],
                "Wait": ["bool", COUNT_RULE_WAIT.get(rule, True)],
                "MeanPktSize": ["uint", nbytes(aqm.pop("mean_pktsize"))],
                "UseEcn": ["bool", aqm.pop("ecn")],
                # Above max_th: a forced drop, or (aqmlab's mark_above_max_th) a mark.
                "UseHardDrop": ["bool", not aqm.pop("mark_above_max_th")],
                "LinkBandwidth": ["datarate", bps(link["bandwidth"])],
                "LinkDelay": _t(link["delay"]),
                "ARED": ["bool", False],
                "AdaptMaxP": ["bool", False],
                "FengAdaptive": ["bool", False],
                "NLRED": ["bool", False],
            },
        }

    def _l4s(self, p: str, field: str, link: dict[str, Any]) -> None:
        """ns-3.44's UseL4s (CoDel, FqCoDel, PIE) treats ECT(1) and CE packets as L4S. The
        translation sends ECT(0) only (a flow's ect1 is refused), so the only L4S packets
        ns-3 could see are ones marked CE upstream, and those ns-3 handles otherwise than
        aqmlab (CoDel: out of the control law; PIE: out of the delay estimate). Without
        another link that marks, no packet arrives CE and the runs agree."""
        for j, other in enumerate(self.c["links"]):
            if other is link:
                continue
            for key in ("queue", "reverse_queue"):
                a = other.get(key, {}).get("aqm", {})
                if a.get("ecn") or a.get("ce_threshold") is not None or a.get("l4s"):
                    self.refuse(
                        f"{p}.{field}",
                        f"an L4S mode with links[{j}] also marking (ns-3's UseL4s takes "
                        "packets that arrive CE out of the AQM; aqmlab does not)",
                    )
                    return

    def _codel(self, aqm, p, child: bool):
        mtu = aqm.pop("mtu")
        target, interval = ns(aqm.pop("target")), ns(aqm.pop("interval"))
        if child:  # FqCoDel's Target and Interval are strings, handed to its CoDels
            attrs = {"Target": ["string", f"{target}ns"], "Interval": ["string", f"{interval}ns"]}
        else:
            attrs = {"Target": ["time_ns", target], "Interval": ["time_ns", interval]}
        ce = aqm.pop("ce_threshold", None)
        attrs["CeThreshold"] = _t(ce) if ce is not None else ["time_max", None]
        attrs["UseEcn"] = ["bool", aqm.pop("ecn")]
        # "ect1" step-marks ECT(1) only, as ns-3's UseL4s; with the ECT(0) senders the
        # translation allows, both leave CoDel alone (ns-3 then skips its CeThreshold
        # branch for every packet). FqCoDel hands UseL4s to its CoDels.
        attrs["UseL4s"] = ["bool", aqm.pop("ce_threshold_ecn", "ect") == "ect1"]
        # ns-3 holds a signal back while fewer than MinBytes remain, aqmlab (and Linux)
        # while at most mtu remain: MinBytes = mtu + 1.
        min_bytes = ["uint", nbytes(mtu) + 1]
        if child:
            # FqCoDel builds its per-flow CoDels with MaxSize, Interval and Target only:
            # MinBytes comes from CoDelQueueDisc's default.
            self.default("ns3::CoDelQueueDisc::MinBytes", min_bytes, p, "mtu")
        else:
            attrs["MinBytes"] = min_bytes
        return attrs

    def aqm_codel(self, aqm, p, link):
        attrs = self._codel(aqm, p, child=False)
        if attrs["UseL4s"][1]:
            self._l4s(p, "ce_threshold_ecn", link)
        return {"type": "ns3::CoDelQueueDisc", "attrs": attrs}

    def aqm_fq_codel(self, aqm, p, link):
        attrs = {
            "Flows": ["uint", aqm.pop("flows")],
            "DropBatchSize": ["uint", aqm.pop("drop_batch")],
            "EnableSetAssociativeHash": ["bool", False],
        }
        codel = self._codel(aqm, p, child=True)
        if codel["UseL4s"][1]:
            self._l4s(p, "ce_threshold_ecn", link)
        return {
            "type": "ns3::FqCoDelQueueDisc",
            "attrs": {**attrs, **codel},
            # No attribute: its setter, called before the queue disc is initialised.
            "calls": {"SetQuantum": nbytes(aqm.pop("quantum"))},
        }

    def aqm_pie(self, aqm, p, link):
        if aqm.pop("byte_mode"):
            self.refuse(f"{p}.byte_mode", "true (ns-3's PIE has no byte mode)")
        mark = aqm.pop("mark_ecn_th", 0.1)
        dq = aqm.pop("dq_threshold", "16384B")
        # aqmlab's l4s is ns-3's UseL4s; its ce_threshold defaults to 1 ms, ns-3's to never.
        l4s = aqm.pop("l4s", False)
        ce = aqm.pop("ce_threshold", "1ms")
        if l4s:
            self._l4s(p, "l4s", link)
        return {
            "type": "ns3::PieQueueDisc",
            "attrs": {
                "QueueDelayReference": _t(aqm.pop("target")),
                "Tupdate": _t(aqm.pop("t_update")),
                "A": ["double", aqm.pop("alpha")],
                "B": ["double", aqm.pop("beta")],
                "MaxBurstAllowance": _t(aqm.pop("max_burst")),
                "UseEcn": ["bool", aqm.pop("ecn")],
                "MarkEcnThreshold": ["double", mark],
                # ns-3's "fewer than two packets wait" rule reads MeanPktSize bytes: aqmlab's
                # two MTUs.
                "MeanPktSize": ["uint", nbytes(aqm.pop("mtu"))],
                "UseDequeueRateEstimator": ["bool", aqm.pop("dq_rate_estimator")],
                "DequeueThreshold": ["uint", nbytes(dq)],
                "UseDerandomization": ["bool", aqm.pop("derandomize")],
                "UseCapDropAdjustment": ["bool", True],
                "ActiveThreshold": ["time_max", None],
                "Supdate": ["time_ns", 0],
                "UseL4s": ["bool", l4s],
                "CeThreshold": _t(ce) if l4s else ["time_max", None],
            },
        }

    # -- routing -----------------------------------------------------------------------
    def check_routes(self) -> None:
        """aqmlab routes by a BFS that keeps the first of equal-length paths in link
        order; ns-3's global routing may keep another: refuse a flow with two."""
        adj: dict[str, list[str]] = {n: [] for n in self.index}
        for link in self.c["links"]:
            adj[link["a"]].append(link["b"])
            adj[link["b"]].append(link["a"])
        hosts = {n["name"] for n in self.c["nodes"] if n["type"] == "host"}
        for i, f in enumerate(self.c.get("flows", [])):
            dist, paths = {f["src"]: 0}, {f["src"]: 1}
            todo = deque([f["src"]])
            while todo:
                u = todo.popleft()
                if u != f["src"] and u in hosts:
                    continue
                for v in adj[u]:
                    if v not in dist:
                        dist[v], paths[v] = dist[u] + 1, paths[u]
                        todo.append(v)
                    elif dist[v] == dist[u] + 1:
                        paths[v] += paths[u]
            if paths.get(f["dst"], 0) > 1:
                self.refuse(f"flows[{i}]", "equal-cost paths (ns-3 may route another)")

    # -- flows -------------------------------------------------------------------------
    def flows(self) -> list[dict[str, Any]]:
        out = []
        for i, f in enumerate(self.c.get("flows", [])):
            path = f"flows[{i}]"
            if f["type"] != "tcp":
                self.refuse(path, f"a {f['type']} flow (the ns-3 translation runs tcp)")
                continue
            for key in sorted(set(f) - TCP_FIELDS):
                self.refuse(f"{path}.{key}", "a field the ns-3 translation does not know")
            if f.get("ect", "ect0") != "ect0":
                # ns-3.44 sends ECT(1) only from TcpDctcp with UseEct0 = false: not mapped.
                self.refuse(f"{path}.ect", f"{f['ect']!r}: the ns-3 translation sends ECT(0)")
            out.append(self.tcp(i, path, f))
        return out

    # -- congestion controllers (docs/ns3.md, "Congestion controllers") ------------------
    def congestion(self, path: str, f: dict[str, Any]) -> str:
        """The flow's `congestion` and `pacing` as ns-3's SocketType (its TcpCongestionOps)
        and that type's attributes, every one written; returns the TypeId's name."""
        cc = dict(f.get("congestion") or {"type": "reno"})
        kind = cc.pop("type")
        p = f"{path}.congestion"
        make = getattr(self, f"cc_{kind}", None) if kind in CC else None
        pacing = f.get("pacing", False)
        if not isinstance(pacing, bool):
            self.refuse(f"{path}.pacing", f"{pacing!r} (translated: true or false)")
            pacing = bool(pacing)
        if make is None:
            self.refuse(f"{p}.type", f"{kind!r} (the ns-3 translation runs {', '.join(CC)})")
            return "ns3::TcpNewReno"
        type_id, fields = CC[kind]
        missing = [k for k in fields if k not in cc]
        for key in missing:  # the canonical form writes every field
            self.refuse(f"{p}.{key}", "missing (give the canonical form)")
        if missing:
            return type_id
        make(cc, p, f)
        for key in sorted(cc):
            self.refuse(f"{p}.{key}", "a field the ns-3 translation does not know")
        if pacing and kind != "bbr":
            # ns-3 paces other controllers at PacingSsRatio / PacingCaRatio (200% / 120%,
            # Linux's) of cwnd per RTT; aqmlab's rule for them is not translated.
            self.refuse(f"{path}.pacing", f"true with {kind!r} (ns-3 paces it by Linux's ratios)")
        if kind == "bbr" and not pacing:
            self.refuse(f"{path}.pacing", "false with bbr (ns-3's TcpBbr always paces)")
        self.default("ns3::TcpSocketState::EnablePacing", ["bool", kind == "bbr"], path, "pacing")
        return type_id

    def cc_reno(self, cc, p, f):
        pass

    def cc_cubic(self, cc, p, f):
        c, beta = float(cc.pop("c")), float(cc.pop("beta"))
        # ns-3's TcpCubic keeps alpha = 3(1 - beta)/(1 + beta) for the whole epoch: "rfc8312"
        # is it exactly; "rfc9438" (alpha 1 beyond cwnd_prior) is run against it as the
        # documented difference (docs/ns3.md, "What ns-3.44's TcpCubic does differently").
        cc.pop("reno_friendly_alpha")
        if cc.pop("hystart"):
            # ns-3's HyStart is Linux's (ACK trains and a delay rise end slow start at once),
            # not RFC 9406's HyStart++ (a delay rise enters CSS, five rounds to exit).
            self.refuse(f"{p}.hystart", "true (ns-3's HyStart is not RFC 9406's HyStart++)")
        for name, v in (
            ("C", ["double", c]),
            ("Beta", ["double", beta]),
            ("FastConvergence", ["bool", bool(cc.pop("fast_convergence"))]),
            # RFC 9438 §4.3's Reno-friendly region (W_est, Eq. 4): ns-3's tcp_cwnd with
            # alpha 3(1 - beta)/(1 + beta) per RTT.
            ("TcpFriendliness", ["bool", True]),
            # Off: aqmlab's slow start without HyStart++ ends at ssthresh or a loss (with it
            # the flow is refused above). The HyStart parameters are inert with HyStart off;
            # written at ns-3's values.
            ("HyStart", ["bool", False]),
            ("HyStartLowWindow", ["uint", 16]),
            ("HyStartDetect", ["enum", "BOTH"]),
            ("HyStartMinSamples", ["uint", 8]),
            ("HyStartAckDelta", ["time_ns", 2_000_000]),
            ("HyStartDelayMin", ["time_ns", 4_000_000]),
            ("HyStartDelayMax", ["time_ns", 1_000_000_000]),
            # ns-3 drops RTT samples for delayMin during CubicDelta after an epoch begins;
            # aqmlab discards none.
            ("CubicDelta", ["time_ns", 0]),
            # The clamp acts only while W_max = 0, before the first congestion event, when
            # the window is in slow start (HyStart off): inert; ns-3's and Linux's 20.
            ("CntClamp", ["uint", 20]),
        ):
            self.default(f"ns3::TcpCubic::{name}", v, p, name)

    def cc_dctcp(self, cc, p, f):
        if not f["ecn"]:
            self.refuse(p.removesuffix(".congestion") + ".ecn", "false with dctcp (needs ECN)")
        for name, v in (
            ("DctcpShiftG", ["double", float(cc.pop("g"))]),
            ("DctcpAlphaOnInit", ["double", float(cc.pop("initial_alpha"))]),
            # ECT(0), as RFC 3168 senders and Linux's DCTCP send; ECT(1) is L4S's (RFC 9331).
            ("UseEct0", ["bool", True]),
        ):
            self.default(f"ns3::TcpDctcp::{name}", v, p, name)

    def cc_bbr(self, cc, p, f):
        # Constants of ns-3.44's tcp-bbr.cc/.h (no attributes): the field must hold them.
        high = float(cc["high_gain"])
        fixed = {
            "probe_bw_up": 1.25,  # PACING_GAIN_CYCLE[0]
            "probe_bw_down": 0.75,  # PACING_GAIN_CYCLE[1]
            "min_cwnd": 4.0,  # m_minPipeCwnd, 4 segments
            "full_bw_threshold": 1.25,  # CheckFullPipe: growth under 25%
            "full_bw_rounds": 3,  # ... for 3 rounds
            "pacing_margin": 0.01,  # m_pacingMargin
            "drain_gain": 1.0 / high,  # EnterDrain: 1 / m_highGain
        }
        for key, want in fixed.items():
            if key in cc and abs(float(cc.pop(key)) - want) > 1e-12 * max(1.0, want):
                self.refuse(f"{p}.{key}", f"not ns-3.44's fixed {want:g} (no attribute)")
        gain = float(cc.pop("cwnd_gain"))
        if gain != 2.0:
            self.refuse(f"{p}.cwnd_gain", f"{gain} (ns-3's TcpBbr fixes ProbeBW's at 2)")
        rounds = cc.pop("bw_filter_rounds")
        if rounds != int(rounds):
            self.refuse(f"{p}.bw_filter_rounds", "not whole (ns-3 counts rounds)")
        for name, v in (
            ("HighGain", ["double", float(cc.pop("high_gain"))]),
            ("BwWindowLength", ["uint", int(rounds)]),
            # BBR v1 probes the RTT when its min-RTT filter's sample expires: ns-3's
            # RttWindowLength is both the filter's length and the ProbeRTT interval.
            ("RttWindowLength", _t(cc.pop("probe_rtt_interval"))),
            ("ProbeRttDuration", _t(cc.pop("probe_rtt_duration"))),
            # Not scenario fields: ns-3's (and Linux's) values, written.
            ("ExtraAckedRttWindowLength", ["uint", 5]),
            ("AckEpochAckedResetThresh", ["uint", 1 << 12]),
            ("Stream", ["uint", 4]),
        ):
            self.default(f"ns3::TcpBbr::{name}", v, p, name)
        for name, v in (
            # BBR paces from the first segment (its pacing rate starts at high_gain x
            # InitialCwnd / RTT); ns-3 leaves the initial window unpaced by default.
            ("PaceInitialWindow", ["bool", True]),
            # No cap but BBR's own rate (ns-3's default caps at 4 Gb/s).
            ("MaxPacingRate", ["datarate", 10**15]),
        ):
            self.default(f"ns3::TcpSocketState::{name}", v, p, name)

    def tcp(self, i: int, path: str, f: dict[str, Any]) -> dict[str, Any]:
        socket_type = self.congestion(path, f)
        for key, (want, what) in TCP_FIXED.items():
            if key == "ecn_retransmits" and socket_type == "ns3::TcpDctcp":
                want, what = True, "ns-3's DCTCP sends retransmissions ECN-capable"
            have = f.get(key, want)
            if (ns(have) != ns(want)) if key == "max_rto" else have != want:
                self.refuse(f"{path}.{key}", f"{have!r}: {what}")
        size = nbytes(f["packet_size"])
        seg = size - 40
        variant = f.get("variant", "newreno")
        if variant not in ("newreno", "sack"):
            self.refuse(f"{path}.variant", f"{variant!r} (ns-3 has no Reno recovery)")
        cwnd = f.get("initial_cwnd", 2.0)
        if cwnd != int(cwnd):
            self.refuse(f"{path}.initial_cwnd", "not whole (ns-3 counts segments)")
        recovery = f.get("recovery", "classic")
        if recovery not in RECOVERY:
            self.refuse(
                f"{path}.recovery", f"{recovery!r} (ns-3.44: classic, prr_safe_ack or prr_ns3.44)"
            )
        window = int(f.get("max_window", 10000)) * seg
        delack = bool(f.get("delayed_ack", False))
        for name, v, field in (
            ("ns3::TcpL4Protocol::SocketType", ["typeid", socket_type], "congestion"),
            ("ns3::TcpSocket::SegmentSize", ["uint", seg], "packet_size"),
            ("ns3::TcpSocket::InitialCwnd", ["uint", int(cwnd)], "initial_cwnd"),
            ("ns3::TcpSocket::SndBufSize", ["uint", window], "max_window"),
            ("ns3::TcpSocket::RcvBufSize", ["uint", window], "max_window"),
            ("ns3::TcpSocket::DelAckCount", ["uint", 2 if delack else 1], "delayed_ack"),
            ("ns3::TcpSocketBase::Sack", ["bool", variant == "sack"], "variant"),
            ("ns3::TcpSocketBase::Timestamp", ["bool", False], "variant"),
            ("ns3::TcpSocketBase::MinRto", _t(f.get("min_rto", "200ms")), "min_rto"),
            ("ns3::RttEstimator::InitialEstimation", _t(f.get("initial_rto", "3s")), "initial_rto"),
            (
                "ns3::TcpSocketBase::ClockGranularity",
                _t(f.get("granularity", "10ms")),
                "granularity",
            ),
            (
                "ns3::TcpSocketBase::LimitedTransmit",
                ["bool", bool(f.get("limited_transmit", True))],
                "limited_transmit",
            ),
            ("ns3::TcpSocketBase::UseEcn", ["enum", "On" if f["ecn"] else "Off"], "ecn"),
            (
                "ns3::TcpL4Protocol::RecoveryType",
                ["typeid", RECOVERY.get(recovery, RECOVERY["classic"])],
                "recovery",
            ),
        ):
            self.default(name, v, f"{path}.{field}", field)
        if delack:
            self.default(
                "ns3::TcpSocket::DelAckTimeout",
                _t(f.get("delack_timeout", "100ms")),
                f"{path}.delack_timeout",
                "delack_timeout",
            )
        row = {
            "src": self.index[f["src"]],
            "dst": self.index[f["dst"]],
            "start_ns": ns(f["start"]),
            "stop_ns": ns(f["stop"]) if "stop" in f else None,
            # aqmlab's `bytes` counts whole packets of packet_size; ns-3's MaxBytes payload.
            "max_bytes": -(-nbytes(f["bytes"]) // size) * seg if "bytes" in f else 0,
            "send_size": seg,
            "name": f["name"],
            "packet_size": size,
            # aqmlab's flow time series: ns-3 samples cwnd at each sample_interval.
            "trace": bool(f.get("trace", False)),
        }
        return row


def translate(canonical: dict[str, Any]) -> dict[str, Any]:
    """The canonical scenario (``aqmlab.canonical``) as the driver's spec; raises
    ``Unsupported`` listing every part ns-3.44 cannot run exactly."""
    s = _Spec(canonical)
    sim = canonical["simulation"]
    s.nodes()
    links = s.links()
    s.check_routes()
    flows = s.flows()
    if s.problems:
        raise Unsupported(list(dict.fromkeys(s.problems)))
    return {
        "rng_seed": 1 + int(sim["seed"]) % 2_147_483_646,
        "rng_run": 1 + int(sim["run"]),
        "duration_ns": ns(sim["duration"]),
        "warmup_ns": ns(sim.get("warmup", "0ns")),
        "sample_ns": ns(sim["sample_interval"]) if "sample_interval" in sim else None,
        "defaults": s.defaults,
        "nodes": [n["name"] for n in canonical["nodes"]],
        "links": links,
        "flows": flows,
        "queues": s.queues,
    }
