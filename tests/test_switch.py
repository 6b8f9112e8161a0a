"""CIOQ switch and CIOQ-RED builders: the canonical echo, the switch tables through the
binding, and the join key from switch_ports to queues."""

import aqmlab
from aqmlab import scenario as sc
from aqmlab import switch as swb


def _star(
    n=4, *, speedup=1.1, out_aqm=None, inputs=None, fabric=None, duration="20s", trace_inputs=None
):
    """Hosts h0..h{n-1} on 1 Mb/s ports of switch sw; TCP flows h_i -> h_(i+1 mod n)."""
    nodes = [
        swb.switch(
            "sw",
            speedup=speedup,
            input_queue=sc.queue(limit_pkts=20),
            inputs=inputs,
            fabric=fabric,
            trace_inputs=trace_inputs,
        )
    ]
    links = []
    for i in range(n):
        nodes.append(sc.host(f"h{i}"))
        links.append(
            sc.link(
                f"h{i}",
                "sw",
                bandwidth="1Mbps",
                delay="1ms",
                queue=sc.queue(limit_pkts=20),
                reverse_queue=sc.queue(limit_pkts=20, aqm=out_aqm),
            )
        )
    flows = [sc.tcp(f"t{i}", f"h{i}", f"h{(i + 1) % n}") for i in range(n)]
    flows += [sc.tcp(f"u{i}", f"h{i}", f"h{(i + 2) % n}") for i in range(n)]
    return sc.scenario(duration=duration, warmup="2s", nodes=nodes, links=links, flows=flows)


def test_builders_echo_every_field_with_the_engine_defaults():
    s = _star(out_aqm=sc.cioq_red(0.5, 5, 15, w_q=0.004))
    c = aqmlab.canonical(s)
    sw = c["nodes"][0]
    assert sw["type"] == "switch"
    assert sw["switch"] == {
        "speedup": 1.1,
        "inputs": "voq",
        "input_queue": {"limit_pkts": 20, "aqm": {"type": "droptail"}},
        "input_buffer": "per_voq",
        "fabric": {"type": "links"},
    }
    aqm = c["links"][0]["reverse_queue"]["aqm"]
    assert aqm["type"] == "cioq_red" and aqm["nu"] == 0.5 and aqm["w_q"] == 0.004
    assert aqm["max_p"] == 0.1 and aqm["gentle"] is False


def test_switch_tables_reach_python_and_join_the_queues_table():
    r = aqmlab.run(_star(out_aqm=sc.cioq_red(0.5, 5, 15)))
    ports = r.tables["switch_ports"]
    assert list(ports["port"]) == [0, 1, 2, 3]
    assert list(ports["neighbour"]) == ["h0", "h1", "h2", "h3"]
    assert set(ports["output_queue"]) <= set(r.queues["name"])
    # s = 1.1 with two TCP flows per input: the inputs hold packets.
    assert ports["input_mean_queue_pkts"].sum() > 1.0
    voqs = r.tables["switch_voqs"]
    assert len(voqs) == 16
    # Each port's input counts are its VOQs' sums.
    by_input = voqs.groupby("input")["arrivals"].sum()
    assert list(by_input) == list(ports["input_arrivals"])
    fab = r.tables["switch_fabric"]
    assert ((fab["utilization"] > 0.3) & (fab["utilization"] <= 1.0)).all()
    # CIOQ-RED reports the input backlog it sees.
    assert "q_input" in r.timeseries.columns


def test_fifo_inputs_have_no_voq_table():
    r = aqmlab.run(_star(inputs="fifo", duration="5s"))
    assert "switch_voqs" not in r.tables
    assert len(r.tables["switch_ports"]) == 4


def test_crossbar_fabric_echoes_and_reports_matching_statistics():
    s = _star(fabric=swb.crossbar_fabric("pim", iterations=2), duration="10s")
    fab = aqmlab.canonical(s)["nodes"][0]["switch"]["fabric"]
    assert fab == {"type": "crossbar", "scheduler": {"type": "pim", "iterations": 2}, "cell": "64B"}
    t = aqmlab.run(s).tables["switch_fabric"]
    assert (t["fabric"] == "crossbar").all()
    assert (t["phases"] > 0).all()
    # At most 2 iterations used, and a matching of a 4-port switch has 1 to 4 pairs.
    assert ((t["mean_iterations"] >= 1) & (t["mean_iterations"] <= 2)).all()
    assert ((t["mean_match_size"] >= 1) & (t["mean_match_size"] <= 4)).all()


def test_traced_voqs_reach_python_and_add_up_to_q_input():
    r = aqmlab.run(_star(out_aqm=sc.cioq_red(0.5, 5, 15), trace_inputs=True, duration="10s"))
    ts = r.tables["switch_input_timeseries"]
    assert "switch_input_timeseries" in r.timeseries_tables
    assert len(ts) == 16 * r.timeseries["time_s"].nunique()
    assert list(ts.columns[:5]) == ["time_s", "switch", "input", "from", "to"]
    # At every sample, the VOQs for h1 hold what CIOQ-RED on sw->h1 sees as q_input.
    voqs = ts[ts["to"] == "h1"].groupby("time_s")["qlen_pkts"].sum()
    out = r.timeseries[r.timeseries["queue"] == "sw->h1"].set_index("time_s")["q_input"]
    assert (voqs.to_numpy() == out.to_numpy()).all()
    assert voqs.max() > 0
