"""``aqmlab rrul``: the probe flow's round trips on an idle path, FQ-CoDel against
DropTail under the RRUL load, the report's files, the CLI's exit codes, and the ns-2/ns-3
exporters' refusals of probes and asymmetric links."""

import re

import pytest

import aqmlab
from aqmlab import cli
from aqmlab import scenario as sc
from aqmlab.experiments import bufferbloat as bb

#: 2 s idle, 10 s loaded, 2 s idle: ~1 s of engine time per AQM.
QUICK = bb.Config(duration_s=10.0, delay_s=2.0)


def _idle_rtt_ns(size: int, rtt_ms: float) -> int:
    """Propagation both ways plus the serialisation of `size` bytes on each of the six
    hops: the two 1 Gb/s links twice each, the access link up (5 Mb/s) and down (20 Mb/s)."""
    bits = size * 8
    return round(rtt_ms * 1e6) + 4 * bits + bits * 10**9 // 5_000_000 + bits * 10**9 // 20_000_000


def test_probe_rtt_on_the_idle_path_is_the_analytic_delay():
    c = bb.Config(duration_s=2.0, delay_s=1.0, rtt_ms=30.0)
    res = aqmlab.run(bb.scenario("droptail", c))
    p = res.probes
    idle = p[p["sent_s"] + p["rtt_s"].astype(float) < c.delay_s]
    assert len(idle) == 4 * 5  # each probe's requests at 0, 0.2, ..., 0.8 s (+ its offset)
    assert set(idle["flow"]) == {lab.lower().replace(" ", "_") for lab, _, _ in bb.PROBES}
    for label, _, size in bb.PROBES:
        name = label.lower().replace(" ", "_")
        rtt_ns = (idle[idle["flow"] == name]["rtt_s"].astype(float) * 1e9).round()
        # 29 B: 30 ms + 928 ns + 46.4 µs + 11.6 µs; 84 B: 30 ms + 2688 ns + 134.4 + 33.6 µs.
        # f64 seconds carry the ns exactly (to well under 1 ns at 30 ms).
        assert set(rtt_ns) == {_idle_rtt_ns(size, 30.0)}, name
    assert not p["lost"].any() or p[p["lost"]]["sent_s"].min() >= c.delay_s


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("rrul")
    runs, table, path = bb.rrul(["DropTail", "fq_codel"], config=QUICK, out=out)
    return runs, table.set_index("aqm"), path


def test_fq_codel_keeps_probe_latency_far_below_droptail(report):
    _, t, _ = report
    base = QUICK.rtt_ms
    dt, fq = t.loc["DropTail"], t.loc["FQ-CoDel"]
    # DropTail: 256 packets wait 614 ms at 5 Mb/s and 154 ms at 20 Mb/s; four CUBIC flows
    # each way keep both buffers well filled, so the p95 probe has waited > 100 ms.
    assert dt["p95_ms"] > base + 100, dt
    # FQ-CoDel: a probe is a sparse flow, served before the bulk flows' queues; it waits
    # for the packet on the wire (2.4 ms at 5 Mb/s) and a new flow's turn, not behind
    # CoDel's 5 ms target: p95 within 15 ms of the base RTT.
    assert fq["p95_ms"] < base + 15, fq
    # And the induced p95 latency at least 10 times smaller.
    assert (dt["p95_ms"] - base) > 10 * (fq["p95_ms"] - base)
    # Both use the link: over 10 s of load that include the flows' first second of slow
    # start, at least half of 20 Mb/s down and of 5 Mb/s up (DropTail's timeouts cost it
    # the most: 12 Mb/s here); FQ-CoDel, which neither overflows nor idles, > 80% down.
    for row in (dt, fq):
        assert row["down_mbps"] > 10 and row["up_mbps"] > 2.5, row
    assert fq["down_mbps"] > 16, fq


def test_report_files_and_tables(report):
    out = report[2]
    for name in ("report.html", "report.md", "summary.csv", "probes.csv", "goodput.csv"):
        assert (out / name).stat().st_size > 0, name
    for name in ("totals", "ping_cdf", "box_totals", "ellipsis", "all_droptail", "all_fq_codel"):
        png = out / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    html = (out / "report.html").read_text()
    imgs = re.findall(r'<img src="([^"]+)"', html)
    assert sorted(imgs) == sorted(
        f"{n}.png"
        for n in ("totals", "ping_cdf", "box_totals", "ellipsis", "all_droptail", "all_fq_codel")
    )
    # The summary table is an HTML table with one row per AQM.
    assert "<th>p95 RTT (ms)</th>" in html
    assert html.count("<td>DropTail</td>") == 1 and html.count("<td>FQ-CoDel</td>") == 1
    csv = (out / "summary.csv").read_text().splitlines()
    assert csv[0].split(",")[:3] == ["aqm", "down_mbps", "up_mbps"] and len(csv) == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--aqm", "nope"], "unknown AQM 'nope'; choose from droptail, codel"),
        (["--rtt-ms", "100"], "--rtt-ms = 100: must be in [20, 80]"),
        (["--duration", "2.3"], "must be a multiple of 0.2 s"),
    ],
)
def test_cli_rejects_bad_options_with_exit_2(argv, message, capsys, tmp_path):
    assert cli.main(["rrul", *argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir()), "nothing written before the options are checked"


def test_cli_runs_and_prints_the_table(capsys, tmp_path):
    argv = ["rrul", "--quick", "--aqm", "FQ-CoDel", "--duration", "2", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^FQ-CoDel\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d", out, re.M), out
    assert (tmp_path / "report.html").exists()


def _asymmetric_probe() -> dict:
    return sc.scenario(
        duration="1s",
        nodes=[sc.host("a"), sc.host("b")],
        links=[
            sc.link(
                "a",
                "b",
                bandwidth="5Mbps",
                reverse_bandwidth="20Mbps",
                delay="10ms",
                queue=sc.queue(limit_pkts=10),
            )
        ],
        flows=[sc.probe("p", "a", "b")],
    )


def test_exporters_refuse_what_they_cannot_express():
    from aqmlab import ns2, ns3  # noqa: F401
    from aqmlab.ns2.tcl import Unsupported
    from aqmlab.ns2.tcl import translate as to_ns2
    from aqmlab.ns3.translate import translate as to_ns3

    c = aqmlab.canonical(_asymmetric_probe())
    assert c["links"][0]["reverse_bandwidth"] == "20Mbps"
    with pytest.raises(Unsupported) as e2:
        to_ns2(c)
    assert any(p[0] == "flows[0]" and "probe" in p[1] for p in e2.value.problems)
    with pytest.raises(Unsupported) as e3:
        to_ns3(c)
    paths = [p[0] for p in e3.value.problems]
    assert "links[0].reverse_bandwidth" in paths and "flows[0]" in paths
