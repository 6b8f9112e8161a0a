"""How CUBIC flows reduce and regrow: ns-3.44's TcpCubic against aqmlab's CUBIC, traced.

    .venv/bin/python benchmarks/ns3_cubic_trace.py [SCENARIO] [--runs 1] [--set PATH=VALUE]
        [--first K] [--no-ns3] [--no-aqmlab]

SCENARIO defaults to scenarios/ns3_cubic_dumbbell.toml; ``--set`` as `aqmlab crosscheck`
(e.g. ``--set repeat[0].count=20 --set
'repeat[0].flows[0].congestion.reno_friendly_alpha="rfc8312"'``). For each replication
k from ``--first`` (``simulation.run`` = k, as `aqmlab crosscheck` draws it) the
scenario is translated as `aqmlab crosscheck --ns3` does and run by aqmlab's ns-3 driver
(``python/aqmlab/ns3/driver.py``, in ns-3's own Python: ``.ns3-venv`` or
$AQMLAB_NS3_PYTHON) with C++ trace sinks on every sending socket ("CongestionWindow",
"SlowStartThreshold", "CongState") and on every queue disc ("Drop", attributed to its
flow by the destination port). Counted from the warm-up instant to the end, per flow, then pooled:

- ``cwnd_mean``: the time-averaged cwnd (segments; ns-3's "CongestionWindow", without
  classic recovery's inflation, which ns-3 keeps apart in "CongestionWindowInflated");
- ``reductions``: entering fast recovery (``fr``) or a timeout (``rto``);
  ``w_before``: the mean cwnd just before a fast-recovery reduction; ``ratio``: the mean
  new ssthresh / that cwnd; ``gap_s``: the mean time between a flow's reductions;
- ``drops``, ``drop_events`` (a flow's drops less than 0.3 s after its previous one are
  the same event), ``drops_per_event``, ``single_drop_events`` (fraction);
- ``jain_cwnd``: Jain's index of the flows' time-averaged windows; ``flow_cwnd``,
  ``flow_reductions``: per flow;
- ``ss_after_rto_drops``: drops of a flow in the 3 s after one of its timeouts.

aqmlab's side: the same replication with every flow traced (``trace = true``) every
10 ms: the time-averaged cwnd (``cwnd_base``: without fast recovery's inflation, as
ns-3's "CongestionWindow"), a change of ssthresh or W_max as a reduction (the cwnd of
the sample before as ``w_before``; cwnd 1 after it: a timeout), and the flows table's
counters.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import sys

from ns3_trace_common import ROOT, load_driver, replication, run_driver, run_inner, scenario

TRACE_CPP = r"""
#include <unordered_map>
#include <string>
#include <sstream>
namespace aqmlab_ctrace {
using namespace ns3;
struct T {
    double warm = 0.0, end = 0.0;
    uint32_t seg = 1000;
    uint32_t cwnd = 0;
    double lastT = 0.0, area = 0.0;
    int state = 0, pendKind = 0;
    uint32_t ss = 0;
    bool pending = false;
    double pendT = 0.0, pendW = 0.0;
    std::ostringstream red;    // "t cwnd_before ssthresh kind;"
    std::ostringstream drops;  // "t;"
    void Acc(double now) {
        double a = lastT < warm ? warm : lastT;
        if (now > a) area += (now - a) * cwnd;
        lastT = now;
    }
};
static std::vector<T*> g_t;
static std::unordered_map<uint16_t, T*> g_byPort;

static void OnCwnd(T* t, uint32_t, uint32_t n) {
    double now = Simulator::Now().GetSeconds();
    t->Acc(now);
    if (t->pending && now == t->pendT) {
        t->red << now << " " << t->pendW << " " << (double)t->ss / t->seg << " "
               << t->pendKind << ";";
        t->pending = false;
    }
    t->cwnd = n;
}
static void OnSs(T* t, uint32_t, uint32_t n) { t->ss = n; }
// ns-3 sets the state before GetSsThresh and the window after it: the event is written
// at the window's change in the same instant, with the new ssthresh.
static void OnCong(T* t, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n) {
    t->state = (int)n;
    double now = Simulator::Now().GetSeconds();
    if ((n == TcpSocketState::CA_RECOVERY || n == TcpSocketState::CA_LOSS) && now >= t->warm) {
        t->pending = true;
        t->pendT = now;
        t->pendW = (double)t->cwnd / t->seg;
        t->pendKind = (int)n;
    }
}
static void OnDrop(Ptr<const QueueDiscItem> item) {
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (p->RemoveHeader(h) == 0 || p->GetSize() == 0) return;
    auto it = g_byPort.find(h.GetDestinationPort());
    if (it == g_byPort.end()) return;
    double now = Simulator::Now().GetSeconds();
    if (now >= it->second->warm) it->second->drops << now << ";";
}
static void Attach(T* t, aqmlab_ns3::Flow* f) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(f->app->GetSocket());
    if (!s) return;
    UintegerValue seg;
    s->GetAttribute("SegmentSize", seg);
    t->seg = (uint32_t)seg.Get();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, t));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSs, t));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCong, t));
}
void AddFlow(aqmlab_ns3::Flow* f, double start, double warm, double end, int port) {
    T* t = new T();
    t->warm = warm;
    t->end = end;
    g_t.push_back(t);
    g_byPort[(uint16_t)port] = t;
    Simulator::Schedule(Seconds(start) + NanoSeconds(2), &Attach, t, f);
}
void AddQueue(aqmlab_ns3::Port* p) {
    p->qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
}
std::string Dump(int i) {
    T* t = g_t[i];
    t->Acc(t->end);
    std::ostringstream o;
    o << "{\"cwnd_area\": " << t->area / t->seg << ", \"red\": \"" << t->red.str()
      << "\", \"drops\": \"" << t->drops.str() << "\"}";
    return o.str();
}
}
"""


def inner(spec_path: str) -> None:
    """Under ns-3's Python: aqmlab's driver with the trace sinks above."""
    drv, spec = load_driver(spec_path, TRACE_CPP)
    tr, H = drv.cppyy.gbl.aqmlab_ctrace, drv.H
    warm = spec["warmup_ns"] / 1e9
    end = spec["duration_ns"] / 1e9

    def run(real_run) -> None:
        for i in range(H.NPorts()):
            tr.AddQueue(H.GetPort(i))
        for i, f in enumerate(spec["flows"]):
            tr.AddFlow(H.GetFlow(i), int(f["start_ns"]) / 1e9, warm, end, 10000 + i)
        real_run()
        flows = [json.loads(str(tr.Dump(i))) for i in range(len(spec["flows"]))]
        sys.stdout.write(json.dumps({"trace": flows}) + "\n")

    run_driver(drv, spec_path, run)


def events(times: list[float], gap: float = 0.3) -> list[int]:
    """Drops per event: a drop less than ``gap`` s after the previous one joins its event."""
    out: list[int] = []
    last = None
    for t in times:
        if last is None or t - last >= gap:
            out.append(1)
        else:
            out[-1] += 1
        last = t
    return out


def jain(xs: list[float]) -> float:
    """Jain's fairness index."""
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs else float("nan")


