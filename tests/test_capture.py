"""Packet capture (docs/capture.md): the pcap files read back with a real reader (dpkt),
checked against aqmlab's own tables, and cross-checked with tshark when it is installed."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
from pathlib import Path

import dpkt
import pytest

import aqmlab
from aqmlab import scenario as sc
from aqmlab.results import Results

DURATION_S = 4.0
N_ECN, N_PLAIN = 3, 3
# A price that rises within the run: ~180 marks, ~260 early drops and ~150 retransmissions.
REM = {"b_star": 10.0, "gamma": 0.01, "phi": 1.01}


def _scenario(captures=(), bottleneck_capture=False) -> dict:
    """A REM bottleneck (marking at departure) shared by ECN and non-ECN SACK flows and one
    UDP flow: CE marks, drops and retransmissions all happen on it."""
    n = N_ECN + N_PLAIN + 1
    nodes = [sc.router("r0"), sc.router("r1")]
    links = [
        sc.link(
            "r0",
            "r1",
            bandwidth="10Mbps",
            delay="10ms",
            name="bottleneck",
            queue={"limit_pkts": 200, "aqm": {"type": "rem", "ecn": True, **REM}},
            capture=bottleneck_capture,
        )
    ]
    flows = []
    for i in range(n):
        nodes += [sc.host(f"s{i}"), sc.host(f"d{i}")]
        links.append(
            sc.link(f"s{i}", "r0", bandwidth="1Gbps", delay="2ms", queue={"limit_pkts": 1000})
        )
        links.append(
            sc.link("r1", f"d{i}", bandwidth="1Gbps", delay="2ms", queue={"limit_pkts": 1000})
        )
    for i in range(N_ECN + N_PLAIN):
        flows.append(
            sc.tcp(f"f{i}", f"s{i}", f"d{i}", packet_size=1000, variant="sack", ecn=i < N_ECN)
        )
    flows.append(sc.cbr("u", f"s{n - 1}", f"d{n - 1}", rate="1Mbps", packet_size=500))
    return sc.scenario(
        duration=f"{DURATION_S}s", nodes=nodes, links=links, flows=flows, captures=captures
    )


def _records(pcap: bytes) -> list[tuple[int, int, int, bytes]]:
    """(timestamp ns, included length, original length, bytes) of each record, read by hand
    from the 16-byte record headers (dpkt gives neither the original length nor exact ns)."""
    out, at = [], 24
    while at < len(pcap):
        sec, frac, incl, orig = struct.unpack_from("<IIII", pcap, at)
        out.append((sec * 10**9 + frac, incl, orig, pcap[at + 16 : at + 16 + incl]))
        at += 16 + incl
    return out


def _packets(pcap: bytes) -> list[tuple[float, dpkt.ip.IP]]:
    r = dpkt.pcap.Reader(io.BytesIO(pcap))
    assert r.datalink() == 101, "LINKTYPE_RAW"
    return [(ts, dpkt.ip.IP(buf)) for ts, buf in r]


@pytest.fixture(scope="module")
def run() -> Results:
    # Every direction of the bottleneck, and each TCP sender's access link (every segment it
    # sends crosses it: its retransmissions are exactly the segments seen twice there).
    caps = [sc.capture(f"s{i}->r0", snaplen=262144) for i in range(N_ECN + N_PLAIN + 1)]
    return aqmlab.run(_scenario(captures=caps, bottleneck_capture=True))


def test_the_files_are_nanosecond_raw_ipv4_pcaps(run):
    assert sorted(run.captures) == sorted(
        ["r0->r1", "r1->r0"] + [f"s{i}->r0" for i in range(N_ECN + N_PLAIN + 1)]
    )
    for pcap in run.captures.values():
        magic, major, minor, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", pcap)
        assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 101)
        assert snaplen in (96, 262144)


def test_capture_only_observes(run):
    plain = aqmlab.run(_scenario())
    assert plain.captures == {}
    assert run.queues.equals(plain.queues)
    assert run.flows.equals(plain.flows)


def test_packets_per_direction_are_the_links_dequeued_packets(run):
    # Warm-up is 0, so `dequeued` counts every transmission start of the run: exactly the
    # records (a packet the wire loses is captured too; this wire loses none).
    q = run.queues.set_index("name")
    for name, pcap in run.captures.items():
        assert len(_records(pcap)) == q.loc[name, "dequeued"] > 0, name
    assert q.loc["r0->r1", "dequeued"] > 1000


def test_ce_marks_are_the_queues_ecn_marks(run):
    q = run.queues.set_index("name")
    marked = sum(q.loc["r0->r1", f"marked_{r}"] for r in run.reasons)
    ce = sum(1 for _, ip in _packets(run.captures["r0->r1"]) if ip.tos & 3 == 3)
    # REM marks departing packets, so every mark is on a packet that was transmitted.
    assert marked > 50, "the scenario must mark"
    assert ce == marked
    # ECE comes back on the ACKs of the ECN flows only; CWR goes out on their data.
    acks = _packets(run.captures["r1->r0"])
    ece = {ip.data.dport for _, ip in acks if ip.data.flags & dpkt.tcp.TH_ECE}
    cwr = {
        ip.data.sport
        for _, ip in _packets(run.captures["r0->r1"])
        if ip.p == 6 and ip.data.flags & dpkt.tcp.TH_CWR
    }
    ecn_ports = {1024 + i for i in range(N_ECN)}
    assert ece == ecn_ports and cwr == ecn_ports


def test_retransmissions_are_the_flows_retransmits(run):
    f = run.flows.set_index("name")
    total = 0
    for i in range(N_ECN + N_PLAIN):
        seen, repeated, mss = set(), 0, 960
        for _, ip in _packets(run.captures[f"s{i}->r0"]):
            tcp = ip.data
            assert len(tcp.data) == mss
            repeated += tcp.seq in seen
            seen.add(tcp.seq)
        # Exact: the access link sends every segment the moment it is emitted (1 Gb/s, an
        # empty queue), so nothing the sender counted is still unsent at the end.
        assert repeated == f.loc[f"f{i}", "retransmits"], i
        total += repeated
    assert total > 20, "the non-ECN flows must lose and retransmit"


def test_addresses_ports_and_sack_blocks(run):
    nodes = [n["name"] for n in run.scenario["nodes"]]
    data = _packets(run.captures["r0->r1"])
    for _, ip in data[:200]:
        src = nodes.index(f"s{(ip.data.sport - 1024) if ip.p == 6 else N_ECN + N_PLAIN}")
        assert ip.src == bytes([10, 0, 0, src + 1])
        assert ip.data.dport == 5001
    acks = [ip.data for _, ip in _packets(run.captures["r1->r0"])]
    sacked = [t for t in acks if len(t.opts) > 0]
    assert sacked, "SACK flows that lose packets send SACK blocks"
    for t in sacked:
        opts = dpkt.tcp.parse_opts(t.opts)
        kinds = [k for k, _ in opts]
        assert kinds[:2] == [dpkt.tcp.TCP_OPT_NOP] * 2 and kinds[2] == dpkt.tcp.TCP_OPT_SACK
        blocks = struct.unpack(f">{len(opts[2][1]) // 4}I", opts[2][1])
        for left, right in zip(blocks[::2], blocks[1::2], strict=True):
            # [left, right) lies above the cumulative ACK, in whole segments of 960 bytes.
            assert (right - left) % 960 == 0 and right > left
            assert (left - t.ack) % 960 == 0 and left > t.ack


def test_window_and_snaplen_are_respected(run):
    window = aqmlab.run(
        _scenario(captures=[sc.capture("r0->r1", start="1s", stop="2s", snaplen=60)])
    )
    recs = _records(window.captures["r0->r1"])
    full = _records(run.captures["r0->r1"])
    inside = [r for r in full if 10**9 <= r[0] < 2 * 10**9]
    assert len(recs) == len(inside) > 500
    assert [r[0] for r in recs] == [r[0] for r in inside]
    assert all(incl == min(60, orig) for _, incl, orig, _ in recs)
    assert [r[2] for r in recs] == [r[2] for r in inside], "full lengths are kept"
    assert [r[3] for r in recs] == [r[3][:60] for r in inside]
    # the default snaplen (96) on the bottleneck captured by its link table
    assert max(incl for _, incl, _, _ in full) == 96


def test_write_captures_names_each_file_after_its_link_and_direction(run, tmp_path):
    paths = run.write_captures(tmp_path)
    names = sorted(p.name for p in paths)
    assert "bottleneck-r0-r1.pcap" in names and "bottleneck-r1-r0.pcap" in names
    assert "s0-r0-s0-r0.pcap" in names
    assert (tmp_path / "bottleneck-r0-r1.pcap").read_bytes() == run.captures["r0->r1"]


def test_cli_capture_writes_the_files(tmp_path):
    from aqmlab.cli import main

    path = tmp_path / "s.toml"
    s = _scenario()
    s["simulation"]["duration"] = "500ms"
    import tomli_w

    path.write_text(tomli_w.dumps(s))
    assert (
        main(["run", str(path), "--out", str(tmp_path / "out"), "--no-plot", "--capture", "r0->r1"])
        == 0
    )
    assert [p.name for p in (tmp_path / "out" / "captures").iterdir()] == ["bottleneck-r0-r1.pcap"]


TSHARK = shutil.which("tshark")


def _tshark(path: Path, *args: str) -> list[str]:
    out = subprocess.run(
        [
            TSHARK,
            "-n",
            "-r",
            str(path),
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


@pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (Debian: apt-get install tshark)"
)
def test_tshark_reads_the_files_with_valid_checksums(run, tmp_path):
    paths = {p.name: p for p in run.write_captures(tmp_path)}
    # The access links keep whole packets: every checksum can be verified there.
    p = paths["s0-r0-s0-r0.pcap"]
    status = _tshark(p, "-T", "fields", "-e", "ip.checksum.status", "-e", "tcp.checksum.status")
    assert len(status) == len(_records(run.captures["s0->r0"]))
    assert set(status) == {"1\t1"}, "tshark's checksum status: 1 = good"
    assert _tshark(p, "-Y", "_ws.malformed || _ws.expert.severity == error") == []
    # Wireshark's analysis finds each sender's retransmissions on its access link: those it
    # calls retransmissions, and those within an RTT of the highest segment it calls
    # out-of-order (on this link nothing is reordered, so these are retransmissions too).
    f = run.flows.set_index("name")
    again = "tcp.analysis.retransmission || tcp.analysis.out_of_order"
    for i in range(N_ECN + N_PLAIN):
        found = len(_tshark(paths[f"s{i}-r0-s{i}-r0.pcap"], "-Y", again))
        assert found == f.loc[f"f{i}", "retransmits"], i
    # The bottleneck's records are cut at 96 bytes: the IPv4 checksums verify, and the
    # packet count and CE marks are aqmlab's.
    b = paths["bottleneck-r0-r1.pcap"]
    lines = _tshark(b, "-T", "fields", "-e", "ip.checksum.status", "-e", "ip.dsfield.ecn")
    q = run.queues.set_index("name")
    assert len(lines) == q.loc["r0->r1", "dequeued"]
    assert all(line.split("\t")[0] == "1" for line in lines)
    assert sum(line.split("\t")[1] == "3" for line in lines) == sum(
        q.loc["r0->r1", f"marked_{r}"] for r in run.reasons
    )
    # UDP: the last sender's datagrams, whole on its access link.
    u = paths[f"s{N_ECN + N_PLAIN}-r0-s{N_ECN + N_PLAIN}-r0.pcap"]
    udp = _tshark(u, "-T", "fields", "-e", "udp.length", "-e", "udp.checksum.status")
    assert len(udp) > 100 and set(udp) == {"480\t1"}


def test_the_ns2_and_ns3_translations_ignore_captures():
    # Capture chooses what aqmlab records, as sample_queues and trace do: the translated
    # simulation is the same (docs/capture.md, "ns-2 and ns-3"). Made translatable by both
    # first: TCP flows only, not ECN-capable, a DropTail bottleneck.
    from aqmlab import ns2, ns3

    def canonical(s: dict) -> dict:
        s["flows"] = [f for f in s["flows"] if f["type"] == "tcp"]
        for f in s["flows"]:
            f.pop("ecn", None)
        s["links"][0]["queue"] = {"limit_pkts": 200}
        return aqmlab.canonical(s)

    plain = canonical(_scenario())
    captured = canonical(_scenario(captures=[sc.capture("s0->r0")], bottleneck_capture=True))
    assert captured != plain
    assert ns2.translate(captured).tcl == ns2.translate(plain).tcl
    assert ns3.translate(captured) == ns3.translate(plain)


def test_the_same_run_gives_the_same_bytes(run):
    caps = [sc.capture(f"s{i}->r0", snaplen=262144) for i in range(N_ECN + N_PLAIN + 1)]
    again = aqmlab.run(_scenario(captures=caps, bottleneck_capture=True))
    assert again.captures == run.captures
