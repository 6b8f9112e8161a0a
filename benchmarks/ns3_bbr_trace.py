"""Where BBR's standing queue comes from: ns-3.44's TcpBbr against aqmlab's BBR, traced.

    .venv/bin/python benchmarks/ns3_bbr_trace.py [SCENARIO] [--runs 1] [--set PATH=VALUE]
        [--fresh-rate-sample] [--quantum-segments Q] [--no-aqmlab] [--series PREFIX]

SCENARIO defaults to scenarios/ns3_bbr_dumbbell.toml (one BBR flow through a 10 Mb/s,
40 ms, 250-packet bottleneck). For each replication k (``simulation.run`` = k, as
`aqmlab crosscheck` draws it) the scenario is translated as `aqmlab crosscheck --ns3`
does and run by aqmlab's ns-3 driver (``python/aqmlab/ns3/driver.py``, in ns-3's own
Python: ``.ns3-venv`` or $AQMLAB_NS3_PYTHON) with extra C++ trace sinks on the first
flow's socket ("PacingRate", "BytesInFlight", "CongestionWindow") and on its TcpBbr
("PacingGain", and ``GetBbrState()``), and with the socket's rate sampler (ns-3's
``TcpRateLinux``, tcp-rate-ops.cc, the protected ``m_rateOps``) replaced at the flow's start by a
line-for-line copy of it that counts its samples:

- ``samples``: rate samples generated (one per ACK); ``stale``: samples in which no
  segment newly delivered by this ACK became the sample's reference packet (ns-3 keeps
  the rate sample in a member from one ACK to the next and takes a delivered segment as
  the new reference only if its ``m_delivered`` is *greater* than the previous ACK's
  ``m_priorDelivered``: a segment sent before any ACK arrived since the one before it
  carries the same value, so the sample keeps the previous ACK's send and ACK intervals
  while ``m_delivered`` counts the new segment too); ``stale_used``: of those, valid
  samples whose rate BBR saw; ``rate_over_btl``: the largest sample / the bottleneck's
  payload rate; ``n_over_btl``: samples above it (by more than 0.1%).

``--fresh-rate-sample`` starts each ACK's sample afresh, as Linux's ``tcp_ack`` does (its
``struct rate_sample`` lives on the stack of one ACK: ``tcp_rate_skb_delivered`` takes the
first delivered segment of every ACK as the reference), and computes every valid sample's
rate as Linux's BBR does (``rs->delivered / rs->interval_us``, also when app-limited).
``--quantum-segments Q`` sets TcpBbr's send quantum (``m_sendQuantum``, private; ns-3
fixes it at 1 segment in ``SetSendQuantum``) to Q segments on every ACK before BBR's model
update, so the 1.25 phase's exit (``IsNextCyclePhase``) and Drain's see Linux's budget:
Linux's ``bbr_quantization_budget`` adds 3 x ``bbr_tso_segs_goal`` (2 segments above
1.2 Mb/s) and rounds up to an even count after ``bbr_bdp``'s ceiling, about 3 x 2.6
segments at this BDP (aqmlab's BBR follows Linux).

Sampled every millisecond over the measured interval, split by BBR's state and ProbeBW
phase: the pacing rate on the wire (bits/s of whole frames: ns-3 paces payload bytes,
so x (packet_size + 2) / (packet_size - 40)), BBR's bandwidth estimate (pacing rate /
(pacing gain x 0.99), exact once the pipe is full) as a fraction of the bottleneck's
rate, bytes in flight (packets), cwnd (segments) and the bottleneck's queue (queue disc
+ device, packets). The same for aqmlab (the flow traced at a 1 ms ``sample_interval``:
``btl_bw_pps``, ``pacing_rate_pps``, ``inflight_pkts``, the queue's time series).
``--series PREFIX`` writes both sides' 1 ms series as PREFIX.ns3.k.csv and
PREFIX.aqmlab.k.csv.

Inner mode (run by the outer one, under ns-3's Python): ``--inner SPEC.json [--fresh]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ns3_trace_common import ROOT, load_driver, replication, run_driver, run_inner, scenario

PHASES = {1.25: "probe_bw_1.25", 0.75: "probe_bw_0.75", 1.0: "probe_bw_1"}
STATES = ["startup", "drain", "probe_bw", "probe_rtt"]

TRACE_CPP = r"""
#include "ns3/tcp-bbr.h"
#include "ns3/tcp-rate-ops.h"
#include "ns3/tcp-tx-item.h"
#include <map>
#include <string>
#include <vector>
namespace aqmlab_bbr {
using namespace ns3;

// ns-3.44's TcpRateLinux (tcp-rate-ops.cc), copied, with counters; `fresh` starts each
// ACK's sample afresh as Linux does.
class CountingRate : public TcpRateOps {
  public:
    bool fresh = false;
    double btlBps = 0.0;       // the bottleneck's payload rate, bit/s
    double warm = 0.0;
    bool refThisAck = false;   // a segment of this ACK became the sample's reference
    uint64_t samples = 0, stale = 0, staleUsed = 0, valid = 0, nOver = 0, nOverStale = 0;
    double maxRatio = 0.0, sumRatio = 0.0, sumRatioStale = 0.0;
    TcpRateConnection m_rate;
    TcpRateSample m_rateSample, m_out;
    uint32_t* quantum = nullptr;  // TcpBbr::m_sendQuantum, when overridden
    uint32_t quantumBytes = 0;