def summarise(per_flow: list[dict], measured_s: float) -> dict:
    """Pool the per-flow reductions and drops."""
    n = len(per_flow)
    fr = [r for f in per_flow for r in f["red"] if r[3] != "rto"]
    rto = [r for f in per_flow for r in f["red"] if r[3] == "rto"]
    gaps = []
    for f in per_flow:
        ts = [r[0] for r in f["red"]]
        gaps += [b - a for a, b in itertools.pairwise(ts)]
    out = {
        "cwnd_mean": sum(f["cwnd_area"] for f in per_flow) / n / measured_s,
        "reductions_fr": len(fr),
        "reductions_rto": len(rto),
        "w_before": sum(r[1] for r in fr) / max(len(fr), 1),
        "ratio": sum(r[2] / r[1] for r in fr if r[1] > 0) / max(len(fr), 1),
        "gap_s": sum(gaps) / max(len(gaps), 1),
        "jain_cwnd": jain([f["cwnd_area"] for f in per_flow]),
        "flow_cwnd": [round(f["cwnd_area"] / measured_s, 2) for f in per_flow],
        "flow_reductions": [len(f["red"]) for f in per_flow],
    }
    if all("drops" in f for f in per_flow):
        ev = [e for f in per_flow for e in events(f["drops"])]
        after = 0
        for f in per_flow:
            rt = [r[0] for r in f["red"] if r[3] == "rto"]
            after += sum(1 for d in f["drops"] if any(0 <= d - t < 3.0 for t in rt))
        out.update(
            drops=sum(ev),
            drop_events=len(ev),
            drops_per_event=sum(ev) / max(len(ev), 1),
            single_drop_events=sum(1 for e in ev if e == 1) / max(len(ev), 1),
            ss_after_rto_drops=after,
        )
    return out


