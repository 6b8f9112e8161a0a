#!/usr/bin/env python3
"""ns-3 (pip wheel `ns3`, cppyy bindings) dumbbell benchmark, REM-paper style.

N TCP NewReno bulk senders -> left router -> 64 Mbps bottleneck (queue disc:
DropTail/FIFO 120 p or RED) -> right router -> N receivers.
1000-byte IP packets (960 B payload + 20 IP + 20 TCP, no TCP options),
RTT propagation 80 ms for every flow (access 10 ms + bottleneck 20 ms + access 10 ms,
each way).

Prints one JSON line with wall-clock and simulation statistics.

Usage: python dumbbell.py [--n 160] [--qdisc droptail|red] [--sim 50] [--seed 1]

The ns-3 side of benchmarks/ns3_compare.py: the dumbbell above, with
- counters of retransmission timeouts (each doubling of a socket's RTO), classified by the
  congestion state the socket was in (OPEN, DISORDER, RECOVERY, LOSS) and by whether the
  head segment had already been retransmitted; entries into fast recovery; retransmitted
  data segments;
- switches to change one ns-3 TCP or RED setting at a time (--init-cwnd, --recovery,
  --limited-tx, --min-rto, --delack, --red-gentle, --red-wait, --start-spread, ...);
- --log FILE: one line per timeout (time, socket, state, transmissions of the head, cwnd
  and flight in segments); --trace FILE --trace-id K: every data segment, ACK and state
  change of socket K (sockets are numbered in the order they are found; receivers too);
- per_socket_id_tx_retx_fr_to: data segments, retransmissions, recoveries and timeouts of
  every sending socket.

    .ns3-venv/bin/python benchmarks/ns3_dumbbell_counters.py --n 20 --sim 50 [--sack 1]

States are TcpSocketState::TcpCongState_t: 0 OPEN, 1 DISORDER, 2 CWR, 3 RECOVERY, 4 LOSS.
"""

import argparse
import json
import os
import sys
import time

T_PROC0 = time.perf_counter()

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=160, help="number of TCP flows")
ap.add_argument("--qdisc", choices=["droptail", "red"], default="droptail")
ap.add_argument("--sim", type=float, default=50.0, help="simulated seconds")
ap.add_argument("--seed", type=int, default=1, help="ns-3 RngRun")
ap.add_argument("--bneck", default="64Mbps")
ap.add_argument("--access", default="1Gbps")
ap.add_argument("--buffer", type=int, default=120, help="queue disc limit, packets")
ap.add_argument(
    "--sack", type=int, default=0, help="1: enable TCP SACK (default off, ns-2 NewReno-like)"
)
ap.add_argument("--sockbuf", type=int, default=1 << 20, help="TCP send/recv buffer bytes")
ap.add_argument("--init-cwnd", type=int, default=10, help="ns3::TcpSocket::InitialCwnd")
ap.add_argument(
    "--recovery",
    choices=["prr", "classic"],
    default="prr",
    help="ns3::TcpL4Protocol::RecoveryType (ns-3 default: PRR)",
)
ap.add_argument("--limited-tx", type=int, default=1, help="TcpSocketBase::LimitedTransmit")
ap.add_argument("--min-rto", type=float, default=1.0, help="TcpSocketBase::MinRto, s")
ap.add_argument("--delack", type=int, default=1, help="TcpSocket::DelAckCount")
ap.add_argument("--start-spread", type=float, default=1.0, help="starts uniform in [0, x) s")
ap.add_argument("--red-gentle", type=int, default=0)
ap.add_argument("--red-wait", type=int, default=1, help="RedQueueDisc::Wait (ns-3 default true)")
ap.add_argument("--red-qw", type=float, default=0.002)
ap.add_argument("--red-maxp", type=float, default=0.1, help="1/LInterm")
ap.add_argument("--warm", type=float, default=0.0, help="also count timeouts after this time")
ap.add_argument("--log", default="", help="file for one line per timeout")
ap.add_argument(
    "--trace", default="", help="file for every segment, ACK and state change of one socket"
)
ap.add_argument("--trace-id", type=int, default=0, help="that socket (attach order)")
args = ap.parse_args()

