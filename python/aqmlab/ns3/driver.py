"""Runs one translated scenario in ns-3.44 and prints its counters as one JSON line.

    NS3_PYTHON driver.py SPEC.json

This file runs under the Python that has the PyPI package ``ns3`` (its own environment:
``python3 -m venv ns3-venv && ns3-venv/bin/pip install ns3==3.44.post0``), not under
aqmlab's: it imports nothing of aqmlab. ``aqmlab.ns3.translate`` writes SPEC (every ns-3
attribute the scenario fixes, explicitly); ``aqmlab.ns3.run`` reads the line back into
aqmlab's tables. Counters are taken at the warm-up instant and at the end, so every
number covers aqmlab's measured interval:

- per queue (one link direction): the queue disc's statistics by reason (ns-3's own
  strings), the packets and bytes the device sent, and the time-weighted mean and the
  maximum of the packets waiting in the queue disc *plus* the device's one-packet queue
  under it (aqmlab's port holds both: `limit_pkts` = queue disc + 1);
- per TCP flow: data segments sent, those below the highest sequence sent before
  (retransmissions), retransmission timeouts (each doubling of the socket's RTO: ns-3
  doubles it, capped at 60 s, in `ReTxTimeout`), entries into fast recovery, the bytes
  the flow's sink received and the time-weighted mean of its congestion window (segments;
  a diagnostic beside aqmlab's `flow_timeseries`, not a crosscheck metric).

C++ helpers (compiled by cppyy at start) do the per-packet work: no Python runs per event.
"""

from __future__ import annotations

import json
import os
import sys
import time

T0 = time.perf_counter()

import cppyy  # noqa: E402
from ns import ns  # noqa: E402  (cppyy bindings; the import takes several seconds)

cppyy.cppdef(r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/applications-module.h"
#include <vector>
namespace aqmlab_ns3 {
using namespace ns3;

// Time-weighted occupancy of one port: queue disc + device queue, packets.
struct Port {
    uint32_t qd = 0, dev = 0;        // current lengths
    double lastT = 0.0, area = 0.0;  // seconds, packet-seconds since `from`
    double from = 0.0;
    uint32_t maxQ = 0;
    Ptr<QueueDisc> qdisc;
    Ptr<PointToPointNetDevice> device;
    QueueDisc::Stats warm;           // the queue disc's statistics at warm-up
    uint64_t txPkts = 0, txBytes = 0, txPktsWarm = 0, txBytesWarm = 0;
    void Step() {
        double t = Simulator::Now().GetSeconds();
        area += (double)(qd + dev) * (t - lastT);
        lastT = t;
    }
    void OnQd(uint32_t, uint32_t n) { Step(); qd = n; Peak(); }
    void OnDev(uint32_t, uint32_t n) { Step(); dev = n; Peak(); }
    void Peak() {
        if (qd + dev > maxQ && Simulator::Now().GetSeconds() >= from) maxQ = qd + dev;
    }
    void OnTx(Ptr<const Packet> p) { txPkts++; txBytes += p->GetSize(); }
    void Snap() {
        Step();
        area = 0.0;
        from = lastT;
        maxQ = qd + dev;
        warm = qdisc->GetStats();
        txPktsWarm = txPkts;
        txBytesWarm = txBytes;
    }
    double Mean(double tEnd) {
        Step();
        return tEnd > from ? area / (tEnd - from) : 0.0;
    }
};

struct Flow {
    Ptr<BulkSendApplication> app;
    Ptr<PacketSink> sink;
    uint32_t seg = 0;
    uint64_t highTx = 0;   // one past the highest sequence sent (relative, bytes)
    uint64_t tx = 0, retx = 0, to = 0, fr = 0, rx = 0;
    uint64_t txW = 0, retxW = 0, toW = 0, frW = 0, rxW = 0;
    bool attached = false;
    // The congestion window (bytes), time-weighted from the warm-up instant.
    double cwnd = 0.0, cwndT = 0.0, cwndArea = 0.0, cwndFrom = 0.0;
    bool traced = false;
    std::vector<double> series;      // cwnd (segments) at each sample instant
    void CwndStep() {
        double t = Simulator::Now().GetSeconds();
        cwndArea += cwnd * (t - cwndT);
        cwndT = t;
    }
};

static std::vector<Port*> g_ports;
static std::vector<Flow*> g_flows;

Port* AddPort(Ptr<QueueDisc> q, Ptr<NetDevice> d) {
    Port* p = new Port();
    p->qdisc = q;
    p->device = DynamicCast<PointToPointNetDevice>(d);
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Port::OnQd, p));
    p->device->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                      MakeCallback(&Port::OnDev, p));
    p->device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Port::OnTx, p));
    g_ports.push_back(p);
    return p;
}