def ns3_side(c: dict) -> dict:
    from aqmlab import ns3

    spec = ns3.translate(c)
    first, drv = run_inner(__file__, spec)
    trace = first["trace"]
    per_flow = []
    for f in trace:
        raw = [item.split() for item in f["red"].split(";") if item]
        red = [(float(t), float(w), float(s), "rto" if k == "4" else "fr") for t, w, s, k in raw]
        drops = [float(x) for x in f["drops"].split(";") if x]
        per_flow.append({"cwnd_area": f["cwnd_area"], "red": red, "drops": drops})
    measured = (spec["duration_ns"] - spec["warmup_ns"]) / 1e9
    out = summarise(per_flow, measured)
    out["driver_fast_recoveries"] = sum(f["fast_recoveries"] for f in drv["flows"])
    out["driver_timeouts"] = sum(f["timeouts"] for f in drv["flows"])
    out["driver_retransmits"] = sum(f["retransmits"] for f in drv["flows"])
    return out


def aqmlab_side(c: dict) -> dict:
    import aqmlab

    c = copy.deepcopy(c)
    c["simulation"]["sample_interval"] = "10ms"
    for f in c.get("flows", []):
        f["trace"] = True
    for rep in c.get("repeat", []):
        for f in rep.get("flows", []):
            f["trace"] = True
    r = aqmlab.run(c)
    warm = r.warmup_s
    ft = r.flow_timeseries
    fcol = "flow" if "flow" in ft.columns else ft.columns[1]
    per_flow = []
    for _, g in ft.groupby(fcol, sort=False):
        g = g.sort_values("time_s")
        t = g["time_s"].to_numpy()
        w = g["cwnd_base"].to_numpy()
        s = g["ssthresh"].to_numpy()
        wm = g["w_max"].to_numpy()
        m = t >= warm - 1e-12
        dt = t[1] - t[0] if len(t) > 1 else 0.01
        red = []
        for i in range(1, len(t)):
            if t[i] >= warm and (s[i] != s[i - 1] or wm[i] != wm[i - 1]):
                kind = "rto" if w[i] <= 1.0 + 1e-9 else "fr"
                red.append((float(t[i]), float(w[i - 1]), float(s[i]), kind))
        per_flow.append({"cwnd_area": float(w[m].sum() * dt), "red": red})
    out = summarise(per_flow, r.measured_s)
    fl = r.flows
    for col in ["retransmits", "timeouts", "fast_recoveries", "dropped"]:
        if col in fl:
            out[col] = int(fl[col].sum())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "scenario", nargs="?", default=str(ROOT / "scenarios" / "ns3_cubic_dumbbell.toml")
    )
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--set", action="append")
    ap.add_argument("--no-ns3", action="store_true")
    ap.add_argument("--no-aqmlab", action="store_true")
    ap.add_argument("--inner")
    args = ap.parse_args()
    if args.inner:
        inner(args.inner)
        return
    s = scenario(args.scenario, args.set)
    for k in range(args.first, args.first + args.runs):
        c = replication(s, k)
        row: dict = {"run": k}
        if not args.no_aqmlab:
            row["aqmlab"] = aqmlab_side(c)
        if not args.no_ns3:
            row["ns3"] = ns3_side(c)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