    const TcpRateSample& GenerateSample(uint32_t delivered, uint32_t lost, bool is_sack_reneg,
                                        uint32_t priorInFlight, const Time& minRtt) override {
        // Called just before TcpBbr::CongControl: its model update (cycle phase, Drain)
        // then sees this send quantum; SetSendQuantum resets it to 1 segment after.
        if (quantum) *quantum = quantumBytes;
        bool on = Simulator::Now().GetSeconds() >= warm;
        bool wasStale = !refThisAck && !m_rateSample.m_priorTime.IsZero();
        refThisAck = false;
        if (on) { samples++; if (wasStale) stale++; }
        if (m_rate.m_appLimited != 0 && m_rate.m_delivered > m_rate.m_appLimited)
            m_rate.m_appLimited = 0;
        m_rateSample.m_ackedSacked = delivered;
        m_rateSample.m_bytesLoss = lost;
        m_rateSample.m_priorInFlight = priorInFlight;
        if (m_rateSample.m_priorTime.IsZero() || is_sack_reneg) {
            m_rateSample.m_delivered = -1;
            m_rateSample.m_interval = Seconds(0);
            return Out();
        }
        m_rateSample.m_interval = std::max(m_rateSample.m_sendElapsed, m_rateSample.m_ackElapsed);
        m_rateSample.m_delivered = m_rate.m_delivered - m_rateSample.m_priorDelivered;
        if (m_rateSample.m_interval < minRtt) {
            m_rateSample.m_interval = Seconds(0);
            m_rateSample.m_priorTime = Seconds(0);
            return Out();
        }
        if (fresh || !m_rateSample.m_isAppLimited ||
            (m_rateSample.m_delivered * m_rate.m_rateInterval >=
             m_rate.m_rateDelivered * m_rateSample.m_interval)) {
            m_rate.m_rateDelivered = m_rateSample.m_delivered;
            m_rate.m_rateInterval = m_rateSample.m_interval;
            m_rate.m_rateAppLimited = m_rateSample.m_isAppLimited;
            m_rateSample.m_deliveryRate =
                DataRate(m_rateSample.m_delivered * 8.0 / m_rateSample.m_interval.GetSeconds());
        }
        if (on) {
            double r = m_rateSample.m_deliveryRate.GetBitRate() / btlBps;
            valid++;
            sumRatio += r;
            if (wasStale) { staleUsed++; sumRatioStale += r; }
            if (r > maxRatio) maxRatio = r;
            if (r > 1.001) { nOver++; if (wasStale) nOverStale++; }
        }
        return Out();
    }
    const TcpRateSample& Out() {
        m_out = m_rateSample;
        if (fresh) {  // Linux: the next ACK's sample starts empty
            TcpRateSample empty;
            m_rateSample = empty;
        }
        return m_out;
    }
    void CalculateAppLimited(uint32_t cWnd, uint32_t in_flight, uint32_t segmentSize,
                             const SequenceNumber32& tailSeq, const SequenceNumber32& nextTx,
                             const uint32_t lostOut, const uint32_t retransOut) override {
        if (tailSeq - nextTx < static_cast<int32_t>(segmentSize) && in_flight < cWnd &&
            lostOut <= retransOut)
            m_rate.m_appLimited = std::max<uint32_t>(m_rate.m_delivered + in_flight, 1);
    }
    void SkbDelivered(TcpTxItem* skb) override {
        TcpTxItem::RateInformation& skbInfo = skb->GetRateInformation();
        if (skbInfo.m_deliveredTime == Time::Max()) return;
        m_rate.m_delivered += skb->GetSeqSize();
        m_rate.m_deliveredTime = Simulator::Now();
        if (m_rateSample.m_priorDelivered == 0 ||
            skbInfo.m_delivered > m_rateSample.m_priorDelivered) {
            refThisAck = true;
            m_rateSample.m_ackElapsed = Simulator::Now() - skbInfo.m_deliveredTime;
            m_rateSample.m_priorDelivered = skbInfo.m_delivered;
            m_rateSample.m_priorTime = skbInfo.m_deliveredTime;
            m_rateSample.m_isAppLimited = skbInfo.m_isAppLimited;
            m_rateSample.m_sendElapsed = skb->GetLastSent() - skbInfo.m_firstSent;
            m_rate.m_firstSentTime = skb->GetLastSent();
        }
        skbInfo.m_deliveredTime = Time::Max();
        m_rate.m_txItemDelivered = skbInfo.m_delivered;
    }
    void SkbSent(TcpTxItem* skb, bool isStartOfTransmission) override {
        TcpTxItem::RateInformation& skbInfo = skb->GetRateInformation();
        if (isStartOfTransmission) {
            m_rate.m_firstSentTime = Simulator::Now();
            m_rate.m_deliveredTime = Simulator::Now();
        }
        skbInfo.m_firstSent = m_rate.m_firstSentTime;
        skbInfo.m_deliveredTime = m_rate.m_deliveredTime;
        skbInfo.m_isAppLimited = (m_rate.m_appLimited != 0);
        skbInfo.m_delivered = m_rate.m_delivered;
    }
    const TcpRateConnection& GetConnectionRate() override { return m_rate; }
};

// TcpBbr::m_sendQuantum is private: a member pointer through an explicit instantiation.
template <typename Tag, typename Tag::type M>
struct Rob { friend typename Tag::type get(Tag) { return M; } };
struct QuantumTag { typedef uint32_t TcpBbr::*type; friend type get(QuantumTag); };
template struct Rob<QuantumTag, &TcpBbr::m_sendQuantum>;

// TcpSocketBase::m_rateOps is protected: a member pointer named through a derived class.
struct SocketPeek : public TcpSocketBase {
    static Ptr<TcpRateOps> TcpSocketBase::*RateOps() { return &SocketPeek::m_rateOps; }
};

struct Acc { double n = 0, pace = 0, bw = 0, inflight = 0, cwnd = 0, queue = 0; };

struct Tracer {
    Ptr<TcpSocketBase> sock;
    Ptr<TcpBbr> bbr;
    Ptr<CountingRate> rate;
    aqmlab_ns3::Port* port = nullptr;
    double warm = 0.0, end = 0.0, seg = 0.0, wireFactor = 1.0, btlBps = 0.0;
    double pacing = 0.0, gain = 0.0, inflight = 0.0, cwnd = 0.0;
    std::map<std::string, Acc> acc;
    std::map<std::string, std::pair<double, double>> phaseTime;  // gain -> (n, seconds)
    double phaseStart = -1.0;
    std::vector<double> series;  // t, state, gain, pacing_wire_bps, bw_ratio, inflight, cwnd, q
    bool keepSeries = false;
};
static Tracer* g = nullptr;

static void OnPacing(DataRate, DataRate n) { g->pacing = n.GetBitRate(); }
static void OnInflight(uint32_t, uint32_t n) { g->inflight = n; }
static void OnCwnd(uint32_t, uint32_t n) { g->cwnd = n; }
static std::string GainKey(double x) {
    return x > 1.2 && x < 1.3 ? "1.25" : x > 0.7 && x < 0.8 ? "0.75" : x == 1.0 ? "1" : "other";
}
static void OnGain(double o, double n) {
    double t = Simulator::Now().GetSeconds();
    if (g->phaseStart >= g->warm && t > g->phaseStart) {
        auto& p = g->phaseTime[GainKey(o)];
        p.first += 1; p.second += t - g->phaseStart;
    }
    g->phaseStart = t;
    g->gain = n;
}
static void Sample() {
    double t = Simulator::Now().GetSeconds();
    int st = (int)g->bbr->GetBbrState();
    double q = g->port->qd + g->port->dev;
    // Once the pipe is full, pacing rate = gain x BW x (1 - 0.01f) (TcpBbr::SetPacingRate).
    double bw = g->gain > 0 ? g->pacing / (g->gain * (1.0 - 0.01f)) : 0.0;
    static const char* names[] = {"startup", "drain", "probe_bw", "probe_rtt"};
    std::string key = names[st];
    if (st == 2) key += "_" + GainKey(g->gain);
    for (const std::string& k : {key, std::string("all")}) {
        Acc& a = g->acc[k];
        a.n += 1; a.pace += g->pacing * g->wireFactor; a.bw += bw / g->btlBps;
        a.inflight += g->inflight / g->seg; a.cwnd += g->cwnd / g->seg; a.queue += q;
    }
    if (st == 2) {
        Acc& a = g->acc["probe_bw"];
        a.n += 1; a.pace += g->pacing * g->wireFactor; a.bw += bw / g->btlBps;
        a.inflight += g->inflight / g->seg; a.cwnd += g->cwnd / g->seg; a.queue += q;
    }
    if (g->keepSeries) {
        double row[] = {t, (double)st, g->gain, g->pacing * g->wireFactor, bw / g->btlBps,
                        g->inflight / g->seg, g->cwnd / g->seg, q};
        g->series.insert(g->series.end(), row, row + 8);
    }
    if (t + 0.001 < g->end) Simulator::Schedule(MilliSeconds(1), &Sample);
}
static double g_quantumSeg = 0;
static void Attach(aqmlab_ns3::Flow* f, bool fresh) {
    g->sock = DynamicCast<TcpSocketBase>(f->app->GetSocket());
    PointerValue pv;
    g->sock->GetAttribute("CongestionOps", pv);
    g->bbr = pv.Get<TcpBbr>();
    g->rate = CreateObject<CountingRate>();
    g->rate->fresh = fresh;
    g->rate->btlBps = g->btlBps;
    g->rate->warm = g->warm;
    if (g_quantumSeg) {
        g->rate->quantum = &((*g->bbr).*get(QuantumTag()));
        g->rate->quantumBytes = (uint32_t)(g_quantumSeg * g->seg + 0.5);
    }
    (*g->sock).*(SocketPeek::RateOps()) = g->rate;
    g->sock->TraceConnectWithoutContext("PacingRate", MakeCallback(&OnPacing));
    g->sock->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&OnInflight));
    g->sock->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    g->bbr->TraceConnectWithoutContext("PacingGain", MakeCallback(&OnGain));
}
void Setup(aqmlab_ns3::Flow* f, aqmlab_ns3::Port* p, double start, double warm, double end,
           double seg, double wireFactor, double btlBps, bool fresh, bool series,
           double quantumSeg) {
    g = new Tracer();
    g_quantumSeg = quantumSeg;
    g->port = p; g->warm = warm; g->end = end; g->seg = seg; g->wireFactor = wireFactor;
    g->btlBps = btlBps; g->keepSeries = series;
    Simulator::Schedule(Seconds(start) + NanoSeconds(2), &Attach, f, fresh);
    Simulator::Schedule(Seconds(warm), &Sample);
}
std::string Dump() {
    std::string s = "{\"acc\": {";
    bool first = true;
    for (auto& kv : g->acc) {
        const Acc& a = kv.second;
        char buf[400];
        snprintf(buf, sizeof buf,
                 "%s\"%s\": {\"frac_time\": %.6f, \"pacing_wire_bps\": %.1f, \"bw_over_btl\": %.6f,"
                 " \"inflight_pkts\": %.4f, \"cwnd_seg\": %.4f, \"queue_pkts\": %.4f}",
                 first ? "" : ", ", kv.first.c_str(), a.n / g->acc["all"].n, a.pace / a.n,
                 a.bw / a.n, a.inflight / a.n, a.cwnd / a.n, a.queue / a.n);
        s += buf;
        first = false;
    }
    s += "}, \"phases\": {";
    first = true;
    for (auto& kv : g->phaseTime) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s\"%s\": {\"count\": %.0f, \"mean_s\": %.6f}",
                 first ? "" : ", ", kv.first.c_str(), kv.second.first,
                 kv.second.first ? kv.second.second / kv.second.first : 0.0);
        s += buf;
        first = false;
    }
    const CountingRate& r = *g->rate;
    char buf[500];
    snprintf(buf, sizeof buf,
             "}, \"rate\": {\"samples\": %llu, \"stale\": %llu, \"valid\": %llu,"
             " \"stale_used\": %llu, \"n_over_btl\": %llu, \"n_over_btl_stale\": %llu,"
             " \"rate_over_btl\": %.6f,"
             " \"mean_sample_over_btl\": %.6f, \"mean_stale_sample_over_btl\": %.6f}}",
             (unsigned long long)r.samples, (unsigned long long)r.stale,
             (unsigned long long)r.valid, (unsigned long long)r.staleUsed,
             (unsigned long long)r.nOver, (unsigned long long)r.nOverStale, r.maxRatio,
             r.valid ? r.sumRatio / r.valid : 0.0,
             r.staleUsed ? r.sumRatioStale / r.staleUsed : 0.0);
    return s + buf;
}
int NSeries() { return (int)g->series.size(); }
double SeriesAt(int i) { return g->series[i]; }
}
"""

SERIES_COLS = [
    "time_s",
    "state",
    "gain",
    "pacing_wire_bps",
    "bw_over_btl",
    "inflight_pkts",
    "cwnd",
    "queue_pkts",
]


def bottleneck(spec: dict) -> int:
    """The slowest link's first direction (a -> b: the data's, in the example files)."""
    slow = min(q["bps"] for q in spec["queues"])
    return next(i for i, q in enumerate(spec["queues"]) if q["bps"] == slow)


def inner(spec_path: str, fresh: bool, series_path: str | None) -> None:
    """Under ns-3's Python: aqmlab's driver with the tracer above."""
    drv, spec = load_driver(spec_path, TRACE_CPP)
    tr, H = drv.cppyy.gbl.aqmlab_bbr, drv.H
    f0 = spec["flows"][0]
    qi = int(os.environ["AQMLAB_BBR_PORT"])
    pkt, seg = int(f0["packet_size"]), int(f0["send_size"])
    wire = (pkt + 2) / seg  # PPP's 2 bytes + TCP/IP's 40 on every segment's payload
    btl_payload_bps = spec["queues"][qi]["bps"] / wire

    def run(real_run) -> None:
        tr.Setup(
            H.GetFlow(0),
            H.GetPort(qi),
            int(f0["start_ns"]) / 1e9,
            spec["warmup_ns"] / 1e9,
            spec["duration_ns"] / 1e9,
            float(seg),
            wire,
            btl_payload_bps,
            fresh,
            series_path is not None,
            float(os.environ.get("AQMLAB_BBR_QUANTUM", "0")),
        )
        real_run()
        sys.stdout.write(json.dumps({"trace": json.loads(str(tr.Dump()))}) + "\n")
        if series_path:
            n = tr.NSeries()
            vals = [tr.SeriesAt(i) for i in range(n)]
            with open(series_path, "w") as out:
                out.write(",".join(SERIES_COLS) + "\n")
                for k in range(0, n, len(SERIES_COLS)):
                    out.write(",".join(f"{v:.6g}" for v in vals[k : k + len(SERIES_COLS)]) + "\n")

    run_driver(drv, spec_path, run)


def aqmlab_side(c: dict, series_path: str | None, pkt: int, btl: str, btl_bps: float) -> dict:
    """aqmlab's run of the same replication, the flow traced every millisecond."""
    import copy

    import aqmlab

    c = copy.deepcopy(c)
    c["simulation"]["sample_interval"] = "1ms"
    c["flows"][0]["trace"] = True
    r = aqmlab.run(c)
    warm = r.warmup_s
    ft = r.flow_timeseries
    ts = r.timeseries
    q = ts[ts["queue"] == btl]
    qcol = "qlen_pkts"
    ft = ft[ft["time_s"] >= warm - 1e-12].reset_index(drop=True)
    q = q[q["time_s"] >= warm - 1e-12].set_index("time_s")[qcol]
    ft = ft.assign(queue_pkts=q.reindex(ft["time_s"].values, method="nearest").values)
    btl_pps = btl_bps / (8 * pkt)
    ft = ft.assign(
        bw_over_btl=ft["btl_bw_pps"] / btl_pps,
        pacing_wire_bps=ft["pacing_rate_pps"] * pkt * 8,
    )
    out: dict = {"acc": {}}
    n = len(ft)

    def acc(key: str, d) -> None:
        out["acc"][key] = {
            "frac_time": len(d) / n,
            "pacing_wire_bps": float(d["pacing_wire_bps"].mean()),
            "bw_over_btl": float(d["bw_over_btl"].mean()),
            "inflight_pkts": float(d["inflight_pkts"].mean()),
            "cwnd_seg": float(d["cwnd"].mean()),
            "queue_pkts": float(d["queue_pkts"].mean()),
        }

    acc("all", ft)
    for st, name in enumerate(STATES):
        d = ft[ft["bbr_state"] == st]
        if len(d):
            acc(name, d)
    pb = ft[ft["bbr_state"] == 2]
    for g, name in PHASES.items():
        d = pb[(pb["pacing_gain"] - g).abs() < 1e-9]
        if len(d):
            acc(name, d)
    out["queue_mean_table"] = float(r.queues.set_index("name").loc[btl, "mean_queue_pkts"])
    if series_path:
        ft.to_csv(series_path, index=False)
    return out