static void OnTcpTx(Flow* f, Ptr<const Packet> p, const TcpHeader& h,
                    Ptr<const TcpSocketBase>) {
    uint32_t n = p->GetSize();
    if (n == 0) return;
    uint64_t seq = h.GetSequenceNumber().GetValue();  // wraps at 2^32: runs stay below
    f->tx++;
    if (seq < f->highTx) f->retx++;
    if (seq + n > f->highTx) f->highTx = seq + n;
}
static void OnRto(Flow* f, Time o, Time n) {
    if (n > o && (n == o + o || n == Seconds(60))) f->to++;
}
static void OnCwnd(Flow* f, uint32_t, uint32_t n) {
    f->CwndStep();
    f->cwnd = n;
}
static void OnCong(Flow* f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n) {
    if (n == TcpSocketState::CA_RECOVERY) f->fr++;
}
static void Attach(Flow* f) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(f->app->GetSocket());
    if (!s) return;
    f->attached = true;
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, f));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCong, f));
    f->CwndStep();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
}
Flow* AddFlow(Ptr<Application> app, Ptr<Application> sink, double start, uint32_t seg) {
    Flow* f = new Flow();
    f->seg = seg;
    f->app = DynamicCast<BulkSendApplication>(app);
    f->sink = DynamicCast<PacketSink>(sink);
    // The application creates its socket at its start: attach just after.
    Simulator::Schedule(Seconds(start) + NanoSeconds(1), &Attach, f);
    g_flows.push_back(f);
    return f;
}
static void SnapAll() {
    for (Port* p : g_ports) p->Snap();
    for (Flow* f : g_flows) {
        f->txW = f->tx; f->retxW = f->retx; f->toW = f->to; f->frW = f->fr;
        f->rxW = f->sink->GetTotalRx();
        f->CwndStep();
        f->cwndArea = 0.0;
        f->cwndFrom = f->cwndT;
    }
}
void SnapAt(double t) {
    if (t <= 0) { SnapAll(); return; }
    Simulator::Schedule(Seconds(t), &SnapAll);
}
int NPorts() { return (int)g_ports.size(); }
Port* GetPort(int i) { return g_ports[i]; }
double MeanCwndSegments(Flow* f, double tEnd) {
    f->CwndStep();
    return tEnd > f->cwndFrom ? f->cwndArea / (tEnd - f->cwndFrom) / f->seg : 0.0;
}
static double g_sample = 0.0;
static void Sample() {
    for (Flow* f : g_flows)
        if (f->traced) f->series.push_back(f->seg ? f->cwnd / f->seg : 0.0);
    Simulator::Schedule(Seconds(g_sample), &Sample);
}
// cwnd of the traced flows every `dt` seconds from t = 0 (aqmlab's sample instants).
void SampleEvery(double dt) {
    g_sample = dt;
    Simulator::ScheduleNow(&Sample);
}
int NSeries(Flow* f) { return (int)f->series.size(); }
double SeriesAt(Flow* f, int i) { return f->series[i]; }
int NFlows() { return (int)g_flows.size(); }
Flow* GetFlow(int i) { return g_flows[i]; }
}
""")

H = cppyy.gbl.aqmlab_ns3


def value(kind: str, v):
    """An ns-3 AttributeValue from the spec's (kind, value)."""
    if kind == "uint":
        return ns.UintegerValue(int(v))
    if kind == "double":
        return ns.DoubleValue(float(v))
    if kind == "bool":
        return ns.BooleanValue(bool(v))
    if kind == "time_ns":
        return ns.TimeValue(ns.NanoSeconds(int(v)))
    if kind == "time_max":
        return ns.TimeValue(ns.Time.Max())
    if kind in ("string", "enum"):  # an enum by its name, as ns-3 deserialises it
        return ns.StringValue(str(v))
    if kind == "typeid":
        return ns.TypeIdValue(ns.TypeId.LookupByName(str(v)))
    if kind == "queuesize":
        return ns.QueueSizeValue(ns.QueueSize(str(v)))
    if kind == "datarate":
        return ns.DataRateValue(ns.DataRate(int(v)))
    raise ValueError(f"unknown attribute kind {kind!r}")


def diff(now, before) -> dict[str, int]:
    """A QueueDisc::Stats map (reason -> packets) at the end less the one at warm-up."""
    a, b = ({str(k): int(v) for k, v in m} for m in (now, before))
    return {k: v - b.get(k, 0) for k, v in a.items() if v - b.get(k, 0)}