import cppyy  # noqa: E402
from ns import ns  # noqa: E402  (cppyy bindings; import is slow, ~5 s)

T_IMPORT = time.perf_counter()

# Small C++ helper: time-weighted mean of the queue disc length via its
# PacketsInQueue TracedValue (kept in C++ so no Python runs per packet).
cppyy.cppdef(r"""
#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"
namespace bench {
struct QStat {
    double lastT = 0.0;      // seconds
    double lastQ = 0.0;      // packets
    double area = 0.0;       // packet-seconds
    uint32_t maxQ = 0;
    void OnChange(uint32_t oldV, uint32_t newV) {
        double t = ns3::Simulator::Now().GetSeconds();
        area += lastQ * (t - lastT);
        lastT = t; lastQ = newV;
        if (newV > maxQ) maxQ = newV;
    }
    void Attach(ns3::Ptr<ns3::QueueDisc> q) {
        q->TraceConnectWithoutContext("PacketsInQueue",
            ns3::MakeCallback(&QStat::OnChange, this));
    }
    double Mean(double tEnd) {
        double a = area + lastQ * (tEnd - lastT);
        return tEnd > 0 ? a / tEnd : 0.0;
    }
};
static QStat g_qstat;
QStat& qstat() { return g_qstat; }
}
""")

