"""Which retransmissions are lost again, and what repairs them: ns-3.44 against aqmlab.

    .venv/bin/python benchmarks/ns3_recovery_trace.py [SCENARIO] [--runs 3] [--set PATH=VALUE]

SCENARIO defaults to scenarios/ns3_dumbbell.toml (20 flows, FQ-CoDel); ``--set`` as
`aqmlab crosscheck`. For each replication k (``simulation.run`` = k, as the crosscheck's),
the scenario is translated as `aqmlab crosscheck --ns3` does and run by aqmlab's ns-3
driver (``python/aqmlab/ns3/driver.py``, in ns-3's own Python: ``.ns3-venv`` or
$AQMLAB_NS3_PYTHON), with extra C++ trace sinks on every sending socket ("Tx", "Rx",
"RTO", "CongState") and on every queue disc ("Drop"). Counted between the warm-up instant
and the end, summed over the flows:

- ``copy_N``: data segments sent as the N-th copy of their sequence number (1: the first
  transmission; 2: its first retransmission; 3+: a retransmission of a retransmission);
- ``dropped_copy_N``: queue-disc drops of an N-th copy (the drop of a sequence's latest
  copy);
- ``rexmit2_*`` (each copy >= 2) and ``rexmit3_*`` (each copy >= 3) by what sent it:
  ``rto`` (in the instant the RTO doubled, `ReTxTimeout`), ``fast_retransmit`` (while
  the ACK that moved the socket into CA_RECOVERY was processed), ``partial_head`` (while
  an ACK that advanced snd.una in CA_RECOVERY was processed, and the segment is the new
  head: the partial-ACK `DoRetransmit`), ``recovery_ack`` (another segment sent while an
  ACK was processed in CA_RECOVERY: SACK-based), ``loss_ack`` (ACK-clocked in CA_LOSS,
  after a timeout), ``other``;
- ``rexmit_same_instant``: copies >= 2 sent in the same instant as the copy before;
- ``repair_*``: the trigger of the copy that followed a dropped retransmission;
- ``timeouts`` (each doubling of the RTO, as the driver counts) by the congestion state
  the socket was in (``to_open`` ... ``to_loss``) and by the head segment (the highest
  cumulative ACK): ``to_head_rexmit_dropped`` (its latest retransmission was dropped),
  ``to_head_rexmit_not_dropped``, ``to_head_not_rexmitted``.

aqmlab's side: the same replications' per-flow counters (``retransmits``,
``fast_recoveries``, ``timeouts`` and their split ``timeouts_open`` ... ``timeouts_loss``),
summed. aqmlab's RFC 6675 recovery never sends a segment below HighRxt twice, so a
retransmission lost in recovery is repaired only by a timeout (``timeouts_recovery``);
``timeouts_disorder`` are losses whose fast retransmit the recovery guard refused
(`recover_guard`, docs/ns3.md). Try ``--set 'repeat[0].flows[0].recover_guard="ns3.44"'``.

Inner mode (run by the outer one, under ns-3's Python): ``--inner SPEC.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ns3_trace_common import ROOT, load_driver, replication, run_driver, run_inner, scenario

TRACE_CPP = r"""
#include <unordered_map>
#include <map>
#include <string>
namespace aqmlab_trace {
using namespace ns3;
struct T {
    double warm = 0.0;
    uint64_t highTx = 0;          // one past the highest sequence sent (absolute bytes)
    bool haveHigh = false;
    std::unordered_map<uint32_t, uint32_t> copies;  // sequence -> copies sent
    std::unordered_map<uint32_t, uint32_t> dropped; // sequence -> latest copy dropped
    std::unordered_map<uint32_t, double> lastTx;    // sequence -> time of its latest copy
    int state = 0, stateBeforeLoss = 0;
    double lossAt = -1.0, rtoAt = -1.0, rxAt = -1.0;
    uint32_t rxAck = 0, highAck = 0;
    bool rxAdvanced = false, rxInRecovery = false;
    std::map<std::string, uint64_t> n;
    bool On() const { return Simulator::Now().GetSeconds() >= warm; }
    void Add(const std::string& k) { if (On()) n[k]++; }
};
static std::vector<T*> g_t;
static std::unordered_map<uint16_t, T*> g_byPort;  // destination port -> flow

static void OnTx(T* t, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (p->GetSize() == 0) return;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    uint32_t k = ++t->copies[seq];
    t->Add("copy_" + std::to_string(k < 4 ? k : 4));
    double now = Simulator::Now().GetSeconds();
    if (k >= 2 && t->lastTx[seq] == now) t->Add("rexmit_same_instant");
    t->lastTx[seq] = now;
    if (k >= 2) {
        std::string why;
        bool ack = now == t->rxAt;
        if (now == t->rtoAt) why = "rto";
        else if (ack && t->rxInRecovery && t->rxAdvanced && seq == t->rxAck)
            why = "partial_head";
        else if (ack && t->rxInRecovery) why = "recovery_ack";
        else if (ack && t->state == TcpSocketState::CA_RECOVERY) why = "fast_retransmit";
        else if (ack && t->state == TcpSocketState::CA_LOSS) why = "loss_ack";
        else why = "other";
        t->Add("rexmit2_" + why);
        if (k >= 3) t->Add("rexmit3_" + why);
        // The copy before this one was dropped, and it was a retransmission: a lost
        // retransmission repaired by this copy.
        auto d = t->dropped.find(seq);
        if (k >= 3 && d != t->dropped.end() && d->second == k - 1) t->Add("repair_" + why);
    }
}
static void OnRx(T* t, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (!(h.GetFlags() & TcpHeader::ACK)) return;
    uint32_t a = h.GetAckNumber().GetValue();
    t->rxAt = Simulator::Now().GetSeconds();
    t->rxAdvanced = a > t->highAck;   // no wrap in these runs (sequence numbers < 2^32)
    t->rxInRecovery = t->state == TcpSocketState::CA_RECOVERY;
    if (a > t->highAck) t->highAck = a;
    t->rxAck = a;
}
static void OnRto(T* t, Time o, Time n) {
    if (!(n > o && (n == o + o || n == Seconds(60)))) return;
    double now = Simulator::Now().GetSeconds();
    t->rtoAt = now;
    int s = (t->lossAt == now) ? t->stateBeforeLoss : t->state;
    static const char* names[] = {"to_open", "to_disorder", "to_cwr", "to_recovery", "to_loss"};
    t->Add("timeouts");
    t->Add(names[s < 5 ? s : 4]);
    // The head (the highest cumulative ACK): never retransmitted, or its latest
    // retransmission dropped, or retransmitted and not dropped (yet).
    uint32_t k = t->copies[t->highAck];
    auto d = t->dropped.find(t->highAck);
    bool lost = d != t->dropped.end() && d->second == k;
    t->Add(k < 2 ? "to_head_not_rexmitted" : lost ? "to_head_rexmit_dropped"
                                                    : "to_head_rexmit_not_dropped");
}
static void OnCong(T* t, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    if (n == TcpSocketState::CA_LOSS) {
        t->lossAt = Simulator::Now().GetSeconds();
        t->stateBeforeLoss = (int)o;
    }
    t->state = (int)n;
}
static void OnDrop(Ptr<const QueueDiscItem> item) {
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (p->RemoveHeader(h) == 0 || p->GetSize() == 0) return;
    auto it = g_byPort.find(h.GetDestinationPort());
    if (it == g_byPort.end()) return;
    T* t = it->second;
    uint32_t k = t->copies[h.GetSequenceNumber().GetValue()];
    t->dropped[h.GetSequenceNumber().GetValue()] = k;
    t->Add("dropped_copy_" + std::to_string(k < 4 ? k : 4));
}
static void Attach(T* t, aqmlab_ns3::Flow* f) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(f->app->GetSocket());
    if (!s) return;
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, t));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, t));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, t));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCong, t));
}
T* AddFlow(aqmlab_ns3::Flow* f, double start, double warm, int port) {
    T* t = new T();
    t->warm = warm;
    g_t.push_back(t);
    g_byPort[(uint16_t)port] = t;
    Simulator::Schedule(Seconds(start) + NanoSeconds(2), &Attach, t, f);
    return t;
}
void AddQueue(aqmlab_ns3::Port* p) {
    p->qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
}
std::string Dump(int i) {
    std::string s = "{";
    bool first = true;
    for (auto& kv : g_t[i]->n) {
        s += (first ? "\"" : ", \"") + kv.first + "\": " + std::to_string(kv.second);
        first = false;
    }
    return s + "}";
}
}
"""


def inner(spec_path: str) -> None:
    """Under ns-3's Python: aqmlab's driver with the trace sinks above."""
    drv, spec = load_driver(spec_path, TRACE_CPP)
    tr, H = drv.cppyy.gbl.aqmlab_trace, drv.H
    warm = spec["warmup_ns"] / 1e9

    def run(real_run) -> None:
        for i in range(H.NPorts()):
            tr.AddQueue(H.GetPort(i))
        for i, f in enumerate(spec["flows"]):
            tr.AddFlow(H.GetFlow(i), int(f["start_ns"]) / 1e9, warm, 10000 + i)
        real_run()
        flows = [json.loads(str(tr.Dump(i))) for i in range(len(spec["flows"]))]
        sys.stdout.write(json.dumps({"trace": flows}) + "\n")

    run_driver(drv, spec_path, run)


def total(rows: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        for k, v in r.items():
            out[k] = out.get(k, 0) + v
    return dict(sorted(out.items()))


def outer(args: argparse.Namespace) -> None:
    s = scenario(args.scenario, args.set)
    import aqmlab
    from aqmlab import ns3

    for k in range(args.runs):
        c = replication(s, k)
        first, drv = run_inner(__file__, ns3.translate(c))
        trace = first["trace"]
        ns3_tot = total(trace)
        ns3_tot["retransmits_driver"] = sum(f["retransmits"] for f in drv["flows"])
        ns3_tot["timeouts_driver"] = sum(f["timeouts"] for f in drv["flows"])
        ns3_tot["fast_recoveries"] = sum(f["fast_recoveries"] for f in drv["flows"])
        ns3_tot["drops"] = sum(
            sum(q["dropped_before"].values()) + sum(q["dropped_after"].values())
            for q in drv["queues"]
        )
        fl = aqmlab.run(c).flows
        cols = [
            "retransmits",
            "timeouts",
            "timeouts_open",
            "timeouts_disorder",
            "timeouts_recovery",
            "timeouts_loss",
            "fast_recoveries",
        ]
        aq = {col: int(fl[col].sum()) for col in cols if col in fl}
        print(json.dumps({"run": k, "ns3": ns3_tot, "aqmlab": aq}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios" / "ns3_dumbbell.toml"))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--set", action="append")
    ap.add_argument("--inner")
    args = ap.parse_args()
    if args.inner:
        inner(args.inner)
    else:
        outer(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