def main(path: str) -> None:
    spec = json.load(open(path))
    ns.RngSeedManager.SetSeed(int(spec["rng_seed"]))
    ns.RngSeedManager.SetRun(int(spec["rng_run"]))
    for name, (kind, v) in spec["defaults"].items():
        ns.Config.SetDefault(name, value(kind, v))

    nodes = ns.NodeContainer()
    nodes.Create(len(spec["nodes"]))
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    iface: dict[int, object] = {}  # node -> its first interface's address
    ports = []
    for link in spec["links"]:
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(link["bps"]))))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(int(link["delay_ns"]))))
        # One packet under the queue disc: the queue disc holds the buffer (the device's
        # queue stops it when full).
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
        devs = p2p.Install(nodes.Get(link["a"]), nodes.Get(link["b"]))
        # Queue discs before addresses: Ipv4AddressHelper installs FqCoDel only where
        # a device has no root queue disc yet.
        for k, q in enumerate(link["queues"]):
            tch = ns.TrafficControlHelper()
            qd = q["qdisc"]
            tch.SetRootQueueDisc(qd["type"])
            one = ns.NetDeviceContainer(devs.Get(k))
            qdc = tch.Install(one)
            disc = qdc.Get(0)
            for name, (kind, v) in qd["attrs"].items():
                disc.SetAttribute(name, value(kind, v))
            for method, v in qd.get("calls", {}).items():  # setters without an attribute
                getattr(disc, method)(int(v))
            ports.append(H.AddPort(disc, devs.Get(k)))
        ifc = addr.Assign(devs)
        addr.NewNetwork()
        for k, node in enumerate((link["a"], link["b"])):
            iface.setdefault(node, ifc.GetAddress(k))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    for i, f in enumerate(spec["flows"]):
        port = 10000 + i
        sink_h = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo(),
        )
        sink = sink_h.Install(nodes.Get(f["dst"])).Get(0)
        sink.SetStartTime(ns.Seconds(0.0))
        bs = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(iface[f["dst"]], port).ConvertTo()
        )
        bs.SetAttribute("MaxBytes", ns.UintegerValue(int(f["max_bytes"])))
        bs.SetAttribute("SendSize", ns.UintegerValue(int(f["send_size"])))
        app = bs.Install(nodes.Get(f["src"])).Get(0)
        app.SetStartTime(ns.NanoSeconds(int(f["start_ns"])))
        if f.get("stop_ns") is not None:
            app.SetStopTime(ns.NanoSeconds(int(f["stop_ns"])))
        flow = H.AddFlow(app, sink, int(f["start_ns"]) / 1e9, int(f["send_size"]))
        flow.traced = bool(f.get("trace", False))

    warm, end = spec["warmup_ns"] / 1e9, spec["duration_ns"] / 1e9
    H.SnapAt(warm)
    if spec.get("sample_ns") and any(f.get("trace") for f in spec["flows"]):
        H.SampleEvery(spec["sample_ns"] / 1e9)
    ns.Simulator.Stop(ns.NanoSeconds(int(spec["duration_ns"])))
    t_setup = time.perf_counter()
    ns.Simulator.Run()
    t_run = time.perf_counter()

    out_q = []
    for i in range(H.NPorts()):
        p = H.GetPort(i)
        st, w = p.qdisc.GetStats(), p.warm
        out_q.append(
            {
                "received": int(st.nTotalReceivedPackets - w.nTotalReceivedPackets),
                "dropped_before": diff(
                    st.nDroppedPacketsBeforeEnqueue, w.nDroppedPacketsBeforeEnqueue
                ),
                "dropped_after": diff(
                    st.nDroppedPacketsAfterDequeue, w.nDroppedPacketsAfterDequeue
                ),
                "marked": diff(st.nMarkedPackets, w.nMarkedPackets),
                "tx_pkts": int(p.txPkts - p.txPktsWarm),
                "tx_bytes": int(p.txBytes - p.txBytesWarm),
                "mean_q_pkts": p.Mean(end),
                "max_q_pkts": int(p.maxQ),
            }
        )
    out_f = []
    for i in range(H.NFlows()):
        f = H.GetFlow(i)
        out_f.append(
            {
                "attached": bool(f.attached),
                "sent_pkts": int(f.tx - f.txW),
                "retransmits": int(f.retx - f.retxW),
                "timeouts": int(f.to - f.toW),
                "fast_recoveries": int(f.fr - f.frW),
                "rx_bytes": int(f.sink.GetTotalRx() - f.rxW),
                "mean_cwnd_seg": float(H.MeanCwndSegments(f, end)),
                "cwnd_series": [float(H.SeriesAt(f, k)) for k in range(H.NSeries(f))],
            }
        )
    res = {
        "simulator": "ns-3.44",
        "queues": out_q,
        "flows": out_f,
        "events": int(ns.Simulator.GetEventCount()),
        "wall_import_setup_s": round(t_setup - T0, 3),
        "wall_run_s": round(t_run - t_setup, 3),
    }
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)  # cppyy's teardown is slow and can crash after Simulator::Run


if __name__ == "__main__":
    main(sys.argv[1])
