"""Example 4: DiffServ assured forwarding with RIO (RED with IN and OUT).

An edge router meters each customer's aggregate with a token bucket: packets within the
committed rate (CIR) stay green (IN), the excess is coloured red (OUT). The bottleneck's
RIO queue (docs/aqm/rio.md) drops OUT packets much earlier than IN ones, so each
aggregate gets about its CIR plus a share of what is left. `res.aggregates` (one row per
metered class) gives each aggregate's throughput, its ratio to the CIR and to its fair
share, and Jain's fairness index; `res.queue_colours` counts drops per colour.

Run: python examples/04_diffserv_rio.py   (a few seconds)
"""

import aqmlab
from aqmlab import diffserv as ds
from aqmlab import scenario as sc

# Two customers: gold (4 hosts, CIR 6 Mb/s) and bronze (4 hosts, CIR 2 Mb/s) on 10 Mb/s.
customers = {"gold": "6Mbps", "bronze": "2Mbps"}
edge = sc.router(
    "edge",
    conditioners=[
        ds.conditioner(
            [
                ds.traffic_class(c, ds.token_bucket(cir=cir, cbs=10_000))
                for c, cir in customers.items()
            ],
            [ds.policy(c, src=f"{c}_*") for c in customers],  # host-name patterns
            capacity="10Mbps",  # gives fair shares and Jain's index in res.aggregates
        )
    ],
)
# RIO-C: the first level is for IN (green) packets, the second for OUT.
rio = sc.rio(sc.rio_level(40, 70, max_p=0.02), sc.rio_level(10, 30, max_p=0.2))

access = sc.queue(limit_pkts=1000)
nodes, links, flows = [edge, sc.router("core"), sc.host("sink")], [], []
links.append(
    sc.link(
        "edge",
        "core",
        name="bottleneck",
        bandwidth="10Mbps",
        delay="20ms",
        queue=sc.queue(limit_pkts=100, aqm=rio),
    )
)
links.append(sc.link("core", "sink", bandwidth="100Mbps", delay="1ms", queue=access))
for c in customers:
    for i in range(4):
        host = f"{c}_{i}"
        nodes.append(sc.host(host))
        links.append(sc.link(host, "edge", bandwidth="100Mbps", delay="2ms", queue=access))
        flows.append(sc.tcp(f"{host}_tcp", host, "sink", variant="newreno"))

res = aqmlab.run(
    sc.scenario(duration="40s", warmup="10s", seed=1, nodes=nodes, links=links, flows=flows)
)

agg = res.aggregates.set_index("class")
print(agg[["cir_bps", "throughput_bps", "target_ratio", "fair_share_ratio"]].round(3))
print(f"Jain's index over the aggregates: {agg['jain_index'].iloc[0]:.3f}")

colours = res.queue_colours
print(colours[colours["queue"] == "edge->core"][["colour", "arrivals", "dropped_early"]])

# Each customer gets at least most of its committed rate.
assert (agg["target_ratio"] > 0.8).all(), agg["target_ratio"]