cppyy.cppdef(r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include <unordered_map>
#include <set>
#include <vector>
#include <cstdio>
namespace bench {
using namespace ns3;
struct Sock {
    int id = 0;
    int state = 0;                      // TcpCongState_t, last value seen
    uint32_t highTx = 0;                // one past the highest byte sent
    uint32_t cwnd = 0;                  // bytes
    uint64_t tx = 0, retx = 0, fr = 0, to = 0;
    std::unordered_map<uint32_t, uint16_t> ntx;  // transmissions per segment start
    Ptr<TcpSocketBase> sock;
};
struct Counters {
    uint64_t to[5] = {0, 0, 0, 0, 0};          // timeouts by previous state
    uint64_t toHeadRetx[5] = {0, 0, 0, 0, 0};  // ... whose head had been sent >= 2 times
    uint64_t toWarm = 0;                       // timeouts after `warm`
    uint64_t fr = 0;                           // entries into CA_RECOVERY
    uint64_t frWarm = 0;
    uint64_t dataTx = 0, retx = 0, retxWarm = 0;
    uint64_t flightHist[8] = {0};  // timeouts by flight: 0, 1, 2, 3, 4, 5-8, 9-16, 17+
    double warm = 0.0;
    FILE* log = nullptr;
    int traceId = -1;              // socket whose every segment, ACK and state is logged
    FILE* trace = nullptr;
};
static Counters g;
static std::vector<Sock*> g_socks;
Counters& counters() { return g; }

static void OnCong(Sock* s, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
    s->state = (int)n;
    if (g.trace && s->id == g.traceId)
        std::fprintf(g.trace, "%.6f STATE %d -> %d cwnd %u\n",
                     Simulator::Now().GetSeconds(), (int)o, (int)n, s->cwnd / 960);
    if (n == TcpSocketState::CA_RECOVERY) {
        g.fr++;
        s->fr++;
        if (Simulator::Now().GetSeconds() >= g.warm) g.frWarm++;
    }
}
static void OnCwnd(Sock* s, uint32_t o, uint32_t n) { s->cwnd = n; }
static void OnTx(Sock* s, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> sk) {
    uint32_t sz = p->GetSize();
    if (sz == 0) return;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    g.dataTx++;
    s->tx++;
    uint16_t& c = s->ntx[seq];
    c++;
    if (g.trace && s->id == g.traceId)
        std::fprintf(g.trace, "%.6f TX %u%s cwnd %u\n", Simulator::Now().GetSeconds(),
                     seq / 960, c >= 2 ? " RETX" : "", s->cwnd / 960);
    if (c >= 2) {
        g.retx++;
        s->retx++;
        if (Simulator::Now().GetSeconds() >= g.warm) g.retxWarm++;
    }
    if (seq + sz > s->highTx) s->highTx = seq + sz;
    if (s->ntx.size() > 4096) {
        uint32_t head = s->sock->GetTxBuffer()->HeadSequence().GetValue();
        for (auto it = s->ntx.begin(); it != s->ntx.end();) {
            if (it->first < head) it = s->ntx.erase(it); else ++it;
        }
    }
}
static void OnRx(Sock* s, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> sk) {
    if (g.trace && s->id == g.traceId && (h.GetFlags() & TcpHeader::ACK))
        std::fprintf(g.trace, "%.6f ACK %u\n", Simulator::Now().GetSeconds(),
                     h.GetAckNumber().GetValue() / 960);
}
static void OnRto(Sock* s, Time o, Time n) {
    // ReTxTimeout doubles m_rto (capped at 60 s) before it sets CA_LOSS: a doubling is a
    // timeout, and s->state is still the state the timeout found.
    if (!(n > o && (n == o + o || n == Seconds(60)))) return;
    uint32_t head = s->sock->GetTxBuffer()->HeadSequence().GetValue();
    auto it = s->ntx.find(head);
    int k = it == s->ntx.end() ? 0 : it->second;
    int st = s->state < 5 ? s->state : 4;
    g.to[st]++;
    s->to++;
    if (k >= 2) g.toHeadRetx[st]++;
    double now = Simulator::Now().GetSeconds();
    if (now >= g.warm) g.toWarm++;
    uint32_t flight = s->highTx > head ? (s->highTx - head + 959) / 960 : 0;
    int b = flight <= 4 ? (int)flight : flight <= 8 ? 5 : flight <= 16 ? 6 : 7;
    g.flightHist[b]++;
    if (g.log)
        std::fprintf(g.log, "%.6f %d %d %d %u %u\n", now, s->id, st, k, s->cwnd / 960, flight);
}
static std::set<TcpSocketBase*> g_seen;
void Attach() {
    int id = (int)g_socks.size();
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i) {
        Ptr<Node> node = NodeList::GetNode(i);
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        if (!tcp) continue;
        ObjectVectorValue v;
        tcp->GetAttribute("SocketList", v);
        for (auto it = v.Begin(); it != v.End(); ++it) {
            Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(it->second);
            if (!sock || g_seen.count(PeekPointer(sock))) continue;
            g_seen.insert(PeekPointer(sock));
            Sock* s = new Sock();
            s->id = id++;
            s->sock = sock;
            sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCong, s));
            sock->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, s));
            sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, s));
            sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, s));
            sock->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, s));
            g_socks.push_back(s);
        }
    }
}
void OpenLog(const char* path) { if (path && path[0]) g.log = std::fopen(path, "w"); }
void OpenTrace(const char* path, int id) {
    if (path && path[0]) {
        g.trace = std::fopen(path, "w");
        g.traceId = id;
    }
}
// Attach to the sockets an application has just created (its socket sends the SYN at start).
void AttachAt(double t) { Simulator::Schedule(Seconds(t) + NanoSeconds(1), &Attach); }
int NSocks() { return (int)g_socks.size(); }
Sock* GetSock(int i) { return g_socks[i]; }
void CloseLog() {
    if (g.log) std::fclose(g.log);
    if (g.trace) std::fclose(g.trace);
    g.log = nullptr;
    g.trace = nullptr;
}
}
""")

N = args.n
SEG = 960  # payload; 960 + 20 (TCP, no options) + 20 (IP) = 1000-byte IP packet

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(args.seed)

# TCP: NewReno, no SACK, no timestamps (ns-2-like), 1000-byte packets, ack every packet
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEG))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(args.delack))
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(args.init_cwnd))
ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(bool(args.limited_tx)))
ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(args.min_rto)))
ns.Config.SetDefault(
    "ns3::TcpL4Protocol::RecoveryType",
    ns.TypeIdValue(
        ns.TypeId.LookupByName(
            "ns3::TcpPrrRecovery" if args.recovery == "prr" else "ns3::TcpClassicRecovery"
        )
    ),
)
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(args.sack)))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(args.sockbuf))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(args.sockbuf))

# Links
bneck = ns.PointToPointHelper()
bneck.SetDeviceAttribute("DataRate", ns.StringValue(args.bneck))
bneck.SetChannelAttribute("Delay", ns.StringValue("20ms"))
# device (NIC) queue of 1 packet so the queue disc holds the buffer
bneck.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))

access = ns.PointToPointHelper()
access.SetDeviceAttribute("DataRate", ns.StringValue(args.access))
access.SetChannelAttribute("Delay", ns.StringValue("10ms"))

d = ns.PointToPointDumbbellHelper(N, access, N, access, bneck)
stack = ns.InternetStackHelper()
d.InstallStack(stack)
d.AssignIpv4Addresses(
    ns.Ipv4AddressHelper(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.255.0")),
    ns.Ipv4AddressHelper(ns.Ipv4Address("10.2.0.0"), ns.Ipv4Mask("255.255.255.0")),
    ns.Ipv4AddressHelper(ns.Ipv4Address("10.3.0.0"), ns.Ipv4Mask("255.255.255.0")),
)

# Address assignment installs a default FqCoDel queue disc on every device;
# remove them all, then put the benchmark queue disc on the bottleneck egress
# of the left router (device 0 of the left router is the bottleneck link).
tch_none = ns.TrafficControlHelper()
all_devs = ns.NetDeviceContainer()
for node_i in range(ns.NodeList.GetNNodes()):
    node = ns.NodeList.GetNode(node_i)
    for k in range(node.GetNDevices()):
        dev = node.GetDevice(k)
        if dev.GetInstanceTypeId().GetName() == "ns3::PointToPointNetDevice":
            all_devs.Add(dev)
tch_none.Uninstall(all_devs)

left_router = d.GetLeft()
bdev = left_router.GetDevice(0)
assert bdev.GetChannel().GetDevice(1).GetNode().GetId() == d.GetRight().GetId()

tch = ns.TrafficControlHelper()
if args.qdisc == "droptail":
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue(f"{args.buffer}p"))
else:
    tch.SetRootQueueDisc(
        "ns3::RedQueueDisc",
        "MaxSize",
        ns.StringValue(f"{args.buffer}p"),
        "MinTh",
        ns.DoubleValue(20.0),
        "MaxTh",
        ns.DoubleValue(80.0),
        "LInterm",
        ns.DoubleValue(1.0 / args.red_maxp),  # max_p = 1/LInterm = 0.1
        "QW",
        ns.DoubleValue(args.red_qw),
        "Gentle",
        ns.BooleanValue(bool(args.red_gentle)),  # classic RED (Floyd-Jacobson)
        "MeanPktSize",
        ns.UintegerValue(1000),
        "LinkBandwidth",
        ns.DataRateValue(ns.DataRate(args.bneck)),
        "LinkDelay",
        ns.TimeValue(ns.MilliSeconds(20)),
    )
qdc = tch.Install(bdev)
qdisc = qdc.Get(0)
if args.qdisc == "red":
    qdisc.SetAttribute("Wait", ns.BooleanValue(bool(args.red_wait)))
cppyy.gbl.bench.qstat().Attach(qdisc)

ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

# Applications: N bulk senders (left leaves) -> N sinks (right leaves)
PORT = 5000
sinks = ns.ApplicationContainer()
senders = ns.ApplicationContainer()
sink_helper = ns.PacketSinkHelper(
    "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
)
uv = ns.CreateObject[ns.UniformRandomVariable]()
for i in range(N):
    sinks.Add(sink_helper.Install(d.GetRight(i)))
    bs = ns.BulkSendHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(d.GetRightIpv4Address(i), PORT).ConvertTo()
    )
    bs.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bs.SetAttribute("SendSize", ns.UintegerValue(SEG))
    app = bs.Install(d.GetLeft(i))
    t_start = uv.GetValue(0.0, args.start_spread)
    app.Start(ns.Seconds(t_start))  # staggered starts in [0,1) s
    cppyy.gbl.bench.AttachAt(t_start)
    senders.Add(app)
sinks.Start(ns.Seconds(0.0))

cppyy.gbl.bench.counters().warm = args.warm
cppyy.gbl.bench.OpenLog(args.log)
cppyy.gbl.bench.OpenTrace(args.trace, args.trace_id)
ns.Simulator.Stop(ns.Seconds(args.sim))

T_SETUP = time.perf_counter()
ns.Simulator.Run()
T_RUN = time.perf_counter()

sim_now = ns.Simulator.Now().GetSeconds()
events = int(ns.Simulator.GetEventCount())
st = qdisc.GetStats()
rx_bytes = 0
for i in range(sinks.GetN()):
    rx_bytes += int(sinks.Get(i).GetTotalRx())
mean_q = cppyy.gbl.bench.qstat().Mean(sim_now)
max_q = int(cppyy.gbl.bench.qstat().maxQ)

wall_run = T_RUN - T_SETUP
bneck_pkts = int(st.nTotalSentPackets)  # dequeued from the queue disc onto the 64 Mbps link
res = {
    "simulator": "ns-3.44 (pip ns3 3.44.post0, cppyy)",
    "n": N,
    "qdisc": args.qdisc,
    "seed": args.seed,
    "sim_s": sim_now,
    "wall_import_s": round(T_IMPORT - T_PROC0, 3),
    "wall_setup_s": round(T_SETUP - T_IMPORT, 3),
    "wall_run_s": round(wall_run, 3),
    "events": events,
    "events_per_wall_s": round(events / wall_run),
    "wall_per_sim_s": round(wall_run / sim_now, 5),
    "bneck_pkts": bneck_pkts,
    "bneck_pkts_per_wall_s": round(bneck_pkts / wall_run),
    "bneck_util": round(st.nTotalSentBytes * 8 / sim_now / ns.DataRate(args.bneck).GetBitRate(), 4),
    "goodput_mbps": round(rx_bytes * 8 / sim_now / 1e6, 3),
    "qdisc_enq": int(st.nTotalEnqueuedPackets),
    "drops": int(st.nTotalDroppedPackets),
    "drop_rate": round(st.nTotalDroppedPackets / max(1, st.nTotalReceivedPackets), 5),
    "mean_q_pkts": round(mean_q, 2),
    "max_q_pkts": max_q,
}
c = cppyy.gbl.bench.counters()
cppyy.gbl.bench.CloseLog()
states = ["open", "disorder", "cwr", "recovery", "loss"]
res["timeouts"] = int(sum(c.to[i] for i in range(5)))
res["timeouts_by_state"] = {states[i]: int(c.to[i]) for i in range(5)}
res["timeouts_head_resent_by_state"] = {states[i]: int(c.toHeadRetx[i]) for i in range(5)}
res["timeouts_by_flight"] = {
    k: int(c.flightHist[i]) for i, k in enumerate(["0", "1", "2", "3", "4", "5-8", "9-16", "17+"])
}
res["timeouts_after_warm"] = int(c.toWarm)
res["fast_recoveries"] = int(c.fr)
res["data_tx"] = int(c.dataTx)
res["retransmits"] = int(c.retx)
per = []
for i in range(cppyy.gbl.bench.NSocks()):
    so = cppyy.gbl.bench.GetSock(i)
    if so.tx:
        per.append([int(so.id), int(so.tx), int(so.retx), int(so.fr), int(so.to)])
res["per_socket_id_tx_retx_fr_to"] = per
if args.qdisc == "red":
    res["red_early_drops"] = int(st.GetNDroppedPackets("Unforced drop"))
    res["red_forced_drops"] = int(st.GetNDroppedPackets("Forced drop"))
    res["red_overflow_drops"] = int(st.GetNDroppedPackets("Dropped by internal queue"))
print(json.dumps(res), flush=True)
ns.Simulator.Destroy()
sys.stdout.flush()
os._exit(0)  # skip slow cppyy teardown
