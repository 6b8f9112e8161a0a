"""Memory bounds (issue 9, item 6): a scenario that would fill memory is refused by
validation or stopped with `aqmlab.ResourceError` (a MemoryError); the process survives.
Each case runs in a subprocess, so that a regression (an abort) cannot kill pytest."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# A 1 Tb/s access link feeding a 1 Mb/s bottleneck with a 4 294 967 295-packet buffer,
# offered 100 Gb/s of UDP: the buffer fills at ~10^7 packets per second of simulated time.
FLOOD = """
import aqmlab
from aqmlab import scenario as sc
s = sc.scenario(
    duration="10s",
    nodes=[sc.host("a"), sc.router("r"), sc.host("b")],
    links=[
        sc.link("a", "r", bandwidth="1Tbps", delay="1us", queue=sc.queue(limit_pkts=1000)),
        sc.link("r", "b", bandwidth="1Mbps", delay="1ms",
                queue=sc.queue(limit_pkts=4294967295)),
    ],
    flows=[sc.cbr("flood", "a", "b", rate="100Gbps", packet_size=1000)],
)
"""


def run_py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_a_buffer_fed_faster_than_memory_allows_raises_resource_error():
    done = run_py(
        FLOOD
        + """
try:
    aqmlab.run(s)
except aqmlab.ResourceError as e:
    assert isinstance(e, MemoryError)
    print("ResourceError:", e)
print("alive")
"""
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ResourceError: more than 10000000 packets alive at once" in done.stdout
    assert done.stdout.rstrip().endswith("alive")
    assert "panicked" not in done.stderr and done.stderr == ""


def test_the_cli_exits_3_with_one_line(tmp_path):
    f = tmp_path / "flood.toml"
    done = run_py(FLOOD + f"\nopen({str(f)!r}, 'w').write(sc.to_toml(s))\n")
    assert done.returncode == 0, done.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "run", str(f), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 3, cli.stderr
    lines = cli.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: out of memory: more than"), lines


def test_time_series_across_all_queues_are_bounded_by_validation():
    done = run_py(
        """
import aqmlab
from aqmlab import scenario as sc
nodes = [sc.host("h0")] + [sc.router(f"r{i}") for i in range(1, 201)]
links = [sc.link(f"r{i}" if i else "h0", f"r{i+1}", bandwidth="1Gbps", delay="1ms",
                 queue=sc.queue(limit_pkts=100)) for i in range(200)]
s = sc.scenario(duration="1s", nodes=nodes, links=links, sample_interval="10us",
                sample_queues="all")
try:
    aqmlab.validate(s)
except aqmlab.ScenarioError as e:
    print(e.path, "|", e.message)
"""
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("simulation.sample_interval | records at least 320003200 "), (
        done.stdout
    )
    assert "400 queues x 8" in done.stdout


@pytest.mark.parametrize("limit_mb", [400])
def test_a_real_allocation_failure_is_an_exception_not_an_abort(limit_mb):
    """Under an address-space limit the arena's growth fails before the packet bound: the
    failed allocation must surface as ResourceError, the interpreter alive."""
    done = run_py(
        """
import resource
import aqmlab
"""
        + FLOOD
        + f"""
resource.setrlimit(resource.RLIMIT_AS, ({limit_mb} << 20, {limit_mb} << 20))
try:
    aqmlab.run(s)
except aqmlab.ResourceError as e:
    print("ResourceError:", e)
except MemoryError as e:
    print("MemoryError:", e)
print("alive")
"""
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.startswith("ResourceError: out of memory growing the packet arena"), (
        done.stdout
    )


def test_loss_rate_counts_the_packets_sent_in_the_window_and_stays_at_most_1():
    """A 10 Mb/s CBR source into a 1 Mb/s link behind a 1 s access delay, stopping 10 ms
    after a 2 s warm-up: nearly every drop inside the window is of a packet sent before it.
    Counted by send time, loss_rate is the fraction of the window's own packets lost."""
    import aqmlab
    from aqmlab import scenario as sc

    s = sc.scenario(
        duration="4s",
        warmup="2s",
        nodes=[sc.host("a"), sc.router("r"), sc.host("b")],
        links=[
            sc.link("a", "r", bandwidth="1Gbps", delay="1s", queue=sc.queue(limit_pkts=1000)),
            sc.link("r", "b", bandwidth="1Mbps", delay="1ms", queue=sc.queue(limit_pkts=5)),
        ],
        flows=[sc.cbr("f", "a", "b", rate="10Mbps", packet_size=1000, stop="2.01s")],
    )
    f = aqmlab.run(s).flows.set_index("name").loc["f"]
    sent = f["sent_pkts"]
    assert sent == 13  # 10 ms at 1250 packets/s, from 2.000 s (the first at 2.0008 s)
    assert f["dropped_pkts"] > 10 * sent  # drops in the window, mostly of older packets
    assert 0 <= f["loss_rate"] <= 1
    # The window's own 13 packets arrive at a queue still full from the packets before:
    # 1 Mb/s drains one packet per 8 ms, so at most 2 of them get a place.
    assert f["loss_rate"] >= 11 / 13
