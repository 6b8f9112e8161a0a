"""Packet capture beside aqmlab's tables: the REM dumbbell (scenarios/rem_dumbbell.toml),
10 s, its bottleneck marking with REM (ECN) for the 20 ECN-capable flows, and four
non-ECN flows added so that there are drops and retransmissions too. Captures both
directions of the bottleneck and every sender's access link, then prints tshark's packet,
retransmission and CE counts beside the queues and flows tables (docs/capture.md).

    .venv/bin/python benchmarks/capture_rem.py [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import dpkt

import aqmlab
from aqmlab import scenario as sc

PLAIN = 4  # non-ECN flows added beside the scenario's 20


def build() -> dict:
    s = sc.load(Path(__file__).parent.parent / "scenarios" / "rem_dumbbell.toml")
    s["simulation"].update(duration="10s", warmup="0s")
    # REM's price rising within 10 s (gamma and phi ten times the paper's): marks as well
    s["links"][0]["queue"]["aqm"] = {"type": "rem", "ecn": True, "gamma": 0.01, "phi": 1.01}
    s["links"][0]["capture"] = True
    rep = s["repeat"][0]
    rep["flows"][0]["ecn"] = True
    n = rep["count"]
    for i in range(PLAIN):
        a, d = f"p{i}", f"q{i}"
        s["nodes"] += [sc.host(a), sc.host(d)]
        s["links"] += [
            sc.link(a, "r0", bandwidth="1Gbps", delay="10ms", queue={"limit_pkts": 1000}),
            sc.link("r1", d, bandwidth="1Gbps", delay="10ms", queue={"limit_pkts": 1000}),
        ]
        s.setdefault("flows", []).append(
            {**rep["flows"][0], "name": f"plain{i}", "src": a, "dst": d, "ecn": False}
            | {"start": f"{250 * i}ms"}
        )
    senders = [f"s{i}" for i in range(n)] + [f"p{i}" for i in range(PLAIN)]
    s["captures"] = [sc.capture(f"{h}->r0") for h in senders]
    return s


def repeated_segments(pcap: bytes) -> int:
    """Data segments whose sequence number was already seen (retransmissions, when the
    capture sees everything the sender sends)."""
    import io

    seen, repeated = set(), 0
    for _, buf in dpkt.pcap.Reader(io.BytesIO(pcap)):
        tcp = dpkt.ip.IP(buf).data
        if len(tcp.data):
            repeated += tcp.seq in seen
            seen.add(tcp.seq)
    return repeated


def tshark_count(path: Path, filt: str | None = None) -> int:
    cmd = ["tshark", "-n", "-r", str(path)] + (["-Y", filt] if filt else [])
    return len(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="keep the pcap files here (default: a temporary directory)")
    args = ap.parse_args()
    res = aqmlab.run(build())
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="capture_rem."))
    files = dict(zip(res.captures, res.write_captures(out), strict=True))
    q = res.queues.set_index("name").loc["r0->r1"]
    marked = sum(q[f"marked_{r}"] for r in res.reasons)
    dropped = sum(q[f"dropped_{r}"] for r in res.reasons)
    retransmits = int(res.flows["retransmits"].sum())
    senders = [n for n in res.captures if not n.startswith("r")]
    access = sum(repeated_segments(res.captures[n]) for n in senders)
    print(f"scenario: REM dumbbell, 20 ECN + {PLAIN} non-ECN NewReno flows, 10 s; pcaps in {out}")
    print(f"aqmlab queues r0->r1: dequeued {q['dequeued']}, marked {marked}, dropped {dropped}")
    print(f"aqmlab flows: retransmits {retransmits} (all flows)")
    print(f"capture: segments seen twice on the senders' access links: {access}")
    if shutil.which("tshark") is None:
        print("tshark not installed: no cross-check (Debian: apt-get install tshark)")
        return
    b = files["r0->r1"]
    print(f"tshark r0->r1: packets {tshark_count(b)}, CE {tshark_count(b, 'ip.dsfield.ecn == 3')}")
    # Wireshark calls a segment below the highest sequence number sent "out-of-order"
    # rather than "retransmission" when it comes within an RTT of the highest one.
    again = "tcp.analysis.retransmission || tcp.analysis.out_of_order"
    for where, paths in (("r0->r1", [b]), ("senders' access links", [files[n] for n in senders])):
        rtx = sum(tshark_count(p, "tcp.analysis.retransmission") for p in paths)
        both = sum(tshark_count(p, again) for p in paths)
        print(f"tshark {where}: tcp.analysis.retransmission {rtx}, with out_of_order {both}")


if __name__ == "__main__":
    main()
