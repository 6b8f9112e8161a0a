"""Why ns-3.44 sends a third copy of a segment as a recovery starts: a per-event trace.

    .venv/bin/python benchmarks/ns3_thirdcopy_trace.py [SCENARIO] [--runs 1] [--run K]
        [--set PATH=VALUE] [--show N] [--log FILE]

SCENARIO defaults to scenarios/ns3_dumbbell.toml (20 flows, FQ-CoDel). Like
benchmarks/ns3_recovery_trace.py, each replication k (``simulation.run`` = k) is
translated as `aqmlab crosscheck --ns3` does and run by aqmlab's ns-3 driver under ns-3's
own Python, with extra C++ trace sinks; here they write every event of every sending
socket to a log: data segments sent ("Tx": sequence, which copy, congestion state), ACKs
received ("Rx", fired before the ACK is processed: the cumulative ACK, its SACK blocks,
and the sender's TcpTxBuffer head flags as they stand then: `IsHeadRetransmitted`,
`IsLost(HeadSequence)`), congestion-state changes, RTO doublings and queue-disc drops.
At each third (or later) copy the whole TcpTxBuffer is printed (its `operator<<`:
every sent item's [lost], [retrans], [sacked] flags).

The outer mode reads the log and classifies each retransmission that ns3_recovery_trace.py
counts as ``rexmit3_fast_retransmit`` whose previous copy was not dropped and not sent in
the same instant (after the warm-up):

- ``head``: the segment is the head (snd.una) of the ACK that started the recovery:
  `TcpSocketBase::EnterRecovery` sends `SendDataPacket (m_highRxAckMark)` unconditionally;
- by what sent the previous copy (``prev_rto``, ``prev_loss_ack``, ``prev_recovery`` ...)
  and whether that copy was still in flight (sent less than ``flight_s`` before: no ACK
  had covered it; ``prev_in_flight``), or whether the ACK that covered it came after;
- ``head_retrans_flag``: the head's m_retrans flag when the ACK arrived (before
  `EnterRecovery`'s `MarkHeadAsLost`, which clears it), ``head_lost_flag``: its m_lost;
- ``prev_recover_point``: the previous recovery's (or timeout's) recovery point against the
  segment: ``seg_at_or_above_point`` (the earlier episode ended at the point, the segment
  above it) or below;
- ``new_recovery_while_prev_inflight``: a recovery entered before the previous copy could
  be acknowledged.

- ``*_ms_min_med_max``: from the previous copy to this one, from the previous copy to the
  first ACK above the segment, and from this copy to that ACK (this copy was redundant
  when the ACK comes sooner than a round trip after it).

And over all recoveries after the warm-up: ``recovery_ack_rexmit_below_point`` and
``..._at_or_above_point`` (retransmissions sent by ACKs in CA_RECOVERY, the fast
retransmit excluded, of data below the recovery point or sent during the recovery), and
``recovery_exits_on_retransmitted_head`` (a recovery ended with the new snd.una a segment
already retransmitted and not yet acknowledged).

``--show N`` prints the per-flow event sequence around the first N cases.

Inner mode (run by the outer one, under ns-3's Python): ``--inner SPEC.json LOG``.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from ns3_trace_common import ROOT, load_driver, replication, run_driver, run_inner, scenario

TRACE_CPP = r"""
#include <unordered_map>
#include <cstdio>
#include <sstream>
#include <string>
namespace aqmlab_tc {
using namespace ns3;
static FILE* g_log = nullptr;
struct T {
    int id = 0;
    std::unordered_map<uint32_t, uint32_t> copies;
    int state = 0;
};
static std::vector<T*> g_t;
static std::unordered_map<uint16_t, T*> g_byPort;
static double Now() { return Simulator::Now().GetSeconds(); }

static void OnTx(T* t, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
    if (p->GetSize() == 0) return;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    uint32_t k = ++t->copies[seq];
    fprintf(g_log, "T %.9f %d %u %u %u %d\n", Now(), t->id, seq, p->GetSize(), k, t->state);
    if (k >= 3) {
        std::ostringstream os;
        os << *s->GetTxBuffer();
        fprintf(g_log, "B %.9f %d %s\n", Now(), t->id, os.str().c_str());
    }
}
static void OnRx(T* t, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
    if (!(h.GetFlags() & TcpHeader::ACK)) return;
    Ptr<TcpTxBuffer> b = s->GetTxBuffer();
    SequenceNumber32 head = b->HeadSequence();
    std::string sk;
    if (h.HasOption(TcpOption::SACK)) {
        Ptr<const TcpOptionSack> o = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        for (auto& blk : o->GetSackList())
            sk += " " + std::to_string(blk.first.GetValue()) + "-" +
                  std::to_string(blk.second.GetValue());
    }
    fprintf(g_log, "A %.9f %d %u %u %d %d %u %u %u |%s\n", Now(), t->id,
            h.GetAckNumber().GetValue(), head.GetValue(), (int)b->IsHeadRetransmitted(),
            (int)b->IsLost(head), b->GetRetransmitsCount(), b->GetLost(), b->GetSacked(),
            sk.c_str());
}
static void OnRto(T* t, Time o, Time n) {
    if (!(n > o && (n == o + o || n == Seconds(60)))) return;
    fprintf(g_log, "O %.9f %d\n", Now(), t->id);
}
static void OnCong(T* t, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    fprintf(g_log, "C %.9f %d %d %d\n", Now(), t->id, (int)o, (int)n);
    t->state = (int)n;
}
static void OnDrop(Ptr<const QueueDiscItem> item) {
    Ptr<Packet> p = item->GetPacket()->Copy();
    TcpHeader h;
    if (p->RemoveHeader(h) == 0 || p->GetSize() == 0) return;
    auto it = g_byPort.find(h.GetDestinationPort());
    if (it == g_byPort.end()) return;
    T* t = it->second;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    fprintf(g_log, "D %.9f %d %u %u\n", Now(), t->id, seq, t->copies[seq]);
}
static void Attach(T* t, aqmlab_ns3::Flow* f) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(f->app->GetSocket());
    if (!s) return;
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, t));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, t));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, t));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCong, t));
}
void Open(const std::string& path) { g_log = fopen(path.c_str(), "w"); }
void Close() { fclose(g_log); }
void AddFlow(aqmlab_ns3::Flow* f, double start, int id, int port) {
    T* t = new T();
    t->id = id;
    g_t.push_back(t);
    g_byPort[(uint16_t)port] = t;
    Simulator::Schedule(Seconds(start) + NanoSeconds(2), &Attach, t, f);
}
void AddQueue(aqmlab_ns3::Port* p) {
    p->qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
}
}
"""

STATES = ["open", "disorder", "cwr", "recovery", "loss"]


def inner(spec_path: str, log_path: str) -> None:
    """Under ns-3's Python: aqmlab's driver with the logging sinks above."""
    drv, spec = load_driver(spec_path, TRACE_CPP)
    tr, H = drv.cppyy.gbl.aqmlab_tc, drv.H

    def run(real_run) -> None:
        tr.Open(log_path)
        for i in range(H.NPorts()):
            tr.AddQueue(H.GetPort(i))
        for i, f in enumerate(spec["flows"]):
            tr.AddFlow(H.GetFlow(i), int(f["start_ns"]) / 1e9, i, 10000 + i)
        real_run()
        tr.Close()

    run_driver(drv, spec_path, run)


class Flow:
    def __init__(self) -> None:
        self.ev: list[tuple] = []  # (t, kind, fields)
        self.tx: dict[int, list[tuple[float, int, int, int]]] = defaultdict(list)
        self.drops: dict[int, list[tuple[float, int]]] = defaultdict(list)
        self.acks: list[tuple[float, int]] = []  # (t, ack)
        self.ack_t: list[float] = []
        self.high_tx = 0
        self.high_at: list[tuple[float, int]] = []
        self.entries: list[tuple[float, int, str]] = []  # recovery/timeout: t, point, kind


def parse(log: Path) -> tuple[dict[int, Flow], dict[int, list[str]]]:
    flows: dict[int, Flow] = defaultdict(Flow)
    bufs: dict[tuple[int, float], str] = {}
    with open(log) as fh:
        for line in fh:
            kind, rest = line[0], line[2:].rstrip("\n")
            if kind == "B":
                t, f, text = rest.split(" ", 2)
                bufs[(int(f), float(t))] = text
                continue
            parts = rest.split(" ")
            t, f = float(parts[0]), int(parts[1])
            fl = flows[f]
            i = len(fl.ev)
            if kind == "T":
                seq, size, k, st = map(int, parts[2:6])
                fl.tx[seq].append((t, k, st, i))
                if seq + size > fl.high_tx:
                    fl.high_tx = seq + size
                fl.ev.append((t, "T", (seq, size, k, st)))
            elif kind == "A":
                head_part, _, sack = rest.partition("|")
                hp = head_part.split()
                ack, head, hre, hlo, rtx, lost, sacked = map(int, hp[2:9])
                blocks = [tuple(map(int, b.split("-"))) for b in sack.split()]
                fl.acks.append((t, ack))
                fl.ack_t.append(t)
                fl.ev.append((t, "A", (ack, head, hre, hlo, rtx, lost, sacked, blocks)))
            elif kind == "C":
                o, n = int(parts[2]), int(parts[3])
                fl.ev.append((t, "C", (o, n)))
                if n == 3:
                    fl.entries.append((t, fl.high_tx, "recovery"))
            elif kind == "O":
                fl.ev.append((t, "O", ()))
                fl.entries.append((t, fl.high_tx, "rto"))
            elif kind == "D":
                seq, k = int(parts[2]), int(parts[3])
                fl.drops[seq].append((t, k))
                fl.ev.append((t, "D", (seq, k)))
    return flows, bufs


def first_ack_above(fl: Flow, seq: int, after: float) -> float | None:
    j = bisect.bisect_left(fl.ack_t, after)
    for t, a in fl.acks[j:]:
        if a > seq:
            return t
    return None


def fmt(ev: tuple, seq: int) -> str:
    t, kind, d = ev
    if kind == "T":
        mark = " <==" if d[0] == seq else ""
        return f"{t:.6f} TX seq={d[0]} copy={d[2]} state={STATES[d[3]]}{mark}"
    if kind == "A":
        ack, head, hre, hlo, rtx, lost, sacked, blocks = d
        bl = " ".join(f"[{a}-{b})" for a, b in blocks)
        return (
            f"{t:.6f} ACK {ack} (una {head} head_retrans={hre} head_lost={hlo} "
            f"retransOut={rtx} lostOut={lost} sackedOut={sacked}) SACK {bl}"
        )
    if kind == "C":
        return f"{t:.6f} STATE {STATES[d[0]]} -> {STATES[d[1]]}"
    if kind == "O":
        return f"{t:.6f} RTO"
    return f"{t:.6f} DROP seq={d[0]} copy={d[1]}" + (" <==" if d[0] == seq else "")


def analyse(flows: dict[int, Flow], bufs: dict, warm: float, show: int, flight_s: float) -> dict:
    c: Counter = Counter()
    ms: dict[str, list[float]] = defaultdict(list)
    shown = 0
    for fid in sorted(flows):
        fl = flows[fid]
        for seq, copies in fl.tx.items():
            for n in range(2, len(copies)):
                t3, k3, st3, i3 = copies[n]
                t2, k2, st2, i2 = copies[n - 1]
                if t3 < warm or k3 < 3:
                    continue
                # The ACK processed in this instant, and the state before it.
                j = i3 - 1
                while j >= 0 and fl.ev[j][1] != "A":
                    j -= 1
                ack_ev = fl.ev[j] if j >= 0 else None
                if ack_ev is None or ack_ev[0] != t3 or st3 != 3:
                    continue
                # Entered CA_RECOVERY in this instant (fast_retransmit)?
                entered = any(e[1] == "C" and e[0] == t3 and e[2][1] == 3 for e in fl.ev[j:i3])
                if not entered:
                    continue
                dropped = any(k == k2 and td >= t2 for td, k in fl.drops.get(seq, []))
                if dropped or t2 == t3:
                    c["excluded_prev_dropped_or_same_instant"] += 1
                    continue
                c["cases"] += 1
                ack, _una, hre, hlo = ack_ev[2][:4]
                c["head" if seq == ack else "not_head"] += 1
                c[f"head_retrans_flag_{hre}"] += 1
                c[f"head_lost_flag_{hlo}"] += 1
                # What sent the previous copy.
                prev_ack = None
                for e in reversed(fl.ev[:i2]):
                    if e[1] == "A":
                        prev_ack = e
                        break
                rto_at_t2 = any(e[1] == "O" and e[0] == t2 for e in fl.ev[max(0, i2 - 50) : i2])
                if rto_at_t2:
                    why2 = "rto"
                elif prev_ack is not None and prev_ack[0] == t2:
                    why2 = f"ack_in_{STATES[st2]}"
                else:
                    why2 = f"other_{STATES[st2]}"
                c[f"prev_{why2}"] += 1
                # Previous episode (recovery or timeout) before the previous copy.
                ep = [e for e in fl.entries if e[0] <= t2]
                if ep:
                    t_ep, point, ekind = ep[-1]
                    rel = "seg_above_point" if seq > point else "seg_below_point"
                    rel = "seg_at_point" if seq == point else rel
                    c[f"prev_episode_{ekind}_{rel}"] += 1
                    c[f"seg_minus_point_segments_{(seq - point) // 960}"] += 1
                    # How that episode ended: the state changes between it and this copy.
                    path = [STATES[e[2][1]] for e in fl.ev if e[1] == "C" and t_ep < e[0] <= t3]
                    c["path_" + ">".join(path)] += 1
                    # The ACK that ended it, against the segment.
                    exit_acks = [
                        e[2][0]
                        for e in fl.ev[i2:i3]
                        if e[1] == "A" and e[2][0] >= point and e[2][0] > e[2][1]
                    ]
                    if exit_acks:
                        ea = exit_acks[0]
                        c["exit_ack_eq_seg" if ea == seq else "exit_ack_ne_seg"] += 1
                # ACKs processed out of recovery before this one started (this one included):
                # 1 = the first duplicate ACK, DupAck's IsLost (HighACK + 1) branch.
                n_dup = 0
                for e in reversed(fl.ev[:i3]):
                    if e[1] == "C" and e[2][1] == 0:
                        break
                    if e[1] == "A" and e[2][0] == seq and e[2][7]:
                        n_dup += 1
                c[f"dupacks_at_entry_{min(n_dup, 4)}"] += 1
                # Recoveries/timeouts between the previous copy and this one.
                mids = [e for e in fl.entries if t2 < e[0] < t3]
                c[f"episodes_between_{min(len(mids), 3)}"] += 1
                # Was the previous copy still unacknowledged (in flight) when this was sent?
                ta = first_ack_above(fl, seq, t2)
                gap = t3 - t2
                c["prev_in_flight" if gap < flight_s else "prev_older_than_flight"] += 1
                if ta is not None:
                    early = ta - t3 < flight_s * 0.8
                    c["acked_by_prev_copy" if early else "acked_later"] += 1
                c[f"gap_ms_{int(gap * 1000) // 20 * 20}"] += 1
                ms["copy_prev_to_this"].append((t3 - t2) * 1e3)
                if ta is not None:
                    ms["copy_prev_to_ack_above"].append((ta - t2) * 1e3)
                    ms["this_to_ack_above"].append((ta - t3) * 1e3)
                buf = bufs.get((fid, t3), "")
                if shown < show:
                    shown += 1
                    print(
                        f"\n=== flow {fid} seq {seq}: copy {k3} at {t3:.6f}, copy {k2} at "
                        f"{t2:.6f} ({why2}), gap {gap * 1000:.1f} ms, ACK above it at {ta}"
                    )
                    lo = max(0, i2 - 12)
                    for e in fl.ev[lo : i3 + 4]:
                        if e[1] == "T" and e[2][0] != seq and e[0] not in (t2, t3):
                            continue
                        print("   ", fmt(e, seq))
                    head_items = buf.split("}{")[:4]
                    print(
                        "    buffer at copy 3:",
                        "}{".join(head_items),
                        "...",
                        buf[buf.find(", size =") :] if ", size =" in buf else "",
                    )
    for key, v in ms.items():
        v.sort()
        c[f"{key}_ms_min_med_max"] = [round(v[0], 1), round(v[len(v) // 2], 1), round(v[-1], 1)]
    c.update(recovery_counts(flows, warm))
    return dict(sorted(c.items()))


def recovery_counts(flows: dict[int, Flow], warm: float) -> Counter:
    """Retransmissions that ACKs in CA_RECOVERY sent (not the fast retransmit), below the
    recovery point (HighData at entry) or at/above it (data sent during the recovery),
    and recoveries that ended with the new head already retransmitted."""
    c: Counter = Counter()
    for fl in flows.values():
        point, entry_t, last_ack, last_ack_t = 0, -1.0, 0, -1.0
        copies: dict[int, int] = {}
        for t, kind, d in fl.ev:
            if kind == "C":
                if d[1] == 3:
                    point = next(e[1] for e in fl.entries if e[0] == t and e[2] == "recovery")
                    entry_t = t
                if d[0] == 3 and d[1] == 0 and t >= warm:
                    c["recovery_exits"] += 1
                    if copies.get(last_ack, 0) >= 2:
                        c["recovery_exits_on_retransmitted_head"] += 1
            elif kind == "A":
                last_ack, last_ack_t = d[0], t
            elif kind == "T":
                seq, _, k, st = d
                copies[seq] = k
                if k >= 2 and st == 3 and t >= warm and t == last_ack_t and t != entry_t:
                    side = "at_or_above_point" if seq >= point else "below_point"
                    c[f"recovery_ack_rexmit_{side}"] += 1
    return c


def outer(args: argparse.Namespace) -> None:
    s = scenario(args.scenario, args.set)
    from aqmlab import ns3

    runs = [args.run] if args.run is not None else range(args.runs)
    for k in runs:
        spec = ns3.translate(replication(s, k))
        warm = spec["warmup_ns"] / 1e9
        with tempfile.TemporaryDirectory(prefix="aqmlab-ns3-thirdcopy-") as tmp:
            log = Path(args.log) if args.log else Path(tmp) / "events.log"
            if not (args.log and args.reuse and log.exists()):
                run_inner(__file__, spec, [str(log)], json_lines=None)
            flows, bufs = parse(log)
        res = analyse(flows, bufs, warm, args.show, args.flight_s)
        print(json.dumps({"run": k, "ns3": res}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios" / "ns3_dumbbell.toml"))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--run", type=int)
    ap.add_argument("--set", action="append")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--flight-s", type=float, default=0.1)
    ap.add_argument("--log")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--inner", nargs=2)
    args = ap.parse_args()
    if args.inner:
        inner(*args.inner)
    else:
        outer(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