def table(label: str, res: dict) -> None:
    print(f"  {label}")
    print(
        f"    {'state/phase':16} {'time':>6} {'pacing(wire)':>13} {'bw/btl':>8} "
        f"{'inflight':>9} {'cwnd':>7} {'queue':>7}"
    )
    order = ["all", *STATES, *PHASES.values()]
    for k in order:
        a = res["acc"].get(k)
        if a is None:
            continue
        print(
            f"    {k:16} {a['frac_time']:6.3f} {a['pacing_wire_bps'] / 1e6:10.4f}Mb/s "
            f"{a['bw_over_btl']:8.4f} {a['inflight_pkts']:9.2f} {a['cwnd_seg']:7.2f} "
            f"{a['queue_pkts']:7.2f}"
        )


def outer(args: argparse.Namespace) -> None:
    s = scenario(args.scenario, args.set)
    from aqmlab import ns3

    for k in range(args.runs):
        c = replication(s, k)
        spec = ns3.translate(c)
        qi = bottleneck(spec)
        btl, btl_bps = spec["queues"][qi]["name"], float(spec["queues"][qi]["bps"])
        out: dict = {"run": k, "bottleneck": btl}
        extra = ["--fresh"] if args.fresh_rate_sample else []
        if args.series:
            extra += ["--series", f"{args.series}.ns3.{k}.csv"]
        env = dict(os.environ, AQMLAB_BBR_PORT=str(qi))
        env["AQMLAB_BBR_QUANTUM"] = str(args.quantum_segments)
        first, drv = run_inner(__file__, spec, extra, env)
        trace = first["trace"]
        q = drv["queues"][qi]
        trace["queue_mean_driver"] = q["mean_q_pkts"]
        measured = (spec["duration_ns"] - spec["warmup_ns"]) / 1e9
        trace["utilisation"] = q["tx_bytes"] * 8 / (btl_bps * measured)
        out["ns3"] = trace
        if not args.no_aqmlab:
            series = f"{args.series}.aqmlab.{k}.csv" if args.series else None
            pkt = int(spec["flows"][0]["packet_size"])
            out["aqmlab"] = aqmlab_side(c, series, pkt, btl, btl_bps)
        print(json.dumps(out), flush=True)
        kind = "fresh" if args.fresh_rate_sample else "ns-3.44"
        quantum = args.quantum_segments or 1
        print(f"run {k} ({kind} rate samples, send quantum {quantum:g} segment(s)):")
        table("ns-3.44", trace)
        print(f"    phases: {trace['phases']}")
        print(f"    rate samples: {trace['rate']}")
        if "aqmlab" in out:
            table("aqmlab", out["aqmlab"])
        print(flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "scenario", nargs="?", default=str(ROOT / "scenarios" / "ns3_bbr_dumbbell.toml")
    )
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--set", action="append")
    ap.add_argument("--fresh-rate-sample", action="store_true")
    ap.add_argument("--quantum-segments", type=float, default=0.0)
    ap.add_argument("--no-aqmlab", action="store_true")
    ap.add_argument("--series")
    ap.add_argument("--inner")
    ap.add_argument("--fresh", action="store_true")
    args = ap.parse_args()
    if args.inner:
        inner(args.inner, args.fresh, args.series)
    else:
        outer(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
